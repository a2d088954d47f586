/**
 * Snapshot and restore of PointHash2D / PointHash3D, as SpatialHash's data.ts
 * does for boxes: `toData()` writes ids, items, positions and filters into
 * typed arrays and a plain array, all structured-cloneable (postMessage,
 * IndexedDB); `from(data)` rebuilds a hash that gives the same answers,
 * keeps every id and reuses free ids in the same order. Cells are rebuilt,
 * not saved.
 *
 * @module
 */

import { describe } from '../core/validate.js';
import type { FromDataOptions, ToDataOptions } from '../spatialhash/data.js';
import { ALL_BITS, DEFAULT_CATEGORY } from '../spatialhash/filter.js';
import { FREE, type PointHashBase } from './base.js';

/** What {@link PointHash2D.toData} / {@link PointHash3D.toData} return and `from` reads. */
export interface PointHashData {
  /** Always 'pointhash'. */
  format: 'pointhash';
  /** Layout version, 1. */
  version: 1;
  /** 2 or 3. */
  dimension: 2 | 3;
  /** The hash's cell size. */
  cellSize: number;
  /** One past the highest id in use or free. */
  idLimit: number;
  /** Ids of the stored points, ascending. */
  ids: Int32Array;
  /** The stored (or encoded) items, in the order of `ids`. */
  items: unknown[];
  /** Coordinates in the order of `ids`, `dimension` numbers each. */
  positions: Float64Array;
  /** Categories in the order of `ids` (32 bits, signed). */
  categories: Int32Array;
  /** Masks in the order of `ids` (32 bits, signed). */
  masks: Int32Array;
  /** Every id below idLimit that is not in use; the last one is reused first. */
  freeIds: Int32Array;
}

/** Implements `toData` of both point hashes. O(points). */
export function pointsToData<T>(hash: PointHashBase<T>, options: ToDataOptions<T> = {}): PointHashData {
  if (options === null || typeof options !== 'object') {
    throw new RangeError(`options must be an object { encodeItem? }, got ${describe(options)}`);
  }
  const encode = options.encodeItem;
  if (encode !== undefined && typeof encode !== 'function') {
    throw new RangeError(`encodeItem must be a function, got ${describe(encode)}`);
  }
  const n = hash.size;
  const dim = hash.dim;
  const ids = new Int32Array(n);
  const items: unknown[] = new Array(n);
  const positions = new Float64Array(n * dim);
  const categories = new Int32Array(n).fill(DEFAULT_CATEGORY);
  const masks = new Int32Array(n).fill(ALL_BITS);
  const filters = hash.filters;
  let i = 0;
  for (let h = 0; h < hash.handleLimit; h++) {
    if (hash.home[h * 2] === FREE) continue;
    const item = hash.items[h] as T;
    if (encode !== undefined) {
      items[i] = encode(item, h);
    } else if (typeof item === 'number' || typeof item === 'string') {
      items[i] = item;
    } else {
      throw new Error(
        `toData: item ${h} is ${describe(item)}, not a number or string; pass { encodeItem } to turn items into data`,
      );
    }
    ids[i] = h;
    const s = hash.slotOf(h);
    const slots = hash.slotArray(h);
    for (let a = 0; a < dim; a++) positions[i * dim + a] = slots[s + a];
    if (filters !== undefined) {
      categories[i] = filters[h * 2];
      masks[i] = filters[h * 2 + 1];
    }
    i++;
  }
  return {
    format: 'pointhash',
    version: 1,
    dimension: dim,
    cellSize: hash.cellSize,
    idLimit: hash.handleLimit,
    ids,
    items,
    positions,
    categories,
    masks,
    freeIds: hash.freeHandles.slice(0, hash.freeHandleCount),
  };
}

/** Throws the Error of a malformed snapshot. */
function bad(what: string): never {
  throw new Error(`from: invalid PointHash data: ${what}`);
}

