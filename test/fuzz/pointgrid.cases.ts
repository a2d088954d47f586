/**
 * PointGrid fuzzing (issue 31), run by pointgrid.test.ts under the runner's
 * watchdog (support.ts): every case is small, so its work is bounded, and a
 * case that never returns fails and is named.
 *
 * - extreme: points, cell sizes and radii from 5e-324 to Number.MAX_VALUE,
 *   far offsets of ±1e300 with tiny jitter, coincident points, mixed; every
 *   query against the brute-force oracle (the float64 rule), or the
 *   construction's RangeError when a coordinate is not finite as stored or
 *   an axis's extent overflows.
 * - mutated: real grids' buffers with header fields set to 0, NaN, -1, huge
 *   and so on, random bytes, truncation, broken permutations, cell starts,
 *   keys and full lookup tables. `from(data)` must throw an Error naming the
 *   problem or answer exactly as the oracle over the points the buffer
 *   describes; `from(data, { check: 'header' })` must throw or answer, every
 *   index below the count.
 * - races: a worker thread scribbles over a shared grid's buffer while this
 *   thread queries it; every query ends with indices below the count.
 * - weld: weld against its oracle at the same extremes.
 *
 * @module
 */

import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { expect } from 'vitest';
import { type NumericArray, PointGrid2D, PointGrid3D, weld } from '../../src/index.js';
import { type GridViews, readGrid } from '../../src/pointgrid/grid-data.js';
import {
  checkAnswers,
  distanceSquared,
  gridFace,
  type Layout,
  PointOracle,
  pack,
  pointAt,
  type Scenario,
  scenarios,
} from '../support/pointgrid-oracle.js';
import { expectMatches, oracle as weldOracle } from '../support/weld-oracle.js';
import { fuzz } from './support.js';

type Grid = PointGrid2D | PointGrid3D;

const MAX = Number.MAX_VALUE;

function build(d: 2 | 3, positions: NumericArray, options: ConstructorParameters<typeof PointGrid2D>[1]): Grid {
  return d === 2 ? new PointGrid2D(positions, options) : new PointGrid3D(positions, options);
}

function open(d: 2 | 3, data: ArrayBuffer | SharedArrayBuffer, check?: 'full' | 'header'): Grid {
  const options = check === undefined ? undefined : { check };
  return d === 2 ? PointGrid2D.from(data, options) : PointGrid3D.from(data, options);
}

// ---------------------------------------------------------------------------
// Extreme numbers

/** Coordinates that are small, huge, subnormal, at the limits, and far offsets with tiny jitter. */
const extremeCoordinate = fc.oneof(
  fc.constantFrom(0, -0, 5e-324, -5e-324, 1e-310, 1e-300, -2e-300, 1e-162, 1e-150, 1e-10, 0.5, 1, -3, 1e10),
  fc.constantFrom(1e150, -1.4e154, 1e200, 1e300, -1e300, 1e306, 1e308, -1e308, MAX, -MAX),
  fc.double({ min: -10, max: 10, noNaN: true }),
  fc
    .tuple(fc.constantFrom(1e300, -1e300, 1e150, 1e12, -MAX / 2), fc.integer({ min: -4, max: 4 }))
    .map(([base, k]) => base * (1 + k * 2 ** -50)),
);

const extremeCellSize = fc.oneof(
  fc.constantFrom(5e-324, 1e-310, 1e-300, 1e-150, 1e-10, 0.3, 1, 7, 1e10, 1e150, 1e300, MAX),
  fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
);

const extremeRadius = fc.constantFrom(
  0,
  5e-324,
  1e-300,
  2e-300,
  1e-162,
  1e-150,
  1e-10,
  0.5,
  1,
  10,
  1e10,
  1e150,
  1.3e154,
  1.4e154,
  1e300,
  MAX,
  Number.POSITIVE_INFINITY,
);

interface ExtremeCase {
  points: number[][];
  cellSize: number;
  radius: number | 'pair';
  kind: Layout['kind'];
  maxDenseCells: number | undefined;
  queries: number[][];
}

function extremeCases(d: 2 | 3): fc.Arbitrary<ExtremeCase> {
  const point = fc.array(extremeCoordinate, { minLength: d, maxLength: d });
  return fc.record({
    points: fc.array(point, { maxLength: 14 }),
    cellSize: extremeCellSize,
    radius: fc.oneof(extremeRadius, fc.constant<'pair'>('pair')),
    kind: fc.constantFrom<Layout['kind']>('f64', 'f64', 'f32', 'array'),
    maxDenseCells: fc.constantFrom(undefined, 0),
    queries: fc.array(point, { maxLength: 3 }),
  });
}

