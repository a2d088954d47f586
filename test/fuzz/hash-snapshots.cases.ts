/**
 * Fuzz cases for the snapshots of the four dynamic hashes ('spatialhash' and
 * 'pointhash' formats): toData() of a real hash, then one to three random
 * mutations of its fields (counts, capacities, ids, free lists,
 * maxCellsPerItem, cellSize, NaN, Infinity, negative and huge numbers,
 * arrays of the wrong type or length, truncated arrays, lying lengths,
 * shared memory, repeated items). from() must then either
 *
 * - throw an Error saying what is wrong, exactly when an independent
 *   validity check (written here from the format's description) says the
 *   data is invalid, or
 * - build a hash that holds exactly what the data says, checked against
 *   brute force (ids, items, boxes or positions, filters, queries, the
 *   order of id reuse, a round trip through toData), with no more memory
 *   than the data justifies.
 *
 * Every case is small (at most 16 items), so its work is bounded; the
 * runner's watchdog names a case that hangs.
 *
 * @module
 */

import fc from 'fast-check';
import { expect } from 'vitest';
import { MAX_CELLS_PER_ITEM_LIMIT } from '../../src/index.js';
import { retainedBytes } from '../spatialhash/memory.js';
import {
  type Adapted,
  checkNearest,
  checkQueryBox,
  checkQueryRadius,
  coveredCells,
  hashFrom,
  KINDS,
  type Kind,
  kindName,
  type Model,
  makeHash,
} from './hash-model.js';
import { fuzz } from './support.js';

/** Values that a numeric field must not take, and some it may. */
const ODD_VALUES: unknown[] = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -1,
  0,
  -0,
  0.5,
  1,
  2,
  3,
  5e-324,
  1e-300,
  1e300,
  Number.MAX_VALUE,
  4096,
  4097,
  1e15,
  2 ** 28,
  2 ** 28 + 1,
  2 ** 31,
  2 ** 53,
  '1',
  null,
  undefined,
  {},
  [],
  true,
  1n,
];

/** Values for one element of a typed array (ids, free ids, coordinates, filters). */
const ODD_ELEMENTS = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -1,
  0,
  -0,
  1,
  2,
  3,
  7,
  15,
  16,
  17,
  2 ** 31 - 1,
  -(2 ** 31),
  1e300,
  -Number.MAX_VALUE,
  5e-324,
];

type Field = 'ids' | 'items' | 'geometry' | 'categories' | 'masks' | 'freeIds';

/** One change to a snapshot. */
type Mutation =
  | { type: 'field'; field: 'cellSize' | 'maxCellsPerItem' | 'idLimit' | 'version' | 'dimension'; value: unknown }
  | { type: 'format'; value: unknown }
  | { type: 'array'; field: Field; how: 'type' | 'plain' | 'longer' | 'shorter' | 'empty' | 'liar' | 'shared' | 'gone' }
  | { type: 'element'; field: Field; index: number; value: number | 'repeat' | 'swap' }
  | { type: 'moreFree'; count: number }
  | { type: 'renumber'; index: number };

const FIELDS: Field[] = ['ids', 'items', 'geometry', 'categories', 'masks', 'freeIds'];

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    type: fc.constant('field' as const),
    field: fc.constantFrom(
      'cellSize' as const,
      'maxCellsPerItem' as const,
      'idLimit' as const,
      'version' as const,
      'dimension' as const,
    ),
    value: fc.constantFrom(...ODD_VALUES),
  }),
  fc.record({
    type: fc.constant('format' as const),
    value: fc.constantFrom('spatialhash', 'pointhash', 'x', undefined),
  }),
  fc.record({
    type: fc.constant('array' as const),
    field: fc.constantFrom(...FIELDS),
    how: fc.constantFrom(
      'type' as const,
      'plain' as const,
      'longer' as const,
      'shorter' as const,
      'empty' as const,
      'liar' as const,
      'shared' as const,
      'gone' as const,
    ),
  }),
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('element' as const),
      field: fc.constantFrom(...FIELDS),
      index: fc.nat(40),
      value: fc.oneof(fc.constantFrom(...ODD_ELEMENTS), fc.constantFrom('repeat' as const, 'swap' as const)),
    }),
  },
  fc.record({ type: fc.constant('moreFree' as const), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ type: fc.constant('renumber' as const), index: fc.nat(40) }),
);

