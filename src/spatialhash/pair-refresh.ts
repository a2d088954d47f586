/**
 * The pair cache's update at the start of forEachPair (steps 1 and 2 of
 * pair-cache.ts): drop the kept pairs of every changed handle, then find the
 * pairs of each changed handle still stored.
 *
 * @module
 */

import type { SpatialHashBase } from './base.js';
import type { PairCache } from './pair-cache.js';
import { accepts, cellPartners, intersects, type PartnerTarget, scanRange } from './pair-walk.js';

/** Brings `cache`'s pairs up to date with `hash`, whose slots are synced. O(kept pairs + changed handles' cells). */
export function refreshPairs<T>(hash: SpatialHashBase<T>, cache: PairCache): void {
  if (cache.changedCount === 0) return;
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
  const to: PartnerTarget<T> = { visit: undefined, sink: cache, flags, found: 0 };
  for (let i = 0; i < cache.changedCount; i++) {
    const h = changed[i];
    if (alive[h] === 1) pairsOf(hash, h, cache, to);
  }
}

/**
 * Appends the pairs of live flagged handle `d`: with the overflow items, then
 * with the items in the cells its box covers. A flagged partner below `d`
 * found the pair from its own side already.
 */
function pairsOf<T>(hash: SpatialHashBase<T>, d: number, cache: PairCache, to: PartnerTarget<T>): void {
  const stride = hash.boxStride;
  const boxes = hash.boxes;
  const flags = cache.flags;
  const bd = d * stride;
  for (let i = 0; i < hash.overflowCount; i++) {
    const o = hash.overflow[i];
    if (o === d || (o < d && flags[o] === 1)) continue;
    if (intersects(boxes, bd, boxes, o * stride, hash.dim) && accepts(hash.categories, hash.masks, d, o))
      cache.push(d, o);
  }
  scanRange(hash, d, cellPartners, to);
}
