/**
 * PointGridWorkers: pool results equal the one-thread calls element for
 * element, for 1 to 4 threads (oversubscribed on a 2-core machine), in
 * shared mode and in copy mode (forced with `shared: false`, and for grids
 * built without `shared`), and a rebuild through the pool leaves the grid
 * exactly as grid.rebuild does. The workers run the script the build ships,
 * bundled from the sources at run time (see src/workers/worker-script.ts).
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { NumericArray } from '../../src/core/validate.js';
import { PointGrid2D, PointGrid3D, type PointGridOptions } from '../../src/index.js';
import { PointGridWorkers } from '../../src/workers/index.js';
import { pack, type Scenario, scenarios } from '../support/pointgrid-oracle.js';

type Grid = PointGrid2D | PointGrid3D;

const pools = [1, 2, 3, 4].map((threads) => new PointGridWorkers({ threads }));
const copyPools = [1, 2, 3].map((threads) => new PointGridWorkers({ threads, shared: false }));
afterAll(() => {
  for (const pool of [...pools, ...copyPools]) pool.close();
});

function make(d: 2 | 3, positions: NumericArray, options: PointGridOptions): Grid {
  return d === 2 ? new PointGrid2D(positions, options) : new PointGrid3D(positions, options);
}

/** Byte-for-byte equality of two buffers or typed arrays (toEqual is slow on large arrays). */
function sameBytes(a: ArrayBufferLike | Uint32Array, b: ArrayBufferLike | Uint32Array): boolean {
  const bytes = (x: ArrayBufferLike | Uint32Array) =>
    ArrayBuffer.isView(x) ? new Uint8Array(x.buffer, x.byteOffset, x.byteLength) : new Uint8Array(x);
  return Buffer.compare(bytes(a), bytes(b)) === 0;
}

/**
 * A copy of a grid buffer with its count of builds (header number 22, H_BUILDS) cleared: two grids built the same
 * way hold the same bytes but for how many builds each buffer has seen.
 */
function builtBytes(data: ArrayBufferLike): ArrayBuffer {
  const copy = new Uint8Array(data).slice().buffer;
  new Float64Array(copy, 0, 32)[22] = 0;
  return copy;
}

/** Grid buffers compare equal past the header's capacities only when built the same way: compare what is used. */
function expectSameGrid(a: Grid, b: Grid): void {
  expect(b.count).toBe(a.count);
  expect(b.layout).toBe(a.layout);
  const ha = new Float64Array(a.data, 0, 32);
  const hb = new Float64Array(b.data, 0, 32);
  // Flags, count, cells, cell box and origin.
  expect(Array.from(hb.subarray(3, 12))).toEqual(Array.from(ha.subarray(3, 12)));
  expect(b.pairs(a.cellSize)).toEqual(a.pairs(a.cellSize));
}

/** A scenario's positions, its grid options, and a grid over them (shared or not). */
function setUpScenario(d: 2 | 3, s: Scenario, shared: boolean) {
  if (s.points.length === 0) s.layout.offset = 0;
  const positions = pack(s.points, d, s.layout);
  const options: PointGridOptions = { cellSize: s.cellSize, stride: s.layout.stride, offset: s.layout.offset };
  if (s.maxDenseCells !== undefined) options.maxDenseCells = s.maxDenseCells;
  return { positions, options, grid: make(d, positions, { ...options, shared }) };
}

/** Rebuilds `grid` through the pool from moved points: the same grid as a one-thread rebuild, the same neighbours. */
async function expectSameRebuild(
  pool: PointGridWorkers,
  d: 2 | 3,
  s: Scenario,
  set: ReturnType<typeof setUpScenario>,
): Promise<void> {
  const moved = pack(
    s.points.map((p) => p.map((v, a) => v * 0.75 + a)),
    d,
    s.layout,
  );
  const reference = make(d, set.positions, set.options);
  reference.rebuild(moved);
  await pool.rebuild(set.grid, moved);
  set.grid.validate();
  expectSameGrid(reference, set.grid);
  expect(await pool.neighbors(set.grid, s.radius)).toEqual(reference.neighbors(s.radius));
}

