/**
 * What one PointGridWorkers thread does: the kernels of the parallel rebuild
 * and pair searches, each over its own slice of a grid that lives in
 * SharedArrayBuffers. Plain functions of the task message, so the worker
 * entry (worker.ts) only forwards messages here.
 *
 * Every kernel writes only what its slice owns (its points, its cells, its
 * rows' entries), at places computed from the other slices' counts, so no
 * locks are needed and the result is the same whatever the thread count. A
 * step that needs the other threads' counts waits for them at a barrier
 * (barrier.ts): a rebuild after its bounds, and a neighbour fill after its
 * search, are each one message per thread.
 *
 * @module
 */
import { pointError } from '../core/validate.js';
import {
  bounds2,
  bounds3,
  countDense2,
  countDense3,
  scatter2,
  scatter3,
  sortSmallCells2,
  sortSmallCells3,
} from '../pointgrid/build-loops.js';
import { readGrid } from '../pointgrid/grid-data.js';
import { Grid2D } from '../pointgrid/grid2d.js';
import { Grid3D } from '../pointgrid/grid3d.js';
import { partCell } from '../pointgrid/options.js';
import { COLLECT, fillRows, isOutgrown, PairSink, ROWS, writePairs } from '../pointgrid/pair-sink.js';
import { forEachPair2D, forEachPair3D } from '../pointgrid/pair-visits.js';
import { sortCellsByX } from '../pointgrid/sort-cells.js';
import { type KernelMode, setKernelMode, useKernelModule } from '../wasm/kernels.js';
import { pinGrid, unpinGrid } from '../wasm/mirror.js';
import { arriveAndWait, breakBarrier } from './barrier.js';

// The package compiles against ES2022 alone (no DOM or Node types): declared for this module.
declare const performance: { now(): number; timeOrigin: number };

/** Milliseconds since the epoch, at sub-millisecond resolution: comparable between threads, unlike now(). */
export function clock(): number {
  return performance.timeOrigin + performance.now();
}

/** A numeric typed array (positions): shared when it comes from the pool. */
export type Positions = Float32Array | Float64Array;

/**
 * How far a thread's pair search may grow its buffer in one call (see
 * PairSink.ceiling): to `room` numbers (its share of the call's allowance, or
 * Infinity once the call knows its result fits) or what the last call's
 * share of it needed, but never past what a result of `limit` numbers (the
 * call's maxResultLength) needs. A thread whose buffer reaches that only
 * counts the pairs of its slice and of every later one, and says so (see
 * {@link SliceLength}, {@link CountedSlices}): the calling thread then checks
 * the count before any thread takes the memory for the result.
 */
interface Ceiling {
  room: number;
  limit: number;
}

/** A pair search split into `parts` slices, which threads take one at a time from the shared counter `next`. */
interface SliceSearch extends Ceiling {
  data: SharedArrayBuffer;
  d: 2 | 3;
  radius: number;
  parts: number;
  next: Int32Array;
}

/** The search of pairs(). */
type PairsTask = { op: 'pairs' } & SliceSearch;

/** The search of neighbors(). */
type RowsTask = { op: 'rows' } & SliceSearch;

/**
 * A pair search in copy mode (no shared memory): `data` is this worker's own
 * copy of the grid's buffer, transferred to it, and `slices` the slices of
 * `parts` it searches, in order; the results come back transferred.
 */
interface CopySearch extends Ceiling {
  data: ArrayBuffer;
  d: 2 | 3;
  radius: number;
  parts: number;
  slices: number[];
}

/** pairs() in copy mode: see {@link CopiedPairs}. */
type CopyPairsTask = { op: 'copyPairs' } & CopySearch;

/** neighbors() in copy mode: see {@link CopiedRows}. */
type CopyRowsTask = { op: 'copyRows' } & CopySearch;

/**
 * What a copyPairs or copyRows task returns instead when the thread's buffer
 * reached its ceiling (see {@link Ceiling}): each of its slices' pair count,
 * in the order of its slices, and nothing else.
 */
export interface CountedSlices {
  counts: number[];
}

/** What a `pairs` task returns per slice searched: the slice, its count of numbers (2 per pair), and whether they were only counted (see {@link Ceiling}). */
export interface SliceLength {
  part: number;
  length: number;
  counted?: boolean;
}

