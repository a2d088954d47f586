/**
 * The half-stencil pair search of PointGrid2D / PointGrid3D on the
 * WebAssembly kernels (forEachPair, pairs, neighbors, and a pool thread's
 * slices), giving exactly the pairs the JavaScript search gives
 * (pointgrid/pair-visits.ts), in the same order. Every search starts
 * at {@link startSearch}: the grid copied in unless the kernels hold it (see
 * mirror.ts), the grid and search records written (records.ts), the scratch
 * and output laid out after the mirror; the search then runs in the kernels
 * until it is done or its output is full, and each entry point here empties
 * or grows the output and resumes it.
 *
 * @module
 */
import { isOrdinaryRadius } from '../core/distance.js';
import { stencilReach } from '../core/margins.js';
import { type NeighborLists, reuseArray, roomyArray } from '../core/results.js';
import { guarded, type Kernels, kernels } from './kernels.js';
import { align8, type KernelGrid, type Layout, MIRRORED, writeGridRecord } from './layout.js';
import { copyIn } from './mirror.js';
import * as R from './records.js';

/** Searches write this many pairs' worth of a visitor batch at a time (tests lower it: see batchPairsForTests). */
let BATCH = 1 << 14;

/**
 * Sets the visitor batch size in pairs (default 16384) and returns the last
 * one, so tests can make a small search hand over many batches. Internal.
 */
export function batchPairsForTests(pairs: number): number {
  const last = BATCH;
  BATCH = pairs;
  return last;
}

/** The slice of cells and points a search covers (a PairSink's, see PairSearchOptions). */
export interface KernelSlice {
  cellFrom: number;
  cellTo: number;
  pointFrom: number;
  pointTo: number;
}

/** A search set up in the kernels' memory: where its output and row ends lie. */
interface Search {
  k: Kernels;
  layout: Layout;
  run: () => number;
  out: number;
  rowEnd: number;
}

/**
 * The search set up last, a record reused by every search (a frame loop then
 * allocates none): one runs at a time, since a search on the kernels calls
 * nothing that searches on them (a forEachPair visitor finds them busy).
 * startSearch sets every field before it is read.
 */
const SEARCH: Search = { k: null as unknown as Kernels, layout: MIRRORED, run: () => 0, out: 0, rowEnd: 0 };

/**
 * Sets up the half-stencil search of `g` (see pointgrid/pair-visits.ts) with
 * `step` numbers per pair, mirroring the grid and sizing the scratch; the
 * output region starts with room for `room` numbers. Undefined when the
 * radius is not ordinary (see isOrdinaryRadius), the kernels are off or out
 * of memory: every search on the kernels starts here, so that check is the
 * one that sends extreme radii to the JavaScript path's cold search.
 */
