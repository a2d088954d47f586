/**
 * SpatialHash2D: a dynamic, unbounded, sparse spatial hash of items with 2D
 * axis-aligned boxes. Insert, update, remove and point / box / radius queries;
 * ray casts, k-nearest and pairs live in their own modules.
 *
 * @module
 */

import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import { isOrdinaryRadius } from '../core/distance.js';
import { checkArray, checkDistance, checkFinite, describe as describeValue } from '../core/validate.js';
import { radiusPad, SpatialHashBase } from './base.js';
import { checkBox2, countError, type OverlapVisitor } from './box-args.js';
import {
  addEntry,
  chainError,
  dropCells,
  dropEntry,
  dropHome,
  FIRST_ENTRY,
  HOME_CELL,
  HOME_POS,
  LINKS,
  markMoved,
  OVERFLOW_POS,
  promoteHome,
  SLOT,
  SLOT_STARTS,
  syncSlots,
} from './cell-runs.js';
import { checkData, type FromDataOptions, restore, type SpatialHashData, type ToDataOptions, toData } from './data.js';
import { radiusExtreme } from './extreme.js';
import { ALL_BITS, type ItemFilter, type ItemPredicate, isDefaultFilter, readFilter, toBits } from './filter.js';
import { nearest } from './nearest.js';
import type { SpatialHashOptions } from './options.js';
import { forEachPair, type PairOptions, type PairVisitor } from './pairs.js';
import { type CellOnRayVisitor2D, forEachCellOnRay, type RayHit, raycast, raycastAll } from './raycast.js';
import { validateHash } from './validate-hash.js';

const NONE = -1;
/** Stands for the home in a walk over an item's cells (entries are >= 0). */
const HOME = -2;

/**
 * A dynamic, unbounded, sparse spatial hash of items with 2D axis-aligned boxes
 * (a point is a box of zero size). Items may be any value (objects, numbers,
 * strings) and are compared like Map keys.
 *
 * Boxes are closed: touching counts as intersecting. Every query reports each
 * matching item exactly once, with no false positives. Query cost is
 * O(cells covered by the query + items in them + overflow items).
 *
 * @example
 * ```ts
 * const hash = new SpatialHash2D<Enemy>({ cellSize: 64 });
 * hash.insert(enemy, enemy.x - 8, enemy.y - 8, enemy.x + 8, enemy.y + 8);
 * const near = hash.queryRadius(player.x, player.y, 200);
 * ```
 * @typeParam T - the item type.
 */
export class SpatialHash2D<T> extends SpatialHashBase<T> {
  /**
   * @param options - `cellSize` (required), `maxCellsPerItem` (default 256, at most 4096: `MAX_CELLS_PER_ITEM_LIMIT`), `initialCapacity` (default 64).
   * @throws RangeError if `cellSize` is not a finite number > 0, or another option is not a valid integer in its range.
   */
  constructor(options: SpatialHashOptions) {
    super(2, options);
  }

  /**
   * Adds `item` at the point (x, y), or with the box [minX, maxX] x [minY,
   * maxY]: 2 or 4 numbers, never 3. An optional last argument sets the item's
   * collision `category` and `mask` (default 1 and 0xFFFFFFFF; see
   * {@link SpatialHash2D.setFilterById}). O(cells covered), amortised: the item
   * goes at the end of each cell's run, and forEachPair sorts the runs by minX
   * when it next runs.
   * @returns the item's id: a small integer >= 0, stable until the item is
   * removed, for {@link SpatialHash2D.updateById}, {@link SpatialHash2D.removeById}
   * and {@link SpatialHash2D.itemById}. Ids of removed items are reused.
   * @throws RangeError if a coordinate is not finite, a min exceeds its max, 3
   * numbers are given, or the filter is not an object of 32-bit integers.
   * @throws Error if `item` is already present (use {@link SpatialHash2D.update}).
   */
  insert(item: T, x: number, y: number, filter?: ItemFilter): number;
  insert(item: T, minX: number, minY: number, maxX: number, maxY: number, filter?: ItemFilter): number;
  insert(item: T, minX: number, minY: number, a?: number | ItemFilter, b?: number, c?: ItemFilter): number {
    let maxX = minX;
    let maxY = minY;
    let filter: unknown = c;
    if (b !== undefined || c !== undefined) {
      maxX = a as number;
      maxY = b as number;
    } else if (a === undefined || typeof a === 'object') {
      filter = a;
    } else {
      throw countError('insert', 2, 3);
    }
    checkBox2(minX, minY, maxX, maxY);
    readFilter(filter, FILTER);
    NEW_BOX[0] = minX;
    NEW_BOX[1] = minY;
    NEW_BOX[2] = maxX;
    NEW_BOX[3] = maxY;
    return this.add(item);
  }

