/**
 * What one PointGridWorkers thread does: the kernels of the parallel rebuild
 * and pair searches, each over its own slice of a grid that lives in
 * SharedArrayBuffers. Plain functions of the task message, so the worker
 * entry (worker.ts) only forwards messages here.
 *
 * Every kernel writes only what its slice owns (its points, its cells, its
 * rows' entries), at places computed from the other slices' counts, so no
 * atomics are needed and the result is the same whatever the thread count.
 *
 * @module
 */
import { pointError } from '../core/validate.js';
import { readGrid } from '../pointgrid/grid-data.js';
import { Grid2D } from '../pointgrid/grid2d.js';
import { Grid3D } from '../pointgrid/grid3d.js';
import { fillRows, PairSink, ROWS } from '../pointgrid/pair-sink.js';
import { forEachPair2D } from '../pointgrid/pairs2d.js';
import { forEachPair3D } from '../pointgrid/pairs3d.js';
import { sortCellRange } from '../pointgrid/sort-cells.js';

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

/** The tasks a worker runs, by `op`. */
export type Task =
  | ({ op: 'pairs' } & SearchTask)
  | ({ op: 'rows' } & SearchTask)
  | {
      op: 'count';
      tcounts: Int32Array[];
      los: number[];
      offsets: Uint32Array;
      part: number;
      /** Fresh result memory to first-touch meanwhile: this thread's share of it. */
      touch?: { array: Uint32Array; from: number; to: number };
    }
  | { op: 'fill'; tcounts: Int32Array[]; los: number[]; offsets: Uint32Array; indices: Uint32Array; part: number }
  | { op: 'bounds'; positions: Positions; d: 2 | 3; stride: number; offset: number; from: number; to: number }
  | {
      op: 'histogram';
      positions: Positions;
      d: 2 | 3;
      stride: number;
      offset: number;
      from: number;
      to: number;
      origin: number[];
      cells: number[];
      width: number;
      scratch: Uint32Array;
      hist: Int32Array;
    }
  | { op: 'cellTotals'; hists: Int32Array[]; from: number; to: number }
  | { op: 'offsets'; hists: Int32Array[]; data: SharedArrayBuffer; d: 2 | 3; from: number; to: number; base: number }
  | {
      op: 'scatter';
      positions: Positions;
      data: SharedArrayBuffer;
      d: 2 | 3;
      stride: number;
      offset: number;
      from: number;
      to: number;
      scratch: Uint32Array;
      hist: Int32Array;
    }
  | { op: 'sortCells'; data: SharedArrayBuffer; d: 2 | 3; from: number; to: number };

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
const kept: { tcount: Int32Array<ArrayBufferLike>; lower: Uint32Array; cursor: Uint32Array } = {
  tcount: new Int32Array(0),
  lower: new Uint32Array(0),
  cursor: new Uint32Array(0),
};

function open(data: SharedArrayBuffer, d: 2 | 3): Grid2D | Grid3D {
  return d === 2 ? Grid2D.fromData(data) : Grid3D.fromData(data);
}

/** Runs one task; throws what the kernel throws. */
export function runTask(task: Task): Done {
  switch (task.op) {
    case 'pairs': {
      // A fresh array of exactly the pairs (see PairSink.collected): handed over, not copied.
      const pairs = searchPairs(task);
      return { result: pairs, transfer: pairs.length > 0 ? [pairs.buffer as ArrayBuffer] : [] };
    }
    case 'rows':
      return { result: searchRows(task), transfer: [] };
    case 'count':
      countRows(task.tcounts, task.los, task.offsets, task.part);
      // Zeros over zeros: only the first touch of fresh shared memory (page faults) matters, split across threads.
      task.touch?.array.fill(0, task.touch.from, task.touch.to);
      return { result: null, transfer: [] };
    case 'fill':
      fillSlice(task.tcounts, task.los, task.offsets, task.indices, task.part);
      return { result: null, transfer: [] };
    case 'bounds':
      return { result: bounds(task.positions, task.d, task.stride, task.offset, task.from, task.to), transfer: [] };
    case 'histogram':
      histogram(task);
      return { result: null, transfer: [] };
    case 'cellTotals':
      return { result: cellTotals(task.hists, task.from, task.to), transfer: [] };
    case 'offsets':
      offsets(task.hists, readGrid('PointGridWorkers', task.data, task.d).cellStart, task.from, task.to, task.base);
      return { result: null, transfer: [] };
    case 'scatter':
      scatter(task);
      return { result: null, transfer: [] };
    case 'sortCells': {
      const v = readGrid('PointGridWorkers', task.data, task.d);
      sortCellRange(v.coords, v.sortedIndex, v.cellStart, task.from, task.to, task.d);
      return { result: null, transfer: [] };
    }
  }
}

