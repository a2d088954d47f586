/**
 * SpatialHash3D: the 3D twin of SpatialHash2D. The hot loops are written out
 * per dimension for speed; everything else is shared in base.ts.
 *
 * @module
 */

import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import { isOrdinaryRadius } from '../core/distance.js';
import { checkArray, checkDistance, checkFinite, describe as describeValue } from '../core/validate.js';
import { radiusPad, SpatialHashBase } from './base.js';
import { checkBox3, countError, type OverlapVisitor } from './box-args.js';
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
  writeSlotBoxes,
} from './cell-runs.js';
import { checkData, type FromDataOptions, restore, type SpatialHashData, type ToDataOptions, toData } from './data.js';
import { radiusExtreme } from './extreme.js';
import { ALL_BITS, type ItemFilter, type ItemPredicate, isDefaultFilter, readFilter, toBits } from './filter.js';
import { nearest } from './nearest.js';
import type { SpatialHashOptions } from './options.js';
import { forEachPair, type PairOptions, type PairVisitor } from './pairs.js';
import { type CellOnRayVisitor3D, forEachCellOnRay, type RayHit, raycast, raycastAll } from './raycast.js';
import { validateHash } from './validate-hash.js';

const NONE = -1;
/** Stands for the home in a walk over an item's cells (entries are >= 0). */
const HOME = -2;

/**
 * A dynamic, unbounded, sparse spatial hash of items with 3D axis-aligned boxes
 * (a point is a box of zero size). Every argument list takes z after y:
 * (minX, minY, minZ, maxX, maxY, maxZ). Items may be any value and are compared
 * like Map keys.
 *
 * Boxes are closed: touching counts as intersecting. Every query reports each
 * matching item exactly once, with no false positives. Query cost is
 * O(cells covered by the query + items in them + overflow items).
 *
 * @example
 * ```ts
 * const hash = new SpatialHash3D<Mesh>({ cellSize: 2 });
 * hash.insert(mesh, -1, -1, -1, 1, 1, 1);
 * const hit = hash.queryPoint(0, 0.5, 0);
 * ```
 * @typeParam T - the item type.
 */
export class SpatialHash3D<T> extends SpatialHashBase<T> {
  /**
   * @param options - `cellSize` (required), `maxCellsPerItem` (default 256, at most 4096: `MAX_CELLS_PER_ITEM_LIMIT`), `initialCapacity` (default 64).
   * @throws RangeError if `cellSize` is not a finite number > 0, or another option is not a valid integer in its range.
   */
  constructor(options: SpatialHashOptions) {
    super(3, options);
  }

  /**
   * Adds `item` at the point (x, y, z), or with the box [minX, maxX] x [minY,
   * maxY] x [minZ, maxZ]: 3 or 6 numbers, never 4 or 5. An optional last
   * argument sets the item's collision `category` and `mask` (see
   * {@link SpatialHash3D.setFilterById}). O(cells covered), amortised: the item
   * goes at the end of each cell's run, and forEachPair sorts the runs by minX
   * when it next runs.
   * @returns the item's id: a small integer >= 0, stable until the item is
   * removed. Ids of removed items are reused.
   * @throws RangeError if a coordinate is not finite, a min exceeds its max, 4
   * or 5 numbers are given, or the filter is not an object of 32-bit integers.
   * @throws Error if `item` is already present (use {@link SpatialHash3D.update}).
   */
  insert(item: T, x: number, y: number, z: number, filter?: ItemFilter): number;
  insert(
    item: T,
    minX: number,
    minY: number,
    minZ: number,
    maxX: number,
    maxY: number,
    maxZ: number,
    filter?: ItemFilter,
  ): number;
  insert(
    item: T,
    minX: number,
    minY: number,
    minZ: number,
    a?: number | ItemFilter,
    b?: number,
    c?: number,
    d?: ItemFilter,
  ): number {
    let maxX = minX;
    let maxY = minY;
    let maxZ = minZ;
    let filter: unknown = d;
    if (c !== undefined || d !== undefined) {
      maxX = a as number;
      maxY = b as number;
      maxZ = c as number;
    } else if (a === undefined || typeof a === 'object') {
      if (b !== undefined) throw countError('insert', 3, 5);
      filter = a;
    } else {
      throw countError('insert', 3, b === undefined ? 4 : 5);
    }
    checkBox3(minX, minY, minZ, maxX, maxY, maxZ);
    readFilter(filter, FILTER);
    const to = NEW_BOX;
    to[0] = minX;
    to[1] = minY;
    to[2] = minZ;
    to[3] = maxX;
    to[4] = maxY;
    to[5] = maxZ;
    return this.add(item);
  }