  /**
   * The rest of insert, with the checked box in {@link NEW_BOX} and the
   * filter in FILTER: insert stays small enough for V8 to inline into a
   * caller's loop, and its numbers are not boxed (see {@link move}).
   */
  private add(item: T): number {
    this.checkWritable('insert');
    this.checkAbsent(item);
    const h = this.allocateHandle(item);
    if (!isDefaultFilter(FILTER[0], FILTER[1])) this.setFilterBits(h, FILTER[0], FILTER[1]);
    const b = h * 4;
    for (let k = 0; k < 4; k++) this.boxes[b + k] = NEW_BOX[k];
    this.link(h);
    return h;
  }

  /**
   * Moves a present `item` to a new box. When the box still covers the same
   * cells, only the stored box changes and no cell list is touched, so things
   * that move a little every frame are cheap.
   * @throws RangeError if a coordinate is not finite or a min exceeds its max.
   * @throws Error if `item` is not present.
   */
  update(item: T, x: number, y: number): void;
  update(item: T, minX: number, minY: number, maxX: number, maxY: number): void;
  update(item: T, minX: number, minY: number, maxX?: number, maxY?: number): void {
    if (maxY === undefined) {
      if (maxX !== undefined) throw countError('update', 2, 3);
      maxX = minX;
      maxY = minY;
    }
    checkBox2(minX, minY, maxX as number, maxY);
    this.checkWritable('update');
    const h = this.handleOf(item, 'update');
    NEW_BOX[0] = minX;
    NEW_BOX[1] = minY;
    NEW_BOX[2] = maxX as number;
    NEW_BOX[3] = maxY;
    this.move(h);
  }

  /**
   * {@link SpatialHash2D.update} by id: no lookup by item, so O(1) when the box
   * stays in the same cells, else O(cells entered and left).
   * @throws RangeError if `id` is not the id of a stored item, or as update.
   */
  updateById(id: number, x: number, y: number): void;
  updateById(id: number, minX: number, minY: number, maxX: number, maxY: number): void;
  updateById(id: number, minX: number, minY: number, maxX?: number, maxY?: number): void {
    this.checkId(id, 'updateById');
    if (maxY === undefined) {
      if (maxX !== undefined) throw countError('updateById', 2, 3);
      maxX = minX;
      maxY = minY;
    }
    checkBox2(minX, minY, maxX as number, maxY);
    this.checkWritable('updateById');
    NEW_BOX[0] = minX;
    NEW_BOX[1] = minY;
    NEW_BOX[2] = maxX as number;
    NEW_BOX[3] = maxY;
    this.move(id);
  }

