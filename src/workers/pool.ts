/**
 * PointGridWorkers: a pool of threads (Node worker_threads or browser Web
 * Workers) that rebuilds a shared PointGrid with a parallel counting sort and
 * runs its neighbors() and pairs() searches split across the threads, with
 * results identical to the one-thread calls.
 *
 * @module
 */
import { checkDistance, checkLayout, describe, type NumericArray } from '../core/validate.js';
import type { Grid2D } from '../pointgrid/grid2d.js';
import type { Grid3D } from '../pointgrid/grid3d.js';
import {
  checkOut,
  checkPointCount,
  denseLimit,
  isFloat32,
  type NeighborLists,
  reuseArray,
  roomyArray,
} from '../pointgrid/options.js';
import { internalGrid2D, PointGrid2D } from '../pointgrid/pointgrid2d.js';
import { internalGrid3D, PointGrid3D } from '../pointgrid/pointgrid3d.js';
import { createBarrier, isBrokenBarrier, resetBarrier } from './barrier.js';
import {
  BOUNDS_STRIDE,
  BUILD_STEPS,
  badPointError,
  clock,
  FILL_STEPS,
  firstBadOf,
  type Layout,
  layoutOf,
  type Positions,
  type SliceFound,
  type StepTimes,
  type Task,
} from './tasks.js';
import type { Reply } from './worker.js';
import { browserWorker, builtWorkerUrl, type FileUrl, sourceWorkerCode, type WorkerLike } from './worker-url.js';

export type { WorkerLike } from './worker-url.js';

// The package compiles against ES2022 alone (no DOM or Node types): declared for this module.
declare const performance: { now(): number };

/** Options of {@link PointGridWorkers}. */
export interface PointGridWorkersOptions {
  /**
   * Threads to start, an integer >= 1. Default: the available cores
   * (`os.availableParallelism()` in Node, `navigator.hardwareConcurrency` in
   * browsers).
   */
  threads?: number;
  /**
   * Makes one worker running this package's worker script. Default: Node
   * worker_threads, or `new Worker(new URL('./worker.js', import.meta.url),
   * { type: 'module' })` in browsers. Give one when a bundler needs to see
   * the worker itself, e.g. under Vite from the TypeScript sources:
   * `() => new Worker(new URL('spatialhash/src/workers/worker.ts', import.meta.url), { type: 'module' })`.
   */
  createWorker?: () => WorkerLike;
}

/** Where the time of the last pool call went: per phase, the wall time and each thread's own. */
export interface PointGridWorkersTimings {
  /** 'rebuild', 'neighbors' or 'pairs'. */
  call: string;
  /** The parallel phases in the order they ran. */
  phases: PointGridWorkersPhase[];
  /** Wall time outside the phases: the calling thread (sizing the grid or the result, merging) and the messages, ms. */
  mainMs: number;
  /** Wall time of the whole call, ms. */
  totalMs: number;
}

/** One parallel phase of a pool call (e.g. 'histogram', 'scatter', 'count'). */
export interface PointGridWorkersPhase {
  /** What the threads did in this phase. */
  name: string;
  /**
   * Wall time, ms: from sending the tasks to the last reply; for a step of a
   * call run in one message per thread, from the end of the step before it
   * (or the sending) until the last thread finished it.
   */
  wallMs: number;
  /** Each thread's own time on its task, ms, by thread. */
  threadMs: number[];
}

interface NodeWorker extends WorkerLike {
  on(event: 'message', listener: (reply: Reply) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
}

interface BrowserWorker extends WorkerLike {
  onmessage: ((event: { data: Reply }) => void) | null;
  onerror: ((event: { message?: string }) => void) | null;
}

/** Node's builtin modules, loaded without an import statement so browser bundles never see them. */
function nodeBuiltin<T>(name: string): T | undefined {
  const p = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown; versions?: { node?: string } } })
    .process;
  if (p?.versions?.node === undefined || typeof p.getBuiltinModule !== 'function') return undefined;
  return p.getBuiltinModule(name) as T;
}