/** Checks the shape of `data` for a hash of `dim` dimensions, before anything is built. */
export function checkPointData(data: unknown, dim: 2 | 3): PointHashData {
  if (data === null || typeof data !== 'object') bad(`expected an object from toData(), got ${describe(data)}`);
  const d = data as PointHashData;
  if (d.format !== 'pointhash') bad(`format must be 'pointhash', got ${describe(d.format)}`);
  if (d.version !== 1) bad(`version must be 1, got ${describe(d.version)}`);
  if (d.dimension !== dim) bad(`dimension is ${describe(d.dimension)}, this is a ${dim}D hash`);
  const n = d.ids instanceof Int32Array ? d.ids.length : bad('ids must be an Int32Array');
  if (!Array.isArray(d.items) || d.items.length !== n) bad(`items must be an array of ${n} values`);
  if (!(d.positions instanceof Float64Array) || d.positions.length !== n * dim) {
    bad(`positions must be a Float64Array of ${n * dim} numbers`);
  }
  if (!(d.categories instanceof Int32Array) || d.categories.length !== n)
    bad(`categories must be an Int32Array of ${n}`);
  if (!(d.masks instanceof Int32Array) || d.masks.length !== n) bad(`masks must be an Int32Array of ${n}`);
  if (!(d.freeIds instanceof Int32Array)) bad('freeIds must be an Int32Array');
  const limit = d.idLimit;
  if (!Number.isInteger(limit) || limit < n || limit !== n + d.freeIds.length || limit > 2 ** 28) {
    bad(`idLimit ${describe(limit)} must equal the number of ids plus free ids`);
  }
  for (let i = 0; i < d.positions.length; i++) {
    if (!Number.isFinite(d.positions[i])) bad(`positions[${i}] is ${d.positions[i]}, not finite`);
  }
  return d;
}

/**
 * Fills an empty hash, made with room for `d.idLimit` ids, from checked data;
 * `place(h, i)` files id h at the i-th position. Throws an Error on a
 * repeated or out of range id or a repeated item; the caller drops the hash then.
 */
export function restorePoints<T>(
  hash: PointHashBase<T>,
  d: PointHashData,
  options: FromDataOptions<T> = {},
  place: (h: number, i: number) => void,
): void {
  if (options === null || typeof options !== 'object') {
    throw new RangeError(`options must be an object { decodeItem?, trackItems? }, got ${describe(options)}`);
  }
  const decode = options.decodeItem;
  if (decode !== undefined && typeof decode !== 'function') {
    throw new RangeError(`decodeItem must be a function, got ${describe(decode)}`);
  }
  const limit = d.idLimit;
  const seen = new Uint8Array(limit);
  for (let i = 0; i < d.ids.length; i++) {
    const h = d.ids[i];
    if (!(h >= 0 && h < limit) || seen[h] === 1) bad(`ids[${i}] = ${h} is out of range or repeated`);
    seen[h] = 1;
  }
  for (let i = 0; i < d.freeIds.length; i++) {
    const h = d.freeIds[i];
    if (!(h >= 0 && h < limit) || seen[h] === 1) bad(`freeIds[${i}] = ${h} is out of range, in use or repeated`);
    seen[h] = 1;
    hash.freeHandles[i] = h;
    hash.home[h * 2] = FREE;
  }
  hash.freeHandleCount = d.freeIds.length;
  hash.handleLimit = limit;
  for (let i = 0; i < d.ids.length; i++) {
    const h = d.ids[i];
    const item = decode !== undefined ? decode(d.items[i], h) : (d.items[i] as T);
    if (hash.trackItems) {
      if (hash.handles.has(item)) bad(`item of id ${h} (${describe(item)}) is stored twice`);
      hash.handles.set(item, h);
    }
    hash.items[h] = item;
    hash.itemCount++;
    hash.setFilterBits(h, d.categories[i], d.masks[i]);
    place(h, i);
  }
}
