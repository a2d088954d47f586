/**
 * The k nearest points of a PointGrid3D: shells of cells outward with a safe
 * stopping bound (within is within-point.ts, for both dimensions). Internal:
 * arguments are checked by the public class.
 *
 * @module
 */

import { LOWEST_ORDINARY_SQUARE } from '../core/distance.js';
import { MAX_RING_CELL, SLACK, UNDERFLOW } from '../core/margins.js';
import { cellAlong } from './build-loops.js';
import { extremeGrid, fixNearest, nearestTiny } from './extreme.js';
import type { Grid3D } from './grid3d.js';

/** The k nearest points within maxDistance into `out`, ascending by distance then index (arguments already checked). */
export function nearest3D(
  g: Grid3D,
  x: number,
  y: number,
  z: number,
  k: number,
  maxDistance: number,
  out: number[],
): number[] {
  const n = g.points;
  const heap = g.heap;
  heap.reset(Math.min(k, n));
  if (heap.capacity === 0) {
    out.length = 0;
    return out;
  }
  const maxSquared = maxDistance * maxDistance;
  // As in nearest2D: a tiny maxDistance is searched exactly, any other settled by fixNearest where needed.
  if (maxSquared < LOWEST_ORDINARY_SQUARE) return nearestTiny(extremeGrid(g), [x, y, z], k, maxDistance, out);
  const width = g.width;
  const cellsX = g.cellsX;
  const cellsY = g.cellsY;
  const cellsZ = g.cellsZ;
  const rx = x - g.originX;
  const ry = y - g.originY;
  const rz = z - g.originZ;
  const qx = cellAlong(x, g.originX, width);
  const qy = cellAlong(y, g.originY, width);
  const qz = cellAlong(z, g.originZ, width);
  if (Math.abs(qx) > MAX_RING_CELL || Math.abs(qy) > MAX_RING_CELL || Math.abs(qz) > MAX_RING_CELL) {
    offerRange(g, 0, n, x, y, z, maxSquared);
    return drain(g, x, y, z, maxDistance, out);
  }
  // Shells up to kFirst - 1 miss the grid's box entirely.
  const kFirst = Math.max(0, qx - (cellsX - 1), -qx, qy - (cellsY - 1), -qy, qz - (cellsZ - 1), -qz);
  // Hashed grids may span far more cells than they hold: past this budget of
  // cell look-ups, testing every point is cheaper.
  let budget = g.dense ? Number.POSITIVE_INFINITY : 2 * g.cellTotal + 64;
  for (let k = kFirst; ; k++) {
    const x0 = qx - k;
    const x1 = qx + k;
    const y0 = qy - k;
    const y1 = qy + k;
    const z0 = qz - k;
    const z1 = qz + k;
    const cx0 = Math.max(x0, 0);
    const cx1 = Math.min(x1, cellsX - 1);
    const cy0 = Math.max(y0, 0);
    const cy1 = Math.min(y1, cellsY - 1);
    const cz0 = Math.max(z0, 0);
    const cz1 = Math.min(z1, cellsZ - 1);
    if (!g.dense && cx0 <= cx1 && cy0 <= cy1 && cz0 <= cz1) {
      // Upper bound of the shell's cells inside the box.
      const sx = cx1 - cx0 + 1;
      const sy = cy1 - cy0 + 1;
      const sz = cz1 - cz0 + 1;
      budget -= 2 * (sx * sy + sy * sz + sx * sz);
      if (budget < 0) {
        heap.reset(heap.capacity);
        offerRange(g, 0, n, x, y, z, maxSquared);
        return drain(g, x, y, z, maxDistance, out);
      }
    }
    if (cx0 <= cx1) {
      for (let cz = cz0; cz <= cz1; cz++) {
        const zFace = cz === z0 || cz === z1;
        for (let cy = cy0; cy <= cy1; cy++) {
          if (zFace || cy === y0 || cy === y1) {
            offerRow(g, cy, cz, cx0, cx1, x, y, z, maxSquared);
          } else {
            if (x0 >= 0) offerRow(g, cy, cz, x0, x0, x, y, z, maxSquared);
            if (k > 0 && x1 < cellsX) offerRow(g, cy, cz, x1, x1, x, y, z, maxSquared);
          }
        }
      }
    }
    // Every unvisited cell lies beyond one face of the shell's box; its points
    // are at least as far as that face.
    // (Whether any face is left is decided apart from the bound, which may overflow for huge cells.)
    let bound = Number.POSITIVE_INFINITY;
    const more =
      x1 + 1 <= cellsX - 1 || x0 - 1 >= 0 || y1 + 1 <= cellsY - 1 || y0 - 1 >= 0 || z1 + 1 <= cellsZ - 1 || z0 - 1 >= 0;
    if (!more) break;
    if (x1 + 1 <= cellsX - 1) bound = Math.min(bound, (x1 + 1) * width - rx);
    if (x0 - 1 >= 0) bound = Math.min(bound, rx - x0 * width);
    if (y1 + 1 <= cellsY - 1) bound = Math.min(bound, (y1 + 1) * width - ry);
    if (y0 - 1 >= 0) bound = Math.min(bound, ry - y0 * width);
    if (z1 + 1 <= cellsZ - 1) bound = Math.min(bound, (z1 + 1) * width - rz);
    if (z0 - 1 >= 0) bound = Math.min(bound, rz - z0 * width);
    bound -=
      (Math.abs(rx) + Math.abs(ry) + Math.abs(rz) + (Math.abs(qx) + Math.abs(qy) + Math.abs(qz) + 2 * k + 2) * width) *
        SLACK +
      UNDERFLOW;
    if (bound > 0) {
      const boundSquared = bound * bound * (1 - SLACK);
      if (boundSquared > maxSquared || heap.worst() < boundSquared) break;
    }
  }
  return drain(g, x, y, z, maxDistance, out);
}