  /**
   * Moves handle `h` to the checked box in {@link NEW_BOX}. Within the same
   * cells only the box is written; otherwise only the entries of cells left
   * are dropped and only cells entered are added, so a ball crossing one cell
   * border touches two cells, not all it covers.
   *
   * The box arrives in NEW_BOX, not as arguments, and this function is one piece
   * too big for V8 to inline (over 460 bytes of bytecode), so that
   * `updateById` and `update` stay small: V8 then always inlines them into a
   * caller's loop of moves, and the four numbers go into NEW_BOX unboxed. When
   * the new box came as arguments, a call boxed them (16 bytes each), and
   * whether V8 inlined the call depended on which function it compiled first:
   * a small `move` got inlined into `updateById` compiled on its own, which
   * made `updateById` too big to inline into the loop. In workload 5's
   * broadphase that boxed the moves of 5 of 8 processes (70 KB a frame).
   */
  private move(h: number): void {
    const minX = NEW_BOX[0];
    const minY = NEW_BOX[1];
    const maxX = NEW_BOX[2];
    const maxY = NEW_BOX[3];
    this.pairCache.touch(h);
    // The old cell range comes from the old box, on the cache line written next.
    const b = h * 4;
    const boxes = this.boxes;
    const ox0 = this.cellOf(boxes[b]);
    const oy0 = this.cellOf(boxes[b + 1]);
    const ox1 = this.cellOf(boxes[b + 2]);
    const oy1 = this.cellOf(boxes[b + 3]);
    const cx0 = this.cellOf(minX);
    const cy0 = this.cellOf(minY);
    const cx1 = this.cellOf(maxX);
    const cy1 = this.cellOf(maxY);
    boxes[b] = minX;
    boxes[b + 1] = minY;
    boxes[b + 2] = maxX;
    boxes[b + 3] = maxY;
    // The same cells give the same overflow decision (it depends on the cell
    // range only), so this test reads nothing but the box: the links, another
    // cache miss, are read only when the item changes cells.
    if (cx0 === ox0 && cy0 === oy0 && cx1 === ox1 && cy1 === oy1) {
      // Same cells: the slots' box copies (an overflow item has none) are
      // brought up to date at the next read. (Writing a one-cell item's slot
      // here instead was no faster in churn and slower when everything moves:
      // the list is walked in id order, the slots are not.)
      markMoved(this, h);
      return;
    }
    // Other cells. Moves into or out of the overflow list refile.
    const inOverflow = this.itemLinks[h * LINKS + OVERFLOW_POS] !== NONE;
    if (
      inOverflow ||
      !(Math.max(-cx0, cx1, -cy0, cy1) <= MAX_CELL_INDEX) ||
      (cx1 - cx0 + 1) * (cy1 - cy0 + 1) > this.maxCellsPerItem
    ) {
      this.unlink(h);
      this.link(h);
      return;
    }
    if (cx0 > ox1 || cx1 < ox0 || cy0 > oy1 || cy1 < oy0) {
      // No cell kept (always so for an item in one cell): no cell key to read.
      dropCells(this, h);
    } else {
      this.keepCells(h, cx0, cy0, cx1, cy1);
    }
    this.growCellBounds(0, cx0, cx1);
    this.growCellBounds(1, cy0, cy1);
    for (let cx = cx0; cx <= cx1; cx++) {
      const keptX = cx >= ox0 && cx <= ox1;
      for (let cy = cy0; cy <= cy1; cy++) {
        if (keptX && cy >= oy0 && cy <= oy1) continue;
        addEntry(this, h, this.cells.insert2(cx, cy), (cx === cx0 ? 1 : 0) | (cy === cy0 ? 2 : 0));
      }
    }
  }