function startSearch(
  g: KernelGrid,
  radius: number,
  slice: KernelSlice,
  step: number,
  room: number,
): Search | undefined {
  // Extreme radii (r * r overflows or is below 2^-896, see core/distance.ts) take the JavaScript path's cold search.
  if (!isOrdinaryRadius(radius)) return undefined;
  const k = kernels();
  if (k === undefined) return undefined;
  const d = g.dimension;
  const extent = d === 2 ? Math.max(g.cellsX, g.cellsY) : Math.max(g.cellsX, g.cellsY, g.cellsZ);
  const reach = stencilReach(radius, g.width, extent);
  const r2 = radius * radius;
  const layout = copyIn(k, g);
  if (layout === undefined) return undefined;
  const n = g.points;
  const cells = g.cellTotal;
  const side = 2 * reach + 1;
  const half = d === 2 ? reach + reach * side : reach + reach * side + reach * side * side;
  const scanAll = !g.dense && half > cells;
  const stencilRows = d === 2 ? reach : reach + reach * side;
  // At most a range per stencil row the grid has (dense), or per stencil row (hashed), as in pointgrid/pairs2d.ts.
  const denseRows =
    d === 2
      ? Math.min(reach, g.cellsY - 1)
      : Math.min(reach, g.cellsY - 1) + Math.min(reach, g.cellsZ - 1) * Math.min(side, g.cellsY);
  const rangeNumbers = 2 * (scanAll ? cells : g.dense ? denseRows : stencilRows);
  const cursorRows = g.dense || scanAll ? 0 : stencilRows;
  const ranges = layout.end;
  const edges = ranges + align8(4 * rangeNumbers);
  const cursors = edges + 8 * (d === 2 ? rangeNumbers : 2 * rangeNumbers);
  const rowEnd = cursors + align8(4 * cursorRows);
  const out = rowEnd + (step === 1 ? align8(4 * n) : 0);
  if (!k.reserve(out + 4 * room)) return undefined;
  const capacity = Math.min((k.memory.buffer.byteLength - out) >> 2, 2 ** 31 - 1);
  if (step === 1) k.u32.fill(0, rowEnd >> 2, (rowEnd >> 2) + n);
  const e = k.exports;
  // (A search sets the kernels' grid state for its own grid, which no query may then trust: see mirror.ts.)
  k.queryGrid = undefined;
  writeGridRecord(k, g, layout);
  const f64 = k.f64;
  const at = R.SEARCH_RECORD >> 3;
  f64[at + R.SEARCH_REACH] = reach;
  f64[at + R.SEARCH_RADIUS2] = r2;
  f64[at + R.SEARCH_SCAN_ALL] = scanAll ? 1 : 0;
  f64[at + R.SEARCH_CELL_FROM] = slice.cellFrom;
  f64[at + R.SEARCH_CELL_TO] = slice.cellTo;
  f64[at + R.SEARCH_RANGES] = ranges;
  f64[at + R.SEARCH_EDGES] = edges;
  f64[at + R.SEARCH_CURSORS] = cursors;
  f64[at + R.SEARCH_CURSOR_ROWS] = cursorRows;
  f64[at + R.SEARCH_OUT] = out;
  f64[at + R.SEARCH_CAPACITY] = capacity;
  f64[at + R.SEARCH_STEP] = step;
  f64[at + R.SEARCH_ROW_END] = rowEnd;
  e.startSearch();
  const float32 = g.coords instanceof Float32Array;
  const run =
    d === 2 ? (float32 ? e.searchPairs2d32 : e.searchPairs2d64) : float32 ? e.searchPairs3d32 : e.searchPairs3d64;
  SEARCH.k = k;
  SEARCH.layout = layout;
  SEARCH.run = run;
  SEARCH.out = out;
  SEARCH.rowEnd = rowEnd;
  return SEARCH;
}

/**
 * Runs a COLLECT or ROWS search to the end, growing its output as needed;
 * returns the numbers written, or -1 when they would be more than `ceiling`
 * or the memory cannot grow that far.
 */
function runToEnd(search: Search, ceiling: number): number {
  const { k, out } = search;
  const e = k.exports;
  while (search.run() !== 0) {
    const length = e.length.value as number;
    // Past the memory the JavaScript search may take before it counts its pairs (PairSink.ceilingFor): leave it
    // to that search, which counts them, then throws or searches again with room for exactly them.
    if (length + (e.needed.value as number) > ceiling) return -1;
    const wanted = out + 4 * (length + Math.max(e.needed.value as number, length));
    if (!k.reserve(wanted)) return -1;
    e.setOutput(out, Math.min((k.memory.buffer.byteLength - out) >> 2, 2 ** 31 - 1), length);
  }
  return e.length.value as number;
}

/**
 * forEachPair's search on the kernels: each batch of pairs found (sorted
 * positions, 2 numbers a pair; with `original`, original indices clamped to
 * the point count, the lower first, as pairs() gives them) is handed to
 * `visit` as `batch.buffer`, a view of the kernels' memory where the search
 * wrote it (`batch.length` numbers); `visit` takes them and empties the batch. The batch's own buffer is put
 * back when the search ends, also when it throws. False when the kernels are
 * off; the caller searches in JavaScript.
 *
 * Why a view and not a copy: nothing runs on the kernels while the visitor
 * does (they are busy: kernels() answers undefined and releaseKernelMemory
 * does nothing), so their memory neither grows nor changes under it, as the
 * search's own state there relies on already. A copy cost as much as the
 * hand-over's own loop: set(subarray()) a view per batch (garbage in every
 * frame, about a hundred batches at 200,000 points), a copying loop 20% of
 * forEachPair at 200,000 2D points (bench/compare-builds.mjs).
 */
