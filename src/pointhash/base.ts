/**
 * What PointHash2D and PointHash3D share: ids, items, filters, the cell table,
 * the slot pool and the list of far points. Nothing here depends on the
 * dimension except the number of coordinates per slot; the code that reads
 * coordinates by axis lives in the 2D and 3D classes.
 *
 * Layout (a leaner sibling of SpatialHash2D's, for items that are points):
 * - a point lives in exactly one cell, so it has exactly one slot and no query
 *   can meet it twice: there are no per-cell entries, no overflow of big boxes
 *   and no query stamps;
 * - a slot is `dim + 1` doubles: the coordinates, then the id. A query reads a
 *   cell's run as one stretch of memory, and the id sits on the cache line it
 *   has just tested. Ids are small integers, exact in a double;
 * - per id only its cell and its slot's position in the cell's run are kept
 *   (`home`, two ints): the coordinates live in the slot alone, so a move
 *   within its cell writes one slot and nothing else, and a move to another
 *   cell reads the old position from the slot it is about to empty;
 * - a cell is a dense id from {@link CellTable} with a record of four ints
 *   (run start, count, capacity, listed). Runs are powers of two in one shared
 *   pool; a full run moves to a run twice its size (one another cell outgrew,
 *   kept on a free list per size, or else the end of the pool), and the pool
 *   is compacted and grown only when its end is reached. A slot leaves a run
 *   by taking the run's last slot into its place and telling that slot's id
 *   its new position;
 * - a cell whose last point leaves stays listed, empty, so a point crossing a
 *   border back and forth does not delete and re-create it; empty cells are
 *   purged when they outnumber occupied ones. A released cell id keeps its run;
 * - a point whose cell index is beyond {@link MAX_CELL_INDEX} on some axis
 *   (consecutive cells are no longer distinct doubles there) goes to the far
 *   list, slots of the same layout outside the pool, which every query reads;
 * - categories and masks are allocated on the first filter that is not the
 *   default, so a hash without filters carries none.
 *
 * @module
 */

import { CellTable } from '../core/cell-table.js';
import { grownPrefix } from '../core/grow.js';
import { checkInteger, checkPositive, describe } from '../core/validate.js';
import { ALL_BITS, DEFAULT_CATEGORY, isDefaultFilter, toBits } from '../spatialhash/filter.js';
import { ItemIndex } from '../spatialhash/item-index.js';
import type { PointHashOptions } from './options.js';

const NONE = -1;

/** @internal Ints per cell record in `cellRuns`. */
export const RUN = 4;
/** @internal Offset of the first slot of the cell's run in the pool. */
export const RUN_START = 0;
/** @internal Offset of the number of slots in use. */
export const RUN_COUNT = 1;
/** @internal Offset of the number of slots reserved (a power of two, or 0). */
export const RUN_CAPACITY = 2;
/** @internal Offset of the flag: 1 while the cell id is in the table. */
export const RUN_LISTED = 3;
/** @internal `home` cell of a free id. */
export const FREE = -1;
/** @internal `home` cell of a point on the far list (its position there follows). */
export const FAR = -2;
/**
 * @internal Whether the filters of ids a and b accept each other, as in Box2D
 * (always, while the hash has no filters): the pair test of forEachPair.
 */
export function accept(filters: Int32Array | undefined, a: number, b: number): boolean {
  return (
    filters === undefined ||
    ((filters[a * 2] & filters[b * 2 + 1]) !== 0 && (filters[b * 2] & filters[a * 2 + 1]) !== 0)
  );
}

/** Slots of a cell's first run. */
const FIRST_RUN = 4;

/**
 * Base of the dynamic point hashes; not exported from the package. Fields are
 * public to the library's own modules (queries split by operation), not to users.
 */
