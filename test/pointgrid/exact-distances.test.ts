/**
 * PointGrid2D/3D under the distance rule of decision 2 (src/core/distance.ts)
 * at the extremes: coordinates up to ±1.7e308, clusters whose gaps are tiny
 * (1e-200) or subnormal, mixes of huge and tiny, radii from 0 and 5e-324 to
 * Infinity and at the edges of the ordinary range, dense and hashed, float64
 * and float32. Every query (within, withinInto, nearest with every k and
 * maxDistance, forEachPair, pairs and neighbors, whole and in slices, with
 * and without `out`) is checked against the exact oracle
 * (test/support/exact-distance.ts, BigInt where float64 is not the rule).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D } from '../../src/index.js';
import { BOUNDARY_TRIPLES, EDGE_RADII, extremeCoordinates, extremeRadius } from '../support/extreme-numbers.js';
import { nextDown, nextUp } from '../support/hash-properties.js';
import { checkAnswers, gridFace, PointOracle } from '../support/pointgrid-oracle.js';

type Grid = PointGrid2D | PointGrid3D;

function build(d: 2 | 3, positions: Float64Array | Float32Array, maxDenseCells: number | undefined, cellSize: number) {
  return d === 2
    ? new PointGrid2D(positions, { cellSize, maxDenseCells })
    : new PointGrid3D(positions, { cellSize, maxDenseCells });
}

/** The points as the grid stores them (float32 rounding included), or undefined where an axis's extent overflows. */
function stored(flat: number[], d: number, f32: boolean): number[][] | undefined {
  const values = f32 ? Array.from(Float32Array.from(flat)) : flat;
  const points = Array.from({ length: values.length / d }, (_, i) => values.slice(i * d, i * d + d));
  if (points.some((p) => p.some((v) => !Number.isFinite(v)))) return undefined;
  for (let a = 0; a < d; a++) {
    const axis = points.map((p) => p[a]);
    if (axis.length > 0 && Math.max(...axis) - Math.min(...axis) === Number.POSITIVE_INFINITY) return undefined;
  }
  return points;
}

/** Slices of every pair search add up to the whole, in order, at this radius. */
function checkSlices(grid: Grid, radius: number): void {
  const full = Array.from(grid.pairs(radius));
  const rows = grid.neighbors(radius);
  for (const parts of [2, 3]) {
    const pairs: number[] = [];
    const visits: number[] = [];
    for (let part = 0; part < parts; part++) {
      pairs.push(...grid.pairs(radius, { part, parts }));
      grid.forEachPair(radius, (i, j) => visits.push(Math.min(i, j), Math.max(i, j)), { part, parts });
    }
    expect(pairs).toEqual(full);
    expect(visits).toEqual(full);
  }
  // neighbors() into a reused `out` answers the same.
  const out = { offsets: new Uint32Array(grid.count + 1), indices: new Uint32Array(rows.indices.length + 3) };
  const again = grid.neighbors(radius, { out });
  expect(Array.from(again.offsets)).toEqual(Array.from(rows.offsets));
  expect(Array.from(again.indices.subarray(0, rows.indices.length))).toEqual(Array.from(rows.indices));
}

const scene = (d: 2 | 3) =>
  fc.record({
    flat: extremeCoordinates(d, fc.integer({ min: 0, max: 12 })),
    cellSize: fc.oneof(
      fc.constantFrom(5e-324, 1e-300, 1e-200, 1e-150, 1, 0.3, 1e10, 1e200, 1e300, Number.MAX_VALUE),
      fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
    ),
    radii: fc.array(extremeRadius(), { minLength: 1, maxLength: 3 }),
    f32: fc.boolean(),
    hashed: fc.boolean(),
    queries: extremeCoordinates(d, fc.integer({ min: 0, max: 3 })),
  });

/** Whether the flat pair list holds the pair i < j. */
function hasPair(pairs: Uint32Array, i: number, j: number): boolean {
  for (let k = 0; k < pairs.length; k += 2) if (pairs[k] === i && pairs[k + 1] === j) return true;
  return false;
}

/**
 * A centre and a point on the circle (sphere) of radius hypotenuse * 2^exponent around it, every coordinate
 * a small integer times 2^exponent so that every difference is exact, with a few other points at the same
 * scale and a cell size near it or far from it.
 */
const boundaryScene = (d: 2 | 3) =>
  fc.record({
    exponent: fc.oneof(
      fc.constantFrom(-1074, -1073, -1060, -1000, -600, -540, -520, -470, -460, -453, -450, -449, -448, -447),
      fc.constantFrom(-300, 0, 300, 500, 505, 508, 509, 510, 511, 512, 513, 600, 1000, 1018),
      fc.integer({ min: -1074, max: 1018 }),
    ),
    centre: fc.array(fc.integer({ min: -4, max: 4 }), { minLength: d, maxLength: d }),
    signs: fc.array(fc.constantFrom(1, -1), { minLength: d, maxLength: d }),
    triple: fc.constantFrom(...BOUNDARY_TRIPLES[d]),
    others: fc.array(fc.array(fc.integer({ min: -20, max: 20 }), { minLength: d, maxLength: d }), { maxLength: 5 }),
    cellSize: fc.constantFrom(5e-324, 1e-300, 1e-150, 1, 1e150, 1e300, Number.MAX_VALUE),
    hashed: fc.boolean(),
  });

