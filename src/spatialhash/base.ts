/**
 * What SpatialHash2D and SpatialHash3D share: item bookkeeping, the cell
 * table, the entry lists and the overflow list. Nothing here depends on the
 * dimension except the number of box coordinates per item; the loops over cell
 * ranges, which do, live in the 2D and 3D classes.
 *
 * Layout ("grid coordinates -> hash map -> linked list in an array"):
 * - an item gets a dense handle, which is also its public id; its box, cell
 *   range, first entry, query stamp, category and mask sit in typed arrays
 *   indexed by the handle;
 * - a cell is a dense id from {@link CellTable}, whose `head` starts a doubly
 *   linked list of entries (one entry per item per cell) in typed arrays;
 * - an item's entries are also chained to each other, so removing it unlinks
 *   each entry in O(1) without searching any cell;
 * - freed handles and entries go on free lists and are reused, so churn does not
 *   grow memory.
 *
 * @module
 */

import { CellTable } from '../core/cell-table.js';
import { checkInteger, checkPositive, describe } from '../core/validate.js';
import { ALL_BITS, DEFAULT_CATEGORY, toBits } from './filter.js';
import { DEFAULT_MAX_CELLS_PER_ITEM, type SpatialHashOptions } from './options.js';
import type { RayWalker } from './ray-walker.js';

const NONE = -1;

/** How far addEntry walks a cell's list to keep it sorted by minX. */
const SORTED_INSERT_STEPS = 32;

