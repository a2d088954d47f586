/**
 * `validate()` of SpatialHash2D / SpatialHash3D: every invariant of the item
 * arrays, the entries, the cell runs in the slot pool and the overflow list,
 * checked from scratch. For tests and debugging, so written for clarity.
 *
 * @module
 */

import type { SpatialHashBase } from './base.js';
import { FIRST_ENTRY, HOME_CELL, HOME_POS, LINKS, OVERFLOW_POS, SLOT, SLOT_OWNER, SLOT_STARTS } from './cell-runs.js';
import { isDefaultFilter } from './filter.js';
import { accepts, intersects } from './pair-walk.js';

const NONE = -1;

/** Throws an Error describing the first broken invariant of `hash`. O(items + entries + cells + pool). */
export function validateHash<T>(hash: SpatialHashBase<T>): void {
  const fail = (what: string): never => {
    throw new Error(`SpatialHash invalid: ${what}`);
  };
  const { cells, dim, boxStride: stride, boxes } = hash;
  let live = 0;
  let filtered = 0;
  let entries = 0;
  const seenEntry = new Uint8Array(hash.entryLimit);
  for (let h = 0; h < hash.handleLimit; h++) {
    const l = h * LINKS;
    const links = hash.itemLinks;
    if (hash.alive[h] !== 1) {
      if (links[l + HOME_POS] !== NONE || links[l + FIRST_ENTRY] !== NONE || links[l + OVERFLOW_POS] !== NONE)
        fail(`free handle ${h} still linked`);
      if (!isDefaultFilter(hash.categories[h], hash.masks[h])) fail(`free handle ${h} keeps a filter`);
      continue;
    }
    live++;
    if (!isDefaultFilter(hash.categories[h], hash.masks[h])) filtered++;
    if (hash.trackItems && hash.handles.get(hash.items[h] as T) !== h) fail(`handle ${h} not in the item map`);
    const b = h * stride;
    for (let a = 0; a < dim; a++) {
      if (!(boxes[b + a] <= boxes[b + dim + a])) fail(`handle ${h} has min > max on axis ${a}`);
    }
    if (links[l + OVERFLOW_POS] !== NONE) {
      if (hash.overflow[links[l + OVERFLOW_POS]] !== h) fail(`overflow position of ${h} is wrong`);
      if (links[l + HOME_POS] !== NONE || links[l + FIRST_ENTRY] !== NONE) fail(`overflow item ${h} has cell entries`);
      continue;
    }
    if (links[l + HOME_POS] === NONE) fail(`item ${h} in cells has no home slot`);
    // The cell range is not stored: it is the box's, cell by cell.
    const range = new Float64Array(stride);
    let cellsInRange = 1;
    for (let a = 0; a < dim; a++) {
      range[a] = hash.cellOf(boxes[b + a]);
      range[dim + a] = hash.cellOf(boxes[b + dim + a]);
      cellsInRange *= range[dim + a] - range[a] + 1;
      if (range[a] < hash.cellBounds[a] || range[dim + a] > hash.cellBounds[3 + a])
        fail(`cell range of ${h} on axis ${a} is outside cellBounds`);
    }
    let own = 0;
    // The home (e = -2 here), then the chain of entries.
    for (let e = -2; e !== NONE; e = e === -2 ? links[l + FIRST_ENTRY] : hash.entryItemNext[e]) {
      let id: number;
      let pos: number;
      if (e === -2) {
        id = links[l + HOME_CELL];
        pos = links[l + HOME_POS];
      } else {
        if (e < 0 || e >= hash.entryLimit || seenEntry[e] === 1) fail(`entry ${e} chained twice or out of range`);
        seenEntry[e] = 1;
        id = hash.entryCell[e];
        pos = hash.entryPos[e];
      }
      own++;
      if (id < 0 || id >= cells.idLimit || hash.cellEntryCount[id] === 0) fail(`cell ${id} of ${h} is not live`);
      if (!(pos >= 0 && pos < hash.cellEntryCount[id])) fail(`position ${pos} of ${h} is outside its cell's run`);
      const s = hash.cellStart[id] + pos;
      if (hash.slotInfo[s * SLOT + SLOT_OWNER] !== (e === -2 ? ~h : e)) fail(`slot ${s} does not name its owner`);
      if (hash.slotInfo[s * SLOT] !== h) fail(`slot ${s} does not hold ${h}`);
      let starts = 0;
      for (let a = 0; a < dim; a++) {
        const c = cells.keys[id * dim + a];
        if (c < range[a] || c > range[dim + a]) fail(`cell ${id} of ${h} is outside its range`);
        if (c === range[a]) starts |= 1 << a;
      }
      if (hash.slotInfo[s * SLOT + SLOT_STARTS] !== starts)
        fail(`slot ${s} of ${h} has start bits ${hash.slotInfo[s * SLOT + SLOT_STARTS]}, not ${starts}`);
      // A moved handle's copies may be stale until the next read syncs them.
      for (let k = 0; k < stride && hash.movedFlag[h] === 0; k++) {
        if (!Object.is(hash.slotBox[s * stride + k], boxes[b + k])) fail(`slot ${s} holds a stale box of ${h}`);
      }
    }
    if (own !== cellsInRange) fail(`handle ${h} has ${own} slots for ${cellsInRange} cells`);
    entries += own;
  }
  const listed = new Uint8Array(hash.movedFlag.length);
  for (let i = 0; i < hash.movedCount; i++) {
    const h = hash.moved[i];
    if (hash.movedFlag[h] !== 1 || listed[h] === 1)
      fail(`moved list entry ${i} (handle ${h}) is unflagged or repeated`);
    listed[h] = 1;
  }
  for (let h = 0; h < hash.movedFlag.length; h++) {
    if (hash.movedFlag[h] === 1 && listed[h] === 0) fail(`handle ${h} is flagged moved but not listed`);
  }
  if (live !== hash.itemCount) fail(`${live} live handles but a count of ${hash.itemCount}`);
  if (filtered !== hash.filteredCount) fail(`${filtered} items with a filter but filteredCount ${hash.filteredCount}`);
  if (hash.handles.size !== (hash.trackItems ? live : 0)) fail(`${live} live handles but ${hash.handles.size} mapped`);
  if (entries !== hash.entryCount) fail(`${entries} slots of items but entryCount ${hash.entryCount}`);
  for (let e = 0; e < hash.entryLimit; e++) {
    if (seenEntry[e] === 0 && hash.entryCell[e] !== NONE) fail(`unchained entry ${e} is not marked free`);
  }
  // Runs: inside the used pool, no two overlapping, every slot in use owned by a chained entry.
  const owner = new Int32Array(hash.poolUsed).fill(NONE);
  let liveCells = 0;
  let listedCells = 0;
  let reserved = 0;
  // Ids past the table's limit may keep runs too (clear() releases every id
  // and keeps their runs), but hold no slots and are not listed.
  for (let id = 0; id < hash.cellCapacity.length; id++) {
    const start = hash.cellStart[id];
    const n = hash.cellEntryCount[id];
    const capacity = hash.cellCapacity[id];
    reserved += capacity;
    if (n > capacity) fail(`cell ${id} uses ${n} slots of ${capacity}`);
    if (capacity > 0 && (start < 0 || start + capacity > hash.poolUsed)) fail(`run of cell ${id} is outside the pool`);
    for (let s = start; s < start + capacity; s++) {
      if (owner[s] !== NONE) fail(`runs of cells ${owner[s]} and ${id} overlap`);
      owner[s] = id;
    }
    if (id >= cells.idLimit) {
      if (n > 0 || hash.cellListed[id] === 1) fail(`cell id ${id} past the table's limit is in use`);
      continue;
    }
    if (hash.cellListed[id] === 0) {
      if (n > 0) fail(`cell ${id} holds ${n} slots but is not in the table`);
      continue;
    }
    listedCells++;
    if (n > 0) liveCells++;
    const found =
      dim === 2
        ? cells.find2(cells.keys[id * 2], cells.keys[id * 2 + 1])
        : cells.find3(cells.keys[id * 3], cells.keys[id * 3 + 1], cells.keys[id * 3 + 2]);
    if (found !== id) fail(`cell ${id} is not found by its own key`);
    for (let s = start; s < start + n; s++) {
      const e = hash.slotInfo[s * SLOT + SLOT_OWNER];
      const pos = s - start;
      if (e < 0) {
        const home = ~e * LINKS;
        if (
          ~e >= hash.handleLimit ||
          hash.itemLinks[home + HOME_POS] !== pos ||
          hash.itemLinks[home + HOME_CELL] !== id
        )
          fail(`slot ${s} of cell ${id} is the home of no item in that cell`);
      } else if (e >= hash.entryLimit || seenEntry[e] !== 1 || hash.entryPos[e] !== pos || hash.entryCell[e] !== id)
        fail(`slot ${s} of cell ${id} belongs to no entry of that cell`);
    }
  }
  // Free runs: inside the pool, of their class's size, overlapping no cell's run or each other.
  for (let k = 0; k < hash.freeRuns.length; k++) {
    const size = 2 ** k;
    let walked = 0;
    for (let start = hash.freeRuns[k]; start !== NONE; start = hash.slotInfo[start * SLOT]) {
      if (start < 0 || start + size > hash.poolUsed) fail(`free run at ${start} is outside the pool`);
      for (let s = start; s < start + size; s++) {
        if (owner[s] !== NONE) fail(`free run at ${start} overlaps a run in use or another free run`);
        owner[s] = -2;
      }
      if (++walked > hash.poolUsed) fail(`the free runs of size ${size} loop`);
    }
  }
  if (reserved !== hash.poolLive) fail(`runs reserve ${reserved} slots but poolLive is ${hash.poolLive}`);
  if (liveCells !== hash.occupiedCells) fail(`${liveCells} non-empty cells but occupiedCells ${hash.occupiedCells}`);
  if (listedCells !== cells.size) fail(`${listedCells} cells listed but the table holds ${cells.size}`);
  if (hash.itemCount === 0 && cells.size !== 0) fail(`an empty hash keeps ${cells.size} cells`);
  for (let i = 0; i < hash.overflowCount; i++) {
    if (hash.itemLinks[hash.overflow[i] * LINKS + OVERFLOW_POS] !== i) fail(`overflow slot ${i} is inconsistent`);
  }
  validatePairCache(hash, fail);
}

