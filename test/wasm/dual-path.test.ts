/**
 * The WebAssembly kernels against the JavaScript path: seeded scenarios of
 * every nasty shape (those of the brute-force suite: borders, far and huge
 * coordinates, coincident points, Float32 and strided input, dense and
 * hashed) built and searched both ways must give the same grid buffer byte
 * for byte and the same pairs, rows and visits in the same order. The
 * JavaScript path is checked against brute force by test/pointgrid, run
 * there under both paths too.
 */
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { introDepthForTests } from '../../src/core/sort-keys.js';
import type { NumericArray } from '../../src/core/validate.js';
import {
  activeKernels,
  type NeighborLists,
  PointGrid2D,
  PointGrid3D,
  type PointGridOptions,
  setKernelMode,
} from '../../src/index.js';
import { batchPairsForTests } from '../../src/wasm/pair-kernels.js';
import { gridContents } from '../support/grid-twins.js';
import { pack, type Scenario, scenarios } from '../support/pointgrid-oracle.js';

type Grid = PointGrid2D | PointGrid3D;

function make(d: 2 | 3, positions: NumericArray, options: PointGridOptions): Grid {
  return d === 2 ? new PointGrid2D(positions, options) : new PointGrid3D(positions, options);
}

function optionsOf(s: Scenario): PointGridOptions {
  const options: PointGridOptions = { cellSize: s.cellSize, stride: s.layout.stride, offset: s.layout.offset };
  if (s.maxDenseCells !== undefined) options.maxDenseCells = s.maxDenseCells;
  return options;
}

/** What a grid buffer holds (see gridContents). */
function contents(grid: Grid): number[][] {
  return gridContents(grid.data, grid instanceof PointGrid2D ? 2 : 3);
}

/** Everything the batch paths answer for one grid and radius, in the order they answer it. */
function answers(grid: Grid, radius: number, reuse: NeighborLists | undefined) {
  const visits: number[] = [];
  grid.forEachPair(radius, (i, j) => {
    visits.push(i, j);
  });
  const withDistance: number[] = [];
  grid.forEachPair(radius, (i, j, d2) => {
    withDistance.push(i, j, d2);
  });
  const parts = [0, 1, 2].map((part) => Array.from(grid.pairs(radius, { part, parts: 3 })));
  const rows = grid.neighbors(radius, { part: 1, parts: 2 });
  const out = grid.neighbors(radius, { out: reuse });
  return {
    data: contents(grid),
    layout: grid.layout,
    pairs: Array.from(grid.pairs(radius)),
    visits,
    withDistance,
    parts,
    rows: { offsets: Array.from(rows.offsets), indices: Array.from(rows.indices) },
    out: { offsets: Array.from(out.offsets), indices: Array.from(out.indices) },
  };
}

/** Builds, searches, rebuilds from moved points and searches again under one kernel mode. */
function run(mode: 'wasm' | 'javascript', d: 2 | 3, s: Scenario, moved: NumericArray) {
  setKernelMode(mode);
  expect(activeKernels()).toBe(mode);
  const positions = pack(s.points, d, s.layout);
  const grid = make(d, positions, optionsOf(s));
  const first = answers(grid, s.radius, undefined);
  grid.rebuild(moved);
  grid.validate();
  const reuse = grid.neighbors(s.radius);
  const second = answers(grid, s.radius * 1.5, reuse);
  return { first, second };
}

afterEach(() => setKernelMode('auto'));

for (const d of [2, 3] as const) {
  const seed = 3200 + d;
  describe(`PointGrid${d}D: WebAssembly kernels equal the JavaScript path`, () => {
    it(`gives the same grid, pairs, rows and visits in the same order (seed ${seed})`, () => {
      const cases = fc.tuple(scenarios(d), fc.double({ min: -2, max: 2, noNaN: true }), fc.nat(50));
      fc.assert(
        fc.property(cases, ([s, shift, extra]) => {
          if (s.points.length === 0) s.layout.offset = 0;
          // Moved points, with another count: some shifted, then copies (coincident with the first ones).
          const next = s.points.map((p) => p.map((v) => v + shift * s.cellSize));
          for (let k = 0; k < extra && next.length > 0; k++) next.push(next[k % next.length].slice());
          const layout = { ...s.layout, offset: next.length === 0 ? 0 : s.layout.offset };
          const moved = pack(next, d, layout);
          if (layout.offset !== s.layout.offset) return;
          const js = run('javascript', d, s, moved);
          const wasm = run('wasm', d, s, moved);
          expect(wasm).toEqual(js);
        }),
        { seed, numRuns: 200 },
      );
    });
  });
}