for (const d of [2, 3] as const) {
  const seed = 50260 + d;
  describe(`PointGridWorkers with PointGrid${d}D`, () => {
    it(`neighbors, pairs and rebuild equal the one-thread calls for 1..4 threads (seed ${seed})`, async () => {
      await fc.assert(
        fc.asyncProperty(scenarios(d), fc.nat(3), async (s, which) => {
          const pool = pools[which];
          const set = setUpScenario(d, s, true);
          const { grid } = set;
          expect(await pool.neighbors(grid, s.radius)).toEqual(grid.neighbors(s.radius));
          const pairs = await pool.pairs(grid, s.radius);
          expect(pairs).toEqual(grid.pairs(s.radius));
          // Written by the threads in place: a view of shared memory, exactly the pairs long.
          expect(pairs.buffer instanceof SharedArrayBuffer).toBe(true);
          await expectSameRebuild(pool, d, s, set);
        }),
        { seed, numRuns: 40 },
      );
    });

    it(`in copy mode, neighbors, pairs and rebuild equal the one-thread calls for 1..3 threads (seed ${seed + 10})`, async () => {
      await fc.assert(
        fc.asyncProperty(scenarios(d), fc.nat(2), fc.boolean(), async (s, which, sharedGrid) => {
          const pool = copyPools[which];
          expect(pool.shared).toBe(false);
          // Copy mode takes grids in ArrayBuffers and SharedArrayBuffers alike.
          const set = setUpScenario(d, s, sharedGrid);
          const { grid } = set;
          const data = grid.data;
          const neighbors = await pool.neighbors(grid, s.radius);
          expect(neighbors).toEqual(grid.neighbors(s.radius));
          expect(neighbors.indices.buffer instanceof SharedArrayBuffer).toBe(false);
          expect(await pool.pairs(grid, s.radius)).toEqual(grid.pairs(s.radius));
          // The grid's own buffer was copied, never transferred away.
          expect(grid.data).toBe(data);
          expect(data.byteLength).toBeGreaterThan(0);
          await expectSameRebuild(pool, d, s, set);
        }),
        { seed: seed + 10, numRuns: 40 },
      );
    });
  });
}