/** What a copyPairs task returns: the pairs of its slices one after another, as original indices, and each slice's count of numbers. */
export interface CopiedPairs {
  lengths: number[];
  pairs: Uint32Array;
}

/**
 * What a copyRows task returns: the partner runs of its slices one after
 * another (sorted positions, as a ROWS search leaves them), and per slice
 * its points' sorted positions `from[j]` to `to[j] - 1`, where its runs lie
 * in `partners` (`start[j]` to `end[j]`) and, for each of its points in
 * turn, where that point's run ends (`rowEnds`, the slices one after another).
 */
export interface CopiedRows {
  from: number[];
  to: number[];
  start: number[];
  end: number[];
  rowEnds: Uint32Array;
  partners: Uint32Array;
}

/**
 * What every thread of a call shares to run its steps in one message: the
 * barrier between steps and a number per thread to add up across them.
 */
interface Together {
  part: number;
  parts: number;
  /** The call's barrier (barrier.ts). */
  sync: Int32Array;
  /** One number per thread, written before a barrier and read after it. */
  totals: Float64Array;
}

/**
 * The calling thread's kernel choice, sent with every task: its mode (see
 * setKernelMode) and, with a worker's first task, its compiled WebAssembly
 * module, so that the worker runs the same kernels without compiling, or
 * carrying, a module of its own (the worker's script has none).
 */
export interface KernelSetting {
  mode: KernelMode;
  /** A WebAssembly.Module (typed as an object so that the package's declarations need no WebAssembly types). */
  module?: object;
}

/** The tasks a worker runs, by `op`, each with the caller's {@link KernelSetting}. */
export type Task = { kernels?: KernelSetting } & (
  | PairsTask
  | CopyPairsTask
  | CopyRowsTask
  /** After `pairs`: each slice's pairs, as original indices, into the shared result from `at[slice]` on. */
  | { op: 'place'; target: Uint32Array; at: number[] }
  | RowsTask
  | ({
      op: 'fill';
      points: number;
      tcounts: Int32Array[];
      los: number[];
      offsets: Uint32Array;
      indices: Uint32Array;
      /** Fresh result memory to first-touch while counting: this thread's share of it. */
      touch?: { array: Uint32Array; from: number; to: number } | undefined;
    } & Together)
  | ({
      op: 'build';
      positions: Positions;
      data: SharedArrayBuffer;
      d: 2 | 3;
      stride: number;
      offset: number;
      points: number;
      width: number;
      /**
       * The cells, when the calling thread has sized the grid for them.
       * Without: each thread first bounds its share of the points into
       * `bounds`, and after a barrier all find the same cells (layoutOf); they
       * stop there on a bad point or when the box has more than `maxCells`
       * cells (the grid's or the histograms' room, or the dense limit).
       */
      layout?: Layout | undefined;
      bounds: Float64Array;
      maxCells: number;
      /** Cell of each point, written by its thread's histogram step. */
      scratch: Uint32Array;
      /** Every thread's histogram, at least the box's cells long. */
      hists: Int32Array[];
    } & Together)
);

/** The names of a `build` task's steps, in order (one timing each). */
export const BUILD_STEPS = ['histogram', 'cellTotals', 'offsets', 'scatter', 'sortCells'];
/** The names of a `fill` task's steps, in order. */
export const FILL_STEPS = ['count', 'prefix sums', 'row starts', 'fill'];

/**
 * What a task of several steps returns, per step: this thread's own time on
 * it (ms), and the {@link clock} time at which it finished it (arrived at the
 * barrier after it, or ended the task).
 */
export interface StepTimes {
  work: number[];
  done: number[];
}

/** Times the steps of one task, and holds the thread at the barrier after each but the last. */
class Steps {
  private readonly times: StepTimes = { work: [], done: [] };
  private started = performance.now();

  constructor(private readonly task: Together) {}

  /** Ends a step: waits for every thread to end it too. */
  barrier(): void {
    this.record();
    arriveAndWait(this.task.sync, this.task.parts);
    this.started = performance.now();
  }

  /** Ends the last step. */
  end(): StepTimes {
    this.record();
    return this.times;
  }