  /**
   * The part of a move whose old and new cell ranges overlap: drops the
   * slots of the cells left, gives the slots of the cells kept the new box
   * and start bits. A lost home is replaced by a kept entry.
   */
  private keepCells(h: number, cx0: number, cy0: number, cx1: number, cy1: number): void {
    const b = h * 4;
    const minX = this.boxes[b];
    const minY = this.boxes[b + 1];
    const maxX = this.boxes[b + 2];
    const maxY = this.boxes[b + 3];
    const keys = this.cells.keys;
    const links = this.itemLinks;
    const l = h * LINKS;
    const slotBox = this.slotBox;
    const entryItemNext = this.entryItemNext;
    // The home first, then the chain; s is the slot, id the cell of each.
    let prev = NONE;
    for (let e = HOME, steps = 0; e !== NONE; steps++) {
      if (steps > this.entryLimit) throw chainError(h);
      const home = e === HOME;
      const next = home ? links[l + FIRST_ENTRY] : entryItemNext[e];
      const id = home ? links[l + HOME_CELL] : this.entryCell[e];
      const kx = keys[id * 2];
      const ky = keys[id * 2 + 1];
      if (kx < cx0 || kx > cx1 || ky < cy0 || ky > cy1) {
        if (home) dropHome(this, h);
        else {
          if (prev === NONE) links[l + FIRST_ENTRY] = next;
          else entryItemNext[prev] = next;
          dropEntry(this, e);
        }
      } else {
        // A kept cell: new box copy, and the range may now start here or no longer.
        const s = this.cellStart[id] + (home ? links[l + HOME_POS] : this.entryPos[e]);
        this.slotInfo[s * SLOT + SLOT_STARTS] = (kx === cx0 ? 1 : 0) | (ky === cy0 ? 2 : 0);
        slotBox[s * 4] = minX;
        slotBox[s * 4 + 1] = minY;
        slotBox[s * 4 + 2] = maxX;
        slotBox[s * 4 + 3] = maxY;
        if (!home) prev = e;
      }
      e = next;
    }
    // The ranges overlap, so some cell was kept: an entry, if not the home.
    if (links[l + HOME_POS] === NONE) promoteHome(this, h);
  }

  /**
   * The stored box of the item with this id as [minX, minY, maxX, maxY],
   * written into `out` when given. O(1).
   * @throws RangeError if `id` is not the id of a stored item.
   */
  boxById(id: number, out: number[] = []): number[] {
    checkArray('out', out);
    this.checkId(id, 'boxById');
    const b = id * 4;
    out.length = 4;
    for (let i = 0; i < 4; i++) out[i] = this.boxes[b + i];
    return out;
  }

  /**
   * The stored box of `item` as [minX, minY, maxX, maxY], written into `out`
   * when given, or undefined if the item is absent. O(1).
   */
  getBox(item: T, out: number[] = []): number[] | undefined {
    checkArray('out', out);
    this.checkTracked('getBox');
    const h = this.handles.get(item);
    if (h === NONE) return undefined;
    const b = h * 4;
    out.length = 4;
    for (let i = 0; i < 4; i++) out[i] = this.boxes[b + i];
    return out;
  }

  /**
   * Items whose box contains the point (x, y). O(items in its cell + overflow items).
   * @param out - emptied, filled and returned, so a caller can query every frame without allocating.
   * @param mask - only items with `(category & mask) !== 0` are reported; default every bit.
   * @throws RangeError if x or y is not finite, or mask is not a 32-bit integer.
   */
  queryPoint(x: number, y: number, out: T[] = [], mask: number = ALL_BITS): T[] {
    checkArray('out', out);
    checkFinite('x', x);
    checkFinite('y', y);
    const m = toBits('mask', mask);
    const categories = this.categories;
    let found = 0;
    syncSlots(this);
    const boxes = this.boxes;
    const items = this.items;
    const cx = this.cellOf(x);
    const cy = this.cellOf(y);
    // One cell holds an item at most once, so no stamps are needed here.
    if (Math.abs(cx) <= MAX_CELL_INDEX && Math.abs(cy) <= MAX_CELL_INDEX) {
      const id = this.cells.find2(cx, cy);
      if (id !== NONE) {
        const info = this.slotInfo;
        const slotBox = this.slotBox;
        const end = this.cellStart[id] + this.cellEntryCount[id];
        for (let s = this.cellStart[id]; s < end; s++) {
          const b = s * 4;
          if (slotBox[b] <= x && x <= slotBox[b + 2] && slotBox[b + 1] <= y && y <= slotBox[b + 3]) {
            const h = info[s * SLOT];
            if ((categories[h] & m) !== 0) out[found++] = items[h] as T;
          }
        }
      }
    }
    for (let i = 0; i < this.overflowCount; i++) {
      const h = this.overflow[i];
      const b = h * 4;
      if (boxes[b] <= x && x <= boxes[b + 2] && boxes[b + 1] <= y && y <= boxes[b + 3] && (categories[h] & m) !== 0)
        out[found++] = items[h] as T;
    }
    out.length = found;
    return out;
  }

