/**
 * PointGridWorkers: a pool of threads (Node worker_threads or browser Web
 * Workers) that rebuilds a PointGrid with a parallel counting sort and runs
 * its neighbors() and pairs() searches split across the threads, with
 * results identical to the one-thread calls. Two modes: shared (the threads
 * work on the grid's SharedArrayBuffer in place; shared-calls.ts) and copy
 * (each thread gets a copy of the grid's buffer; copy-calls.ts), for pages
 * that cannot be cross-origin isolated.
 *
 * @module
 */

import type { NeighborLists } from '../core/results.js';
import { describe, type NumericArray } from '../core/validate.js';
import type { Grid2D } from '../pointgrid/grid2d.js';
import type { Grid3D } from '../pointgrid/grid3d.js';
import { checkOut, MAX_RESULT_LENGTH, resolveMaxResultLength } from '../pointgrid/options.js';
import { internalGrid2D, PointGrid2D } from '../pointgrid/pointgrid2d.js';
import { internalGrid3D, PointGrid3D } from '../pointgrid/pointgrid3d.js';
import { createBarrier } from './barrier.js';
import { THREADS_GUIDE, type WorkerLike } from './channel.js';
import { copyNeighbors, copyPairs } from './copy-calls.js';
import { defaultThreads, sharedMemoryAvailable } from './host.js';
import { rebuildShared, type SharedScratch, sharedNeighbors, sharedPairs } from './shared-calls.js';
import { BOUNDS_STRIDE } from './tasks.js';
import { type PointGridWorkersTimings, Threads } from './threads.js';

export type { WorkerLike } from './channel.js';

// The package compiles against ES2022 alone (no DOM or Node types): declared for this module.
declare const performance: { now(): number };

/**
 * Most threads a pool starts: each costs a thread with its own heap (about
 * 7 MB in Node) plus scratch of about 4 bytes per cell of the grid (its share
 * of a rebuild's histograms), so a mistaken `threads: 1e6` must not start.
 * 64 is more cores than the machines a pool is meant for; the default
 * (the cores) is clamped to it.
 */
const MAX_THREADS = 64;

/** Options of {@link PointGridWorkers}. */
export interface PointGridWorkersOptions {
  /**
   * Threads to start, an integer from 1 to 64. Default: the available cores
   * (`os.availableParallelism()` in Node, `navigator.hardwareConcurrency` in
   * browsers), at most 64.
   */
  threads?: number;
  /**
   * Whether the threads share the grid's memory (fast) or each get a copy of
   * it (copy mode). Default: shared wherever SharedArrayBuffer is available
   * (Node; a cross-origin isolated page), else copy mode. `false` forces copy
   * mode; `true` throws where shared memory is not available. See
   * {@link PointGridWorkers.shared}.
   */
  shared?: boolean;
  /**
   * Makes one worker running this package's worker script, for a page whose
   * Content-Security-Policy does not allow `worker-src blob:`, or for Node
   * worker options such as `resourceLimits`. The script is one
   * self-contained file in the package, `dist/esm/workers/worker.js`: serve
   * a copy of it and start it as a classic worker,
   * `() => new Worker('/spatialhash-worker.js')`, or in Node
   * `() => new Worker(join(dirname(require.resolve('spatialhash/package.json')), 'dist/esm/workers/worker.js'))`.
   * Default: the same script from a Blob URL (browsers) or from a string
   * with `eval: true` (Node), which needs no file and no bundler setup.
   */
  createWorker?: () => WorkerLike;
}

/** Options of {@link PointGridWorkers.pairs}. */
export interface PointGridWorkersPairsOptions {
  /**
   * Longest result the call may return, in numbers (2 per pair), as for the
   * grid's own `pairs()` (`PairsOptions.maxResultLength`): a longer result
   * rejects with a RangeError naming its pair count and the bytes it needs,
   * after at most O(points) memory was taken (each thread may hold twice its
   * even share of what a one-thread search holds before it counts). An
   * integer >= 0, default (and at most) 2^31 - 1.
   */
  maxResultLength?: number;
}

