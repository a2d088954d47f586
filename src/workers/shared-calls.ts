/**
 * The pool's calls in shared mode: the threads work on the grid's
 * SharedArrayBuffer in place (tasks.ts) and write their results straight
 * into shared result arrays, with a barrier between the steps of a call run
 * in one message per thread.
 *
 * @module
 */

import { type NeighborLists, reuseArray, roomyArray } from '../core/results.js';
import { checkDistance, checkLayout, type NumericArray } from '../core/validate.js';
import type { Grid2D } from '../pointgrid/grid2d.js';
import type { Grid3D } from '../pointgrid/grid3d.js';
import { checkOut, checkPointCount, denseLimit, isFloat32 } from '../pointgrid/options.js';
import type { PointGrid2D } from '../pointgrid/pointgrid2d.js';
import type { PointGrid3D } from '../pointgrid/pointgrid3d.js';
import { checkRebuild } from '../pointgrid/pool-use.js';
import { reading } from './grid-use.js';
import { isCount, searchWithin, threadRoom } from './result-size.js';
import {
  BUILD_STEPS,
  badPointError,
  FILL_STEPS,
  firstBadOf,
  type Layout,
  layoutOf,
  type Positions,
  type SliceFound,
  type SliceLength,
  type Task,
} from './tasks.js';
import type { Threads } from './threads.js';

/** Slices of a neighbors() or pairs() search per thread. */
export const SLICES_PER_THREAD = 4;

/** Shared memory a shared-mode pool keeps from call to call. */
export interface SharedScratch {
  /** The barrier of the steps run in one message. */
  sync: Int32Array;
  /** A number per thread to share between steps. */
  totals: Float64Array;
  /** Each thread's bounds of its share of the points in a rebuild (BOUNDS_STRIDE numbers per thread). */
  bounds: Float64Array;
  /** The next slice of a search to hand out. */
  next: Int32Array;
  /** Positions staged for the workers (when the caller's are not shared). */
  staging: Float32Array | Float64Array | undefined;
  /** Cell of each point during a rebuild. */
  cellOfPoint: Uint32Array<ArrayBufferLike>;
  /** Per-thread histograms of a rebuild. */
  histograms: Int32Array[];
}

/** `reuseArray` for shared mode: only an array over a SharedArrayBuffer can be written by the threads. */
function reuse(array: Uint32Array | undefined, length: number): Uint32Array | undefined {
  if (array === undefined || !(array.buffer instanceof SharedArrayBuffer)) return undefined;
  return reuseArray(array, length);
}

/** What every thread of a call of several steps shares (see tasks.ts). */
function together(
  threads: Threads,
  scratch: SharedScratch,
  k: number,
): { part: number; parts: number; sync: Int32Array; totals: Float64Array } {
  return { part: k, parts: threads.count, sync: scratch.sync, totals: scratch.totals };
}

/** Positions the workers can read: the array itself when shared, else a copy in the pool's shared staging array. */
function stage(scratch: SharedScratch, positions: NumericArray): Positions {
  if (
    (positions instanceof Float64Array || positions instanceof Float32Array) &&
    positions.buffer instanceof SharedArrayBuffer
  ) {
    return positions;
  }
  const float32 = positions instanceof Float32Array;
  let staging = scratch.staging;
  if (staging === undefined || staging.length < positions.length || staging instanceof Float32Array !== float32) {
    const bytes = 4 * (float32 ? 1 : 2) * Math.max(positions.length, 1);
    const buffer = new SharedArrayBuffer(bytes);
    staging = float32 ? new Float32Array(buffer) : new Float64Array(buffer);
    scratch.staging = staging;
  }
  const view = staging.subarray(0, positions.length);
  view.set(positions as ArrayLike<number>);
  return view;
}

/**
 * rebuild() in shared mode: the threads bound the points, then (when the
 * grid has room) sort them into the grid's buffer in place, in one message
 * each. While they may write, the grid's queries throw ('writing'); a
 * rebuild that fails then leaves them throwing ('interrupted') until the
 * grid is rebuilt, since the buffer may be half-written.
 */
