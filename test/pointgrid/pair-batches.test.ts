/**
 * forEachPairBatch on both paths, in 2D and 3D: its batches concatenated are
 * forEachPair's pairs in forEachPair's order, and every pair within the
 * radius once against brute force (seeded fast-check, slices included); a
 * point whose candidates outgrow the batch (the JavaScript path then grows
 * the array it maps the batch into, kept between searches); and what bad
 * arguments, a throwing visitor and a search from inside the visitor get.
 * The stateful suites (test/fuzz/kernels.test.ts) run it in sequences of
 * rebuilds, mode switches and searches from inside its visitor.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type KernelMode, PointGrid2D, PointGrid3D, setKernelMode } from '../../src/index.js';
import { batchPairsForTests } from '../../src/wasm/pair-kernels.js';

type Grid = PointGrid2D | PointGrid3D;

function make(d: 2 | 3, positions: Float64Array, cellSize: number): Grid {
  return d === 2 ? new PointGrid2D(positions, { cellSize }) : new PointGrid3D(positions, { cellSize });
}

/** The batches of one call, concatenated, with each batch's count checked against its array. */
function batched(grid: Grid, radius: number, options?: { part: number; parts: number }): number[] {
  const out: number[] = [];
  grid.forEachPairBatch(
    radius,
    (pairs, count) => {
      expect(Number.isInteger(count) && count > 0 && 2 * count <= pairs.length).toBe(true);
      for (let k = 0; k < 2 * count; k++) out.push(pairs[k]);
    },
    options,
  );
  return out;
}

function visited(grid: Grid, radius: number, options?: { part: number; parts: number }): number[] {
  const out: number[] = [];
  grid.forEachPair(radius, (i, j) => out.push(i, j), options);
  return out;
}

/** Every pair i < j within `radius`, as "i,j", sorted. */
function bruteForce(positions: Float64Array, d: number, radius: number): string[] {
  const n = positions.length / d;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += (positions[d * i + k] - positions[d * j + k]) ** 2;
      if (s <= radius * radius) out.push(`${i},${j}`);
    }
  }
  return out.sort();
}

function asPairs(flat: number[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < flat.length; k += 2) out.push(`${flat[k]},${flat[k + 1]}`);
  return out;
}

const MODES: KernelMode[] = ['auto', 'javascript'];

afterEach(() => setKernelMode('auto'));

