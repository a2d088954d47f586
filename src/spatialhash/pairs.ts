/**
 * All intersecting pairs of SpatialHash2D / SpatialHash3D: the broadphase.
 *
 * Two items whose boxes intersect share at least one cell (the cell of any
 * common point). A pair is reported only in its lowest shared cell: per axis
 * the larger of the two cell-range minimums, which lies in both ranges. So a
 * pair sharing several cells is reported once without a set of seen pairs and
 * without query stamps, and the visitor may run queries on the hash.
 *
 * A pair is reported only when the items' filters accept each other, as in
 * Box2D: `(a.category & b.mask) !== 0 && (b.category & a.mask) !== 0`; the
 * test comes after the box test, which rejects most candidates.
 *
 * Each cell's run of slots holds the handles and box copies side by side, so
 * the pass reads memory in order: it sorts each run by minX in place
 * (insertion sort: a run is already sorted unless items moved, entered or
 * left since the last call, and then it is nearly sorted), then sweeps it, so
 * the loop for an item stops at the first item starting right of its end.
 * Sorting in place is safe while a visitor runs: a nested forEachPair finds
 * the runs already swept sorted and leaves them as they are; queries inside a
 * predicate or forEachOverlap visitor, which walk runs, cannot call it.
 *
 * Overflow items are paired with each other directly, and with the items in
 * cells through the cells of their range (clipped to the stored cells, or
 * every occupied cell when that is fewer) under the same lowest-cell rule.
 *
 * @module
 */

import { describe } from '../core/validate.js';
import type { SpatialHashBase } from './base.js';
import { SLOT, SLOT_OWNER, SLOT_STARTS, setOwnerPos, syncSlots } from './cell-runs.js';

const NONE = -1;

/** Called by `forEachPair` once per unordered pair of items whose boxes intersect. */
export type PairVisitor<T> = (a: T, b: T) => void;

/** True when the filters of handles a and b accept each other. */
function accepts(categories: Int32Array, masks: Int32Array, a: number, b: number): boolean {
  return (categories[a] & masks[b]) !== 0 && (categories[b] & masks[a]) !== 0;
}

/** True when closed boxes b1 of `boxes1` and b2 of `boxes2` intersect. */
function intersects(boxes1: Float64Array, b1: number, boxes2: Float64Array, b2: number, dim: number): boolean {
  for (let a = 0; a < dim; a++) {
    if (boxes1[b1 + a] > boxes2[b2 + dim + a] || boxes2[b2 + a] > boxes1[b1 + dim + a]) return false;
  }
  return true;
}

/** Implements `forEachPair` of both hashes. O(cells + sum over cells of entries^2 + overflow work). */
export function forEachPair<T>(hash: SpatialHashBase<T>, visit: PairVisitor<T>): void {
  if (typeof visit !== 'function') throw new RangeError(`visit must be a function, got ${describe(visit)}`);
  if (hash.callingOut > 0) {
    // A predicate or forEachOverlap visitor runs in the middle of a walk over
    // a run, which forEachPair's sort could reorder under it.
    throw new Error('forEachPair cannot run inside a predicate or a forEachOverlap visitor');
  }
  syncSlots(hash);
  hash.visiting++;
  try {
    if (hash.dim === 2) cellPairs2(hash, visit);
    else cellPairs3(hash, visit);
    if (hash.overflowCount > 0) overflowPairs(hash, visit);
  } finally {
    hash.visiting--;
  }
}

function cellPairs2<T>(hash: SpatialHashBase<T>, visit: PairVisitor<T>): void {
  const cellStart = hash.cellStart;
  const cellEntryCount = hash.cellEntryCount;
  const idLimit = hash.cells.idLimit;
  for (let id = 0; id < idLimit; id++) {
    const n = cellEntryCount[id];
    if (n < 2) continue;
    const start = cellStart[id];
    sortRun2(hash, start, start + n);
    sweepRun2(hash, start, start + n, visit);
  }
}

