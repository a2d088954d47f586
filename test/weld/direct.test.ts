/**
 * weld and weldMesh read a packed Float32Array or Float64Array in place (no
 * float64 copy) when the tolerance is > 0: these tests hold that path to the
 * copying one (a number[] of the same values, and an interleaved layout),
 * including -0 (welded positions come back as +0 either way), an offset into
 * the array, 2D and 3D, and the error for a non-finite coordinate.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { weld, weldMesh } from '../../src/index.js';

/** The same vertices interleaved with two filler numbers after each (read by the copying path). */
function interleaved(flat: number[], dimension: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < flat.length; i += dimension) out.push(...flat.slice(i, i + dimension), 7, 7);
  return out;
}

describe('weld reading typed arrays in place', () => {
  it('answers as the copying path, for Float32Array and Float64Array, 2D and 3D, with an offset (seeded)', () => {
    const coordinate = fc.oneof(
      fc.constantFrom(0, -0, 0.5, -0.5, 1e-4, -1e-4),
      fc.integer({ min: -40, max: 40 }).map((k) => k * 2.5e-5),
      fc.double({ min: -1e-3, max: 1e-3, noNaN: true }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom<2 | 3>(2, 3),
        fc.array(coordinate, { minLength: 0, maxLength: 180 }),
        fc.constantFrom(1e-4, 2.5e-5, 1e-3, 1e-9),
        fc.constantFrom(0, 3),
        (dimension, raw, tolerance, shift) => {
          const vertices = Math.floor(raw.length / (3 * dimension)) * 3;
          // An offset into an empty array is rejected by design.
          const offset = vertices === 0 ? 0 : shift;
          const flat = raw.slice(0, vertices * dimension);
          const expected = weld(flat, tolerance, { dimension });
          const viaStride = weld(interleaved(flat, dimension), tolerance, { dimension, stride: dimension + 2 });
          expect(viaStride).toEqual(expected);
          for (const Kind of [Float64Array, Float32Array]) {
            const values = Kind === Float32Array ? Array.from(Float32Array.from(flat)) : flat;
            const reference = weld(values, tolerance, { dimension });
            const typed = new Kind(offset + values.length);
            typed.fill(Number.NaN, 0, offset);
            typed.set(values, offset);
            expect(weld(typed, tolerance, { dimension, offset })).toEqual(reference);
            const mesh = weldMesh(typed, undefined, tolerance, { dimension, offset });
            const meshReference = weldMesh(values, undefined, tolerance, { dimension });
            expect(mesh.positions).toBeInstanceOf(Kind);
            expect(Array.from(mesh.positions)).toEqual(meshReference.positions);
            expect(mesh.indices).toEqual(meshReference.indices);
            expect(mesh.remap).toEqual(meshReference.remap);
          }
        },
      ),
      { seed: 120007, numRuns: 200 },
    );
  });

  it('answers as the exact path on mostly distinct input of thousands of vertices, 2D and 3D', () => {
    // 6000 vertices: 4000 distinct lattice points (well apart) and 2000 exact copies, shuffled by a fixed step.
    for (const dimension of [2, 3] as const) {
      const distinct = 4000;
      const points: number[][] = [];
      for (let k = 0; k < distinct; k++)
        points.push([k % 17, Math.floor(k / 17) % 13, Math.floor(k / 221)].slice(0, dimension));
      if (dimension === 2) for (let k = 0; k < distinct; k++) points[k] = [k % 61, Math.floor(k / 61)];
      const order: number[][] = [];
      for (let k = 0; k < 6000; k++) order.push(points[(k * 7919) % distinct]);
      const flat = Float64Array.from(order.flat());
      // Lattice points are 1 apart, so tolerance 0.25 merges exactly the exact duplicates: the exact path is the oracle.
      const exact = weld(flat, 0, { dimension });
      const near = weld(flat, 0.25, { dimension });
      expect(near.count).toBe(exact.count);
      expect(near.remap).toEqual(exact.remap);
      expect(near.representatives).toEqual(exact.representatives);
      const mesh = weldMesh(Float32Array.from(flat), undefined, 0.25, { dimension });
      const exactMesh = weldMesh(Float32Array.from(flat), undefined, 0, { dimension });
      expect(mesh.positions).toEqual(exactMesh.positions);
      expect(mesh.indices).toEqual(exactMesh.indices);
    }
  });

  it('returns -0 as +0 and leaves the input as it was', () => {
    const input = new Float32Array([-0, -0, -0, 1, 1, 1, -0, 0, -0]);
    const copy = input.slice();
    const { positions, count } = weldMesh(input, undefined, 0.5);
    expect(count).toBe(2);
    expect(Array.from(positions).every((v) => !Object.is(v, -0))).toBe(true);
    expect(Array.from(positions)).toEqual([0, 0, 0, 1, 1, 1]);
    expect(input).toEqual(copy);
    expect(Object.is(input[0], -0)).toBe(true);
  });

  it('names the vertex of a non-finite coordinate, past an offset', () => {
    const input = new Float64Array([Number.NaN, 0, 0, 0, 1, 1, 1, 2, Number.POSITIVE_INFINITY, 2]);
    expect(() => weld(input, 0.1, { offset: 1 })).toThrow(/point 2 has a non-finite y coordinate \(Infinity\)/);
    expect(() => weldMesh(new Float32Array([0, 0, Number.NaN, 1, 1, 1]), undefined, 1, { dimension: 2 })).toThrow(
      /point 1 has a non-finite x coordinate \(NaN\)/,
    );
  });
});
