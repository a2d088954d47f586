/**
 * Brute-force oracle and the property tests shared by PointGrid2D and
 * PointGrid3D. The grid is seen through {@link GridUnderTest}, written once per
 * dimension in the test files, so queries take a flat point array here.
 *
 * Distances in the oracle follow the library's rule (src/core/distance.ts):
 * `dx * dx + dy * dy (+ dz * dz) <= radius * radius` evaluated in float64 as
 * if the exponent range were unbounded, decided by exact-distance.ts (in
 * float64 where rounding cannot matter, with BigInt otherwise), so results
 * must agree exactly, borders included. The squared distances handed to a
 * visitor are float64's own.
 *
 * @module
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NumericArray } from '../../src/core/validate.js';
import { type NeighborLists, PointGrid2D, PointGrid3D, type PointGridOptions } from '../../src/index.js';
import { nearestRule, withinRule } from './exact-distance.js';

/** One grid seen through flat query points. */
export interface GridUnderTest {
  readonly count: number;
  readonly cellSize: number;
  readonly layout: 'dense' | 'hashed';
  rebuild(positions?: NumericArray): void;
  within(q: number[], radius: number, out?: number[]): number[];
  withinInto(q: number[], radius: number, out: Uint32Array): number;
  countWithin(q: number[], radius: number): number;
  nearest(q: number[], k?: number, maxDistance?: number): number[];
  forEachPair(radius: number, visit: (i: number, j: number, d2: number) => void): void;
  pairs(radius: number): Uint32Array;
  neighbors(radius: number): NeighborLists;
  validate(): void;
}

/** Builds a grid; options are passed through untouched (bad ones too). */
export type GridFactory = (positions: NumericArray, options: PointGridOptions) => GridUnderTest;

/** Where the points of a test case live and how they are laid out. */
export interface Layout {
  stride: number;
  offset: number;
  kind: 'f64' | 'f32' | 'array';
}

/** Writes points into an array of the given kind and layout; the gaps hold NaN (never read). */
export function pack(points: number[][], dimension: number, layout: Layout): NumericArray {
  const { stride, offset } = layout;
  const length = points.length === 0 ? 0 : offset + (points.length - 1) * stride + dimension;
  const flat = new Array<number>(length).fill(Number.NaN);
  points.forEach((p, i) => {
    for (let a = 0; a < dimension; a++) flat[offset + i * stride + a] = p[a];
  });
  if (layout.kind === 'f64') return Float64Array.from(flat);
  if (layout.kind === 'f32') return Float32Array.from(flat);
  return flat;
}

/** Point i as stored (Float32 rounding included). */
export function pointAt(positions: NumericArray, dimension: number, layout: Layout, i: number): number[] {
  const p = layout.offset + i * layout.stride;
  return Array.from({ length: dimension }, (_, a) => positions[p + a]);
}

/** Squared distance in float64, as a forEachPair visitor gets it. */
export function distanceSquared(a: number[], b: number[]): number {
  let sum = 0;
  for (let k = 0; k < a.length; k++) {
    const d = a[k] - b[k];
    sum += d * d;
  }
  return sum;
}

/** The brute-force answers over a set of stored points. */
export class PointOracle {
  constructor(readonly points: number[][]) {}

  static of(positions: NumericArray, dimension: number, layout: Layout, count: number): PointOracle {
    return new PointOracle(Array.from({ length: count }, (_, i) => pointAt(positions, dimension, layout, i)));
  }

  within(q: number[], radius: number): number[] {
    const out: number[] = [];
    this.points.forEach((p, i) => {
      if (withinRule(p, q, radius)) out.push(i);
    });
    return out;
  }

  nearest(q: number[], k: number, maxDistance: number): number[] {
    return nearestRule(this.points, q, k, maxDistance);
  }

  /** Pairs i < j within radius, as "i,j,d2" strings sorted (d2 in float64, as a visitor gets it). */
  pairs(radius: number): string[] {
    const out: string[] = [];
    const pts = this.points;
    for (let i = 0; i < pts.length; i++) {
      for (let j = i + 1; j < pts.length; j++) {
        if (withinRule(pts[i], pts[j], radius)) out.push(`${i},${j},${distanceSquared(pts[i], pts[j])}`);
      }
    }
    return out.sort();
  }
}

const ascending = (a: number, b: number) => a - b;

// ---------------------------------------------------------------------------
// Generators

/** A test case: points (before packing), grid options and query radius. */
export interface Scenario {
  points: number[][];
  cellSize: number;
  radius: number;
  layout: Layout;
  maxDenseCells: number | undefined;
  queries: number[][];
}

const cellSizes = fc.constantFrom(1, 0.5, 0.1, 0.3, 2.5, 7, 1e-3);
/** Radii as multiples of the cell size: 0, below, exactly at and just past one cell, several cells. */
const radiusFactors = fc.constantFrom(0, 0.25, 0.999, 1, 1.0000001, 1.5, 2, 5);