/** One slice of pairs(): original indices, flat, in the full search's order. */
function searchPairs(task: SearchTask): Uint32Array {
  const grid = open(task.data, task.d);
  const options = { part: task.part, parts: task.parts };
  if (grid instanceof Grid2D) return sink.pairs('PointGridWorkers', grid, task.radius, forEachPair2D, options);
  return sink.pairs('PointGridWorkers', grid, task.radius, forEachPair3D, options);
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
  let last = from - 1;
  for (let k = 0; k < length; k++) if (partners[k] > last) last = partners[k];
  // Kept from call to call (the main thread reads them only during this call), zeroed where used.
  const span = last + 1 - from;
  if (kept.tcount.length < span) kept.tcount = new Int32Array(new SharedArrayBuffer(4 * (span + (span >>> 3))));
  if (kept.lower.length < to - from) kept.lower = new Uint32Array(to - from + ((to - from) >>> 3));
  const tcount = kept.tcount.subarray(0, span);
  tcount.fill(0);
  for (let k = 0; k < length; k++) tcount[partners[k] - from]++;
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

/** Bounds of points from..to-1, stopping at the first non-finite coordinate. */
function bounds(positions: Positions, d: number, stride: number, offset: number, from: number, to: number): Bounds {
  const min = new Array<number>(d).fill(Number.POSITIVE_INFINITY);
  const max = new Array<number>(d).fill(Number.NEGATIVE_INFINITY);
  for (let i = from, p = offset + from * stride; i < to; i++, p += stride) {
    for (let a = 0; a < d; a++) {
      const v = positions[p + a];
      if (v - v !== 0) return { min, max, bad: [i, a, v] };
      if (v < min[a]) min[a] = v;
      if (v > max[a]) max[a] = v;
    }
  }
  return { min, max, bad: null };
}

/** The RangeError a one-thread build throws for this bad coordinate. */
export function badPointError(bad: [number, number, number]): RangeError {
  return pointError('positions', bad[0], 'xyz'[bad[1]], bad[2]);
}

type HistogramTask = Extract<Task, { op: 'histogram' }>;

/** Cell of each point of the slice (as the one-thread build computes it) into `scratch`, counted per cell into `hist`. */
function histogram(task: HistogramTask): void {
  const { positions, stride, offset, from, to, origin, cells, width, scratch, hist } = task;
  hist.fill(0);
  const originX = origin[0];
  const originY = origin[1];
  const cellsX = cells[0];
  if (task.d === 2) {
    for (let i = from, p = offset + from * stride; i < to; i++, p += stride) {
      const c =
        Math.floor((positions[p] - originX) / width) + Math.floor((positions[p + 1] - originY) / width) * cellsX;
      scratch[i] = c;
      hist[c]++;
    }
  } else {
    const originZ = origin[2];
    const layer = cellsX * cells[1];
    for (let i = from, p = offset + from * stride; i < to; i++, p += stride) {
      const c =
        Math.floor((positions[p] - originX) / width) +
        Math.floor((positions[p + 1] - originY) / width) * cellsX +
        Math.floor((positions[p + 2] - originZ) / width) * layer;
      scratch[i] = c;
      hist[c]++;
    }
  }
}

/** Points in cells from..to-1, over every thread's histogram. */
function cellTotals(hists: Int32Array[], from: number, to: number): number {
  let total = 0;
  for (const hist of hists) for (let c = from; c < to; c++) total += hist[c];
  return total;
}

/**
 * Cell starts of cells from..to-1 (the points before them: `base`), and in
 * each thread's histogram where that thread's points of the cell start: after
 * the earlier threads', so each cell lists its points in ascending index.
 */
function offsets(hists: Int32Array[], cellStart: Int32Array, from: number, to: number, base: number): void {
  let sum = base;
  for (let c = from; c < to; c++) {
    cellStart[c] = sum;
    for (const hist of hists) {
      const count = hist[c];
      hist[c] = sum;
      sum += count;
    }
  }
}

type ScatterTask = Extract<Task, { op: 'scatter' }>;

/** Copies the slice's points to their sorted positions, in ascending index within each cell. */
function scatter(task: ScatterTask): void {
  const { positions, d, stride, offset, from, to, scratch, hist } = task;
  const v = readGrid('PointGridWorkers', task.data, d);
  const coords = v.coords;
  const sortedIndex = v.sortedIndex;
  for (let i = from, p = offset + from * stride; i < to; i++, p += stride) {
    const s = hist[scratch[i]]++;
    sortedIndex[s] = i;
    for (let a = 0; a < d; a++) coords[d * s + a] = positions[p + a];
  }
}
