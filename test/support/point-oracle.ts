/**
 * The property tests shared by PointHash2D and PointHash3D: random command
 * sequences (insert by item, update by item and by id, remove by item and by
 * id, clear, filters by item and by id, bursts of inserts, moves of every
 * point and mass removals so ids are reused, every query, visitors that try
 * to change the hash, and rejected calls) run against the hash and against a
 * brute-force model, with `validate()` and a full comparison after every step.
 *
 * The tests see the hash only through {@link PointHashUnderTest}, written once
 * per dimension in the test files so the argument lists of the real API stay
 * visible there. Points are `[x, y]` or `[x, y, z]`; boxes are flat arrays in
 * argument order (all mins, then all maxes), as in box-oracle.ts.
 *
 * The model states the semantics in the most obvious code: a point is in a
 * closed box when `min <= p <= max` on every axis; within radius r of q when
 * `sum over axes of (p - q)^2 <= r * r`, evaluated in float64 as if the
 * exponent range were unbounded (the distance rule of src/core/distance.ts,
 * decided by exact-distance.ts: a point 1e306 away is not within 1e300, one
 * 1e-200 away not within 0); two points
 * pair when within the radius and `(a.category & b.mask) !== 0 && (b.category
 * & a.mask) !== 0`; a query mask keeps points with `(category & mask) !== 0`.
 *
 * @module
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Box, Point } from './box-oracle.js';
import { dyadicKey, ruleSquareFast, smallestKeys, withinRule } from './exact-distance.js';
import { everythingBox, expectRangeError, ItemIds, makeItemPool, nextDown, nextUp } from './hash-properties.js';

// ---------------------------------------------------------------------------
// The hash under test

/** A visitor of forEachOverlap / forEach: `true` from forEachOverlap's stops the walk. */
export type IdVisitor = (item: unknown, id: number) => unknown;

/** One point hash seen through flat point / box arrays. Optional arguments are passed through as given. */
export interface PointHashUnderTest {
  readonly size: number;
  readonly cellSize: number;
  readonly cellCount: number;
  readonly trackItems: boolean;
  insert(item: unknown, p: Point, filter?: unknown): number;
  update(item: unknown, p: Point): void;
  updateById(id: unknown, p: Point): void;
  remove(item: unknown): boolean;
  removeById(id: unknown): unknown;
  has(item: unknown): boolean;
  hasId(id: unknown): boolean;
  idOf(item: unknown): number;
  itemById(id: unknown): unknown;
  positionById(id: unknown, out?: number[]): number[];
  getPosition(item: unknown, out?: number[]): number[] | undefined;
  categoryOf(id: unknown): number;
  maskOf(id: unknown): number;
  setFilter(item: unknown, category: unknown, mask: unknown): void;
  setFilterById(id: unknown, category: unknown, mask: unknown): void;
  clear(): void;
  queryBox(box: Box, out?: unknown[], mask?: unknown): unknown[];
  forEachOverlap(box: Box, visit: unknown, mask?: unknown): boolean;
  queryRadius(p: Point, radius: unknown, out?: unknown[], mask?: unknown): unknown[];
  nearest(
    p: Point,
    k?: unknown,
    maxDistance?: unknown,
    out?: unknown[],
    mask?: unknown,
    predicate?: unknown,
  ): unknown[];
  forEachPair(radius: unknown, visit: unknown): void;
  forEach(visit: unknown): void;
  [Symbol.iterator](): Iterator<unknown>;
  validate(): void;
}

/** Makes a hash from constructor options, passed through untouched (bad ones too). */
export type PointHashFactory = (options: unknown) => PointHashUnderTest;

/** Argument names of the public API, per dimension: a point's, then a box's. */
export function pointArgumentNames(dim: 2 | 3): { point: string[]; box: string[] } {
  return dim === 2
    ? { point: ['x', 'y'], box: ['minX', 'minY', 'maxX', 'maxY'] }
    : { point: ['x', 'y', 'z'], box: ['minX', 'minY', 'minZ', 'maxX', 'maxY', 'maxZ'] };
}

// ---------------------------------------------------------------------------
// The model

/** Squared distance in the library's formula: per axis `d = p - q`, squares summed left to right. */
export function distance2(p: Point, q: Point): number {
  let sum = 0;
  for (let a = 0; a < p.length; a++) {
    const d = p[a] - q[a];
    sum += d * d;
  }
  return sum;
}

/** True when the closed box contains the point. */
function inBox(box: Box, p: Point): boolean {
  const dim = p.length;
  for (let a = 0; a < dim; a++) if (!(box[a] <= p[a] && p[a] <= box[a + dim])) return false;
  return true;
}

/** A stored point in the model; category and mask as signed 32-bit integers. */
export interface StoredPoint {
  item: unknown;
  point: number[];
  category: number;
  mask: number;
}

/** What the hash should hold, by id. Items are distinct (SameValueZero, like Map keys). */
export class PointModel {
  readonly byId = new Map<number, StoredPoint>();
  readonly idByItem = new Map<unknown, number>();
  /** Ids handed out and not in use. */
  readonly free = new Set<number>();
  /** One past the highest id handed out since the last clear. */
  idLimit = 0;

  constructor(readonly cellSize: number) {}

  /** Live ids, ascending. */
  ids(): number[] {
    return [...this.byId.keys()].sort((a, b) => a - b);
  }

  /** Records an insert that returned `id`: a free id, or the next new one when none is free. */
  inserted(id: number, stored: StoredPoint): void {
    expect(Number.isInteger(id) && id >= 0, `insert returned ${id}`).toBe(true);
    if (this.free.size > 0) expect(this.free.has(id), `insert returned ${id}, not a free id`).toBe(true);
    else expect(id, 'insert with no free id returns the next new id').toBe(this.idLimit);
    this.free.delete(id);
    if (id >= this.idLimit) this.idLimit = id + 1;
    this.byId.set(id, stored);
    this.idByItem.set(stored.item, id);
  }

  removed(id: number): void {
    const s = this.byId.get(id) as StoredPoint;
    this.idByItem.delete(s.item);
    this.byId.delete(id);
    this.free.add(id);
  }

  clear(): void {
    this.byId.clear();
    this.idByItem.clear();
    this.free.clear();
    this.idLimit = 0;
  }

  /** Ids passing a query mask (and `keep`), ascending. */
  passing(mask: number, keep: (id: number) => boolean = () => true): number[] {
    return this.ids().filter((id) => ((this.byId.get(id) as StoredPoint).category & mask) !== 0 && keep(id));
  }

  queryBox(box: Box, mask = -1): number[] {
    return this.passing(mask, (id) => inBox(box, (this.byId.get(id) as StoredPoint).point));
  }

  queryRadius(p: Point, radius: number, mask = -1): number[] {
    return this.passing(mask, (id) => withinRule((this.byId.get(id) as StoredPoint).point, p, radius));
  }

  /**
   * The rule's squared distances (as dyadicKey strings) of the k nearest
   * passing points within maxDistance, ascending.
   */
  nearestDistances(p: Point, k: number, maxDistance: number, mask: number, keep: (id: number) => boolean): string[] {
    return smallestKeys(
      this.passing(mask, keep)
        .filter((id) => withinRule((this.byId.get(id) as StoredPoint).point, p, maxDistance))
        .map((id) => ruleSquareFast((this.byId.get(id) as StoredPoint).point, p)),
      k,
    );
  }

  /** Every unordered pair within `radius` whose filters accept each other, as sorted "a|b" keys of ids. */
  pairs(radius: number): string[] {
    const ids = this.ids();
    const keys: string[] = [];
    for (let i = 0; i < ids.length; i++) {
      const a = this.byId.get(ids[i]) as StoredPoint;
      for (let j = i + 1; j < ids.length; j++) {
        const b = this.byId.get(ids[j]) as StoredPoint;
        if (!withinRule(a.point, b.point, radius)) continue;
        if ((a.category & b.mask) === 0 || (b.category & a.mask) === 0) continue;
        keys.push(pairKey(ids[i], ids[j]));
      }
    }
    return keys.sort();
  }

  /** Number of distinct cells holding a point, leaving out far points (a cell index past 2^52 on some axis). */
  cellCount(): number {
    const cells = new Set<string>();
    for (const s of this.byId.values()) {
      const cell = s.point.map((v) => Math.floor(v / this.cellSize));
      if (cell.every((k) => Math.abs(k) <= 2 ** 52)) cells.add(cell.join(','));
    }
    return cells.size;
  }
}

/** Order-free key of a pair of ids. */
function pairKey(a: number, b: number): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

