/**
 * What SpatialHash2D and SpatialHash3D share: item bookkeeping, the cell
 * table, the entries and the overflow list (the cell runs' operations are in
 * cell-runs.ts). Nothing here depends on the
 * dimension except the number of box coordinates per item; the loops over cell
 * ranges, which do, live in the 2D and 3D classes.
 *
 * Layout ("grid coordinates -> hash map -> one contiguous run per cell"):
 * - an item gets a dense handle, which is also its public id; its box, query
 *   stamp, category, mask and links (home position, its cell, first other
 *   entry, overflow position: one record of four ints) sit in typed arrays indexed by
 *   the handle. Its cell range is not stored: `floor(box / cellSize)` gives it
 *   again, and recomputing it costs less than a cache miss on another array;
 * - a cell is a dense id from {@link CellTable}; its slots are one run
 *   `[cellStart, cellStart + cellEntryCount)` of a shared slot pool, each slot
 *   holding the handle, a copy of the item's box and on which axes the item's
 *   cell range starts at this cell. Queries and forEachPair read a cell as one
 *   stretch of memory instead of chasing a list through the item arrays;
 * - an item's first cell is its home: the cell id and the slot's position in
 *   the cell's run sit in the item's own links record, so an item in one cell
 *   (a point, a small box: most of them in a game) needs nothing else, and an
 *   insert, move or remove of it touches the item's record, the cell and the
 *   slot only. Each further cell is an entry recording its cell and position;
 *   an item's entries are chained, so a move rewrites its slots' boxes and a
 *   remove empties its slots in O(1) each, without searching any cell. A slot
 *   leaves its run by taking the run's last slot into its place, and a slot
 *   names its owner (an entry, or the complement of the handle for a home) so
 *   that slot can tell its owner its new position;
 * - a run that fills up moves to a run with twice the room: one that another
 *   cell outgrew, kept on a free list per size, or else at the end of the
 *   pool; the pool is compacted (and grown) only when its end is reached.
 *   Positions are relative to the run, so a run moved as a whole is a block
 *   copy and no owner hears of it. A released cell id keeps its run for the
 *   next cell to get that id;
 * - a cell whose last slot leaves stays in the table, empty, so an item
 *   crossing back and forth over a border does not delete and re-create it;
 *   empty cells are purged when they outnumber the occupied ones;
 * - a move that stays in the same cells writes only the item's own box and
 *   puts the item on a "moved" list; the box copies in its slots are written
 *   when something next reads the runs (a query or forEachPair), so an item
 *   moved many times between reads is copied once;
 * - runs are kept sorted by minX lazily: forEachPair insertion-sorts each run
 *   in place before sweeping it, which costs next to nothing when few items
 *   moved since the last call (the common case in a game);
 * - forEachPair keeps its pairs for the next call, and every change flags
 *   its handle, so a call after few changes finds only the flagged items'
 *   pairs (pair-cache.ts);
 * - freed handles and entries go on free lists and are reused, so churn does not
 *   grow memory.
 *
 * @module
 */

import { CellTable } from '../core/cell-table.js';
import { grownPrefix } from '../core/grow.js';
import { checkInteger, checkPositive, describe } from '../core/validate.js';
import { dropCells, LINKS, OVERFLOW_POS, purgeEmptyCells, SLOT } from './cell-runs.js';
import { ALL_BITS, DEFAULT_CATEGORY, isDefaultFilter, toBits } from './filter.js';
import { ItemIndex } from './item-index.js';
import { DEFAULT_MAX_CELLS_PER_ITEM, MAX_CELLS_PER_ITEM_LIMIT, type SpatialHashOptions } from './options.js';
import { PairCache } from './pair-cache.js';
import type { RayWalker } from './ray-walker.js';

const NONE = -1;

/**
 * Half-width of the cell range a radius query must search around its centre:
 * besides the radius, a few ulps of rounding in `x - r` (relative to the
 * coordinates' magnitude) and an absolute 1e-150, more than any radius of the
 * cold path for tiny radii needs (core/distance.ts; that path tests what it
 * finds exactly). A radius whose square overflows searches everything, and
 * its cold path tests each item exactly.
 *
 * @internal
 */
