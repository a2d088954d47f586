/**
 * withinMany of PointGrid2D and PointGrid3D, on both paths: row q is exactly
 * what within() answers for query q (the same points in the same order), on
 * the oracle's scenarios (borders, far and huge coordinates, coincident
 * points, Float32 and strided input, dense and hashed, shared grids), with
 * strided queries, an `out` written over, queries far outside the grid and
 * windows small enough that a call crosses many (and grows its results);
 * the two paths give the same rows. within() itself is checked against brute
 * force by the oracle suites.
 */
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { NumericArray } from '../../src/core/validate.js';
import { type NeighborLists, PointGrid2D, PointGrid3D, type PointGridOptions, setKernelMode } from '../../src/index.js';
import { withinWindowForTests } from '../../src/wasm/within-kernels.js';
import { pack, type Scenario, scenarios } from '../support/pointgrid-oracle.js';

type Grid = PointGrid2D | PointGrid3D;

afterEach(() => setKernelMode('auto'));

function make(d: 2 | 3, s: Scenario, shared: boolean): Grid {
  const options: PointGridOptions = { cellSize: s.cellSize, stride: s.layout.stride, offset: s.layout.offset, shared };
  if (s.maxDenseCells !== undefined) options.maxDenseCells = s.maxDenseCells;
  const positions = pack(s.points, d, s.layout);
  return d === 2 ? new PointGrid2D(positions, options) : new PointGrid3D(positions, options);
}

function within(grid: Grid, q: number[], radius: number): number[] {
  return grid instanceof PointGrid2D ? grid.within(q[0], q[1], radius) : grid.within(q[0], q[1], q[2], radius);
}

function rows(lists: NeighborLists): number[][] {
  const out: number[][] = [];
  for (let q = 0; q + 1 < lists.offsets.length; q++) {
    out.push(Array.from(lists.indices.subarray(lists.offsets[q], lists.offsets[q + 1])));
  }
  return out;
}

/** Every radius's rows, and within() of each query, under one kernel mode. */
function answer(mode: 'wasm' | 'javascript', d: 2 | 3, s: Scenario, shared: boolean, strided: boolean) {
  setKernelMode(mode);
  const grid = make(d, s, shared);
  // The points themselves, the oracle's queries and queries far outside the grid.
  const queries = s.points.slice(0, 20).concat(s.queries, [Array(d).fill(1e12), Array(d).fill(-3e9)]);
  const flat: number[] = [];
  for (const q of queries) flat.push(...(strided ? [7, ...q] : q));
  const options = strided ? { stride: d + 1, offset: 1 } : {};
  const answers: { many: number[][]; each: number[][] }[] = [];
  let out: NeighborLists | undefined;
  for (const radius of [s.radius, s.radius * 2.5, 0, Number.POSITIVE_INFINITY]) {
    const many =
      grid instanceof PointGrid2D
        ? grid.withinMany(flat, radius, { ...options, out })
        : grid.withinMany(flat, radius, { ...options, out });
    out = many;
    answers.push({ many: rows(many), each: queries.map((q) => within(grid, q, radius)) });
  }
  return answers;
}

for (const d of [2, 3] as const) {
  const seed = 3240 + d;
  describe(`PointGrid${d}D.withinMany`, () => {
    afterAll(() => withinWindowForTests(1 << 16));

    it(`answers each query as within() does, on both paths alike (seed ${seed})`, () => {
      fc.assert(
        fc.property(
          scenarios(d),
          fc.boolean(),
          fc.boolean(),
          fc.constantFrom(1, 3, 1 << 16),
          (s, shared, strided, window) => {
            if (s.points.length === 0) s.layout.offset = 0;
            withinWindowForTests(window);
            const wasm = answer('wasm', d, s, shared, strided);
            for (const { many, each } of wasm) expect(many).toEqual(each);
            expect(answer('javascript', d, s, shared, strided)).toEqual(wasm);
          },
        ),
        { seed, numRuns: 150 },
      );
    });
  });
}

describe('withinMany', () => {
  it('crosses windows and grows its results on a crowd (every query finds every point)', () => {
    const positions = Array.from({ length: 3000 }, (_, k) => (k % 2 === 0 ? 5 + (k % 7) * 1e-3 : 5));
    const queries = Float32Array.from({ length: 2000 }, (_, k) => 5 + (k % 5) * 1e-3);
    const run = (mode: 'wasm' | 'javascript') => {
      setKernelMode(mode);
      const previous = withinWindowForTests(97);
      try {
        return rows(new PointGrid2D(positions, { cellSize: 0.5 }).withinMany(queries, 1));
      } finally {
        withinWindowForTests(previous);
      }
    };
    const wasm = run('wasm');
    expect(wasm.every((row) => row.length === 1500)).toBe(true);
    expect(wasm).toEqual(run('javascript'));
  });

  it('answers no query and an empty grid with empty rows', () => {
    for (const mode of ['wasm', 'javascript'] as const) {
      setKernelMode(mode);
      const grid = new PointGrid3D([], { cellSize: 1 });
      expect(rows(grid.withinMany([1, 2, 3, 4, 5, 6], 10))).toEqual([[], []]);
      const none = new PointGrid2D([0, 0, 1, 1], { cellSize: 1 }).withinMany([], 1);
      expect(Array.from(none.offsets)).toEqual([0]);
      expect(none.indices.length).toBe(0);
    }
  });

  it('rejects a bad radius, bad options and bad queries naming them, and leaves out untouched', () => {
    const grid = new PointGrid2D([0, 0, 1, 1, 2, 2], { cellSize: 1 });
    const out = grid.withinMany([0, 0, 1, 1], 1.5);
    const before = rows(out);
    const bad: [NumericArray, number, object | undefined, RegExp][] = [
      [[0, 0], -1, undefined, /radius/],
      [[0, 0], Number.NaN, undefined, /radius/],
      [[0, 0, 1], 1, undefined, /queries\.length \(3\) leaves a partial point/],
      [
        [0, 0, 1, Number.POSITIVE_INFINITY],
        1,
        undefined,
        /queries: point 1 has a non-finite y coordinate \(Infinity\)/,
      ],
      [[0, 0], 1, { stride: 1 }, /stride/],
      [[0, 0], 1, { offset: -1 }, /offset/],
      [[0, 0], 1, { out: { offsets: [0], indices: [] } }, /out must be/],
      [[0, 0], 1, null as unknown as object, /options must be an object/],
    ];
    for (const [queries, radius, options, message] of bad) {
      const withOut = options === null || options === undefined || 'out' in options ? options : { ...options, out };
      expect(() => grid.withinMany(queries, radius, withOut as never)).toThrow(message);
      expect(() => grid.withinMany(queries, radius, options as never)).toThrow(RangeError);
      expect(rows(out)).toEqual(before);
    }
  });
});