function checkExtreme(d: 2 | 3, c: ExtremeCase): void {
  const layout: Layout = { stride: d, offset: 0, kind: c.kind };
  const positions = pack(c.points, d, layout);
  const stored = c.points.map((_, i) => pointAt(positions, d, layout, i));
  const make = () => build(d, positions, { cellSize: c.cellSize, maxDenseCells: c.maxDenseCells });
  if (stored.some((p) => p.some((v) => !Number.isFinite(v)))) {
    expect(make).toThrow(/non-finite/);
    return;
  }
  for (let a = 0; a < d; a++) {
    const values = stored.map((p) => p[a]);
    if (values.length > 0 && Math.max(...values) - Math.min(...values) === Number.POSITIVE_INFINITY) {
      expect(make).toThrow(RangeError);
      expect(make).toThrow(/extent/);
      return;
    }
  }
  const grid = make();
  grid.validate();
  const oracle = new PointOracle(stored);
  // A radius exactly at the distance of the first and last points: <= at the boundary.
  const radius =
    c.radius === 'pair'
      ? stored.length < 2
        ? 1
        : Math.sqrt(distanceSquared(stored[0], stored[stored.length - 1]))
      : c.radius;
  const queries = stored.slice(0, 4).concat(c.queries);
  checkAnswers(gridFace(grid), oracle, queries, radius);
  // The buffer reads back, checked, with the same answers.
  const copy = open(d, grid.data);
  checkAnswers(gridFace(copy), oracle, queries.slice(0, 2), radius);
}

// ---------------------------------------------------------------------------
// Mutated buffers

type Mutation =
  | { kind: 'field'; field: number; value: number | 'plus' | 'minus' | 'twice' | 'half' }
  | { kind: 'bytes'; edits: [number, number][] }
  | { kind: 'truncate'; fraction: number }
  | { kind: 'extend'; bytes: number }
  | { kind: 'swap' | 'duplicate'; a: number; b: number }
  | { kind: 'cellStart'; at: number; value: number }
  | { kind: 'slots'; value: number; every: boolean }
  | { kind: 'key'; at: number; value: number }
  | { kind: 'coordinate'; at: number; value: number };