export function radiusPad(radius: number, magnitude: number): number {
  if (radius * radius === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  return radius + (magnitude + radius) * 2 ** -48 + 1e-150;
}

/**
 * Base of the dynamic spatial hashes; not exported from the package. Fields are
 * public to the library's own modules (queries split by operation), not to users.
 */
export abstract class SpatialHashBase<T> implements Iterable<T> {
  /** Edge length of a cell, in coordinate units. */
  readonly cellSize: number;
  /** Items covering more cells than this go to the overflow list. */
  readonly maxCellsPerItem: number;

  /** @internal 2 or 3. */
  readonly dim: 2 | 3;
  /** @internal Box coordinates per item: 4 in 2D, 6 in 3D (all mins, then all maxes). */
  readonly boxStride: number;
  /** @internal Cell coordinates to cell ids. */
  readonly cells: CellTable;
  /** @internal First slot of each cell's run in the slot pool, by cell id. */
  cellStart: Int32Array;
  /** @internal Slots in use in each cell's run, by cell id; a cell leaves the table when it drops to 0. */
  cellEntryCount: Int32Array;
  /** @internal Slots reserved for each cell's run, by cell id (kept by a released id for its next cell). */
  cellCapacity: Int32Array;
  /** @internal 1 while a cell id is in the table, occupied or empty. */
  cellListed: Uint8Array;
  /** @internal Number of cells holding at least one slot. */
  occupiedCells = 0;
  /** @internal Live items whose category or mask is not the default: forEachPair skips the filter reads while 0. */
  filteredCount = 0;
  /** @internal Item by handle; `undefined` for a free handle (check `alive`). */
  items: (T | undefined)[] = [];
  /** @internal Handle by item; kept only when {@link trackItems}. */
  readonly handles = new ItemIndex<T>();
  /** Whether the item-to-id Map is kept (option `trackItems`, default true): the item-keyed methods need it. */
  readonly trackItems: boolean;
  /** @internal Number of live handles. */
  itemCount = 0;
  /** @internal 1 for a live handle. */
  alive: Uint8Array;
  /** @internal Stored boxes: minX, minY[, minZ], maxX, maxY[, maxZ] per handle. */
  boxes: Float64Array;
  /**
   * @internal Per handle, {@link LINKS} ints read together: home slot (-1 when
   * in no cell), home cell id, first entry of its other cells (-1 when none),
   * position in `overflow` (-1 when it lives in cells).
   */
  itemLinks: Int32Array;
  /** @internal Query stamp per handle: a handle is reported once per query. */
  stamps: Uint32Array;
  /** @internal Collision category bits per handle (32 bits, signed). */
  categories: Int32Array;
  /** @internal Collision mask bits per handle (32 bits, signed). */
  masks: Int32Array;
  /** @internal Handles of the overflow items, dense. */
  overflow: Int32Array;
  /** @internal Number of overflow items. */
  overflowCount = 0;
  /** @internal One past the highest handle ever used. */
  handleLimit = 0;

  /** @internal Cell id of each entry, or -1 for a free entry. */
  entryCell: Int32Array;
  /** @internal Position of each entry's slot in its cell's run (the slot is `cellStart[cell] + position`). */
  entryPos: Int32Array;
  /** @internal Next entry of the same item, or -1; doubles as the free-list link. */
  entryItemNext: Int32Array;
  /** @internal Number of slots in use: homes and entries. */
  entryCount = 0;

  /**
   * @internal Per slot of the pool, {@link SLOT} ints read together: the
   * handle of its item, its owner (an entry, or `~h` for the home slot of
   * handle h; a slot that moves tells it where it went) and a bit per axis on
   * which the item's cell range starts at the slot's cell (offsets
   * SLOT_HANDLE, SLOT_OWNER, SLOT_STARTS).
   */
  slotInfo: Int32Array;
  /** @internal Copy of the item's box per slot, `boxStride` numbers each, for contiguous reads. */
  slotBox: Float64Array;
  /** @internal Handles whose slots may hold an old box copy (each once; see {@link syncSlots}). */
  moved: Int32Array;
  /** @internal Number of handles in {@link moved}. */
  movedCount = 0;
  /** @internal 1 for a handle in {@link moved}. */
  movedFlag: Uint8Array;
  /** @internal Slots of the pool handed out so far: runs lie below it. */
  poolUsed = 0;
  /** @internal Slots reserved by the runs of cell ids (the rest below poolUsed is abandoned). */
  poolLive = 0;
  /**
   * @internal Abandoned runs free for reuse, by capacity class (log2 of the
   * capacity): the start of the first, whose first slot holds the next, or -1.
   */
  freeRuns = new Int32Array(32).fill(NONE);

  /**
   * @internal Conservative cell bounds of everything stored in cells: minX,
   * minY, minZ, maxX, maxY, maxZ (z unused in 2D). They only grow while items
   * come and go and reset when the hash empties, so an infinite ray or a
   * nearest search knows where stored cells can no longer be. Empty: min > max.
   */
  readonly cellBounds = new Float64Array([
    Number.POSITIVE_INFINITY,
    Number.POSITIVE_INFINITY,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ]);
  /** @internal Scratch max-heap of nearest(): squared distances. */
  heapDistance = new Float64Array(16);
  /** @internal Scratch max-heap of nearest(): handles. */
  heapHandle = new Int32Array(16);
  /** @internal Scratch of raycastAll(): entry parameter of each hit. */
  hitParameter = new Float64Array(16);
  /** @internal Scratch of raycastAll(): handle of each hit. */
  hitHandle = new Int32Array(16);
  /** @internal Reused cell walker of the ray queries (created on first use). */
  rayWalker: RayWalker | undefined = undefined;

  /** @internal forEachPair's pairs kept between calls (see pair-cache.ts). */
  readonly pairCache = new PairCache();

  /** @internal How many forEach / forEachPair calls are running: the hash must not change under them. */
  visiting = 0;
  /**
   * @internal How many stamped walks are calling user code (a predicate or a
   * forEachOverlap visitor): a nested stamped query would overwrite the stamps
   * they rely on, so {@link nextStamp} refuses while this is > 0.
   */
  callingOut = 0;
  /** @internal Bumped by every insert, remove and clear: a `for...of` loop checks it on each step. */
  changes = 0;

  /** @internal Free handles; the last one is reused first. */
  freeHandles: Int32Array;
  /** @internal Number of free handles. */
  freeHandleCount = 0;
  /** @internal Head of the free entry list (linked through entryItemNext), or -1. */
  freeEntry = NONE;
  /** @internal One past the highest entry ever used (free entries below it have entryCell -1). */
  entryLimit = 0;
  private stamp = 0;

  protected constructor(dim: 2 | 3, options: SpatialHashOptions) {
    if (options === null || typeof options !== 'object') {
      throw new RangeError(`options must be an object with a cellSize, got ${describe(options)}`);
    }
    const { cellSize, maxCellsPerItem = DEFAULT_MAX_CELLS_PER_ITEM, initialCapacity = 64, trackItems = true } = options;
    checkPositive('cellSize', cellSize);
    checkInteger('maxCellsPerItem', maxCellsPerItem, 1, MAX_CELLS_PER_ITEM_LIMIT);
    checkInteger('initialCapacity', initialCapacity, 0, 2 ** 28);
    if (typeof trackItems !== 'boolean')
      throw new RangeError(`trackItems must be a boolean, got ${describe(trackItems)}`);
    this.trackItems = trackItems;
    this.cellSize = cellSize;
    this.maxCellsPerItem = maxCellsPerItem;
    this.dim = dim;
    this.boxStride = dim * 2;
    const items = Math.max(16, initialCapacity);
    this.cells = new CellTable(dim, items);
    this.cellStart = new Int32Array(this.cells.capacity);
    this.cellEntryCount = new Int32Array(this.cells.capacity);
    this.cellCapacity = new Int32Array(this.cells.capacity);
    this.cellListed = new Uint8Array(this.cells.capacity);
    this.alive = new Uint8Array(items);
    this.boxes = new Float64Array(items * this.boxStride);
    // Nothing is filled: a handle gets its links and filter when it is first
    // handed out (allocateHandle), so reserved room costs no page until used.
    this.itemLinks = new Int32Array(items * LINKS);
    this.stamps = new Uint32Array(items);
    this.categories = new Int32Array(items);
    this.masks = new Int32Array(items);
    this.overflow = new Int32Array(16);
    this.freeHandles = new Int32Array(items);
    this.moved = new Int32Array(items);
    this.movedFlag = new Uint8Array(items);
    // Most items sit in one cell and need no entry. Slots: four per item,
    // because runs are powers of two and move when they double, so a world
    // that reaches the hinted size is not repacked on the way (two per item
    // cost a repack in the churn benchmark). Room never written costs
    // address space, not memory.
    const entries = Math.max(16, items >> 1);
    this.entryCell = new Int32Array(entries);
    this.entryPos = new Int32Array(entries);
    this.entryItemNext = new Int32Array(entries);
    const slots = items * 4;
    this.slotInfo = new Int32Array(slots * SLOT);
    this.slotBox = new Float64Array(slots * this.boxStride);
  }

  /** Number of items stored. O(1). */
  get size(): number {
    return this.itemCount;
  }

  /** Number of occupied cells (cells holding at least one entry). O(1). */
  get cellCount(): number {
    return this.occupiedCells;
  }

  /** Number of items kept in the overflow list (boxes covering more than `maxCellsPerItem` cells). O(1). */
  get overflowSize(): number {
    return this.overflowCount;
  }

  /** Whether `item` is stored (compared with SameValueZero, like a Map key). O(1). */
  has(item: T): boolean {
    this.checkTracked('has');
    return this.handles.has(item);
  }

  /**
   * Removes `item`. O(number of cells it covers).
   * @returns true if it was present, false (and nothing changes) otherwise.
   */
  remove(item: T): boolean {
    this.checkWritable('remove');
    this.checkTracked('remove');
    const h = this.handles.get(item);
    if (h === NONE) return false;
    this.release(h, item);
    return true;
  }

  /**
   * Removes the item with this id; the id becomes free and a later insert may
   * reuse it. O(number of cells it covers), with no lookup by item.
   * @returns the removed item.
   * @throws RangeError if `id` is not the id of a stored item.
   */
  removeById(id: number): T {
    this.checkId(id, 'removeById');
    this.checkWritable('removeById');
    const item = this.items[id] as T;
    this.release(id, item);
    return item;
  }

  /**
   * The item stored under `id`. O(1).
   * @throws RangeError if `id` is not the id of a stored item.
   */
  itemById(id: number): T {
    this.checkId(id, 'itemById');
    return this.items[id] as T;
  }

  /**
   * Whether `id` names a stored item. O(1). A removed id is free until an
   * insert reuses it: then it names the new item.
   */
  hasId(id: number): boolean {
    return typeof id === 'number' && this.alive[id] === 1;
  }

  /** The id of a stored `item` (one item-index lookup), or -1 if it is absent. O(1). */
  idOf(item: T): number {
    this.checkTracked('idOf');
    return this.handles.get(item);
  }

  /**
   * Collision category of the item with this id, as an unsigned 32-bit integer. O(1).
   * @throws RangeError if `id` is not the id of a stored item.
   */
  categoryOf(id: number): number {
    this.checkId(id, 'categoryOf');
    return this.categories[id] >>> 0;
  }

  /**
   * Collision mask of the item with this id, as an unsigned 32-bit integer. O(1).
   * @throws RangeError if `id` is not the id of a stored item.
   */
  maskOf(id: number): number {
    this.checkId(id, 'maskOf');
    return this.masks[id] >>> 0;
  }

  /**
   * Sets the collision category and mask of a stored `item` (see
   * `setFilterById`). O(1) after the item lookup.
   * @throws RangeError if category or mask is not a 32-bit integer.
   * @throws Error if `item` is not present.
   */
  setFilter(item: T, category: number, mask: number): void {
    this.setFilterAt(this.handleOf(item, 'setFilter'), category, mask, 'setFilter');
  }

  /**
   * Sets the collision category and mask of the item with this id. Two items
   * pair in forEachPair when `(a.category & b.mask) !== 0 && (b.category &
   * a.mask) !== 0`; a query with a mask reports an item when `(item.category &
   * mask) !== 0`. Both are integers in [-2^31, 2^32 - 1] read as 32 bits. O(1).
   * @throws RangeError if `id` is not the id of a stored item, or category or mask is not a 32-bit integer.
   */
  setFilterById(id: number, category: number, mask: number): void {
    this.checkId(id, 'setFilterById');
    this.setFilterAt(id, category, mask, 'setFilterById');
  }

  private setFilterAt(h: number, category: number, mask: number, method: string): void {
    const c = toBits('category', category);
    const m = toBits('mask', mask);
    this.checkWritable(method);
    this.setFilterBits(h, c, m);
    this.pairCache.touch(h);
  }

  /** @internal Stores the filter of handle `h`, keeping {@link filteredCount} up to date. */
  setFilterBits(h: number, category: number, mask: number): void {
    const was = !isDefaultFilter(this.categories[h], this.masks[h]);
    const is = !isDefaultFilter(category, mask);
    this.categories[h] = category;
    this.masks[h] = mask;
    this.filteredCount += (is ? 1 : 0) - (was ? 1 : 0);
  }

  /**
   * @internal Calls a forEachOverlap visitor for handle `h` from inside a
   * stamped walk; true when it asks to stop.
   */
  callOut(visit: (item: T, id: number) => unknown, h: number): boolean {
    this.callingOut++;
    try {
      return visit(this.items[h] as T, h) === true;
    } finally {
      this.callingOut--;
    }
  }

  /** @internal Throws inside a predicate or forEachOverlap visitor, where nearest and ray queries may not run. */
  checkNotCallingOut(method: string): void {
    if (this.callingOut > 0) {
      throw new Error(
        `${method}: a box, radius, nearest or ray query cannot run inside a predicate or a forEachOverlap visitor`,
      );
    }
  }

  /** @internal Frees handle `h` of the stored `item` (passed: the caller has it, so items[h] is not read again). */
  protected release(h: number, item: T): void {
    this.unlink(h);
    if (this.trackItems) this.handles.delete(item);
    // With no filtered item, h's filter is the default already: no reads.
    if (this.filteredCount > 0) this.setFilterBits(h, DEFAULT_CATEGORY, ALL_BITS);
    this.items[h] = undefined;
    this.alive[h] = 0;
    this.freeHandles[this.freeHandleCount++] = h;
    this.changes++;
    this.pairCache.touch(h);
    if (--this.itemCount === 0) {
      purgeEmptyCells(this);
      this.resetCellBounds();
    }
  }

  /**
   * @internal Throws a RangeError naming `id` unless it is the id of a stored
   * item. `alive[id]` is undefined for anything that is not an index in range
   * (negative, fractional, NaN), so one typed-array read decides.
   */
  checkId(id: number, method: string): void {
    if (typeof id !== 'number' || this.alive[id] !== 1) {
      throw new RangeError(`${method}: id must be the id of a stored item, got ${describe(id)}`);
    }
  }

  /** Removes every item. Keeps the memory for reuse. O(cell capacity + ids used since the last clear). */
  clear(): void {
    this.checkWritable('clear');
    this.pairCache.drop();
    this.handles.clear();
    this.itemCount = 0;
    this.cells.clear();
    // Cell ids keep their runs, as released ids do: the table hands ids out
    // again from 0, so a refilled hash finds its runs grown already instead
    // of doubling them again (8% of a refill in the churn stream).
    this.cellEntryCount.fill(0);
    this.cellListed.fill(0);
    this.occupiedCells = 0;
    this.filteredCount = 0;
    this.movedCount = 0;
    // Only handles below handleLimit were ever written; every handle is
    // fresh again after this, and allocateHandle writes a fresh handle's
    // links and filter, so those need no reset.
    this.movedFlag.fill(0, 0, this.handleLimit);
    this.items.length = 0;
    this.changes++;
    this.alive.fill(0, 0, this.handleLimit);
    this.overflowCount = 0;
    this.handleLimit = 0;
    this.freeHandleCount = 0;
    this.freeEntry = NONE;
    this.entryLimit = 0;
    this.entryCount = 0;
    this.resetCellBounds();
  }

  /**
   * Iterates over every item once, in ascending id order. Fail-fast: an
   * insert, remove or clear while a loop runs makes its next step throw an
   * Error (the call itself succeeds), instead of silently yielding new items or
   * skipping some. update, updateById and setFilter are allowed. To change the
   * set while walking it, iterate a copy: `for (const x of [...hash])`.
   */
  *[Symbol.iterator](): IterableIterator<T> {
    const changes = this.changes;
    for (let h = 0; h < this.handleLimit; h++) {
      if (this.alive[h] !== 1) continue;
      yield this.items[h] as T;
      if (this.changes !== changes)
        throw new Error('for...of: the hash changed (insert, remove or clear) during the loop');
    }
  }

  /**
   * Calls `visit(item)` for every item once, in no particular order. Faster than
   * `for...of`. The visitor may query the hash; insert, update, remove or
   * clear from inside it throw an Error.
   */
  forEach(visit: (item: T) => void): void {
    this.visiting++;
    try {
      for (let h = 0; h < this.handleLimit; h++) {
        if (this.alive[h] === 1) visit(this.items[h] as T);
      }
    } finally {
      this.visiting--;
    }
  }

  /** @internal Cell index of one coordinate: floor, never truncation, so cell 0 is not twice as wide. */
  cellOf(coordinate: number): number {
    return Math.floor(coordinate / this.cellSize);
  }

  /**
   * @internal A fresh stamp for a query that may meet an item in several cells.
   * When the counter wraps, every stamp is cleared so no stale one can match.
   */
  nextStamp(): number {
    if (this.callingOut > 0) {
      throw new Error('a box, radius, nearest or ray query cannot run inside a predicate or a forEachOverlap visitor');
    }
    if (this.stamp === 0xffffffff) {
      this.stamps.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }

  /** @internal Handle of a present item, or an Error naming the method. */
  protected handleOf(item: T, method: string): number {
    this.checkTracked(method);
    const h = this.handles.get(item);
    if (h === NONE) throw new Error(`${method}: the item is not in the hash (${describe(item)})`);
    return h;
  }

  /**
   * @internal Throws an Error when called from inside a forEach or forEachPair
   * visitor: their loops walk the very lists a change would relink.
   */
  protected checkWritable(method: string): void {
    if (this.visiting > 0)
      throw new Error(`${method}: the hash cannot change while forEach or forEachPair is visiting it`);
  }

  /** @internal Throws an Error when the hash keeps no item-to-id Map, which `method` needs. */
  protected checkTracked(method: string): void {
    if (!this.trackItems) {
      throw new Error(`${method}: this hash was made with trackItems: false, so it cannot find an item; use its id`);
    }
  }

  /** @internal Throws if `item` is present, before anything changes (not checked without the item Map). */
  protected checkAbsent(item: T): void {
    if (this.trackItems && this.handles.has(item))
      throw new Error(`insert: the item is already in the hash (${describe(item)})`);
  }

  /** @internal Takes a handle for a new item and records it. */
  protected allocateHandle(item: T): number {
    let h: number;
    if (this.freeHandleCount > 0) {
      h = this.freeHandles[--this.freeHandleCount];
    } else {
      if (this.handleLimit === this.alive.length) this.growHandles();
      h = this.handleLimit++;
      this.initHandle(h);
    }
    // A freed handle's links are unset and its category and mask are the
    // defaults already (release resets them), so they are not written: two
    // cache misses fewer.
    this.items[h] = item;
    this.alive[h] = 1;
    if (this.trackItems) this.handles.set(item, h);
    this.itemCount++;
    this.changes++;
    this.pairCache.touch(h);
    return h;
  }

  /** @internal Files handle `h`, whose box is written, under its cells or in the overflow list. */
  protected abstract link(h: number): void;

  /** @internal Widens {@link cellBounds} to a cell range on axis `a` (0, 1 or 2). */
  protected growCellBounds(a: number, lo: number, hi: number): void {
    const bounds = this.cellBounds;
    if (lo < bounds[a]) bounds[a] = lo;
    if (hi > bounds[3 + a]) bounds[3 + a] = hi;
  }

  private resetCellBounds(): void {
    const bounds = this.cellBounds;
    for (let a = 0; a < 3; a++) {
      bounds[a] = Number.POSITIVE_INFINITY;
      bounds[3 + a] = Number.NEGATIVE_INFINITY;
    }
  }

  /** @internal Puts handle `h` on the overflow list. */
  protected addOverflow(h: number): void {
    if (this.overflowCount === this.overflow.length) {
      const grown = new Int32Array(this.overflow.length * 2);
      grown.set(this.overflow);
      this.overflow = grown;
    }
    this.itemLinks[h * LINKS + OVERFLOW_POS] = this.overflowCount;
    this.overflow[this.overflowCount++] = h;
  }

  /** @internal Takes handle `h` out of its cells or the overflow list. Empty cells leave the table. */
  protected unlink(h: number): void {
    const links = this.itemLinks;
    const pos = links[h * LINKS + OVERFLOW_POS];
    if (pos !== NONE) {
      const last = this.overflow[--this.overflowCount];
      this.overflow[pos] = last;
      links[last * LINKS + OVERFLOW_POS] = pos;
      links[h * LINKS + OVERFLOW_POS] = NONE;
      return;
    }
    dropCells(this, h);
  }

  /** @internal Whether handle `h` is in the overflow list. */
  inOverflow(h: number): boolean {
    return this.itemLinks[h * LINKS + OVERFLOW_POS] !== NONE;
  }

  /** @internal Grows the per-handle arrays until they hold at least `n` handles. */
  reserveHandles(n: number): void {
    while (this.alive.length < n) this.growHandles();
  }

  /** @internal Files every live handle (from a snapshot: boxes written, nothing linked yet). */
  linkAll(): void {
    for (let h = 0; h < this.handleLimit; h++) if (this.alive[h] === 1) this.link(h);
  }

  /**
   * @internal Gives a handle at or above the old handleLimit what a free
   * handle has: no links, the default filter. Handles past handleLimit hold
   * whatever clear() left there, or zeros, and nothing reads them.
   */
  initHandle(h: number): void {
    const l = h * LINKS;
    for (let k = 0; k < LINKS; k++) this.itemLinks[l + k] = NONE;
    this.categories[h] = DEFAULT_CATEGORY;
    this.masks[h] = ALL_BITS;
  }

  /**
   * Doubles the per-handle arrays. Only what is in use is copied and nothing
   * is filled, so the new room costs no memory until a handle is handed out
   * (see {@link initHandle}). Stamps matter within one query only and no
   * query is running (changes are refused inside one), so they start again
   * from zero.
   */
  private growHandles(): void {
    const n = this.alive.length * 2;
    const used = this.handleLimit;
    this.alive = grownPrefix(this.alive, n, used);
    this.stamps = new Uint32Array(n);
    this.categories = grownPrefix(this.categories, n, used);
    this.masks = grownPrefix(this.masks, n, used);
    this.itemLinks = grownPrefix(this.itemLinks, n * LINKS, used * LINKS);
    this.freeHandles = grownPrefix(this.freeHandles, n, this.freeHandleCount);
    this.moved = grownPrefix(this.moved, n, this.movedCount);
    this.movedFlag = grownPrefix(this.movedFlag, n, used);
    this.boxes = grownPrefix(this.boxes, n * this.boxStride, used * this.boxStride);
  }
}
