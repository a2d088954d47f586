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
 * Overflow items are paired with each other directly, and with the items in
 * cells either through the cells of their range (clipped to the stored cells)
 * under the same lowest-cell rule, or by testing every item when that range is
 * larger than the item count.
 *
 * @module
 */

import { describe } from '../core/validate.js';
import type { SpatialHashBase } from './base.js';

const NONE = -1;

/** Called by `forEachPair` once per unordered pair of items whose boxes intersect. */
export type PairVisitor<T> = (a: T, b: T) => void;

/** True when the filters of handles a and b accept each other. */
function accepts(categories: Int32Array, masks: Int32Array, a: number, b: number): boolean {
  return (categories[a] & masks[b]) !== 0 && (categories[b] & masks[a]) !== 0;
}

/** True when closed boxes b1 and b2 intersect. */
function intersects(boxes: Float64Array, b1: number, b2: number, dim: number): boolean {
  for (let a = 0; a < dim; a++) {
    if (boxes[b1 + a] > boxes[b2 + dim + a] || boxes[b2 + a] > boxes[b1 + dim + a]) return false;
  }
  return true;
}

/** Implements `forEachPair` of both hashes. O(cells + sum over cells of entries^2 + overflow work). */
export function forEachPair<T>(hash: SpatialHashBase<T>, visit: PairVisitor<T>): void {
  if (typeof visit !== 'function') throw new RangeError(`visit must be a function, got ${describe(visit)}`);
  const scratch = takeScratch();
  hash.visiting++;
  try {
    if (hash.dim === 2) cellPairs2(hash, visit, scratch);
    else cellPairs3(hash, visit, scratch);
    if (hash.overflowCount > 0) overflowPairs(hash, visit);
  } finally {
    hash.visiting--;
    if (scratch === shared) sharedBusy = false;
  }
}

/**
 * Scratch of the bucketed pass: the handles, start flags and boxes of every
 * entry in a cell of two or more, grouped by cell, so the O(n^2) pair loop of
 * each cell reads contiguous memory instead of chasing its entry list.
 */
class CellScratch {
  /** 2D bucketed pass: where each cell's run starts in the arrays below, by cell id (one extra at the end). */
  cellStart = new Int32Array(64);
  handles = new Int32Array(64);
  /** Per item, the axes on which its cell range starts at this cell (bit per axis). */
  starts = new Int32Array(64);
  boxes = new Float64Array(64 * 6);

  reserve(n: number, dim: number): void {
    if (n <= this.handles.length) return;
    const size = Math.max(n, this.handles.length * 2);
    this.handles = new Int32Array(size);
    this.starts = new Int32Array(size);
    this.boxes = new Float64Array(size * dim * 2);
  }

  reserveCells(n: number): void {
    if (n > this.cellStart.length) this.cellStart = new Int32Array(Math.max(n, this.cellStart.length * 2));
  }
}

let shared: CellScratch | undefined;
let sharedBusy = false;

/** The shared scratch, or a fresh one when forEachPair is called from inside a visitor. */
function takeScratch(): CellScratch {
  if (sharedBusy) return new CellScratch();
  sharedBusy = true;
  shared ??= new CellScratch();
  return shared;
}

function cellPairs2<T>(hash: SpatialHashBase<T>, visit: PairVisitor<T>, scratch: CellScratch): void {
  const cells = hash.cells;
  const keys = cells.keys;
  const entryHandle = hash.entryHandle;
  const cellEntryCount = hash.cellEntryCount;
  const ranges = hash.ranges;
  const boxes = hash.boxes;
  const items = hash.items;
  const categories = hash.categories;
  const masks = hash.masks;
  const idLimit = cells.idLimit;
  // Copy each cell holding two or more entries into one contiguous run:
  // handle, box, and on which axes its cell range starts here. The run is
  // taken by following the cell's list, which addEntry keeps sorted by minX,
  // so pairsInRun's insertion sort mostly finds it in order already; the
  // entry order of a sequential pass over the entry arrays is random per
  // cell and made that sort the costliest step.
  const entryNext = hash.entryNext;
  const cellHead = hash.cellHead;
  let total = 0;
  for (let id = 0; id < idLimit; id++) {
    const n = cellEntryCount[id];
    if (n >= 2) total += n;
  }
  if (total === 0) return;
  scratch.reserve(total, 2);
  const hs = scratch.handles;
  const starts = scratch.starts;
  const bs = scratch.boxes;
  let at = 0;
  for (let id = 0; id < idLimit; id++) {
    if (cellEntryCount[id] < 2) continue;
    const first = at;
    const kx = keys[id * 2];
    const ky = keys[id * 2 + 1];
    for (let e = cellHead[id]; e !== NONE; e = entryNext[e]) {
      const h = entryHandle[e];
      const b = h * 4;
      hs[at] = h;
      starts[at] = (ranges[b] === kx ? 1 : 0) | (ranges[b + 1] === ky ? 2 : 0);
      bs[at * 4] = boxes[b];
      bs[at * 4 + 1] = boxes[b + 1];
      bs[at * 4 + 2] = boxes[b + 2];
      bs[at * 4 + 3] = boxes[b + 3];
      at++;
    }
    pairsInRun(hs, starts, bs, first, at, items, categories, masks, visit);
  }
}