export abstract class PointHashBase<T> implements Iterable<T> {
  /** Edge length of a cell, in coordinate units. */
  readonly cellSize: number;
  /** Whether the item-to-id Map is kept (option `trackItems`, default true): the item-keyed methods need it. */
  readonly trackItems: boolean;
  /** @internal 2 or 3. */
  readonly dim: 2 | 3;
  /** @internal Doubles per slot: the coordinates, then the id. */
  readonly stride: number;
  /** @internal Cell coordinates to cell ids. */
  readonly cells: CellTable;
  /** @internal Per cell id, {@link RUN} ints: run start, count, capacity, listed. */
  cellRuns: Int32Array;
  /** @internal Number of cells holding at least one point. */
  occupiedCells = 0;
  /** @internal The slot pool: runs of slots, `stride` doubles each. */
  slots: Float64Array;
  /** @internal Slots of the pool handed out so far: runs lie below it. */
  poolUsed = 0;
  /** @internal Abandoned runs by capacity class (log2): the first's start, whose first double holds the next, or -1. */
  readonly freeRuns = new Int32Array(32).fill(NONE);
  /** @internal Points beyond MAX_CELL_INDEX cells on some axis, in slots of the same layout. */
  far: Float64Array;
  /** @internal Number of points on the far list. */
  farCount = 0;
  /** @internal Per id: its cell id (FREE, FAR) and its slot's position in the cell's run (or on the far list). */
  home: Int32Array;
  /** @internal Free ids; the last one is reused first. */
  freeHandles: Int32Array;
  /** @internal Number of free ids. */
  freeHandleCount = 0;
  /** @internal One past the highest id used since the last clear. */
  handleLimit = 0;
  /** @internal Number of stored points. */
  itemCount = 0;
  /** @internal Item by id; `undefined` for a free id. */
  items: (T | undefined)[] = [];
  /** @internal Id by item; kept only when {@link trackItems}. */
  readonly handles = new ItemIndex<T>();
  /** @internal Category and mask per id (2 ints), allocated on the first filter that is not the default. */
  filters: Int32Array | undefined = undefined;
  /** @internal Live ids whose filter is not the default. */
  filteredCount = 0;
  /**
   * @internal Conservative cell bounds of the occupied cells: min per axis,
   * then max (z unused in 2D). They only grow while points come and go and
   * reset when the hash empties. Empty: min > max.
   */
  readonly cellBounds = new Float64Array(6);
  /** @internal Scratch max-heap of nearest(): squared distances. */
  heapDistance = new Float64Array(16);
  /** @internal Scratch max-heap of nearest(): ids. */
  heapHandle = new Int32Array(16);
  /** @internal How many forEach / forEachPair / forEachOverlap calls are running: the hash must not change under them. */
  visiting = 0;
  /** @internal How many nearest() predicates are running: no nearest may start inside one. */
  callingOut = 0;
  /** @internal Bumped by every insert, remove and clear: a `for...of` loop checks it on each step. */
  changes = 0;

  protected constructor(dim: 2 | 3, options: PointHashOptions) {
    if (options === null || typeof options !== 'object') {
      throw new RangeError(`options must be an object with a cellSize, got ${describe(options)}`);
    }
    const { cellSize, initialCapacity = 64, trackItems = true } = options;
    checkPositive('cellSize', cellSize);
    checkInteger('initialCapacity', initialCapacity, 0, 2 ** 28);
    if (typeof trackItems !== 'boolean')
      throw new RangeError(`trackItems must be a boolean, got ${describe(trackItems)}`);
    this.cellSize = cellSize;
    this.trackItems = trackItems;
    this.dim = dim;
    this.stride = dim + 1;
    const ids = Math.max(16, initialCapacity);
    // A cell holds several points at a sensible cell size: a table for a
    // quarter as many cells as points grows past it only for sparse data.
    this.cells = new CellTable(dim, ids >> 2);
    this.cellRuns = new Int32Array(this.cells.capacity * RUN);
    // Runs are powers of two that move when they double: two slots per point
    // leave room for that. Room never written costs address space, not memory.
    this.slots = new Float64Array(ids * 2 * this.stride);
    this.far = new Float64Array(4 * this.stride);
    this.home = new Int32Array(ids * 2);
    this.freeHandles = new Int32Array(ids);
    this.resetCellBounds();
  }