  /**
   * Items whose box intersects [minX, maxX] x [minY, maxY] (closed: touching
   * counts). O(cells covered + items in them + overflow items); a query covering
   * more cells than are occupied scans the occupied cells instead.
   * @param out - emptied, filled and returned.
   * @param mask - only items with `(category & mask) !== 0` are reported; default every bit.
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
   * Calls `visit(item, id)` for every item whose box intersects [minX, maxX] x
   * [minY, maxY] (closed), each once, in no particular order, without building
   * an array: a query-only shape (a sensor, an explosion, a mouse box) needs no
   * insert. Return `true` from `visit` to stop early. The visitor may read the
   * hash (itemById, getBox, queryPoint) but not change it or run another box,
   * radius, nearest or ray query: those throw an Error.
   * @param mask - only items with `(category & mask) !== 0` are visited; default every bit.
   * @returns true if `visit` stopped the walk, false if it saw every overlap.
   * @throws RangeError as {@link SpatialHash2D.queryBox}, or if visit is not a function.
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
    if (typeof visit !== 'function') throw new RangeError(`visit must be a function, got ${describeValue(visit)}`);
    this.visiting++;
    try {
      return this.collect(minX, minY, maxX, maxY, Number.NaN, Number.NaN, -1, m, undefined, visit) < 0;
    } finally {
      this.visiting--;
    }
  }

  /**
   * Items whose box is within Euclidean distance `radius` of (x, y): the
   * distance from the point to the nearest point of the box, 0 inside it.
   * @param radius - a number >= 0 (Infinity returns everything).
   * @param out - emptied, filled and returned.
   * @param mask - only items with `(category & mask) !== 0` are reported; default every bit.
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
   * The nearest item whose box the ray from (ox, oy) along (dx, dy) hits, with
   * the distance from the origin to where the ray enters the box (0 when the
   * origin is inside it). Boxes are closed: grazing an edge or a corner is a hit.
   * The walk stops as soon as no nearer hit is possible, and an infinite ray
   * stops where it leaves the stored cells. Ties at the same distance: any of them.
   * O(cells crossed up to the hit + items in them + overflow items), bounded by
   * O(items) for very sparse data.
   * @param dx - direction; need not be normalised (any finite non-zero vector).
   * @param maxDistance - a hit counts when its distance is <= this, in coordinate units. Default Infinity.
   * @param mask - only items with `(category & mask) !== 0` can be hit; default every bit.
   * @param predicate - when given, only items for which it returns true can be hit
   * (e.g. "not myself"): the answer is the nearest such hit, not the nearest hit filtered.
   * @returns the hit, or undefined when nothing is hit.
   * @throws RangeError if the origin or direction is not finite, the direction is zero, maxDistance is negative or NaN,
   * mask is not a 32-bit integer or predicate is not a function.
   */
  raycast(
    ox: number,
    oy: number,
    dx: number,
    dy: number,
    maxDistance = Number.POSITIVE_INFINITY,
    mask: number = ALL_BITS,
    predicate?: ItemPredicate<T>,
  ): RayHit<T> | undefined {
    return raycast(this, ox, oy, 0, dx, dy, 0, maxDistance, mask, predicate);
  }

  /**
   * Every item whose box the ray hits within maxDistance, each once, ascending by
   * distance (equal distances in any order). Same rules as
   * {@link SpatialHash2D.raycast}. O(cells crossed + items in them + overflow
   * items + hits log hits).
   * @param out - emptied, filled and returned; RayHit objects already in it are
   * reused (overwritten), so casting every frame into the same array allocates nothing.
   * @param mask - as {@link SpatialHash2D.raycast}.
   * @param predicate - as {@link SpatialHash2D.raycast}.
   * @throws RangeError as {@link SpatialHash2D.raycast}.
   */
  raycastAll(
    ox: number,
    oy: number,
    dx: number,
    dy: number,
    maxDistance = Number.POSITIVE_INFINITY,
    out: RayHit<T>[] = [],
    mask: number = ALL_BITS,
    predicate?: ItemPredicate<T>,
  ): RayHit<T>[] {
    return raycastAll(this, ox, oy, 0, dx, dy, 0, maxDistance, out, mask, predicate);
  }