  /**
   * The rest of insert, with the checked box in {@link NEW_BOX} and the
   * filter in FILTER, so that insert stays small (see {@link move}).
   */
  private add(item: T): number {
    this.checkWritable('insert');
    this.checkAbsent(item);
    const h = this.allocateHandle(item);
    if (!isDefaultFilter(FILTER[0], FILTER[1])) this.setFilterBits(h, FILTER[0], FILTER[1]);
    const b = h * 6;
    for (let k = 0; k < 6; k++) this.boxes[b + k] = NEW_BOX[k];
    this.link(h);
    return h;
  }

  /**
   * Moves a present `item` to a new point (3 numbers) or box (6). When the box
   * still covers the same cells, only the stored box changes and no cell list
   * is touched; otherwise only the cells entered and left change.
   * @throws RangeError if a coordinate is not finite, a min exceeds its max, or 4 or 5 numbers are given.
   * @throws Error if `item` is not present.
   */
  update(item: T, x: number, y: number, z: number): void;
  update(item: T, minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number): void;
  update(item: T, minX: number, minY: number, minZ: number, maxX?: number, maxY?: number, maxZ?: number): void {
    if (maxZ === undefined) {
      if (maxX !== undefined || maxY !== undefined) throw countError('update', 3, maxY === undefined ? 4 : 5);
      maxX = minX;
      maxY = minY;
      maxZ = minZ;
    }
    checkBox3(minX, minY, minZ, maxX as number, maxY as number, maxZ);
    this.checkWritable('update');
    const h = this.handleOf(item, 'update');
    const to = NEW_BOX;
    to[0] = minX;
    to[1] = minY;
    to[2] = minZ;
    to[3] = maxX as number;
    to[4] = maxY as number;
    to[5] = maxZ;
    this.move(h);
  }

  /**
   * {@link SpatialHash3D.update} by id: no lookup by item, so O(1) when the box
   * stays in the same cells, else O(cells entered and left).
   * @throws RangeError if `id` is not the id of a stored item, or as update.
   */
  updateById(id: number, x: number, y: number, z: number): void;
  updateById(id: number, minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number): void;
  updateById(id: number, minX: number, minY: number, minZ: number, maxX?: number, maxY?: number, maxZ?: number): void {
    this.checkId(id, 'updateById');
    if (maxZ === undefined) {
      if (maxX !== undefined || maxY !== undefined) throw countError('updateById', 3, maxY === undefined ? 4 : 5);
      maxX = minX;
      maxY = minY;
      maxZ = minZ;
    }
    checkBox3(minX, minY, minZ, maxX as number, maxY as number, maxZ);
    this.checkWritable('updateById');
    const to = NEW_BOX;
    to[0] = minX;
    to[1] = minY;
    to[2] = minZ;
    to[3] = maxX as number;
    to[4] = maxY as number;
    to[5] = maxZ;
    this.move(id);
  }

