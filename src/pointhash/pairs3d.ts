/**
 * forEachPair of PointHash3D: every pair of points within a radius, once.
 *
 * Each occupied cell is paired with itself (i < j) and with the cells after
 * it in (z, y, x) order that its points can reach: the range is the cells of
 * its points' bounding box grown by the padded radius, so float rounding in
 * the cell coordinates can never hide a pair, and a pair of cells is met only
 * from the lower one. When that range holds more cells than the table, the
 * occupied cells are tested against it instead. Far points (past
 * MAX_CELL_INDEX) are tested against everything directly.
 *
 * @module
 */

import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import { radiusPad } from '../spatialhash/base.js';
import type { PairVisitor } from '../spatialhash/pairs.js';
import { accept, type PointHashBase, RUN, RUN_COUNT, RUN_START } from './base.js';

const NONE = -1;

/** Visits every pair within `radius` of a 3D point hash (arguments checked by the caller). */
export function pairs3<T>(hash: PointHashBase<T>, radius: number, visit: PairVisitor<T>): void {
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
    let z0 = Number.POSITIVE_INFINITY;
    let x1 = Number.NEGATIVE_INFINITY;
    let y1 = Number.NEGATIVE_INFINITY;
    let z1 = Number.NEGATIVE_INFINITY;
    for (let s = start * 4; s < end * 4; s += 4) {
      x0 = Math.min(x0, slots[s]);
      x1 = Math.max(x1, slots[s]);
      y0 = Math.min(y0, slots[s + 1]);
      y1 = Math.max(y1, slots[s + 1]);
      z0 = Math.min(z0, slots[s + 2]);
      z1 = Math.max(z1, slots[s + 2]);
    }
    const pad = radiusPad(radius, Math.max(-x0, x1) + Math.max(-y0, y1) + Math.max(-z0, z1));
    const kx0 = Math.max(hash.cellOf(x0 - pad), -MAX_CELL_INDEX);
    const kx1 = Math.min(hash.cellOf(x1 + pad), MAX_CELL_INDEX);
    const ky0 = Math.max(hash.cellOf(y0 - pad), -MAX_CELL_INDEX);
    const ky1 = Math.min(hash.cellOf(y1 + pad), MAX_CELL_INDEX);
    const kz1 = Math.min(hash.cellOf(z1 + pad), MAX_CELL_INDEX);
    const cx = keys[id * 3];
    const cy = keys[id * 3 + 1];
    const cz = keys[id * 3 + 2];
    if ((kx1 - kx0 + 1) * (ky1 - ky0 + 1) * (kz1 - cz + 1) > cells.size) {
      // A reach wider than the occupied cells: test those after this one instead.
      for (let other = 0; other < cells.idLimit; other++) {
        if (runs[other * RUN + RUN_COUNT] === 0) continue;
        const ox = keys[other * 3];
        const oy = keys[other * 3 + 1];
        const oz = keys[other * 3 + 2];
        if (oz < cz || (oz === cz && (oy < cy || (oy === cy && ox <= cx)))) continue;
        if (oz > kz1 || oy < ky0 || oy > ky1 || ox < kx0 || ox > kx1) continue;
        between(hash, start, end, other, r2, visit);
      }
      continue;
    }
    // The rest of this cell's row, the rest of its plane, then the planes above.
    for (let kx = cx + 1; kx <= kx1; kx++) {
      const other = cells.find3(kx, cy, cz);
      if (other !== NONE) between(hash, start, end, other, r2, visit);
    }
    for (let ky = cy + 1; ky <= ky1; ky++) {
      for (let kx = kx0; kx <= kx1; kx++) {
        const other = cells.find3(kx, ky, cz);
        if (other !== NONE) between(hash, start, end, other, r2, visit);
      }
    }
    for (let kz = cz + 1; kz <= kz1; kz++) {
      for (let ky = ky0; ky <= ky1; ky++) {
        for (let kx = kx0; kx <= kx1; kx++) {
          const other = cells.find3(kx, ky, kz);
          if (other !== NONE) between(hash, start, end, other, r2, visit);
        }
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
  for (let i = start * 4; i < end * 4; i += 4) {
    const ax = slots[i];
    const ay = slots[i + 1];
    const az = slots[i + 2];
    const a = slots[i + 3];
    for (let j = i + 4; j < end * 4; j += 4) {
      const dx = slots[j] - ax;
      const dy = slots[j + 1] - ay;
      const dz = slots[j + 2] - az;
      if (dx * dx + dy * dy + dz * dz <= r2) {
        const b = slots[j + 3];
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
  const from = hash.cellRuns[other * RUN + RUN_START] * 4;
  const to = from + hash.cellRuns[other * RUN + RUN_COUNT] * 4;
  for (let i = start * 4; i < end * 4; i += 4) {
    const ax = slots[i];
    const ay = slots[i + 1];
    const az = slots[i + 2];
    const a = slots[i + 3];
    for (let j = from; j < to; j += 4) {
      const dx = slots[j] - ax;
      const dy = slots[j + 1] - ay;
      const dz = slots[j + 2] - az;
      if (dx * dx + dy * dy + dz * dz <= r2) {
        const b = slots[j + 3];
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
  const slots = hash.slots;
  const farEnd = hash.farCount * 4;
  for (let i = 0; i < farEnd; i += 4) {
    const ax = far[i];
    const ay = far[i + 1];
    const az = far[i + 2];
    const a = far[i + 3];
    for (let j = i + 4; j < farEnd; j += 4) {
      const dx = far[j] - ax;
      const dy = far[j + 1] - ay;
      const dz = far[j + 2] - az;
      const b = far[j + 3];
      if (dx * dx + dy * dy + dz * dz <= r2 && accept(filters, a, b)) visit(items[a] as T, items[b] as T);
    }
    for (let id = 0; id < hash.cells.idLimit; id++) {
      const from = runs[id * RUN + RUN_START] * 4;
      const to = from + runs[id * RUN + RUN_COUNT] * 4;
      for (let j = from; j < to; j += 4) {
        const dx = slots[j] - ax;
        const dy = slots[j + 1] - ay;
        const dz = slots[j + 2] - az;
        const b = slots[j + 3];
        if (dx * dx + dy * dy + dz * dz <= r2 && accept(filters, a, b)) visit(items[a] as T, items[b] as T);
      }
    }
  }
}
