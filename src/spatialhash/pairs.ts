/**
 * All intersecting pairs of SpatialHash2D / SpatialHash3D: the broadphase.
 *
 * Two items whose boxes intersect share at least one cell (the cell of any
 * common point). A pair is reported only in its lowest shared cell: per axis
 * the larger of the two cell-range minimums, which lies in both ranges. So a
 * pair sharing several cells is reported once without a set of seen pairs and
 * without query stamps, and the visitor may run queries on the hash.
 *
 * With `shape: 'ball'` a box pair is reported only when the balls inscribed
 * in the two boxes meet (balls.ts). The test comes last, on the data the sweep
 * holds; the pair cache keeps box pairs and applies it when it reports, so
 * one kept list serves calls of either shape.
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
 * That full pass runs only when the pairs of the last call are not kept or
 * too many items changed since: otherwise the pair cache (pair-cache.ts)
 * finds the changed items' pairs and reports the rest from its list. A full
 * pass that the cache will want records its pairs (handles only, no visitor
 * called) and reports them afterwards, so the cache is never half built
 * while user code runs.
 *
 * @module
 */

import { describe } from '../core/validate.js';
import { ballsMeet } from './balls.js';
import type { SpatialHashBase } from './base.js';
import { SLOT, SLOT_OWNER, SLOT_STARTS, setOwnerPos, syncSlots } from './cell-runs.js';
import type { PairCache } from './pair-cache.js';
import { refreshPairs } from './pair-refresh.js';
import { accepts, cellPartners, intersects, type PartnerTarget, scanRange } from './pair-walk.js';

/** Called by `forEachPair` once per unordered pair of items whose boxes intersect. */
export type PairVisitor<T> = (a: T, b: T) => void;

/** Options of `forEachPair` in SpatialHash2D and SpatialHash3D. */
export interface PairOptions {
  /**
   * What must meet for a pair to be reported. `'box'` (the default): the
   * items' boxes. `'ball'`: the balls inscribed in them (discs in 2D, spheres
   * in 3D), centred on each box's centre with a radius of half its smallest
   * side, so an item inserted with the bounding box of its circle or sphere
   * collides as that circle or sphere. The test runs on the box copies the
   * sweep is already reading, where a visitor doing it would fetch both
   * positions from wherever they live; about a fifth of the box pairs of
   * touching-size balls are not ball pairs. Touching counts; the test is
   * `sum over axes of ((minB + maxB) - (minA + maxA))^2 <= (sideA + sideB)^2`
   * with `side` the box's smallest side: the usual centre and radius test
   * with every length doubled, the same answer wherever halving is exact and
   * no square overflows (magnitudes from about 1e-300 to 1e153).
   */
  shape?: 'box' | 'ball';
}

/**
 * The dimension when `options` asks for balls, 0 for boxes.
 * @throws RangeError if options is not an object or its shape not 'box' or 'ball'.
 */
function ballDimension(options: PairOptions | undefined, dim: number): number {
  if (options === undefined) return 0;
  if (typeof options !== 'object' || options === null) {
    throw new RangeError(`options must be an object, got ${describe(options)}`);
  }
  const shape = options.shape;
  if (shape === undefined || shape === 'box') return 0;
  if (shape === 'ball') return dim;
  throw new RangeError(`options.shape must be 'box' or 'ball', got ${describe(shape)}`);
}

