/**
 * PointHash2D: a dynamic, unbounded hash of items that are 2D points.
 *
 * @module
 */

import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import { isOrdinaryRadius } from '../core/distance.js';
import { checkArray, checkDistance, checkFinite, describe } from '../core/validate.js';
import { radiusPad } from '../spatialhash/base.js';
import { checkBox2, type OverlapVisitor } from '../spatialhash/box-args.js';
import type { FromDataOptions, ToDataOptions } from '../spatialhash/data.js';
import {
  ALL_BITS,
  type ItemFilter,
  type ItemPredicate,
  isDefaultFilter,
  readFilter,
  toBits,
} from '../spatialhash/filter.js';
import type { PairVisitor } from '../spatialhash/pairs.js';
import { PointHashBase, RUN, RUN_COUNT, RUN_START } from './base.js';
import { checkPointData, type PointHashData, pointsToData, restorePoints } from './data.js';
import { pairsExtreme, radiusExtreme } from './extreme.js';
import { nearestPoints } from './nearest.js';
import type { PointHashOptions } from './options.js';
import { pairs2 } from './pairs2d.js';
import { validatePointHash } from './validate.js';

const NONE = -1;
/** Scratch of insert: the filter read from its argument. */
const FILTER = new Int32Array(2);

/**
 * The point of an insert or a move, handed from `insert` to `add` and from
 * `update` / `updateById` to `move` and `place` without boxing its numbers
 * (see move). Written after every check that can run user code and read
 * before anything else can write it.
 */
const NEW_POINT = new Float64Array(2);

/**
 * A dynamic spatial hash of items that are points in the plane: insert, move
 * and remove by item or by id in O(1), box and radius queries, k-nearest, and
 * every pair within a distance. Unbounded and sparse: only cells holding
 * points cost memory, and coordinates may be anything finite.
 *
 * For points it does what {@link SpatialHash2D} does with less than half the
 * memory (a point's slot is its coordinates and its id; nothing else per
 * point but its cell and position) and 1.1x to 2x the speed on churn
 * (workload 6 of the benchmark): use it when nothing you store has a size
 * (particles, agents, units, samples).
 * Items with boxes need SpatialHash2D. Ray casts are not offered: a ray hits
 * a point only by accident; cast against SpatialHash2D with the points'
 * boxes, or query a radius along the ray.
 *
 * Items are any values (compared like Map keys); each gets a small integer
 * id, stable until it is removed, for the `...ById` methods.
 */
export class PointHash2D<T> extends PointHashBase<T> {
  /**
   * @param options - `cellSize` (required), `initialCapacity` (default 64), `trackItems` (default true).
   * @throws RangeError if `cellSize` is not a finite number > 0, or another option is invalid.
   */
  constructor(options: PointHashOptions) {
    super(2, options);
  }

  /**
   * Adds `item` at (x, y). An optional last argument sets its collision
   * `category` and `mask` (default 1 and 0xFFFFFFFF; see
   * {@link PointHash2D.setFilterById}). O(1) amortised.
   * @returns the item's id: a small integer >= 0, stable until the item is
   * removed. Ids of removed items are reused.
   * @throws RangeError if a coordinate is not finite or the filter is not an object of 32-bit
   * integers; a number where the filter goes (a box's corners) names SpatialHash2D, the hash of boxes.
   * @throws Error if `item` is already present (use {@link PointHash2D.update}).
   */
  insert(item: T, x: number, y: number, filter?: ItemFilter): number {
    checkPoint2(x, y);
    readFilter(filter, FILTER, 'PointHash2D.insert(item, x, y, filter?)', 'SpatialHash2D');
    NEW_POINT[0] = x;
    NEW_POINT[1] = y;
    return this.add(item);
  }

  /**
   * The rest of insert, with the checked point in {@link NEW_POINT} and the
   * filter in FILTER, so that insert stays small (see {@link move}).
   */
  private add(item: T): number {
    this.checkWritable('insert');
    this.checkAbsent(item);
    const h = this.allocateHandle(item);
    if (!isDefaultFilter(FILTER[0], FILTER[1])) this.setFilterBits(h, FILTER[0], FILTER[1]);
    this.place(h);
    return h;
  }

  /**
   * Moves a present `item` to (x, y). A move within its cell writes one slot;
   * a move to another cell takes the slot out of one run and adds it to
   * another. O(1) amortised.
   * @throws RangeError if a coordinate is not finite.
   * @throws Error if `item` is not present.
   */
  update(item: T, x: number, y: number): void {
    checkPoint2(x, y);
    this.checkWritable('update');
    const h = this.handleOf(item, 'update');
    NEW_POINT[0] = x;
    NEW_POINT[1] = y;
    this.move(h);
  }