  /**
   * Calls `visit(cx, cy, enter, exit)` for every cell the ray passes through,
   * in order along the ray (exact voxel traversal, Amanatides and Woo), where
   * `enter` / `exit` are distances from the origin in coordinate units. A cell
   * the ray only touches at a corner is visited too (with enter === exit), so
   * every cell that can hold an item the ray touches is visited. Cells are
   * `Math.floor(coordinate / cellSize)`, the same as the hash stores.
   * With a finite maxDistance the whole segment is walked, occupied or not;
   * with Infinity the walk ends where the ray leaves the cells that hold items
   * (nothing is visited when no item is in cells). Return `true` from `visit`
   * to stop early. Do not insert, update or remove while visiting.
   * O(cells visited).
   * @throws RangeError as {@link SpatialHash2D.raycast}, or if visit is not a function.
   */
  forEachCellOnRay(
    ox: number,
    oy: number,
    dx: number,
    dy: number,
    maxDistance: number,
    visit: CellOnRayVisitor2D,
  ): void {
    forEachCellOnRay(this, ox, oy, 0, dx, dy, 0, maxDistance, visit);
  }

  /**
   * Up to k items nearest to (x, y), ascending by the distance from the point
   * to their boxes (0 inside; the float formula of
   * {@link SpatialHash2D.queryRadius}), keeping only those within maxDistance.
   * Items at the same distance come in any order. Searches rings of cells
   * outward and stops when the next ring cannot hold anything nearer; with
   * sparse data it scans the occupied cells instead, so a nearest item far away
   * costs O(occupied cells), not O(empty cells).
   * @param k - a non-negative integer, default 1; 0 returns nothing, more than `size` returns everything in range.
   * @param maxDistance - in coordinate units, default Infinity.
   * @param out - emptied, filled and returned.
   * @param mask - only items with `(category & mask) !== 0` count: the answer is the k nearest such items.
   * @param predicate - when given, only items for which it returns true count (e.g. "not myself"),
   * again the k nearest of them, exactly.
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
    return nearest(this, x, y, 0, k, maxDistance, out, mask, predicate);
  }

  /**
   * A snapshot of the hash: options, items with their ids, boxes, categories
   * and masks, and the free ids, in typed arrays and one plain array, all
   * structured-cloneable (postMessage to a worker, IndexedDB). Items that are
   * numbers or strings are kept as they are; any other item needs
   * `encodeItem`, which then encodes every item (e.g. `(item) => item.name`).
   * O(items).
   * @throws Error if an item is neither a number nor a string and no encodeItem is given.
   */
  toData(options?: ToDataOptions<T>): SpatialHashData {
    return toData(this, options);
  }

  /**
   * Rebuilds a hash from {@link SpatialHash2D.toData}: same options, items,
   * ids (and the order in which free ids are reused), boxes, categories and
   * masks, so every query gives the same answer. `decodeItem` inverts the
   * `encodeItem` given to toData. O(items + cells).
   * @throws Error naming the problem if `data` is not a valid 2D snapshot.
   */
  static from<U>(data: SpatialHashData, options?: FromDataOptions<U>): SpatialHash2D<U> {
    const d = checkData(data, 2, options);
    const hash = new SpatialHash2D<U>({
      cellSize: d.cellSize,
      maxCellsPerItem: d.maxCellsPerItem,
      initialCapacity: d.idLimit,
      trackItems: options?.trackItems,
    });
    restore(hash, d, options);
    return hash;
  }