/** Implements `forEachPair` of both hashes. O(cells + sum over cells of entries^2 + overflow work). */
export function forEachPair<T>(hash: SpatialHashBase<T>, visit: PairVisitor<T>, options?: PairOptions): void {
  if (typeof visit !== 'function') throw new RangeError(`visit must be a function, got ${describe(visit)}`);
  const balls = ballDimension(options, hash.dim);
  if (hash.callingOut > 0) {
    // A predicate or forEachOverlap visitor runs in the middle of a walk over
    // a run, which forEachPair's sort could reorder under it.
    throw new Error('forEachPair cannot run inside a predicate or a forEachOverlap visitor');
  }
  syncSlots(hash);
  const cache = hash.pairCache;
  const outermost = hash.visiting === 0;
  hash.visiting++;
  try {
    if (cache.valid) {
      // Nothing changes while a visitor runs, so flags are pending only when
      // no forEachPair is reporting from the list: then it is refreshed in
      // place, even from inside a forEach visitor.
      if (cache.changedCount > 0) {
        refreshPairs(hash, cache);
        cache.finish(true, hash.itemCount, hash.handleLimit, cache.pairCount);
      }
      cache.report(hash.items, visit, hash.boxes, balls);
      return;
    }
    // Pairs are recorded first and reported after, so no visitor runs while
    // the cache is half built. A call nested in another visitor only reports.
    const sink = outermost && cache.worthRecording(hash.itemCount) ? cache : undefined;
    if (sink !== undefined) sink.begin();
    const asBalls = balls !== 0;
    let found = hash.dim === 2 ? cellPairs2(hash, visit, sink, asBalls) : cellPairs3(hash, visit, sink, asBalls);
    if (hash.overflowCount > 0) found += overflowPairs(hash, visit, sink, asBalls);
    if (outermost) cache.finish(sink !== undefined, hash.itemCount, hash.handleLimit, found);
    if (sink !== undefined) sink.report(hash.items, visit, hash.boxes, balls);
  } finally {
    hash.visiting--;
  }
}

/**
 * Pairs found in cells, 2D: each handed to `sink` when given, else to `visit`
 * (only those whose balls meet, with `balls`). Returns how many box pairs.
 */
function cellPairs2<T>(
  hash: SpatialHashBase<T>,
  visit: PairVisitor<T>,
  sink: PairCache | undefined,
  balls: boolean,
): number {
  const cellStart = hash.cellStart;
  const cellEntryCount = hash.cellEntryCount;
  const idLimit = hash.cells.idLimit;
  let found = 0;
  for (let id = 0; id < idLimit; id++) {
    const n = cellEntryCount[id];
    if (n < 2) continue;
    const start = cellStart[id];
    sortRun2(hash, start, start + n);
    found += sweepRun2(hash, start, start + n, visit, sink, balls);
  }
  return found;
}

/**
 * Sorts slots [start, end) by minX (insertion sort, stable), then tells the
 * owner of every slot from the lowest one written where it now is: once per
 * slot rather than at each shift, since owners are scattered in memory and a
 * slot out of place moves about twice when every ball moves (about 3% of the
 * demo's hash frame).
 */
function sortRun2<T>(hash: SpatialHashBase<T>, start: number, end: number): void {
  const box = hash.slotBox;
  const info = hash.slotInfo;
  let lowest = end;
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
      j--;
    }
    info[j * SLOT] = h;
    info[j * SLOT + SLOT_OWNER] = e;
    info[j * SLOT + SLOT_STARTS] = st;
    box[j * 4] = minX;
    box[j * 4 + 1] = minY;
    box[j * 4 + 2] = maxX;
    box[j * 4 + 3] = maxY;
    if (j < lowest) lowest = j;
  }
  for (let j = lowest; j < end; j++) setOwnerPos(hash, info[j * SLOT + SLOT_OWNER], j - start);
}

/**
 * The pairs of one sorted run: for each slot, the later slots starting left of
 * its end. A pair counts in this cell when it is the pair's lowest shared
 * cell: per axis, one of the two ranges starts here (start bits 1: x, 2: y).
 */
function sweepRun2<T>(
  hash: SpatialHashBase<T>,
  start: number,
  end: number,
  visit: PairVisitor<T>,
  sink: PairCache | undefined,
  balls: boolean,
): number {
  const box = hash.slotBox;
  const info = hash.slotInfo;
  const items = hash.items;
  const categories = hash.categories;
  const masks = hash.masks;
  // Without any filter set every pair is accepted: no per-item reads for it.
  const filtered = hash.filteredCount !== 0;
  const xStarts = firstXStart(info, start, end);
  let found = 0;
  for (let p = start; p < end; p++) {
    const sp = info[p * SLOT + SLOT_STARTS];
    const hp = info[p * SLOT];
    const cp = filtered ? categories[hp] : -1;
    const mp = filtered ? masks[hp] : -1;
    const minX = box[p * 4];
    const minY = box[p * 4 + 1];
    const maxX = box[p * 4 + 2];
    const maxY = box[p * 4 + 3];
    // The ball test of ballsMeet, written out: centres and sides doubled.
    const sumX = minX + maxX;
    const sumY = minY + maxY;
    const side = Math.min(maxX - minX, maxY - minY);
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
      found++;
      if (sink !== undefined) {
        sink.push(hp, hq);
        continue;
      }
      if (balls) {
        const dx = box[b] + box[b + 2] - sumX;
        const dy = box[b + 1] + box[b + 3] - sumY;
        const sides = side + Math.min(box[b + 2] - box[b], box[b + 3] - box[b + 1]);
        if (dx * dx + dy * dy > sides * sides) continue;
      }
      visit(items[hp] as T, items[hq] as T);
    }
  }
  return found;
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