// ---------------------------------------------------------------------------
// Error checks

/** Runs `call`, expecting an Error of any kind whose message names each of `names` (e.g. the method). */
export function expectErrorNaming(call: () => unknown, names: readonly string[]): void {
  let error: unknown;
  try {
    call();
  } catch (e) {
    error = e;
  }
  expect(error, `expected an Error naming ${names.join(', ')}`).toBeInstanceOf(Error);
  const message = (error as Error).message;
  for (const name of names) expect(message, `message "${message}" should name ${name}`).toContain(name);
}

/** A value as the library's messages quote it: strings in double quotes. */
function shown(value: unknown): unknown {
  return typeof value === 'string' ? JSON.stringify(value) : value;
}

// ---------------------------------------------------------------------------
// Generators

/** The world a run lives in. */
export interface PointScenario {
  cellSize: number;
  /** 0 or 1 make every array grow many times during a run; undefined is the default. */
  initialCapacity: number | undefined;
  /** undefined is the default (true). */
  trackItems: boolean | undefined;
  /** Added to every ordinary coordinate: 0, or far from the origin. */
  origin: number;
}

/** Cell sizes worth testing: powers of two, decimals that do not divide evenly, tiny and huge. */
export const POINT_CELL_SIZES = [1, 10, 0.1, 0.3, 1 / 3, 7, 1e-3, 1e6] as const;

export function scenarioArb(options: {
  cellSizes?: readonly number[];
  trackItems?: readonly (boolean | undefined)[];
  origins?: (cellSize: number) => number[];
}): fc.Arbitrary<PointScenario> {
  const cellSizes = options.cellSizes ?? POINT_CELL_SIZES;
  const tracks = options.trackItems ?? [undefined, true, false];
  const origins = options.origins ?? ((cs: number) => [0, 0, 0, 1e12 * cs, -1e12 * cs]);
  return fc
    .record({
      cellSize: fc.constantFrom(...cellSizes),
      initialCapacity: fc.constantFrom(undefined, undefined, 0, 1, 300),
      trackItems: fc.constantFrom(...tracks),
      originIndex: fc.nat(),
    })
    .map(({ cellSize, initialCapacity, trackItems, originIndex }) => {
      const list = origins(cellSize);
      return { cellSize, initialCapacity, trackItems, origin: list[originIndex % list.length] };
    });
}

/**
 * A coordinate: mostly on or near the cell grid around the scenario's origin
 * (cell borders, one ulp either side, -0, negative cells, many coincident),
 * sometimes a far one: past 2^52 cells (the far list) or right at that limit.
 */
export function coordinateArb(s: PointScenario): fc.Arbitrary<number> {
  const cs = s.cellSize;
  const local = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -24, max: 24 }).map((i) => (i * cs) / 4) },
    { weight: 2, arbitrary: fc.integer({ min: -6, max: 6 }).map((k) => k * cs) },
    {
      weight: 1,
      arbitrary: fc
        .record({ k: fc.integer({ min: -6, max: 6 }), up: fc.boolean() })
        .map(({ k, up }) => (up ? nextUp(k * cs) : nextDown(k * cs))),
    },
    { weight: 2, arbitrary: fc.double({ min: -6 * cs, max: 6 * cs, noNaN: true }) },
    { weight: 1, arbitrary: fc.constant(-0) },
  );
  const far = fc.constantFrom(
    1e300,
    -1e300,
    -9.87e250,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    1e15,
    -1e15,
    2 ** 52 * cs,
    -(2 ** 52) * cs,
    2 ** 53 * cs,
    -(2 ** 54) * cs,
  );
  return fc.oneof(
    { weight: 14, arbitrary: local.map((v) => (s.origin === 0 ? v : s.origin + v)) },
    { weight: 1, arbitrary: far },
  );
}

export function pointArb(dim: 2 | 3, s: PointScenario): fc.Arbitrary<number[]> {
  return fc.array(coordinateArb(s), { minLength: dim, maxLength: dim });
}

/** A box extent along one axis: often zero, sometimes many cells, sometimes enormous. */
function extentArb(s: PointScenario): fc.Arbitrary<number> {
  const cs = s.cellSize;
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 12 }).map((i) => (i * cs) / 4) },
    { weight: 2, arbitrary: fc.double({ min: 0, max: 3 * cs, noNaN: true }) },
    { weight: 1, arbitrary: fc.integer({ min: 4, max: 20 }).map((i) => i * cs) },
    { weight: 1, arbitrary: fc.constantFrom(1e4 * cs, 1e9 * cs, 1e300, Number.MAX_VALUE) },
  );
}

/** A box in argument order; extents that would overflow to Infinity collapse to zero. */
export function boxArb(dim: 2 | 3, s: PointScenario): fc.Arbitrary<number[]> {
  return fc
    .tuple(
      fc.array(coordinateArb(s), { minLength: dim, maxLength: dim }),
      fc.array(extentArb(s), { minLength: dim, maxLength: dim }),
    )
    .map(([mins, extents]) => {
      const maxes = mins.map((m, a) => (Number.isFinite(m + extents[a]) ? m + extents[a] : m));
      return [...mins, ...maxes];
    });
}

/** A query radius: 0 (both signs), under, at and over the cell size, huge (r*r overflows) and Infinity. */
export function radiusArb(s: PointScenario): fc.Arbitrary<number> {
  const cs = s.cellSize;
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(0, -0) },
    { weight: 5, arbitrary: fc.integer({ min: 1, max: 16 }).map((i) => (i * cs) / 4) },
    { weight: 2, arbitrary: fc.double({ min: 0, max: 5 * cs, noNaN: true }) },
    { weight: 1, arbitrary: fc.constantFrom(1e6 * cs, 1e200, Number.POSITIVE_INFINITY) },
  );
}

/** forEachPair's radius: 0, under, at and over the cell size, and everything. */
function pairRadiusArb(s: PointScenario): fc.Arbitrary<number> {
  const cs = s.cellSize;
  return fc.oneof(
    fc.constantFrom(0, cs / 2, cs, 2.5 * cs, nextDown(cs), Number.POSITIVE_INFINITY, 1e200),
    fc.double({ min: 0, max: 3 * cs, noNaN: true }),
  );
}

/** nearest's maxDistance: undefined is the default (Infinity). */
function maxDistanceArb(s: PointScenario): fc.Arbitrary<number | undefined> {
  const cs = s.cellSize;
  return fc.oneof(
    fc.constantFrom(undefined, Number.POSITIVE_INFINITY, 0, cs, 1e200),
    fc.integer({ min: 1, max: 12 }).map((i) => (i * cs) / 4),
    fc.double({ min: 0, max: 4 * cs, noNaN: true }),
  );
}

/** Filter bits: single layers, unions, none, all (both spellings), the sign bit (both spellings), anything. */
const BITS = [1, 2, 4, 3, 6, 5, 0, -1, 0xffffffff, 0x80000000, -0x80000000, 0x7fffffff] as const;
const bitsArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...BITS) },
  { weight: 1, arbitrary: fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }) },
);

/** How a query's `out` argument is given: omitted, one array reused across queries, or an array of junk. */
type OutMode = 'none' | 'shared' | 'junk';
const outArb: fc.Arbitrary<OutMode> = fc.constantFrom('none', 'shared', 'junk');

/** Kinds of call that must be rejected without changing anything. */
const BAD_KINDS = [
  'insertNonFinite',
  'insertPresent',
  'updateNonFinite',
  'updateByIdNonFinite',
  'updateAbsent',
  'setFilterAbsent',
  'badId',
  'badFilter',
  'queryBoxNonFinite',
  'queryBoxUnordered',
  'forEachOverlapUnordered',
  'queryRadiusNonFinite',
  'badRadius',
  'nearestNonFinite',
  'nearestBadK',
  'nearestBadMaxDistance',
  'nearestBadPredicate',
  'badVisit',
  'untracked',
] as const;
type BadKind = (typeof BAD_KINDS)[number];

/** Where a visitor tries to change the hash. */
type VisitorKind = 'forEach' | 'forEachPair' | 'forEachOverlap' | 'predicate';