function pointsOf(dimension: number, coordinate: fc.Arbitrary<number>, maxLength: number): fc.Arbitrary<number[][]> {
  // size 'max': lengths spread over 0..maxLength rather than mostly tiny, so hashed grids get many cells.
  return fc.array(fc.array(coordinate, { minLength: dimension, maxLength: dimension }), { maxLength, size: 'max' });
}

/** Point sets of every nasty shape, scaled to a cell size. */
function pointSets(dimension: number, cellSize: number): fc.Arbitrary<number[][]> {
  // Dense enough that most points have neighbours within a few cells, in 2D and 3D.
  const extent = (dimension === 2 ? 8 : 3) * cellSize;
  const uniform = pointsOf(dimension, fc.double({ min: -extent, max: extent, noNaN: true }), 60);
  // Near the corners of cells: a lattice of cell multiples plus tiny offsets either way.
  const nearBorders = pointsOf(
    dimension,
    fc
      .tuple(fc.integer({ min: -4, max: 4 }), fc.constantFrom(0, 1e-9, -1e-9, 1e-3, -1e-3))
      .map(([k, e]) => (k + e) * cellSize),
    60,
  );
  // Exactly on cell borders (multiples of the cell size), negatives included.
  const borders = pointsOf(
    dimension,
    fc.integer({ min: -6, max: 6 }).map((k) => k * cellSize),
    60,
  );
  const clustered = fc
    .tuple(
      fc.array(
        fc.array(fc.double({ min: -1000, max: 1000, noNaN: true }), { minLength: dimension, maxLength: dimension }),
        {
          minLength: 1,
          maxLength: 3,
        },
      ),
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.array(fc.double({ min: -2 * cellSize, max: 2 * cellSize, noNaN: true }), {
            minLength: dimension,
            maxLength: dimension,
          }),
        ),
        { maxLength: 60 },
      ),
    )
    .map(([centers, offsets]) => offsets.map(([c, o]) => centers[c % centers.length].map((v, a) => v + o[a])));
  const coincident = fc
    .tuple(
      fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: dimension, maxLength: dimension }),
      fc.nat(40),
    )
    .map(([p, n]) => Array.from({ length: n }, () => p.slice()));
  // Far from the origin (|x| up to 1e12), with or without a few points near it.
  const far = fc
    .tuple(
      fc.array(fc.constantFrom(1e12, -1e12, 3e9, -7.5e11), { minLength: dimension, maxLength: dimension }),
      pointsOf(dimension, fc.double({ min: -5 * cellSize, max: 5 * cellSize, noNaN: true }), 40),
      fc.boolean(),
    )
    .map(([base, pts, withOrigin]) => {
      const shifted = pts.map((p) => p.map((v, a) => base[a] + v));
      return withOrigin ? shifted.concat(pts.slice(0, 5)) : shifted;
    });
  const huge = pointsOf(dimension, fc.double({ min: -1e12, max: 1e12, noNaN: true }), 30);
  return fc.oneof(uniform, borders, nearBorders, clustered, coincident, far, huge);
}

/** Scenarios of every shape, array kind and layout. */
export function scenarios(dimension: number): fc.Arbitrary<Scenario> {
  return cellSizes.chain((cellSize) =>
    fc.record({
      points: pointSets(dimension, cellSize),
      cellSize: fc.constant(cellSize),
      radius: radiusFactors.map((f) => f * cellSize),
      layout: fc.record({
        stride: fc.constantFrom(dimension, dimension, dimension + 2),
        offset: fc.constantFrom(0, 0, 2),
        kind: fc.constantFrom<Layout['kind']>('f64', 'f32', 'array'),
      }),
      maxDenseCells: fc.constantFrom(undefined, 0),
      queries: fc.array(
        fc.array(fc.double({ min: -25 * cellSize, max: 25 * cellSize, noNaN: true }), {
          minLength: dimension,
          maxLength: dimension,
        }),
        { maxLength: 4 },
      ),
    }),
  );
}

/** Everything a scenario builds: the packed positions, the grid and the oracle. */
export function setUp(make: GridFactory, dimension: number, s: Scenario) {
  // checkLayout rejects an offset into an empty array, so empty sets start at 0.
  if (s.points.length === 0) s.layout.offset = 0;
  const positions = pack(s.points, dimension, s.layout);
  const options: PointGridOptions = { cellSize: s.cellSize, stride: s.layout.stride, offset: s.layout.offset };
  if (s.maxDenseCells !== undefined) options.maxDenseCells = s.maxDenseCells;
  const grid = make(positions, options);
  const oracle = PointOracle.of(positions, dimension, s.layout, s.points.length);
  // Queries: the points themselves (exact hits, borders) and free ones.
  const queries = oracle.points.slice(0, 8).concat(s.queries);
  return { positions, grid, oracle, queries };
}