/** {@link cellPairs2} in 3D. */
function cellPairs3<T>(
  hash: SpatialHashBase<T>,
  visit: PairVisitor<T>,
  sink: PairCache | undefined,
  balls: boolean,
): number {
  const cellStart = hash.cellStart;
  const cellEntryCount = hash.cellEntryCount;
  const idLimit = hash.cells.idLimit;
  let found = 0;
  for (let id = 0; id < idLimit; id++) {
    const n = cellEntryCount[id];
    if (n < 2) continue;
    const start = cellStart[id];
    sortRun3(hash, start, start + n);
    found += sweepRun3(hash, start, start + n, visit, sink, balls);
  }
  return found;
}

/** {@link sortRun2} with six numbers per box. */
function sortRun3<T>(hash: SpatialHashBase<T>, start: number, end: number): void {
  const box = hash.slotBox;
  const info = hash.slotInfo;
  let lowest = end;
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
    if (j < lowest) lowest = j;
  }
  for (let j = lowest; j < end; j++) setOwnerPos(hash, info[j * SLOT + SLOT_OWNER], j - start);
}

/** {@link sweepRun2} in 3D (start bits 1: x, 2: y, 4: z). */
function sweepRun3<T>(
  hash: SpatialHashBase<T>,
  start: number,
  end: number,
  visit: PairVisitor<T>,
  sink: PairCache | undefined,
  balls: boolean,
): number {
  const box = hash.slotBox;
  const info = hash.slotInfo;
  const items = hash.items;
  const categories = hash.categories;
  const masks = hash.masks;
  const filtered = hash.filteredCount !== 0;
  const xStarts = firstXStart(info, start, end);
  let found = 0;
  for (let p = start; p < end; p++) {
    const sp = info[p * SLOT + SLOT_STARTS];
    const b1 = p * 6;
    const maxX = box[b1 + 3];
    const from = (sp & 1) === 0 && xStarts > p + 1 ? xStarts : p + 1;
    for (let q = from; q < end; q++) {
      const b2 = q * 6;
      if (box[b2] > maxX) break;
      if ((sp !== 7 && (sp | info[q * SLOT + SLOT_STARTS]) !== 7) || !intersects(box, b1, box, b2, 3)) continue;
      const hp = info[p * SLOT];
      const hq = info[q * SLOT];
      if (filtered && !accepts(categories, masks, hp, hq)) continue;
      found++;
      if (sink !== undefined) sink.push(hp, hq);
      else if (!balls || ballsMeet(box, b1, box, b2, 3)) visit(items[hp] as T, items[hq] as T);
    }
  }
  return found;
}

/** Pairs of overflow items with each other and with the items in cells. Returns how many. */
function overflowPairs<T>(
  hash: SpatialHashBase<T>,
  visit: PairVisitor<T>,
  sink: PairCache | undefined,
  balls: boolean,
): number {
  const dim = hash.dim;
  const stride = hash.boxStride;
  const boxes = hash.boxes;
  const items = hash.items;
  const overflow = hash.overflow;
  const to: PartnerTarget<T> = { visit, sink, balls, flags: undefined, found: 0 };
  for (let i = 0; i < hash.overflowCount; i++) {
    const o = overflow[i];
    const bo = o * stride;
    for (let j = i + 1; j < hash.overflowCount; j++) {
      const p = overflow[j];
      if (!intersects(boxes, bo, boxes, p * stride, dim) || !accepts(hash.categories, hash.masks, o, p)) continue;
      to.found++;
      if (sink !== undefined) sink.push(o, p);
      else if (!balls || ballsMeet(boxes, bo, boxes, p * stride, dim)) visit(items[o] as T, items[p] as T);
    }
    scanRange(hash, o, cellPartners, to);
  }
  return to.found;
}
