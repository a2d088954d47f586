/**
 * weld and weldMesh under the distance rule of decision 2 (src/core/distance.ts):
 * at extreme coordinates and tolerances (0, subnormal, the edges of the
 * ordinary range, squares that overflow) both match the brute-force
 * definition (test/support/weld-oracle.ts, decided by the BigInt oracle), and
 * a vertex exactly at the tolerance joins while one a tolerance one ulp
 * smaller keeps it apart, at every scale.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { weld, weldMesh } from '../../src/index.js';
import { BOUNDARY_TRIPLES, EDGE_RADII, extremeCoordinates, extremeRadius } from '../support/extreme-numbers.js';
import { nextDown } from '../support/hash-properties.js';
import { expectMatches, oracle } from '../support/weld-oracle.js';

describe.each([2, 3] as const)('weld and weldMesh in %dD by the distance rule at the extremes', (d) => {
  const seed = 3500 + d;
  it(`match the brute-force definition at extreme coordinates and tolerances (seed ${seed})`, () => {
    fc.assert(
      fc.property(
        extremeCoordinates(
          d,
          fc.integer({ min: 0, max: 5 }).map((n) => 3 * n),
        ),
        fc.oneof(fc.constantFrom(...EDGE_RADII.filter(Number.isFinite)), extremeRadius().filter(Number.isFinite)),
        (flat, tolerance) => {
          const points = Array.from({ length: flat.length / d }, (_, i) => flat.slice(i * d, i * d + d));
          const expected = oracle(points, tolerance);
          expectMatches(weld(flat, tolerance, { dimension: d }), expected);
          // weldMesh over the same vertices as a triangle soup: the same welding.
          const mesh = weldMesh(flat, undefined, tolerance, { dimension: d, removeDegenerate: false });
          expect(Array.from(mesh.remap)).toEqual(expected.remap);
          expect(mesh.count).toBe(expected.count);
        },
      ),
      { seed: Number(process.env.SEED ?? seed), numRuns: Number(process.env.RUNS ?? 200) },
    );
  });

  it(`join a vertex exactly at the tolerance from 2^-1074 to 2^1018, not one ulp beyond (seed ${seed + 10})`, () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(-1074, -1000, -600, -449, -448, 0, 511, 512, 513, 1018),
          fc.integer({ min: -1074, max: 1018 }),
        ),
        fc.constantFrom(...BOUNDARY_TRIPLES[d]),
        fc.array(fc.integer({ min: -4, max: 4 }), { minLength: d, maxLength: d }),
        (exponent, triple, centre) => {
          const unit = 2 ** exponent;
          const a = centre.map((m) => m * unit);
          const b = a.map((v, i) => v + triple[i] * unit);
          // c is far from both: the triangle (a, b, c) is degenerate once a and b weld, and only then.
          const c = a.map((v) => v - 20 * unit);
          const flat = [...a, ...b, ...c, ...b];
          const tolerance = triple[d] * unit;
          expect(Array.from(weld(flat, tolerance, { dimension: d }).remap)).toEqual([0, 0, 1, 0]);
          expect(Array.from(weld(flat, nextDown(tolerance), { dimension: d }).remap)).toEqual([0, 1, 2, 1]);
          const soup = flat.slice(0, 3 * d);
          expect(weldMesh(soup, undefined, tolerance, { dimension: d }).removedTriangles).toBe(1);
          expect(weldMesh(soup, undefined, nextDown(tolerance), { dimension: d }).removedTriangles).toBe(0);
        },
      ),
      { seed: Number(process.env.SEED ?? seed + 10), numRuns: Number(process.env.RUNS ?? 150) },
    );
  });
});