const fieldValue = fc.oneof(
  fc.constantFrom<number | 'plus' | 'minus' | 'twice' | 'half'>('plus', 'minus', 'twice', 'half'),
  fc.constantFrom(0, -0, 1, -1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  fc.constantFrom(2 ** 31 - 1, 2 ** 32, 2 ** 53, 1e300, 5e-324, MAX, -1e300, 3, 7),
);

const mutations: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('field' as const), field: fc.integer({ min: 0, max: 23 }), value: fieldValue }),
  fc.record({
    kind: fc.constant('bytes' as const),
    edits: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
  }),
  fc.record({ kind: fc.constant('truncate' as const), fraction: fc.double({ min: 0, max: 0.999, noNaN: true }) }),
  fc.record({ kind: fc.constant('extend' as const), bytes: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ kind: fc.constantFrom('swap' as const, 'duplicate' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({
    kind: fc.constant('cellStart' as const),
    at: fc.nat(),
    value: fc.oneof(fc.integer({ min: -3, max: 100 }), fc.constantFrom(2 ** 31 - 1, -(2 ** 31))),
  }),
  fc.record({
    kind: fc.constant('slots' as const),
    value: fc.oneof(fc.integer({ min: -2, max: 40 }), fc.constant(2 ** 31 - 1)),
    every: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('key' as const),
    at: fc.nat(),
    value: fc.constantFrom(0, -1, 0.5, 3, 1e9, Number.NaN, 2 ** 33),
  }),
  fc.record({
    kind: fc.constant('coordinate' as const),
    at: fc.nat(),
    value: fc.constantFrom(0, 1e-300, -7, 1e300, Number.NaN, Number.POSITIVE_INFINITY),
  }),
);

/** A mutated copy of `data` (possibly of another length). */
function mutate(data: ArrayBuffer, d: 2 | 3, m: Mutation): ArrayBuffer {
  if (m.kind === 'truncate') return data.slice(0, Math.floor(data.byteLength * m.fraction));
  if (m.kind === 'extend') {
    const longer = new ArrayBuffer(data.byteLength + m.bytes);
    new Uint8Array(longer).set(new Uint8Array(data));
    return longer;
  }
  const copy = data.slice(0);
  const v: GridViews = readGrid('fuzz', copy, d);
  const pick = (n: number, k: number) => (n === 0 ? -1 : k % n);
  switch (m.kind) {
    case 'field': {
      const old = v.header[m.field];
      const value =
        m.value === 'plus'
          ? old + 1
          : m.value === 'minus'
            ? old - 1
            : m.value === 'twice'
              ? old * 2
              : m.value === 'half'
                ? old / 2
                : m.value;
      v.header[m.field] = value;
      break;
    }
    case 'bytes': {
      const bytes = new Uint8Array(copy);
      for (const [at, value] of m.edits) bytes[at % bytes.length] = value;
      break;
    }
    case 'swap':
    case 'duplicate': {
      const a = pick(v.sortedIndex.length, m.a);
      const b = pick(v.sortedIndex.length, m.b);
      if (a < 0) break;
      const old = v.sortedIndex[a];
      v.sortedIndex[a] = v.sortedIndex[b];
      if (m.kind === 'swap') v.sortedIndex[b] = old;
      break;
    }
    case 'cellStart': {
      const at = pick(v.cellStart.length, m.at);
      if (at >= 0) v.cellStart[at] = m.value;
      break;
    }
    case 'slots': {
      if (m.every) v.slots.fill(m.value);
      else if (v.slots.length > 0) v.slots[m.value & (v.slots.length - 1)] = m.value;
      break;
    }
    case 'key': {
      const at = pick(v.keys.length, m.at);
      if (at >= 0) v.keys[at] = m.value;
      break;
    }
    case 'coordinate': {
      const at = pick(v.coords.length, m.at);
      if (at >= 0) v.coords[at] = m.value;
      break;
    }
  }
  return copy;
}

/** The points a grid buffer that from() accepted describes, by index. */
function decode(data: ArrayBuffer, d: 2 | 3, count: number): number[][] {
  const v = readGrid('fuzz', data, d);
  const points: number[][] = [];
  for (let s = 0; s < count; s++) points[v.sortedIndex[s]] = Array.from(v.coords.subarray(d * s, d * s + d));
  return points;
}

/** Every query of `grid` at `q` ends, with indices below the count (the answer itself may be anything). */
export function askEverything(grid: Grid, q: number[], radius: number): void {
  const n = grid.count;
  const inRange = (indices: ArrayLike<number>, what: string) => {
    for (let k = 0; k < indices.length; k++) {
      if (!(indices[k] >= 0 && indices[k] < n)) throw new Error(`${what} returned index ${indices[k]} of ${n} points`);
    }
  };
  const face = gridFace(grid);
  inRange(face.within(q, radius), 'within');
  const into = new Uint32Array(n);
  const count = face.withinInto(q, radius, into);
  inRange(into.subarray(0, Math.min(count, n)), 'withinInto');
  inRange(face.nearest(q, 3, radius), 'nearest');
  inRange(face.nearest(q, n + 1), 'nearest');
  inRange(face.pairs(radius), 'pairs');
  const rows = face.neighbors(radius);
  inRange(rows.indices, 'neighbors');
  face.forEachPair(radius, (i, j) => inRange([i, j], 'forEachPair'));
}

/** An Error that names the grid class and says what is wrong with the data, not an accident of the code. */
function expectClearError(error: unknown, d: 2 | 3): void {
  expect(error).toBeInstanceOf(Error);
  const e = error as Error;
  expect(e.constructor).toBe(Error);
  expect(e.message).toMatch(new RegExp(`^PointGrid${d}D\\.from: data `));
}

function checkMutated(d: 2 | 3, s: Scenario, m: Mutation, shared: boolean): void {
  if (s.points.length === 0) s.layout.offset = 0;
  const positions = pack(s.points, d, s.layout);
  const options = {
    cellSize: s.cellSize,
    stride: s.layout.stride,
    offset: s.layout.offset,
    maxDenseCells: s.maxDenseCells,
    shared,
  };
  const grid = build(d, positions, options);
  const data = mutate(grid.data.slice(0) as ArrayBuffer, d, m);
  const queries = [...(s.points.slice(0, 3) as number[][]), ...(s.queries as number[][]), [0, 0, 0].slice(0, d)];
  let checked: Grid | undefined;
  try {
    checked = open(d, data);
  } catch (error) {
    expectClearError(error, d);
  }
  if (checked !== undefined) {
    checked.validate();
    const oracle = new PointOracle(decode(data, d, checked.count));
    checkAnswers(gridFace(checked), oracle, queries.slice(0, 4), s.radius);
  }
  let trusted: Grid | undefined;
  try {
    trusted = open(d, data, 'header');
  } catch (error) {
    expectClearError(error, d);
    // The header check is part of the full one: what it refuses, the full check refuses too.
    expect(checked).toBeUndefined();
  }
  if (trusted !== undefined) {
    for (const q of queries.slice(0, 3)) {
      askEverything(trusted, q, s.radius);
      askEverything(trusted, q, s.cellSize * 3);
    }
    try {
      trusted.validate();
    } catch (error) {
      expect(error).toBeInstanceOf(Error);
      expect(checked).toBeUndefined();
    }
  }
}

// ---------------------------------------------------------------------------
// Races

/** Code of a worker that writes pseudo-random bytes over `data` past the header until `control[0]` is set. */
const SCRIBBLER = `
const { workerData } = require('node:worker_threads');
const { data, control, seed } = workerData;
const bytes = new Uint8Array(data);
let x = seed >>> 0;
Atomics.store(control, 1, 1);
Atomics.notify(control, 1);
while (Atomics.load(control, 0) === 0) {
  for (let k = 0; k < 256; k++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    bytes[256 + (x % (bytes.length - 256))] = x >>> 24;
  }
}
`;

/**
 * Builds a shared grid, starts a worker that scribbles over its buffer, and
 * queries it meanwhile: every query must end with indices below the count.
 * Synchronous (the queries and the scribbling run on two threads).
 */
function checkRace(d: 2 | 3, s: Scenario, seed: number): void {
  if (s.points.length === 0) return;
  s.layout.offset = 0;
  const positions = pack(s.points, d, s.layout);
  const grid = build(d, positions, {
    cellSize: s.cellSize,
    stride: s.layout.stride,
    maxDenseCells: s.maxDenseCells,
    shared: true,
  });
  const view = open(d, grid.data, 'header');
  const control = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(SCRIBBLER, { eval: true, workerData: { data: grid.data, control, seed } });
  try {
    // Until it writes: at most 200 waits of 50 ms for the worker to start.
    for (let wait = 0; Atomics.load(control, 1) === 0; wait++) {
      if (wait === 200) throw new Error('the scribbling worker did not start');
      Atomics.wait(control, 1, 0, 50);
    }
    const queries = [...(s.points.slice(0, 4) as number[][]), ...(s.queries as number[][])];
    for (let round = 0; round < 3; round++) {
      for (const q of queries) askEverything(view, q, s.radius * (round + 1));
      tryValidate(view);
    }
  } finally {
    Atomics.store(control, 0, 1);
    void worker.terminate();
  }
}

/** validate() on a buffer being scribbled over: it ends, passing or throwing an Error. */
function tryValidate(grid: Grid): void {
  try {
    grid.validate();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
  }
}

// ---------------------------------------------------------------------------

export const suites = {
  extreme(): void {
    for (const d of [2, 3] as const) {
      fuzz(`PointGrid${d}D: extreme numbers against the oracle`, extremeCases(d), (c) => checkExtreme(d, c), 1200);
    }
  },

  mutated(): void {
    for (const d of [2, 3] as const) {
      fuzz(
        `PointGrid${d}D: mutated buffers are refused or answer as the oracle`,
        fc.tuple(scenarios(d), mutations, fc.boolean()),
        ([s, m, shared]) => checkMutated(d, s, m, shared),
        1200,
      );
      fuzz(
        `PointGrid${d}D: mutated buffers of extreme grids`,
        fc.tuple(extremeCases(d), mutations),
        ([c, m]) => {
          const points = c.points.filter((p) => p.every((v) => Math.abs(v) <= 1e300));
          const scenario = {
            points,
            cellSize: c.cellSize,
            radius: typeof c.radius === 'number' ? c.radius : 1,
            layout: { stride: d, offset: 0, kind: 'f64' as const },
            maxDenseCells: c.maxDenseCells,
            queries: c.queries.filter((p) => p.every((v) => Math.abs(v) <= 1e300)),
          };
          try {
            checkMutated(d, scenario, m, false);
          } catch (error) {
            // Points this far apart may be refused at construction; anything else is a failure.
            if (!(error instanceof RangeError && /extent/.test(error.message))) throw error;
          }
        },
        400,
      );
    }
  },

  races(): void {
    for (const d of [2, 3] as const) {
      fuzz(
        `PointGrid${d}D: queries of a buffer another thread scribbles over end inside the points`,
        fc.tuple(scenarios(d), fc.nat()),
        ([s, seed]) => checkRace(d, s, seed),
        60,
      );
    }
  },

  weld(): void {
    for (const d of [2, 3] as const) {
      fuzz(
        `weld ${d}D: extreme coordinates and tolerances against the oracle`,
        fc.tuple(
          fc.array(fc.array(extremeCoordinate, { minLength: d, maxLength: d }), { maxLength: 14 }),
          fc.constantFrom(0, 5e-324, 1e-300, 1e-162, 1e-150, 1e-10, 0.5, 1, 1e10, 1e150, 1.4e154, 1e300, MAX),
        ),
        ([points, tolerance]) => {
          expectMatches(weld(points.flat(), tolerance, { dimension: d }), weldOracle(points, tolerance));
        },
        800,
      );
    }
  },
};