  /**
   * {@link PointHash2D.update} by id, with no lookup by item. O(1) amortised.
   * @throws RangeError if `id` is not the id of a stored point, or a coordinate is not finite.
   */
  updateById(id: number, x: number, y: number): void {
    this.checkId(id, 'updateById');
    checkPoint2(x, y);
    this.checkWritable('updateById');
    NEW_POINT[0] = x;
    NEW_POINT[1] = y;
    this.move(id);
  }

  /**
   * Moves id `h` to the checked point in {@link NEW_POINT}. The point comes
   * through NEW_POINT, not as arguments, so that `update` and `updateById`
   * stay small enough for V8 to inline into a caller's loop and box none of
   * its numbers (see SpatialHash2D's move).
   */
  private move(h: number): void {
    const x = NEW_POINT[0];
    const y = NEW_POINT[1];
    const cx = this.cellOf(x);
    const cy = this.cellOf(y);
    const s = this.slotOf(h);
    const slots = this.slotArray(h);
    if (this.cellOf(slots[s]) === cx && this.cellOf(slots[s + 1]) === cy) {
      // Same cell (a far point stays far): only the slot changes.
      slots[s] = x;
      slots[s + 1] = y;
      return;
    }
    this.drop(h);
    this.place(h);
  }

  /** Files id `h` at the point in NEW_POINT: in its cell, or on the far list past MAX_CELL_INDEX. */
  private place(h: number): void {
    const x = NEW_POINT[0];
    const y = NEW_POINT[1];
    const cx = this.cellOf(x);
    const cy = this.cellOf(y);
    let s: number;
    let slots: Float64Array;
    if (Math.abs(cx) <= MAX_CELL_INDEX && Math.abs(cy) <= MAX_CELL_INDEX) {
      s = this.addToCell(h, this.cells.insert2(cx, cy));
      slots = this.slots;
    } else {
      s = this.addToFar(h);
      slots = this.far;
    }
    slots[s] = x;
    slots[s + 1] = y;
    slots[s + 2] = h;
  }

  /**
   * The point of the item with this id, as [x, y]. O(1).
   * @param out - filled and returned.
   * @throws RangeError if `id` is not the id of a stored point.
   */
  positionById(id: number, out: number[] = []): number[] {
    checkArray('out', out);
    this.checkId(id, 'positionById');
    const s = this.slotOf(id);
    const slots = this.slotArray(id);
    out.length = 2;
    out[0] = slots[s];
    out[1] = slots[s + 1];
    return out;
  }

  /**
   * The point of `item` as [x, y], or undefined when it is absent.
   * @param out - filled and returned.
   */
  getPosition(item: T, out: number[] = []): number[] | undefined {
    checkArray('out', out);
    this.checkTracked('getPosition');
    const h = this.handles.get(item);
    return h === NONE ? undefined : this.positionById(h, out);
  }

  /**
   * Items whose point lies in [minX, maxX] x [minY, maxY] (closed: the border
   * counts). O(cells covered + points in them); a box covering more cells
   * than are occupied scans the occupied cells instead.
   * @param out - emptied, filled and returned, so a caller can query every frame without allocating.
   * @param mask - only points with `(category & mask) !== 0` are reported; default every bit.
   * @throws RangeError if a coordinate is not finite, a min exceeds its max, or mask is not a 32-bit integer.
   */
  queryBox(minX: number, minY: number, maxX: number, maxY: number, out: T[] = [], mask: number = ALL_BITS): T[] {
    checkArray('out', out);
    checkBox2(minX, minY, maxX, maxY);
    const m = toBits('mask', mask);
    out.length = this.collect(minX, minY, maxX, maxY, Number.NaN, Number.NaN, -1, m, out, undefined);
    return out;
  }

  /**
   * Calls `visit(item, id)` for every point in [minX, maxX] x [minY, maxY]
   * (closed), each once, in no particular order, without building an array.
   * Return `true` from `visit` to stop early. The visitor may read and query
   * the hash (a query keeps no state between calls) but not change it: insert,
   * update, remove or clear from inside it throw an Error.
   * @param mask - only points with `(category & mask) !== 0` are visited; default every bit.
   * @returns true if `visit` stopped the walk, false if it saw every point in the box.
   * @throws RangeError as {@link PointHash2D.queryBox}, or if visit is not a function.
   */
  forEachOverlap(
    minX: number,
    minY: number,
    maxX: number,
    maxY: number,
    visit: OverlapVisitor<T>,
    mask: number = ALL_BITS,
  ): boolean {
    checkBox2(minX, minY, maxX, maxY);
    const m = toBits('mask', mask);
    if (typeof visit !== 'function') throw new RangeError(`visit must be a function, got ${describe(visit)}`);
    this.visiting++;
    try {
      return this.collect(minX, minY, maxX, maxY, Number.NaN, Number.NaN, -1, m, undefined, visit) < 0;
    } finally {
      this.visiting--;
    }
  }