  /** Number of points stored. O(1). */
  get size(): number {
    return this.itemCount;
  }

  /** Number of cells holding at least one point. O(1). */
  get cellCount(): number {
    return this.occupiedCells;
  }

  /** Whether `item` is stored (compared with SameValueZero, like a Map key). O(1). */
  has(item: T): boolean {
    this.checkTracked('has');
    return this.handles.has(item);
  }

  /**
   * Removes `item`. O(1).
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
   * Removes the point with this id; the id becomes free and a later insert
   * may reuse it. O(1), with no lookup by item.
   * @returns the removed item.
   * @throws RangeError if `id` is not the id of a stored point.
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
   * @throws RangeError if `id` is not the id of a stored point.
   */
  itemById(id: number): T {
    this.checkId(id, 'itemById');
    return this.items[id] as T;
  }

  /**
   * Whether `id` names a stored point. O(1). A removed id is free until an
   * insert reuses it: then it names the new point.
   */
  hasId(id: number): boolean {
    return typeof id === 'number' && id >>> 0 === id && id < this.handleLimit && this.home[id * 2] !== FREE;
  }

  /** The id of a stored `item` (one item-index lookup), or -1 if it is absent. O(1). */
  idOf(item: T): number {
    this.checkTracked('idOf');
    return this.handles.get(item);
  }

  /**
   * Collision category of the point with this id, as an unsigned 32-bit integer. O(1).
   * @throws RangeError if `id` is not the id of a stored point.
   */
  categoryOf(id: number): number {
    this.checkId(id, 'categoryOf');
    return this.filters === undefined ? DEFAULT_CATEGORY : this.filters[id * 2] >>> 0;
  }

  /**
   * Collision mask of the point with this id, as an unsigned 32-bit integer. O(1).
   * @throws RangeError if `id` is not the id of a stored point.
   */
  maskOf(id: number): number {
    this.checkId(id, 'maskOf');
    return this.filters === undefined ? ALL_BITS >>> 0 : this.filters[id * 2 + 1] >>> 0;
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
   * Sets the collision category and mask of the point with this id, as in
   * Box2D. Two points pair in forEachPair when `(a.category & b.mask) !== 0
   * && (b.category & a.mask) !== 0`; a query with a mask reports a point when
   * `(category & mask) !== 0`. Both are integers in [-2^31, 2^32 - 1] read
   * as 32 bits. O(1).
   * @throws RangeError if `id` is not the id of a stored point, or category or mask is not a 32-bit integer.
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
  }

  /** @internal Stores the filter of id `h`, allocating the filters on the first one that is not the default. */
  setFilterBits(h: number, category: number, mask: number): void {
    let filters = this.filters;
    if (filters === undefined) {
      if (isDefaultFilter(category, mask)) return;
      filters = this.allocateFilters();
    }
    const was = !isDefaultFilter(filters[h * 2], filters[h * 2 + 1]);
    const is = !isDefaultFilter(category, mask);
    filters[h * 2] = category;
    filters[h * 2 + 1] = mask;
    this.filteredCount += (is ? 1 : 0) - (was ? 1 : 0);
  }

  private allocateFilters(): Int32Array {
    const filters = new Int32Array(this.freeHandles.length * 2);
    for (let h = 0; h < this.handleLimit; h++) {
      filters[h * 2] = DEFAULT_CATEGORY;
      filters[h * 2 + 1] = ALL_BITS;
    }
    this.filters = filters;
    return filters;
  }

  /**
   * @internal Throws inside a nearest() predicate: a search keeps its state
   * in module scratch, so it must not start inside another. Box and radius
   * queries keep none and may run anywhere.
   */
  checkNotCallingOut(method: string): void {
    if (this.callingOut > 0) {
      throw new Error(`${method}: nearest cannot run inside a nearest predicate`);
    }
  }

  /**
   * @internal Throws a RangeError naming `id` unless it is the id of a stored
   * point: an integer below handleLimit whose home is not FREE.
   */
  checkId(id: number, method: string): void {
    if (!this.hasId(id)) {
      throw new RangeError(`${method}: id must be the id of a stored point, got ${describe(id)}`);
    }
  }