  private record(): void {
    const now = performance.now();
    this.times.work.push(now - this.started);
    this.times.done.push(performance.timeOrigin + now);
  }
}

/** Sum of the numbers the threads before this one wrote into `totals`. */
function before(task: Together): number {
  let sum = 0;
  for (let k = 0; k < task.part; k++) sum += task.totals[k];
  return sum;
}

/** First of the `parts` even shares of 0..count-1 that belongs to `part`. */
function share(count: number, part: number, parts: number): number {
  return Math.floor((part * count) / parts);
}

/** The dense box of cells of a build: its first cell's corner, cells per axis, and their product. */
export interface Layout {
  origin: number[];
  cells: number[];
  boxCells: number;
}

/** Numbers per thread in a build's shared `bounds`: min and max per axis (up to 3), then a bad point's index, axis and value. */
export const BOUNDS_STRIDE = 9;

/**
 * The layout a one-thread build of `points` points finds, from the bounds
 * each of `threads` threads wrote: the same float operations as
 * Grid2D/Grid3D.build, so every thread and the calling thread agree.
 */
export function layoutOf(bounds: Float64Array, threads: number, d: number, points: number, width: number): Layout {
  const origin: number[] = [];
  const cells: number[] = [];
  let boxCells = 1;
  for (let a = 0; a < d; a++) {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < threads; k++) {
      min = Math.min(min, bounds[k * BOUNDS_STRIDE + a]);
      max = Math.max(max, bounds[k * BOUNDS_STRIDE + 3 + a]);
    }
    const o = points === 0 ? 0 : min;
    const c = points === 0 ? 0 : Math.floor((max - o) / width) + 1;
    origin.push(o);
    cells.push(c);
    boxCells *= c;
  }
  return { origin, cells, boxCells };
}

/** [point index, axis, value] of the first non-finite coordinate any thread's bounds step met, or null. */
export function firstBadOf(bounds: Float64Array, threads: number): [number, number, number] | null {
  for (let k = 0; k < threads; k++) {
    const b = k * BOUNDS_STRIDE + 6;
    if (bounds[b] >= 0) return [bounds[b], bounds[b + 1], bounds[b + 2]];
  }
  return null;
}

/** A finished task: its result, the buffers to transfer with it, and the time it took in ms. */
export interface Done {
  result: unknown;
  transfer: ArrayBuffer[];
}

/** One sink per thread, so its first-guess sizes and (ROWS) buffers carry over from search to search. */
const sink = new PairSink();
sink.retain = true;

/**
 * The ceiling of this thread's searches in the running call, fixed at its
 * first slice from the last call's total (a later slice's start would see
 * only this call's slices so far).
 */
let ceiling = Number.POSITIVE_INFINITY;

/** One slice a `rows` task searched: what the `fill` task of the same neighbors() call needs of it. */
interface SliceRows {
  /** The slice's index, of all the call's slices. */
  part: number;
  /** Its points' sorted positions: from to to - 1. */
  from: number;
  to: number;
  /** Where its partner runs start in the thread's buffer. */
  start: number;
  /** Its partner counts per sorted position from `from` on (what `rows` returned). */
  tcount: Int32Array;
}

/** What a `rows` task leaves behind for the `fill` task of the same neighbors() call. */
interface RowsState {
  order: Uint32Array;
  /** The partner runs of every slice this thread searched, one after another. */
  partners: Uint32Array;
  rowEnd: Uint32Array;
  slices: SliceRows[];
}
let rows: RowsState | undefined;

/** A slice a `rows` task searched, as the calling thread gets it. */
export interface SliceFound {
  part: number;
  /** Sorted position that `tcount` starts at. */
  lo: number;
  tcount: Int32Array;
  /** Pairs found (partner entries). */
  pairs: number;
  /** True when they were only counted (see {@link Ceiling}): `tcount` is then empty. */
  counted?: boolean;
}

/**
 * Scratch of the neighbors() steps, kept from call to call so that no call
 * faults in fresh memory: a zeroed array to count partners in, the shared
 * partner counts of each slice searched (the n-th slice a thread takes in a
 * call uses the n-th), the `lower` counts and row cursors of one slice at a time.
 */