/** Coordinates of the items before mutation: ordinary, on borders, far, huge. */
const coordinateArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -20, max: 20 }).map((n) => n / 2) },
  { weight: 1, arbitrary: fc.constantFrom(1e9, -1e12, 2 ** 53, 1e300, -Number.MAX_VALUE) },
);

interface SnapshotCase {
  kind: Kind;
  cellSize: number;
  maxCellsPerItem: number;
  trackItems: boolean;
  /** from()'s maxCells option, or undefined for its default. */
  maxCells: number | undefined;
  boxes: { min: number[]; size: number[] }[];
  removed: boolean[];
  /** Independent sets of mutations, each applied to a fresh copy of the snapshot. */
  mutations: Mutation[][];
  query: number[];
}

const caseArb: fc.Arbitrary<SnapshotCase> = fc
  .record({
    kind: fc.constantFrom(...KINDS),
    cellSize: fc.constantFrom(1, 0.5, 3, 1e-3, 1e6),
    maxCellsPerItem: fc.constantFrom(1, 4, 256, MAX_CELLS_PER_ITEM_LIMIT),
    trackItems: fc.boolean(),
    maxCells: fc.option(fc.constantFrom(0, 1, 5, 16, 100, 5000, Number.POSITIVE_INFINITY), { nil: undefined }),
    boxes: fc.array(
      fc.record({
        min: fc.array(coordinateArb, { minLength: 3, maxLength: 3 }),
        size: fc.array(fc.constantFrom(0, 0, 0.5, 2, 1e3), { minLength: 3, maxLength: 3 }),
      }),
      { minLength: 0, maxLength: 16, size: 'max' },
    ),
    removed: fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }),
    mutations: fc.array(fc.array(mutationArb, { minLength: 1, maxLength: 3 }), { minLength: 24, maxLength: 24 }),
    query: fc.array(fc.integer({ min: -24, max: 24 }), { minLength: 6, maxLength: 6 }),
  })
  .map((c) => c);

/** The box of item i of a case: dim mins, then dim maxes (a point for a point hash). */
function boxOf(c: SnapshotCase, i: number): number[] {
  const dim = c.kind.dim;
  const { min, size } = c.boxes[i];
  const lo = min.slice(0, dim);
  const hi = lo.map((v, a) => (c.kind.points ? v : Number.isFinite(v + size[a]) ? v + size[a] : v));
  return [...lo, ...hi];
}

/** A typed array of the same kind holding `values`. */
function like(array: Int32Array | Float64Array, values: ArrayLike<number>): Int32Array | Float64Array {
  return array instanceof Int32Array ? Int32Array.from(values) : Float64Array.from(values);
}

/** A copy of the typed array on a SharedArrayBuffer, which another thread could rewrite. */
function shared(array: Int32Array | Float64Array): Int32Array | Float64Array {
  const buffer = new SharedArrayBuffer(array.byteLength);
  const copy = array instanceof Int32Array ? new Int32Array(buffer) : new Float64Array(buffer);
  copy.set(array);
  return copy;
}

/** A subclass whose `length` claims far more elements than it holds. */
class LyingInts extends Int32Array {
  override get length(): number {
    return 1 << 20;
  }
}
class LyingFloats extends Float64Array {
  override get length(): number {
    return 1 << 20;
  }
}

