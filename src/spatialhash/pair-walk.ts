/**
 * What the full pair pass (pairs.ts) and the pair cache's refresh
 * (pair-refresh.ts) share: the box and filter tests of a candidate pair, the
 * walk over the cells that one stored item's box covers, and the pairs of
 * one item with the items of one of those cells.
 *
 * @module
 */

import { ballsMeet } from './balls.js';
import type { SpatialHashBase } from './base.js';
import { SLOT, SLOT_STARTS } from './cell-runs.js';
import type { PairCache } from './pair-cache.js';

const NONE = -1;

/** True when the filters of handles a and b accept each other. */
export function accepts(categories: Int32Array, masks: Int32Array, a: number, b: number): boolean {
  return (categories[a] & masks[b]) !== 0 && (categories[b] & masks[a]) !== 0;
}

/** True when closed boxes b1 of `boxes1` and b2 of `boxes2` intersect. */
export function intersects(boxes1: Float64Array, b1: number, boxes2: Float64Array, b2: number, dim: number): boolean {
  for (let a = 0; a < dim; a++) {
    if (boxes1[b1 + a] > boxes2[b2 + dim + a] || boxes2[b2 + a] > boxes1[b1 + dim + a]) return false;
  }
  return true;
}

/**
 * Looks at one cell for the items meeting handle `a`: `need` holds the start
 * bits (1: x, 2: y, 4: z) a slot of the cell must have for the pair to count
 * there. `sink` is whatever the caller threads through {@link scanRange}.
 */
export type CellScan<T, S> = (hash: SpatialHashBase<T>, a: number, id: number, need: number, sink: S) => void;

/**
 * Calls `scan` for every stored cell that handle `a`'s box covers, with the
 * start bits that make the cell the lowest one a pair with `a` shares there.
 * The range is clipped to the stored cells (so an overflow item's huge or
 * far range costs nothing past them), and when it still holds more cells
 * than are occupied, the occupied cells are walked instead. Each item in
 * cells that meets the box is thus looked at in one cell only.
 */
export function scanRange<T, S>(hash: SpatialHashBase<T>, a: number, scan: CellScan<T, S>, sink: S): void {
  const cells = hash.cells;
  if (cells.size === 0) return;
  const dim = hash.dim;
  const boxes = hash.boxes;
  const bounds = hash.cellBounds;
  const b = a * hash.boxStride;
  const x0 = Math.max(hash.cellOf(boxes[b]), bounds[0]);
  const x1 = Math.min(hash.cellOf(boxes[b + dim]), bounds[3]);
  const y0 = Math.max(hash.cellOf(boxes[b + 1]), bounds[1]);
  const y1 = Math.min(hash.cellOf(boxes[b + dim + 1]), bounds[4]);
  let z0 = 0;
  let z1 = 0;
  if (dim === 3) {
    z0 = Math.max(hash.cellOf(boxes[b + 2]), bounds[2]);
    z1 = Math.min(hash.cellOf(boxes[b + 5]), bounds[5]);
  }
  if (x0 > x1 || y0 > y1 || z0 > z1) return;
  if ((x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1) > cells.size) {
    // Fewer occupied cells than cells in the range: walk those instead.
    const keys = cells.keys;
    const cellEntryCount = hash.cellEntryCount;
    for (let id = 0; id < cells.idLimit; id++) {
      if (cellEntryCount[id] === 0) continue;
      const kx = keys[id * dim];
      const ky = keys[id * dim + 1];
      const kz = dim === 3 ? keys[id * 3 + 2] : 0;
      if (kx < x0 || kx > x1 || ky < y0 || ky > y1 || kz < z0 || kz > z1) continue;
      scan(hash, a, id, startsNeeded(kx === x0, ky === y0, kz === z0, dim), sink);
    }
    return;
  }
  for (let kx = x0; kx <= x1; kx++) {
    for (let ky = y0; ky <= y1; ky++) {
      for (let kz = z0; kz <= z1; kz++) {
        const id = dim === 2 ? cells.find2(kx, ky) : cells.find3(kx, ky, kz);
        if (id !== NONE) scan(hash, a, id, startsNeeded(kx === x0, ky === y0, kz === z0, dim), sink);
      }
    }
  }
}

/**
 * The start bits an item's slot needs in a cell of a walked range for the
 * pair to count there: on an axis where the cell is not the range's first,
 * the item's own range must start at the cell (lowest shared cell).
 */
function startsNeeded(firstX: boolean, firstY: boolean, firstZ: boolean, dim: number): number {
  return (firstX ? 0 : 1) | (firstY ? 0 : 2) | (firstZ || dim === 2 ? 0 : 4);
}

/** Where {@link cellPartners} puts the pairs it finds. */
export interface PartnerTarget<T> {
  /** The user's visitor, called when there is no sink. */
  visit: ((a: T, b: T) => void) | undefined;
  /** The pair cache recording the pairs, or undefined. */
  sink: PairCache | undefined;
  /** Whether `visit` hears only of pairs whose balls meet ({@link ballsMeet}); a sink gets every box pair. */
  balls: boolean;
  /**
   * In the cache's refresh, its flags: a flagged partner below the item
   * finds the pair from its own side, so it is skipped here. Undefined in a
   * full pass.
   */
  flags: Uint8Array | undefined;
  /** Pairs found so far. */
  found: number;
}

/**
 * Pairs handle `a` with the other items of cell `id` whose start bits
 * include `need` (a {@link CellScan} for {@link scanRange}).
 */
export function cellPartners<T>(
  hash: SpatialHashBase<T>,
  a: number,
  id: number,
  need: number,
  to: PartnerTarget<T>,
): void {
  const stride = hash.boxStride;
  const slotBox = hash.slotBox;
  const info = hash.slotInfo;
  const boxes = hash.boxes;
  const flags = to.flags;
  const ba = a * stride;
  for (let s = hash.cellStart[id], end = s + hash.cellEntryCount[id]; s < end; s++) {
    if ((info[s * SLOT + SLOT_STARTS] & need) !== need) continue;
    const h = info[s * SLOT];
    if (h === a || (flags !== undefined && h < a && flags[h] === 1)) continue;
    if (!intersects(slotBox, s * stride, boxes, ba, hash.dim) || !accepts(hash.categories, hash.masks, a, h)) continue;
    to.found++;
    if (to.sink !== undefined) to.sink.push(a, h);
    else if (!to.balls || ballsMeet(slotBox, s * stride, boxes, ba, hash.dim)) {
      (to.visit as (a: T, b: T) => void)(hash.items[a] as T, hash.items[h] as T);
    }
  }
}