/** Sorts slots [start, end) by minX (insertion sort, stable), telling each moved slot's owner where it went. */
function sortRun2<T>(hash: SpatialHashBase<T>, start: number, end: number): void {
  const box = hash.slotBox;
  const info = hash.slotInfo;
  for (let i = start + 1; i < end; i++) {
    const minX = box[i * 4];
    if (box[(i - 1) * 4] <= minX) continue;
    const h = info[i * SLOT];
    const e = info[i * SLOT + SLOT_OWNER];
    const st = info[i * SLOT + SLOT_STARTS];
    const minY = box[i * 4 + 1];
    const maxX = box[i * 4 + 2];
    const maxY = box[i * 4 + 3];
    let j = i;
    while (j > start && box[(j - 1) * 4] > minX) {
      const from = (j - 1) * 4;
      const to = j * 4;
      info[j * SLOT] = info[(j - 1) * SLOT];
      info[j * SLOT + SLOT_OWNER] = info[(j - 1) * SLOT + SLOT_OWNER];
      info[j * SLOT + SLOT_STARTS] = info[(j - 1) * SLOT + SLOT_STARTS];
      box[to] = box[from];
      box[to + 1] = box[from + 1];
      box[to + 2] = box[from + 2];
      box[to + 3] = box[from + 3];
      setOwnerPos(hash, info[j * SLOT + SLOT_OWNER], j - start);
      j--;
    }
    info[j * SLOT] = h;
    info[j * SLOT + SLOT_OWNER] = e;
    info[j * SLOT + SLOT_STARTS] = st;
    box[j * 4] = minX;
    box[j * 4 + 1] = minY;
    box[j * 4 + 2] = maxX;
    box[j * 4 + 3] = maxY;
    setOwnerPos(hash, e, j - start);
  }
}

/**
 * The pairs of one sorted run: for each slot, the later slots starting left of
 * its end. A pair counts in this cell when it is the pair's lowest shared
 * cell: per axis, one of the two ranges starts here (start bits 1: x, 2: y).
 */
function sweepRun2<T>(hash: SpatialHashBase<T>, start: number, end: number, visit: PairVisitor<T>): void {
  const box = hash.slotBox;
  const info = hash.slotInfo;
  const items = hash.items;
  const categories = hash.categories;
  const masks = hash.masks;
  // Without any filter set every pair is accepted: no per-item reads for it.
  const filtered = hash.filteredCount !== 0;
  const xStarts = firstXStart(info, start, end);
  for (let p = start; p < end; p++) {
    const sp = info[p * SLOT + SLOT_STARTS];
    const hp = info[p * SLOT];
    const cp = filtered ? categories[hp] : -1;
    const mp = filtered ? masks[hp] : -1;
    const minY = box[p * 4 + 1];
    const maxX = box[p * 4 + 2];
    const maxY = box[p * 4 + 3];
    // A slot whose range starts further left on x pairs here only with slots
    // from xStarts on: every slot before it starts further left too.
    const from = (sp & 1) === 0 && xStarts > p + 1 ? xStarts : p + 1;
    for (let q = from; q < end; q++) {
      const b = q * 4;
      // Sorted by minX: every later slot starts right of this one's end.
      if (box[b] > maxX) break;
      // A slot whose range starts here on both axes (every item in one cell)
      // makes any pair with it count here: no start bits to read.
      if (minY > box[b + 3] || box[b + 1] > maxY || (sp !== 3 && (sp | info[q * SLOT + SLOT_STARTS]) !== 3)) continue;
      const hq = info[q * SLOT];
      if (filtered && ((cp & masks[hq]) === 0 || (categories[hq] & mp) === 0)) continue;
      visit(items[hp] as T, items[hq] as T);
    }
  }
}

/**
 * The first slot of [start, end) whose item's cell range starts at this cell
 * on x (start bit 1), or `end`. Two slots before it both start further left on
 * x, so their lowest shared cell is further left and the sweep skips their
 * pairs. In a run sorted by minX these slots are exactly the leading ones
 * (the cell of minX grows with minX), about a third of a run when boxes are
 * half a cell wide: without the skip, each of them scans all the others,
 * since all of them reach into the cell.
 */