export async function rebuildShared(
  threads: Threads,
  scratch: SharedScratch,
  grid: PointGrid2D | PointGrid3D,
  g: Grid2D | Grid3D,
  d: 2 | 3,
  positions: NumericArray | undefined,
): Promise<void> {
  if (g.use !== undefined) checkRebuild('PointGridWorkers.rebuild()', g.use);
  const source = positions ?? g.positions;
  if (source === undefined) {
    throw new Error('PointGridWorkers.rebuild(): this grid was made by from() and has no positions array: pass one');
  }
  const { stride, offset } = g;
  const n = checkLayout(source, d, stride, offset);
  checkPointCount(d === 2 ? 'PointGrid2D' : 'PointGrid3D', n);
  const staged = stage(scratch, source);
  const width = g.cellWidth;
  const count = threads.count;
  if (scratch.cellOfPoint.length < n) scratch.cellOfPoint = new Uint32Array(new SharedArrayBuffer(4 * n));
  // Histograms as long as the grid's cell starts, so a steady rebuild fits them.
  const room = g.capacity.cellStarts - 1;
  if (scratch.histograms.length !== count || scratch.histograms[0].length < room) {
    const length = Math.max(room, scratch.histograms[0]?.length ?? 0, 1);
    scratch.histograms = Array.from({ length: count }, () => new Int32Array(new SharedArrayBuffer(4 * length)));
  }
  const limit = denseLimit(g.maxDenseCells, n);
  // In one message when the grid has room for the points and the box of cells the threads find (the usual
  // frame): each thread bounds its share, and after a barrier all agree on the cells and build on.
  const fits = g.capacity.points >= n && g.capacity.float32 === isFloat32(source);
  const maxCells = fits ? Math.min(limit, room, scratch.histograms[0].length) : -1;
  const task =
    (layout: Layout | undefined) =>
    (k: number): Task => ({
      op: 'build',
      positions: staged,
      data: g.data as SharedArrayBuffer,
      d,
      stride,
      offset,
      points: n,
      width,
      layout,
      bounds: scratch.bounds,
      maxCells,
      scratch: scratch.cellOfPoint,
      hists: scratch.histograms,
      ...together(threads, scratch, k),
    });
  g.use = 'writing';
  try {
    const stopped = await threads.steps(['bounds', ...BUILD_STEPS], task(undefined));
    const layout = layoutOf(scratch.bounds, count, d, n, width);
    if (stopped) {
      // No thread wrote anything: the grid is as it was.
      g.use = undefined;
      const bad = firstBadOf(scratch.bounds, count);
      if (bad !== null) throw badPointError(bad);
      if (layout.boxCells > limit) {
        // Sparse points: the hashed build stays on this thread.
        grid.rebuild(source);
        return;
      }
      // More points or cells than the grid (or the histograms) had room for: size them, then build.
      g.use = 'writing';
      g.prepareDense(source, n, layout.origin, layout.cells);
      if (scratch.histograms[0].length < layout.boxCells) {
        scratch.histograms = Array.from(
          { length: count },
          () => new Int32Array(new SharedArrayBuffer(4 * Math.max(layout.boxCells, 1))),
        );
      }
      await threads.steps(BUILD_STEPS, task(layout));
    }
    g.prepareDense(source, n, layout.origin, layout.cells);
    g.publish();
  } catch (error) {
    if (g.use === 'writing') g.use = 'interrupted';
    throw error;
  }
}

/** Checks the slices the threads say they searched: each of 0..parts-1 once. */
function checkSlices(threads: Threads, taken: { part: number }[][], parts: number, what: string): void {
  const seen = new Uint8Array(parts);
  taken.forEach((slices, k) => {
    if (!Array.isArray(slices)) threads.malformed(k, what);
    for (const slice of slices) {
      const part = slice?.part;
      if (!Number.isInteger(part) || part < 0 || part >= parts || seen[part] === 1) threads.malformed(k, what);
      seen[part] = 1;
    }
  });
  if (seen.includes(0)) threads.malformed(0, `${what} (a slice is missing)`);
}

/**
 * One round of a neighbors() (`rows`) or pairs() search: the slice counter
 * reset, every thread searching slices with `room` numbers (see
 * result-size.ts), and the slices each says it searched checked.
 */
async function searchSlices<S extends { part: number }>(
  threads: Threads,
  scratch: SharedScratch,
  op: 'rows' | 'pairs',
  search: { data: SharedArrayBuffer; d: 2 | 3; radius: number; parts: number; limit: number },
  room: number,
  again: boolean,
  what: string,
): Promise<S[][]> {
  Atomics.store(scratch.next, 0, 0);
  const taken = await threads.phase<S[]>(again ? 'search again' : 'search', () => ({
    op,
    ...search,
    next: scratch.next,
    room,
  }));
  checkSlices(threads, taken, search.parts, what);
  return taken;
}

/**
 * neighbors() in shared mode: the search (twice when a thread reached its
 * ceiling, see result-size.ts), then the rest in one message per thread
 * (count, prefix sums, fill). `limit` is the call's maxResultLength.
 */