  /** Removes every point. Keeps the memory for reuse. O(cells + ids used since the last clear). */
  clear(): void {
    this.checkWritable('clear');
    this.handles.clear();
    this.items.length = 0;
    this.itemCount = 0;
    this.cells.clear();
    // Cell ids keep their runs, as released ids do: the table hands ids out
    // again from 0, so a refilled hash finds its runs grown already.
    const runs = this.cellRuns;
    for (let r = 0; r < runs.length; r += RUN) {
      runs[r + RUN_COUNT] = 0;
      runs[r + RUN_LISTED] = 0;
    }
    this.occupiedCells = 0;
    this.farCount = 0;
    this.filteredCount = 0;
    // Ids past handleLimit are never read: allocateHandle writes a fresh id's
    // home (through place) and filter before anyone reads them.
    this.handleLimit = 0;
    this.freeHandleCount = 0;
    this.changes++;
    this.resetCellBounds();
  }

  /**
   * Iterates over every item once, in ascending id order. Fail-fast: an
   * insert, remove or clear while a loop runs makes its next step throw an
   * Error (the call itself succeeds). update, updateById and setFilter are
   * allowed. To change the set while walking it, iterate a copy: `for (const
   * x of [...hash])`.
   */
  *[Symbol.iterator](): IterableIterator<T> {
    const changes = this.changes;
    for (let h = 0; h < this.handleLimit; h++) {
      if (this.home[h * 2] === FREE) continue;
      yield this.items[h] as T;
      if (this.changes !== changes)
        throw new Error('for...of: the hash changed (insert, remove or clear) during the loop');
    }
  }

  /**
   * Calls `visit(item, id)` for every point once, in ascending id order.
   * Faster than `for...of`. The visitor may query the hash; insert, update,
   * remove or clear from inside it throw an Error.
   */
  forEach(visit: (item: T, id: number) => void): void {
    if (typeof visit !== 'function') throw new RangeError(`visit must be a function, got ${describe(visit)}`);
    this.visiting++;
    try {
      for (let h = 0; h < this.handleLimit; h++) {
        if (this.home[h * 2] !== FREE) visit(this.items[h] as T, h);
      }
    } finally {
      this.visiting--;
    }
  }

  /** @internal Cell index of one coordinate: floor, never truncation, so cell 0 is not twice as wide. */
  cellOf(coordinate: number): number {
    return Math.floor(coordinate / this.cellSize);
  }

  /** @internal The slot's index in `slots` (or in `far`) of live id `h`, in doubles. */
  slotOf(h: number): number {
    const id = this.home[h * 2];
    const pos = this.home[h * 2 + 1];
    return (id === FAR ? pos : this.cellRuns[id * RUN + RUN_START] + pos) * this.stride;
  }

  /** @internal The array holding live id `h`'s slot: the pool or the far list. */
  slotArray(h: number): Float64Array {
    return this.home[h * 2] === FAR ? this.far : this.slots;
  }

  /** @internal Id of `item`, or throws an Error naming the method when absent. */
  protected handleOf(item: T, method: string): number {
    this.checkTracked(method);
    const h = this.handles.get(item);
    if (h === NONE) throw new Error(`${method}: item is not in the hash: ${describe(item)}`);
    return h;
  }

  /** @internal Throws while a forEach / forEachPair / visitor runs: the hash must not change under it. */
  protected checkWritable(method: string): void {
    if (this.visiting > 0) {
      throw new Error(`${method}: the hash cannot change during forEach, forEachPair or forEachOverlap`);
    }
  }

  /** @internal Throws unless the item Map is kept. */
  protected checkTracked(method: string): void {
    if (!this.trackItems) {
      throw new Error(
        `${method} needs the item index, but this hash has trackItems: false; use the ids insert returns`,
      );
    }
  }

  /** @internal Throws if `item` is present already. */
  protected checkAbsent(item: T): void {
    if (this.trackItems && this.handles.has(item)) {
      throw new Error(`insert: item is already in the hash (use update): ${describe(item)}`);
    }
  }

