/**
 * forceCollide against the rule on the numbers that break grids: pairs that
 * touch exactly (dyadic coordinates: the distance equals ri + rj, and d3's
 * strict test leaves them alone), cell borders, negative and far
 * coordinates, -0, radii from subnormal to 1e200 (whose squares overflow),
 * positions and velocities that are NaN or infinite, all in one scene.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forceCollide } from '../../src/d3/index.js';
import { copyNodes, firstDifference, oracleTick, type TestNode } from './oracle.js';

const coordinate = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: -40, max: 40 }).map((k) => k / 4) },
  { weight: 2, arbitrary: fc.double({ min: -10, max: 10, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(-0, 1e12, -1e12 + 0.25, 1e15, 2 ** 52, -(2 ** 60)) },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY) },
);
const velocity = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: -8, max: 8 }).map((k) => k / 8) },
  { weight: 1, arbitrary: fc.constantFrom(-0, 1e9, -1e12, Number.NaN, Number.POSITIVE_INFINITY) },
);
const radius = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(0.5, 1, 1.25, 2) },
  { weight: 2, arbitrary: fc.constantFrom(0, -0, 5e-324, 1e-200, 1e-9) },
  { weight: 1, arbitrary: fc.constantFrom(1e3, 1e12, 1e200, Number.NaN) },
);
const node = fc.record({
  x: coordinate,
  y: coordinate,
  z: coordinate,
  vx: velocity,
  vy: velocity,
  vz: velocity,
  r: radius,
});

describe('extreme numbers', () => {
  it('fast-check: mixed scenes of touching pairs, far and non-finite numbers, 1D to 3D (seed 0xe37)', () => {
    fc.assert(
      fc.property(
        fc.array(node, { maxLength: 60 }),
        fc.constantFrom(1 as const, 2 as const, 3 as const),
        fc.constantFrom(1, 2),
        (list, dims, iterations) => {
          const nodes: TestNode[] = list.map((d, index) => ({ ...d, index }));
          const want = copyNodes(nodes);
          oracleTick(
            want,
            nodes.map((d) => d.r),
            dims,
            1,
            () => 0.3,
            iterations,
          );
          const ours = copyNodes(nodes);
          const force = forceCollide<TestNode>((d) => d.r).iterations(iterations);
          force.initialize(ours, () => 0.3, dims);
          force(1);
          expect(firstDifference(ours, want, dims)).toBeUndefined();
        },
      ),
      { seed: 0xe37, numRuns: 400 },
    );
  });

  it('pairs exactly ri + rj apart are left alone, a ulp closer they are corrected (2D and 3D)', () => {
    for (const dims of [2, 3] as const) {
      // Along each axis in turn, and across cell borders of every class size.
      for (const gap of [2, 2.5, 3, 40.5]) {
        for (const axis of ['x', 'y', 'z'].slice(0, dims) as ('x' | 'y' | 'z')[]) {
          const a: TestNode = { index: 0, x: 1.5, y: -3.25, z: 7, vx: 0, vy: 0, vz: 0, r: gap / 2 };
          const b: TestNode = { ...a, index: 1, r: gap / 2 };
          b[axis] += gap;
          const touching = [a, b];
          const force = forceCollide<TestNode>((d) => d.r);
          force.initialize(copyNodes(touching), () => 0.5, dims);
          force(1);
          expect(force.stats().pairs, `${dims}D, gap ${gap} along ${axis}`).toBe(0);
          const closer = copyNodes(touching);
          // Toward a by two ulps of the larger coordinate (less would round away in the difference).
          const moved = closer[1] as TestNode;
          moved[axis] -= Math.max(Math.abs(a[axis]), Math.abs(moved[axis])) * 2 ** -51;
          const ours = copyNodes(closer);
          force.initialize(ours, () => 0.5, dims);
          force(1);
          const want = copyNodes(closer);
          expect(oracleTick(want, [gap / 2, gap / 2], dims, 1, () => 0.5).pairs).toBe(1);
          expect(force.stats().pairs, `${dims}D, gap ${gap} along ${axis}, closer`).toBe(1);
          expect(firstDifference(ours, want, dims)).toBeUndefined();
        }
      }
    }
  });
});