const kept: {
  counting: Int32Array;
  tcounts: Int32Array<ArrayBufferLike>[];
  lower: Uint32Array;
  cursor: Uint32Array;
} = {
  counting: new Int32Array(0),
  tcounts: [],
  lower: new Uint32Array(0),
  cursor: new Uint32Array(0),
};

function open(data: ArrayBuffer | SharedArrayBuffer, d: 2 | 3): Grid2D | Grid3D {
  return d === 2 ? Grid2D.fromData(data) : Grid3D.fromData(data);
}

/** Runs one task; throws what the kernel throws (having broken its barrier, so no other thread waits for ever). */
export function runTask(task: Task): Done {
  if (task.kernels !== undefined) {
    if (task.kernels.module !== undefined) useKernelModule(task.kernels.module as WebAssembly.Module);
    setKernelMode(task.kernels.mode);
  }
  switch (task.op) {
    case 'pairs':
      return { result: pinned(task.data, () => searchPairs(task)), transfer: [] };
    case 'place': {
      const { order, buffer, slices } = collected!;
      collected = undefined;
      for (const slice of slices) {
        const found = buffer.subarray(slice.start, slice.end);
        writePairs(order, found, found.length, task.target, task.at[slice.part]);
      }
      return { result: null, transfer: [] };
    }
    case 'rows':
      return { result: pinned(task.data, () => searchRows(task)), transfer: [] };
    case 'copyPairs':
      return pinned(task.data, () => copyPairs(task));
    case 'copyRows':
      return pinned(task.data, () => copyRows(task));
    case 'build':
    case 'fill':
      try {
        return { result: task.op === 'build' ? build(task) : fill(task), transfer: [] };
      } catch (error) {
        breakBarrier(task.sync);
        throw error;
      }
    default:
      throw new Error(`PointGridWorkers: unknown task ${JSON.stringify((task as { op?: unknown }).op)}`);
  }
}

/**
 * Runs a task's searches of the grid in `data` with the kernels keeping one
 * copy of it for all its slices (no thread rebuilds it while they run).
 */
function pinned<T>(data: ArrayBuffer | SharedArrayBuffer, search: () => T): T {
  pinGrid(data);
  try {
    return search();
  } finally {
    unpinGrid();
  }
}

/** What a `pairs` task leaves for the `place` task of the same call: its slices' pairs, as sorted positions. */
let collected:
  | { order: Uint32Array; buffer: Uint32Array; slices: { part: number; start: number; end: number }[] }
  | undefined;

/**
 * pairs(), first step: the search of slices taken one at a time from the
 * shared counter `next` (as in searchRows), their pairs kept here one after
 * another (in a buffer kept from call to call) until the calling thread has
 * made room for every slice's; returns each slice's count of numbers (two per
 * pair). Once the buffer reaches its ceiling, the slices are only counted.
 */
function searchPairs(task: PairsTask): SliceLength[] {
  const grid = open(task.data, task.d);
  const slices: { part: number; start: number; end: number }[] = [];
  const found: SliceLength[] = [];
  let buffer: Uint32Array = sink.buffer;
  let counting = false;
  for (let part = nextPart(task); part !== undefined; part = nextPart(task)) {
    const slice = counting ? undefined : searchSlice(grid, part, task, COLLECT, slices.length > 0);
    if (slice === undefined) {
      counting = true;
      found.push({ part, length: 2 * countSlice(grid, part, task), counted: true });
      continue;
    }
    buffer = slice.buffer;
    slices.push({ part, start: slice.start, end: slice.end });
    found.push({ part, length: slice.end - slice.start });
  }
  collected = counting ? undefined : { order: grid.sortedIndex, buffer, slices };
  return found;
}

/** One slice a thread searched: its index, where its results lie in `buffer`, and its points' sorted positions. */
interface Searched {
  part: number;
  start: number;
  end: number;
  buffer: Uint32Array;
  rowEnd: Uint32Array;
  from: number;
  to: number;
}

/** Takes the next slice from the shared counter; undefined once no slice is left. */
function nextPart(task: SliceSearch): number | undefined {
  const part = Atomics.add(task.next, 0, 1);
  return part < task.parts ? part : undefined;
}