describe.each([2, 3] as const)('PointGrid%dD by the distance rule at the extremes', (d) => {
  const seed = 3100 + d;
  it(`within, nearest and every pair search match the exact oracle, dense and hashed (seed ${seed})`, () => {
    fc.assert(
      fc.property(scene(d), (s) => {
        const points = stored(s.flat, d, s.f32);
        const positions = s.f32 ? Float32Array.from(s.flat) : Float64Array.from(s.flat);
        if (points === undefined) {
          // An extent past Number.MAX_VALUE (or a float32 coordinate that rounds to Infinity) is refused.
          expect(() => build(d, positions, s.hashed ? 0 : undefined, s.cellSize)).toThrow(RangeError);
          return;
        }
        const grid = build(d, positions, s.hashed ? 0 : undefined, s.cellSize);
        grid.validate();
        const oracle = new PointOracle(points);
        const queries = points.slice(0, 3);
        for (let k = 0; k + d <= s.queries.length; k += d) queries.push(s.queries.slice(k, k + d));
        for (const radius of s.radii) {
          checkAnswers(gridFace(grid), oracle, queries, radius);
          checkSlices(grid, radius);
        }
      }),
      { seed: Number(process.env.SEED ?? seed), numRuns: Number(process.env.RUNS ?? 250) },
    );
  });

  it(`finds points exactly on the boundary at every scale from 2^-1074 to 2^1018 (seed ${seed + 10})`, () => {
    fc.assert(
      fc.property(boundaryScene(d), (s) => {
        const unit = 2 ** s.exponent;
        const centre = s.centre.map((m) => m * unit);
        // The triple's legs from the centre, each axis either way: the rule's square is exactly hypotenuse^2 * unit^2.
        const legs = s.triple.slice(0, d);
        const onBorder = centre.map((c, a) => c + s.signs[a] * legs[a] * unit);
        const points = [centre, onBorder, ...s.others.map((o) => o.map((m) => m * unit))];
        const radius = s.triple[d] * unit;
        const grid = build(d, Float64Array.from(points.flat()), s.hashed ? 0 : undefined, s.cellSize);
        const face = gridFace(grid);
        // Pinned without the oracle: on the boundary at the radius, outside just below it.
        expect(face.within(centre, radius)).toContain(1);
        expect(face.within(centre, nextDown(radius))).not.toContain(1);
        expect(face.nearest(centre, points.length, radius)).toContain(1);
        expect(face.nearest(centre, points.length, nextDown(radius))).not.toContain(1);
        expect(hasPair(face.pairs(radius), 0, 1)).toBe(true);
        expect(hasPair(face.pairs(nextDown(radius)), 0, 1)).toBe(false);
        const oracle = new PointOracle(points);
        for (const r of [radius, nextDown(radius), nextUp(radius)]) checkAnswers(face, oracle, points.slice(0, 2), r);
      }),
      { seed: Number(process.env.SEED ?? seed + 10), numRuns: Number(process.env.RUNS ?? 150) },
    );
  });

  it('answers the examples of decision 2 exactly', () => {
    const at = (...xs: number[]) => xs.concat([0, 0]).slice(0, d);
    for (const hashed of [false, true]) {
      const make = (points: number[][], cellSize = 1) =>
        gridFace(build(d, Float64Array.from(points.flat()), hashed ? 0 : undefined, cellSize));
      // 1e306 is farther than 1e300 from the origin; float64 said both were within.
      const far = make([at(0), at(1e306)]);
      expect(far.within(at(0), 1e300)).toEqual([0]);
      expect(Array.from(far.pairs(1e300))).toEqual([]);
      expect(Array.from(far.pairs(1e307))).toEqual([0, 1]);
      expect(far.neighbors(1e300).indices.length).toBe(0);
      // Points 1e-200 apart are not within radius 0.
      const near = make([at(0), at(1e-200), at(1e-200), at(3e-200)], 1e-200);
      expect(Array.from(near.pairs(0))).toEqual([1, 2]);
      expect(Array.from(near.pairs(1e-200)).length).toBe(2 * 3);
      // Nearest by the distance itself: 1e200 before 2e200 before 1e300, 1e-200 before 2e-200 before 3e-200.
      const spread = make([at(1e300), at(1e200), at(-2e200)], 1e100);
      expect(spread.nearest(at(0), 3)).toEqual([1, 2, 0]);
      expect(spread.nearest(at(0), 3, 1.5e200)).toEqual([1]);
      const tiny = make([at(2e-200), at(1e-200), at(-3e-200)], 1e-300);
      expect(tiny.nearest(at(0), 3)).toEqual([1, 0, 2]);
      expect(tiny.nearest(at(0), 3, 2e-200)).toEqual([1, 0]);
      expect(tiny.nearest(at(0), 3, 0)).toEqual([]);
    }
  });

  it('keeps every edge radius exact on a cluster 1e-200 wide and on a spread 1e300 wide', () => {
    const cluster = Array.from({ length: 9 }, (_, i) =>
      Array.from({ length: d }, (_, a) => 7 + ((i * (a + 2)) % 5) * 1e-200),
    );
    const spread = Array.from({ length: 9 }, (_, i) =>
      Array.from({ length: d }, (_, a) => ((i * (a + 3)) % 7) * 1e299 - 3e299),
    );
    for (const points of [cluster, spread]) {
      for (const hashed of [false, true]) {
        const grid = build(d, Float64Array.from(points.flat()), hashed ? 0 : undefined, 1);
        const oracle = new PointOracle(points);
        for (const radius of EDGE_RADII) checkAnswers(gridFace(grid), oracle, points.slice(0, 3), radius);
      }
    }
  });
});