function firstXStart(info: Int32Array, start: number, end: number): number {
  let s = start;
  while (s < end && (info[s * SLOT + SLOT_STARTS] & 1) === 0) s++;
  return s;
}

function cellPairs3<T>(hash: SpatialHashBase<T>, visit: PairVisitor<T>): void {
  const cellStart = hash.cellStart;
  const cellEntryCount = hash.cellEntryCount;
  const idLimit = hash.cells.idLimit;
  for (let id = 0; id < idLimit; id++) {
    const n = cellEntryCount[id];
    if (n < 2) continue;
    const start = cellStart[id];
    sortRun3(hash, start, start + n);
    sweepRun3(hash, start, start + n, visit);
  }
}

/** {@link sortRun2} with six numbers per box. */
function sortRun3<T>(hash: SpatialHashBase<T>, start: number, end: number): void {
  const box = hash.slotBox;
  const info = hash.slotInfo;
  for (let i = start + 1; i < end; i++) {
    const minX = box[i * 6];
    if (box[(i - 1) * 6] <= minX) continue;
    const h = info[i * SLOT];
    const e = info[i * SLOT + SLOT_OWNER];
    const st = info[i * SLOT + SLOT_STARTS];
    const saved0 = box[i * 6 + 1];
    const saved1 = box[i * 6 + 2];
    const saved2 = box[i * 6 + 3];
    const saved3 = box[i * 6 + 4];
    const saved4 = box[i * 6 + 5];
    let j = i;
    while (j > start && box[(j - 1) * 6] > minX) {
      info[j * SLOT] = info[(j - 1) * SLOT];
      info[j * SLOT + SLOT_OWNER] = info[(j - 1) * SLOT + SLOT_OWNER];
      info[j * SLOT + SLOT_STARTS] = info[(j - 1) * SLOT + SLOT_STARTS];
      for (let a = 0; a < 6; a++) box[j * 6 + a] = box[(j - 1) * 6 + a];
      setOwnerPos(hash, info[j * SLOT + SLOT_OWNER], j - start);
      j--;
    }
    info[j * SLOT] = h;
    info[j * SLOT + SLOT_OWNER] = e;
    info[j * SLOT + SLOT_STARTS] = st;
    box[j * 6] = minX;
    box[j * 6 + 1] = saved0;
    box[j * 6 + 2] = saved1;
    box[j * 6 + 3] = saved2;
    box[j * 6 + 4] = saved3;
    box[j * 6 + 5] = saved4;
    setOwnerPos(hash, e, j - start);
  }
}

/** {@link sweepRun2} in 3D (start bits 1: x, 2: y, 4: z). */
function sweepRun3<T>(hash: SpatialHashBase<T>, start: number, end: number, visit: PairVisitor<T>): void {
  const box = hash.slotBox;
  const info = hash.slotInfo;
  const items = hash.items;
  const categories = hash.categories;
  const masks = hash.masks;
  const filtered = hash.filteredCount !== 0;
  const xStarts = firstXStart(info, start, end);
  for (let p = start; p < end; p++) {
    const sp = info[p * SLOT + SLOT_STARTS];
    const b1 = p * 6;
    const maxX = box[b1 + 3];
    const from = (sp & 1) === 0 && xStarts > p + 1 ? xStarts : p + 1;
    for (let q = from; q < end; q++) {
      const b2 = q * 6;
      if (box[b2] > maxX) break;
      if ((sp !== 7 && (sp | info[q * SLOT + SLOT_STARTS]) !== 7) || !intersects(box, b1, box, b2, 3)) continue;
      if (filtered && !accepts(categories, masks, info[p * SLOT], info[q * SLOT])) continue;
      visit(items[info[p * SLOT]] as T, items[info[q * SLOT]] as T);
    }
  }
}