describe.each(MODES)('forEachPairBatch (mode %s)', (mode) => {
  for (const d of [2, 3] as const) {
    it(`${d}D: forEachPair's pairs in its order, and brute force's, on cell borders, negative and coincident points (seed 4201${d})`, () => {
      setKernelMode(mode);
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: -12, max: 12 }), { minLength: 0, maxLength: 240 }),
          fc.constantFrom(0.25, 0.5, 1, 3),
          fc.constantFrom(0, 0.25, 0.5, 1, 1.5, 4, Number.POSITIVE_INFINITY),
          fc.constantFrom(1, 1, 3, 1 << 14),
          fc.nat(4),
          (values, cellSize, radius, batch, part) => {
            // Quarter steps: many points on cell borders and at the same place.
            const positions = Float64Array.from(values.slice(0, values.length - (values.length % d)), (v) => v / 4);
            const grid = make(d, positions, cellSize);
            const last = batchPairsForTests(batch);
            try {
              const got = batched(grid, radius);
              expect(got).toEqual(visited(grid, radius));
              for (let k = 0; k < got.length; k += 2) expect(got[k]).toBeLessThan(got[k + 1]);
              expect(asPairs(got).sort()).toEqual(bruteForce(positions, d, radius));
              const parts = 1 + (part % 3);
              const slices: number[] = [];
              for (let p = 0; p < parts; p++) {
                const slice = batched(grid, radius, { part: p, parts });
                expect(slice).toEqual(visited(grid, radius, { part: p, parts }));
                slices.push(...slice);
              }
              expect(slices).toEqual(got);
            } finally {
              batchPairsForTests(last);
            }
          },
        ),
        { seed: 42010 + d, numRuns: 120 },
      );
    });

    it(`${d}D: a point with more candidates than a batch holds, after a small search`, () => {
      setKernelMode(mode);
      const small = make(
        d,
        new Float64Array(8 * d).map((_, k) => k),
        1,
      );
      expect(batched(small, 6)).toEqual(visited(small, 6));
      expect(visited(small, 6).length).toBeGreaterThan(0);
      // 2,100 points at one place: the first has 2,099 candidates, more than a batch's 2,048 pairs (JavaScript).
      // Each batch's count checked against its array; compared as a running hash of the sequence and its length (2.2 million pairs).
      // The same grid (whose array for the mapped batch was sized by the small search), rebuilt.
      const crowd = small;
      crowd.rebuild(new Float64Array(2100 * d));
      const fromBatches = { length: 0, hash: 0 };
      crowd.forEachPairBatch(0, (pairs, count) => {
        expect(2 * count).toBeLessThanOrEqual(pairs.length);
        for (let k = 0; k < 2 * count; k++) fromBatches.hash = Math.imul(fromBatches.hash ^ pairs[k], 16777619);
        fromBatches.length += 2 * count;
      });
      const fromPairs = { length: 0, hash: 0 };
      crowd.forEachPair(0, (i, j) => {
        fromPairs.hash = Math.imul(Math.imul(fromPairs.hash ^ i, 16777619) ^ j, 16777619);
        fromPairs.length += 2;
      });
      expect(fromBatches).toEqual(fromPairs);
      expect(fromBatches.length).toBe(2100 * 2099);
    });
  }

  it('refuses a visitor that is not a function and a bad radius, naming them, and searches again after', () => {
    setKernelMode(mode);
    const grid = new PointGrid2D([0, 0, 1, 0, 2, 0], { cellSize: 1 });
    expect(() => grid.forEachPairBatch(1, undefined as never)).toThrow(/visit must be a function/);
    expect(() => grid.forEachPairBatch(Number.NaN, () => {})).toThrow(RangeError);
    expect(() => grid.forEachPairBatch(-1, () => {})).toThrow(/radius/);
    expect(() => grid.forEachPairBatch(1, () => {}, { part: 2, parts: 2 })).toThrow(RangeError);
    expect(batched(grid, 1)).toEqual([0, 1, 1, 2]);
  });

  it('a visitor that throws stops the search, and the grid answers in full after', () => {
    setKernelMode(mode);
    const positions = new Float64Array(400).map((_, k) => (k * 7) % 23);
    const grid = new PointGrid2D(positions, { cellSize: 2 });
    const last = batchPairsForTests(3);
    try {
      let calls = 0;
      expect(() =>
        grid.forEachPairBatch(2, () => {
          calls++;
          throw new Error('stop');
        }),
      ).toThrow('stop');
      expect(calls).toBe(1);
      expect(batched(grid, 2)).toEqual(visited(grid, 2));
    } finally {
      batchPairsForTests(last);
    }
  });

  it('another pair search of the grid from inside the visitor throws; within and nearest answer', () => {
    setKernelMode(mode);
    const grid = new PointGrid3D([0, 0, 0, 1, 0, 0, 2, 0, 0], { cellSize: 1 });
    const inside: unknown[] = [];
    grid.forEachPairBatch(1, (pairs, count) => {
      inside.push(count, [...pairs.subarray(0, 2 * count)]);
      expect(() => grid.forEachPairBatch(1, () => {})).toThrow(/inside another pair search/);
      expect(() => grid.pairs(1)).toThrow(/inside another pair search/);
      expect(() => grid.rebuild()).toThrow();
      inside.push([...grid.within(0, 0, 0, 1)].sort(), grid.nearest(2, 0, 0, 1)[0]);
    });
    expect(inside).toEqual([2, [0, 1, 1, 2], [0, 1], 2]);
    expect(batched(grid, 1)).toEqual([0, 1, 1, 2]);
  });
});