/** Options of {@link PointGridWorkers.neighbors}. */
export interface PointGridWorkersNeighborsOptions extends PointGridWorkersPairsOptions {
  /**
   * An earlier result of {@link PointGridWorkers.neighbors} to write into
   * when its buffers are big enough (they are then overwritten, and the
   * returned views share them; a call that fails may leave them
   * half-written): a steady loop then allocates no result memory, whose
   * first touch (page faults, a few hundred MB per million points) is
   * otherwise a good part of the time.
   */
  out?: NeighborLists | undefined;
}

/**
 * The third argument of {@link PointGridWorkers.neighbors}: options, or an
 * earlier result (an object with `offsets` or `indices`) as `out`.
 */
function neighborsOptions(options: NeighborLists | PointGridWorkersNeighborsOptions | undefined): {
  out: NeighborLists | undefined;
  limit: number;
} {
  if (
    options === undefined ||
    options === null ||
    typeof options !== 'object' ||
    'offsets' in options ||
    'indices' in options
  ) {
    return { out: checkOut(options as NeighborLists | undefined), limit: MAX_RESULT_LENGTH };
  }
  const { out } = options as PointGridWorkersNeighborsOptions;
  return { out: checkOut(out), limit: resolveMaxResultLength(options) };
}

/** The maxResultLength of pairs() options, checked. */
function pairsLimit(options: PointGridWorkersPairsOptions | undefined): number {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new RangeError(`options must be an object such as { maxResultLength: 1e6 }, got ${describe(options)}`);
  }
  return resolveMaxResultLength(options);
}

/** A grid the pool works on: any PointGrid2D or PointGrid3D (built with `{ shared: true }` for shared mode). */
export type AnyGrid = PointGrid2D | PointGrid3D;

/**
 * A pool of threads for PointGrid2D and PointGrid3D grids: {@link rebuild}
 * sorts the points into the grid by a parallel counting sort (per-thread
 * histograms, prefix sum, scatter, per-cell sort), {@link neighbors} and
 * {@link pairs} split the half-stencil search into four slices per thread
 * (see `PairSearchOptions`) and place each slice's results by slice order,
 * so each result equals the one-thread call's element for element, whatever
 * the thread count and whichever thread took which slice.
 *
 * Two modes ({@link shared}):
 * - shared, where SharedArrayBuffer is available (Node; a browser page served
 *   with `Cross-Origin-Opener-Policy: same-origin` and
 *   `Cross-Origin-Embedder-Policy: require-corp`), on grids built with
 *   `{ shared: true }`: the threads work on the grid's buffer in place;
 * - copy, anywhere else (or with `shared: false`, or a grid built without
 *   `shared`): each call copies the grid's buffer once per thread, the
 *   threads send their results back, and the calling thread puts them
 *   together (for neighbors(), fills the rows); {@link rebuild} then runs on
 *   the calling thread. Slower, the same results.
 *
 * Calls on one pool run one after another, and every call settles whatever
 * happens to a worker: a worker that dies fails the call it was running (a
 * rebuild it interrupts leaves the grid throwing on every query until it is
 * rebuilt) and is replaced at the next call; one that fails to load fails
 * every later call. In Node, idle workers do not keep the process alive;
 * {@link close} frees them.
 *
 * @example
 * ```ts
 * const pool = new PointGridWorkers();
 * // Shared memory where the pool has it, a plain buffer (copy mode) elsewhere:
 * const grid = new PointGrid3D(positions, { cellSize: h, shared: pool.shared });
 * await pool.rebuild(grid);                         // after the points moved
 * const { offsets, indices } = await pool.neighbors(grid, h);
 * pool.close();
 * ```
 */