/**
 * Searches slice `part` of the task's `parts` in `mode` (COLLECT or ROWS),
 * its results after the thread's earlier slices of this call when `append`;
 * undefined when the buffer reached its ceiling (see {@link Ceiling}), the
 * slice's pairs then incomplete.
 */
function searchSlice(
  grid: Grid2D | Grid3D,
  part: number,
  task: SliceSearch | CopySearch,
  mode: number,
  append: boolean,
): Searched | undefined {
  sink.start(mode, grid.sortedIndex, 'PointGridWorkers', true, append);
  if (!append) ceiling = sink.ceilingFor(task.room, task.limit);
  sink.ceiling = ceiling;
  const start = sink.length;
  let buffer: Uint32Array;
  let rowEnd: Uint32Array;
  try {
    sink.slice(grid, part, task.parts);
    if (grid instanceof Grid2D) forEachPair2D(grid, sink, task.radius);
    else forEachPair3D(grid, sink, task.radius);
    buffer = sink.buffer;
    rowEnd = sink.rowEnd;
  } catch (error) {
    if (isOutgrown(error)) return undefined;
    throw error;
  } finally {
    sink.finish();
  }
  return { part, start, end: sink.length, buffer, rowEnd, from: sink.pointFrom, to: sink.pointTo };
}

/** The pairs of slice `part` of the task's `parts`, counted (batch memory only), for a thread past its ceiling. */
function countSlice(grid: Grid2D | Grid3D, part: number, task: SliceSearch | CopySearch): number {
  return grid instanceof Grid2D
    ? sink.countSlice('PointGridWorkers', grid, task.radius, forEachPair2D, part, task.parts)
    : sink.countSlice('PointGridWorkers', grid, task.radius, forEachPair3D, part, task.parts);
}

/**
 * pairs() in copy mode: searches its slices of its own copy of the grid and
 * sends their pairs back as original indices, in one array of their own
 * (transferred: the search's buffer stays for the next call).
 */
function copyPairs(task: CopyPairsTask): Done {
  const grid = open(task.data, task.d);
  const lengths: number[] = [];
  let buffer: Uint32Array = sink.buffer;
  let length = 0;
  for (let j = 0; j < task.slices.length; j++) {
    const slice = searchSlice(grid, task.slices[j], task, COLLECT, j > 0);
    if (slice === undefined)
      return counted(
        grid,
        task,
        lengths.map((numbers) => numbers / 2),
      );
    buffer = slice.buffer;
    length = slice.end;
    lengths.push(slice.end - slice.start);
  }
  const pairs = new Uint32Array(length);
  writePairs(grid.sortedIndex, buffer, length, pairs, 0);
  const result: CopiedPairs = { lengths, pairs };
  return { result, transfer: [pairs.buffer as ArrayBuffer] };
}

/**
 * neighbors() in copy mode: the ROWS search of its slices of its own copy of
 * the grid, sent back as partner runs (see {@link CopiedRows}); the calling
 * thread fills the rows from every slice's runs.
 */
function copyRows(task: CopyRowsTask): Done {
  const grid = open(task.data, task.d);
  const found: Searched[] = [];
  for (let j = 0; j < task.slices.length; j++) {
    const slice = searchSlice(grid, task.slices[j], task, ROWS, j > 0);
    if (slice === undefined)
      return counted(
        grid,
        task,
        found.map((f) => f.end - f.start),
      );
    found.push(slice);
  }
  let points = 0;
  for (const slice of found) points += slice.to - slice.from;
  const rowEnds = new Uint32Array(points);
  let at = 0;
  for (const slice of found) {
    rowEnds.set(slice.rowEnd.subarray(slice.from, slice.to), at);
    at += slice.to - slice.from;
  }
  const last = found[found.length - 1];
  const partners = last === undefined ? new Uint32Array(0) : last.buffer.slice(0, last.end);
  const result: CopiedRows = {
    from: found.map((slice) => slice.from),
    to: found.map((slice) => slice.to),
    start: found.map((slice) => slice.start),
    end: found.map((slice) => slice.end),
    rowEnds,
    partners,
  };
  return { result, transfer: [rowEnds.buffer as ArrayBuffer, partners.buffer as ArrayBuffer] };
}