export function sharedNeighbors(
  threads: Threads,
  scratch: SharedScratch,
  g: Grid2D | Grid3D,
  d: 2 | 3,
  radius: number,
  out: NeighborLists | undefined,
  limit: number,
): Promise<NeighborLists> {
  checkDistance('radius', radius);
  checkOut(out);
  const data = g.data as SharedArrayBuffer;
  const owner = 'PointGridWorkers.neighbors';
  const what = 'neighbors() search result';
  const firstRoom = threadRoom(owner, g, radius, limit, threads.count);
  return reading(g, 'neighbors', async () => {
    const n = g.points;
    // More slices than threads, handed out one at a time: a thread slowed by anything else on its core
    // (this VM's threads are often uneven by 10 to 30%) takes fewer, and the search ends about together.
    const parts = threads.count * SLICES_PER_THREAD;
    const search = { data, d, radius, parts, limit };
    // Each pair is an entry in both its rows: the result's size is known before the rows are counted.
    let pairs = 0;
    const found = await searchWithin(threads, owner, limit, firstRoom, what, async (room, again) => {
      const taken = await searchSlices<SliceFound>(threads, scratch, 'rows', search, room, again, what);
      pairs = 0;
      let counter = -1;
      taken.forEach((slices, k) => {
        for (const slice of slices) {
          if (!isCount(slice.pairs)) threads.malformed(k, what);
          pairs += slice.pairs;
          if (slice.counted === true) counter = k;
        }
      });
      return { found: taken.flat().sort((a, b) => a.part - b.part), pairs, counter };
    });
    const tcounts = found.map((f) => f.tcount);
    const los = found.map((f) => f.lo);
    const total = 2 * pairs;
    const offsets = reuse(out?.offsets, n + 1) ?? roomyArray(n + 1, true);
    offsets[0] = 0; // every other entry is written by the count
    let indices = reuse(out?.indices, total);
    let touch: ((k: number) => { array: Uint32Array; from: number; to: number }) | undefined;
    if (indices === undefined) {
      // Fresh memory faults in on first touch, a page at a time: touched in contiguous shares by all threads
      // while they count, so the scattered writes of the fill do not fault page by page (and thread against thread).
      const fresh = roomyArray(total, true);
      const share = (k: number) => Math.floor((k * total) / threads.count);
      touch = (k) => ({ array: fresh, from: share(k), to: share(k + 1) });
      indices = fresh;
    }
    const result = indices;
    await threads.steps(FILL_STEPS, (k) => ({
      op: 'fill',
      points: n,
      tcounts,
      los,
      offsets,
      indices: result,
      touch: touch?.(k),
      ...together(threads, scratch, k),
    }));
    return { offsets, indices: result };
  });
}

/**
 * pairs() in shared mode: the search (twice when a thread reached its
 * ceiling, see result-size.ts), then each thread writes its slices into the
 * shared result. `limit` is the call's maxResultLength.
 */
export function sharedPairs(
  threads: Threads,
  scratch: SharedScratch,
  g: Grid2D | Grid3D,
  d: 2 | 3,
  radius: number,
  limit: number,
): Promise<Uint32Array> {
  checkDistance('radius', radius);
  const data = g.data as SharedArrayBuffer;
  const owner = 'PointGridWorkers.pairs';
  const what = 'pairs() search result';
  const firstRoom = threadRoom(owner, g, radius, limit, threads.count);
  return reading(g, 'pairs', async () => {
    const parts = threads.count * SLICES_PER_THREAD;
    const search = { data, d, radius, parts, limit };
    const taken = await searchWithin(threads, owner, limit, firstRoom, what, async (room, again) => {
      const taken = await searchSlices<SliceLength>(threads, scratch, 'pairs', search, room, again, what);
      let numbers = 0;
      let counter = -1;
      taken.forEach((slices, k) => {
        for (const slice of slices) {
          if (!isCount(slice.length) || slice.length % 2 !== 0) threads.malformed(k, what);
          numbers += slice.length;
          if (slice.counted === true) counter = k;
        }
      });
      return { found: taken, pairs: numbers / 2, counter };
    });
    // The threads write their slices straight into the shared result, in slice order: no copy on this thread,
    // and the fresh result's first touch (a page fault per 4 KiB) is split across them.
    const at: number[] = new Array(parts).fill(0);
    for (const slices of taken) for (const slice of slices) at[slice.part] = slice.length;
    let total = 0;
    for (let j = 0; j < parts; j++) {
      const length = at[j];
      at[j] = total;
      total += length;
    }
    const pairs = new Uint32Array(new SharedArrayBuffer(4 * Math.max(total, 1)), 0, total);
    await threads.phase('write', () => ({ op: 'place', target: pairs, at }));
    return pairs;
  });
}