/** Applies `m` to the snapshot `d` (a plain object of the snapshot's fields, changed in place). */
function mutate(d: Record<string, unknown>, m: Mutation, geometry: string, boxStride: number): void {
  if (m.type === 'field') {
    d[m.field] = m.value;
    return;
  }
  if (m.type === 'format') {
    d.format = m.value;
    return;
  }
  const name = (field: Field) => (field === 'geometry' ? geometry : field);
  if (m.type === 'moreFree') {
    // Valid: new free ids past the limit, which grows with them.
    const limit = d.idLimit as number;
    if (!Number.isInteger(limit) || !(d.freeIds instanceof Int32Array)) return;
    const more = Int32Array.from({ length: m.count }, (_, k) => limit + k);
    d.freeIds = Int32Array.from([...d.freeIds, ...more]);
    d.idLimit = limit + m.count;
    return;
  }
  if (m.type === 'renumber') {
    // Valid: an item takes a free id, its old id becomes free.
    const ids = d.ids as Int32Array;
    const free = d.freeIds as Int32Array;
    if (!(ids instanceof Int32Array) || !(free instanceof Int32Array) || ids.length === 0 || free.length === 0) return;
    const i = m.index % ids.length;
    const f = m.index % free.length;
    const nextIds = Int32Array.from(ids);
    const nextFree = Int32Array.from(free);
    [nextIds[i], nextFree[f]] = [free[f], ids[i]];
    d.ids = nextIds;
    d.freeIds = nextFree;
    return;
  }
  const key = name(m.field);
  const value = d[key];
  if (m.type === 'array') {
    if (m.how === 'gone') {
      delete d[key];
      return;
    }
    if (Array.isArray(value)) {
      if (m.how === 'longer') d[key] = [...value, value.length];
      else if (m.how === 'shorter' || m.how === 'empty') d[key] = value.slice(0, m.how === 'empty' ? 0 : -1);
      else if (m.how === 'type') d[key] = Int32Array.from(value.map(Number));
      return;
    }
    if (!(value instanceof Int32Array || value instanceof Float64Array)) return;
    if (m.how === 'type') d[key] = value instanceof Int32Array ? Float64Array.from(value) : Int32Array.from(value);
    else if (m.how === 'plain') d[key] = Array.from(value);
    else if (m.how === 'longer') d[key] = like(value, [...value, 1]);
    else if (m.how === 'shorter') d[key] = value.subarray(0, Math.max(0, value.length - 1));
    else if (m.how === 'empty') d[key] = like(value, []);
    else if (m.how === 'liar') d[key] = value instanceof Int32Array ? new LyingInts(value) : new LyingFloats(value);
    else if (m.how === 'shared') d[key] = shared(value);
    return;
  }
  // One element.
  if (Array.isArray(value)) {
    if (value.length === 0) return;
    const copy = value.slice();
    const i = m.index % copy.length;
    copy[i] = m.value === 'repeat' ? copy[(i + 1) % copy.length] : m.value === 'swap' ? `item ${i}` : m.value;
    d[key] = copy;
    return;
  }
  if (!(value instanceof Int32Array || value instanceof Float64Array) || value.length === 0) return;
  const copy = like(value, value);
  const i = m.index % copy.length;
  if (m.value === 'repeat') copy[i] = copy[(i + 1) % copy.length];
  else if (m.value === 'swap') {
    // In a box, a min and its max trade places.
    const stride = key === 'boxes' ? boxStride : 1;
    const half = stride / 2;
    const at = i - (i % stride);
    if (stride > 1) [copy[at], copy[at + half]] = [copy[at + half], copy[at]];
  } else copy[i] = m.value;
  d[key] = copy;
}

/** The length of a typed array as the engine keeps it. */
const lengthOf = (a: ArrayBufferView): number => a.byteLength / (a as Int32Array).BYTES_PER_ELEMENT;

/**
 * Whether `d` is a valid snapshot for `kind`, decided from the format's
 * description, independently of from()'s code.
 */