/**
 * A copy-mode search whose buffer reached its ceiling: the pairs of the
 * slices searched in full (`searched`, in slice order), then the rest counted.
 */
function counted(grid: Grid2D | Grid3D, task: CopySearch, searched: number[]): Done {
  const counts = task.slices.map((part, j) => (j < searched.length ? searched[j] : countSlice(grid, part, task)));
  const result: CountedSlices = { counts };
  return { result, transfer: [] };
}

/**
 * neighbors(), first step: the half-stencil search of slices taken one at a
 * time from the shared counter `next` until none is left, so a thread slowed
 * down by anything else on its core takes fewer of them. Each slice's partner
 * runs are kept here, after the last slice's, with how often each sorted
 * position appears as a partner (from the slice's first point on), shared so
 * the other threads can place their entries after this slice's.
 */
function searchRows(task: RowsTask): SliceFound[] {
  const grid = open(task.data, task.d);
  const slices: SliceRows[] = [];
  const found: SliceFound[] = [];
  let partners: Uint32Array = sink.buffer;
  let rowEnd: Uint32Array = sink.rowEnd;
  let counting = false;
  for (let part = nextPart(task); part !== undefined; part = nextPart(task)) {
    const slice = counting ? undefined : searchSlice(grid, part, task, ROWS, slices.length > 0);
    if (slice === undefined) {
      // Past the ceiling: only counts from here on (see Ceiling).
      counting = true;
      found.push({ part, lo: 0, tcount: new Int32Array(0), pairs: countSlice(grid, part, task), counted: true });
      continue;
    }
    partners = slice.buffer;
    rowEnd = slice.rowEnd;
    const { start, end, from } = slice;
    const tcount = countPartners(partners, start, end, from, grid.points, slices.length);
    slices.push({ part, from, to: slice.to, start, tcount });
    found.push({ part, lo: from, tcount, pairs: end - start });
  }
  rows = counting ? undefined : { order: grid.sortedIndex, partners, rowEnd, slices };
  return found;
}

/**
 * How often each sorted position appears in `partners[start..end)`, counted
 * from `from` on (partners lie after a slice's first point), in one pass that
 * also finds the last partner; then copied, as far as the last partner, into
 * the `nth` kept shared counts (the other threads read them).
 */
function countPartners(
  partners: Uint32Array,
  start: number,
  end: number,
  from: number,
  points: number,
  nth: number,
): Int32Array {
  if (kept.counting.length < points - from) kept.counting = new Int32Array(points);
  const counting = kept.counting;
  let last = from - 1;
  for (let k = start; k < end; k++) {
    const t = partners[k];
    counting[t - from]++;
    if (t > last) last = t;
  }
  const span = last + 1 - from;
  if (nth === kept.tcounts.length || kept.tcounts[nth].length < span) {
    kept.tcounts[nth] = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, span + (span >>> 3))));
  }
  const tcount = kept.tcounts[nth].subarray(0, span);
  tcount.set(counting.subarray(0, span));
  // Zero again where this slice counted, for the next.
  counting.fill(0, 0, span);
  return tcount;
}

/**
 * Row lengths of one searched slice's points (its own partner runs plus how
 * often earlier points of every slice up to this one found each), written
 * into `offsets[i + 1]` for each point's original index i.
 */
function countRows(
  state: RowsState,
  slice: SliceRows,
  tcounts: Int32Array[],
  los: number[],
  offsets: Uint32Array,
): void {
  const { order, rowEnd } = state;
  const { from, to } = slice;
  if (kept.lower.length < to - from) kept.lower = new Uint32Array(to - from + ((to - from) >>> 3));
  const lower = kept.lower;
  lower.fill(0, 0, to - from);
  for (let j = 0; j <= slice.part; j++) {
    const counts = tcounts[j];
    const lo = los[j];
    const begin = Math.max(from, lo);
    const end = Math.min(to, lo + counts.length);
    for (let s = begin; s < end; s++) lower[s - from] += counts[s - lo];
  }
  for (let s = from, previous = slice.start; s < to; s++) {
    const end = rowEnd[s];
    offsets[order[s] + 1] = end - previous + lower[s - from];
    previous = end;
  }
}

