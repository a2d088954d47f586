/**
 * The pair cache's update at the start of forEachPair (steps 1 and 2 of
 * pair-cache.ts): drop the kept pairs of every changed handle, then find the
 * pairs of each changed handle still stored.
 *
 * @module
 */

import type { SpatialHashBase } from './base.js';
import { SLOT, SLOT_STARTS } from './cell-runs.js';
import type { PairCache } from './pair-cache.js';
import { accepts, cellPartners, intersects, type PartnerTarget, scanRange } from './pair-walk.js';

/** Brings `cache`'s pairs up to date with `hash`, whose slots are synced. O(kept pairs + changed handles' cells). */
export function refreshPairs<T>(hash: SpatialHashBase<T>, cache: PairCache): void {
  const flags = cache.flags;
  const pairs = cache.pairs;
  let kept = 0;
  for (let i = 0, end = cache.pairCount * 2; i < end; i += 2) {
    const a = pairs[i];
    const b = pairs[i + 1];
    if (flags[a] === 1 || flags[b] === 1) continue;
    pairs[kept] = a;
    pairs[kept + 1] = b;
    kept += 2;
  }
  cache.pairCount = kept / 2;
  const alive = hash.alive;
  const changed = cache.changed;
  const to: PartnerTarget<T> = { visit: undefined, sink: cache, balls: false, flags, found: 0 };
  for (let i = 0; i < cache.changedCount; i++) {
    const h = changed[i];
    if (alive[h] !== 1) continue;
    if (hash.inOverflow(h)) pairsOf(hash, h, cache, to);
    else if (hash.dim === 2) cellPairs2(hash, h, cache);
    else cellPairs3(hash, h, cache);
  }
}

/**
 * {@link pairsOf} for a 2D item in cells, the common case, written out: its
 * cells all exist (it is in them), so there is no clipping, and the box test
 * is four comparisons against numbers read once.
 */
function cellPairs2<T>(hash: SpatialHashBase<T>, d: number, cache: PairCache): void {
  const flags = cache.flags;
  const boxes = hash.boxes;
  const slotBox = hash.slotBox;
  const info = hash.slotInfo;
  const cells = hash.cells;
  const categories = hash.categories;
  const masks = hash.masks;
  const filtered = hash.filteredCount !== 0;
  overflowPartners(hash, d, cache);
  const minX = boxes[d * 4];
  const minY = boxes[d * 4 + 1];
  const maxX = boxes[d * 4 + 2];
  const maxY = boxes[d * 4 + 3];
  const cx0 = hash.cellOf(minX);
  const cy0 = hash.cellOf(minY);
  const cx1 = hash.cellOf(maxX);
  const cy1 = hash.cellOf(maxY);
  for (let cx = cx0; cx <= cx1; cx++) {
    for (let cy = cy0; cy <= cy1; cy++) {
      const id = cells.find2(cx, cy);
      const need = (cx === cx0 ? 0 : 1) | (cy === cy0 ? 0 : 2);
      for (let s = hash.cellStart[id], end = s + hash.cellEntryCount[id]; s < end; s++) {
        const b = s * 4;
        if (slotBox[b] > maxX || minX > slotBox[b + 2] || slotBox[b + 1] > maxY || minY > slotBox[b + 3]) continue;
        if ((info[s * SLOT + SLOT_STARTS] & need) !== need) continue;
        const h = info[s * SLOT];
        if (h === d || (h < d && flags[h] === 1)) continue;
        if (filtered && !accepts(categories, masks, d, h)) continue;
        cache.push(d, h);
      }
    }
  }
}

/** {@link cellPairs2} in 3D: six comparisons per slot, start bits 1: x, 2: y, 4: z. */
function cellPairs3<T>(hash: SpatialHashBase<T>, d: number, cache: PairCache): void {
  const flags = cache.flags;
  const boxes = hash.boxes;
  const slotBox = hash.slotBox;
  const info = hash.slotInfo;
  const cells = hash.cells;
  const categories = hash.categories;
  const masks = hash.masks;
  const filtered = hash.filteredCount !== 0;
  overflowPartners(hash, d, cache);
  const minX = boxes[d * 6];
  const minY = boxes[d * 6 + 1];
  const minZ = boxes[d * 6 + 2];
  const maxX = boxes[d * 6 + 3];
  const maxY = boxes[d * 6 + 4];
  const maxZ = boxes[d * 6 + 5];
  const cx0 = hash.cellOf(minX);
  const cy0 = hash.cellOf(minY);
  const cz0 = hash.cellOf(minZ);
  const cx1 = hash.cellOf(maxX);
  const cy1 = hash.cellOf(maxY);
  const cz1 = hash.cellOf(maxZ);
  for (let cx = cx0; cx <= cx1; cx++) {
    for (let cy = cy0; cy <= cy1; cy++) {
      for (let cz = cz0; cz <= cz1; cz++) {
        const id = cells.find3(cx, cy, cz);
        const need = (cx === cx0 ? 0 : 1) | (cy === cy0 ? 0 : 2) | (cz === cz0 ? 0 : 4);
        for (let s = hash.cellStart[id], end = s + hash.cellEntryCount[id]; s < end; s++) {
          const b = s * 6;
          if (slotBox[b] > maxX || minX > slotBox[b + 3] || slotBox[b + 1] > maxY || minY > slotBox[b + 4]) continue;
          if (slotBox[b + 2] > maxZ || minZ > slotBox[b + 5]) continue;
          if ((info[s * SLOT + SLOT_STARTS] & need) !== need) continue;
          const h = info[s * SLOT];
          if (h === d || (h < d && flags[h] === 1)) continue;
          if (filtered && !accepts(categories, masks, d, h)) continue;
          cache.push(d, h);
        }
      }
    }
  }
}

/**
 * Appends the pairs of live flagged handle `d` in the overflow list: with
 * the other overflow items, then with the items in the cells its box covers,
 * its range clipped to the stored cells. A flagged partner below `d` found
 * the pair from its own side already.
 */
function pairsOf<T>(hash: SpatialHashBase<T>, d: number, cache: PairCache, to: PartnerTarget<T>): void {
  overflowPartners(hash, d, cache);
  scanRange(hash, d, cellPartners, to);
}

/** Appends the pairs of flagged handle `d` with the overflow items other than itself. */
function overflowPartners<T>(hash: SpatialHashBase<T>, d: number, cache: PairCache): void {
  const stride = hash.boxStride;
  const boxes = hash.boxes;
  const flags = cache.flags;
  for (let i = 0; i < hash.overflowCount; i++) {
    const o = hash.overflow[i];
    if (o === d || (o < d && flags[o] === 1)) continue;
    if (intersects(boxes, d * stride, boxes, o * stride, hash.dim) && accepts(hash.categories, hash.masks, d, o))
      cache.push(d, o);
  }
}
