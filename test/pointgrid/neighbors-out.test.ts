/**
 * neighbors(radius, { out }): results written over an earlier result must
 * equal fresh ones element for element, reuse the earlier buffers exactly
 * when they have room, and a bad `out` is a RangeError that changes nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type NeighborLists, PointGrid2D, PointGrid3D } from '../../src/index.js';
import { twinGrids } from '../support/grid-twins.js';
import { scenarios } from '../support/pointgrid-oracle.js';

function roomOf(array: Uint32Array): number {
  return (array.buffer.byteLength - array.byteOffset) / 4;
}

function expectSameLists(got: NeighborLists, expected: NeighborLists): void {
  expect(got.offsets).toEqual(expected.offsets);
  expect(got.indices).toEqual(expected.indices);
}

for (const d of [2, 3] as const) {
  describe(`PointGrid${d}D.neighbors with out`, () => {
    const seed = d === 2 ? 20271 : 30271;
    it(`equals a fresh result, frame after frame, and reuses buffers with room (seed ${seed})`, () => {
      fc.assert(
        fc.property(
          scenarios(d),
          fc.array(fc.double({ min: 0, max: 3, noNaN: true }), { minLength: 1, maxLength: 5 }),
          fc.integer({ min: 1, max: 4 }),
          (s, factors, parts) => {
            // The points packed as the scenario says (stride, offset, array kind), the grid used directly.
            const { grid, fresh } = twinGrids(d, s);
            let last = grid.neighbors(s.radius);
            for (const f of factors) {
              const radius = f * s.cellSize;
              const expected = fresh.neighbors(radius);
              const room = { offsets: roomOf(last.offsets), indices: roomOf(last.indices) };
              const buffers = { offsets: last.offsets.buffer, indices: last.indices.buffer };
              const got = grid.neighbors(radius, { out: last });
              expectSameLists(got, expected);
              expect(got.offsets.buffer === buffers.offsets).toBe(room.offsets >= expected.offsets.length);
              expect(got.indices.buffer === buffers.indices).toBe(room.indices >= expected.indices.length);
              // Slices written over the same result concatenate, row by row, to the full search.
              let sliceOut: NeighborLists | undefined = got;
              const rows: number[][] = Array.from({ length: grid.count }, () => []);
              for (let part = 0; part < parts; part++) {
                const slice: NeighborLists = grid.neighbors(radius, { part, parts, out: sliceOut });
                for (let i = 0; i < grid.count; i++) {
                  rows[i].push(...slice.indices.subarray(slice.offsets[i], slice.offsets[i + 1]));
                }
                sliceOut = slice;
              }
              for (let i = 0; i < grid.count; i++) {
                expect(rows[i]).toEqual([...expected.indices.subarray(expected.offsets[i], expected.offsets[i + 1])]);
              }
              last = grid.neighbors(radius, { out: sliceOut });
              expectSameLists(last, expected);
            }
          },
        ),
        { seed, numRuns: 120 },
      );
    });
  });
}

describe('neighbors out: buffers and bad input', () => {
  const positions = new Float64Array([0, 0, 1, 0, 0.5, 0.5, 10, 10, 10.5, 10]);

  it('writes from where a subarray starts, and leaves what is before it alone', () => {
    const grid = new PointGrid2D(positions, { cellSize: 1 });
    const expected = grid.neighbors(1);
    const offsets = new Uint32Array(64).fill(7);
    const indices = new Uint32Array(64).fill(7);
    const got = grid.neighbors(1, { out: { offsets: offsets.subarray(3), indices: indices.subarray(5) } });
    expectSameLists(got, expected);
    expect(got.offsets.byteOffset).toBe(12);
    expect(got.indices.byteOffset).toBe(20);
    expect([...offsets.subarray(0, 3)]).toEqual([7, 7, 7]);
    expect([...indices.subarray(0, 5)]).toEqual([7, 7, 7, 7, 7]);
  });

  it('leaves an out without room untouched and returns fresh arrays with room to spare', () => {
    const grid = new PointGrid2D(positions, { cellSize: 1 });
    const small = { offsets: new Uint32Array(2).fill(9), indices: new Uint32Array(1).fill(9) };
    const got = grid.neighbors(1, { out: small });
    expectSameLists(got, new PointGrid2D(positions, { cellSize: 1 }).neighbors(1));
    expect([...small.offsets, ...small.indices]).toEqual([9, 9, 9]);
    expect(roomOf(got.indices)).toBeGreaterThanOrEqual(got.indices.length);
  });

  it('rejects an out that is not an earlier result with a RangeError naming it, and changes nothing', () => {
    const points = new Float64Array([0, 0, 0, 0.5, 0, 0, 3, 3, 3]);
    const grid = new PointGrid3D(points, { cellSize: 1 });
    const before = grid.neighbors(1);
    const shared = new Uint32Array(16);
    const bad: unknown[] = [
      null,
      5,
      {},
      { offsets: [0, 1], indices: new Uint32Array(2) },
      { offsets: new Uint32Array(4), indices: new Int32Array(4) },
      { offsets: shared.subarray(0, 8), indices: shared.subarray(8) },
    ];
    for (const out of bad) {
      expect(() => grid.neighbors(1, { out: out as NeighborLists })).toThrow(RangeError);
      expect(() => grid.neighbors(1, { out: out as NeighborLists })).toThrow(/out/);
    }
    expectSameLists(grid.neighbors(1), before);
    expectSameLists(grid.neighbors(1, { out: before }), new PointGrid3D(points, { cellSize: 1 }).neighbors(1));
  });
});