/**
 * Last step, once `offsets` holds the row starts: writes each pair of one
 * searched slice into both rows, with the one-thread fillRows
 * (pair-sink.ts). Row t holds the points of earlier slices first, then this
 * slice's in ascending sorted position, then t's own run: so the slice's
 * cursor into a row starts after the counts of the slices before it.
 */
function fillSlice(
  state: RowsState,
  slice: SliceRows,
  tcounts: Int32Array[],
  los: number[],
  offsets: Uint32Array,
  indices: Uint32Array,
): void {
  const { order, partners, rowEnd } = state;
  const { from, to } = slice;
  // Rows of this slice's points and of the later points they found.
  const length = Math.max(to - from, slice.tcount.length);
  if (kept.cursor.length < length) kept.cursor = new Uint32Array(length + (length >>> 3));
  const cursor = kept.cursor;
  // Row starts first, in a loop of their own: the reads of offsets are scattered, and here they overlap.
  for (let t = from; t < from + length; t++) cursor[t - from] = offsets[order[t]];
  for (let j = 0; j < slice.part; j++) {
    const counts = tcounts[j];
    const lo = los[j];
    const begin = Math.max(from, lo);
    const end = Math.min(from + length, lo + counts.length);
    for (let t = begin; t < end; t++) cursor[t - from] += counts[t - lo];
  }
  fillRows(from, to, order, partners, slice.start, rowEnd, cursor, indices);
}

/**
 * Bounds of points from..to-1 into this thread's numbers of `bounds`, or the
 * first non-finite coordinate: by the one-thread build's own loop (bounds2 /
 * bounds3), which throws at a bad point; only then is the slice walked again
 * to name it.
 */
function boundSlice(
  positions: Positions,
  d: 2 | 3,
  stride: number,
  offset: number,
  from: number,
  to: number,
  bounds: Float64Array,
  part: number,
): void {
  const out = bounds.subarray(part * BOUNDS_STRIDE, (part + 1) * BOUNDS_STRIDE);
  out.fill(Number.POSITIVE_INFINITY, 0, 3);
  out.fill(Number.NEGATIVE_INFINITY, 3, 6);
  out[6] = -1;
  if (to <= from) return;
  try {
    // bounds2 / bounds3 write min then max per axis: place them at 0 and 3.
    const found = new Float64Array(2 * d);
    (d === 2 ? bounds2 : bounds3)(positions, to - from, stride, offset + from * stride, found);
    for (let a = 0; a < d; a++) {
      out[a] = found[a];
      out[3 + a] = found[d + a];
    }
  } catch {
    const bad = firstBad(positions, d, stride, offset, from, to);
    if (bad !== null) out.set(bad, 6);
  }
}

/** [point index, axis, value] of the first non-finite coordinate of points from..to-1. */
function firstBad(
  positions: Positions,
  d: number,
  stride: number,
  offset: number,
  from: number,
  to: number,
): [number, number, number] | null {
  for (let i = from, p = offset + from * stride; i < to; i++, p += stride) {
    for (let a = 0; a < d; a++) {
      const v = positions[p + a];
      if (v - v !== 0) return [i, a, v];
    }
  }
  return null;
}

/** The RangeError a one-thread build throws for this bad coordinate. */
export function badPointError(bad: [number, number, number]): RangeError {
  return pointError('positions', bad[0], 'xyz'[bad[1]], bad[2]);
}

type BuildTask = Extract<Task, { op: 'build' }>;

/**
 * One thread's part of a dense build, the one-thread build's loops
 * (build-loops.ts) over a slice, with a barrier after each step:
 * 1. histogram: the cell of each point of its slice of points, counted into its own histogram;
 * 2. cellTotals: the points of its range of cells, over every histogram;
 * 3. offsets: its cells' starts, and in each histogram where that thread's points of the cell end
 *    (after the earlier threads', so each cell lists its points in ascending index);
 * 4. scatter: its points to their places, from the last (so each thread's run of a cell ascends too);
 * 5. sortCells: its range of cells, balanced by points, by x.
 */
