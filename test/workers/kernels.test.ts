/**
 * PointGridWorkers on the WebAssembly kernels: every thread runs them (the
 * calling thread compiles the module once and posts it to each worker, whose
 * script carries none), in shared and in copy mode, and the pool's results
 * equal the one-thread calls on both paths element for element; with the
 * calling thread on the JavaScript path, so are the threads, and no module
 * is posted. A worker replaced after a failure gets the module again; a
 * worker that cannot instantiate it searches in JavaScript (mode 'auto') or
 * fails the call, which settles (mode 'wasm').
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D, setKernelMode } from '../../src/index.js';
import { PointGridWorkers, type WorkerLike } from '../../src/workers/index.js';
import { sourceWorkerScript } from '../../src/workers/worker-script.js';
import { pack, scenarios } from '../support/pointgrid-oracle.js';

/** The pool's worker script, as the build ships it. */
const script = sourceWorkerScript(createRequire);

const shared = new PointGridWorkers({ threads: 2 });
const copying = new PointGridWorkers({ threads: 2, shared: false });
afterAll(() => {
  shared.close();
  copying.close();
});
afterEach(() => setKernelMode('auto'));

/** Which kernels the threads ran the searches of the pool's last call with (the build steps are JavaScript). */
function searchedWith(pool: PointGridWorkers): Set<string> {
  const phases = pool.lastTimings?.phases ?? [];
  return new Set(phases.filter((p) => p.name === 'search' || p.name === 'pairs').flatMap((p) => p.threadKernels));
}

for (const d of [2, 3] as const) {
  const seed = 3250 + d;
  describe(`PointGridWorkers with PointGrid${d}D on both paths`, () => {
    it(`neighbors and pairs equal the one-thread calls, shared and copied, and the threads ran the kernels the caller chose (seed ${seed})`, async () => {
      await fc.assert(
        fc.asyncProperty(scenarios(d), fc.boolean(), async (s, wasm) => {
          if (s.points.length === 0) s.layout.offset = 0;
          const positions = pack(s.points, d, s.layout);
          const options = { cellSize: s.cellSize, stride: s.layout.stride, offset: s.layout.offset };
          setKernelMode(wasm ? 'wasm' : 'javascript');
          for (const pool of [shared, copying]) {
            const grid =
              d === 2
                ? new PointGrid2D(positions, { ...options, shared: pool === shared })
                : new PointGrid3D(positions, { ...options, shared: pool === shared });
            expect(await pool.neighbors(grid, s.radius)).toEqual(grid.neighbors(s.radius));
            if (s.points.length > 1) expect(searchedWith(pool)).toEqual(new Set([wasm ? 'wasm' : 'javascript']));
            expect(await pool.pairs(grid, s.radius)).toEqual(grid.pairs(s.radius));
          }
        }),
        { seed, numRuns: 40 },
      );
    });
  });
}

/** A real worker running the pool's script after `prefix` (code run first, in the worker). */
function realWorker(prefix = ''): Worker {
  return new Worker(`${prefix}\n${script}`, { eval: true });
}

/** A prefix that makes every instantiation of a WebAssembly module throw in that worker. */
const NO_INSTANCE = "WebAssembly.Instance = function () { throw new Error('instantiation refused by the test'); };";

/**
 * A real worker whose tasks are recorded (whether each carried a compiled module) before it gets them; the
 * worker itself goes into `made` when given.
 */
