/**
 * The streaming dedupe (src/dedupe-points.ts) against one weld of the whole
 * cloud: seeded clouds on coarse lattices (many points within the radius of
 * each other, coincident ones, far-apart clusters) pushed through chunks of
 * 1 to 9 points must keep exactly weld's representatives, in file order,
 * with their return numbers, and give the cluster means weld's remap gives
 * (summed in file order, so equal to the bit).
 */

import fc from 'fast-check';
import { weld } from 'spatialhash';
import { describe, expect, it } from 'vitest';
import { PointDedupe } from '../src/dedupe-points.js';
import { clusterMeans } from '../src/formats/ply.js';

const cloud = fc.record({
  points: fc.array(
    fc.tuple(
      fc.integer({ min: -6, max: 6 }),
      fc.integer({ min: -3, max: 3 }),
      fc.integer({ min: 0, max: 2 }),
      fc.constantFrom(0, 0, 1000),
    ),
    { minLength: 0, maxLength: 80 },
  ),
  radius: fc.constantFrom(0, 0.25, 0.5, 0.7, 1.5),
  chunk: fc.integer({ min: 1, max: 9 }),
});

describe('PointDedupe', () => {
  it("keeps weld's representatives and means, chunk after chunk (seed 46)", () => {
    fc.assert(
      fc.property(cloud, ({ points, radius, chunk }) => {
        const positions = Float64Array.from(points.flatMap(([x, y, z, far]) => [x * 0.5 + far, y * 0.5, z * 0.5]));
        const dedupe = new PointDedupe(radius, true, chunk);
        for (let i = 0; i < points.length; i++) {
          dedupe.push(positions[i * 3]!, positions[i * 3 + 1]!, positions[i * 3 + 2]!, i % 16);
        }
        dedupe.finish();
        const expected = weld(positions, radius);
        const founders = Array.from(expected.representatives);
        expect(dedupe.points).toBe(points.length);
        expect(dedupe.count).toBe(expected.count);
        expect(Array.from(dedupe.kept.values()).flatMap((k, i) => (k === 1 ? [i] : []))).toEqual(founders);
        expect(Array.from(dedupe.coordinates.values())).toEqual(
          founders.flatMap((i) => Array.from(positions.subarray(i * 3, i * 3 + 3))),
        );
        expect(Array.from(dedupe.returns.values())).toEqual(founders.map((i) => i % 16));
        expect(Array.from(dedupe.means())).toEqual(Array.from(clusterMeans(positions, expected.remap, expected.count)));
      }),
      { seed: 46, numRuns: 400 },
    );
  });
});