/**
 * The pairs of one cell's run [first, end) of the bucketed arrays: sorts it by
 * minX (insertion sort: runs are short and mostly sorted already), then
 * sweeps, so the loop for an item stops at the first item starting right of
 * it. A pair counts in this cell when it is the pair's lowest shared cell:
 * per axis, one of the two ranges starts here (`starts` bits 1: x, 2: y).
 */
function pairsInRun<T>(
  hs: Int32Array,
  starts: Int32Array,
  bs: Float64Array,
  first: number,
  end: number,
  items: (T | undefined)[],
  categories: Int32Array,
  masks: Int32Array,
  visit: PairVisitor<T>,
): void {
  for (let i = first + 1; i < end; i++) {
    const minX = bs[i * 4];
    if (bs[(i - 1) * 4] <= minX) continue;
    const h = hs[i];
    const st = starts[i];
    const minY = bs[i * 4 + 1];
    const maxX = bs[i * 4 + 2];
    const maxY = bs[i * 4 + 3];
    let j = i;
    while (j > first && bs[(j - 1) * 4] > minX) {
      const from = (j - 1) * 4;
      const to = j * 4;
      hs[j] = hs[j - 1];
      starts[j] = starts[j - 1];
      bs[to] = bs[from];
      bs[to + 1] = bs[from + 1];
      bs[to + 2] = bs[from + 2];
      bs[to + 3] = bs[from + 3];
      j--;
    }
    hs[j] = h;
    starts[j] = st;
    bs[j * 4] = minX;
    bs[j * 4 + 1] = minY;
    bs[j * 4 + 2] = maxX;
    bs[j * 4 + 3] = maxY;
  }
  for (let p = first; p < end; p++) {
    const sp = starts[p];
    const hp = hs[p];
    const cp = categories[hp];
    const mp = masks[hp];
    const minY = bs[p * 4 + 1];
    const maxX = bs[p * 4 + 2];
    const maxY = bs[p * 4 + 3];
    for (let q = p + 1; q < end; q++) {
      const b = q * 4;
      // Sorted by minX: every later item starts right of this one's end.
      if (bs[b] > maxX) break;
      if ((sp | starts[q]) !== 3 || minY > bs[b + 3] || bs[b + 1] > maxY) continue;
      const hq = hs[q];
      if ((cp & masks[hq]) === 0 || (categories[hq] & mp) === 0) continue;
      visit(items[hp] as T, items[hq] as T);
    }
  }
}