function recorded(prefix: string, seen: { module: boolean }[], made?: Worker[]): WorkerLike {
  const worker = realWorker(prefix);
  made?.push(worker);
  return {
    postMessage(task: unknown, transfer?: unknown[]) {
      seen.push({ module: (task as { kernels?: { module?: unknown } }).kernels?.module !== undefined });
      worker.postMessage(task, transfer as never);
    },
    terminate: () => worker.terminate(),
    on: (event: string, listener: (value: unknown) => void) => worker.on(event, listener),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
}

/** Kernels each thread ran the searches of the pool's last call with, by thread. */
function byThread(pool: PointGridWorkers): string[] {
  const phase = pool.lastTimings?.phases.find((p) => p.name === 'search' || p.name === 'pairs');
  return phase?.threadKernels ?? [];
}

const positions = Float64Array.from({ length: 6000 }, (_, k) => ((k * 7919) % 1009) / 10);

describe('PointGridWorkers kernels', () => {
  for (const how of ['on this thread', 'by the pool'] as const)
    it(`search a shared grid afresh after it was rebuilt in place ${how} (each task copies it in once, pinned)`, async () => {
      let state = 7;
      const next = () => {
        state = (state * 48271) % 2147483647;
        return (state / 2147483647) * 30;
      };
      const positions = Float64Array.from({ length: 2 * 2000 }, next);
      const grid = new PointGrid2D(positions, { cellSize: 1, shared: true });
      expect([...(await shared.pairs(grid, 1))]).toEqual([...grid.pairs(1)]);
      const data = grid.data;
      // The same count and cells, other points: the threads' copies of the buffer from the last task are stale.
      for (let k = 0; k < positions.length; k++) positions[k] = next();
      if (how === 'by the pool') await shared.rebuild(grid);
      else grid.rebuild();
      expect(grid.data).toBe(data);
      expect([...(await shared.pairs(grid, 1))]).toEqual([...grid.pairs(1)]);
      const rows = await shared.neighbors(grid, 1);
      const want = grid.neighbors(1);
      expect([...rows.offsets]).toEqual([...want.offsets]);
      expect([...rows.indices]).toEqual([...want.indices]);
    });

  it('are posted to a worker once, and again to a worker that replaced a failed one', async () => {
    const grid = new PointGrid2D(positions, { cellSize: 1, shared: true });
    const workers: Worker[] = [];
    const seen: { module: boolean }[][] = [];
    const pool = new PointGridWorkers({
      threads: 1,
      createWorker: () => {
        const tasks: { module: boolean }[] = [];
        seen.push(tasks);
        return recorded('', tasks, workers);
      },
    });
    try {
      setKernelMode('wasm');
      const expected = grid.neighbors(1);
      expect(await pool.neighbors(grid, 1)).toEqual(expected);
      expect(await pool.neighbors(grid, 1)).toEqual(expected);
      expect(byThread(pool)).toEqual(['wasm']);
      // The module went with the first task only.
      expect(seen[0].map((t) => t.module)).toEqual(seen[0].map((_, k) => k === 0));
      // A worker that dies is replaced before the next call, and that one must get the module too.
      const exited = new Promise((resolve) => workers[0].once('exit', resolve));
      await workers[0].terminate();
      await exited;
      expect(await pool.neighbors(grid, 1)).toEqual(expected);
      expect(byThread(pool)).toEqual(['wasm']);
      expect(seen[1].map((t) => t.module)).toEqual(seen[1].map((_, k) => k === 0));
    } finally {
      pool.close();
    }
  });

  it("in mode 'javascript' post no module, and the threads search in JavaScript", async () => {
    const seen: { module: boolean }[] = [];
    const pool = new PointGridWorkers({ threads: 2, createWorker: () => recorded('', seen) });
    try {
      setKernelMode('javascript');
      const grid = new PointGrid2D(positions, { cellSize: 1, shared: true });
      expect(await pool.pairs(grid, 1)).toEqual(grid.pairs(1));
      expect(byThread(pool)).toEqual(['javascript', 'javascript']);
      expect(seen.some((t) => t.module)).toBe(false);
    } finally {
      pool.close();
    }
  });

  for (const shared of [true, false]) {
    it(`a worker that cannot instantiate the module searches in JavaScript in mode 'auto', and fails the call in mode 'wasm' (shared: ${shared})`, async () => {
      let made = 0;
      const pool = new PointGridWorkers({
        threads: 2,
        shared,
        // Worker 0 (and its replacements) refuse to instantiate; worker 1 runs the kernels.
        createWorker: () => (made++ % 2 === 0 ? realWorker(NO_INSTANCE) : realWorker()),
      });
      try {
        for (const d of [2, 3] as const) {
          const grid =
            d === 2
              ? new PointGrid2D(positions, { cellSize: 1, shared })
              : new PointGrid3D(positions, { cellSize: 1, shared });
          setKernelMode('auto');
          expect(await pool.neighbors(grid, 1.5)).toEqual(grid.neighbors(1.5));
          expect(byThread(pool)).toEqual(['javascript', 'wasm']);
          expect(await pool.pairs(grid, 1.5)).toEqual(grid.pairs(1.5));
        }
        setKernelMode('wasm');
        const grid = new PointGrid2D(positions, { cellSize: 1, shared });
        await expect(pool.neighbors(grid, 1)).rejects.toThrow(
          /spatialhash: kernel mode 'wasm', but the WebAssembly kernels cannot be compiled here: Error: instantiation refused by the test/,
        );
        // The call settled with the grid as it was; on the JavaScript path the same pool answers.
        setKernelMode('javascript');
        expect(await pool.neighbors(grid, 1)).toEqual(grid.neighbors(1));
      } finally {
        pool.close();
      }
    });
  }
});