/** Radius that lands exactly on a pair's distance, so <= is exercised at the boundary. */
function exactRadius(oracle: PointOracle, fallback: number): number {
  if (oracle.points.length < 2) return fallback;
  return Math.sqrt(distanceSquared(oracle.points[0], oracle.points[oracle.points.length - 1]));
}

/** within, withinInto (with room and with too little) and countWithin of each query against the oracle. */
export function checkWithin(grid: GridUnderTest, oracle: PointOracle, queries: number[][], radius: number): void {
  const out: number[] = [99, 98];
  const into = new Uint32Array(oracle.points.length + 1);
  for (const q of queries) {
    const expected = oracle.within(q, radius);
    const got = grid.within(q, radius, out);
    expect(got).toBe(out);
    expect([...got].sort(ascending)).toEqual(expected);
    const count = grid.withinInto(q, radius, into);
    expect(count).toBe(expected.length);
    expect(grid.countWithin(q, radius)).toBe(expected.length);
    expect([...into.subarray(0, count)].sort(ascending)).toEqual(expected);
    // Too small a buffer: the full count comes back, what fits is written, each once.
    if (expected.length > 1) {
      const small = new Uint32Array(expected.length - 1);
      expect(grid.withinInto(q, radius, small)).toBe(expected.length);
      expect(new Set(small).size).toBe(small.length);
      for (const i of small) expect(expected).toContain(i);
    }
  }
}

export function checkNearest(grid: GridUnderTest, oracle: PointOracle, queries: number[][], radius: number): void {
  const n = oracle.points.length;
  for (const q of queries) {
    for (const k of [0, 1, 3, n + 2]) {
      expect(grid.nearest(q, k)).toEqual(oracle.nearest(q, k, Number.POSITIVE_INFINITY));
      expect(grid.nearest(q, k, radius)).toEqual(oracle.nearest(q, k, radius));
    }
  }
  if (queries.length > 0)
    expect(grid.nearest(queries[0])).toEqual(oracle.nearest(queries[0], 1, Number.POSITIVE_INFINITY));
}

export function checkPairs(grid: GridUnderTest, oracle: PointOracle, radius: number): void {
  const expected = oracle.pairs(radius);
  const visited: string[] = [];
  grid.forEachPair(radius, (i, j, d2) => {
    visited.push(`${i},${j},${d2}`);
  });
  expect(visited.sort()).toEqual(expected);
  const flat = grid.pairs(radius);
  expect(flat).toBeInstanceOf(Uint32Array);
  const fromPairs: string[] = [];
  for (let k = 0; k < flat.length; k += 2) {
    fromPairs.push(`${flat[k]},${flat[k + 1]},${distanceSquared(oracle.points[flat[k]], oracle.points[flat[k + 1]])}`);
  }
  expect(fromPairs.sort()).toEqual(expected);
  // CSR rows: every pair appears in both rows, nothing else, no self.
  const n = oracle.points.length;
  const { offsets, indices } = grid.neighbors(radius);
  expect(offsets.length).toBe(n + 1);
  expect(offsets[0]).toBe(0);
  expect(offsets[n]).toBe(indices.length);
  const fromRows: string[] = [];
  for (let i = 0; i < n; i++) {
    expect(offsets[i + 1]).toBeGreaterThanOrEqual(offsets[i]);
    const row = [...indices.subarray(offsets[i], offsets[i + 1])].sort(ascending);
    expect(row).toEqual(oracle.within(oracle.points[i], radius).filter((j) => j !== i));
    for (const j of row) if (i < j) fromRows.push(`${i},${j},${distanceSquared(oracle.points[i], oracle.points[j])}`);
  }
  expect(fromRows.sort()).toEqual(expected);
}

/** Every query of `grid` (within, withinInto, countWithin, nearest, forEachPair, pairs, neighbors) against the oracle. */
export function checkAnswers(grid: GridUnderTest, oracle: PointOracle, queries: number[][], radius: number): void {
  checkWithin(grid, oracle, queries, radius);
  checkNearest(grid, oracle, queries, radius);
  checkPairs(grid, oracle, radius);
}

/**
 * A PointGrid2D or PointGrid3D seen as a {@link GridUnderTest}. Its nearest
 * goes through one reused `out` holding stale entries: nearest must empty,
 * fill and return it.
 */