/** One step of a random sequence. Items are pool indices; `pick` chooses among live ids. */
type Command =
  | {
      op: 'insert';
      item: number;
      point: number[];
      filter: 'none' | 'empty' | 'category' | 'mask' | 'both';
      c: number;
      m: number;
    }
  | { op: 'burst'; item: number; points: number[][] }
  | { op: 'update' | 'updateById'; pick: number; point: number[] }
  /** A move by less than an eighth of a cell per axis, often within the same cell. */
  | { op: 'nudge'; pick: number; shift: number[]; byId: boolean }
  /** Moves every point (by id) to the given points in turn, vacating many cells. */
  | { op: 'scatter'; points: number[][] }
  | { op: 'remove' | 'removeById'; pick: number }
  /** Removes every live id whose rank is not a multiple of `keep`, leaving many free ids. */
  | { op: 'removeMany'; keep: number; byId: boolean }
  | { op: 'clear' }
  | { op: 'setFilter' | 'setFilterById'; pick: number; c: number; m: number }
  | {
      op: 'query';
      box: number[];
      center: number[];
      radius: number;
      mask: number | undefined;
      stopAfter: number;
      out: OutMode;
    }
  | {
      op: 'nearest';
      point: number[];
      atLive: number;
      k: number | undefined;
      maxDistance: number | undefined;
      mask: number | undefined;
      reject: number;
      out: OutMode;
    }
  | { op: 'pairs'; radius: number }
  | { op: 'visitor'; where: VisitorKind; pick: number; item: number; point: number[] }
  | {
      op: 'bad';
      kind: BadKind;
      pick: number;
      item: number;
      point: number[];
      box: number[];
      slot: number;
      variant: number;
      value: number;
    };

/** Relative weights of the command kinds. */
export interface PointWeights {
  insert: number;
  burst: number;
  update: number;
  nudge: number;
  scatter: number;
  remove: number;
  removeMany: number;
  clear: number;
  filter: number;
  query: number;
  nearest: number;
  pairs: number;
  visitor: number;
  bad: number;
}

const DEFAULT_WEIGHTS: PointWeights = {
  insert: 10,
  burst: 1,
  update: 4,
  nudge: 3,
  scatter: 1,
  remove: 4,
  removeMany: 1,
  clear: 1,
  filter: 3,
  query: 4,
  nearest: 4,
  pairs: 3,
  visitor: 1,
  bad: 3,
};

function commandArb(dim: 2 | 3, s: PointScenario, poolSize: number, w: PointWeights): fc.Arbitrary<Command> {
  const item = fc.nat({ max: poolSize - 1 });
  const pick = fc.nat();
  const point = pointArb(dim, s);
  const box = boxArb(dim, s);
  const mask = fc.oneof(fc.constant(undefined), bitsArb);
  const byId = fc.boolean();
  const some = (n: number) => fc.array(point, { minLength: 1, maxLength: n });
  return fc.oneof(
    {
      weight: w.insert,
      arbitrary: fc.record({
        op: fc.constant('insert' as const),
        item,
        point,
        filter: fc.constantFrom(
          'none' as const,
          'none' as const,
          'empty' as const,
          'category' as const,
          'mask' as const,
          'both' as const,
        ),
        c: bitsArb,
        m: bitsArb,
      }),
    },
    { weight: w.burst, arbitrary: fc.record({ op: fc.constant('burst' as const), item, points: some(40) }) },
    {
      weight: w.update,
      arbitrary: fc.record({ op: fc.constantFrom('update' as const, 'updateById' as const), pick, point }),
    },
    {
      weight: w.nudge,
      arbitrary: fc.record({
        op: fc.constant('nudge' as const),
        pick,
        shift: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: dim, maxLength: dim }),
        byId,
      }),
    },
    { weight: w.scatter, arbitrary: fc.record({ op: fc.constant('scatter' as const), points: some(30) }) },
    { weight: w.remove, arbitrary: fc.record({ op: fc.constantFrom('remove' as const, 'removeById' as const), pick }) },
    {
      weight: w.removeMany,
      arbitrary: fc.record({ op: fc.constant('removeMany' as const), keep: fc.integer({ min: 2, max: 4 }), byId }),
    },
    { weight: w.clear, arbitrary: fc.constant({ op: 'clear' as const }) },
    {
      weight: w.filter,
      arbitrary: fc.record({
        op: fc.constantFrom('setFilter' as const, 'setFilterById' as const),
        pick,
        c: bitsArb,
        m: bitsArb,
      }),
    },
    {
      weight: w.query,
      arbitrary: fc.record({
        op: fc.constant('query' as const),
        box,
        center: point,
        radius: radiusArb(s),
        mask,
        stopAfter: fc.constantFrom(0, 1, 3, Number.POSITIVE_INFINITY),
        out: outArb,
      }),
    },
    {
      weight: w.nearest,
      arbitrary: fc.record({
        op: fc.constant('nearest' as const),
        point,
        atLive: fc.integer({ min: -1, max: 100 }),
        k: fc.constantFrom(undefined, 0, 1, 1, 2, 3, 5, 1000),
        maxDistance: maxDistanceArb(s),
        mask,
        reject: fc.constantFrom(0, 0, 2, 3),
        out: outArb,
      }),
    },
    { weight: w.pairs, arbitrary: fc.record({ op: fc.constant('pairs' as const), radius: pairRadiusArb(s) }) },
    {
      weight: w.visitor,
      arbitrary: fc.record({
        op: fc.constant('visitor' as const),
        where: fc.constantFrom(
          'forEach' as const,
          'forEachPair' as const,
          'forEachOverlap' as const,
          'predicate' as const,
        ),
        pick,
        item,
        point,
      }),
    },
    {
      weight: w.bad,
      arbitrary: fc.record({
        op: fc.constant('bad' as const),
        kind: fc.constantFrom(...BAD_KINDS),
        pick,
        item,
        point,
        box,
        slot: fc.nat({ max: 2 * dim - 1 }),
        variant: fc.nat(),
        value: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
      }),
    },
  );
}

// ---------------------------------------------------------------------------
// The runner

/** A fresh pool of distinct items: makeItemPool's mixed types (undefined, NaN, a symbol...), then plain objects. */
export function makePointPool(): unknown[] {
  const pool = makeItemPool();
  for (let i = 0; i < 60; i++) pool.push({ n: i });
  return pool;
}

/** Everything the hash tells about itself through its public API, for before / after comparisons. */
function state(hash: PointHashUnderTest, model: PointModel, keys: ItemIds, dim: 2 | 3): unknown {
  const byId: unknown[] = [];
  for (let id = 0; id < model.idLimit + 2; id++) {
    byId.push(
      hash.hasId(id)
        ? [id, keys.id(hash.itemById(id)), hash.positionById(id), hash.categoryOf(id), hash.maskOf(id)]
        : [id, false],
    );
  }
  const tracked = hash.trackItems ? keys.pool.map((item) => [hash.has(item), hash.idOf(item)]) : [];
  return {
    size: hash.size,
    cellCount: hash.cellCount,
    byId,
    tracked,
    iterated: [...hash].map((item) => keys.id(item)),
    everything: keys.sorted(hash.queryBox(everythingBox(dim))),
  };
}

/**
 * Checks the hash against the model: validate, size, cellCount, membership
 * and ids of every pool item, every id (item, position, category, mask), and
 * the contents and order of for...of and forEach.
 */
function compare(hash: PointHashUnderTest, model: PointModel, keys: ItemIds): void {
  hash.validate();
  expect(hash.size, 'size').toBe(model.byId.size);
  expect(hash.cellCount, 'cellCount').toBe(model.cellCount());
  if (hash.trackItems) {
    for (let i = 0; i < keys.pool.length; i++) {
      const item = keys.pool[i];
      const id = model.idByItem.get(item);
      expect(hash.has(item), `has(#${i})`).toBe(id !== undefined);
      expect(hash.idOf(item), `idOf(#${i})`).toBe(id ?? -1);
      const out = [7, 7, 7];
      const position = hash.getPosition(item, out);
      if (id === undefined) expect(position, `getPosition(#${i})`).toBeUndefined();
      else {
        expect(position === out, 'getPosition returns out').toBe(true);
        expect(position, `getPosition(#${i})`).toEqual((model.byId.get(id) as StoredPoint).point);
      }
    }
  }
  for (let id = -1; id < model.idLimit + 2; id++) {
    const s = model.byId.get(id);
    expect(hash.hasId(id), `hasId(${id})`).toBe(s !== undefined);
    if (s === undefined) continue;
    expect(Object.is(hash.itemById(id), s.item), `itemById(${id})`).toBe(true);
    // Exact, -0 included: the slot keeps the coordinates as given.
    expect(hash.positionById(id), `positionById(${id})`).toEqual(s.point);
    expect(hash.categoryOf(id), `categoryOf(${id})`).toBe(s.category >>> 0);
    expect(hash.maskOf(id), `maskOf(${id})`).toBe(s.mask >>> 0);
  }
  for (const id of [0.5, Number.NaN, -0.5, Number.POSITIVE_INFINITY]) expect(hash.hasId(id)).toBe(false);
  const ids = model.ids();
  const expectedItems = ids.map((id) => keys.id((model.byId.get(id) as StoredPoint).item));
  expect(
    [...hash].map((item) => keys.id(item)),
    'for...of, in ascending id order',
  ).toEqual(expectedItems);
  const visited: [number, number][] = [];
  hash.forEach((item: unknown, id: number) => {
    visited.push([id, keys.id(item)]);
  });
  expect(visited, 'forEach, in ascending id order').toEqual(ids.map((id, i) => [id, expectedItems[i]]));
}