/** within, withinInto (full and short out) and countWithin of every query, under one kernel mode. */
function queries(mode: 'wasm' | 'javascript', d: 2 | 3, s: Scenario, shared: boolean) {
  setKernelMode(mode);
  const positions = pack(s.points, d, s.layout);
  const grid = make(d, positions, { ...optionsOf(s), shared });
  const points = s.points.slice(0, 6).concat(s.queries);
  const found: number[][] = [];
  const short = new Uint32Array(3);
  for (const radius of [s.radius, s.radius * 2.5, 0, Number.POSITIVE_INFINITY]) {
    for (const [x, y, z] of points) {
      const all = grid instanceof PointGrid2D ? grid.within(x, y, radius) : grid.within(x, y, z, radius);
      const count =
        grid instanceof PointGrid2D ? grid.withinInto(x, y, radius, short) : grid.withinInto(x, y, z, radius, short);
      const counted = grid instanceof PointGrid2D ? grid.countWithin(x, y, radius) : grid.countWithin(x, y, z, radius);
      found.push(all, [count, ...short.subarray(0, Math.min(count, 3))], [counted]);
    }
  }
  return found;
}

for (const d of [2, 3] as const) {
  const seed = 3210 + d;
  describe(`PointGrid${d}D within: WebAssembly kernels equal the JavaScript path`, () => {
    it(`finds the same points in the same order, short outs and shared grids included (seed ${seed})`, () => {
      fc.assert(
        fc.property(scenarios(d), fc.boolean(), (s, shared) => {
          if (s.points.length === 0) s.layout.offset = 0;
          expect(queries('wasm', d, s, shared)).toEqual(queries('javascript', d, s, shared));
        }),
        { seed, numRuns: 200 },
      );
    });
  });
}

describe('crowded cells', () => {
  afterEach(() => introDepthForTests(2));

  it('are sorted alike by introsort and by heapsort (its way out), on both paths', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.constantFrom(2 as const, 3 as const),
        fc.boolean(),
        (seed, d, dense) => {
          // Cells of 25 to a few hundred points: runs of equal x (ties broken by index), coincident points,
          // and x in falling, rising and random order.
          let state = seed;
          const random = () => {
            state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
            return state / 2 ** 32;
          };
          const positions: number[] = [];
          for (let cell = 0; cell < 6; cell++) {
            const count = 25 + Math.floor(random() * 300);
            const shape = Math.floor(random() * 4);
            for (let k = 0; k < count; k++) {
              const x =
                shape === 0 ? 0.5 : shape === 1 ? 1 - k / count : shape === 2 ? Math.floor(random() * 4) / 4 : random();
              positions.push(cell * 3 + x, random(), ...(d === 3 ? [random()] : []));
            }
          }
          const options = { cellSize: 1, maxDenseCells: dense ? undefined : 0 };
          const built = (mode: 'wasm' | 'javascript', perLevel: number) => {
            setKernelMode(mode);
            introDepthForTests(perLevel);
            return contents(make(d, positions, options));
          };
          const reference = built('javascript', 2);
          expect(built('javascript', 0)).toEqual(reference);
          expect(built('wasm', 2)).toEqual(reference);
          expect(built('wasm', 0)).toEqual(reference);
        },
      ),
      { seed: 3221, numRuns: 40 },
    );
  });
});

