/**
 * forEachPair of PointHash2D: every pair of points within a radius, once.
 *
 * Each occupied cell is paired with itself (i < j) and with the cells after
 * it in (y, x) order that its points can reach: the range is the cells of
 * its points' bounding box grown by the padded radius, so float rounding in
 * the cell coordinates can never hide a pair, and a pair of cells is met only
 * from the lower one. Far points (past MAX_CELL_INDEX) are tested against
 * everything directly.
 *
 * @module
 */

import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import { radiusPad } from '../spatialhash/base.js';
import type { PairVisitor } from '../spatialhash/pairs.js';
import { accept, type PointHashBase, RUN, RUN_COUNT, RUN_START } from './base.js';

const NONE = -1;

/** Visits every pair within `radius` of a 2D point hash (arguments checked by the caller). */
export function pairs2<T>(hash: PointHashBase<T>, radius: number, visit: PairVisitor<T>): void {
  if (hash.itemCount < 2) return;
  const r2 = radius * radius;
  const cells = hash.cells;
  const runs = hash.cellRuns;
  const keys = cells.keys;
  for (let id = 0; id < cells.idLimit; id++) {
    const n = runs[id * RUN + RUN_COUNT];
    if (n === 0) continue;
    const start = runs[id * RUN + RUN_START];
    const end = start + n;
    within(hash, start, end, r2, visit);
    // The cells this one's points can reach.
    const slots = hash.slots;
    let x0 = Number.POSITIVE_INFINITY;
    let y0 = Number.POSITIVE_INFINITY;
    let x1 = Number.NEGATIVE_INFINITY;
    let y1 = Number.NEGATIVE_INFINITY;
    for (let s = start * 3; s < end * 3; s += 3) {
      x0 = Math.min(x0, slots[s]);
      x1 = Math.max(x1, slots[s]);
      y0 = Math.min(y0, slots[s + 1]);
      y1 = Math.max(y1, slots[s + 1]);
    }
    const pad = radiusPad(radius, Math.max(-x0, x1) + Math.max(-y0, y1));
    const kx0 = Math.max(hash.cellOf(x0 - pad), -MAX_CELL_INDEX);
    const kx1 = Math.min(hash.cellOf(x1 + pad), MAX_CELL_INDEX);
    const ky1 = Math.min(hash.cellOf(y1 + pad), MAX_CELL_INDEX);
    const cx = keys[id * 2];
    const cy = keys[id * 2 + 1];
    if ((kx1 - kx0 + 1) * (ky1 - cy + 1) > cells.size) {
      // A reach wider than the occupied cells: test those after this one instead.
      for (let other = 0; other < cells.idLimit; other++) {
        if (runs[other * RUN + RUN_COUNT] === 0) continue;
        const ox = keys[other * 2];
        const oy = keys[other * 2 + 1];
        if (oy < cy || (oy === cy && ox <= cx) || oy > ky1 || ox < kx0 || ox > kx1) continue;
        between(hash, start, end, other, r2, visit);
      }
      continue;
    }
    for (let kx = cx + 1; kx <= kx1; kx++) {
      const other = cells.find2(kx, cy);
      if (other !== NONE) between(hash, start, end, other, r2, visit);
    }
    for (let ky = cy + 1; ky <= ky1; ky++) {
      for (let kx = kx0; kx <= kx1; kx++) {
        const other = cells.find2(kx, ky);
        if (other !== NONE) between(hash, start, end, other, r2, visit);
      }
    }
  }
  if (hash.farCount > 0) farPairs(hash, r2, visit);
}

/** Pairs of slots i < j within [start, end) of the pool. */
function within<T>(hash: PointHashBase<T>, start: number, end: number, r2: number, visit: PairVisitor<T>): void {
  const slots = hash.slots;
  const filters = hash.filters;
  const items = hash.items;
  for (let i = start * 3; i < end * 3; i += 3) {
    const ax = slots[i];
    const ay = slots[i + 1];
    const a = slots[i + 2];
    for (let j = i + 3; j < end * 3; j += 3) {
      const dx = slots[j] - ax;
      const dy = slots[j + 1] - ay;
      if (dx * dx + dy * dy <= r2) {
        const b = slots[j + 2];
        if (accept(filters, a, b)) visit(items[a] as T, items[b] as T);
      }
    }
  }
}

/** Pairs between slots [start, end) of the pool and the run of cell `other`. */
function between<T>(
  hash: PointHashBase<T>,
  start: number,
  end: number,
  other: number,
  r2: number,
  visit: PairVisitor<T>,
): void {
  const slots = hash.slots;
  const filters = hash.filters;
  const items = hash.items;
  const from = hash.cellRuns[other * RUN + RUN_START] * 3;
  const to = from + hash.cellRuns[other * RUN + RUN_COUNT] * 3;
  for (let i = start * 3; i < end * 3; i += 3) {
    const ax = slots[i];
    const ay = slots[i + 1];
    const a = slots[i + 2];
    for (let j = from; j < to; j += 3) {
      const dx = slots[j] - ax;
      const dy = slots[j + 1] - ay;
      if (dx * dx + dy * dy <= r2) {
        const b = slots[j + 2];
        if (accept(filters, a, b)) visit(items[a] as T, items[b] as T);
      }
    }
  }
}

/** Pairs with a far point: far with far (i < j), and far with every point in a cell. O(far x points). */
function farPairs<T>(hash: PointHashBase<T>, r2: number, visit: PairVisitor<T>): void {
  const far = hash.far;
  const filters = hash.filters;
  const items = hash.items;
  const runs = hash.cellRuns;
  for (let i = 0; i < hash.farCount * 3; i += 3) {
    const ax = far[i];
    const ay = far[i + 1];
    const a = far[i + 2];
    for (let j = i + 3; j < hash.farCount * 3; j += 3) {
      const dx = far[j] - ax;
      const dy = far[j + 1] - ay;
      const b = far[j + 2];
      if (dx * dx + dy * dy <= r2 && accept(filters, a, b)) visit(items[a] as T, items[b] as T);
    }
    const slots = hash.slots;
    for (let id = 0; id < hash.cells.idLimit; id++) {
      const from = runs[id * RUN + RUN_START] * 3;
      const to = from + runs[id * RUN + RUN_COUNT] * 3;
      for (let j = from; j < to; j += 3) {
        const dx = slots[j] - ax;
        const dy = slots[j + 1] - ay;
        const b = slots[j + 2];
        if (dx * dx + dy * dy <= r2 && accept(filters, a, b)) visit(items[a] as T, items[b] as T);
      }
    }
  }
}
