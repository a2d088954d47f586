/**
 * countWithin of PointGrid2D and PointGrid3D: the number of points within the
 * radius, by within's rule, with no index written. Seeded properties against
 * brute force on both paths (the scenarios of the brute-force suite: cell
 * borders, negative and far coordinates, coincident points, dense and hashed,
 * Float64Array, Float32Array and number[], strides and offsets), at radii from 0
 * to Infinity and at the extremes of the distance rule (coordinates up to
 * ±1.7e308, tiny and huge radii); the kernels' count against the JavaScript
 * path's; argument checks. The shared suite (support/pointgrid-oracle.ts)
 * checks countWithin beside every within too.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { NumericArray } from '../../src/core/validate.js';
import { PointGrid2D, PointGrid3D, type PointGridOptions, setKernelMode } from '../../src/index.js';
import { EDGE_RADII, extremeCoordinates, extremeRadius } from '../support/extreme-numbers.js';
import { PointOracle, pack, scenarios } from '../support/pointgrid-oracle.js';

afterEach(() => setKernelMode('auto'));

type Grid = PointGrid2D | PointGrid3D;

function make(d: 2 | 3, positions: NumericArray, options: PointGridOptions): Grid {
  return d === 2 ? new PointGrid2D(positions, options) : new PointGrid3D(positions, options);
}

function count(grid: Grid, q: readonly number[], radius: number): number {
  return grid instanceof PointGrid2D
    ? grid.countWithin(q[0], q[1], radius)
    : grid.countWithin(q[0], q[1], q[2], radius);
}

function within(grid: Grid, q: readonly number[], radius: number): number[] {
  return grid instanceof PointGrid2D ? grid.within(q[0], q[1], radius) : grid.within(q[0], q[1], q[2], radius);
}

for (const d of [2, 3] as const) {
  describe(`PointGrid${d}D.countWithin`, () => {
    const seed = 4100 + d;
    it(`counts what brute force finds, on the kernels and in JavaScript alike (seed ${seed})`, () => {
      fc.assert(
        fc.property(scenarios(d), fc.constantFrom(1, 0, 2.5, 1e300, Number.POSITIVE_INFINITY), (s, factor) => {
          if (s.points.length === 0) s.layout.offset = 0;
          const positions = pack(s.points, d, s.layout);
          const options: PointGridOptions = { cellSize: s.cellSize, stride: s.layout.stride, offset: s.layout.offset };
          if (s.maxDenseCells !== undefined) options.maxDenseCells = s.maxDenseCells;
          const oracle = PointOracle.of(positions, d, s.layout, s.points.length);
          const queries = oracle.points.slice(0, 6).concat(s.queries);
          const radius = factor === Number.POSITIVE_INFINITY ? factor : s.radius * factor;
          const answers = (['wasm', 'javascript'] as const).map((mode) => {
            setKernelMode(mode);
            const grid = make(d, positions, options);
            return queries.map((q) => {
              const counted = count(grid, q, radius);
              expect(counted).toBe(within(grid, q, radius).length);
              return counted;
            });
          });
          expect(answers[0]).toEqual(queries.map((q) => oracle.within(q, radius).length));
          expect(answers[1]).toEqual(answers[0]);
        }),
        { seed, numRuns: 150 },
      );
    });

    const extremeSeed = 4110 + d;
    it(`at the extremes of the distance rule: huge and tiny coordinates and radii, dense and hashed (seed ${extremeSeed})`, () => {
      const scene = fc.record({
        flat: extremeCoordinates(d, fc.integer({ min: 1, max: 24 })),
        radius: extremeRadius(),
        hashed: fc.boolean(),
        f32: fc.boolean(),
      });
      fc.assert(
        fc.property(scene, ({ flat, radius, hashed, f32 }) => {
          const positions = f32 ? Float32Array.from(flat) : Float64Array.from(flat);
          const points = Array.from({ length: positions.length / d }, (_, i) => [
            ...positions.subarray(i * d, i * d + d),
          ]);
          // A grid needs finite coordinates (Float32Array rounds past 3.4e38 to Infinity) and each axis's extent
          // (max - min) finite: other sets are the constructor's error, not a count.
          if (!positions.every(Number.isFinite)) return;
          for (let a = 0; a < d; a++) {
            const axis = points.map((p) => p[a]);
            if (Math.max(...axis) - Math.min(...axis) === Number.POSITIVE_INFINITY) return;
          }
          const grid = make(d, positions, { cellSize: 1, maxDenseCells: hashed ? 0 : undefined });
          const oracle = new PointOracle(points);
          for (const q of points.slice(0, 4)) {
            for (const r of [radius, EDGE_RADII[3], 1e154]) {
              setKernelMode('wasm');
              const onKernels = count(grid, q, r);
              setKernelMode('javascript');
              expect(count(grid, q, r)).toBe(onKernels);
              expect(onKernels).toBe(oracle.within(q, r).length);
            }
          }
        }),
        { seed: extremeSeed, numRuns: 150 },
      );
    });

    it('counts coincident points, radius 0 and every point for Infinity; an empty grid counts 0', () => {
      const q = d === 2 ? [1, 1] : [1, 1, 1];
      // Three copies of q, and a point 1 from it along x.
      const positions = [...q, ...q, ...q, q[0] + 1, ...q.slice(1)];
      for (const mode of ['wasm', 'javascript'] as const) {
        setKernelMode(mode);
        const grid = make(d, positions, { cellSize: 1 });
        expect(count(grid, q, 0)).toBe(3);
        expect(count(grid, q, 1 - 2 ** -53)).toBe(3);
        expect(count(grid, q, 1)).toBe(4);
        expect(count(grid, q, Number.POSITIVE_INFINITY)).toBe(4);
        expect(count(grid, [-1e300, ...q.slice(1)], Number.MAX_VALUE)).toBe(4);
        expect(count(make(d, [], { cellSize: 1 }), q, Number.POSITIVE_INFINITY)).toBe(0);
      }
    });

    it('checks its arguments as within does, naming the argument and the value', () => {
      const grid = make(d, d === 2 ? [0, 0, 1, 1] : [0, 0, 0, 1, 1, 1], { cellSize: 1 });
      // (Arguments of any type, as JavaScript callers may pass them.)
      const at =
        (...args: unknown[]) =>
        () =>
          (grid.countWithin as (...a: unknown[]) => number).apply(grid, args);
      const zero = d === 2 ? [0, 0] : [0, 0, 0];
      const names = d === 2 ? ['x', 'y'] : ['x', 'y', 'z'];
      names.forEach((name, axis) => {
        for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, '1', undefined]) {
          const q = zero.slice();
          q[axis] = bad as number;
          expect(at(...q, 1)).toThrow(RangeError);
          expect(at(...q, 1)).toThrow(new RegExp(`^${name} `));
        }
      });
      expect(at(...zero, -1)).toThrow(/radius.*-1/);
      expect(at(...zero, Number.NaN)).toThrow(/radius.*NaN/);
      expect(at(...zero, '2')).toThrow(RangeError);
      expect(at(...zero, 0)).not.toThrow();
    });
  });
}