/**
 * The pair cache: its flags and changed list agree, and while it is valid
 * every kept pair without a changed handle is two distinct live items whose
 * boxes intersect and whose filters accept each other, kept once. (That no
 * pair is missing is what the property tests check against brute force.)
 */
function validatePairCache<T>(hash: SpatialHashBase<T>, fail: (what: string) => never): void {
  const cache = hash.pairCache;
  const { flags, changed } = cache;
  const listed = new Uint8Array(flags.length);
  for (let i = 0; i < cache.changedCount; i++) {
    const h = changed[i];
    if (flags[h] !== 1 || listed[h] === 1)
      fail(`pair cache: changed entry ${i} (handle ${h}) is unflagged or repeated`);
    listed[h] = 1;
  }
  for (let h = 0; h < flags.length; h++) {
    if (flags[h] === 1 && listed[h] === 0) fail(`pair cache: handle ${h} is flagged but not listed`);
  }
  if (!cache.valid) {
    if (cache.changedCount !== 0) fail(`pair cache: dropped but ${cache.changedCount} handles flagged`);
    return;
  }
  if (flags.length < hash.handleLimit) fail(`pair cache: ${flags.length} flags for ${hash.handleLimit} handles`);
  const seen = new Set<string>();
  const { boxStride: stride, boxes, dim } = hash;
  for (let i = 0; i < cache.pairCount; i++) {
    const a = cache.pairs[i * 2];
    const b = cache.pairs[i * 2 + 1];
    if (a === b || a < 0 || b < 0 || a >= hash.handleLimit || b >= hash.handleLimit)
      fail(`pair cache: pair ${i} (${a}, ${b}) is not two handles`);
    if (flags[a] === 1 || flags[b] === 1) continue;
    if (hash.alive[a] !== 1 || hash.alive[b] !== 1) fail(`pair cache: pair ${i} (${a}, ${b}) has a free handle`);
    if (!intersects(boxes, a * stride, boxes, b * stride, dim))
      fail(`pair cache: the boxes of pair ${i} (${a}, ${b}) do not intersect`);
    if (!accepts(hash.categories, hash.masks, a, b))
      fail(`pair cache: the filters of pair ${i} (${a}, ${b}) do not accept each other`);
    const key = a < b ? `${a},${b}` : `${b},${a}`;
    if (seen.has(key)) fail(`pair cache: pair (${a}, ${b}) is kept twice`);
    seen.add(key);
  }
}
