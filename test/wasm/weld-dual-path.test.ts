/**
 * weld and weldMesh on the WebAssembly kernels against the JavaScript path:
 * the same remap, representatives, positions and indices, element for
 * element, on seeded scenes of every shape weld's own suite draws from (the
 * brute-force suite in test/weld runs under both paths too) and on soups
 * large enough to grow the kernels' table many times: jittered copies,
 * coincident points, far and huge coordinates, tolerances whose square
 * underflows or overflows, tolerance 0 with -0, Float32Array, Float64Array,
 * number[] and interleaved input, 2D and 3D.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { NumericArray } from '../../src/core/validate.js';
import { activeKernels, setKernelMode, type WeldOptions, weld, weldMesh } from '../../src/index.js';
import { torusSoup as soup } from '../support/torus-soup.js';

afterEach(() => setKernelMode('auto'));

/** weld and weldMesh (soup or indexed) of one input under one kernel mode, as plain arrays. */
function welds(
  mode: 'wasm' | 'javascript',
  positions: NumericArray,
  tolerance: number,
  options: WeldOptions,
  indices?: Uint32Array,
) {
  setKernelMode(mode);
  expect(activeKernels()).toBe(mode);
  const plain = weld(positions, tolerance, options);
  const mesh = weldMesh(positions, indices, tolerance, options);
  return {
    remap: Array.from(plain.remap),
    representatives: Array.from(plain.representatives),
    count: plain.count,
    positions: Array.from(mesh.positions),
    indices: Array.from(mesh.indices),
    removed: mesh.removedTriangles,
    meshRemap: Array.from(mesh.remap),
  };
}

function expectSame(positions: NumericArray, tolerance: number, options: WeldOptions, indices?: Uint32Array): void {
  const js = welds('javascript', positions, tolerance, options, indices);
  const wasm = welds('wasm', positions, tolerance, options, indices);
  expect(wasm).toEqual(js);
}