function isValid(d: Record<string, unknown>, kind: Kind, trackItems: boolean, maxCells: number | undefined): boolean {
  const geometry = kind.points ? 'positions' : 'boxes';
  if (d.format !== (kind.points ? 'pointhash' : 'spatialhash') || d.version !== 1 || d.dimension !== kind.dim)
    return false;
  const cs = d.cellSize;
  if (typeof cs !== 'number' || !(cs > 0 && cs < Number.POSITIVE_INFINITY)) return false;
  if (!kind.points) {
    const max = d.maxCellsPerItem;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > MAX_CELLS_PER_ITEM_LIMIT) return false;
  }
  const { ids, items, categories, masks, freeIds } = d;
  if (!(ids instanceof Int32Array) || !(categories instanceof Int32Array) || !(masks instanceof Int32Array))
    return false;
  if (!(freeIds instanceof Int32Array)) return false;
  const n = lengthOf(ids);
  if (!Array.isArray(items) || items.length !== n || lengthOf(categories) !== n || lengthOf(masks) !== n) return false;
  const limit = d.idLimit;
  if (typeof limit !== 'number' || limit !== n + lengthOf(freeIds) || limit > 2 ** 28) return false;
  const g = d[geometry];
  const stride = kind.points ? kind.dim : kind.dim * 2;
  if (!(g instanceof Float64Array) || lengthOf(g) !== n * stride) return false;
  for (let i = 0; i < n * stride; i++) if (!Number.isFinite(g[i])) return false;
  if (!kind.points) {
    for (let i = 0; i < n; i++) {
      for (let a = 0; a < kind.dim; a++) if (g[i * stride + a] > g[i * stride + kind.dim + a]) return false;
    }
  }
  // The cells the items are filed under (a point: one), within maxCells: by default 16 per item, at least 65,536.
  let cells = 0;
  for (let i = 0; i < n; i++) {
    const box = Array.from(g.subarray(i * stride, (i + 1) * stride));
    cells += kind.points ? 1 : coveredCells(box, cs, d.maxCellsPerItem as number);
  }
  if (cells > (maxCells ?? Math.max(65_536, 16 * n))) return false;
  const seen = new Set<number>();
  for (const id of [...ids.subarray(0, n), ...freeIds.subarray(0, lengthOf(freeIds))]) {
    if (id < 0 || id >= limit || seen.has(id)) return false;
    seen.add(id);
  }
  if (trackItems && new Set(items).size !== items.length) return false;
  return true;
}

