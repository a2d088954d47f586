/**
 * Workload 8 (`npm run bench -- parallel`): PointGridWorkers against one
 * thread. Per frame, the one-thread side runs `grid.rebuild()` then
 * `grid.neighbors(r)`; the pool side `await pool.rebuild(grid)` then
 * `await pool.neighbors(grid, r)` on a shared grid over the same points;
 * then both again writing over their last result (`out`), a simulation's
 * steady state, where no fresh memory is faulted in; then flat pairs,
 * `grid.pairs(r)` against `pool.pairs(grid, r)`. Both
 * results are checked equal (element for element) before timing; runs are
 * interleaved, medians reported, with each pool phase's wall time and every
 * thread's own time, so an uneven split or the time on the calling thread
 * shows up.
 *
 * Each case runs on the WebAssembly kernels and on the JavaScript path
 * (setKernelMode on the calling thread, which the pool's threads follow).
 *
 * Threads: `SPATIALHASH_BENCH_THREADS=2,4,8` (default: the available cores).
 * Sizes: 1e6 points (`--quick`: 2e5). On a quiet machine with N cores,
 * `SPATIALHASH_BENCH_THREADS=N npm run bench -- parallel` is the number to quote.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import { PointGrid2D, PointGrid3D, setKernelMode } from '../src/index.js';
import { PointGridWorkers } from '../src/workers/index.js';
import { jitteredLattice3D, radiusFor2D, sizeLabel, uniform2D } from './data.js';
import { consume, gc, median, ms, table } from './harness.js';

interface Case {
  label: string;
  positions: Float64Array;
  radius: number;
  make: (positions: Float64Array<ArrayBufferLike>, shared: boolean) => PointGrid2D | PointGrid3D;
}

function equalArrays(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

async function runCase(c: Case, threads: number, frames: number): Promise<string> {
  // Positions in a SharedArrayBuffer, as a simulation feeding a pool keeps them: the workers read them in
  // place (any other array is first copied on the calling thread). Both sides read the same array.
  const positions = new Float64Array(new SharedArrayBuffer(c.positions.byteLength));
  positions.set(c.positions);
  const single = c.make(positions, false);
  const shared = c.make(positions, true);
  const pool = new PointGridWorkers({ threads });
  // Copy mode, as on a page without cross-origin isolation: a grid in an ArrayBuffer, copied to the threads.
  const plain = c.make(c.positions, false);
  const copyPool = new PointGridWorkers({ threads, shared: false });
  try {
    // The answer check, which also warms both sides up.
    single.rebuild();
    const expected = single.neighbors(c.radius);
    await pool.rebuild(shared);
    const got = await pool.neighbors(shared, c.radius);
    if (!equalArrays(expected.offsets, got.offsets) || !equalArrays(expected.indices, got.indices)) {
      throw new Error(`parallel: ${c.label}: pool.neighbors differs from grid.neighbors`);
    }
    await copyPool.rebuild(plain);
    const copied = await copyPool.neighbors(plain, c.radius);
    if (!equalArrays(expected.offsets, copied.offsets) || !equalArrays(expected.indices, copied.indices)) {
      throw new Error(`parallel: ${c.label}: pool.neighbors in copy mode differs from grid.neighbors`);
    }
    if (!equalArrays(single.pairs(c.radius), await copyPool.pairs(plain, c.radius))) {
      throw new Error(`parallel: ${c.label}: pool.pairs in copy mode differs from grid.pairs`);
    }
    const pairsPerPoint = expected.indices.length / (expected.offsets.length - 1);
    const copyMs: number[] = [];
    const copyRebuildMs: number[] = [];
    const copyPairsMs: number[] = [];
    const singleMs: number[] = [];
    const poolMs: number[] = [];
    const reusedMs: number[] = [];
    const singleReusedMs: number[] = [];
    const singlePairsMs: number[] = [];
    const poolPairsMs: number[] = [];
    let previous = got;
    let singlePrevious = expected;
    const rebuildMs: number[] = [];
    const neighborsMs: number[] = [];
    const phases = new Map<string, { wall: number[]; thread: number[][] }>();
    const record = (call: string) => {
      const t = pool.lastTimings!;
      for (const p of t.phases) {
        const key = `${call}: ${p.name}`;
        let entry = phases.get(key);
        if (!entry) {
          entry = { wall: [], thread: p.threadMs.map(() => []) };
          phases.set(key, entry);
        }
        entry.wall.push(p.wallMs);
        for (let k = 0; k < p.threadMs.length; k++) entry.thread[k].push(p.threadMs[k]);
      }
      const key = `${call}: calling thread and messages (sizing the grid or result, replies)`;
      const entry = phases.get(key) ?? { wall: [], thread: [] };
      entry.wall.push(t.mainMs);
      phases.set(key, entry);
    };
    for (let f = 0; f < frames; f++) {
      gc();
      let t0 = performance.now();
      single.rebuild();
      consume(single.neighbors(c.radius).indices.length);
      singleMs.push(performance.now() - t0);
      gc();
      t0 = performance.now();
      await pool.rebuild(shared);
      const t1 = performance.now();
      record('rebuild');
      consume((await pool.neighbors(shared, c.radius)).indices.length);
      const t2 = performance.now();
      record('neighbors');
      poolMs.push(t2 - t0);
      rebuildMs.push(t1 - t0);
      neighborsMs.push(t2 - t1);
      // The steady state of a simulation loop: last frame's result arrays written over (no fresh memory).
      gc();
      const t3 = performance.now();
      await pool.rebuild(shared);
      previous = await pool.neighbors(shared, c.radius, previous);
      reusedMs.push(performance.now() - t3);
      consume(previous.indices.length);
      gc();
      const t4 = performance.now();
      single.rebuild();
      singlePrevious = single.neighbors(c.radius, { out: singlePrevious });
      singleReusedMs.push(performance.now() - t4);
      consume(singlePrevious.indices.length);
      // Flat pairs (fresh arrays on both sides): the grids are built already.
      gc();
      const t5 = performance.now();
      consume(single.pairs(c.radius).length);
      singlePairsMs.push(performance.now() - t5);
      gc();
      const t6 = performance.now();
      consume((await pool.pairs(shared, c.radius)).length);
      poolPairsMs.push(performance.now() - t6);
      // Copy mode: rebuild (on the calling thread) + neighbors, then flat pairs.
      gc();
      const t7 = performance.now();
      await copyPool.rebuild(plain);
      const t8 = performance.now();
      consume((await copyPool.neighbors(plain, c.radius)).indices.length);
      copyMs.push(performance.now() - t7);
      copyRebuildMs.push(t8 - t7);
      gc();
      const t9 = performance.now();
      consume((await copyPool.pairs(plain, c.radius)).length);
      copyPairsMs.push(performance.now() - t9);
    }
    const s = median(singleMs);
    const p = median(poolMs);
    const q = median(reusedMs);
    const sq = median(singleReusedMs);
    const summary = table(
      ['variant', 'median ms', 'speedup'],
      [
        ['fresh result arrays: one thread, rebuild + neighbors(r)', ms(s), '1.00'],
        [`fresh result arrays: ${threads} threads, pool.rebuild + pool.neighbors(grid, r)`, ms(p), (s / p).toFixed(2)],
        ['  of which pool.rebuild', ms(median(rebuildMs)), ''],
        ['  of which pool.neighbors', ms(median(neighborsMs)), ''],
        ['last result written over: one thread, rebuild + neighbors(r, { out })', ms(sq), '1.00'],
        [`last result written over: ${threads} threads, pool.neighbors(grid, r, out)`, ms(q), (sq / q).toFixed(2)],
        ['flat pairs, grid built: one thread, grid.pairs(r)', ms(median(singlePairsMs)), '1.00'],
        [
          `flat pairs, grid built: ${threads} threads, pool.pairs(grid, r)`,
          ms(median(poolPairsMs)),
          (median(singlePairsMs) / median(poolPairsMs)).toFixed(2),
        ],
        [
          `copy mode (no shared memory): ${threads} threads, pool.rebuild + pool.neighbors(grid, r)`,
          ms(median(copyMs)),
          (s / median(copyMs)).toFixed(2),
        ],
        ['  of which pool.rebuild (on the calling thread in copy mode)', ms(median(copyRebuildMs)), ''],
        [
          `copy mode: ${threads} threads, pool.pairs(grid, r)`,
          ms(median(copyPairsMs)),
          (median(singlePairsMs) / median(copyPairsMs)).toFixed(2),
        ],
      ],
    );
    const rows: string[][] = [];
    for (const [name, entry] of phases) {
      rows.push([
        name,
        ms(median(entry.wall)),
        entry.thread.length === 0 ? '(calling thread)' : entry.thread.map((t) => ms(median(t))).join(' / '),
      ]);
    }
    const breakdown = table(
      ['pool phase (fresh result arrays)', 'wall median ms', 'per-thread median ms (thread 0 / 1 / ...)'],
      rows,
    );
    return `### ${c.label}, ${threads} threads (${pairsPerPoint.toFixed(1)} neighbours per point, ${frames} frames)\n\n${summary}\n\n${breakdown}`;
  } finally {
    pool.close();
    copyPool.close();
  }
}

/** Runs the workload and returns its markdown section. */
export async function parallel(quick: boolean): Promise<string> {
  const n = quick ? 200_000 : 1_000_000;
  const frames = quick ? 5 : 15;
  const threadList = (process.env.SPATIALHASH_BENCH_THREADS ?? String(availableParallelism()))
    .split(',')
    .map(Number)
    .filter((t) => Number.isInteger(t) && t >= 1);
  const r2 = radiusFor2D(25);
  const cases: Case[] = [
    {
      label: `2D uniform, ${sizeLabel(n)} points, r = ${r2.toFixed(3)}`,
      positions: uniform2D(n, 81),
      radius: r2,
      make: (positions, shared) => new PointGrid2D(positions, { cellSize: r2, shared }),
    },
    {
      label: `3D jittered lattice, ${sizeLabel(n)} points, r = 1.8`,
      positions: jitteredLattice3D(n, 82),
      radius: 1.8,
      make: (positions, shared) => new PointGrid3D(positions, { cellSize: 1.8, shared }),
    },
  ];
  const sections: string[] = [];
  for (const c of cases) {
    for (const threads of threadList) {
      // Both implementations, every thread on the same one (the pool posts the caller's choice to its threads).
      for (const path of ['wasm', 'javascript'] as const) {
        const tag = path === 'wasm' ? 'WebAssembly kernels' : 'JavaScript path';
        console.log(`  parallel: ${c.label}, ${threads} threads, ${frames} frames, ${tag}`);
        setKernelMode(path);
        try {
          sections.push(await runCase({ ...c, label: `${c.label}, ${tag}` }, threads, frames));
        } finally {
          setKernelMode('auto');
        }
      }
    }
  }
  return `## 8. Parallel neighbour lists (PointGridWorkers)\n\nPer frame: rebuild of every point, then every point's neighbour list (CSR), one thread against the pool on a shared grid over the same points; results checked equal first; then both again writing over their last result (out); then flat pairs on the built grids (grid.pairs against pool.pairs); then the pool in copy mode (shared: false, a grid in an ArrayBuffer: what a page without cross-origin isolation gets), rebuild + neighbors and pairs. Each case runs twice: on the WebAssembly kernels (the calling thread compiles them and posts the module to every worker) and on the JavaScript path (setKernelMode), every thread on the same one. Speedups are against the one-thread rows. Runs interleaved, median of ${frames}. Machine: ${availableParallelism()} cores available.\n\n${sections.join('\n\n')}`;
}