function cellPairs3<T>(hash: SpatialHashBase<T>, visit: PairVisitor<T>, scratch: CellScratch): void {
  const cells = hash.cells;
  const keys = cells.keys;
  const entryHandle = hash.entryHandle;
  const entryCell = hash.entryCell;
  const cellEntryCount = hash.cellEntryCount;
  const ranges = hash.ranges;
  const boxes = hash.boxes;
  const items = hash.items;
  const categories = hash.categories;
  const masks = hash.masks;
  const idLimit = cells.idLimit;
  // The same bucketing as in 2D, with six numbers per box and three start bits.
  scratch.reserveCells(idLimit + 1);
  const cellStart = scratch.cellStart;
  let total = 0;
  for (let id = 0; id < idLimit; id++) {
    cellStart[id] = total;
    const n = cellEntryCount[id];
    if (n >= 2) total += n;
  }
  if (total === 0) return;
  scratch.reserve(total, 3);
  const hs = scratch.handles;
  const starts = scratch.starts;
  const bs = scratch.boxes;
  for (let e = 0; e < hash.entryLimit; e++) {
    const id = entryCell[e];
    if (id === NONE || cellEntryCount[id] < 2) continue;
    const at = cellStart[id]++;
    const h = entryHandle[e];
    const b = h * 6;
    const k = id * 3;
    hs[at] = h;
    starts[at] =
      (ranges[b] === keys[k] ? 1 : 0) |
      (ranges[b + 1] === keys[k + 1] ? 2 : 0) |
      (ranges[b + 2] === keys[k + 2] ? 4 : 0);
    for (let a = 0; a < 6; a++) bs[at * 6 + a] = boxes[b + a];
  }
  let end = total;
  for (let id = idLimit - 1; id >= 0; id--) {
    const n = cellEntryCount[id];
    if (n < 2) continue;
    const first = end - n;
    // Sorted by minX (insertion sort), then swept.
    for (let i = first + 1; i < end; i++) {
      const minX = bs[i * 6];
      if (bs[(i - 1) * 6] <= minX) continue;
      const h = hs[i];
      const st = starts[i];
      const saved0 = bs[i * 6 + 1];
      const saved1 = bs[i * 6 + 2];
      const saved2 = bs[i * 6 + 3];
      const saved3 = bs[i * 6 + 4];
      const saved4 = bs[i * 6 + 5];
      let j = i;
      while (j > first && bs[(j - 1) * 6] > minX) {
        hs[j] = hs[j - 1];
        starts[j] = starts[j - 1];
        for (let a = 0; a < 6; a++) bs[j * 6 + a] = bs[(j - 1) * 6 + a];
        j--;
      }
      hs[j] = h;
      starts[j] = st;
      bs[j * 6] = minX;
      bs[j * 6 + 1] = saved0;
      bs[j * 6 + 2] = saved1;
      bs[j * 6 + 3] = saved2;
      bs[j * 6 + 4] = saved3;
      bs[j * 6 + 5] = saved4;
    }
    for (let p = first; p < end; p++) {
      const sp = starts[p];
      const b1 = p * 6;
      const maxX = bs[b1 + 3];
      for (let q = p + 1; q < end; q++) {
        const b2 = q * 6;
        if (bs[b2] > maxX) break;
        if ((sp | starts[q]) !== 7 || !intersects(bs, b1, b2, 3)) continue;
        if (!accepts(categories, masks, hs[p], hs[q])) continue;
        visit(items[hs[p]] as T, items[hs[q]] as T);
      }
    }
    end = first;
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
  const ranges = hash.ranges;
  const cells = hash.cells;
  const categories = hash.categories;
  const masks = hash.masks;
  for (let i = 0; i < hash.overflowCount; i++) {
    const o = overflow[i];
    const bo = o * stride;
    for (let j = i + 1; j < hash.overflowCount; j++) {
      const p = overflow[j];
      if (intersects(boxes, bo, p * stride, dim) && accepts(categories, masks, o, p))
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
    if (rangeCells > hash.size) {
      // Cheaper to test every item in cells than to look up that many cells.
      const alive = hash.alive;
      const overflowPos = hash.overflowPos;
      for (let h = 0; h < hash.handleLimit; h++) {
        if (
          alive[h] === 1 &&
          overflowPos[h] === NONE &&
          intersects(boxes, bo, h * stride, dim) &&
          accepts(categories, masks, o, h)
        ) {
          visit(items[o] as T, items[h] as T);
        }
      }
      continue;
    }
    const entryNext = hash.entryNext;
    const entryHandle = hash.entryHandle;
    for (let kx = x0; kx <= x1; kx++) {
      for (let ky = y0; ky <= y1; ky++) {
        for (let kz = z0; kz <= z1; kz++) {
          const id = dim === 2 ? cells.find2(kx, ky) : cells.find3(kx, ky, kz);
          if (id === NONE) continue;
          for (let e = hash.cellHead[id]; e !== NONE; e = entryNext[e]) {
            const h = entryHandle[e];
            const b = h * stride;
            // Lowest shared cell of the clipped range and the item's range.
            if (Math.max(x0, ranges[b]) !== kx || Math.max(y0, ranges[b + 1]) !== ky) continue;
            if (dim === 3 && Math.max(z0, ranges[b + 2]) !== kz) continue;
            if (intersects(boxes, bo, b, dim) && accepts(categories, masks, o, h)) visit(items[o] as T, items[h] as T);
          }
        }
      }
    }
  }
}
