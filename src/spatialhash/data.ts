/**
 * Snapshot and restore of SpatialHash2D / SpatialHash3D: `toData()` writes the
 * items, ids, boxes and filters into typed arrays and a plain array, all
 * structured-cloneable (postMessage, IndexedDB); `from(data)` rebuilds a hash
 * that gives the same answers and keeps every id, and reuses free ids in the
 * same order.
 *
 * The cells are not saved: rebuilding them costs about as much as reading
 * them, and a snapshot without them does not depend on the cell table's layout.
 *
 * @module
 */

import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import { describe } from '../core/validate.js';
import type { SpatialHashBase } from './base.js';
import { MAX_CELLS_PER_ITEM_LIMIT } from './options.js';

/** What {@link SpatialHash2D.toData} / {@link SpatialHash3D.toData} return and `from` reads. */
export interface SpatialHashData {
  /** Always 'spatialhash'. */
  format: 'spatialhash';
  /** Layout version, 1. */
  version: 1;
  /** 2 or 3. */
  dimension: 2 | 3;
  /** The hash's cell size. */
  cellSize: number;
  /** The hash's maxCellsPerItem. */
  maxCellsPerItem: number;
  /** One past the highest id in use or free. */
  idLimit: number;
  /** Ids of the stored items, ascending. */
  ids: Int32Array;
  /** The stored (or encoded) items, in the order of `ids`. */
  items: unknown[];
  /** Boxes in the order of `ids`: all mins, then all maxes, 2 x dimension numbers each. */
  boxes: Float64Array;
  /** Categories in the order of `ids` (32 bits, signed). */
  categories: Int32Array;
  /** Masks in the order of `ids` (32 bits, signed). */
  masks: Int32Array;
  /** Every id below idLimit that is not in use; the last one is reused first. */
  freeIds: Int32Array;
}

/** Options of `toData`. */
export interface ToDataOptions<T> {
  /**
   * Turns an item into something structured-cloneable. Without it, items must
   * be numbers or strings (kept as they are) and any other item throws an
   * Error; with it, every item goes through it.
   */
  encodeItem?: (item: T, id: number) => unknown;
}

/** Options of `from`. */
export interface FromDataOptions<T> {
  /** The inverse of `encodeItem`: applied to every stored value. Without it, values are the items. */
  decodeItem?: (value: unknown, id: number) => T;
  /** The new hash's `trackItems` option (see SpatialHashOptions). Default true. */
  trackItems?: boolean | undefined;
  /**
   * Most cells the snapshot's items may be filed under, summed over the
   * items (a box in 2 x 2 cells counts 4; a box of the overflow list counts
   * none; a PointHash point counts 1): from() counts them before it builds
   * anything, in O(items) arithmetic, and refuses a snapshot whose items
   * cover more with an Error naming both numbers.
   *
   * Why: `maxCellsPerItem` (up to 4096) is the snapshot's own word, and each
   * cell an item is filed under costs the rebuilt hash about 100 to 160
   * bytes (its entry and its share of the cell table), against 44 (2D) or
   * 60 (3D) bytes of snapshot per item. Without a budget, a 1 MB snapshot
   * of 20,000 boxes of 64 x 64 cells would make from() file 80 million
   * entries, about 10 GB.
   *
   * Default: 16 cells per stored item, and at least 65,536 (16 items at the
   * 4096-cell limit). With the cell size the cell-size guide advises (about
   * twice a typical object) items cover 1 to 4 cells in 2D, 1 to 8 in 3D,
   * so such hashes pass with room to spare, while what from() builds stays
   * within a small multiple of the data: at most about 50 times its typed
   * arrays, and about 10 MB for any smaller snapshot. A hash whose items
   * cover more cells on average (a cell size much smaller than its items)
   * needs a larger `maxCells` for its snapshots: `Infinity` for data you
   * trust. A PointHash files each point under one cell, so its snapshots
   * always pass the default. An integer >= 0, or Infinity.
   */
  maxCells?: number;
}

/** Cells per stored item that from() files without being asked (see {@link FromDataOptions.maxCells}). */
const DEFAULT_CELLS_PER_ITEM = 16;
/** Cells from() files without being asked, however few the items (see {@link FromDataOptions.maxCells}). */
const DEFAULT_MIN_CELLS = 65_536;