  /** @internal A fresh or free id for `item`, registered; the caller places it before anyone reads its home. */
  protected allocateHandle(item: T): number {
    let h: number;
    if (this.freeHandleCount > 0) {
      h = this.freeHandles[--this.freeHandleCount];
    } else {
      if (this.handleLimit === this.freeHandles.length) this.growHandles();
      h = this.handleLimit++;
    }
    this.items[h] = item;
    if (this.trackItems) this.handles.set(item, h);
    this.itemCount++;
    this.changes++;
    const filters = this.filters;
    if (filters !== undefined) {
      filters[h * 2] = DEFAULT_CATEGORY;
      filters[h * 2 + 1] = ALL_BITS;
    }
    return h;
  }

  /** @internal Frees id `h` of the stored `item`. */
  protected release(h: number, item: T): void {
    this.drop(h);
    if (this.trackItems) this.handles.delete(item);
    if (this.filteredCount > 0) this.setFilterBits(h, DEFAULT_CATEGORY, ALL_BITS);
    this.items[h] = undefined;
    this.home[h * 2] = FREE;
    this.freeHandles[this.freeHandleCount++] = h;
    this.changes++;
    if (--this.itemCount === 0) this.resetCellBounds();
  }

  /**
   * @internal A slot for id `h` at the end of cell `id`'s run (created in the
   * table by the caller), with `h`'s home set; returns its index in `slots`,
   * in doubles, for the caller to write the coordinates and the id.
   */
  addToCell(h: number, id: number): number {
    if (id * RUN >= this.cellRuns.length) this.growCellRuns();
    const runs = this.cellRuns;
    const r = id * RUN;
    runs[r + RUN_LISTED] = 1;
    const n = runs[r + RUN_COUNT];
    if (n === 0) this.occupy(id);
    if (n === runs[r + RUN_CAPACITY]) this.growRun(id);
    runs[r + RUN_COUNT] = n + 1;
    this.home[h * 2] = id;
    this.home[h * 2 + 1] = n;
    return (runs[r + RUN_START] + n) * this.stride;
  }

  /** @internal A slot for id `h` at the end of the far list, with `h`'s home set; returns its index in `far`. */
  addToFar(h: number): number {
    const stride = this.stride;
    if ((this.farCount + 1) * stride > this.far.length) {
      this.far = grownPrefix(this.far, this.far.length * 2, this.farCount * stride);
    }
    this.home[h * 2] = FAR;
    this.home[h * 2 + 1] = this.farCount;
    return this.farCount++ * stride;
  }

  /**
   * @internal Takes id `h`'s slot out of its run (or the far list): the last
   * slot takes its place and its id hears of it. The caller gives `h` a new
   * home or frees it.
   */
  drop(h: number): void {
    const home = this.home;
    const id = home[h * 2];
    const pos = home[h * 2 + 1];
    const stride = this.stride;
    let slots: Float64Array;
    let start: number;
    let last: number;
    if (id === FAR) {
      slots = this.far;
      start = 0;
      last = --this.farCount;
    } else {
      const r = id * RUN;
      slots = this.slots;
      start = this.cellRuns[r + RUN_START];
      last = --this.cellRuns[r + RUN_COUNT];
    }
    if (pos !== last) {
      const to = (start + pos) * stride;
      const from = (start + last) * stride;
      for (let a = 0; a < stride; a++) slots[to + a] = slots[from + a];
      home[slots[to + stride - 1] * 2 + 1] = pos;
    }
    if (last === 0 && id !== FAR) this.vacate();
  }

  /** One more occupied cell: widens the cell bounds to it. */
  private occupy(id: number): void {
    this.occupiedCells++;
    const dim = this.dim;
    const keys = this.cells.keys;
    const bounds = this.cellBounds;
    for (let a = 0; a < dim; a++) {
      const k = keys[id * dim + a];
      if (k < bounds[a]) bounds[a] = k;
      if (k > bounds[3 + a]) bounds[3 + a] = k;
    }
  }