  /**
   * Moves handle `h` to the checked box in {@link NEW_BOX}, touching only the
   * cells entered and left. The box arrives in NEW_BOX and this function is
   * too big for V8 to inline, so that `updateById` and `update` stay small
   * enough to be inlined into a caller's loop and box none of the six
   * numbers (see SpatialHash2D's move).
   */
  private move(h: number): void {
    this.pairCache.touch(h);
    const to = NEW_BOX;
    // The old cell range comes from the old box, on the cache line written next.
    const b = h * 6;
    const boxes = this.boxes;
    const ox0 = this.cellOf(boxes[b]);
    const oy0 = this.cellOf(boxes[b + 1]);
    const oz0 = this.cellOf(boxes[b + 2]);
    const ox1 = this.cellOf(boxes[b + 3]);
    const oy1 = this.cellOf(boxes[b + 4]);
    const oz1 = this.cellOf(boxes[b + 5]);
    const cx0 = this.cellOf(to[0]);
    const cy0 = this.cellOf(to[1]);
    const cz0 = this.cellOf(to[2]);
    const cx1 = this.cellOf(to[3]);
    const cy1 = this.cellOf(to[4]);
    const cz1 = this.cellOf(to[5]);
    for (let k = 0; k < 6; k++) boxes[b + k] = to[k];
    if (cx0 === ox0 && cy0 === oy0 && cz0 === oz0 && cx1 === ox1 && cy1 === oy1 && cz1 === oz1) {
      // Same cells, so the same overflow decision: the slots' box copies (if
      // any) are brought up to date at the next read, and the links are not read.
      markMoved(this, h);
      return;
    }
    // Other cells. Moves into or out of the overflow list refile.
    const inOverflow = this.itemLinks[h * LINKS + OVERFLOW_POS] !== NONE;
    if (
      inOverflow ||
      !(Math.max(-cx0, cx1, -cy0, cy1, -cz0, cz1) <= MAX_CELL_INDEX) ||
      (cx1 - cx0 + 1) * (cy1 - cy0 + 1) * (cz1 - cz0 + 1) > this.maxCellsPerItem
    ) {
      this.unlink(h);
      this.link(h);
      return;
    }
    if (cx0 > ox1 || cx1 < ox0 || cy0 > oy1 || cy1 < oy0 || cz0 > oz1 || cz1 < oz0) {
      // No cell kept (always so for an item in one cell): no cell key to read.
      dropCells(this, h);
    } else {
      this.keepCells(h, cx0, cy0, cz0, cx1, cy1, cz1);
      writeSlotBoxes(this, h);
    }
    this.growCellBounds(0, cx0, cx1);
    this.growCellBounds(1, cy0, cy1);
    this.growCellBounds(2, cz0, cz1);
    for (let cx = cx0; cx <= cx1; cx++) {
      const keptX = cx >= ox0 && cx <= ox1;
      for (let cy = cy0; cy <= cy1; cy++) {
        const keptXY = keptX && cy >= oy0 && cy <= oy1;
        for (let cz = cz0; cz <= cz1; cz++) {
          if (keptXY && cz >= oz0 && cz <= oz1) continue;
          addEntry(this, h, this.cells.insert3(cx, cy, cz), startBits3(cx, cy, cz, cx0, cy0, cz0));
        }
      }
    }
  }

  /**
   * The part of a move whose old and new cell ranges overlap: drops the
   * slots of the cells left and gives the slots of the cells kept their start
   * bits (the caller copies the box). A lost home is replaced by a kept entry.
   */
  private keepCells(h: number, cx0: number, cy0: number, cz0: number, cx1: number, cy1: number, cz1: number): void {
    const keys = this.cells.keys;
    const links = this.itemLinks;
    const l = h * LINKS;
    const entryItemNext = this.entryItemNext;
    // The home first, then the chain.
    let prev = NONE;
    for (let e = HOME, steps = 0; e !== NONE; steps++) {
      if (steps > this.entryLimit) throw chainError(h);
      const home = e === HOME;
      const next = home ? links[l + FIRST_ENTRY] : entryItemNext[e];
      const id = home ? links[l + HOME_CELL] : this.entryCell[e];
      const k = id * 3;
      const kx = keys[k];
      const ky = keys[k + 1];
      const kz = keys[k + 2];
      if (kx < cx0 || kx > cx1 || ky < cy0 || ky > cy1 || kz < cz0 || kz > cz1) {
        if (home) dropHome(this, h);
        else {
          if (prev === NONE) links[l + FIRST_ENTRY] = next;
          else entryItemNext[prev] = next;
          dropEntry(this, e);
        }
      } else {
        // A kept cell: the range may now start here or no longer.
        const s = this.cellStart[id] + (home ? links[l + HOME_POS] : this.entryPos[e]);
        this.slotInfo[s * SLOT + SLOT_STARTS] = startBits3(kx, ky, kz, cx0, cy0, cz0);
        if (!home) prev = e;
      }
      e = next;
    }
    // The ranges overlap, so some cell was kept: an entry, if not the home.
    if (links[l + HOME_POS] === NONE) promoteHome(this, h);
  }