/** A scenario and the commands to run in it. */
export interface PointRun {
  scenario: PointScenario;
  commands: Command[];
}

export function runArb(
  dim: 2 | 3,
  scenario: fc.Arbitrary<PointScenario>,
  maxCommands: number,
  weights: PointWeights = DEFAULT_WEIGHTS,
): fc.Arbitrary<PointRun> {
  const poolSize = makePointPool().length;
  return scenario.chain((s) =>
    fc.record({
      scenario: fc.constant(s),
      commands: fc.array(commandArb(dim, s, poolSize, weights), { minLength: 1, maxLength: maxCommands, size: 'max' }),
    }),
  );
}

/**
 * Runs one command sequence against a fresh hash and the model, checking
 * `validate()` and everything the hash tells after every step, every query
 * answer, and that every rejected call leaves the hash exactly as it was.
 */
export function runPointCommands(dim: 2 | 3, factory: PointHashFactory, run: PointRun): void {
  const { scenario, commands } = run;
  const cs = scenario.cellSize;
  const pool = makePointPool();
  const keys = new ItemIds(pool);
  const names = pointArgumentNames(dim);
  const options: Record<string, unknown> = { cellSize: cs };
  if (scenario.initialCapacity !== undefined) options.initialCapacity = scenario.initialCapacity;
  if (scenario.trackItems !== undefined) options.trackItems = scenario.trackItems;
  const hash = factory(options);
  const tracked = scenario.trackItems !== false;
  expect(hash.cellSize).toBe(cs);
  expect(hash.trackItems).toBe(tracked);
  const model = new PointModel(cs);
  let shared: unknown[] = [];
  const junk = { junk: true };

  const itemKeys = (ids: readonly number[]) => keys.sorted(ids.map((id) => (model.byId.get(id) as StoredPoint).item));
  const stored = (id: number) => model.byId.get(id) as StoredPoint;
  /** A live id chosen by `pick`, or undefined when the hash is empty. */
  const liveId = (pick: number): number | undefined => {
    const ids = model.ids();
    return ids.length === 0 ? undefined : ids[pick % ids.length];
  };
  /** An absent pool item starting the search at `from`, or undefined when every one is stored. */
  const absentItem = (from: number): unknown => {
    for (let k = 0; k < pool.length; k++) {
      const candidate = pool[(from + k) % pool.length];
      if (!model.idByItem.has(candidate)) return candidate;
    }
    return undefined;
  };
  const hasAbsent = () => model.byId.size < pool.length;
  /** The out argument of a query, and a check of the answer's identity. */
  const outFor = (mode: OutMode): unknown[] | undefined =>
    mode === 'shared' ? shared : mode === 'junk' ? [junk, junk, pool[0], pool[1]] : undefined;
  const answered = (mode: OutMode, out: unknown[] | undefined, answer: unknown[], what: string) => {
    if (out !== undefined) expect(answer === out, `${what}: out must be returned`).toBe(true);
    if (mode === 'shared') shared = answer;
  };
  const expectItems = (answer: readonly unknown[], ids: readonly number[], what: string) => {
    const got = keys.sorted(answer);
    expect(got, what).toEqual(itemKeys(ids));
  };
  /** Expects `call` to be rejected by `check` and to leave everything (and `shared`) as it was. */
  const rejected = (what: string, call: () => unknown, check: (call: () => unknown) => void) => {
    const before = state(hash, model, keys, dim);
    const sharedBefore = shared.slice();
    check(call);
    hash.validate();
    expect(state(hash, model, keys, dim), `${what} changed the hash`).toEqual(before);
    expect(keys.sorted(shared), `${what} touched out`).toEqual(keys.sorted(sharedBefore));
  };
  /** After a point arrives somewhere: the degenerate box and radius 0 there find exactly what the model has. */
  const probe = (p: number[], why: string) => {
    expectItems(hash.queryBox([...p, ...p]), model.queryBox([...p, ...p]), `${why}: queryBox at ${p}`);
    expectItems(hash.queryRadius(p, 0), model.queryRadius(p, 0), `${why}: queryRadius(${p}, 0)`);
  };
  const insert = (item: unknown, p: number[], filter?: { category?: number; mask?: number }) => {
    const id = filter === undefined ? hash.insert(item, p) : hash.insert(item, p, filter);
    model.inserted(id, {
      item,
      point: p.slice(),
      category: filter?.category === undefined ? 1 : filter.category | 0,
      mask: filter?.mask === undefined ? -1 : filter.mask | 0,
    });
    return id;
  };
  const checkPairs = (radius: number, what: string) => {
    const got: string[] = [];
    hash.forEachPair(radius, (a: unknown, b: unknown) => {
      const ia = model.idByItem.get(a);
      const ib = model.idByItem.get(b);
      expect(ia !== undefined && ib !== undefined, `${what}: unknown item in a pair`).toBe(true);
      got.push(pairKey(ia as number, ib as number));
    });
    // Each unordered pair exactly once: duplicates would survive the sort.
    expect(got.sort(), what).toEqual(model.pairs(radius));
  };

  for (const command of commands) {
    switch (command.op) {
      case 'insert': {
        const chosen = pool[command.item];
        if (model.idByItem.has(chosen) && tracked) {
          rejected(
            'insert of a present item',
            () => hash.insert(chosen, command.point),
            (call) => expectErrorNaming(call, ['insert']),
          );
          break;
        }
        const item = absentItem(command.item);
        if (!hasAbsent()) break;
        const { c, m } = command;
        const filter =
          command.filter === 'none'
            ? undefined
            : command.filter === 'empty'
              ? {}
              : command.filter === 'category'
                ? { category: c }
                : command.filter === 'mask'
                  ? { mask: m }
                  : { category: c, mask: m };
        insert(item, command.point, filter);
        probe(command.point, 'after insert');
        break;
      }
      case 'burst': {
        for (let i = 0; i < command.points.length && hasAbsent(); i++) {
          insert(absentItem(command.item + i), command.points[i]);
        }
        break;
      }
      case 'update':
      case 'updateById': {
        const id = liveId(command.pick);
        if (id === undefined) break;
        const s = stored(id);
        const old = s.point;
        if (command.op === 'update' && tracked) hash.update(s.item, command.point);
        else hash.updateById(id, command.point);
        s.point = command.point.slice();
        probe(command.point, `after ${command.op}`);
        probe(old, `old place after ${command.op}`);
        break;
      }
      case 'nudge': {
        const id = liveId(command.pick);
        if (id === undefined) break;
        const s = stored(id);
        const old = s.point;
        const p = old.map((v, a) => {
          const moved = v + (command.shift[a] * cs) / 8;
          return Number.isFinite(moved) ? moved : v;
        });
        if (command.byId || !tracked) hash.updateById(id, p);
        else hash.update(s.item, p);
        s.point = p;
        probe(p, 'after nudge');
        probe(old, 'old place after nudge');
        break;
      }
      case 'scatter': {
        const ids = model.ids();
        for (let i = 0; i < ids.length; i++) {
          const p = command.points[i % command.points.length];
          hash.updateById(ids[i], p);
          stored(ids[i]).point = p.slice();
        }
        break;
      }
      case 'remove':
      case 'removeById': {
        const id = liveId(command.pick);
        if (id === undefined) {
          if (tracked) expect(hash.remove(pool[command.pick % pool.length]), 'remove from empty').toBe(false);
          break;
        }
        const s = stored(id);
        if (command.op === 'remove' && tracked) {
          expect(hash.remove(s.item), 'remove').toBe(true);
          expect(hash.remove(s.item), 'remove twice').toBe(false);
        } else {
          expect(Object.is(hash.removeById(id), s.item), 'removeById returns the item').toBe(true);
        }
        model.removed(id);
        probe(s.point, 'after remove');
        break;
      }
      case 'removeMany': {
        const ids = model.ids();
        for (let i = 0; i < ids.length; i++) {
          if (i % command.keep === 0) continue;
          const s = stored(ids[i]);
          if (command.byId || !tracked) hash.removeById(ids[i]);
          else expect(hash.remove(s.item)).toBe(true);
          model.removed(ids[i]);
        }
        break;
      }
      case 'clear':
        hash.clear();
        model.clear();
        break;
      case 'setFilter':
      case 'setFilterById': {
        const id = liveId(command.pick);
        if (id === undefined) break;
        const s = stored(id);
        if (command.op === 'setFilter' && tracked) hash.setFilter(s.item, command.c, command.m);
        else hash.setFilterById(id, command.c, command.m);
        s.category = command.c | 0;
        s.mask = command.m | 0;
        break;
      }
      case 'query': {
        const m = command.mask ?? -1;
        const { box, center, radius } = command;
        const what = `queryBox(${box}, mask ${command.mask})`;
        let out = outFor(command.out);
        const inBoxIds = model.queryBox(box, m);
        let answer = hash.queryBox(box, out, command.mask);
        answered(command.out, out, answer, what);
        expectItems(answer, inBoxIds, what);
        // forEachOverlap: each point once with its id, or exactly stopAfter + 1 of them when it stops.
        const seen: number[] = [];
        const limit = command.stopAfter;
        const stopped = hash.forEachOverlap(
          box,
          (item: unknown, id: number) => {
            expect(Object.is(hash.itemById(id), item), 'forEachOverlap: item and id agree').toBe(true);
            seen.push(id);
            return seen.length > limit;
          },
          command.mask,
        );
        expect(new Set(seen).size, 'forEachOverlap visits each point once').toBe(seen.length);
        if (inBoxIds.length > limit) {
          expect(stopped, 'forEachOverlap stopped').toBe(true);
          expect(seen.length).toBe(limit + 1);
          for (const id of seen) expect(inBoxIds).toContain(id);
        } else {
          expect(stopped, 'forEachOverlap saw everything').toBe(false);
          expect(
            seen.sort((a, b) => a - b),
            `forEachOverlap(${box})`,
          ).toEqual(inBoxIds);
        }
        const rWhat = `queryRadius(${center}, ${radius}, mask ${command.mask})`;
        out = outFor(command.out);
        answer = hash.queryRadius(center, radius, out, command.mask);
        answered(command.out, out, answer, rWhat);
        expectItems(answer, model.queryRadius(center, radius, m), rWhat);
        break;
      }
      case 'nearest': {
        const m = command.mask ?? -1;
        const live = command.atLive < 0 ? undefined : liveId(command.atLive);
        const p = live === undefined ? command.point : stored(live).point;
        const k = command.k ?? 1;
        const maxDistance = command.maxDistance ?? Number.POSITIVE_INFINITY;
        // reject 0: no predicate; else reject ids that are multiples of it (and the point we stand on).
        const keep = (id: number) => command.reject === 0 || (id % command.reject !== 0 && id !== live);
        const calls = new Map<number, number>();
        const predicate =
          command.reject === 0
            ? undefined
            : (item: unknown, id: number) => {
                expect(Object.is(hash.itemById(id), item), 'predicate: item and id agree').toBe(true);
                calls.set(id, (calls.get(id) ?? 0) + 1);
                return keep(id);
              };
        const what = `nearest(${p}, k ${command.k}, maxDistance ${command.maxDistance}, mask ${command.mask})`;
        const out = outFor(command.out);
        const got = hash.nearest(p, command.k, command.maxDistance, out, command.mask, predicate);
        answered(command.out, out, got, what);
        const gotIds = got.map((item) => model.idByItem.get(item));
        expect(gotIds.includes(undefined), `${what}: unknown item`).toBe(false);
        expect(new Set(gotIds).size, `${what}: duplicates`).toBe(gotIds.length);
        for (const id of gotIds as number[]) {
          expect((stored(id).category & m) !== 0, `${what}: id ${id} fails the mask`).toBe(true);
          expect(keep(id), `${what}: id ${id} was rejected by the predicate`).toBe(true);
        }
        // Ties may be broken either way: compare the distances, which must also come nearest first.
        const distances = (gotIds as number[]).map((id) => dyadicKey(ruleSquareFast(stored(id).point, p)));
        expect(distances, what).toEqual(model.nearestDistances(p, k, maxDistance, m, keep));
        // The predicate is asked at most once per point and query, only of points passing the mask and the distance.
        for (const [id, n] of calls) {
          expect(n, `${what}: predicate called ${n} times for id ${id}`).toBe(1);
          expect(model.byId.has(id), `${what}: predicate called for a free id ${id}`).toBe(true);
          expect((stored(id).category & m) !== 0, `${what}: predicate called for id ${id} outside the mask`).toBe(true);
          expect(
            withinRule(stored(id).point, p, maxDistance),
            `${what}: predicate called for id ${id} beyond maxDistance`,
          ).toBe(true);
        }
        break;
      }
      case 'pairs':
        checkPairs(command.radius, `forEachPair(${command.radius})`);
        break;
      case 'visitor':
        visitorChanges(command);
        break;
      case 'bad':
        badCall(command);
        break;
    }
    compare(hash, model, keys);
  }

  /**
   * Every change tried from inside a visitor (or a nearest predicate) throws an
   * Error naming the method and changes nothing; queries there are answered;
   * nearest inside a nearest predicate throws.
   */
  function visitorChanges(command: Extract<Command, { op: 'visitor' }>): void {
    const id = liveId(command.pick);
    if (id === undefined) return;
    const s = stored(id);
    const newcomer = absentItem(command.item) ?? { fresh: true };
    const changes: [string, () => unknown][] = [
      ['insert', () => hash.insert(newcomer, command.point)],
      ['updateById', () => hash.updateById(id, command.point)],
      ['removeById', () => hash.removeById(id)],
      ['clear', () => hash.clear()],
      ['setFilterById', () => hash.setFilterById(id, 2, 2)],
    ];
    if (tracked) {
      changes.push(
        ['update', () => hash.update(s.item, command.point)],
        ['remove', () => hash.remove(s.item)],
        ['setFilter', () => hash.setFilter(s.item, 2, 2)],
      );
    }
    const before = state(hash, model, keys, dim);
    let calls = 0;
    const tryEverything = () => {
      calls++;
      if (calls > 1) return;
      for (const [method, change] of changes) expectErrorNaming(change, [method]);
      expect(Object.is(hash.itemById(id), s.item)).toBe(true);
      // Box and radius queries are allowed inside visitors (a predicate's contract leaves them open).
      if (command.where !== 'predicate') {
        expectItems(hash.queryRadius(s.point, 0), model.queryRadius(s.point, 0), 'queryRadius inside a visitor');
      }
    };
    switch (command.where) {
      case 'forEach':
        hash.forEach(tryEverything);
        break;
      case 'forEachOverlap':
        expect(hash.forEachOverlap(everythingBox(dim), tryEverything)).toBe(false);
        break;
      case 'forEachPair':
        hash.forEachPair(Number.POSITIVE_INFINITY, tryEverything);
        break;
      case 'predicate': {
        const answer = hash.nearest(s.point, 2, undefined, undefined, undefined, () => {
          tryEverything();
          if (calls === 1) expectErrorNaming(() => hash.nearest(s.point), ['nearest']);
          return true;
        });
        expect(answer.length).toBe(Math.min(2, model.byId.size));
        break;
      }
    }
    // forEach visits every point; forEachOverlap and nearest only those passing the default mask; forEachPair pairs.
    const visitable =
      command.where === 'forEach'
        ? model.byId.size
        : command.where === 'forEachPair'
          ? model.pairs(Number.POSITIVE_INFINITY).length
          : model.passing(-1).length;
    if (visitable > 0) expect(calls, 'the visitor ran').toBeGreaterThan(0);
    hash.validate();
    expect(state(hash, model, keys, dim), `changes inside ${command.where} changed the hash`).toEqual(before);
  }

  function badCall(command: Extract<Command, { op: 'bad' }>): void {
    const { kind, point, box, slot, value, variant } = command;
    const axis = slot % dim;
    const spoiledPoint = point.slice();
    spoiledPoint[axis] = value;
    const spoiledBox = box.slice();
    spoiledBox[slot] = value;
    const id = liveId(command.pick);
    const s = id === undefined ? undefined : stored(id);
    const newcomer = absentItem(command.item);
    const pickOf = <V>(list: readonly V[]): V => list[variant % list.length];
    // A box with min > max on one axis: swap a proper extent, or move one side of a flat one past the other.
    const unordered = box.slice();
    if (box[axis] < box[axis + dim]) {
      unordered[axis] = box[axis + dim];
      unordered[axis + dim] = box[axis];
    } else if (box[axis] < Number.MAX_VALUE) {
      unordered[axis] = nextUp(box[axis + dim]);
    } else {
      unordered[axis + dim] = nextDown(box[axis]);
    }
    const unorderedNames = [names.box[axis], names.box[axis + dim]];
    const unorderedValues = [unordered[axis], unordered[axis + dim]];
    const never = () => {
      throw new Error('a rejected call ran its visitor');
    };
    switch (kind) {
      case 'insertNonFinite':
        if (newcomer === undefined) return;
        rejected(
          kind,
          () => hash.insert(newcomer, spoiledPoint),
          (c) => expectRangeError(c, [names.point[axis]], [value]),
        );
        if (tracked) expect(hash.has(newcomer), 'a rejected insert left the item behind').toBe(false);
        return;
      case 'insertPresent':
        if (s === undefined || !tracked) return;
        rejected(
          kind,
          () => hash.insert(s.item, point),
          (c) => expectErrorNaming(c, ['insert']),
        );
        return;
      case 'updateNonFinite':
        if (s === undefined || !tracked) return;
        rejected(
          kind,
          () => hash.update(s.item, spoiledPoint),
          (c) => expectRangeError(c, [names.point[axis]], [value]),
        );
        return;
      case 'updateByIdNonFinite':
        if (id === undefined) return;
        rejected(
          kind,
          () => hash.updateById(id, spoiledPoint),
          (c) => expectRangeError(c, [names.point[axis]], [value]),
        );
        return;
      case 'updateAbsent':
        if (newcomer === undefined) return;
        rejected(
          kind,
          () => hash.update(newcomer, point),
          (c) => expectErrorNaming(c, ['update']),
        );
        return;
      case 'setFilterAbsent':
        if (newcomer === undefined) return;
        rejected(
          kind,
          () => hash.setFilter(newcomer, 2, 2),
          (c) => expectErrorNaming(c, ['setFilter']),
        );
        return;
      case 'badId': {
        // A free id, one past the end, negative, fractional, NaN, infinite or a string.
        const free = [...model.free];
        const bad = pickOf<unknown>([
          free.length > 0 ? free[variant % free.length] : model.idLimit,
          model.idLimit + (variant % 3),
          -1,
          -(2 ** 31),
          0.5,
          Number.NaN,
          Number.POSITIVE_INFINITY,
          '0',
        ]);
        const calls: [string, () => unknown][] = [
          ['updateById', () => hash.updateById(bad, point)],
          ['removeById', () => hash.removeById(bad)],
          ['itemById', () => hash.itemById(bad)],
          ['positionById', () => hash.positionById(bad)],
          ['setFilterById', () => hash.setFilterById(bad, 2, 2)],
          ['categoryOf', () => hash.categoryOf(bad)],
          ['maskOf', () => hash.maskOf(bad)],
        ];
        const [method, call] = calls[command.slot % calls.length];
        expect(hash.hasId(bad), `hasId(${String(bad)})`).toBe(false);
        rejected(`${method}(${String(bad)})`, call, (c) => expectRangeError(c, ['id', method], [shown(bad)]));
        return;
      }
      case 'badFilter': {
        const bad = pickOf<unknown>([2 ** 32, -(2 ** 31) - 1, 1.5, Number.NaN, '1', null, Number.POSITIVE_INFINITY]);
        const where = command.slot + 2 * dim * (variant % 2);
        const calls: [string, () => unknown][] = [
          ['category', () => hash.insert(newcomer ?? { fresh: 1 }, point, { category: bad })],
          ['mask', () => hash.insert(newcomer ?? { fresh: 2 }, point, { category: 2, mask: bad })],
          ['mask', () => hash.queryBox(box, shared, bad)],
          ['mask', () => hash.queryRadius(point, cs, shared, bad)],
          ['mask', () => hash.forEachOverlap(box, never, bad)],
          ['mask', () => hash.nearest(point, 1, undefined, shared, bad)],
        ];
        if (id !== undefined) {
          calls.push(
            ['category', () => hash.setFilterById(id, bad, -1)],
            ['mask', () => hash.setFilterById(id, 1, bad)],
          );
          if (tracked) calls.push(['mask', () => hash.setFilter(stored(id).item, 2, bad)]);
        }
        const [name, call] = calls[where % calls.length];
        rejected(`bad ${name} ${String(bad)}`, call, (c) => expectRangeError(c, [name], [shown(bad)]));
        // A filter that is not an object at all names the filter.
        if (newcomer !== undefined && variant % 3 === 0) {
          rejected(
            'filter 5',
            () => hash.insert(newcomer, point, 5),
            (c) => expectRangeError(c, ['filter'], [5]),
          );
        }
        return;
      }
      case 'queryBoxNonFinite':
        rejected(
          kind,
          () => hash.queryBox(spoiledBox, shared),
          (c) => expectRangeError(c, [names.box[slot]], [value]),
        );
        rejected(
          kind,
          () => hash.forEachOverlap(spoiledBox, never),
          (c) => expectRangeError(c, [names.box[slot]], [value]),
        );
        return;
      case 'queryBoxUnordered':
        rejected(
          kind,
          () => hash.queryBox(unordered, shared),
          (c) => expectRangeError(c, unorderedNames, unorderedValues),
        );
        return;
      case 'forEachOverlapUnordered':
        rejected(
          kind,
          () => hash.forEachOverlap(unordered, never),
          (c) => expectRangeError(c, unorderedNames, unorderedValues),
        );
        return;
      case 'queryRadiusNonFinite':
        rejected(
          kind,
          () => hash.queryRadius(spoiledPoint, cs, shared),
          (c) => expectRangeError(c, [names.point[axis]], [value]),
        );
        return;
      case 'badRadius': {
        const bad = pickOf<unknown>([-1, -cs, -Number.MIN_VALUE, -1e300, Number.NaN, Number.NEGATIVE_INFINITY, '1']);
        if (variant % 2 === 0) {
          rejected(
            `queryRadius radius ${String(bad)}`,
            () => hash.queryRadius(point, bad, shared),
            (c) => expectRangeError(c, ['radius'], [shown(bad)]),
          );
        } else {
          rejected(
            `forEachPair radius ${String(bad)}`,
            () => hash.forEachPair(bad, never),
            (c) => expectRangeError(c, ['radius'], [shown(bad)]),
          );
        }
        return;
      }
      case 'nearestNonFinite':
        rejected(
          kind,
          () => hash.nearest(spoiledPoint, 1, undefined, shared),
          (c) => expectRangeError(c, [names.point[axis]], [value]),
        );
        return;
      case 'nearestBadK': {
        const bad = pickOf<unknown>([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2', -0.5]);
        rejected(
          `nearest k ${String(bad)}`,
          () => hash.nearest(point, bad, undefined, shared),
          (c) => expectRangeError(c, ['k'], [shown(bad)]),
        );
        return;
      }
      case 'nearestBadMaxDistance': {
        const bad = pickOf<unknown>([-1, -Number.MIN_VALUE, Number.NaN, Number.NEGATIVE_INFINITY]);
        rejected(
          `nearest maxDistance ${String(bad)}`,
          () => hash.nearest(point, 2, bad, shared),
          (c) => expectRangeError(c, ['maxDistance'], [shown(bad)]),
        );
        return;
      }
      case 'nearestBadPredicate':
        rejected(
          kind,
          () => hash.nearest(point, 2, undefined, shared, undefined, 5),
          (c) => expectRangeError(c, ['predicate'], [5]),
        );
        return;
      case 'badVisit': {
        const calls: [string, () => unknown][] = [
          ['forEach', () => hash.forEach(5)],
          ['forEachPair', () => hash.forEachPair(cs, null)],
          ['forEachOverlap', () => hash.forEachOverlap(box, 'visit')],
        ];
        const [method, call] = pickOf(calls);
        rejected(`${method} without a function`, call, (c) => expectRangeError(c, ['visit'], []));
        return;
      }
      case 'untracked': {
        if (tracked) return;
        // Without the item index, every item-keyed method throws an Error naming itself; the id methods work.
        const item = s?.item ?? newcomer;
        const calls: [string, () => unknown][] = [
          ['has', () => hash.has(item)],
          ['remove', () => hash.remove(item)],
          ['update', () => hash.update(item, point)],
          ['idOf', () => hash.idOf(item)],
          ['setFilter', () => hash.setFilter(item, 2, 2)],
          ['getPosition', () => hash.getPosition(item)],
        ];
        const [method, call] = pickOf(calls);
        rejected(`${method} without trackItems`, call, (c) => expectErrorNaming(c, [method, 'trackItems']));
        return;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// The seeded properties

interface PropertyCase {
  name: string;
  seed: number;
  numRuns: number;
  scenario: fc.Arbitrary<PointScenario>;
  maxCommands: number;
  weights?: PointWeights;
}

function propertyCases(): PropertyCase[] {
  return [
    {
      name: 'mixed cell sizes, origins and options',
      seed: 0x9011000,
      numRuns: 80,
      scenario: scenarioArb({}),
      maxCommands: 40,
    },
    {
      name: 'near the origin: negative coordinates, cell borders, coincident points',
      seed: 0x9012000,
      numRuns: 60,
      scenario: scenarioArb({ cellSizes: [1, 0.3, 7], origins: () => [0] }),
      maxCommands: 60,
    },
    {
      name: 'far: past 2^52 cells every point is on the far list (1e16 cells, 1e300)',
      seed: 0x9013000,
      numRuns: 40,
      scenario: scenarioArb({ origins: (cs) => [1e16 * cs, -1e16 * cs, 1e300, 2 ** 52 * cs] }),
      maxCommands: 40,
    },
    {
      name: 'trackItems: false, only ids',
      seed: 0x9014000,
      numRuns: 50,
      scenario: scenarioArb({ trackItems: [false] }),
      maxCommands: 40,
    },
    {
      name: 'churn: bursts, moves of every point, mass removals, ids reused, cells emptied and purged',
      seed: 0x9015000,
      numRuns: 40,
      scenario: scenarioArb({ cellSizes: [1, 0.1, 1e-3, 1e6] }),
      maxCommands: 30,
      weights: { ...DEFAULT_WEIGHTS, burst: 5, scatter: 4, removeMany: 3, insert: 4, bad: 1 },
    },
    {
      name: 'rejected calls and visitors that try to change the hash leave it exactly as it was',
      seed: 0x9016000,
      numRuns: 50,
      scenario: scenarioArb({}),
      maxCommands: 40,
      weights: { ...DEFAULT_WEIGHTS, bad: 14, visitor: 4, burst: 2 },
    },
  ];
}

/** Declares the seeded random-sequence properties for one dimension. */
export function describePointHashProperties(dim: 2 | 3, factory: PointHashFactory): void {
  describe(`PointHash${dim}D random command sequences against a brute-force model`, () => {
    for (const c of propertyCases()) {
      // Each dimension gets its own seed: the case seed + 2 in 2D, + 3 in 3D.
      const seed = c.seed + dim;
      it(`${c.name} (seed ${seed}, ${c.numRuns} runs)`, () => {
        fc.assert(
          fc.property(runArb(dim, c.scenario, c.maxCommands, c.weights), (run) => {
            runPointCommands(dim, factory, run);
          }),
          { seed, numRuns: c.numRuns },
        );
      });
    }
  });
}

// ---------------------------------------------------------------------------
// Hand-computed examples

/**
 * The ways a plane point (x, y) is placed in the hash's space: in 2D as is; in
 * 3D in the xy, yz and zx planes, so every axis carries each example.
 */
function embeddings(dim: 2 | 3): ((x: number, y: number) => number[])[] {
  if (dim === 2) return [(x, y) => [x, y]];
  return [(x, y) => [x, y, 0], (x, y) => [0, x, y], (x, y) => [y, 0, x]];
}

/** Declares the hand-written cases for one dimension. */
export function describePointHashExamples(dim: 2 | 3, factory: PointHashFactory): void {
  const names = pointArgumentNames(dim);
  const sortedPairs = (hash: PointHashUnderTest, radius: number): string[] => {
    const pairs: string[] = [];
    hash.forEachPair(radius, (a: unknown, b: unknown) => {
      pairs.push(String(a) < String(b) ? `${a}|${b}` : `${b}|${a}`);
    });
    return pairs.sort();
  };
  const sorted = (items: unknown[]) => items.map(String).sort();

  describe(`PointHash${dim}D examples`, () => {
    it('rejects bad options with a RangeError naming the option and quoting the value', () => {
      const bad: [unknown, string, unknown][] = [
        [null, 'options', null],
        [undefined, 'options', undefined],
        [5, 'options', 5],
        [{}, 'cellSize', undefined],
        [{ cellSize: 0 }, 'cellSize', 0],
        [{ cellSize: -0 }, 'cellSize', -0],
        [{ cellSize: -1 }, 'cellSize', -1],
        [{ cellSize: Number.NaN }, 'cellSize', Number.NaN],
        [{ cellSize: Number.POSITIVE_INFINITY }, 'cellSize', Number.POSITIVE_INFINITY],
        [{ cellSize: '1' }, 'cellSize', '"1"'],
        [{ cellSize: 1, initialCapacity: -1 }, 'initialCapacity', -1],
        [{ cellSize: 1, initialCapacity: 1.5 }, 'initialCapacity', 1.5],
        [{ cellSize: 1, initialCapacity: Number.NaN }, 'initialCapacity', Number.NaN],
        [{ cellSize: 1, initialCapacity: 2 ** 40 }, 'initialCapacity', 2 ** 40],
        [{ cellSize: 1, initialCapacity: '8' }, 'initialCapacity', '"8"'],
        [{ cellSize: 1, trackItems: 1 }, 'trackItems', 1],
        [{ cellSize: 1, trackItems: 'true' }, 'trackItems', '"true"'],
        [{ cellSize: 1, trackItems: null }, 'trackItems', null],
      ];
      for (const [options, name, value] of bad) {
        expectRangeError(() => factory(options), [name], value === undefined ? [] : [value]);
      }
      const hash = factory({ cellSize: 1e-300, initialCapacity: 0, trackItems: false });
      expect(hash.trackItems).toBe(false);
      expect(factory({ cellSize: 2 }).trackItems).toBe(true);
      hash.validate();
    });

    it('answers a hand-computed scene on cell borders exactly (closed boxes, d2 <= r*r, pairs, nearest, filters)', () => {
      for (const at of embeddings(dim)) {
        const hash = factory({ cellSize: 1 });
        const scene: [string, number, number][] = [
          ['a', 0, 0],
          ['b', 1, 0],
          ['c', -1, 0],
          ['d', 0, 1],
          ['e', 1, 1],
          ['f', -1, -1],
          ['g', 0.5, 0],
        ];
        const id: Record<string, number> = {};
        for (const [item, x, y] of scene) id[item] = hash.insert(item, at(x, y));
        hash.validate();
        expect(hash.cellCount).toBe(6);
        expect(sorted(hash.queryRadius(at(0, 0), 1))).toEqual(['a', 'b', 'c', 'd', 'g']);
        expect(sorted(hash.queryRadius(at(0, 0), nextDown(1)))).toEqual(['a', 'g']);
        expect(sorted(hash.queryRadius(at(0, 0), 0))).toEqual(['a']);
        expect(sorted(hash.queryRadius(at(0, 0), Math.SQRT2))).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
        const box = (x0: number, y0: number, x1: number, y1: number) => {
          const lo = at(x0, y0);
          const hi = at(x1, y1);
          return [...lo.map((v, a) => Math.min(v, hi[a])), ...lo.map((v, a) => Math.max(v, hi[a]))];
        };
        expect(sorted(hash.queryBox(box(0, 0, 1, 1)))).toEqual(['a', 'b', 'd', 'e', 'g']);
        expect(sorted(hash.queryBox(box(-1, -1, -1, -1)))).toEqual(['f']);
        expect(sorted(hash.queryBox(box(nextUp(0), nextUp(0), 1, 1)))).toEqual(['e']);
        expect(sortedPairs(hash, 1)).toEqual(['a|b', 'a|c', 'a|d', 'a|g', 'b|e', 'b|g', 'c|f', 'd|e']);
        expect(sortedPairs(hash, 0.5)).toEqual(['a|g', 'b|g']);
        expect(sortedPairs(hash, nextDown(0.5))).toEqual([]);
        expect(sortedPairs(hash, 0)).toEqual([]);
        expect(sortedPairs(hash, Number.POSITIVE_INFINITY).length).toBe(21);
        expect(hash.nearest(at(0.4, 0), 3)).toEqual(['g', 'a', 'b']);
        expect(hash.nearest(at(0.4, 0), 10, 1)).toEqual(['g', 'a', 'b']);
        expect(hash.nearest(at(0.4, 0), 10, 0.6)).toEqual(['g', 'a', 'b']);
        expect(hash.nearest(at(0.4, 0), 10, 0.5)).toEqual(['g', 'a']);
        expect(hash.nearest(at(0.4, 0), 2, undefined, undefined, undefined, (item: unknown) => item !== 'g')).toEqual([
          'a',
          'b',
        ]);
        expect(hash.nearest(at(0.4, 0), 0)).toEqual([]);
        expect(hash.nearest(at(0.4, 0))).toEqual(['g']);
        // a: category 2, mask 2: the default items (category 1) no longer pair with it.
        hash.setFilterById(id.a, 2, 2);
        expect(sortedPairs(hash, 1)).toEqual(['b|e', 'b|g', 'c|f', 'd|e']);
        // b: category 2, every bit (unsigned spelling): pairs with a again, and with the others.
        hash.setFilter('b', 2, 0xffffffff);
        expect(hash.maskOf(id.b)).toBe(0xffffffff);
        expect(sortedPairs(hash, 1)).toEqual(['a|b', 'b|e', 'b|g', 'c|f', 'd|e']);
        expect(sorted(hash.queryBox(box(0, 0, 1, 1), undefined, 2))).toEqual(['a', 'b']);
        expect(sorted(hash.queryRadius(at(0, 0), 1, undefined, 1))).toEqual(['c', 'd', 'g']);
        expect(hash.nearest(at(0.4, 0), 3, undefined, undefined, 2)).toEqual(['a', 'b']);
        expect(hash.nearest(at(0.4, 0), 3, undefined, undefined, 0)).toEqual([]);
        // A point moved one ulp over the border of its cell changes cells.
        hash.update('g', at(nextDown(0), 0));
        expect(sorted(hash.queryBox(box(0, 0, 1, 1)))).toEqual(['a', 'b', 'd', 'e']);
        expect(sortedPairs(hash, 0.5)).toEqual([]);
        hash.validate();
      }
    });

    it('keeps far points (past 2^52 cells) on the far list and finds them in every query', () => {
      for (const at of embeddings(dim)) {
        const hash = factory({ cellSize: 1 });
        const p = hash.insert('p', at(1e300, 0));
        hash.insert('q', at(-1e300, 5));
        hash.insert('r', at(0, 0));
        hash.insert('s', at(2 ** 52, 0));
        hash.insert('t', at(2 ** 53, 0));
        hash.validate();
        // r and s in cells (2^52 is the last cell index kept); p, q and t far.
        expect(hash.cellCount).toBe(2);
        expect(hash.queryRadius(at(1e300, 0), 0)).toEqual(['p']);
        expect(sorted(hash.queryBox(everythingBox(dim)))).toEqual(['p', 'q', 'r', 's', 't']);
        expect(sorted(hash.queryRadius(at(0, 0), 2 ** 53))).toEqual(['r', 's', 't']);
        expect(sorted(hash.queryRadius(at(0, 0), Number.POSITIVE_INFINITY))).toEqual(['p', 'q', 'r', 's', 't']);
        expect(hash.nearest(at(1e300, 1))).toEqual(['p']);
        expect(hash.nearest(at(-1e300, 1))).toEqual(['q']);
        // From q every other point is at a squared distance of Infinity: past k = 1 only the ones in cells are finite.
        expect(hash.nearest(at(0, 1), 2)).toEqual(['r', 's']);
        expect(sortedPairs(hash, Number.POSITIVE_INFINITY).length).toBe(10);
        expect(sortedPairs(hash, 2 ** 52)).toEqual(['r|s', 's|t']);
        expect(sortedPairs(hash, 1)).toEqual([]);
        hash.updateById(p, at(0.5, 0.5));
        hash.validate();
        expect(hash.cellCount).toBe(2);
        expect(sortedPairs(hash, 1)).toEqual(['p|r']);
        hash.update('r', at(-1e300, 5));
        hash.validate();
        expect(hash.cellCount).toBe(2);
        expect(sortedPairs(hash, 0)).toEqual(['q|r']);
        expect(hash.positionById(hash.idOf('r'))).toEqual(at(-1e300, 5));
      }
    });

    it('hands out ids from 0, reuses the last freed first, and starts again from 0 after clear', () => {
      const hash = factory({ cellSize: 1, initialCapacity: 0 });
      const ids = ['a', 'b', 'c', 'd'].map((item) => hash.insert(item, embeddings(dim)[0](0, 0)));
      expect(ids).toEqual([0, 1, 2, 3]);
      expect(hash.removeById(1)).toBe('b');
      expect(hash.remove('c')).toBe(true);
      expect(hash.hasId(1)).toBe(false);
      const e = hash.insert('e', embeddings(dim)[0](3, 3));
      expect([1, 2]).toContain(e);
      expect(hash.itemById(e)).toBe('e');
      expectRangeError(() => hash.itemById(3 - e), ['id', 'itemById'], [3 - e]);
      hash.clear();
      hash.validate();
      expect(hash.insert('z', embeddings(dim)[0](1, 1))).toBe(0);
      expect(hash.hasId(1)).toBe(false);
    });

    it('nearest keeps what queryRadius keeps when squared distances overflow', () => {
      for (const at of embeddings(dim)) {
        // 1e300 squares to Infinity in float64, and so does the origin's distance from the query; under the
        // distance rule (decision 2) the origin, 5e303 away, is beyond 1e300 and within 1e304.
        const hash = factory({ cellSize: 1e300 });
        hash.insert('origin', at(0, 0));
        hash.insert('here', at(5e303, 0));
        expect(sorted(hash.queryRadius(at(5e303, 0), 1e300))).toEqual(['here']);
        expect(hash.nearest(at(5e303, 0), 2, 1e300)).toEqual(['here']);
        expect(sorted(hash.queryRadius(at(5e303, 0), 1e304))).toEqual(['here', 'origin']);
        expect(hash.nearest(at(5e303, 0), 2, 1e304)).toEqual(['here', 'origin']);
        expect(hash.nearest(at(5e303, 0), 2, 1e150)).toEqual(['here']);
      }
    });

    it('with trackItems: false stores the same item under two ids and refuses the item-keyed methods', () => {
      const at = embeddings(dim)[0];
      const hash = factory({ cellSize: 1, trackItems: false });
      const one = hash.insert('x', at(0, 0));
      const two = hash.insert('x', at(0.5, 0));
      expect(one).not.toBe(two);
      expect(hash.size).toBe(2);
      expect(hash.queryRadius(at(0, 0), 1)).toEqual(['x', 'x']);
      expect([...hash]).toEqual(['x', 'x']);
      for (const [method, call] of [
        ['has', () => hash.has('x')],
        ['remove', () => hash.remove('x')],
        ['update', () => hash.update('x', at(1, 1))],
        ['idOf', () => hash.idOf('x')],
        ['setFilter', () => hash.setFilter('x', 1, 1)],
        ['getPosition', () => hash.getPosition('x')],
      ] as [string, () => unknown][]) {
        expectErrorNaming(call, [method, 'trackItems']);
      }
      hash.updateById(two, at(5, 5));
      expect(hash.positionById(two)).toEqual(at(5, 5));
      expect(hash.removeById(one)).toBe('x');
      expect([...hash]).toEqual(['x']);
      hash.validate();
    });

    it('fails fast in for...of after an insert or remove, and allows updates during it', () => {
      const at = embeddings(dim)[0];
      const hash = factory({ cellSize: 1 });
      for (let i = 0; i < 4; i++) hash.insert(i, at(i, i));
      let steps = 0;
      for (const item of hash) {
        hash.update(item, at(-(item as number), 0));
        steps++;
      }
      expect(steps).toBe(4);
      const loop = hash[Symbol.iterator]();
      loop.next();
      hash.insert(9, at(9, 9));
      expectErrorNaming(() => loop.next(), ['for...of']);
      hash.validate();
      expect(hash.positionById(3)).toEqual(at(-3, 0));
    });

    it(`rejects non-finite coordinates naming the argument (${names.point.join(', ')})`, () => {
      const hash = factory({ cellSize: 1 });
      hash.insert('a', embeddings(dim)[0](0, 0));
      for (let a = 0; a < dim; a++) {
        const p = new Array<number>(dim).fill(0);
        p[a] = Number.NaN;
        expectRangeError(() => hash.insert('b', p), [names.point[a]], [Number.NaN]);
        expectRangeError(() => hash.update('a', p), [names.point[a]], [Number.NaN]);
        expectRangeError(() => hash.nearest(p), [names.point[a]], [Number.NaN]);
      }
      expect(hash.has('b')).toBe(false);
      expect(hash.positionById(0)).toEqual(new Array<number>(dim).fill(0));
      hash.validate();
    });
  });
}