export function visitPairs<G extends KernelGrid, B extends { buffer: Uint32Array; length: number }>(
  g: G,
  radius: number,
  slice: KernelSlice,
  batch: B,
  visit: (grid: G, batch: B) => void,
  original = false,
): boolean {
  const search = startSearch(g, radius, slice, 2, 2 * BATCH);
  if (search === undefined) return false;
  const { k, out, layout } = search;
  const e = k.exports;
  const own = batch.buffer;
  // Batches of BATCH pairs (more only for one point with more candidates), not as many as the memory holds, so
  // that a batch visitor is handed an array of that size (forEachPair timed the same either way:
  // bench/compare-builds.mjs, both orders, 2026-12-02).
  let capacity = 2 * BATCH;
  e.setOutput(out, capacity, 0);
  k.busy = true;
  try {
    for (;;) {
      const done = guarded('forEachPair', search.run) === 0;
      const length = e.length.value as number;
      if (length > 0) {
        if (original) e.originalPairs(layout.sortedIndex, out, length, g.points);
        // The output area: one view while the memory and the capacity keep their size (kept by sectionOf, so a
        // frame loop allocates none).
        batch.buffer = k.sectionOf(Uint32Array, out, capacity);
        batch.length = length;
        visit(g, batch);
      }
      if (done) return true;
      const needed = e.needed.value as number;
      if (!k.reserve(out + 4 * needed))
        throw new RangeError(`pair search: ${needed} candidates of one point do not fit in memory`);
      capacity = Math.max(2 * BATCH, needed);
      e.setOutput(out, capacity, 0);
    }
  } finally {
    batch.buffer = own;
    k.busy = false;
  }
}

/**
 * What {@link searchIntoSink} needs of a PairSink (pointgrid/pair-sink.ts):
 * its slice, its output and how it grows.
 */
export interface KernelSink extends KernelSlice {
  /** Numbers written per pair: 2 (COLLECT: both sorted positions) or 1 (ROWS: the partner, runs ended by rowEnd). */
  step: number;
  buffer: Uint32Array;
  length: number;
  rowEnd: Uint32Array;
  /** Numbers the buffer may hold before reserve throws (see PairSink.ceilingFor). */
  ceiling: number;
  /** Grows the buffer to `needed` numbers, keeping the first `length`; throws past the ceiling. */
  reserve(needed: number, length: number, done: number): Uint32Array;
}

/**
 * A COLLECT or ROWS search of `g` (PairSink's modes) on the kernels,
 * appended to the sink as the JavaScript search appends it: its pairs or
 * partner runs after `sink.length`, in the same order, and for a ROWS search
 * each searched point's run end in `sink.rowEnd`. What a pool thread's
 * slices run, and a pairs() or neighbors() call past the memory the kernels
 * take at once (see PairSink.bounded). A search that would outgrow the
 * sink's ceiling throws what `sink.reserve` throws there, having written
 * nothing. False when the kernels are off or out of memory (nothing written:
 * the caller searches in JavaScript).
 */
export function searchIntoSink(g: KernelGrid, radius: number, sink: KernelSink): boolean {
  const step = sink.step;
  const base = sink.length;
  const search = startSearch(g, radius, sink, step, Math.min(Math.max(sink.buffer.length - base, 2 * BATCH), 1 << 24));
  if (search === undefined) return false;
  const { k, out, rowEnd } = search;
  const e = k.exports;
  const complete = guarded('a pair search', () => {
    while (search.run() !== 0) {
      const length = e.length.value as number;
      const needed = e.needed.value as number;
      // Past the ceiling the sink throws (the JavaScript search would throw the same when it got there).
      if (base + length + needed > sink.ceiling) sink.reserve(base + length + needed, base, 0);
      if (!k.reserve(out + 4 * (length + Math.max(needed, length)))) return false;
      e.setOutput(out, Math.min((k.memory.buffer.byteLength - out) >> 2, 2 ** 31 - 1), length);
    }
    return true;
  });
  if (!complete) return false;
  const length = e.length.value as number;
  if (base + length > sink.buffer.length) sink.reserve(base + length, base, 1);
  sink.buffer.set(k.u32.subarray(out >> 2, (out >> 2) + length), base);
  sink.length = base + length;
  if (step === 1) {
    const ends = k.u32;
    const target = sink.rowEnd;
    for (let s = sink.pointFrom, at = (rowEnd >> 2) + s; s < sink.pointTo; s++, at++) target[s] = base + ends[at];
  }
  return true;
}