  /**
   * The stored box of the item with this id as [minX, minY, minZ, maxX, maxY,
   * maxZ], written into `out` when given. O(1).
   * @throws RangeError if `id` is not the id of a stored item.
   */
  boxById(id: number, out: number[] = []): number[] {
    checkArray('out', out);
    this.checkId(id, 'boxById');
    const b = id * 6;
    out.length = 6;
    for (let i = 0; i < 6; i++) out[i] = this.boxes[b + i];
    return out;
  }

  /**
   * The stored box of `item` as [minX, minY, minZ, maxX, maxY, maxZ], written
   * into `out` when given, or undefined if the item is absent. O(1).
   */
  getBox(item: T, out: number[] = []): number[] | undefined {
    checkArray('out', out);
    this.checkTracked('getBox');
    const h = this.handles.get(item);
    if (h === NONE) return undefined;
    const b = h * 6;
    out.length = 6;
    for (let i = 0; i < 6; i++) out[i] = this.boxes[b + i];
    return out;
  }

  /**
   * Items whose box contains the point (x, y, z). O(items in its cell + overflow items).
   * @param out - emptied, filled and returned, so a caller can query every frame without allocating.
   * @param mask - only items with `(category & mask) !== 0` are reported; default every bit.
   * @throws RangeError if a coordinate is not finite, or mask is not a 32-bit integer.
   */
  queryPoint(x: number, y: number, z: number, out: T[] = [], mask: number = ALL_BITS): T[] {
    checkArray('out', out);
    checkFinite('x', x);
    checkFinite('y', y);
    checkFinite('z', z);
    const m = toBits('mask', mask);
    const categories = this.categories;
    let found = 0;
    syncSlots(this);
    const boxes = this.boxes;
    const items = this.items;
    const cx = this.cellOf(x);
    const cy = this.cellOf(y);
    const cz = this.cellOf(z);
    if (Math.max(Math.abs(cx), Math.abs(cy), Math.abs(cz)) <= MAX_CELL_INDEX) {
      const id = this.cells.find3(cx, cy, cz);
      if (id !== NONE) {
        const info = this.slotInfo;
        const slotBox = this.slotBox;
        const end = this.cellStart[id] + this.cellEntryCount[id];
        for (let s = this.cellStart[id]; s < end; s++) {
          const h = info[s * SLOT];
          if (containsPoint(slotBox, s * 6, x, y, z) && (categories[h] & m) !== 0) out[found++] = items[h] as T;
        }
      }
    }
    for (let i = 0; i < this.overflowCount; i++) {
      const h = this.overflow[i];
      if (containsPoint(boxes, h * 6, x, y, z) && (categories[h] & m) !== 0) out[found++] = items[h] as T;
    }
    out.length = found;
    return out;
  }

  /**
   * Items whose box intersects the query box (closed: touching counts).
   * O(cells covered + items in them + overflow items); a query covering more
   * cells than are occupied scans the occupied cells instead.
   * @param out - emptied, filled and returned.
   * @param mask - only items with `(category & mask) !== 0` are reported; default every bit.
   * @throws RangeError if a coordinate is not finite, a min exceeds its max, or mask is not a 32-bit integer.
   */
  queryBox(
    minX: number,
    minY: number,
    minZ: number,
    maxX: number,
    maxY: number,
    maxZ: number,
    out: T[] = [],
    mask: number = ALL_BITS,
  ): T[] {
    checkArray('out', out);
    checkBox3(minX, minY, minZ, maxX, maxY, maxZ);
    const m = toBits('mask', mask);
    out.length = this.collect(minX, minY, minZ, maxX, maxY, maxZ, 0, 0, 0, -1, m, out, undefined);
    return out;
  }