describe('kernel batches and re-entry', () => {
  afterAll(() => batchPairsForTests(1 << 14));

  it('hands a visitor many small batches, and points with more candidates than a batch, in order', () => {
    const last = batchPairsForTests(7);
    expect(last).toBe(1 << 14);
    const positions: number[] = [];
    // A crowd (every point pairs with every other) next to a loose lattice.
    for (let k = 0; k < 40; k++) positions.push(5, 5, 5);
    for (let k = 0; k < 400; k++) positions.push(k % 8, (k >> 3) % 8, k >> 6);
    const visit = (mode: 'wasm' | 'javascript') => {
      setKernelMode(mode);
      const grid = new PointGrid3D(positions, { cellSize: 1.1 });
      const seen: number[] = [];
      grid.forEachPair(1.1, (i, j, d2) => {
        seen.push(i, j, d2);
      });
      return seen;
    };
    const wasm = visit('wasm');
    expect(wasm.length).toBeGreaterThan(3 * 780);
    expect(wasm).toEqual(visit('javascript'));
  });

  it('lets a visitor search and rebuild other grids (on the JavaScript path) while its search waits', () => {
    const positions = Array.from({ length: 600 }, (_, k) => ((k * 7919) % 997) / 40);
    const other = Array.from({ length: 400 }, (_, k) => ((k * 104729) % 991) / 30);
    const visit = (mode: 'wasm' | 'javascript') => {
      setKernelMode(mode);
      const grid = new PointGrid2D(positions, { cellSize: 1 });
      const second = new PointGrid2D(other, { cellSize: 1 });
      const seen: number[] = [];
      let nested = 0;
      grid.forEachPair(1, (i, j) => {
        seen.push(i, j);
        if ((i + j) % 50 === 0) {
          second.rebuild();
          nested += second.pairs(1).length + second.neighbors(0.5).indices.length;
        }
      });
      return { seen, nested, again: Array.from(grid.pairs(1)) };
    };
    const previous = batchPairsForTests(16);
    try {
      const wasm = visit('wasm');
      expect(wasm.nested).toBeGreaterThan(0);
      expect(wasm).toEqual(visit('javascript'));
    } finally {
      batchPairsForTests(previous);
    }
  });

  it('starts clean after a visitor throws halfway', () => {
    setKernelMode('wasm');
    const previous = batchPairsForTests(5);
    try {
      const grid = new PointGrid2D(
        Array.from({ length: 200 }, (_, k) => k % 17),
        { cellSize: 2 },
      );
      let calls = 0;
      expect(() =>
        grid.forEachPair(2, () => {
          if (++calls === 12) throw new Error('stop');
        }),
      ).toThrow('stop');
      const wasm = Array.from(grid.pairs(2));
      setKernelMode('javascript');
      expect(wasm).toEqual(Array.from(grid.pairs(2)));
    } finally {
      batchPairsForTests(previous);
    }
  });
});

describe('within on grids queried in turn', () => {
  it('answers as the JavaScript path while queries alternate between grids, and after one grid is kept', () => {
    // Two grids of 10,000 points: alternating queries copy a grid in at most once per 156 of them, answering the
    // others in JavaScript; then the queries stay on one grid, which is copied in and answered on the kernels.
    const a = Float64Array.from({ length: 20_000 }, (_, k) => ((k * 7919) % 10_007) / 100);
    const b = Float64Array.from({ length: 20_000 }, (_, k) => ((k * 104_729) % 10_009) / 100);
    const run = (mode: 'wasm' | 'javascript') => {
      setKernelMode(mode);
      const grids = [new PointGrid2D(a, { cellSize: 1 }), new PointGrid2D(b, { cellSize: 1 })];
      const out = new Uint32Array(200);
      const found: number[] = [];
      for (let q = 0; q < 1200; q++) {
        const grid = q < 800 ? grids[q % 2] : grids[(q >> 7) % 2];
        const count = grid.withinInto((q * 13) % 100, (q * 29) % 100, 1.5, out);
        found.push(count, ...out.subarray(0, Math.min(count, out.length)));
      }
      return found;
    };
    const wasm = run('wasm');
    expect(wasm.length).toBeGreaterThan(3000);
    expect(wasm).toEqual(run('javascript'));
  });
});