describe('PointGridWorkers at scale and on bad input', () => {
  it('matches on 20000 points with many cells per thread, dense and grown', async () => {
    const n = 20000;
    const positions = new Float64Array(3 * n);
    let state = 7;
    for (let k = 0; k < positions.length; k++) {
      state = (state * 16807) % 2147483647;
      positions[k] = (state / 2147483647) * 25;
    }
    const grid = new PointGrid3D(positions.subarray(0, 3 * 1000), { cellSize: 1.2, shared: true });
    // Grown from the same size as `grid`, so the buffers have the same capacities and compare byte for byte.
    const reference = new PointGrid3D(positions.subarray(0, 3 * 1000), { cellSize: 1.2 });
    reference.rebuild(positions);
    const want = reference.neighbors(1.2);
    for (const pool of pools) {
      await pool.rebuild(grid, positions);
      grid.validate();
      expect(sameBytes(builtBytes(grid.data), builtBytes(reference.data))).toBe(true);
      const got = await pool.neighbors(grid, 1.2);
      expect(sameBytes(got.offsets, want.offsets)).toBe(true);
      expect(sameBytes(got.indices, want.indices)).toBe(true);
      // Written into the last result's buffers: the same answer, no new result memory.
      const again = await pool.neighbors(grid, 1.2, got);
      expect(again.indices.buffer).toBe(got.indices.buffer);
      expect(sameBytes(again.offsets, want.offsets) && sameBytes(again.indices, want.indices)).toBe(true);
      // The search, then the rest in one message per thread with a barrier between steps: each timed per thread.
      const phases = pool.lastTimings?.phases ?? [];
      expect(phases.map((p) => p.name)).toEqual(['search', 'count', 'prefix sums', 'row starts', 'fill']);
      expect(phases.every((p) => p.threadMs.length === pool.threads && p.wallMs >= 0)).toBe(true);
    }
    // Copy mode: the same answers from copies of the grid.
    for (const pool of copyPools) {
      const got = await pool.neighbors(grid, 1.2);
      expect(sameBytes(got.offsets, want.offsets) && sameBytes(got.indices, want.indices)).toBe(true);
      const again = await pool.neighbors(grid, 1.2, got);
      expect(again.indices.buffer).toBe(got.indices.buffer);
      expect(sameBytes(again.offsets, want.offsets) && sameBytes(again.indices, want.indices)).toBe(true);
      expect(sameBytes(await pool.pairs(grid, 1.2), reference.pairs(1.2))).toBe(true);
      expect(pool.lastTimings?.phases.map((p) => p.name)).toEqual(['search']);
    }
  });

  it('rejects bad input and leaves the grid as it was', async () => {
    const pool = pools[1];
    const positions = new Float64Array([0, 0, 1, 1, 2, 2, 3, 3]);
    const grid = new PointGrid2D(positions, { cellSize: 1, shared: true });
    const before = grid.pairs(2);
    await expect(pool.rebuild(grid, new Float64Array([0, 0, 1, Number.NaN]))).rejects.toThrow(
      /point 1 has a non-finite y coordinate \(NaN\)/,
    );
    grid.validate();
    expect(grid.pairs(2)).toEqual(before);
    // An out too small (or not shared) is not used.
    const small = { offsets: new Uint32Array(1), indices: new Uint32Array(0) };
    expect(await pool.neighbors(grid, 2, small)).toEqual(grid.neighbors(2));
    await expect(pool.neighbors(grid, -1)).rejects.toThrow(RangeError);
    await expect(pool.neighbors(grid, 2, { offsets: [0] } as never)).rejects.toThrow(/out must be an earlier/);
    // A grid in an ArrayBuffer goes the copy way: the same answer.
    const plain = new PointGrid2D(positions, { cellSize: 1 });
    expect(await pool.neighbors(plain, 2)).toEqual(plain.neighbors(2));
    await expect(pool.pairs({} as never, 1)).rejects.toThrow(/must be a PointGrid2D or PointGrid3D/);
    const view = PointGrid2D.from(grid.data);
    await expect(pool.rebuild(view)).rejects.toThrow(/has no positions array/);
    expect(() => new PointGridWorkers({ threads: 0 })).toThrow(/threads must be an integer from 1 to 64, got 0/);
    // Node before 20.16 has no process.getBuiltinModule: a clear Error, not a missing browser Worker.
    const getBuiltinModule = process.getBuiltinModule;
    try {
      (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
      expect(() => new PointGridWorkers({ threads: 1 })).toThrow(/Node 20\.16 or newer.*pass createWorker/);
    } finally {
      process.getBuiltinModule = getBuiltinModule;
    }
    const closed = new PointGridWorkers({ threads: 1 });
    closed.close();
    await expect(closed.pairs(grid, 1)).rejects.toThrow(/the pool is closed/);
    // The pool still works after the rejections.
    expect(await pool.pairs(grid, 2)).toEqual(before);
  });
});

describe('PointGridWorkers where threads cannot share memory', () => {
  const points = new Float64Array(Array.from({ length: 400 }, (_, k) => ((k * 37) % 101) / 9));

  it('on a page that is not cross-origin isolated: copy mode by default, shared: true says what the page needs', async () => {
    const g = globalThis as { crossOriginIsolated?: boolean };
    g.crossOriginIsolated = false;
    try {
      const pool = new PointGridWorkers({ threads: 2 });
      try {
        expect(pool.shared).toBe(false);
        const grid = new PointGrid2D(points, { cellSize: 1 });
        expect(await pool.neighbors(grid, 1)).toEqual(grid.neighbors(1));
      } finally {
        pool.close();
      }
      expect(() => new PointGridWorkers({ threads: 1, shared: true })).toThrow(
        /Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp \(see https:\/\/.*threads\.md\)\. Leave shared out to run in copy mode/,
      );
    } finally {
      delete g.crossOriginIsolated;
    }
    const shared = new PointGridWorkers({ threads: 1, shared: true });
    expect(shared.shared).toBe(true);
    shared.close();
  });

  it('without SharedArrayBuffer at all: the pool works in copy mode, a shared grid throws an Error (not a ReferenceError)', async () => {
    const g = globalThis as { SharedArrayBuffer?: unknown };
    const saved = g.SharedArrayBuffer;
    delete g.SharedArrayBuffer;
    try {
      const pool = new PointGridWorkers({ threads: 2 });
      try {
        expect(pool.shared).toBe(false);
        const grid = new PointGrid2D(points, { cellSize: 1 });
        expect(await pool.neighbors(grid, 1)).toEqual(grid.neighbors(1));
        expect(await pool.pairs(grid, 1)).toEqual(grid.pairs(1));
        await pool.rebuild(
          grid,
          points.map((v) => v * 0.5),
        );
        expect(await pool.pairs(grid, 1)).toEqual(grid.pairs(1));
      } finally {
        pool.close();
      }
      let thrown: unknown;
      try {
        new PointGrid2D(points, { cellSize: 1, shared: true });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect(thrown).not.toBeInstanceOf(ReferenceError);
      expect(String(thrown)).toMatch(
        /shared: true needs SharedArrayBuffer.*Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp.*Leave shared out here: PointGridWorkers works on such grids too/,
      );
    } finally {
      g.SharedArrayBuffer = saved;
    }
  });

  it('threads has an upper bound: 64', () => {
    for (const threads of [65, 300, 1e6]) {
      expect(() => new PointGridWorkers({ threads })).toThrow(
        new RangeError(`threads must be an integer from 1 to 64, got ${threads}`),
      );
    }
    expect(() => new PointGridWorkers({ shared: 'yes' as never })).toThrow(/shared must be a boolean, got "yes"/);
    expect(() => new PointGridWorkers({ createWorker: 'worker.js' as never })).toThrow(
      /createWorker must be a function, got "worker.js"/,
    );
  });
});

describe('PointGridWorkers results too long to return', () => {
  it('radius Infinity on 60,000 points: a RangeError naming the pairs and bytes, before any thread searches', async () => {
    const n = 60000;
    const positions = new Float64Array(2 * n).map((_, k) => (k * 7919) % 1000);
    const message =
      /PointGridWorkers\.(pairs|neighbors): 1799970000 pairs need 3599940000 numbers \(14399760000 bytes\), more than the longest result a search returns \(2147483647 numbers\)/;
    for (const pool of [pools[1], copyPools[1]]) {
      const grid = new PointGrid2D(positions, { cellSize: 1, shared: pool.shared });
      await expect(pool.pairs(grid, Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
      await expect(pool.pairs(grid, Number.POSITIVE_INFINITY)).rejects.toThrow(message);
      // A radius whose square overflows passes every pair too.
      await expect(pool.neighbors(grid, 1e200)).rejects.toThrow(message);
      // The pool goes on (byte comparison: toEqual is slow on millions of numbers).
      expect(sameBytes(await pool.pairs(grid, 1), grid.pairs(1))).toBe(true);
    }
  });
});