  /**
   * Calls `visit(item, id)` for every item whose box intersects the query box
   * (closed), each once, without building an array; return `true` to stop
   * early. Same rules as {@link SpatialHash2D.forEachOverlap}.
   * @returns true if `visit` stopped the walk.
   * @throws RangeError as {@link SpatialHash3D.queryBox}, or if visit is not a function.
   */
  forEachOverlap(
    minX: number,
    minY: number,
    minZ: number,
    maxX: number,
    maxY: number,
    maxZ: number,
    visit: OverlapVisitor<T>,
    mask: number = ALL_BITS,
  ): boolean {
    checkBox3(minX, minY, minZ, maxX, maxY, maxZ);
    const m = toBits('mask', mask);
    if (typeof visit !== 'function') throw new RangeError(`visit must be a function, got ${describeValue(visit)}`);
    this.visiting++;
    try {
      return this.collect(minX, minY, minZ, maxX, maxY, maxZ, 0, 0, 0, -1, m, undefined, visit) < 0;
    } finally {
      this.visiting--;
    }
  }

  /**
   * Items whose box is within Euclidean distance `radius` of (x, y, z): the
   * distance from the point to the nearest point of the box, 0 inside it.
   * @param radius - a number >= 0 (Infinity returns everything).
   * @param out - emptied, filled and returned.
   * @param mask - only items with `(category & mask) !== 0` are reported; default every bit.
   * @throws RangeError if a coordinate is not finite, radius is negative or NaN, or mask is not a 32-bit integer.
   */
  queryRadius(x: number, y: number, z: number, radius: number, out: T[] = [], mask: number = ALL_BITS): T[] {
    checkArray('out', out);
    checkFinite('x', x);
    checkFinite('y', y);
    checkFinite('z', z);
    checkDistance('radius', radius);
    const m = toBits('mask', mask);
    if (!isOrdinaryRadius(radius)) {
      // Its square overflows or is below 2^-896: the cold path (see core/distance.ts).
      out.length = radiusExtreme(this, [x, y, z], radius, m, out);
      return out;
    }
    const pad = radiusPad(radius, Math.abs(x) + Math.abs(y) + Math.abs(z));
    out.length = this.collect(
      x - pad,
      y - pad,
      z - pad,
      x + pad,
      y + pad,
      z + pad,
      x,
      y,
      z,
      radius * radius,
      m,
      out,
      undefined,
    );
    return out;
  }

  /**
   * The nearest item whose box the ray from (ox, oy, oz) along (dx, dy, dz)
   * hits, with the distance from the origin to where the ray enters the box (0
   * when the origin is inside it). Boxes are closed: grazing a face, edge or
   * corner is a hit. The walk stops as soon as no nearer hit is possible, and an
   * infinite ray stops where it leaves the stored cells. Ties: any of them.
   * O(cells crossed up to the hit + items in them + overflow items), bounded by
   * O(items) for very sparse data.
   * @param dx - direction; need not be normalised (any finite non-zero vector).
   * @param maxDistance - a hit counts when its distance is <= this, in coordinate units. Default Infinity.
   * @returns the hit, or undefined when nothing is hit.
   * @param mask - only items with `(category & mask) !== 0` can be hit; default every bit.
   * @param predicate - when given, only items for which it returns true can be hit: the nearest such hit, exactly.
   * @throws RangeError if the origin or direction is not finite, the direction is zero, maxDistance is negative or NaN,
   * mask is not a 32-bit integer or predicate is not a function.
   */
  raycast(
    ox: number,
    oy: number,
    oz: number,
    dx: number,
    dy: number,
    dz: number,
    maxDistance = Number.POSITIVE_INFINITY,
    mask: number = ALL_BITS,
    predicate?: ItemPredicate<T>,
  ): RayHit<T> | undefined {
    return raycast(this, ox, oy, oz, dx, dy, dz, maxDistance, mask, predicate);
  }