  /**
   * Items whose point is within Euclidean distance `radius` of (x, y):
   * `dx * dx + dy * dy <= radius * radius`.
   * @param radius - a number >= 0 (Infinity returns everything).
   * @param out - emptied, filled and returned.
   * @param mask - only points with `(category & mask) !== 0` are reported; default every bit.
   * @throws RangeError if x or y is not finite, radius is negative or NaN, or mask is not a 32-bit integer.
   */
  queryRadius(x: number, y: number, radius: number, out: T[] = [], mask: number = ALL_BITS): T[] {
    checkArray('out', out);
    checkFinite('x', x);
    checkFinite('y', y);
    checkDistance('radius', radius);
    const m = toBits('mask', mask);
    if (!isOrdinaryRadius(radius)) {
      // Its square overflows or is below 2^-896: the cold path (see core/distance.ts).
      out.length = radiusExtreme(this, [x, y], radius, m, out);
      return out;
    }
    const pad = radiusPad(radius, Math.abs(x) + Math.abs(y));
    out.length = this.collect(x - pad, y - pad, x + pad, y + pad, x, y, radius * radius, m, out, undefined);
    return out;
  }

  /**
   * Up to `k` items nearest to (x, y), nearest first, within `maxDistance`.
   * Items at the same distance come in any order. Searches rings of cells
   * outward and stops when the next ring cannot hold anything nearer; with
   * sparse data it scans the occupied cells instead.
   * @param k - a non-negative integer, default 1; 0 returns nothing, more than `size` returns everything in range.
   * @param maxDistance - in coordinate units, default Infinity.
   * @param out - emptied, filled and returned.
   * @param mask - only points with `(category & mask) !== 0` count: the answer is the k nearest such points.
   * @param predicate - when given, only items for which it returns true count (e.g. "not myself"),
   * again the k nearest of them, exactly. It may read the hash and run box
   * and radius queries, but not change the hash or start another nearest,
   * of this or any other PointHash2D or PointHash3D (both throw an Error).
   * @throws RangeError if x or y is not finite, k is not a non-negative integer, maxDistance is negative or NaN,
   * mask is not a 32-bit integer or predicate is not a function.
   */
  nearest(
    x: number,
    y: number,
    k = 1,
    maxDistance = Number.POSITIVE_INFINITY,
    out: T[] = [],
    mask: number = ALL_BITS,
    predicate?: ItemPredicate<T>,
  ): T[] {
    return nearestPoints(this, x, y, 0, k, maxDistance, out, mask, predicate);
  }

  /**
   * Calls `visit(a, b)` exactly once for every unordered pair of points within
   * distance `radius` of each other (`dx * dx + dy * dy <= radius * radius`)
   * whose filters accept each other, `(a.category & b.mask) !== 0 &&
   * (b.category & a.mask) !== 0`, in no particular order. Each cell is paired
   * with the cells after it in reach of its points, so a radius up to the
   * cell size reads each cell and four neighbours. The visitor may run
   * queries; insert, update, remove or clear from inside it throw an Error.
   * @param radius - a number >= 0 (Infinity pairs everything).
   * @throws RangeError if radius is negative or NaN, or visit is not a function.
   */
  forEachPair(radius: number, visit: PairVisitor<T>): void {
    checkDistance('radius', radius);
    if (typeof visit !== 'function') throw new RangeError(`visit must be a function, got ${describe(visit)}`);
    this.visiting++;
    try {
      if (isOrdinaryRadius(radius)) pairs2(this, radius, visit);
      else pairsExtreme(this, radius, visit);
    } finally {
      this.visiting--;
    }
  }

  /**
   * A snapshot of the hash: cell size, items with their ids, positions,
   * categories and masks, and the free ids, in typed arrays and one plain
   * array, all structured-cloneable (postMessage to a worker, IndexedDB).
   * Items that are numbers or strings are kept as they are; any other item
   * needs `encodeItem`, which then encodes every item. O(points).
   * @throws Error if an item is neither a number nor a string and no encodeItem is given.
   */
  toData(options?: ToDataOptions<T>): PointHashData {
    return pointsToData(this, options);
  }