/** Pairs of overflow items with each other and with the items in cells. */
function overflowPairs<T>(hash: SpatialHashBase<T>, visit: PairVisitor<T>): void {
  const dim = hash.dim;
  const stride = hash.boxStride;
  const boxes = hash.boxes;
  const items = hash.items;
  const overflow = hash.overflow;
  const bounds = hash.cellBounds;
  const cells = hash.cells;
  const keys = cells.keys;
  const categories = hash.categories;
  const masks = hash.masks;
  const cellEntryCount = hash.cellEntryCount;
  for (let i = 0; i < hash.overflowCount; i++) {
    const o = overflow[i];
    const bo = o * stride;
    for (let j = i + 1; j < hash.overflowCount; j++) {
      const p = overflow[j];
      if (intersects(boxes, bo, boxes, p * stride, dim) && accepts(categories, masks, o, p))
        visit(items[o] as T, items[p] as T);
    }
    if (cells.size === 0) continue;
    // The overflow item's cell range clipped to the stored cells: any cell of an
    // item in cells that meets the box lies in it.
    const x0 = Math.max(hash.cellOf(boxes[bo]), bounds[0]);
    const x1 = Math.min(hash.cellOf(boxes[bo + dim]), bounds[3]);
    const y0 = Math.max(hash.cellOf(boxes[bo + 1]), bounds[1]);
    const y1 = Math.min(hash.cellOf(boxes[bo + dim + 1]), bounds[4]);
    let z0 = 0;
    let z1 = 0;
    if (dim === 3) {
      z0 = Math.max(hash.cellOf(boxes[bo + 2]), bounds[2]);
      z1 = Math.min(hash.cellOf(boxes[bo + 5]), bounds[5]);
    }
    if (x0 > x1 || y0 > y1 || z0 > z1) continue;
    const rangeCells = (x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1);
    if (rangeCells > cells.size) {
      // Fewer occupied cells than cells in the range: walk those instead.
      for (let id = 0; id < cells.idLimit; id++) {
        if (cellEntryCount[id] === 0) continue;
        const kx = keys[id * dim];
        const ky = keys[id * dim + 1];
        const kz = dim === 3 ? keys[id * 3 + 2] : 0;
        if (kx < x0 || kx > x1 || ky < y0 || ky > y1 || kz < z0 || kz > z1) continue;
        overflowCell(hash, visit, o, id, startsNeeded(kx === x0, ky === y0, kz === z0, dim));
      }
      continue;
    }
    for (let kx = x0; kx <= x1; kx++) {
      for (let ky = y0; ky <= y1; ky++) {
        for (let kz = z0; kz <= z1; kz++) {
          const id = dim === 2 ? cells.find2(kx, ky) : cells.find3(kx, ky, kz);
          if (id !== NONE) overflowCell(hash, visit, o, id, startsNeeded(kx === x0, ky === y0, kz === z0, dim));
        }
      }
    }
  }
}

/**
 * The start bits an item's slot needs in a cell of an overflow item's clipped
 * range for the pair to count there: on an axis where the cell is not the
 * range's first, the item's own range must start at the cell (lowest shared cell).
 */
function startsNeeded(firstX: boolean, firstY: boolean, firstZ: boolean, dim: number): number {
  return (firstX ? 0 : 1) | (firstY ? 0 : 2) | (firstZ || dim === 2 ? 0 : 4);
}

/** Pairs overflow handle `o` with the items of cell `id` whose start bits include `need`. */
function overflowCell<T>(hash: SpatialHashBase<T>, visit: PairVisitor<T>, o: number, id: number, need: number): void {
  const stride = hash.boxStride;
  const slotBox = hash.slotBox;
  const info = hash.slotInfo;
  const categories = hash.categories;
  const masks = hash.masks;
  const items = hash.items;
  const boxes = hash.boxes;
  const bo = o * stride;
  for (let s = hash.cellStart[id], end = s + hash.cellEntryCount[id]; s < end; s++) {
    if ((info[s * SLOT + SLOT_STARTS] & need) !== need) continue;
    const h = info[s * SLOT];
    if (intersects(slotBox, s * stride, boxes, bo, hash.dim) && accepts(categories, masks, o, h))
      visit(items[o] as T, items[h] as T);
  }
}
