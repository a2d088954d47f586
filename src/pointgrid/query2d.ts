/**
 * Queries of a PointGrid2D: points within a radius (rows of cells clipped to
 * the disc) and the k nearest (rings of cells outward with a safe stopping
 * bound). Internal: arguments are checked by the public class.
 *
 * @module
 */

import { clampIndices } from '../core/bounded.js';
import { isOrdinaryRadius, LOWEST_ORDINARY_SQUARE } from '../core/distance.js';
import { MAX_RING_CELL, paddedRadius, SLACK, UNDERFLOW } from '../core/margins.js';
import { verifying } from '../wasm/kernels.js';
import { verifyFound } from '../wasm/verify.js';
import { within } from '../wasm/within-kernels.js';
import { extremeGrid2, fixNearest, nearestTiny, withinExtreme } from './extreme.js';
import type { Grid2D } from './grid2d.js';

/**
 * Writes the points within radius into target (as far as it fits) and
 * returns how many there are. Every loop is bounded by the header's numbers
 * (read once per build), whatever the buffer's sections hold: cell runs are
 * clamped to the points and indices to the count, so a buffer that another
 * thread rewrites mid-query gives a wrong answer at worst, never a hang.
 */
export function within2D(g: Grid2D, x: number, y: number, radius: number, target: Uint32Array): number {
  const n = g.points;
  if (n === 0) return 0;
  // An extreme radius (its square overflows or is below 2^-896) takes the cold path (see core/distance.ts).
  if (!isOrdinaryRadius(radius)) return withinExtreme(extremeGrid2(g), [x, y], radius, target);
  // On the WebAssembly kernels where they are on (ordinary radii only, as here): the same points in the same
  // order (src/wasm/within-kernels.ts).
  const fast = within(g, x, y, 0, radius, target);
  if (fast < 0) return withinRows2D(g, x, y, radius, target);
  if (verifying()) {
    const check = new Uint32Array(target.length);
    verifyFound('PointGrid2D within', fast, target, withinRows2D(g, x, y, radius, check), check);
  }
  return fast;
}