/** Checks a hash from() built out of valid data `d` against what `d` says. */
function checkRestored(adapted: Adapted, d: Record<string, unknown>, c: SnapshotCase): void {
  const kind = c.kind;
  const dim = kind.dim;
  // Copies hold the elements the engine keeps, whatever a subclass's length getter says.
  const ids = new Int32Array(d.ids as Int32Array);
  const items = d.items as number[];
  const g = new Float64Array(d[kind.points ? 'positions' : 'boxes'] as Float64Array);
  const stride = kind.points ? dim : dim * 2;
  const categories = new Int32Array(d.categories as Int32Array);
  const masks = new Int32Array(d.masks as Int32Array);
  const freeIds = new Int32Array(d.freeIds as Int32Array);
  adapted.validate();
  const hash = adapted.hash;
  expect(hash.size).toBe(ids.length);
  const model: Model = new Map();
  let cells = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const geometry = Array.from(g.subarray(i * stride, (i + 1) * stride));
    const box = kind.points ? [...geometry, ...geometry] : geometry;
    expect(hash.hasId(id)).toBe(true);
    expect(Object.is(hash.itemById(id), items[i]) || hash.itemById(id) === items[i]).toBe(true);
    expect(adapted.boxById(id)).toEqual(box);
    expect(hash.categoryOf(id)).toBe(categories[i] >>> 0);
    expect(hash.maskOf(id)).toBe(masks[i] >>> 0);
    // Items may repeat without trackItems: the model is keyed by id through a unique stand-in.
    model.set(id, box);
    if (!kind.points) cells += coveredCells(box, d.cellSize as number, d.maxCellsPerItem as number);
  }
  for (let i = 0; i < freeIds.length; i++) expect(hash.hasId(freeIds[i])).toBe(false);
  // Queries answer by item; with unique items they map back to ids one to one.
  if (new Set(items).size === items.length) {
    // A query's default mask is every bit: an item of category 0 is never reported.
    const byItem: Model = new Map();
    for (let i = 0; i < ids.length; i++) if (categories[i] !== 0) byItem.set(items[i], model.get(ids[i]) as number[]);
    const scale = d.cellSize as number;
    const finite = (v: number, fallback: number) => (Number.isFinite(v) ? v : fallback);
    const q = c.query.map((v) => finite(v * scale, v));
    const point = q.slice(0, dim);
    const box = [...point, ...point.map((v, a) => finite(v + Math.abs(q[3 + a]) * 2, v))];
    checkQueryBox(adapted, byItem, box);
    checkQueryRadius(adapted, byItem, point, scale * 4);
    checkNearest(adapted, byItem, point, 3, Number.POSITIVE_INFINITY);
  }
  // toData gives the same snapshot back (ids ascending), the free ids in the same order.
  const again = adapted.toData() as unknown as Record<string, unknown>;
  expect(Array.from(again.freeIds as Int32Array)).toEqual(Array.from(freeIds));
  const order = Array.from(ids.keys()).sort((a, b) => ids[a] - ids[b]);
  expect(Array.from(again.ids as Int32Array)).toEqual(order.map((i) => ids[i]));
  // The next insert reuses the last free id, or takes the limit.
  const next = freeIds.length > 0 ? freeIds[freeIds.length - 1] : (d.idLimit as number);
  expect(adapted.insert({ fresh: true } as never, Array(dim * 2).fill(0))).toBe(next);
  // Memory: bounded by the ids and (box hash) the cells the boxes cover, each within maxCellsPerItem.
  const limit = d.idLimit as number;
  const budget = kind.points ? 200 * (limit + 64) : 600 * (limit + 64) + 600 * cells;
  expect(retainedBytes(hash)).toBeLessThanOrEqual(budget);
}

function runCase(c: SnapshotCase): void {
  const kind = c.kind;
  const source = makeHash(kind, { cellSize: c.cellSize, maxCellsPerItem: c.maxCellsPerItem });
  for (let i = 0; i < c.boxes.length; i++) source.insert(i, boxOf(c, i));
  for (let i = 0; i < c.boxes.length; i++) if (c.removed[i]) source.remove(i);
  const snapshot = source.toData() as unknown as Record<string, unknown>;
  const geometry = kind.points ? 'positions' : 'boxes';
  for (const set of c.mutations) {
    const d = { ...snapshot };
    for (const m of set) mutate(d, m, geometry, kind.dim * 2);
    const valid = isValid(d, kind, c.trackItems, c.maxCells);
    let adapted: Adapted | undefined;
    let error: unknown;
    try {
      adapted = hashFrom(kind, d, c.trackItems, c.maxCells);
    } catch (e) {
      error = e;
    }
    const what = `${kindName(kind)}.from() after ${JSON.stringify(set, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}`;
    if (!valid) {
      expect(error, `${what} took invalid data`).toBeInstanceOf(Error);
      expect(error, what).not.toBeInstanceOf(TypeError);
      expect((error as Error).message, what).toMatch(/^from: invalid (SpatialHash|PointHash) data: \S/);
      continue;
    }
    expect(error, `${what} refused valid data: ${String(error)}`).toBeUndefined();
    checkRestored(adapted as Adapted, d, c);
  }
}

export const suites = {
  snapshots(): void {
    fuzz('hash snapshots: mutated toData() into from()', caseArb, runCase, 1500);
  },
};
