/**
 * The k nearest points of a PointGrid2D: rings of cells outward with a safe
 * stopping bound (within is within-point.ts, for both dimensions). Internal:
 * arguments are checked by the public class.
 *
 * @module
 */

import { LOWEST_ORDINARY_SQUARE } from '../core/distance.js';
import { MAX_RING_CELL, SLACK, UNDERFLOW } from '../core/margins.js';
import { cellAlong } from './build-loops.js';
import { extremeGrid, fixNearest, nearestTiny } from './extreme.js';
import type { Grid2D } from './grid2d.js';

/** The k nearest points within maxDistance into `out`, ascending by distance then index (arguments already checked). */
export function nearest2D(g: Grid2D, x: number, y: number, k: number, maxDistance: number, out: number[]): number[] {
  const n = g.points;
  const heap = g.heap;
  heap.reset(Math.min(k, n));
  if (heap.capacity === 0) {
    out.length = 0;
    return out;
  }
  const maxSquared = maxDistance * maxDistance;
  // A maxDistance whose square is below 2^-896 (0 included) is searched exactly in the cells within it; any
  // other runs the float64 search, whose answer fixNearest settles when the heap noted extreme distances.
  if (maxSquared < LOWEST_ORDINARY_SQUARE) return nearestTiny(extremeGrid(g), [x, y], k, maxDistance, out);
  const width = g.width;
  const cellsX = g.cellsX;
  const cellsY = g.cellsY;
  const rx = x - g.originX;
  const ry = y - g.originY;
  const qx = cellAlong(x, g.originX, width);
  const qy = cellAlong(y, g.originY, width);
  if (Math.abs(qx) > MAX_RING_CELL || Math.abs(qy) > MAX_RING_CELL) {
    offerRange(g, 0, n, x, y, maxSquared);
    return drain(g, x, y, maxDistance, out);
  }
  // Rings up to kFirst - 1 miss the grid's box entirely.
  const kFirst = Math.max(0, qx - (cellsX - 1), -qx, qy - (cellsY - 1), -qy);
  // Hashed grids may span far more cells than they hold: past this budget of
  // cell look-ups, testing every point is cheaper.
  let budget = g.dense ? Number.POSITIVE_INFINITY : 2 * g.cellTotal + 64;
  for (let k = kFirst; ; k++) {
    const x0 = qx - k;
    const x1 = qx + k;
    const y0 = qy - k;
    const y1 = qy + k;
    const cx0 = Math.max(x0, 0);
    const cx1 = Math.min(x1, cellsX - 1);
    const yLow = Math.max(y0 + 1, 0);
    const yHigh = Math.min(y1 - 1, cellsY - 1);
    if (!g.dense) {
      budget -= 2 * (cx1 - cx0 + 1) + 2 * (yHigh - yLow + 1);
      if (budget < 0) {
        heap.reset(heap.capacity);
        offerRange(g, 0, n, x, y, maxSquared);
        return drain(g, x, y, maxDistance, out);
      }
    }
    if (cx0 <= cx1) {
      if (y0 >= 0 && y0 < cellsY) offerRow(g, y0, cx0, cx1, x, y, maxSquared);
      if (k > 0 && y1 >= 0 && y1 < cellsY) offerRow(g, y1, cx0, cx1, x, y, maxSquared);
    }
    if (k > 0) {
      for (let cy = yLow; cy <= yHigh; cy++) {
        if (x0 >= 0 && x0 < cellsX) offerRow(g, cy, x0, x0, x, y, maxSquared);
        if (x1 >= 0 && x1 < cellsX) offerRow(g, cy, x1, x1, x, y, maxSquared);
      }
    }
    // Every unvisited cell lies beyond one side of the ring's box; its points
    // are at least as far as that side.
    // (Whether any side is left is decided apart from the bound, which may overflow for huge cells.)
    let bound = Number.POSITIVE_INFINITY;
    const more = x1 + 1 <= cellsX - 1 || x0 - 1 >= 0 || y1 + 1 <= cellsY - 1 || y0 - 1 >= 0;
    if (!more) break;
    if (x1 + 1 <= cellsX - 1) bound = Math.min(bound, (x1 + 1) * width - rx);
    if (x0 - 1 >= 0) bound = Math.min(bound, rx - x0 * width);
    if (y1 + 1 <= cellsY - 1) bound = Math.min(bound, (y1 + 1) * width - ry);
    if (y0 - 1 >= 0) bound = Math.min(bound, ry - y0 * width);
    bound -= (Math.abs(rx) + Math.abs(ry) + (Math.abs(qx) + Math.abs(qy) + 2 * k + 2) * width) * SLACK + UNDERFLOW;
    if (bound > 0) {
      const boundSquared = bound * bound * (1 - SLACK);
      if (boundSquared > maxSquared || heap.worst() < boundSquared) break;
    }
  }
  return drain(g, x, y, maxDistance, out);
}

/** The heap's answer into `out`, settled by fixNearest when what it holds needs it (NearestHeap.needsExactOrder). */
function drain(g: Grid2D, x: number, y: number, maxDistance: number, out: number[]): number[] {
  if (g.heap.noted === 0 || !g.heap.needsExactOrder()) return g.heap.drain(out);
  return fixNearest(extremeGrid(g), g.heap, [x, y], maxDistance, out);
}

/** Offers the points of cells cx0..cx1 of row cy to the nearest heap. */
function offerRow(g: Grid2D, cy: number, cx0: number, cx1: number, x: number, y: number, maxSquared: number): void {
  const cellStart = g.cellStart;
  if (g.dense) {
    const row = cy * g.cellsX;
    offerRange(g, cellStart[row + cx0], cellStart[row + cx1 + 1], x, y, maxSquared);
    return;
  }
  for (let cx = cx0; cx <= cx1; cx++) {
    const id = g.findCell(cx, cy);
    if (id >= 0) offerRange(g, cellStart[id], cellStart[id + 1], x, y, maxSquared);
  }
}

/**
 * Offers sorted points start..end-1 to the nearest heap, the run clamped to
 * the points and each index to the count (see within-point.ts).
 */
function offerRange(g: Grid2D, start: number, end: number, x: number, y: number, maxSquared: number): void {
  const coords = g.coords;
  const sortedIndex = g.sortedIndex;
  const heap = g.heap;
  const n = g.points;
  const stop = Math.min(end, n);
  for (let t = Math.max(start, 0); t < stop; t++) {
    const dx = coords[2 * t] - x;
    const dy = coords[2 * t + 1] - y;
    const d2 = dx * dx + dy * dy;
    if (d2 <= maxSquared) heap.offer(d2, Math.min(sortedIndex[t], n - 1), t);
  }
}
