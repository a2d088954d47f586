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
import {
  type CheckedIds,
  checkCellBudget,
  checkIdSnapshot,
  encodeItem,
  type FromDataOptions,
  float64Length,
  readDecoder,
  readEncoder,
  readMaxCells,
  type ToDataOptions,
} from '../spatialhash/data.js';
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
  const encode = readEncoder(options);
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
    items[i] = encodeItem(hash.items[h] as T, h, encode);
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

/** A snapshot checked by {@link checkPointData}: its own copies of the typed arrays. */
export interface CheckedPoints extends CheckedIds {
  positions: Float64Array;
}

/**
 * Checks `data` for a hash of `dim` dimensions before anything is built (see
 * checkIdSnapshot: every point has one slot, so what from() builds is O(ids);
 * its one cell per point counts against `options.maxCells` as for the box
 * hashes) and returns copies of its typed arrays, every position finite.
 */
export function checkPointData(data: unknown, dim: 2 | 3, options?: FromDataOptions<unknown>): CheckedPoints {
  const checked = checkIdSnapshot(data, 'pointhash', dim, bad);
  const n = checked.ids.length;
  checkCellBudget('PointHash', n, readMaxCells(options, n));
  const given = (data as PointHashData).positions;
  if (float64Length(given) !== n * dim) bad(`positions must be a Float64Array of ${n * dim} numbers`);
  const positions = new Float64Array(given);
  for (let i = 0; i < positions.length; i++) {
    if (!Number.isFinite(positions[i])) bad(`positions[${i}] is ${positions[i]}, not finite`);
  }
  return { ...checked, positions };
}

/**
 * Fills an empty hash, made with room for `d.idLimit` ids, from checked data;
 * `place(h, i)` files id h at the i-th position. Throws an Error on a
 * repeated or out of range id or a repeated item; the caller drops the hash
 * then. O(ids).
 */
export function restorePoints<T>(
  hash: PointHashBase<T>,
  d: CheckedPoints,
  options: FromDataOptions<T> = {},
  place: (h: number, i: number) => void,
): void {
  const decode = readDecoder(options);
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