export class PointGridWorkers {
  /** Number of worker threads. */
  readonly threads: number;
  /**
   * True when the pool's threads share memory with the calling thread
   * (shared mode): calls on grids built with `{ shared: true }` then work on
   * the grid's buffer in place. False in copy mode (see {@link PointGridWorkers}).
   */
  readonly shared: boolean;
  /** Where the time of the last completed call went (for benchmarks and tuning). */
  lastTimings: PointGridWorkersTimings | undefined = undefined;

  private readonly workers: Threads;
  private queue: Promise<unknown> = Promise.resolve();
  /** Shared mode only: the pool's shared scratch, the barrier of the steps run in one message included. */
  private readonly scratch: SharedScratch | undefined;

  /**
   * Starts the threads.
   *
   * @throws RangeError for a threads that is not an integer from 1 to 64, a
   * shared that is not a boolean, a createWorker that is not a function (or
   * returns no Worker); Error for `shared: true` where SharedArrayBuffer is
   * not available, or when a worker cannot be started.
   */
  constructor(options: PointGridWorkersOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new RangeError(`options must be an object, got ${describe(options)}`);
    }
    const threads = options.threads ?? Math.min(defaultThreads(), MAX_THREADS);
    if (typeof threads !== 'number' || !Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) {
      throw new RangeError(`threads must be an integer from 1 to ${MAX_THREADS}, got ${describe(threads)}`);
    }
    const shared = options.shared;
    if (shared !== undefined && typeof shared !== 'boolean') {
      throw new RangeError(`shared must be a boolean, got ${describe(shared)}`);
    }
    if (shared === true && !sharedMemoryAvailable()) {
      throw new Error(
        `PointGridWorkers: shared: true needs SharedArrayBuffer, which this context does not have: a browser gives it only to a cross-origin isolated page, served with the headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp (see ${THREADS_GUIDE}). Leave shared out to run in copy mode here`,
      );
    }
    const createWorker = options.createWorker;
    if (createWorker !== undefined && typeof createWorker !== 'function') {
      throw new RangeError(`createWorker must be a function, got ${describe(createWorker)}`);
    }
    this.threads = threads;
    this.shared = shared ?? sharedMemoryAvailable();
    if (this.shared) {
      this.scratch = {
        sync: createBarrier(),
        totals: new Float64Array(new SharedArrayBuffer(8 * threads)),
        bounds: new Float64Array(new SharedArrayBuffer(8 * BOUNDS_STRIDE * threads)),
        next: new Int32Array(new SharedArrayBuffer(4)),
        staging: undefined,
        cellOfPoint: new Uint32Array(0),
        histograms: [],
      };
    }
    this.workers = new Threads(threads, createWorker, this.scratch?.sync);
  }

  /**
   * Re-sorts the points into `grid` across the threads, as `grid.rebuild`
   * does: the same grid afterwards, bit for bit. A dense layout is built in
   * parallel; one that turns out hashed (sparse points) is built by
   * `grid.rebuild` on this thread, as is every rebuild in copy mode or of a
   * grid built without `{ shared: true }`. `grid.data` changes identity when
   * the points outgrow it, as with `grid.rebuild`.
   *
   * While a parallel rebuild runs, the grid's queries and `grid.rebuild`
   * throw (the threads write the buffer in place); if it is interrupted (a
   * worker fails, or {@link close}), the grid throws on every query until it
   * is rebuilt, rather than answer from a half-written buffer.
   *
   * Positions in a SharedArrayBuffer are read in place; any other array is
   * first copied into a shared one the pool keeps (one pass over the points).
   *
   * @param positions the array to read, by default the one the grid was built from last.
   * @throws Error for a grid made by from() without positions, or one another
   * pool call is using; RangeError as `grid.rebuild` for bad positions (the
   * grid then stays as it was).
   */
  rebuild(grid: AnyGrid, positions?: NumericArray): Promise<void> {
    return this.exclusive('rebuild', async () => {
      const { g, d } = this.internal(grid);
      if (this.sharedCall(g)) {
        await rebuildShared(this.workers, this.scratch!, grid, g, d, positions);
        return;
      }
      const source = positions ?? g.positions;
      if (source === undefined) {
        throw new Error(
          'PointGridWorkers.rebuild(): this grid was made by from() and has no positions array: pass one',
        );
      }
      grid.rebuild(source);
    });
  }

  /**
   * `grid.neighbors(radius)` across the threads: equal, element for element.
   * In shared mode (see {@link shared}) the two arrays are views of
   * SharedArrayBuffers written by the threads; in copy mode, of ArrayBuffers
   * the calling thread fills.
   *
   * @param options `{ out, maxResultLength }` (see
   * {@link PointGridWorkersNeighborsOptions}), or an earlier result of this
   * method to write into, as `out`.
   * @throws RangeError for a radius < 0 or NaN, a bad maxResultLength, an
   * `out` that is not an earlier result, or rows longer than maxResultLength
   * (naming the pairs and bytes; default 2^31 - 1 numbers); Error for a grid
   * whose queries throw (a rebuild by a pool running or interrupted).
   */
  neighbors(
    grid: AnyGrid,
    radius: number,
    options?: NeighborLists | PointGridWorkersNeighborsOptions,
  ): Promise<NeighborLists> {
    return this.exclusive('neighbors', () => {
      const { g, d } = this.internal(grid);
      const { out, limit } = neighborsOptions(options);
      return this.sharedCall(g)
        ? sharedNeighbors(this.workers, this.scratch!, g, d, radius, out, limit)
        : copyNeighbors(this.workers, g, d, radius, out, limit);
    });
  }

  /**
   * `grid.pairs(radius)` across the threads: equal, element for element. In
   * shared mode the array is a view of a SharedArrayBuffer, which each thread
   * writes its slices into; in copy mode, an array the calling thread fills
   * from the threads' results.
   *
   * @throws RangeError for a radius < 0 or NaN, a bad maxResultLength, or a
   * result longer than maxResultLength (naming the pairs and bytes; default
   * 2^31 - 1 numbers); Error for a grid whose queries throw (a rebuild by a
   * pool running or interrupted).
   */
  pairs(grid: AnyGrid, radius: number, options?: PointGridWorkersPairsOptions): Promise<Uint32Array> {
    return this.exclusive('pairs', () => {
      const { g, d } = this.internal(grid);
      const limit = pairsLimit(options);
      return this.sharedCall(g)
        ? sharedPairs(this.workers, this.scratch!, g, d, radius, limit)
        : copyPairs(this.workers, g, d, radius, limit);
    });
  }

  /**
   * Stops the threads. The call running (if any) and every call waiting
   * reject with an Error saying the pool was closed; later calls reject too.
   * Calling close() again does nothing.
   */
  close(): void {
    this.workers.close();
  }

  /** Runs `job` after every earlier call, with its timings recorded, once every thread is alive. */
  private exclusive<T>(call: string, job: () => Promise<T> | T): Promise<T> {
    const run = async () => {
      const workers = this.workers;
      workers.begin(call);
      const started = performance.now();
      try {
        const result = await job();
        const timings = workers.timings!;
        timings.totalMs = performance.now() - started;
        timings.mainMs = timings.totalMs - timings.phases.reduce((sum, p) => sum + p.wallMs, 0);
        this.lastTimings = timings;
        return result;
      } finally {
        workers.end();
      }
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Whether a call on `g` goes the shared way: a shared pool and a grid in shared memory. */
  private sharedCall(g: Grid2D | Grid3D): boolean {
    return this.shared && g.data instanceof SharedArrayBuffer;
  }

  private internal(grid: AnyGrid): { g: Grid2D | Grid3D; d: 2 | 3 } {
    if (grid instanceof PointGrid2D) return { g: internalGrid2D(grid), d: 2 };
    if (grid instanceof PointGrid3D) return { g: internalGrid3D(grid), d: 3 };
    throw new RangeError(`grid must be a PointGrid2D or PointGrid3D, got ${describe(grid)}`);
  }
}
