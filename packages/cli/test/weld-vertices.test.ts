/**
 * weldVertices against the brute-force rule
 * (test/three/oracle.ts): seeded vertices on a coarse lattice (many within
 * the tolerance of each other) with attributes drawn from a few values, so
 * that attributes keep some of them apart. The welded count is the rule's
 * with every attribute compared; keptApart counts, per attribute name, the
 * vertices that join a vertex by position alone and differ from it in that
 * attribute beyond its tolerance. OBJ's colour is two channels of one name
 * (the numbers, and how many): a vertex counts once for it.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleWeld } from '../../../test/three/oracle.js';
import { type VertexAttribute, weldVertices } from '../src/weld-vertices.js';

const cloud = fc.record({
  points: fc.array(
    fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 2 })),
    {
      minLength: 1,
      maxLength: 60,
    },
  ),
  normals: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 60, maxLength: 60 }),
  uvs: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 60, maxLength: 60 }),
  // Two channels of one name (as OBJ's colour and its count): mostly equal, so some vertices differ in both.
  colors: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 60, maxLength: 60 }),
  counts: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 60, maxLength: 60 }),
  tolerance: fc.constantFrom(0, 0.5, 1, 1.5),
  uvTolerance: fc.constantFrom(0, 0.25, 1),
});

describe('weldVertices with attributes', () => {
  it('welds by the rule and says which attributes kept vertices apart (seed 45)', () => {
    fc.assert(
      fc.property(cloud, ({ points, normals, uvs, colors, counts, tolerance, uvTolerance }) => {
        const n = points.length;
        const rows = points.map(([x, y, z]) => [x * 0.5, y * 0.5, z * 0.5]);
        const normalRows = Array.from({ length: n }, (_, i) => [0, 0, normals[i]!]);
        const uvRows = Array.from({ length: n }, (_, i) => [uvs[i]! * 0.5, 0]);
        const colorRows = Array.from({ length: n }, (_, i) => [colors[i]! > 3 ? 1 : 0]);
        const countRows = Array.from({ length: n }, (_, i) => [counts[i]! > 3 ? 4 : 3]);
        const attributes: VertexAttribute[] = [
          { name: 'normal', size: 3, values: Float64Array.from(normalRows.flat()), tolerance: 0 },
          { name: 'uv', size: 2, values: Float64Array.from(uvRows.flat()), tolerance: uvTolerance },
          { name: 'color', size: 1, values: Float64Array.from(colorRows.flat()), tolerance: 0 },
          { name: 'color', size: 1, values: Float64Array.from(countRows.flat()), tolerance: 0 },
        ];
        const welded = weldVertices(Float64Array.from(rows.flat()), tolerance, attributes);
        const expected = oracleWeld(rows, tolerance, [
          { values: normalRows, tolerance: 0 },
          { values: uvRows, tolerance: uvTolerance },
          { values: colorRows, tolerance: 0 },
          { values: countRows, tolerance: 0 },
        ]);
        expect(welded.count).toBe(expected.representatives.length);
        expect(Array.from(welded.remap)).toEqual(expected.remap);
        // By position alone, then the attribute differences from each vertex's founder (the report's rule, see
        // WeldByDistanceReport in src/gltf-transform: whether or not the attributes changed the count).
        const byPosition = oracleWeld(rows, tolerance, []);
        const apart = new Map<string, number>();
        for (let i = 0; i < n; i++) {
          const founder = byPosition.representatives[byPosition.remap[i]!]!;
          if (founder === i) continue;
          if (normalRows[i]![2] !== normalRows[founder]![2]) apart.set('normal', (apart.get('normal') ?? 0) + 1);
          if (Math.abs(uvRows[i]![0]! - uvRows[founder]![0]!) > uvTolerance)
            apart.set('uv', (apart.get('uv') ?? 0) + 1);
          if (colorRows[i]![0] !== colorRows[founder]![0] || countRows[i]![0] !== countRows[founder]![0])
            apart.set('color', (apart.get('color') ?? 0) + 1);
        }
        const expectedApart = ['normal', 'uv', 'color']
          .filter((name) => apart.has(name))
          .map((attribute) => ({ attribute, vertices: apart.get(attribute)! }));
        expect(welded.keptApart).toEqual(expectedApart.length > 0 ? expectedApart : undefined);
      }),
      { seed: 45, numRuns: 300 },
    );
  });
});
