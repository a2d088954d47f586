/**
 * pairs(radius, { out }): on both paths (WebAssembly kernels and JavaScript),
 * pairs written over an earlier result must equal fresh ones element for
 * element and in the same order, reuse the earlier buffer exactly when it has
 * room, and a bad `out` is a RangeError that changes nothing.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D, setKernelMode } from '../../src/index.js';
import { twinGrids } from '../support/grid-twins.js';
import { scenarios } from '../support/pointgrid-oracle.js';

const MODES = ['wasm', 'javascript'] as const;

afterEach(() => setKernelMode('auto'));

function roomOf(array: Uint32Array): number {
  return (array.buffer.byteLength - array.byteOffset) / 4;
}

for (const mode of MODES) {
  for (const d of [2, 3] as const) {
    describe(`PointGrid${d}D.pairs with out (${mode})`, () => {
      const seed = (d === 2 ? 41_203 : 51_203) + (mode === 'wasm' ? 0 : 7);
      it(`equals a fresh result, frame after frame, and reuses a buffer with room (seed ${seed})`, () => {
        setKernelMode(mode);
        fc.assert(
          fc.property(
            scenarios(d),
            fc.array(fc.double({ min: 0, max: 3, noNaN: true }), { minLength: 1, maxLength: 5 }),
            fc.integer({ min: 1, max: 4 }),
            (s, factors, parts) => {
              const { grid, fresh } = twinGrids(d, s);
              let last = grid.pairs(s.radius);
              for (const f of factors) {
                const radius = f * s.cellSize;
                const expected = Array.from(fresh.pairs(radius));
                const room = roomOf(last);
                const buffer = last.buffer;
                const got = grid.pairs(radius, { out: last });
                expect(Array.from(got)).toEqual(expected);
                expect(got.buffer === buffer).toBe(room >= expected.length);
                // Slices written over one result concatenate, in part order, to the full search.
                const joined: number[] = [];
                let sliceOut = got;
                for (let part = 0; part < parts; part++) {
                  sliceOut = grid.pairs(radius, { part, parts, out: sliceOut });
                  joined.push(...sliceOut);
                }
                expect(joined).toEqual(expected);
                last = grid.pairs(radius, { out: sliceOut });
                expect(Array.from(last)).toEqual(expected);
              }
            },
          ),
          { seed, numRuns: 80 },
        );
      });
    });
  }

  describe(`pairs out: buffers and bad input (${mode})`, () => {
    const positions = new Float64Array([0, 0, 1, 0, 0.5, 0.5, 10, 10, 10.5, 10]);

    it('writes from where a subarray starts, and leaves what is before it alone', () => {
      setKernelMode(mode);
      const grid = new PointGrid2D(positions, { cellSize: 1 });
      const expected = Array.from(grid.pairs(1));
      const backing = new Uint32Array(64).fill(7);
      const got = grid.pairs(1, { out: backing.subarray(5) });
      expect(Array.from(got)).toEqual(expected);
      expect(got.buffer).toBe(backing.buffer);
      expect(got.byteOffset).toBe(20);
      expect([...backing.subarray(0, 5)]).toEqual([7, 7, 7, 7, 7]);
    });

    it('leaves an out without room untouched and returns fresh memory', () => {
      setKernelMode(mode);
      const grid = new PointGrid2D(positions, { cellSize: 1 });
      const small = new Uint32Array(3).fill(9);
      const got = grid.pairs(1, { out: small });
      expect(Array.from(got)).toEqual(Array.from(new PointGrid2D(positions, { cellSize: 1 }).pairs(1)));
      expect(got.buffer).not.toBe(small.buffer);
      expect([...small]).toEqual([9, 9, 9]);
    });

    it('rejects an out that is not a Uint32Array, or is the grid’s own buffer, naming it, and changes nothing', () => {
      setKernelMode(mode);
      const points = new Float64Array([0, 0, 0, 0.5, 0, 0, 3, 3, 3]);
      const grid = new PointGrid3D(points, { cellSize: 1 });
      const before = Array.from(grid.pairs(1));
      const data = grid.data;
      const copy = new Uint8Array(data.slice(0));
      const bad: unknown[] = [null, 5, {}, [0, 1], new Int32Array(8), new Float64Array(8), new Uint32Array(data)];
      for (const out of bad) {
        expect(() => grid.pairs(1, { out: out as Uint32Array })).toThrow(RangeError);
        expect(() => grid.pairs(1, { out: out as Uint32Array })).toThrow(/out/);
      }
      expect(new Uint8Array(data)).toEqual(copy);
      expect(Array.from(grid.pairs(1))).toEqual(before);
    });
  });
}