  /**
   * Every item whose box the ray hits within maxDistance, each once, ascending by
   * distance (equal distances in any order). Same rules as
   * {@link SpatialHash3D.raycast}. O(cells crossed + items in them + overflow
   * items + hits log hits).
   * @param out - emptied, filled and returned; RayHit objects already in it are
   * reused (overwritten), so casting every frame into the same array allocates nothing.
   * @throws RangeError as {@link SpatialHash3D.raycast}.
   */
  raycastAll(
    ox: number,
    oy: number,
    oz: number,
    dx: number,
    dy: number,
    dz: number,
    maxDistance = Number.POSITIVE_INFINITY,
    out: RayHit<T>[] = [],
    mask: number = ALL_BITS,
    predicate?: ItemPredicate<T>,
  ): RayHit<T>[] {
    return raycastAll(this, ox, oy, oz, dx, dy, dz, maxDistance, out, mask, predicate);
  }

  /**
   * Calls `visit(cx, cy, cz, enter, exit)` for every cell the ray passes
   * through, in order along the ray (exact voxel traversal, Amanatides and Woo),
   * where `enter` / `exit` are distances from the origin in coordinate units.
   * Cells the ray only touches at an edge or corner are visited too (with
   * enter === exit), so every cell that can hold an item the ray touches is
   * visited. Cells are `Math.floor(coordinate / cellSize)`, as the hash stores.
   * With a finite maxDistance the whole segment is walked, occupied or not;
   * with Infinity the walk ends where the ray leaves the cells that hold items
   * (nothing is visited when no item is in cells). Return `true` from `visit`
   * to stop early. Do not insert, update or remove while visiting.
   * O(cells visited).
   * @throws RangeError as {@link SpatialHash3D.raycast}, or if visit is not a function.
   */
  forEachCellOnRay(
    ox: number,
    oy: number,
    oz: number,
    dx: number,
    dy: number,
    dz: number,
    maxDistance: number,
    visit: CellOnRayVisitor3D,
  ): void {
    forEachCellOnRay(this, ox, oy, oz, dx, dy, dz, maxDistance, visit);
  }