/**
 * pairs() on the kernels: every pair within the radius, as original indices
 * with i < j in each (clamped to the last point, as writePairs clamps them),
 * in the JavaScript search's order, written into `reuse` when its buffer has
 * room (an earlier result given as `out`). Undefined when the kernels are off
 * or out of memory, or the pairs would take more than `ceiling` numbers.
 */
export function collectPairs(
  g: KernelGrid,
  radius: number,
  slice: KernelSlice,
  guess: number,
  ceiling: number,
  reuse?: Uint32Array,
): Uint32Array | undefined {
  const search = startSearch(g, radius, slice, 2, Math.min(2 * guess, ceiling));
  if (search === undefined) return undefined;
  const length = guarded('pairs', () => runToEnd(search, ceiling));
  if (length < 0) return undefined;
  const { k, out, layout } = search;
  k.exports.originalPairs(layout.sortedIndex, out, length, g.points);
  const found = k.u32.subarray(out >> 2, (out >> 2) + length);
  const target = reuseArray(reuse, length);
  if (target === undefined) return found.slice();
  target.set(found);
  return target;
}

/**
 * neighbors() on the kernels: CSR rows exactly as PairSink.neighbors makes
 * them, written into `reuse` when it has room. Undefined when the kernels
 * are off or out of memory, or the partner runs would take more than
 * `ceiling` numbers.
 */
export function neighborRows(
  g: KernelGrid,
  radius: number,
  slice: KernelSlice,
  guess: number,
  reuse: NeighborLists | undefined,
  ceiling: number,
): NeighborLists | undefined {
  const n = g.points;
  const search = startSearch(g, radius, slice, 1, Math.min(guess, ceiling));
  if (search === undefined) return undefined;
  const length = guarded('neighbors', () => runToEnd(search, ceiling));
  if (length < 0) return undefined;
  const { k, out, layout, rowEnd } = search;
  // Points after the slice have no partner runs (see PairSink.rows).
  k.u32.fill(length, (rowEnd >> 2) + slice.pointTo, (rowEnd >> 2) + n);
  const offsetsAt = out + align8(4 * length);
  const cursorAt = offsetsAt + align8(4 * (n + 1));
  const indicesAt = cursorAt + align8(4 * n);
  if (!k.reserve(indicesAt)) return undefined;
  const e = k.exports;
  e.rowStarts(layout.sortedIndex, out, rowEnd, offsetsAt, cursorAt, n);
  const total = k.u32[(offsetsAt >> 2) + n];
  if (!k.reserve(indicesAt + 4 * total)) return undefined;
  if (g.clampsIndices) {
    // Rows read from a buffer not checked may overlap (sorted indices that repeat) and leave entries unwritten:
    // those read 0 then, as in the fresh array of the JavaScript path, rather than whatever the memory held.
    k.u32.fill(0, indicesAt >> 2, (indicesAt >> 2) + total);
    e.fillRows(layout.sortedIndex, out, rowEnd, cursorAt, indicesAt, n, total);
  } else {
    // The grid's own permutation: every row gets exactly what rowStarts counted, so no write needs a guard.
    e.fillRowsTrusted(layout.sortedIndex, out, rowEnd, cursorAt, indicesAt, n, total);
  }
  const offsets = reuseArray(reuse?.offsets, n + 1) ?? roomyArray(n + 1, false);
  offsets.set(k.u32.subarray(offsetsAt >> 2, (offsetsAt >> 2) + n + 1));
  const indices = reuseArray(reuse?.indices, total) ?? roomyArray(total, false);
  indices.set(k.u32.subarray(indicesAt >> 2, (indicesAt >> 2) + total));
  return { offsets, indices };
}