/** The heap's answer into `out`, settled by fixNearest when what it holds needs it (NearestHeap.needsExactOrder). */
function drain(g: Grid3D, x: number, y: number, z: number, maxDistance: number, out: number[]): number[] {
  if (g.heap.noted === 0 || !g.heap.needsExactOrder()) return g.heap.drain(out);
  return fixNearest(extremeGrid(g), g.heap, [x, y, z], maxDistance, out);
}

/** Offers the points of cells cx0..cx1 of row (cy, cz) to the nearest heap. */
function offerRow(
  g: Grid3D,
  cy: number,
  cz: number,
  cx0: number,
  cx1: number,
  x: number,
  y: number,
  z: number,
  maxSquared: number,
): void {
  const cellStart = g.cellStart;
  if (g.dense) {
    const row = cy * g.cellsX + cz * g.cellsX * g.cellsY;
    offerRange(g, cellStart[row + cx0], cellStart[row + cx1 + 1], x, y, z, maxSquared);
    return;
  }
  for (let cx = cx0; cx <= cx1; cx++) {
    const id = g.findCell(cx, cy, cz);
    if (id >= 0) offerRange(g, cellStart[id], cellStart[id + 1], x, y, z, maxSquared);
  }
}

/**
 * Offers sorted points start..end-1 to the nearest heap, the run clamped to
 * the points and each index to the count (see within-point.ts).
 */
function offerRange(g: Grid3D, start: number, end: number, x: number, y: number, z: number, maxSquared: number): void {
  const coords = g.coords;
  const sortedIndex = g.sortedIndex;
  const heap = g.heap;
  const n = g.points;
  const stop = Math.min(end, n);
  for (let t = Math.max(start, 0); t < stop; t++) {
    const dx = coords[3 * t] - x;
    const dy = coords[3 * t + 1] - y;
    const dz = coords[3 * t + 2] - z;
    const d2 = dx * dx + dy * dy + dz * dz;
    if (d2 <= maxSquared) heap.offer(d2, Math.min(sortedIndex[t], n - 1), t);
  }
}