/** {@link within2D} on the JavaScript path, for an ordinary radius over a grid of at least one point. */
function withinRows2D(g: Grid2D, x: number, y: number, radius: number, target: Uint32Array): number {
  const n = g.points;
  const r2 = radius * radius;
  const width = g.width;
  const rx = x - g.originX;
  const ry = y - g.originY;
  // More than Number.MAX_VALUE from the origin along an axis, the query is over 2^918 (~1e276) from every
  // point (whose offsets from the origin are finite): beyond every radius whose square is finite.
  if (rx - rx !== 0 || ry - ry !== 0) return 0;
  const padded = paddedRadius(radius, Math.max(Math.abs(rx), Math.abs(ry)), width);
  const lx = Math.max(Math.floor((rx - padded) / width), 0);
  const hx = Math.min(Math.floor((rx + padded) / width), g.cellsX - 1);
  const ly = Math.max(Math.floor((ry - padded) / width), 0);
  const hy = Math.min(Math.floor((ry + padded) / width), g.cellsY - 1);
  if (lx > hx || ly > hy) return 0;
  const dense = g.dense;
  // A hashed grid asked for more cells than it holds: test every occupied cell against the box instead.
  if (!dense && (hx - lx + 1) * (hy - ly + 1) > g.cellTotal)
    return withinEveryCell(g, x, y, radius, lx, hx, ly, hy, target);
  const coords = g.coords;
  const sortedIndex = g.sortedIndex;
  const cellStart = g.cellStart;
  const keys = g.cellKeys;
  const cells = g.cellTotal;
  const cellsX = g.cellsX;
  const capacity = target.length;
  // Tiny radii would square to subnormals: no clipping and no row bound then.
  const tiny = !(padded > 1e-150);
  // With 3 rows or fewer (radius up to a cell) clipping the cell range saves too little to pay for itself.
  const clip = hy - ly > 2 && !tiny;
  const paddedSquared = padded * padded;
  const margin = (Math.abs(ry) + width) * SLACK;
  // Rows go in batches: first each row's run of sorted positions, then the
  // scans. The look-ups of different rows are independent, and done together
  // their cache misses overlap instead of each waiting behind the previous
  // row's scan.
  const rows = ROWS;
  let found = 0;
  for (let batch = ly; batch <= hy; batch += ROW_BATCH) {
    const batchEnd = Math.min(hy, batch + ROW_BATCH - 1);
    let used = 0;
    for (let cy = batch; cy <= batchEnd; cy++) {
      let cx0 = lx;
      let cx1 = hx;
      // Every point of the row is at least `gap` from y (rounding included, see
      // core/margins.ts), so its squared distance is at least `floor2` plus its dx
      // squared: the x-sorted row is cut to the chord by that bound, exactly.
      const below = cy * width - ry;
      const above = ry - (cy + 1) * width;
      const gap = (below > 0 ? below : Math.max(above, 0)) - (cy + 1) * margin;
      let floor2 = 0;
      if (gap > 0 && !tiny) {
        floor2 = gap * gap * (1 - SLACK);
        if (floor2 > r2) continue;
        if (clip) {
          const half = Math.sqrt(paddedSquared - gap * gap);
          if (!(half >= 0)) continue;
          const left = Math.floor((rx - half) / width);
          const right = Math.floor((rx + half) / width);
          if (left > cx0) cx0 = left;
          if (right < cx1) cx1 = right;
          // The chord misses the grid's cells (x far outside them): no run to read.
          if (cx0 > cx1) continue;
        }
      }
      // The row's points from cx0 to cx1 are one run of sorted positions, in x
      // order: a dense row directly, a hashed one as consecutive row-major ids
      // from its first occupied cell.
      if (dense) {
        const row = cy * cellsX;
        rows[used] = floor2;
        rows[used + 1] = row + cx0;
        rows[used + 2] = cx1 - cx0;
        rows[used + 3] = cx0;
        used += 4;
      } else {
        let id = -1;
        for (let cx = cx0; cx <= cx1 && id < 0; cx++) id = g.findCell(cx, cy);
        if (id < 0) continue;
        rows[used] = floor2;
        rows[used + 1] = id;
        rows[used + 2] = cx1;
        rows[used + 3] = cy;
        used += 4;
      }
    }
    for (let k = 0; k < used; k += 4) {
      const floor2 = rows[k];
      let start: number;
      let end: number;
      // The run's first and last cell along x.
      let first: number;
      let last: number;
      if (dense) {
        const cell = rows[k + 1];
        start = cellStart[cell];
        end = cellStart[cell + rows[k + 2] + 1];
        first = rows[k + 3];
        last = first + rows[k + 2];
      } else {
        const id = rows[k + 1];
        const cx1 = rows[k + 2];
        const cy = rows[k + 3];
        let lastId = id;
        while (lastId + 1 < cells && keys[2 * lastId + 3] === cy && keys[2 * lastId + 2] <= cx1) lastId++;
        start = cellStart[id];
        end = cellStart[lastId + 1];
        first = keys[2 * id];
        last = keys[2 * lastId];
      }
      // (A run from a buffer another thread is rewriting, or one not checked, stays inside the points and never
      // runs backwards.)
      if (start < 0) start = 0;
      if (end > n) end = n;
      if (end < start) end = start;
      // Skip the points left of the chord. Where it starts is guessed as if the
      // run's points were spread evenly over its cells, then settled exactly by
      // walking (the test is monotone along x): one cache miss and a few
      // sequential reads, where a bisection of a cold run waits on one miss
      // after another.
      if (end - start > 8) {
        const half = Math.sqrt(Math.max(r2 - floor2, 0));
        const fraction = (rx - half - first * width) / ((last - first + 1) * width);
        if (fraction > 0) {
          let t = start + Math.floor(Math.min(fraction, 1) * (end - start));
          for (; t < end; t++) {
            const dx = coords[2 * t] - x;
            if (!(dx < 0 && dx * dx + floor2 > r2)) break;
          }
          for (; t > start; t--) {
            const dx = coords[2 * t - 2] - x;
            if (dx < 0 && dx * dx + floor2 > r2) break;
          }
          start = t;
        }
      }
      if (found + end - start <= capacity) {
        for (let t = start; t < end; t++) {
          const dx = coords[2 * t] - x;
          const dx2 = dx * dx;
          // Past the chord's right end nothing more can be in.
          if (dx > 0 && dx2 + floor2 > r2) break;
          const dy = coords[2 * t + 1] - y;
          // Write every candidate and advance only on a hit: no hard-to-predict
          // branch (about twice as fast as an if on cache-resident data).
          target[found] = sortedIndex[t];
          found += +(dx2 + dy * dy <= r2);
        }
        continue;
      }
      for (let t = start; t < end; t++) {
        const dx = coords[2 * t] - x;
        const dx2 = dx * dx;
        if (dx > 0 && dx2 + floor2 > r2) break;
        const dy = coords[2 * t + 1] - y;
        if (dx2 + dy * dy <= r2) {
          if (found < capacity) target[found] = sortedIndex[t];
          found++;
        }
      }
    }
  }
  if (g.clampsIndices) clampIndices(target, Math.min(found, capacity), n);
  // (More than n only when the buffer holds garbage: see core/bounded.ts.)
  return Math.min(found, n);
}