  /**
   * Calls `visit(a, b)` exactly once for every unordered pair of items whose
   * boxes intersect (closed: touching counts) and whose filters accept each
   * other, `(a.category & b.mask) !== 0 && (b.category & a.mask) !== 0`, in no
   * particular order: the broadphase of a collision system. Overflow items pair with everything they
   * touch. The visitor may run queries; insert, update, remove or clear from inside
   * it throw an Error.
   *
   * The pairs are kept for the next call while they are few (up to 32 per
   * item). When at most a quarter of the items changed since (moved,
   * inserted, removed or given a new filter), that call finds again only the
   * pairs of the changed items, in their own cells, and reports the kept rest
   * from a flat list: in a game where most things stand still, a frame costs
   * O(pairs + changed items x their cells). Otherwise each cell's run is
   * sorted by minX in place and swept: O(occupied cells + sum over cells of
   * entries^2 + overflow items x (items or cells they cover)).
   *
   * With `{ shape: 'ball' }` a pair is reported only when the discs
   * inscribed in the two boxes meet (see {@link PairOptions.shape}): insert
   * each ball with its bounding box and the visitor hears of touching balls
   * only, tested on data the sweep already holds.
   * @throws RangeError if visit is not a function, or options is not an
   * object or its shape not 'box' or 'ball' (the hash is left as it was).
   * @throws Error if called from inside a predicate or a forEachOverlap visitor.
   */
  forEachPair(visit: PairVisitor<T>, options?: PairOptions): void {
    forEachPair(this, visit, options);
  }

  /**
   * Checks every internal invariant and throws an Error describing the first one
   * broken. O(items + entries + cells). For tests and debugging.
   */
  validate(): void {
    validateHash(this);
  }