function defaultThreads(): number {
  const os = nodeBuiltin<{ availableParallelism?: () => number; cpus: () => unknown[] }>('node:os');
  if (os !== undefined) return os.availableParallelism?.() ?? os.cpus().length;
  const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  return typeof cores === 'number' && cores >= 1 ? cores : 1;
}

function defaultWorker(): WorkerLike {
  const threads = nodeBuiltin<{ Worker: new (url: FileUrl | string, options: object) => NodeWorker }>(
    'node:worker_threads',
  );
  if (threads === undefined) {
    // Node before 20.16 has no process.getBuiltinModule, and a static import of worker_threads would reach
    // browser bundles: say what to do instead of failing on the browser's missing Worker.
    const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
    if (p?.versions?.node !== undefined) {
      throw new Error(
        `PointGridWorkers starts worker_threads by itself on Node 20.16 or newer (process.getBuiltinModule); this is Node ${p.versions.node}: pass createWorker, e.g. () => new Worker(new URL('spatialhash/dist/esm/workers/worker.js', import.meta.url)) from node:worker_threads`,
      );
    }
    return browserWorker();
  }
  const fs = nodeBuiltin<{ existsSync: (path: FileUrl | string) => boolean }>('node:fs')!;
  const built = builtWorkerUrl();
  if (fs.existsSync(built)) return new threads.Worker(built, {});
  // Running from the TypeScript sources (tests, tsx): the worker needs tsx's loader too.
  const module = nodeBuiltin<{ createRequire: (from: string) => { resolve(id: string): string } }>('node:module')!;
  return new threads.Worker(sourceWorkerCode(module.createRequire, fs.existsSync), { eval: true });
}

/** One worker and the task it is running (the pool sends one task per worker at a time). */
class Channel {
  private pending: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | undefined;

  constructor(readonly worker: WorkerLike) {
    const receive = (reply: Reply) => {
      const pending = this.pending;
      this.pending = undefined;
      pending?.resolve(reply);
    };
    const fail = (error: Error) => {
      const pending = this.pending;
      this.pending = undefined;
      pending?.reject(error);
    };
    if (typeof (worker as NodeWorker).on === 'function') {
      (worker as NodeWorker).on('message', receive);
      (worker as NodeWorker).on('error', fail);
    } else {
      (worker as BrowserWorker).onmessage = (event) => receive(event.data);
      (worker as BrowserWorker).onerror = (event) =>
        fail(new Error(`PointGridWorkers: a worker failed: ${event.message ?? 'unknown error'}`));
    }
  }

  run(task: Task): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage(task);
    });
  }
}

/** Slices of a neighbors() or pairs() search per thread. */
const SLICES_PER_THREAD = 4;

/** A grid the pool works on: built with `{ shared: true }` (or from a SharedArrayBuffer). */
export type AnyGrid = PointGrid2D | PointGrid3D;

/** `reuseArray` for the pool: only an array over a SharedArrayBuffer can be written by the threads. */
function reuse(array: Uint32Array | undefined, length: number): Uint32Array | undefined {
  if (array === undefined || !(array.buffer instanceof SharedArrayBuffer)) return undefined;
  return reuseArray(array, length);
}