/** Rows a within2D query looks up before scanning them. */
const ROW_BATCH = 32;

/** Per-row bounds of a within2D batch, 4 numbers a row (within2D calls nothing while it uses them). */
const ROWS = new Float64Array(4 * ROW_BATCH);

/** {@link within2D} of a hashed grid whose cell range spans more cells than it holds: every occupied cell in the box. */
function withinEveryCell(
  g: Grid2D,
  x: number,
  y: number,
  radius: number,
  lx: number,
  hx: number,
  ly: number,
  hy: number,
  target: Uint32Array,
): number {
  const r2 = radius * radius;
  const coords = g.coords;
  const sortedIndex = g.sortedIndex;
  const cellStart = g.cellStart;
  const keys = g.cellKeys;
  const cells = g.cellTotal;
  const n = g.points;
  const capacity = target.length;
  let found = 0;
  for (let id = 0; id < cells; id++) {
    const kx = keys[2 * id];
    const ky = keys[2 * id + 1];
    if (kx < lx || kx > hx || ky < ly || ky > hy) continue;
    const end = Math.min(cellStart[id + 1], n);
    for (let t = Math.max(cellStart[id], 0); t < end; t++) {
      const dx = coords[2 * t] - x;
      const dy = coords[2 * t + 1] - y;
      if (dx * dx + dy * dy <= r2) {
        if (found < capacity) target[found] = sortedIndex[t];
        found++;
      }
    }
  }
  if (g.clampsIndices) clampIndices(target, Math.min(found, capacity), n);
  // (More than n only when the buffer holds garbage: see core/bounded.ts.)
  return Math.min(found, n);
}

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
  if (maxSquared < LOWEST_ORDINARY_SQUARE) return nearestTiny(extremeGrid2(g), [x, y], k, maxDistance, out);
  const width = g.width;
  const cellsX = g.cellsX;
  const cellsY = g.cellsY;
  const rx = x - g.originX;
  const ry = y - g.originY;
  const qx = Math.floor(rx / width);
  const qy = Math.floor(ry / width);
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
  return fixNearest(extremeGrid2(g), g.heap, [x, y], maxDistance, out);
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
 * the points and each index to the count (see within2D).
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