/**
 * @internal The `maxCells` of from's options for a snapshot of `items`
 * items, checked (see {@link FromDataOptions.maxCells}).
 */
export function readMaxCells(options: FromDataOptions<unknown> | undefined, items: number): number {
  const value = options === null || typeof options !== 'object' ? undefined : options.maxCells;
  if (value === undefined) return Math.max(DEFAULT_MIN_CELLS, DEFAULT_CELLS_PER_ITEM * items);
  if (typeof value !== 'number' || !(Number.isInteger(value) || value === Number.POSITIVE_INFINITY) || value < 0) {
    throw new RangeError(`maxCells must be an integer >= 0 or Infinity, got ${describe(value)}`);
  }
  return value;
}

/**
 * @internal Throws the Error of a snapshot whose items cover `cells` cells,
 * more than `maxCells` (see {@link FromDataOptions.maxCells}).
 */
export function checkCellBudget(kind: string, cells: number, maxCells: number): void {
  if (cells <= maxCells) return;
  throw new Error(
    `from: invalid ${kind} data: its items cover ${cells} cells, more than maxCells (${maxCells}); from(data, { maxCells }) allows more, for data you trust`,
  );
}

/**
 * What SpatialHashData and the point hashes' PointHashData share:
 * everything but the geometry (`boxes` or `positions`).
 */
export interface IdSnapshot {
  format: string;
  version: number;
  dimension: number;
  idLimit: number;
  ids: Int32Array;
  items: unknown[];
  categories: Int32Array;
  masks: Int32Array;
  freeIds: Int32Array;
}

/** @internal The checked `encodeItem` of toData's options. */
export function readEncoder<T>(options: ToDataOptions<T>): ((item: T, id: number) => unknown) | undefined {
  if (options === null || typeof options !== 'object') {
    throw new RangeError(`options must be an object { encodeItem? }, got ${describe(options)}`);
  }
  const encode = options.encodeItem;
  if (encode !== undefined && typeof encode !== 'function') {
    throw new RangeError(`encodeItem must be a function, got ${describe(encode)}`);
  }
  return encode;
}

/**
 * @internal Item `item` of id `h` as snapshot data: encoded, or kept when it
 * is a number or string; any other item without `encode` throws an Error.
 */
export function encodeItem<T>(item: T, h: number, encode: ((item: T, id: number) => unknown) | undefined): unknown {
  if (encode !== undefined) return encode(item, h);
  if (typeof item === 'number' || typeof item === 'string') return item;
  throw new Error(
    `toData: item ${h} is ${describe(item)}, not a number or string; pass { encodeItem } to turn items into data`,
  );
}

/** @internal The checked `decodeItem` of from's options. */
export function readDecoder<T>(options: FromDataOptions<T>): ((value: unknown, id: number) => T) | undefined {
  if (options === null || typeof options !== 'object') {
    throw new RangeError(`options must be an object { decodeItem?, trackItems? }, got ${describe(options)}`);
  }
  const decode = options.decodeItem;
  if (decode !== undefined && typeof decode !== 'function') {
    throw new RangeError(`decodeItem must be a function, got ${describe(decode)}`);
  }
  return decode;
}

/** The length of a typed array as the engine keeps it (a subclass's `length` getter may say anything). */
const typedLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Int32Array.prototype), 'length')?.get as (
  this: ArrayBufferView,
) => number;

/** @internal `value`'s length if it is an Int32Array, else -1. */
export function int32Length(value: unknown): number {
  return value instanceof Int32Array ? typedLength.call(value) : -1;
}

/** @internal `value`'s length if it is a Float64Array, else -1. */
export function float64Length(value: unknown): number {
  return value instanceof Float64Array ? typedLength.call(value) : -1;
}

/**
 * What checkIdSnapshot hands on: the snapshot's typed arrays
 * copied (the copies are the hash's own, so a SharedArrayBuffer that another
 * thread rewrites cannot change a value after it is checked) and its items
 * array as given.
 */
export interface CheckedIds extends Omit<IdSnapshot, 'format' | 'version' | 'dimension'> {
  cellSize: number;
}

/**
 * @internal Checks everything of a snapshot but its geometry, before anything
 * is built, with `fail` throwing the format's Error: every field's type and
 * length, the cell size, and an idLimit that the ids and free ids account
 * for, so nothing allocated later is larger than the data (O(idLimit), and
 * the snapshot holds a number per id). Ids are checked for range and
 * repeats by the restore, on the copies.
 */