describe('weld on the WebAssembly kernels equals the JavaScript path', () => {
  it('on seeded scenes: lattices, clusters and copies near and far, every array type and layout (seed 3230)', () => {
    const scene = fc.record({
      d: fc.constantFrom<2 | 3>(2, 3),
      tolerance: fc.constantFrom(0, 1, 0.3, 1e-3, 2.5, 1e-160, 1e-320, 1e155),
      base: fc.constantFrom(0, -7.25, 1e6, -3e9, 1e300, -1e-300),
      span: fc.constantFrom(2, 4, 12),
      cells: fc.array(fc.array(fc.integer({ min: -12, max: 12 }), { minLength: 3, maxLength: 3 }), { maxLength: 120 }),
      // None (on the lattice: exact ties between representatives 4 steps apart) or some.
      jitter: fc.array(fc.double({ min: -0.6, max: 0.6, noNaN: true }), { maxLength: 360 }),
      copies: fc.array(fc.nat(), { maxLength: 40 }),
      kind: fc.constantFrom('array', 'float64', 'float32', 'strided'),
      negativeZero: fc.boolean(),
    });
    fc.assert(
      fc.property(scene, ({ d, tolerance, base, span, cells, jitter, copies, kind, negativeZero }) => {
        const step = tolerance === 0 || tolerance > 1e100 ? 0.5 : tolerance / 3;
        const points = cells.map((c, i) =>
          c
            .slice(0, d)
            .map(
              (v, axis) => base + (v % span) * step + (jitter[(3 * i + axis) % Math.max(1, jitter.length)] ?? 0) * step,
            ),
        );
        for (const c of copies) if (points.length > 0) points.push(points[c % points.length].slice());
        if (negativeZero) points.push(Array(d).fill(-0), Array(d).fill(0));
        // weldMesh's soup needs whole triangles.
        while (points.length % 3 !== 0) points.push(points.length > 0 ? points[0].slice() : Array(d).fill(1));
        const flat = points.flat();
        let positions: NumericArray = flat;
        const options: WeldOptions = { dimension: d };
        if (kind === 'float64') positions = Float64Array.from(flat);
        // (Float32 only where the values fit: 1e300 would be Infinity, rejected either way.)
        if (kind === 'float32' && Math.abs(base) < 1e30) positions = Float32Array.from(flat);
        if (kind === 'strided') {
          if (points.length === 0) return;
          // Filler the weld must never read between the vertices, and before the first.
          const strided = new Float64Array(1 + (points.length - 1) * (d + 2) + d).fill(Number.NaN);
          for (const [i, p] of points.entries()) strided.set(p, 1 + i * (d + 2));
          positions = strided;
          options.stride = d + 2;
          options.offset = 1;
        }
        expectSame(positions, tolerance, options);
      }),
      { seed: 3230, numRuns: 300 },
    );
  });

  for (const d of [2, 3] as const) {
    it(`on jittered ${d}D soups that grow the table many times, Float32 and Float64, at tolerances 0 and above`, () => {
      const tolerance = 1e-4;
      const flat = soup(d, 60, 40, 0.2, tolerance, 40 + d);
      for (const positions of [Float32Array.from(flat), Float64Array.from(flat)]) {
        expectSame(positions, tolerance, { dimension: d });
        // Copies a little over half a tolerance apart: the searches past the own cell decide.
        expectSame(positions, tolerance * 0.35, { dimension: d });
        expectSame(positions, 0, { dimension: d });
      }
      // Exact copies (the tolerance-0 table fills with shared positions) and an indexed mesh.
      const exact = soup(d, 50, 30, 0, tolerance, 50 + d);
      const indices = Uint32Array.from({ length: 3000 }, (_, k) => (k * 7919) % (exact.length / d));
      expectSame(Float32Array.from(exact), 0, { dimension: d }, indices);
      expectSame(Float32Array.from(exact), tolerance, { dimension: d }, indices);
    });
  }

  it('breaks exact ties between two representatives by the lower number, as the JavaScript path does', () => {
    for (const d of [2, 3] as const) {
      for (const tolerance of [1, 0.75, 3e-5]) {
        const step = tolerance / 3;
        // Representatives 4 steps (4/3 tolerance) apart along each axis in turn, in both orders, then probes
        // exactly half-way: 2/3 tolerance from both, no nearer one and past the early stop.
        const points: number[] = [];
        const line = (axis: number, from: number, to: number) => {
          for (let k = from; to > from ? k <= to : k >= to; k += to > from ? 4 : -4) {
            for (let a = 0; a < d; a++) points.push(a === axis ? k * step : 40 * step);
          }
        };
        for (let axis = 0; axis < d; axis++) {
          line(axis, 0, 40);
          line(axis, 42, 82);
          line(axis, 124, 84);
        }
        const probes = points.length / d;
        for (let k = 0; k < probes; k++) {
          for (let a = 0; a < d; a++) points.push(points[k * d + a] + (a === k % d ? 2 * step : 0));
        }
        while ((points.length / d) % 3 !== 0) points.push(...points.slice(0, d));
        expectSame(points, tolerance, { dimension: d });
        setKernelMode('wasm');
        const tied = weld(points, tolerance, { dimension: d });
        // The probes joined a representative rather than founding their own (so they were ties).
        expect(tied.count).toBeLessThan(probes + 1);
      }
    }
  });

  it('rejects a non-finite coordinate naming the same vertex either way, early and late in the input', () => {
    for (const at of [0, 5, 2999]) {
      const positions = new Float32Array(9000).map((_, k) => k * 1e-3);
      positions[3 * at + 1] = Number.NaN;
      const message = (mode: 'wasm' | 'javascript') => {
        setKernelMode(mode);
        try {
          weld(positions, 1e-3);
        } catch (error) {
          return (error as Error).message;
        }
        return 'accepted';
      };
      expect(message('wasm')).toMatch(new RegExp(`\\b${at}\\b`));
      expect(message('wasm')).toBe(message('javascript'));
    }
  });
});