/**
 * A pool of threads for PointGrid2D and PointGrid3D grids built with
 * `{ shared: true }`: {@link rebuild} sorts the points into the grid by a
 * parallel counting sort (per-thread histograms, prefix sum, scatter, per-cell
 * sort), {@link neighbors} and {@link pairs} split the half-stencil search
 * into four slices per thread (see `PairSearchOptions`), which the threads
 * take one at a time, and place each slice's results by slice order, so each
 * result equals the one-thread call's element for element, whatever the
 * thread count and whichever thread took which slice.
 *
 * Needs SharedArrayBuffer: in browsers only on cross-origin isolated pages
 * (served with `Cross-Origin-Opener-Policy: same-origin` and
 * `Cross-Origin-Embedder-Policy: require-corp`); the constructor throws an
 * Error otherwise. Calls on one pool run one after another; the workers keep
 * a Node process alive until {@link close}.
 *
 * @example
 * ```ts
 * const grid = new PointGrid3D(positions, { cellSize: h, shared: true });
 * const pool = new PointGridWorkers();
 * await pool.rebuild(grid);                         // after the points moved
 * const { offsets, indices } = await pool.neighbors(grid, h);
 * pool.close();
 * ```
 */
export class PointGridWorkers {
  /** Number of worker threads. */
  readonly threads: number;
  /** Where the time of the last completed call went (for benchmarks and tuning). */
  lastTimings: PointGridWorkersTimings | undefined = undefined;

  private channels: Channel[];
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();
  /** Pool-owned shared scratch: positions staged for the workers, cell per point, per-thread histograms. */
  private staging: Float32Array | Float64Array | undefined = undefined;
  private cellOfPoint: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
  private histograms: Int32Array[] = [];
  /** The barrier of the steps run in one message, and a number per thread to share between them. */
  private readonly sync = createBarrier();
  /** Each thread's bounds of its share of the points in a rebuild (BOUNDS_STRIDE numbers per thread). */
  private readonly bounds: Float64Array;
  /** The next slice of a neighbors() search to hand out. */
  private readonly next = new Int32Array(new SharedArrayBuffer(4));
  private readonly totals: Float64Array;
  private timings: PointGridWorkersTimings | undefined = undefined;