  /**
   * Rebuilds a hash from {@link PointHash2D.toData}: same cell size, items,
   * ids (and the order in which free ids are reused), positions, categories
   * and masks, so every query gives the same answer. `decodeItem` inverts the
   * `encodeItem` given to toData. O(points).
   * @throws Error naming the problem if `data` is not a valid 2D snapshot.
   */
  static from<U>(data: PointHashData, options?: FromDataOptions<U>): PointHash2D<U> {
    const d = checkPointData(data, 2, options);
    const hash = new PointHash2D<U>({
      cellSize: d.cellSize,
      initialCapacity: d.idLimit,
      trackItems: options?.trackItems,
    });
    const p = d.positions;
    restorePoints(hash, d, options, (h, i) => {
      NEW_POINT[0] = p[i * 2];
      NEW_POINT[1] = p[i * 2 + 1];
      hash.place(h);
    });
    return hash;
  }

  /**
   * Checks every internal invariant and throws an Error describing the first
   * one broken. O(points + cells). For tests and debugging.
   */
  validate(): void {
    validatePointHash(this);
  }

  /**
   * Shared body of the box and radius queries: visits the cells of the range
   * (or every occupied cell when that is fewer) and the far list, and keeps
   * the points passing the box test, and the distance test when `r2 >= 0`.
   * Items go into `out` from its start; the caller sets its length to the
   * count returned (emptying it first would make V8 drop its storage). With
   * `visit`, returns -1 when it stopped the walk.
   */
  private collect(
    minX: number,
    minY: number,
    maxX: number,
    maxY: number,
    x: number,
    y: number,
    r2: number,
    m: number,
    out: T[] | undefined,
    visit: OverlapVisitor<T> | undefined,
  ): number {
    // Without filters every category is 1.
    if (this.filters === undefined && (m & 1) === 0) return 0;
    let found = 0;
    const cells = this.cells;
    const runs = this.cellRuns;
    const slots = this.slots;
    const cx0 = Math.max(this.cellOf(minX), -MAX_CELL_INDEX);
    const cy0 = Math.max(this.cellOf(minY), -MAX_CELL_INDEX);
    const cx1 = Math.min(this.cellOf(maxX), MAX_CELL_INDEX);
    const cy1 = Math.min(this.cellOf(maxY), MAX_CELL_INDEX);
    if (cx0 > cx1 || cy0 > cy1 || this.occupiedCells === 0) {
      // Nothing stored in cells can be in range; only far points can.
    } else if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) > cells.size) {
      const keys = cells.keys;
      for (let id = 0; id < cells.idLimit; id++) {
        const n = runs[id * RUN + RUN_COUNT];
        if (n === 0) continue;
        const kx = keys[id * 2];
        const ky = keys[id * 2 + 1];
        if (kx < cx0 || kx > cx1 || ky < cy0 || ky > cy1) continue;
        const start = runs[id * RUN + RUN_START];
        found = this.scan(slots, start, start + n, minX, minY, maxX, maxY, x, y, r2, m, out, visit, found);
        if (found < 0) return -1;
      }
    } else {
      for (let cx = cx0; cx <= cx1; cx++) {
        for (let cy = cy0; cy <= cy1; cy++) {
          const id = cells.find2(cx, cy);
          if (id === NONE) continue;
          const start = runs[id * RUN + RUN_START];
          const end = start + runs[id * RUN + RUN_COUNT];
          found = this.scan(slots, start, end, minX, minY, maxX, maxY, x, y, r2, m, out, visit, found);
          if (found < 0) return -1;
        }
      }
    }
    if (this.farCount > 0) {
      found = this.scan(this.far, 0, this.farCount, minX, minY, maxX, maxY, x, y, r2, m, out, visit, found);
    }
    return found;
  }

  /** Tests slots [from, to) of `slots` (see {@link collect}); returns the new count, or -1 when `visit` stopped. */
  private scan(
    slots: Float64Array,
    from: number,
    to: number,
    minX: number,
    minY: number,
    maxX: number,
    maxY: number,
    x: number,
    y: number,
    r2: number,
    m: number,
    out: T[] | undefined,
    visit: OverlapVisitor<T> | undefined,
    found: number,
  ): number {
    const filters = this.filters;
    const items = this.items;
    for (let s = from * 3, end = to * 3; s < end; s += 3) {
      const px = slots[s];
      const py = slots[s + 1];
      if (!(px >= minX && px <= maxX && py >= minY && py <= maxY)) continue;
      if (r2 >= 0) {
        const dx = px - x;
        const dy = py - y;
        if (!(dx * dx + dy * dy <= r2)) continue;
      }
      const h = slots[s + 2];
      if (filters !== undefined && (filters[h * 2] & m) === 0) continue;
      if (out !== undefined) out[found++] = items[h] as T;
      else if ((visit as OverlapVisitor<T>)(items[h] as T, h) === true) return -1;
    }
    return found;
  }
}

/** Throws a RangeError naming the first coordinate that is not finite. */
function checkPoint2(x: number, y: number): void {
  checkFinite('x', x);
  checkFinite('y', y);
}