export function gridFace(grid: PointGrid2D | PointGrid3D): GridUnderTest {
  const g2 = grid instanceof PointGrid2D ? grid : undefined;
  const g3 = grid instanceof PointGrid3D ? grid : undefined;
  const nearestOut: number[] = [];
  return {
    get count() {
      return grid.count;
    },
    get cellSize() {
      return grid.cellSize;
    },
    get layout() {
      return grid.layout;
    },
    rebuild: (positions) => grid.rebuild(positions),
    within: (q, radius, out) => (g2 ? g2.within(q[0], q[1], radius, out) : g3!.within(q[0], q[1], q[2], radius, out)),
    withinInto: (q, radius, out) =>
      g2 ? g2.withinInto(q[0], q[1], radius, out) : g3!.withinInto(q[0], q[1], q[2], radius, out),
    countWithin: (q, radius) => (g2 ? g2.countWithin(q[0], q[1], radius) : g3!.countWithin(q[0], q[1], q[2], radius)),
    nearest: (q, k, maxDistance) => {
      nearestOut.push(-1, -2);
      const found = g2
        ? g2.nearest(q[0], q[1], k, maxDistance, nearestOut)
        : g3!.nearest(q[0], q[1], q[2], k, maxDistance, nearestOut);
      expect(found).toBe(nearestOut);
      return [...found];
    },
    forEachPair: (radius, visit) => grid.forEachPair(radius, visit),
    pairs: (radius) => grid.pairs(radius),
    neighbors: (radius) => grid.neighbors(radius),
    validate: () => grid.validate(),
  };
}

/** Runs `fc.assert` with a fixed seed that is also in the test name. */
function property<T>(arbitrary: fc.Arbitrary<T>, seed: number, numRuns: number, check: (value: T) => void): void {
  fc.assert(fc.property(arbitrary, check), { seed, numRuns });
}

/** The shared property suite. */
export function pointGridProperties(name: string, dimension: 2 | 3, make: GridFactory): void {
  const SEED_QUERIES = dimension === 2 ? 20261 : 30261;
  const SEED_PAIRS = dimension === 2 ? 20262 : 30262;
  const SEED_REBUILD = dimension === 2 ? 20263 : 30263;

  describe(`${name} against brute force`, () => {
    it(`within, withinInto, countWithin and nearest match the oracle (seed ${SEED_QUERIES})`, () => {
      property(scenarios(dimension), SEED_QUERIES, 300, (s) => {
        const { grid, oracle, queries } = setUp(make, dimension, s);
        grid.validate();
        expect(grid.count).toBe(s.points.length);
        checkWithin(grid, oracle, queries, s.radius);
        checkWithin(grid, oracle, queries.slice(0, 3), exactRadius(oracle, s.radius));
        checkNearest(grid, oracle, queries, s.radius);
      });
    });

    it(`forEachPair, pairs and neighbors match the oracle and each other (seed ${SEED_PAIRS})`, () => {
      property(scenarios(dimension), SEED_PAIRS, 250, (s) => {
        const { grid, oracle } = setUp(make, dimension, s);
        checkPairs(grid, oracle, s.radius);
        checkPairs(grid, oracle, exactRadius(oracle, s.radius));
      });
    });

    it(`rebuild after moving points and after changing the count (seed ${SEED_REBUILD})`, () => {
      const moves = fc.tuple(
        scenarios(dimension),
        fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 1, maxLength: 5 }),
        fc.nat(70),
      );
      property(moves, SEED_REBUILD, 120, ([s, shifts, newCount]) => {
        const { positions, grid } = setUp(make, dimension, s);
        // Move every point in place (the caller's array), then rebuild without arguments.
        const moved = s.points.map((p, i) => p.map((v, a) => v + shifts[(i + a) % shifts.length] * s.cellSize));
        const { stride, offset } = s.layout;
        moved.forEach((p, i) => {
          for (let a = 0; a < dimension; a++) (positions as number[])[offset + i * stride + a] = p[a];
        });
        grid.rebuild();
        grid.validate();
        let oracle = PointOracle.of(positions, dimension, s.layout, s.points.length);
        checkWithin(grid, oracle, oracle.points.slice(0, 4), s.radius);
        checkPairs(grid, oracle, s.radius);
        // A new array with another count, same layout.
        // (An offset into an empty array is rejected, so keep one point then.)
        const count = s.layout.offset > 0 ? Math.max(1, newCount) : newCount;
        const resized = Array.from(
          { length: count },
          (_, i) => moved[i % Math.max(1, moved.length)] ?? Array(dimension).fill(i),
        );
        const next = pack(resized, dimension, s.layout);
        grid.rebuild(next);
        grid.validate();
        expect(grid.count).toBe(count);
        oracle = PointOracle.of(next, dimension, s.layout, count);
        checkWithin(grid, oracle, oracle.points.slice(0, 4).concat(s.queries), s.radius);
        checkNearest(grid, oracle, oracle.points.slice(0, 2), s.radius);
        checkPairs(grid, oracle, s.radius);
      });
    });
  });
}
