/**
 * PointGridWorkers under the distance rule of decision 2 (src/core/distance.ts):
 * pairs() and neighbors() through the pool at extreme coordinates and radii
 * (0, subnormal, the edges of the ordinary range, squares that overflow,
 * Infinity) equal the one-thread calls element for element and the exact
 * oracle (test/support/exact-distance.ts), for 1 to 3 threads, shared and
 * copy mode: the threads run the same cold path as the calling thread.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D } from '../../src/index.js';
import { PointGridWorkers } from '../../src/workers/index.js';
import { withinRule } from '../support/exact-distance.js';
import { EDGE_RADII, extremeCoordinates, extremeRadius } from '../support/extreme-numbers.js';

const pools = [
  new PointGridWorkers({ threads: 1 }),
  new PointGridWorkers({ threads: 3 }),
  new PointGridWorkers({ threads: 2, shared: false }),
];
afterAll(() => {
  for (const pool of pools) pool.close();
});

/** The pairs i < j within radius under the rule, as "i,j" sorted. */
function oraclePairs(points: number[][], radius: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) if (withinRule(points[i], points[j], radius)) out.push(`${i},${j}`);
  }
  return out.sort();
}

function pairKeys(pairs: Uint32Array): string[] {
  const out: string[] = [];
  for (let k = 0; k < pairs.length; k += 2) out.push(`${pairs[k]},${pairs[k + 1]}`);
  return out.sort();
}

describe.each([2, 3] as const)('PointGridWorkers with PointGrid%dD at the extremes', (d) => {
  const seed = 3400 + d;
  it(`pairs and neighbors equal the one-thread calls and the exact oracle (seed ${seed})`, async () => {
    const scene = fc.record({
      flat: extremeCoordinates(d, fc.integer({ min: 2, max: 12 })),
      cellSize: fc.constantFrom(5e-324, 1e-200, 1, 1e200, Number.MAX_VALUE),
      radius: fc.oneof(fc.constantFrom(...EDGE_RADII), extremeRadius()),
      hashed: fc.boolean(),
      which: fc.nat(pools.length - 1),
    });
    await fc.assert(
      fc.asyncProperty(scene, async (s) => {
        const points = Array.from({ length: s.flat.length / d }, (_, i) => s.flat.slice(i * d, i * d + d));
        const positions = Float64Array.from(s.flat);
        const pool = pools[s.which];
        const options = { cellSize: s.cellSize, maxDenseCells: s.hashed ? 0 : undefined, shared: pool.shared };
        let grid: PointGrid2D | PointGrid3D;
        try {
          grid = d === 2 ? new PointGrid2D(positions, options) : new PointGrid3D(positions, options);
        } catch (error) {
          // An extent past Number.MAX_VALUE on some axis is refused; nothing to search.
          expect(error).toBeInstanceOf(RangeError);
          return;
        }
        const pairs = await pool.pairs(grid, s.radius);
        expect(pairs).toEqual(grid.pairs(s.radius));
        expect(pairKeys(pairs)).toEqual(oraclePairs(points, s.radius));
        expect(await pool.neighbors(grid, s.radius)).toEqual(grid.neighbors(s.radius));
      }),
      { seed: Number(process.env.SEED ?? seed), numRuns: Number(process.env.RUNS ?? 60) },
    );
  });

  it('answers the examples of decision 2 in every thread', async () => {
    const at = (...xs: number[]) => xs.concat([0, 0]).slice(0, d);
    const make = (points: number[][], cellSize: number, shared: boolean) => {
      const positions = Float64Array.from(points.flat());
      return d === 2
        ? new PointGrid2D(positions, { cellSize, shared })
        : new PointGrid3D(positions, { cellSize, shared });
    };
    for (const pool of pools) {
      const far = make([at(0), at(1e306), at(-1e306)], 1, pool.shared);
      expect(Array.from(await pool.pairs(far, 1e300))).toEqual([]);
      expect(pairKeys(await pool.pairs(far, 1.5e306))).toEqual(['0,1', '0,2']);
      const near = make([at(0), at(1e-200), at(1e-200), at(5e-324)], 1e-300, pool.shared);
      expect(pairKeys(await pool.pairs(near, 0))).toEqual(['1,2']);
      // 5e-324 apart is within 5e-324 (and float64, whose square is 0, would say so at radius 0 too).
      const rows = await pool.neighbors(near, 5e-324);
      expect(Array.from(rows.offsets)).toEqual([0, 1, 2, 3, 4]);
      expect(Array.from(rows.indices)).toEqual([3, 2, 1, 0]);
    }
  });
});