  /** One cell fewer occupied: purges the empty cells once they outnumber the occupied ones. */
  private vacate(): void {
    this.occupiedCells--;
    if (this.cells.size - this.occupiedCells > this.occupiedCells + 64) this.purgeEmptyCells();
  }

  /** Releases every listed cell that holds no point; their ids keep their runs. */
  private purgeEmptyCells(): void {
    const runs = this.cellRuns;
    for (let id = 0; id < this.cells.idLimit; id++) {
      const r = id * RUN;
      if (runs[r + RUN_LISTED] === 1 && runs[r + RUN_COUNT] === 0) {
        this.cells.release(id);
        runs[r + RUN_LISTED] = 0;
      }
    }
  }

  private resetCellBounds(): void {
    this.cellBounds.fill(Number.POSITIVE_INFINITY, 0, 3);
    this.cellBounds.fill(Number.NEGATIVE_INFINITY, 3, 6);
  }

  /**
   * Moves cell `id`'s full run to a run twice its size: a free one of that
   * size, or the end of the pool (compacted first when the end is reached).
   * The old run goes on the free list of its size.
   */
  private growRun(id: number): void {
    const runs = this.cellRuns;
    const r = id * RUN;
    const old = runs[r + RUN_CAPACITY];
    const capacity = old === 0 ? FIRST_RUN : old * 2;
    const size = 31 - Math.clz32(capacity);
    const stride = this.stride;
    let start = this.freeRuns[size];
    if (start !== NONE) {
      this.freeRuns[size] = this.slots[start * stride];
    } else {
      if ((this.poolUsed + capacity) * stride > this.slots.length) this.repack(capacity);
      start = this.poolUsed;
      this.poolUsed += capacity;
    }
    const from = runs[r + RUN_START];
    const n = runs[r + RUN_COUNT];
    this.slots.copyWithin(start * stride, from * stride, (from + n) * stride);
    if (old > 0) {
      const k = 31 - Math.clz32(old);
      this.slots[from * stride] = this.freeRuns[k];
      this.freeRuns[k] = from;
    }
    runs[r + RUN_START] = start;
    runs[r + RUN_CAPACITY] = capacity;
  }

  /**
   * Compacts the runs of the table's cell ids into a new pool with room for
   * `extra` more slots, twice what they reserve. Runs of ids past the table's
   * limit are dropped (their ids start again from an empty run).
   */
  private repack(extra: number): void {
    const runs = this.cellRuns;
    const stride = this.stride;
    const limit = this.cells.idLimit;
    let need = extra;
    for (let id = 0; id < limit; id++) need += runs[id * RUN + RUN_CAPACITY];
    const size = Math.max(need * 2, this.slots.length / stride);
    const slots = new Float64Array(size * stride);
    let at = 0;
    for (let id = 0; id < limit; id++) {
      const r = id * RUN;
      const from = runs[r + RUN_START] * stride;
      slots.set(this.slots.subarray(from, from + runs[r + RUN_COUNT] * stride), at * stride);
      runs[r + RUN_START] = at;
      at += runs[r + RUN_CAPACITY];
    }
    for (let r = limit * RUN; r < runs.length; r += RUN) {
      runs[r + RUN_START] = 0;
      runs[r + RUN_CAPACITY] = 0;
    }
    this.slots = slots;
    this.poolUsed = at;
    this.freeRuns.fill(NONE);
  }

  private growCellRuns(): void {
    this.cellRuns = grownPrefix(this.cellRuns, this.cells.capacity * RUN, this.cells.idLimit * RUN);
  }

  /** Doubles the per-id arrays, copying only the ids in use. */
  private growHandles(): void {
    const n = this.freeHandles.length * 2;
    this.home = grownPrefix(this.home, n * 2, this.handleLimit * 2);
    this.freeHandles = grownPrefix(this.freeHandles, n, this.freeHandleCount);
    if (this.filters !== undefined) this.filters = grownPrefix(this.filters, n * 2, this.handleLimit * 2);
  }
}