export function checkIdSnapshot(data: unknown, format: string, dim: 2 | 3, fail: (what: string) => never): CheckedIds {
  if (data === null || typeof data !== 'object') fail(`expected an object from toData(), got ${describe(data)}`);
  const d = data as IdSnapshot & { cellSize: unknown };
  if (d.format !== format) fail(`format must be '${format}', got ${describe(d.format)}`);
  if (d.version !== 1) fail(`version must be 1, got ${describe(d.version)}`);
  if (d.dimension !== dim) fail(`dimension is ${describe(d.dimension)}, this is a ${dim}D hash`);
  const cellSize = d.cellSize;
  if (typeof cellSize !== 'number' || !(cellSize > 0) || cellSize === Number.POSITIVE_INFINITY) {
    fail(`cellSize must be a finite number > 0, got ${describe(cellSize)}`);
  }
  const n = int32Length(d.ids);
  if (n < 0) fail('ids must be an Int32Array');
  if (!Array.isArray(d.items) || d.items.length !== n) fail(`items must be an array of ${n} values`);
  if (int32Length(d.categories) !== n) fail(`categories must be an Int32Array of ${n}`);
  if (int32Length(d.masks) !== n) fail(`masks must be an Int32Array of ${n}`);
  const free = int32Length(d.freeIds);
  if (free < 0) fail('freeIds must be an Int32Array');
  const limit = d.idLimit;
  if (!Number.isInteger(limit) || limit !== n + free || limit > 2 ** 28) {
    fail(`idLimit ${describe(limit)} must equal the number of ids plus free ids (${n} + ${free}), at most 2^28`);
  }
  // new Int32Array(typed array) copies the elements the engine holds, as many as its own length.
  return {
    cellSize,
    idLimit: limit,
    ids: new Int32Array(d.ids),
    items: d.items,
    categories: new Int32Array(d.categories),
    masks: new Int32Array(d.masks),
    freeIds: new Int32Array(d.freeIds),
  };
}

/** Implements `toData` of both hashes. O(items). */
export function toData<T>(hash: SpatialHashBase<T>, options: ToDataOptions<T> = {}): SpatialHashData {
  const encode = readEncoder(options);
  const n = hash.size;
  const stride = hash.boxStride;
  const ids = new Int32Array(n);
  const items: unknown[] = new Array(n);
  const boxes = new Float64Array(n * stride);
  const categories = new Int32Array(n);
  const masks = new Int32Array(n);
  let i = 0;
  for (let h = 0; h < hash.handleLimit; h++) {
    if (hash.alive[h] !== 1) continue;
    items[i] = encodeItem(hash.items[h] as T, h, encode);
    ids[i] = h;
    boxes.set(hash.boxes.subarray(h * stride, h * stride + stride), i * stride);
    categories[i] = hash.categories[h];
    masks[i] = hash.masks[h];
    i++;
  }
  return {
    format: 'spatialhash',
    version: 1,
    dimension: hash.dim,
    cellSize: hash.cellSize,
    maxCellsPerItem: hash.maxCellsPerItem,
    idLimit: hash.handleLimit,
    ids,
    items,
    boxes,
    categories,
    masks,
    freeIds: hash.freeHandles.slice(0, hash.freeHandleCount),
  };
}

/** Throws the Error of a malformed snapshot. */
function bad(what: string): never {
  throw new Error(`from: invalid SpatialHash data: ${what}`);
}

/** A snapshot checked by {@link checkData}: its own copies of the typed arrays. */
export interface CheckedData extends CheckedIds {
  maxCellsPerItem: number;
  boxes: Float64Array;
}

/**
 * Checks `data` for a hash of `dim` dimensions before anything is built
 * (see checkIdSnapshot), maxCellsPerItem within its limit included, and
 * the cells its items will be filed under within `options.maxCells` (see
 * FromDataOptions.maxCells): what from() builds is then bounded by the size
 * of the data. Returns copies of the typed arrays.
 */