function build(task: BuildTask): StepTimes & { stopped: boolean } {
  const steps = new Steps(task);
  const { positions, d, stride, offset, points: n, width, scratch, part, parts } = task;
  const from = share(n, part, parts);
  const count = share(n, part + 1, parts) - from;
  let layout = task.layout;
  if (layout === undefined) {
    boundSlice(positions, d, stride, offset, from, from + count, task.bounds, part);
    steps.barrier();
    layout = layoutOf(task.bounds, parts, d, n, width);
    if (firstBadOf(task.bounds, parts) !== null || layout.boxCells > task.maxCells) {
      // Nothing written yet: the calling thread reports the bad point, or sizes the grid and sends the rest.
      return { ...steps.end(), stopped: true };
    }
  }
  const { origin, cells, boxCells } = layout;
  const grid = readGrid('PointGridWorkers', task.data, d);
  const { cellStart, coords, sortedIndex } = grid;
  const hists = task.hists.map((h) => h.subarray(0, boxCells));
  const at = offset + from * stride;
  const cellOf = scratch.subarray(from, from + count);
  const hist = hists[part];
  hist.fill(0);
  if (d === 2) {
    countDense2(positions, count, stride, at, origin[0], origin[1], width, cells[0], cellOf, hist);
  } else {
    countDense3(
      positions,
      count,
      stride,
      at,
      origin[0],
      origin[1],
      origin[2],
      width,
      cells[0],
      cells[0] * cells[1],
      cellOf,
      hist,
    );
  }
  steps.barrier();

  const firstCell = share(boxCells, part, parts);
  const endCell = share(boxCells, part + 1, parts);
  let total = 0;
  for (const h of hists) for (let c = firstCell; c < endCell; c++) total += h[c];
  task.totals[part] = total;
  steps.barrier();

  let sum = before(task);
  for (let c = firstCell; c < endCell; c++) {
    cellStart[c] = sum;
    for (const h of hists) {
      sum += h[c];
      h[c] = sum;
    }
  }
  if (part === parts - 1) cellStart[boxCells] = n;
  steps.barrier();

  (d === 2 ? scatter2 : scatter3)(positions, count, stride, at, cellOf, hist, coords, sortedIndex, from);
  steps.barrier();

  // Sorting a cell costs about its points: the ranges are balanced by points (cellStart[boxCells] is n).
  const sortFrom = partCell(cellStart, boxCells, n, part, parts);
  const sortTo = partCell(cellStart, boxCells, n, part + 1, parts);
  (d === 2 ? sortSmallCells2 : sortSmallCells3)(coords, sortedIndex, cellStart, sortFrom, sortTo);
  sortCellsByX(coords, sortedIndex, cellStart.subarray(sortFrom), sortTo - sortFrom, d);
  return { ...steps.end(), stopped: false };
}

type FillTask = Extract<Task, { op: 'fill' }>;

/**
 * neighbors() after the search, one thread's part, with a barrier after each step:
 * 1. count: the row length of each of its points (see countRows), and its share of first touches;
 * 2. prefix sums: over its range of `offsets`, its range's total into `totals`;
 * 3. row starts: the totals of the ranges before it added to its range;
 * 4. fill: its pairs into both rows (see fillSlice).
 */
function fill(task: FillTask): StepTimes {
  const steps = new Steps(task);
  const { offsets, part, parts, tcounts, los } = task;
  const state = rows!;
  rows = undefined;
  for (const slice of state.slices) countRows(state, slice, tcounts, los, offsets);
  // Zeros over zeros: only the first touch of fresh shared memory (page faults) matters, split across threads.
  task.touch?.array.fill(0, task.touch.from, task.touch.to);
  steps.barrier();

  // offsets[0] is 0; entries 1..n are split into even ranges.
  const n = task.points;
  const first = 1 + share(n, part, parts);
  const end = 1 + share(n, part + 1, parts);
  let sum = 0;
  for (let i = first; i < end; i++) {
    sum += offsets[i];
    offsets[i] = sum;
  }
  task.totals[part] = sum;
  steps.barrier();

  const base = before(task);
  if (base !== 0) for (let i = first; i < end; i++) offsets[i] += base;
  steps.barrier();

  for (const slice of state.slices) fillSlice(state, slice, tcounts, los, offsets, task.indices);
  return steps.end();
}