  /**
   * Up to k items nearest to (x, y, z), ascending by the distance from the
   * point to their boxes (0 inside; the float formula of
   * {@link SpatialHash3D.queryRadius}), keeping only those within maxDistance.
   * Items at the same distance come in any order. Searches shells of cells
   * outward and stops when the next shell cannot hold anything nearer; with
   * sparse data it scans the occupied cells instead, so a nearest item far away
   * costs O(occupied cells), not O(empty cells).
   * @param k - a non-negative integer, default 1; 0 returns nothing, more than `size` returns everything in range.
   * @param maxDistance - in coordinate units, default Infinity.
   * @param out - emptied, filled and returned.
   * @throws RangeError if a coordinate is not finite, k is not a non-negative integer, or maxDistance is negative or NaN.
   */
  nearest(
    x: number,
    y: number,
    z: number,
    k = 1,
    maxDistance = Number.POSITIVE_INFINITY,
    out: T[] = [],
    mask: number = ALL_BITS,
    predicate?: ItemPredicate<T>,
  ): T[] {
    return nearest(this, x, y, z, k, maxDistance, out, mask, predicate);
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
   * Rebuilds a hash from {@link SpatialHash3D.toData}: same options, items,
   * ids (and the order in which free ids are reused), boxes, categories and
   * masks, so every query gives the same answer. `decodeItem` inverts the
   * `encodeItem` given to toData. O(items + cells).
   * @throws Error naming the problem if `data` is not a valid 3D snapshot.
   */
  static from<U>(data: SpatialHashData, options?: FromDataOptions<U>): SpatialHash3D<U> {
    const d = checkData(data, 3, options);
    const hash = new SpatialHash3D<U>({
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
   * other (see {@link SpatialHash2D.forEachPair}), in no particular order: the
   * broadphase of a collision system. Overflow items pair with everything they
   * touch. The visitor may run queries; insert, update, remove or clear from inside
   * it throw an Error. As in 2D, the pairs are kept between calls, and when
   * at most a quarter of the items changed since the last call only theirs
   * are found again: O(pairs + changed items x their cells). Otherwise
   * O(occupied cells + sum over cells of entries^2 + overflow items x (items or cells they cover)).
   *
   * With `{ shape: 'ball' }` a pair is reported only when the spheres
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
   * Shared body of the box and radius queries; see SpatialHash2D's. Returns
   * the count written to `out`, or -1 when `visit` stopped the walk.
   */
  private collect(
    minX: number,
    minY: number,
    minZ: number,
    maxX: number,
    maxY: number,
    maxZ: number,
    x: number,
    y: number,
    z: number,
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
    this.nextStamp();
    syncSlots(this);
    const cx0 = Math.max(this.cellOf(minX), -MAX_CELL_INDEX);
    const cy0 = Math.max(this.cellOf(minY), -MAX_CELL_INDEX);
    const cz0 = Math.max(this.cellOf(minZ), -MAX_CELL_INDEX);
    const cx1 = Math.min(this.cellOf(maxX), MAX_CELL_INDEX);
    const cy1 = Math.min(this.cellOf(maxY), MAX_CELL_INDEX);
    const cz1 = Math.min(this.cellOf(maxZ), MAX_CELL_INDEX);
    if (cx0 > cx1 || cy0 > cy1 || cz0 > cz1) {
      // The range lies wholly past the stored cells; only overflow items can match.
    } else if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) * (cz1 - cz0 + 1) > cells.size) {
      const keys = cells.keys;
      for (let id = 0; id < cells.idLimit; id++) {
        const n = cellEntryCount[id];
        if (n === 0) continue;
        const k = id * 3;
        if (keys[k] < cx0 || keys[k] > cx1 || keys[k + 1] < cy0 || keys[k + 1] > cy1) continue;
        if (keys[k + 2] < cz0 || keys[k + 2] > cz1) continue;
        const need = startsNeeded3(keys[k] === cx0, keys[k + 1] === cy0, keys[k + 2] === cz0);
        for (let slot = cellStart[id], end = slot + n; slot < end; slot++) {
          if ((info[slot * SLOT + SLOT_STARTS] & need) !== need) continue;
          if (!keep(slotBox, slot * 6, minX, minY, minZ, maxX, maxY, maxZ, x, y, z, r2)) continue;
          const h = info[slot * SLOT];
          if ((categories[h] & m) === 0) continue;
          if (out !== undefined) out[found++] = items[h] as T;
          else if (this.callOut(visit as OverlapVisitor<T>, h)) return -1;
        }
      }
    } else {
      for (let cx = cx0; cx <= cx1; cx++) {
        for (let cy = cy0; cy <= cy1; cy++) {
          for (let cz = cz0; cz <= cz1; cz++) {
            const id = cells.find3(cx, cy, cz);
            if (id === NONE) continue;
            const need = startsNeeded3(cx === cx0, cy === cy0, cz === cz0);
            for (let slot = cellStart[id], end = slot + cellEntryCount[id]; slot < end; slot++) {
              if ((info[slot * SLOT + SLOT_STARTS] & need) !== need) continue;
              if (!keep(slotBox, slot * 6, minX, minY, minZ, maxX, maxY, maxZ, x, y, z, r2)) continue;
              const h = info[slot * SLOT];
              if ((categories[h] & m) === 0) continue;
              if (out !== undefined) out[found++] = items[h] as T;
              else if (this.callOut(visit as OverlapVisitor<T>, h)) return -1;
            }
          }
        }
      }
    }
    for (let i = 0; i < this.overflowCount; i++) {
      const h = this.overflow[i];
      if ((categories[h] & m) === 0 || !keep(boxes, h * 6, minX, minY, minZ, maxX, maxY, maxZ, x, y, z, r2)) continue;
      if (out !== undefined) out[found++] = items[h] as T;
      else if (this.callOut(visit as OverlapVisitor<T>, h)) return -1;
    }
    return found;
  }

  /** Files handle `h` under every cell of its box, or in the overflow list when that is too many. */
  protected link(h: number): void {
    const b = h * 6;
    const boxes = this.boxes;
    const cx0 = this.cellOf(boxes[b]);
    const cy0 = this.cellOf(boxes[b + 1]);
    const cz0 = this.cellOf(boxes[b + 2]);
    const cx1 = this.cellOf(boxes[b + 3]);
    const cy1 = this.cellOf(boxes[b + 4]);
    const cz1 = this.cellOf(boxes[b + 5]);
    if (
      !(Math.max(-cx0, cx1, -cy0, cy1, -cz0, cz1) <= MAX_CELL_INDEX) ||
      (cx1 - cx0 + 1) * (cy1 - cy0 + 1) * (cz1 - cz0 + 1) > this.maxCellsPerItem
    ) {
      this.addOverflow(h);
      return;
    }
    this.growCellBounds(0, cx0, cx1);
    this.growCellBounds(1, cy0, cy1);
    this.growCellBounds(2, cz0, cz1);
    for (let cx = cx0; cx <= cx1; cx++) {
      for (let cy = cy0; cy <= cy1; cy++) {
        for (let cz = cz0; cz <= cz1; cz++)
          addEntry(this, h, this.cells.insert3(cx, cy, cz), startBits3(cx, cy, cz, cx0, cy0, cz0));
      }
    }
  }
}

/**
 * The start bits a slot needs in a cell of a query's range for its item to be
 * reported there: on an axis where the cell is not the range's first, the
 * item's own range must start at the cell (the lowest shared cell).
 */
function startsNeeded3(firstX: boolean, firstY: boolean, firstZ: boolean): number {
  return (firstX ? 0 : 1) | (firstY ? 0 : 2) | (firstZ ? 0 : 4);
}

/** The start bits of a slot: on which axes the item's cell range starts at cell (cx, cy, cz). */
function startBits3(cx: number, cy: number, cz: number, cx0: number, cy0: number, cz0: number): number {
  return (cx === cx0 ? 1 : 0) | (cy === cy0 ? 2 : 0) | (cz === cz0 ? 4 : 0);
}

/** Category and mask read from an insert's filter argument (scratch: insert allocates nothing for it). */
const FILTER = new Int32Array(2);

function containsPoint(boxes: Float64Array, b: number, x: number, y: number, z: number): boolean {
  return (
    boxes[b] <= x &&
    x <= boxes[b + 3] &&
    boxes[b + 1] <= y &&
    y <= boxes[b + 4] &&
    boxes[b + 2] <= z &&
    z <= boxes[b + 5]
  );
}

/** The box test, or the distance test when r2 >= 0 (a radius query). */
function keep(
  boxes: Float64Array,
  b: number,
  minX: number,
  minY: number,
  minZ: number,
  maxX: number,
  maxY: number,
  maxZ: number,
  x: number,
  y: number,
  z: number,
  r2: number,
): boolean {
  if (r2 < 0) {
    return (
      boxes[b] <= maxX &&
      minX <= boxes[b + 3] &&
      boxes[b + 1] <= maxY &&
      minY <= boxes[b + 4] &&
      boxes[b + 2] <= maxZ &&
      minZ <= boxes[b + 5]
    );
  }
  const dx = boxes[b] > x ? boxes[b] - x : x > boxes[b + 3] ? x - boxes[b + 3] : 0;
  const dy = boxes[b + 1] > y ? boxes[b + 1] - y : y > boxes[b + 4] ? y - boxes[b + 4] : 0;
  const dz = boxes[b + 2] > z ? boxes[b + 2] - z : z > boxes[b + 5] ? z - boxes[b + 5] : 0;
  return dx * dx + dy * dy + dz * dz <= r2;
}

/**
 * The box of an insert or a move, handed from `insert` to `add` and from
 * `update` / `updateById` to `move` without boxing its numbers (see
 * SpatialHash2D's move). Written after every check that can run user code
 * and read before anything can write it again.
 */
const NEW_BOX = new Float64Array(6);