export function checkData(data: unknown, dim: 2 | 3, options?: FromDataOptions<unknown>): CheckedData {
  const checked = checkIdSnapshot(data, 'spatialhash', dim, bad);
  const d = data as SpatialHashData;
  const max = d.maxCellsPerItem;
  if (!Number.isInteger(max) || max < 1 || max > MAX_CELLS_PER_ITEM_LIMIT) {
    bad(`maxCellsPerItem must be an integer in [1, ${MAX_CELLS_PER_ITEM_LIMIT}], got ${describe(max)}`);
  }
  const n = checked.ids.length;
  if (float64Length(d.boxes) !== n * dim * 2) bad(`boxes must be a Float64Array of ${n * dim * 2} numbers`);
  const boxes = new Float64Array(d.boxes);
  const maxCells = readMaxCells(options, n);
  checkCellBudget('SpatialHash', coveredCells(boxes, n, dim, checked.cellSize, max), maxCells);
  return { ...checked, maxCellsPerItem: max, boxes };
}

/**
 * Cells that `n` boxes (all mins, then all maxes, per box) are filed under
 * with this cell size and maxCellsPerItem, by the rule of the hashes' link():
 * the cells of each axis from floor(min / cellSize) to floor(max / cellSize),
 * or none for an item of the overflow list (more than maxCellsPerItem cells,
 * or a cell index past MAX_CELL_INDEX). A box that is not finite and ordered
 * counts none: restore() refuses it. O(n).
 */
export function coveredCells(
  boxes: Float64Array,
  n: number,
  dim: 2 | 3,
  cellSize: number,
  maxCellsPerItem: number,
): number {
  const stride = 2 * dim;
  let total = 0;
  for (let i = 0; i < n; i++) {
    let cells = 1;
    for (let a = 0; a < dim && cells > 0; a++) {
      const low = Math.floor(boxes[i * stride + a] / cellSize);
      const high = Math.floor(boxes[i * stride + dim + a] / cellSize);
      // NaN, reversed or past the cell range: no cells (the comparisons fail on NaN too).
      if (!(low <= high && -low <= MAX_CELL_INDEX && high <= MAX_CELL_INDEX)) cells = 0;
      else cells *= high - low + 1;
    }
    if (cells <= maxCellsPerItem) total += cells;
  }
  return total;
}

/**
 * Fills an empty hash from checked data. Throws an Error on a repeated or out
 * of range id, a bad box or a repeated item; the caller drops the hash then.
 * O(idLimit + items x their cells), each item under at most maxCellsPerItem cells.
 */
export function restore<T>(hash: SpatialHashBase<T>, d: CheckedData, options: FromDataOptions<T> = {}): void {
  const decode = readDecoder(options);
  const dim = hash.dim;
  const stride = hash.boxStride;
  const limit = d.idLimit;
  hash.reserveHandles(limit);
  // Every id below the limit starts as a free one: no links, default filter.
  for (let h = 0; h < limit; h++) hash.initHandle(h);
  const seen = new Uint8Array(limit);
  for (let i = 0; i < d.ids.length; i++) {
    const h = d.ids[i];
    if (!(h >= 0 && h < limit) || seen[h] === 1) bad(`ids[${i}] = ${h} is out of range or repeated`);
    seen[h] = 1;
    for (let a = 0; a < dim; a++) {
      const lo = d.boxes[i * stride + a];
      const hi = d.boxes[i * stride + dim + a];
      if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo > hi) bad(`box of id ${h} is not finite and ordered`);
    }
    const item = decode !== undefined ? decode(d.items[i], h) : (d.items[i] as T);
    if (hash.trackItems) {
      if (hash.handles.has(item)) bad(`item of id ${h} (${describe(item)}) is stored twice`);
      hash.handles.set(item, h);
    }
    hash.items[h] = item;
    hash.alive[h] = 1;
    hash.boxes.set(d.boxes.subarray(i * stride, i * stride + stride), h * stride);
    hash.setFilterBits(h, d.categories[i], d.masks[i]);
  }
  for (let i = 0; i < d.freeIds.length; i++) {
    const h = d.freeIds[i];
    if (!(h >= 0 && h < limit) || seen[h] === 1) bad(`freeIds[${i}] = ${h} is out of range, in use or repeated`);
    seen[h] = 1;
    hash.freeHandles[i] = h;
  }
  hash.freeHandleCount = d.freeIds.length;
  hash.itemCount = d.ids.length;
  hash.handleLimit = limit;
  hash.linkAll();
}