/**
 * Half-width of the cell range a radius query must search around its centre.
 * The distance test is `dx*dx + dy*dy <= r*r` in float64, so besides the radius
 * it allows a few ulps of rounding in `x - r` (relative to the coordinates'
 * magnitude) and any gap below ~1.5e-162, whose square underflows to 0 and so
 * passes even for radius 0. A radius whose square overflows admits every box,
 * so its range is everything.
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
  /** @internal First entry of each cell's list by cell id, or -1 (free ids too). */
  cellHead: Int32Array;
  /** @internal Entries in each cell's list by cell id; a cell leaves the table when it drops to 0. */
  cellEntryCount: Int32Array;
  /** @internal Item by handle; `undefined` for a free handle (check `alive`). */
  items: (T | undefined)[] = [];
  /** @internal Handle by item; kept only when {@link trackItems}. */
  readonly handles = new Map<T, number>();
  /** Whether the item-to-id Map is kept (option `trackItems`, default true): the item-keyed methods need it. */
  readonly trackItems: boolean;
  /** @internal Number of live handles. */
  itemCount = 0;
  /** @internal 1 for a live handle. */
  alive: Uint8Array;
  /** @internal Stored boxes: minX, minY[, minZ], maxX, maxY[, maxZ] per handle. */
  boxes: Float64Array;
  /** @internal Cell range per handle, same layout as `boxes`; meaningless for overflow items. */
  ranges: Float64Array;
  /** @internal First entry of each handle's chain, or -1. */
  firstEntry: Int32Array;
  /** @internal Position in `overflow` of each handle, or -1 when it lives in cells. */
  overflowPos: Int32Array;
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

  /** @internal Handle owning each entry. */
  entryHandle: Int32Array;
  /** @internal Cell id of each entry. */
  entryCell: Int32Array;
  /** @internal Next entry in the same cell, or -1; doubles as the free-list link. */
  entryNext: Int32Array;
  /** @internal Previous entry in the same cell, or -1. */
  entryPrev: Int32Array;
  /** @internal Next entry of the same item, or -1. */
  entryItemNext: Int32Array;
  /** @internal Number of entries in use. */
  entryCount = 0;

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
  private freeEntry = NONE;
  /** @internal One past the highest entry ever used (free entries below it have entryCell -1). */
  entryLimit = 0;
  private stamp = 0;

  protected constructor(dim: 2 | 3, options: SpatialHashOptions) {
    if (options === null || typeof options !== 'object') {
      throw new RangeError(`options must be an object with a cellSize, got ${describe(options)}`);
    }
    const { cellSize, maxCellsPerItem = DEFAULT_MAX_CELLS_PER_ITEM, initialCapacity = 64, trackItems = true } = options;
    checkPositive('cellSize', cellSize);
    checkInteger('maxCellsPerItem', maxCellsPerItem, 1);
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
    this.cellHead = new Int32Array(this.cells.capacity).fill(NONE);
    this.cellEntryCount = new Int32Array(this.cells.capacity);
    this.alive = new Uint8Array(items);
    this.boxes = new Float64Array(items * this.boxStride);
    this.ranges = new Float64Array(items * this.boxStride);
    this.firstEntry = new Int32Array(items).fill(NONE);
    this.overflowPos = new Int32Array(items).fill(NONE);
    this.stamps = new Uint32Array(items);
    this.categories = new Int32Array(items).fill(DEFAULT_CATEGORY);
    this.masks = new Int32Array(items).fill(ALL_BITS);
    this.overflow = new Int32Array(16);
    this.freeHandles = new Int32Array(items);
    const entries = items * 2;
    this.entryHandle = new Int32Array(entries);
    this.entryCell = new Int32Array(entries);
    this.entryNext = new Int32Array(entries);
    this.entryPrev = new Int32Array(entries);
    this.entryItemNext = new Int32Array(entries);
  }

  /** Number of items stored. O(1). */
  get size(): number {
    return this.itemCount;
  }

  /** Number of occupied cells (cells holding at least one entry). O(1). */
  get cellCount(): number {
    return this.cells.size;
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
    if (h === undefined) return false;
    this.release(h);
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
    this.release(id);
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

  /** The id of a stored `item` (one Map lookup), or -1 if it is absent. O(1). */
  idOf(item: T): number {
    this.checkTracked('idOf');
    return this.handles.get(item) ?? NONE;
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
    this.categories[h] = c;
    this.masks[h] = m;
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

  /** @internal Frees handle `h` of a stored item: out of its cells, the item map and the live set. */
  protected release(h: number): void {
    this.unlink(h);
    if (this.trackItems) this.handles.delete(this.items[h] as T);
    this.items[h] = undefined;
    this.alive[h] = 0;
    this.freeHandles[this.freeHandleCount++] = h;
    this.changes++;
    if (--this.itemCount === 0) this.resetCellBounds();
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

  /** Removes every item. Keeps the memory for reuse. O(capacity). */
  clear(): void {
    this.checkWritable('clear');
    this.handles.clear();
    this.itemCount = 0;
    this.cells.clear();
    this.cellHead.fill(NONE);
    this.cellEntryCount.fill(0);
    this.items.length = 0;
    this.changes++;
    this.alive.fill(0);
    this.firstEntry.fill(NONE);
    this.overflowPos.fill(NONE);
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

  /**
   * Checks every internal invariant and throws an Error describing the first one
   * broken. O(items + entries + cells). For tests and debugging.
   */
  validate(): void {
    const fail = (what: string): never => {
      throw new Error(`SpatialHash invalid: ${what}`);
    };
    const cells = this.cells;
    let live = 0;
    let entries = 0;
    const seenEntry = new Uint8Array(this.entryLimit);
    for (let h = 0; h < this.handleLimit; h++) {
      if (this.alive[h] !== 1) {
        if (this.firstEntry[h] !== NONE || this.overflowPos[h] !== NONE) fail(`free handle ${h} still linked`);
        continue;
      }
      live++;
      if (this.trackItems && this.handles.get(this.items[h] as T) !== h) fail(`handle ${h} not in the item map`);
      const b = h * this.boxStride;
      for (let a = 0; a < this.dim; a++) {
        if (!(this.boxes[b + a] <= this.boxes[b + this.dim + a])) fail(`handle ${h} has min > max on axis ${a}`);
      }
      if (this.overflowPos[h] !== NONE) {
        if (this.overflow[this.overflowPos[h]] !== h) fail(`overflow position of ${h} is wrong`);
        if (this.firstEntry[h] !== NONE) fail(`overflow item ${h} has cell entries`);
        continue;
      }
      let cellsInRange = 1;
      for (let a = 0; a < this.dim; a++) {
        const lo = this.ranges[b + a];
        const hi = this.ranges[b + this.dim + a];
        if (lo !== this.cellOf(this.boxes[b + a]) || hi !== this.cellOf(this.boxes[b + this.dim + a])) {
          fail(`cell range of ${h} does not match its box on axis ${a}`);
        }
        cellsInRange *= hi - lo + 1;
      }
      let own = 0;
      for (let e = this.firstEntry[h]; e !== NONE; e = this.entryItemNext[e]) {
        if (seenEntry[e] === 1) fail(`entry ${e} chained twice`);
        seenEntry[e] = 1;
        own++;
        if (this.entryHandle[e] !== h) fail(`entry ${e} of ${h} names handle ${this.entryHandle[e]}`);
        const id = this.entryCell[e];
        for (let a = 0; a < this.dim; a++) {
          const c = cells.keys[id * this.dim + a];
          if (c < this.ranges[b + a] || c > this.ranges[b + this.dim + a])
            fail(`entry ${e} of ${h} is outside its range`);
        }
      }
      if (own !== cellsInRange) fail(`handle ${h} has ${own} entries for ${cellsInRange} cells`);
      entries += own;
    }
    if (live !== this.itemCount) fail(`${live} live handles but a count of ${this.itemCount}`);
    if (this.handles.size !== (this.trackItems ? live : 0))
      fail(`${live} live handles but ${this.handles.size} mapped`);
    if (entries !== this.entryCount) fail(`${entries} chained entries but entryCount ${this.entryCount}`);
    let liveCells = 0;
    for (let id = 0; id < cells.idLimit; id++) {
      if (this.cellHead[id] === NONE) continue;
      liveCells++;
      const found =
        this.dim === 2
          ? cells.find2(cells.keys[id * 2], cells.keys[id * 2 + 1])
          : cells.find3(cells.keys[id * 3], cells.keys[id * 3 + 1], cells.keys[id * 3 + 2]);
      if (found !== id) fail(`cell ${id} is not found by its own key`);
      let n = 0;
      let prev = NONE;
      for (let e = this.cellHead[id]; e !== NONE; e = this.entryNext[e]) {
        if (this.entryPrev[e] !== prev) fail(`entry ${e} has a wrong prev link`);
        if (this.entryCell[e] !== id) fail(`entry ${e} in list of cell ${id} names cell ${this.entryCell[e]}`);
        if (seenEntry[e] !== 1) fail(`entry ${e} in cell ${id} belongs to no item`);
        prev = e;
        n++;
      }
      if (n !== this.cellEntryCount[id]) fail(`cell ${id} counts ${this.cellEntryCount[id]} entries but lists ${n}`);
    }
    if (liveCells !== cells.size) fail(`${liveCells} non-empty cells but the table holds ${cells.size}`);
    for (let i = 0; i < this.overflowCount; i++) {
      if (this.overflowPos[this.overflow[i]] !== i) fail(`overflow slot ${i} is inconsistent`);
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
    if (h === undefined) throw new Error(`${method}: the item is not in the hash (${describe(item)})`);
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
    }
    this.items[h] = item;
    this.alive[h] = 1;
    this.categories[h] = DEFAULT_CATEGORY;
    this.masks[h] = ALL_BITS;
    if (this.trackItems) this.handles.set(item, h);
    this.itemCount++;
    this.changes++;
    return h;
  }

  /** @internal Files handle `h`, whose box is written, under its cells or in the overflow list. */
  protected abstract link(h: number): void;

  /**
   * @internal Takes entry `e` out of its cell's list and onto the free list
   * (the caller fixes the item's own chain). An emptied cell leaves the table.
   */
  protected dropEntry(e: number): void {
    const id = this.entryCell[e];
    const prev = this.entryPrev[e];
    const next = this.entryNext[e];
    if (prev !== NONE) this.entryNext[prev] = next;
    else this.cellHead[id] = next;
    if (next !== NONE) this.entryPrev[next] = prev;
    if (--this.cellEntryCount[id] === 0) this.cells.release(id);
    // Marks the entry free for forEachPair's sequential pass over all entries.
    this.entryCell[e] = NONE;
    this.entryNext[e] = this.freeEntry;
    this.freeEntry = e;
    this.entryCount--;
  }

  /** @internal Links entry of handle `h` into cell `id` (from the table's insert). */
  protected addEntry(h: number, id: number): void {
    let e = this.freeEntry;
    if (e !== NONE) {
      this.freeEntry = this.entryNext[e];
    } else {
      if (this.entryLimit === this.entryHandle.length) this.growEntries();
      e = this.entryLimit++;
    }
    if (id >= this.cellHead.length) this.growCellArrays();
    // Keep each cell's list roughly ascending by minX: forEachPair sorts each
    // cell that way, and an already sorted list costs it no moves. The walk is
    // capped so a crowded cell never makes insertion slow; past the cap the
    // entry goes to the front and forEachPair's sort puts it in place.
    const boxes = this.boxes;
    const stride = this.boxStride;
    const minX = boxes[h * stride];
    let prev = NONE;
    let next = this.cellHead[id];
    for (let steps = 0; next !== NONE && boxes[this.entryHandle[next] * stride] < minX; steps++) {
      if (steps === SORTED_INSERT_STEPS) {
        prev = NONE;
        next = this.cellHead[id];
        break;
      }
      prev = next;
      next = this.entryNext[next];
    }
    this.entryHandle[e] = h;
    this.entryCell[e] = id;
    this.entryNext[e] = next;
    this.entryPrev[e] = prev;
    if (next !== NONE) this.entryPrev[next] = e;
    if (prev !== NONE) this.entryNext[prev] = e;
    else this.cellHead[id] = e;
    this.cellEntryCount[id]++;
    this.entryItemNext[e] = this.firstEntry[h];
    this.firstEntry[h] = e;
    this.entryCount++;
  }

  /** @internal Widens {@link cellBounds} to the cell range of handle `h` (already in `ranges`). */
  protected growCellBounds(h: number): void {
    const dim = this.dim;
    const b = h * this.boxStride;
    const bounds = this.cellBounds;
    for (let a = 0; a < dim; a++) {
      const lo = this.ranges[b + a];
      const hi = this.ranges[b + dim + a];
      if (lo < bounds[a]) bounds[a] = lo;
      if (hi > bounds[3 + a]) bounds[3 + a] = hi;
    }
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
    this.overflowPos[h] = this.overflowCount;
    this.overflow[this.overflowCount++] = h;
  }

  /** @internal Takes handle `h` out of its cells or the overflow list. Empty cells leave the table. */
  protected unlink(h: number): void {
    const pos = this.overflowPos[h];
    if (pos !== NONE) {
      const last = this.overflow[--this.overflowCount];
      this.overflow[pos] = last;
      this.overflowPos[last] = pos;
      this.overflowPos[h] = NONE;
      return;
    }
    let e = this.firstEntry[h];
    while (e !== NONE) {
      const following = this.entryItemNext[e];
      this.dropEntry(e);
      e = following;
    }
    this.firstEntry[h] = NONE;
  }

  /** @internal Grows the per-handle arrays until they hold at least `n` handles. */
  reserveHandles(n: number): void {
    while (this.alive.length < n) this.growHandles();
  }

  /** @internal Files every live handle (from a snapshot: boxes written, nothing linked yet). */
  linkAll(): void {
    for (let h = 0; h < this.handleLimit; h++) if (this.alive[h] === 1) this.link(h);
  }

  private growHandles(): void {
    const n = this.alive.length * 2;
    const grow = <A extends Uint8Array | Uint32Array | Int32Array | Float64Array>(
      old: A,
      make: (n: number) => A,
      fill?: number,
    ) => {
      const a = make(n);
      if (fill !== undefined) a.fill(fill);
      a.set(old as never);
      return a;
    };
    this.alive = grow(this.alive, (k) => new Uint8Array(k));
    this.stamps = grow(this.stamps, (k) => new Uint32Array(k));
    this.categories = grow(this.categories, (k) => new Int32Array(k), DEFAULT_CATEGORY);
    this.masks = grow(this.masks, (k) => new Int32Array(k), ALL_BITS);
    this.firstEntry = grow(this.firstEntry, (k) => new Int32Array(k), NONE);
    this.overflowPos = grow(this.overflowPos, (k) => new Int32Array(k), NONE);
    this.freeHandles = grow(this.freeHandles, (k) => new Int32Array(k));
    this.boxes = grow(this.boxes, (k) => new Float64Array(k * this.boxStride));
    this.ranges = grow(this.ranges, (k) => new Float64Array(k * this.boxStride));
  }

  /** Sizes the per-cell arrays to the cell table's capacity after it grew. */
  private growCellArrays(): void {
    const head = new Int32Array(this.cells.capacity).fill(NONE);
    head.set(this.cellHead);
    this.cellHead = head;
    const count = new Int32Array(this.cells.capacity);
    count.set(this.cellEntryCount);
    this.cellEntryCount = count;
  }

  private growEntries(): void {
    const n = this.entryHandle.length * 2;
    const grow = (old: Int32Array) => {
      const a = new Int32Array(n);
      a.set(old);
      return a;
    };
    this.entryHandle = grow(this.entryHandle);
    this.entryCell = grow(this.entryCell);
    this.entryNext = grow(this.entryNext);
    this.entryPrev = grow(this.entryPrev);
    this.entryItemNext = grow(this.entryItemNext);
  }
}