  /**
   * Starts the threads.
   *
   * @throws RangeError for a threads that is not an integer >= 1; Error when
   * SharedArrayBuffer is missing (a browser page that is not cross-origin isolated).
   */
  constructor(options: PointGridWorkersOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new RangeError(`options must be an object, got ${describe(options)}`);
    }
    const threads = options.threads ?? defaultThreads();
    if (typeof threads !== 'number' || !Number.isInteger(threads) || threads < 1) {
      throw new RangeError(`threads must be an integer >= 1, got ${describe(threads)}`);
    }
    if (typeof SharedArrayBuffer === 'undefined') {
      throw new Error(
        'PointGridWorkers needs SharedArrayBuffer, which this context does not have: browsers give it only to cross-origin isolated pages (Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy: require-corp)',
      );
    }
    this.threads = threads;
    this.totals = new Float64Array(new SharedArrayBuffer(8 * threads));
    this.bounds = new Float64Array(new SharedArrayBuffer(8 * BOUNDS_STRIDE * threads));
    const create = options.createWorker ?? defaultWorker;
    this.channels = Array.from({ length: threads }, () => new Channel(create()));
  }

  /**
   * Re-sorts the points into `grid` across the threads, as `grid.rebuild`
   * does: the same grid afterwards, bit for bit. A dense layout is built in
   * parallel; one that turns out hashed (sparse points) is built by
   * `grid.rebuild` on this thread. `grid.data` changes identity when the
   * points outgrow it, as with `grid.rebuild`.
   *
   * Positions in a SharedArrayBuffer are read in place; any other array is
   * first copied into a shared one the pool keeps (one pass over the points).
   *
   * @param positions the array to read, by default the one the grid was built from last.
   * @throws Error for a grid not built with `{ shared: true }`, or one made by
   * from() without positions; RangeError as `grid.rebuild` for bad positions
   * (the grid then stays as it was).
   */
  rebuild(grid: AnyGrid, positions?: NumericArray): Promise<void> {
    return this.exclusive('rebuild', () => this.rebuildNow(grid, positions));
  }

  /**
   * `grid.neighbors(radius)` across the threads: equal, element for element.
   * The two arrays are views of SharedArrayBuffers.
   *
   * @param out an earlier result of this method to write into when its
   * buffers are big enough (they are then overwritten, and the returned views
   * share them): a steady loop then allocates no result memory, whose first
   * touch (page faults, a few hundred MB per million points) is otherwise a
   * good part of the time.
   * @throws RangeError for a radius < 0 or NaN; Error for a grid not built with `{ shared: true }`.
   */
  neighbors(grid: AnyGrid, radius: number, out?: NeighborLists): Promise<NeighborLists> {
    return this.exclusive('neighbors', () => this.neighborsNow(grid, radius, out));
  }

  /**
   * `grid.pairs(radius)` across the threads: equal, element for element. The
   * array is a view of a SharedArrayBuffer, which each thread writes its
   * slice into (no copy on the calling thread).
   *
   * @throws RangeError for a radius < 0 or NaN; Error for a grid not built with `{ shared: true }`.
   */
  pairs(grid: AnyGrid, radius: number): Promise<Uint32Array> {
    return this.exclusive('pairs', () => this.pairsNow(grid, radius));
  }

  /** Stops the threads. Later calls throw; calling close() again does nothing. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const channel of this.channels) channel.worker.terminate();
    this.channels = [];
  }

  /** Runs `job` after every earlier call, with its timings recorded. */
  private exclusive<T>(call: string, job: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`PointGridWorkers.${call}(): the pool is closed`));
    const run = async () => {
      const started = performance.now();
      this.timings = { call, phases: [], mainMs: 0, totalMs: 0 };
      const result = await job();
      const timings = this.timings;
      timings.totalMs = performance.now() - started;
      timings.mainMs = timings.totalMs - timings.phases.reduce((sum, p) => sum + p.wallMs, 0);
      this.lastTimings = timings;
      return result;
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Sends task(k) to each thread k and waits for all; rethrows the first failure. */
  private async phase<R>(name: string, task: (k: number) => Task): Promise<R[]> {
    const started = performance.now();
    const replies = await Promise.all(this.channels.map((channel, k) => channel.run(task(k))));
    const wallMs = performance.now() - started;
    const results: R[] = [];
    const threadMs: number[] = [];
    // A thread that failed broke the barrier, and the others then failed for that: report the first cause.
    const failed = replies.find((r) => !r.ok && !isBrokenBarrier(r.error)) ?? replies.find((r) => !r.ok);
    if (failed !== undefined && !failed.ok) {
      throw failed.name === 'RangeError' ? new RangeError(failed.error) : new Error(failed.error);
    }
    for (const reply of replies) {
      if (!reply.ok) continue;
      results.push(reply.result as R);
      threadMs.push(reply.ms);
    }
    if (name !== '') this.timings?.phases.push({ name, wallMs, threadMs });
    return results;
  }

  /**
   * Sends task(k) to each thread k, which runs `steps` with a barrier between
   * them, and records each step as a phase: its wall time (up to the last
   * thread's arrival at the barrier after it) and each thread's own.
   */
  private async steps(steps: string[], task: (k: number) => Task): Promise<boolean> {
    resetBarrier(this.sync);
    const sent = clock();
    const times = await this.phase<StepTimes & { stopped?: boolean }>('', task);
    // A step ends when its last thread finishes it; the next starts then (a late waker's delay counts in it).
    let start = sent;
    const ran = Math.min(steps.length, ...times.map((t) => t.done.length));
    for (let j = 0; j < ran; j++) {
      const end = Math.max(...times.map((t) => t.done[j]));
      this.timings?.phases.push({ name: steps[j], wallMs: end - start, threadMs: times.map((t) => t.work[j]) });
      start = end;
    }
    return times.some((t) => t.stopped === true);
  }

  /** What every thread of a call of several steps shares (see tasks.ts). */
  private together(k: number): { part: number; parts: number; sync: Int32Array; totals: Float64Array } {
    return { part: k, parts: this.threads, sync: this.sync, totals: this.totals };
  }

  private internal(grid: AnyGrid, call: string): { g: Grid2D | Grid3D; d: 2 | 3; data: SharedArrayBuffer } {
    let g: Grid2D | Grid3D;
    let d: 2 | 3;
    if (grid instanceof PointGrid2D) {
      g = internalGrid2D(grid);
      d = 2;
    } else if (grid instanceof PointGrid3D) {
      g = internalGrid3D(grid);
      d = 3;
    } else {
      throw new RangeError(`grid must be a PointGrid2D or PointGrid3D, got ${describe(grid)}`);
    }
    if (!(g.data instanceof SharedArrayBuffer)) {
      throw new Error(`PointGridWorkers.${call}(): the grid must be built with { shared: true }`);
    }
    return { g, d, data: g.data };
  }

  /** Positions the workers can read: the array itself when shared, else a copy in the pool's shared staging array. */
  private stage(positions: NumericArray): Positions {
    if (
      (positions instanceof Float64Array || positions instanceof Float32Array) &&
      positions.buffer instanceof SharedArrayBuffer
    ) {
      return positions;
    }
    const float32 = positions instanceof Float32Array;
    let staging = this.staging;
    if (staging === undefined || staging.length < positions.length || staging instanceof Float32Array !== float32) {
      const bytes = 4 * (float32 ? 1 : 2) * Math.max(positions.length, 1);
      const buffer = new SharedArrayBuffer(bytes);
      staging = float32 ? new Float32Array(buffer) : new Float64Array(buffer);
      this.staging = staging;
    }
    const view = staging.subarray(0, positions.length);
    view.set(positions as ArrayLike<number>);
    return view;
  }

  private async rebuildNow(grid: AnyGrid, positions: NumericArray | undefined): Promise<void> {
    const { g, d } = this.internal(grid, 'rebuild');
    const source = positions ?? g.positions;
    if (source === undefined) {
      throw new Error('PointGridWorkers.rebuild(): this grid was made by from() and has no positions array: pass one');
    }
    const { stride, offset } = g;
    const n = checkLayout(source, d, stride, offset);
    checkPointCount(d === 2 ? 'PointGrid2D' : 'PointGrid3D', n);
    const staged = this.stage(source);
    const threads = this.threads;
    const width = g.cellWidth;
    if (this.cellOfPoint.length < n) this.cellOfPoint = new Uint32Array(new SharedArrayBuffer(4 * n));
    // Histograms as long as the grid's cell starts, so a steady rebuild fits them.
    const room = g.capacity.cellStarts - 1;
    if (this.histograms.length !== threads || this.histograms[0].length < room) {
      const length = Math.max(room, this.histograms[0]?.length ?? 0, 1);
      this.histograms = Array.from({ length: threads }, () => new Int32Array(new SharedArrayBuffer(4 * length)));
    }
    const limit = denseLimit(g.maxDenseCells, n);
    // In one message when the grid has room for the points and the box of cells the threads find (the usual
    // frame): each thread bounds its share, and after a barrier all agree on the cells and build on.
    const fits = g.capacity.points >= n && g.capacity.float32 === isFloat32(source);
    const maxCells = fits ? Math.min(limit, room, this.histograms[0].length) : -1;
    const task = (layout: Layout | undefined) => (k: number) =>
      ({
        op: 'build',
        positions: staged,
        data: g.data as SharedArrayBuffer,
        d,
        stride,
        offset,
        points: n,
        width,
        layout,
        bounds: this.bounds,
        maxCells,
        scratch: this.cellOfPoint,
        hists: this.histograms,
        ...this.together(k),
      }) as const;
    const stopped = await this.steps(['bounds', ...BUILD_STEPS], task(undefined));
    const layout = layoutOf(this.bounds, threads, d, n, width);
    if (stopped) {
      const bad = firstBadOf(this.bounds, threads);
      if (bad !== null) throw badPointError(bad);
      if (layout.boxCells > limit) {
        // Sparse points: the hashed build stays on this thread.
        grid.rebuild(source);
        return;
      }
      // More points or cells than the grid (or the histograms) had room for: size them, then build.
      g.prepareDense(source, n, layout.origin, layout.cells);
      if (this.histograms[0].length < layout.boxCells) {
        this.histograms = Array.from(
          { length: threads },
          () => new Int32Array(new SharedArrayBuffer(4 * Math.max(layout.boxCells, 1))),
        );
      }
      await this.steps(BUILD_STEPS, task(layout));
    }
    g.prepareDense(source, n, layout.origin, layout.cells);
    g.publish();
  }

  private async neighborsNow(grid: AnyGrid, radius: number, out: NeighborLists | undefined): Promise<NeighborLists> {
    checkDistance('radius', radius);
    checkOut(out);
    const { g, d, data } = this.internal(grid, 'neighbors');
    const n = g.points;
    // More slices than threads, handed out one at a time: a thread slowed by anything else on its core
    // (this VM's threads are often uneven by 10 to 30%) takes fewer, and the search ends about together.
    const parts = this.threads * SLICES_PER_THREAD;
    Atomics.store(this.next, 0, 0);
    const taken = await this.phase<SliceFound[]>('search', () => ({
      op: 'rows',
      data,
      d,
      radius,
      parts,
      next: this.next,
    }));
    const found = taken.flat().sort((a, b) => a.part - b.part);
    const tcounts = found.map((f) => f.tcount);
    const los = found.map((f) => f.lo);
    // Each pair is an entry in both its rows: the result's size is known before the rows are counted.
    let total = 0;
    for (const f of found) total += 2 * f.pairs;
    const offsets = reuse(out?.offsets, n + 1) ?? roomyArray(n + 1, true);
    offsets[0] = 0; // every other entry is written by the count
    let indices = reuse(out?.indices, total);
    let touch: ((k: number) => { array: Uint32Array; from: number; to: number }) | undefined;
    if (indices === undefined) {
      // Fresh memory faults in on first touch, a page at a time: touched in contiguous shares by all threads
      // while they count, so the scattered writes of the fill do not fault page by page (and thread against thread).
      const fresh = roomyArray(total, true);
      const share = (k: number) => Math.floor((k * total) / this.threads);
      touch = (k) => ({ array: fresh, from: share(k), to: share(k + 1) });
      indices = fresh;
    }
    const result = indices;
    await this.steps(FILL_STEPS, (k) => ({
      op: 'fill',
      points: n,
      tcounts,
      los,
      offsets,
      indices: result,
      touch: touch?.(k),
      ...this.together(k),
    }));
    return { offsets, indices: result };
  }

  private async pairsNow(grid: AnyGrid, radius: number): Promise<Uint32Array> {
    checkDistance('radius', radius);
    const { d, data } = this.internal(grid, 'pairs');
    const parts = this.threads * SLICES_PER_THREAD;
    Atomics.store(this.next, 0, 0);
    const taken = await this.phase<{ part: number; length: number }[]>('search', () => ({
      op: 'pairs',
      data,
      d,
      radius,
      parts,
      next: this.next,
    }));
    // The threads write their slices straight into the shared result, in slice order: no copy on this thread,
    // and the fresh result's first touch (a page fault per 4 KiB) is split across them.
    const at: number[] = new Array(parts).fill(0);
    for (const found of taken) for (const slice of found) at[slice.part] = slice.length;
    let total = 0;
    for (let j = 0; j < parts; j++) {
      const length = at[j];
      at[j] = total;
      total += length;
    }
    const pairs = new Uint32Array(new SharedArrayBuffer(4 * Math.max(total, 1)), 0, total);
    await this.phase('write', () => ({ op: 'place', target: pairs, at }));
    return pairs;
  }
}
