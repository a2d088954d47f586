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
} from '../pointgrid/build-steps.js';
import { readGrid } from '../pointgrid/grid-data.js';
import { Grid2D } from '../pointgrid/grid2d.js';
import { Grid3D } from '../pointgrid/grid3d.js';
import { partCell } from '../pointgrid/options.js';
import { COLLECT, fillRows, PairSink, ROWS, writePairs } from '../pointgrid/pair-sink.js';
import { forEachPair2D } from '../pointgrid/pairs2d.js';
import { forEachPair3D } from '../pointgrid/pairs3d.js';
import { sortCellsByX } from '../pointgrid/sort-cells.js';
import { arriveAndWait, breakBarrier } from './barrier.js';

// The package compiles against ES2022 alone (no DOM or Node types): declared for this module.
declare const performance: { now(): number; timeOrigin: number };

/** Milliseconds since the epoch, at sub-millisecond resolution: comparable between threads, unlike now(). */
export function clock(): number {
  return performance.timeOrigin + performance.now();
}

/** A numeric typed array (positions): shared when it comes from the pool. */
export type Positions = Float32Array | Float64Array;

/** Which slice of a pair search a worker runs. */
interface SearchTask {
  data: SharedArrayBuffer;
  d: 2 | 3;
  radius: number;
  part: number;
  parts: number;
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

/** The tasks a worker runs, by `op`. */
export type Task =
  | ({ op: 'pairs' } & SearchTask)
  /** After `pairs`: the slice's pairs, as original indices, into the shared result from `at` on. */
  | { op: 'place'; target: Uint32Array; at: number }
  | ({ op: 'rows' } & SearchTask)
  | ({
      op: 'fill';
      points: number;
      tcounts: Int32Array[];
      los: number[];
      offsets: Uint32Array;
      indices: Uint32Array;
      /** Fresh result memory to first-touch while counting: this thread's share of it. */
      touch?: { array: Uint32Array; from: number; to: number };
    } & Together)
  | { op: 'bounds'; positions: Positions; d: 2 | 3; stride: number; offset: number; from: number; to: number }
  | ({
      op: 'build';
      positions: Positions;
      data: SharedArrayBuffer;
      d: 2 | 3;
      stride: number;
      offset: number;
      points: number;
      origin: number[];
      cells: number[];
      width: number;
      /** Cell of each point, written by its thread's histogram step. */
      scratch: Uint32Array;
      /** Every thread's histogram, cells long. */
      hists: Int32Array[];
    } & Together);

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

/** What `bounds` finds: per-axis minimum and maximum, and the first non-finite coordinate if any. */
export interface Bounds {
  min: number[];
  max: number[];
  /** [point index, axis, value] of the first non-finite coordinate of the slice. */
  bad: [number, number, number] | null;
}

/** A finished task: its result, the buffers to transfer with it, and the time it took in ms. */
export interface Done {
  result: unknown;
  transfer: ArrayBuffer[];
}

/** One sink per thread, so its first-guess sizes and (ROWS) buffers carry over from search to search. */
const sink = new PairSink();
sink.retain = true;

/** What a `rows` task leaves behind for the `count` and `fill` tasks of the same neighbors() call. */
interface RowsState {
  order: Uint32Array;
  partners: Uint32Array;
  rowEnd: Uint32Array;
  from: number;
  to: number;
  /** Partners of each point of the slice found by earlier points (any slice): filled by `count`. */
  lower: Uint32Array;
  /** This slice's partner counts per sorted position from `from` on (what `rows` returned). */
  tcount: Int32Array;
}
let rows: RowsState | undefined;
/** Scratch of the neighbors() steps, kept from call to call so that no call faults in fresh memory. */
const kept: { tcount: Int32Array<ArrayBufferLike>; tcountUsed: number; lower: Uint32Array; cursor: Uint32Array } = {
  tcount: new Int32Array(0),
  tcountUsed: 0,
  lower: new Uint32Array(0),
  cursor: new Uint32Array(0),
};

function open(data: SharedArrayBuffer, d: 2 | 3): Grid2D | Grid3D {
  return d === 2 ? Grid2D.fromData(data) : Grid3D.fromData(data);
}

/** Runs one task; throws what the kernel throws (having broken its barrier, so no other thread waits for ever). */
export function runTask(task: Task): Done {
  switch (task.op) {
    case 'pairs':
      return { result: searchPairs(task), transfer: [] };
    case 'place': {
      const found = collected!;
      collected = undefined;
      writePairs(found.order, found.buffer, found.length, task.target, task.at);
      return { result: null, transfer: [] };
    }
    case 'rows':
      return { result: searchRows(task), transfer: [] };
    case 'bounds':
      return { result: bounds(task.positions, task.d, task.stride, task.offset, task.from, task.to), transfer: [] };
    case 'build':
    case 'fill':
      try {
        return { result: task.op === 'build' ? build(task) : fill(task), transfer: [] };
      } catch (error) {
        breakBarrier(task.sync);
        throw error;
      }
  }
}

/** What a `pairs` task leaves for the `place` task of the same call: the slice's pairs, as sorted positions. */
let collected: { order: Uint32Array; buffer: Uint32Array; length: number } | undefined;

/**
 * One slice of pairs(), first step: the search, its pairs kept here (in a
 * buffer kept from call to call) until the calling thread has made room for
 * every slice's; returns how many numbers (two per pair) it found.
 */
function searchPairs(task: SearchTask): number {
  const grid = open(task.data, task.d);
  sink.start(COLLECT, grid.sortedIndex, 'PointGridWorkers', true);
  try {
    sink.slice(grid, task.part, task.parts);
    if (grid instanceof Grid2D) forEachPair2D(grid, sink, task.radius);
    else forEachPair3D(grid, sink, task.radius);
    collected = { order: grid.sortedIndex, buffer: sink.buffer, length: sink.length };
  } finally {
    sink.finish();
  }
  return collected.length;
}

/**
 * One slice of neighbors(), first step: the half-stencil search of the
 * slice's points, kept here as partner runs, and how often each sorted
 * position appears as a partner (from the slice's first point on), shared
 * so the other threads can place their entries after this slice's.
 */
function searchRows(task: SearchTask): { lo: number; tcount: Int32Array; pairs: number } {
  const grid = open(task.data, task.d);
  sink.start(ROWS, grid.sortedIndex, 'PointGridWorkers');
  let partners: Uint32Array;
  let length: number;
  let rowEnd: Uint32Array;
  try {
    sink.slice(grid, task.part, task.parts);
    if (grid instanceof Grid2D) forEachPair2D(grid, sink, task.radius);
    else forEachPair3D(grid, sink, task.radius);
    partners = sink.buffer;
    length = sink.length;
    rowEnd = sink.rowEnd;
  } finally {
    sink.finish();
  }
  const from = sink.pointFrom;
  const to = sink.pointTo;
  // Partners lie after the slice's first point: room for all of them, kept from call to call
  // (the main thread reads the counts only during this call). One pass counts them and finds the last.
  const room = grid.points - from;
  if (kept.tcount.length < room) {
    kept.tcount = new Int32Array(new SharedArrayBuffer(4 * (room + (room >>> 3))));
    kept.tcountUsed = 0;
  }
  const counts = kept.tcount;
  counts.fill(0, 0, kept.tcountUsed);
  let last = from - 1;
  for (let k = 0; k < length; k++) {
    const t = partners[k];
    counts[t - from]++;
    if (t > last) last = t;
  }
  const span = last + 1 - from;
  kept.tcountUsed = span;
  const tcount = counts.subarray(0, span);
  if (kept.lower.length < to - from) kept.lower = new Uint32Array(to - from + ((to - from) >>> 3));
  rows = { order: grid.sortedIndex, partners, rowEnd, from, to, lower: kept.lower.subarray(0, to - from), tcount };
  return { lo: from, tcount, pairs: length };
}

/**
 * Second step: the row length of each point of this slice (its own partner
 * run plus how often earlier points of every slice up to this one found it),
 * written into `offsets[i + 1]` for its original index i.
 */
function countRows(tcounts: Int32Array[], los: number[], offsets: Uint32Array, part: number): void {
  const state = rows!;
  const { order, rowEnd, from, to, lower } = state;
  lower.fill(0);
  for (let j = 0; j <= part; j++) {
    const counts = tcounts[j];
    const lo = los[j];
    const start = Math.max(from, lo);
    const end = Math.min(to, lo + counts.length);
    for (let s = start; s < end; s++) lower[s - from] += counts[s - lo];
  }
  for (let s = from, previous = 0; s < to; s++) {
    const end = rowEnd[s];
    offsets[order[s] + 1] = end - previous + lower[s - from];
    previous = end;
  }
}

/**
 * Last step, once `offsets` holds the row starts: writes each pair of this
 * slice into both rows, with the one-thread fillRows (pair-sink.ts). Row t
 * holds the points of earlier slices first, then this slice's in ascending
 * sorted position, then t's own run: so each slice's cursor into a row
 * starts after the counts of the slices before it.
 */
function fillSlice(
  tcounts: Int32Array[],
  los: number[],
  offsets: Uint32Array,
  indices: Uint32Array,
  part: number,
): void {
  const state = rows!;
  rows = undefined;
  const { order, partners, rowEnd, from, to, tcount } = state;
  // Rows of this slice's points and of the later points they found.
  const length = Math.max(to - from, tcount.length);
  if (kept.cursor.length < length) kept.cursor = new Uint32Array(length + (length >>> 3));
  const cursor = kept.cursor;
  // Row starts first, in a loop of their own: the reads of offsets are scattered, and here they overlap.
  for (let t = from; t < from + length; t++) cursor[t - from] = offsets[order[t]];
  for (let j = 0; j < part; j++) {
    const counts = tcounts[j];
    const lo = los[j];
    const start = Math.max(from, lo);
    const end = Math.min(from + length, lo + counts.length);
    for (let t = start; t < end; t++) cursor[t - from] += counts[t - lo];
  }
  fillRows(from, to, order, partners, rowEnd, cursor, indices);
}

/**
 * Bounds of points from..to-1, or the first non-finite coordinate: by the
 * one-thread build's own loop (bounds2 / bounds3), which throws at a bad
 * point; only then is the slice walked again to name it.
 */
function bounds(positions: Positions, d: 2 | 3, stride: number, offset: number, from: number, to: number): Bounds {
  const out = new Float64Array(2 * d);
  out.fill(Number.POSITIVE_INFINITY, 0, d);
  out.fill(Number.NEGATIVE_INFINITY, d);
  try {
    if (to > from) (d === 2 ? bounds2 : bounds3)(positions, to - from, stride, offset + from * stride, out);
  } catch {
    return { min: [], max: [], bad: firstBad(positions, d, stride, offset, from, to) };
  }
  return { min: Array.from(out.subarray(0, d)), max: Array.from(out.subarray(d)), bad: null };
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
 * (build-steps.ts) over a slice, with a barrier after each step:
 * 1. histogram: the cell of each point of its slice of points, counted into its own histogram;
 * 2. cellTotals: the points of its range of cells, over every histogram;
 * 3. offsets: its cells' starts, and in each histogram where that thread's points of the cell end
 *    (after the earlier threads', so each cell lists its points in ascending index);
 * 4. scatter: its points to their places, from the last (so each thread's run of a cell ascends too);
 * 5. sortCells: its range of cells, balanced by points, by x.
 */
function build(task: BuildTask): StepTimes {
  const steps = new Steps(task);
  const { positions, d, stride, offset, points: n, origin, cells, width, scratch, hists, part, parts } = task;
  const grid = readGrid('PointGridWorkers', task.data, d);
  const { cellStart, coords, sortedIndex } = grid;
  const boxCells = d === 2 ? cells[0] * cells[1] : cells[0] * cells[1] * cells[2];
  const from = share(n, part, parts);
  const count = share(n, part + 1, parts) - from;
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
  steps.barrier();

  (d === 2 ? scatter2 : scatter3)(positions, count, stride, at, cellOf, hist, coords, sortedIndex, from);
  steps.barrier();

  // Sorting a cell costs about its points: the ranges are balanced by points (cellStart[boxCells] is n).
  const sortFrom = partCell(cellStart, boxCells, n, part, parts);
  const sortTo = partCell(cellStart, boxCells, n, part + 1, parts);
  (d === 2 ? sortSmallCells2 : sortSmallCells3)(coords, sortedIndex, cellStart, sortFrom, sortTo);
  sortCellsByX(coords, sortedIndex, cellStart.subarray(sortFrom), sortTo - sortFrom, d);
  return steps.end();
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
  const { offsets, part, parts } = task;
  countRows(task.tcounts, task.los, offsets, part);
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

  fillSlice(task.tcounts, task.los, offsets, task.indices, part);
  return steps.end();
}