  /**
   * Shared body of the box and radius queries: visits the cells of the range
   * (or every occupied cell when that is fewer) and keeps the items passing
   * the box test, or the distance test when `r2 >= 0`. An item is looked at
   * only in the lowest cell its range shares with the query's range (per
   * axis, where either starts: the slot's start bits, or the query range's
   * first cell), so each is reported once without per-item stamps.
   *
   * Items go into `out` from its start, and the caller sets its length to
   * the count returned: `out.length = 0` first would make V8 drop the array's
   * storage, and every query would then grow a new one (a reused `out`
   * allocated on each call: the broadphase bench's 100 queries a frame took
   * a scavenge every 14 frames, every 30 without). With `visit`, returns -1
   * when it stopped the walk.
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
    let found = 0;
    const categories = this.categories;
    const cells = this.cells;
    const cellStart = this.cellStart;
    const cellEntryCount = this.cellEntryCount;
    const boxes = this.boxes;
    const slotBox = this.slotBox;
    const items = this.items;
    const info = this.slotInfo;
    // No stamps needed here, but taking one keeps the rule that no box or
    // radius query runs inside a predicate or forEachOverlap visitor.
    this.nextStamp();
    syncSlots(this);
    // Cells past MAX_CELL_INDEX are never stored (such items overflow), so clamp.
    const cx0 = Math.max(this.cellOf(minX), -MAX_CELL_INDEX);
    const cy0 = Math.max(this.cellOf(minY), -MAX_CELL_INDEX);
    const cx1 = Math.min(this.cellOf(maxX), MAX_CELL_INDEX);
    const cy1 = Math.min(this.cellOf(maxY), MAX_CELL_INDEX);
    if (cx0 > cx1 || cy0 > cy1) {
      // The range lies wholly past the stored cells; only overflow items can match.
    } else if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) > cells.size) {
      // A query covering more cells than are occupied walks the occupied ones.
      const keys = cells.keys;
      for (let id = 0; id < cells.idLimit; id++) {
        const n = cellEntryCount[id];
        if (n === 0) continue;
        const kx = keys[id * 2];
        const ky = keys[id * 2 + 1];
        if (kx < cx0 || kx > cx1 || ky < cy0 || ky > cy1) continue;
        const need = (kx === cx0 ? 0 : 1) | (ky === cy0 ? 0 : 2);
        for (let slot = cellStart[id], end = slot + n; slot < end; slot++) {
          if ((info[slot * SLOT + SLOT_STARTS] & need) !== need) continue;
          if (!keep(slotBox, slot * 4, minX, minY, maxX, maxY, x, y, r2)) continue;
          const h = info[slot * SLOT];
          if ((categories[h] & m) === 0) continue;
          if (out !== undefined) out[found++] = items[h] as T;
          else if (this.callOut(visit as OverlapVisitor<T>, h)) return -1;
        }
      }
    } else {
      for (let cx = cx0; cx <= cx1; cx++) {
        for (let cy = cy0; cy <= cy1; cy++) {
          const id = cells.find2(cx, cy);
          if (id === NONE) continue;
          const need = (cx === cx0 ? 0 : 1) | (cy === cy0 ? 0 : 2);
          for (let slot = cellStart[id], end = slot + cellEntryCount[id]; slot < end; slot++) {
            if ((info[slot * SLOT + SLOT_STARTS] & need) !== need) continue;
            if (!keep(slotBox, slot * 4, minX, minY, maxX, maxY, x, y, r2)) continue;
            const h = info[slot * SLOT];
            if ((categories[h] & m) === 0) continue;
            if (out !== undefined) out[found++] = items[h] as T;
            else if (this.callOut(visit as OverlapVisitor<T>, h)) return -1;
          }
        }
      }
    }
    for (let i = 0; i < this.overflowCount; i++) {
      const h = this.overflow[i];
      if ((categories[h] & m) === 0 || !keep(boxes, h * 4, minX, minY, maxX, maxY, x, y, r2)) continue;
      if (out !== undefined) out[found++] = items[h] as T;
      else if (this.callOut(visit as OverlapVisitor<T>, h)) return -1;
    }
    return found;
  }

  /** Files handle `h` under every cell of its box, or in the overflow list when that is too many. */
  protected link(h: number): void {
    const b = h * 4;
    const cx0 = this.cellOf(this.boxes[b]);
    const cy0 = this.cellOf(this.boxes[b + 1]);
    const cx1 = this.cellOf(this.boxes[b + 2]);
    const cy1 = this.cellOf(this.boxes[b + 3]);
    if (
      !(Math.max(-cx0, cx1, -cy0, cy1) <= MAX_CELL_INDEX) ||
      (cx1 - cx0 + 1) * (cy1 - cy0 + 1) > this.maxCellsPerItem
    ) {
      this.addOverflow(h);
      return;
    }
    this.growCellBounds(0, cx0, cx1);
    this.growCellBounds(1, cy0, cy1);
    for (let cx = cx0; cx <= cx1; cx++) {
      for (let cy = cy0; cy <= cy1; cy++)
        addEntry(this, h, this.cells.insert2(cx, cy), (cx === cx0 ? 1 : 0) | (cy === cy0 ? 2 : 0));
    }
  }
}

/** Category and mask read from an insert's filter argument (scratch: insert allocates nothing for it). */
const FILTER = new Int32Array(2);

/**
 * The box of an insert or a move, handed from `insert` to `add` and from
 * `update` / `updateById` to `move` without boxing its numbers (see
 * SpatialHash2D's move). Written after every check that can run user code
 * (a filter's getters) and read before anything can write it again.
 */
const NEW_BOX = new Float64Array(4);

/** The box test, or the distance test when r2 >= 0 (a radius query). */
function keep(
  boxes: Float64Array,
  b: number,
  minX: number,
  minY: number,
  maxX: number,
  maxY: number,
  x: number,
  y: number,
  r2: number,
): boolean {
  if (r2 < 0) return boxes[b] <= maxX && minX <= boxes[b + 2] && boxes[b + 1] <= maxY && minY <= boxes[b + 3];
  const bx0 = boxes[b];
  const bx1 = boxes[b + 2];
  const by0 = boxes[b + 1];
  const by1 = boxes[b + 3];
  const dx = bx0 > x ? bx0 - x : x > bx1 ? x - bx1 : 0;
  const dy = by0 > y ? by0 - y : y > by1 ? y - by1 : 0;
  return dx * dx + dy * dy <= r2;
}
