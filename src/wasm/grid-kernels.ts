/**
 * PointGrid2D / PointGrid3D on the WebAssembly kernels: builds (dense and
 * hashed), the half-stencil pair search (forEachPair, pairs, neighbors) and
 * within queries, each giving exactly what the JavaScript path gives, in the
 * same order.
 *
 * Where the data lives: a grid's buffer (`grid.data`) stays an ordinary
 * ArrayBuffer or SharedArrayBuffer, so `data`, `from()`, transfers and the
 * format are as before. The kernels work in their own memory, which holds a
 * copy of one grid (the mirror, see Kernels.mirrorData for the invariant
 * every function here keeps): a build made by the kernels leaves it there
 * (and copies it out into the grid's buffer), and a search of a grid whose
 * buffer is the one mirrored, with no build into it since by any grid (the
 * count of builds in its header, KernelGrid.builds), finds it there. Any
 * other grid is copied in first: about 4 ms a million 2D points, against a
 * search of 100 ms or more. A SharedArrayBuffer is always copied in, since
 * another thread may have rebuilt it. The kernels' memory keeps its largest
 * size (WebAssembly memory cannot shrink).
 *
 * @module
 */
import { isOrdinaryRadius } from '../core/distance.js';
import { introDepthPerLevel } from '../core/sort-keys.js';
import type { NumericArray } from '../core/validate.js';
import { clampIndices } from '../pointgrid/bounded.js';
import { stencilReach } from '../pointgrid/margins.js';
import { type NeighborLists, reuseArray, roomyArray } from '../pointgrid/options.js';
import { SMALL_CELL } from '../pointgrid/sort-cells.js';
import { guarded, isTrap, KERNEL_BASE, type Kernels, kernels, trapError } from './kernels.js';

/** What the kernels read and write of a Grid2D or Grid3D (d = 2 leaves out the z members). */
export interface KernelGrid {
  readonly dimension: 2 | 3;
  readonly stride: number;
  readonly offset: number;
  /** Width of the cells of the last build (see Grid2D.width). */
  width: number;
  /** Whether indices handed over are clamped to the count (see bounded.ts and Grid2D.clampsIndices). */
  clampsIndices: boolean;
  points: number;
  originX: number;
  originY: number;
  cellsX: number;
  cellsY: number;
  dense: boolean;
  cellTotal: number;
  data: ArrayBuffer | SharedArrayBuffer;
  /**
   * Builds published into `data` by any grid of any thread, as this grid last
   * read it from the header or wrote it there (see Grid2D.builds): what tells
   * a mirror of the buffer from an older one.
   */
  builds: number;
  coords: Float32Array | Float64Array;
  sortedIndex: Uint32Array;
  cellStart: Int32Array;
  keys: Float64Array;
  slots: Int32Array;
  slotMask: number;
}

/** {@link KernelGrid} members of a 3D grid. */
export interface KernelGrid3 extends KernelGrid {
  originZ: number;
  cellsZ: number;
}

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

/** Where the mirror's sections lie in the kernels' memory (byte offsets). */
interface Layout {
  coords: number;
  sortedIndex: number;
  cellStart: number;
  keys: number;
  slots: number;
  end: number;
}

function align8(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}

/**
 * The mirror's sections, written into `into` (one of the records below: a
 * frame loop allocates none); a hashed grid's lookup slots (`slotCount` of
 * them) only with `slotCount`.
 */
function layoutOf(
  into: Layout,
  d: number,
  n: number,
  float32: boolean,
  cells: number,
  dense: boolean,
  slotCount = 0,
): Layout {
  into.coords = KERNEL_BASE;
  into.sortedIndex = into.coords + align8(n * d * (float32 ? 4 : 8));
  into.cellStart = into.sortedIndex + align8(4 * n);
  into.keys = into.cellStart + align8(4 * (cells + 1));
  into.slots = into.keys + (dense ? 0 : 8 * d * cells);
  into.end = into.slots + align8(4 * (dense ? 0 : slotCount));
  return into;
}

function newLayout(): Layout {
  return { coords: 0, sortedIndex: 0, cellStart: 0, keys: 0, slots: 0, end: 0 };
}

/** The layout of the build under way (a build calls nothing that builds). */
const BUILT = newLayout();
/** The work areas' bound of a hashed build (see hashedOnKernels). */
const MOST = newLayout();
/** The layout of the grid a search or query reads (see mirror). */
const MIRRORED = newLayout();

function isShared(data: ArrayBuffer | SharedArrayBuffer): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && data instanceof SharedArrayBuffer;
}

/**
 * The dense build of `g` (its bounds, cell counts and capacity already set
 * by the caller, exactly as for the JavaScript build) on the kernels, the
 * result copied into the grid's buffer. False, with nothing changed, when the
 * kernels are off or their memory cannot hold the build; the caller then
 * builds in JavaScript.
 */
export function buildDense(g: KernelGrid, d: 2 | 3, positions: NumericArray): boolean {
  const k = kernels();
  if (k === undefined) return false;
  try {
    return denseOnKernels(k, g, d, positions);
  } catch (error) {
    // A trap, which the kernels' bounds should never let happen: the records are reset (see trapError) and the
    // caller builds in JavaScript, from the start, so the grid gets the right build all the same.
    if (isTrap(error)) return false;
    throw error;
  }
}

function denseOnKernels(k: Kernels, g: KernelGrid, d: 2 | 3, positions: NumericArray): boolean {
  const n = g.points;
  const float32 = g.coords instanceof Float32Array;
  const size = float32 ? 4 : 8;
  const cells = g.cellTotal;
  const layout = layoutOf(BUILT, d, n, float32, cells, true);
  const input = layout.end;
  const cellOf = input + align8(n * d * size);
  if (!k.reserve(cellOf + 4 * n)) return false;
  // From here on the build writes over the mirror's bytes, and may yet fall back to JavaScript part-way.
  k.forgetGrid();
  copyPositions(k, positions, n, d, g.stride, g.offset, float32, input);
  const e = k.exports;
  const g3 = g as KernelGrid3;
  const layer = g.cellsX * g.cellsY;
  const count = float32 ? e.countDense32 : e.countDense64;
  count(
    input,
    n,
    d,
    g.originX,
    g.originY,
    d === 3 ? g3.originZ : 0,
    g.width,
    g.cellsX,
    layer,
    cells,
    cellOf,
    layout.cellStart,
  );
  const largest = e.prefixSums(layout.cellStart, cells, n);
  (float32 ? e.scatter32 : e.scatter64)(input, n, d, cellOf, layout.cellStart, layout.coords, layout.sortedIndex);
  if (!sortCells(k, layout, cells, d, float32, largest, cellOf + 4 * n)) return false;
  g.cellStart.set(k.sectionOf(Int32Array, layout.cellStart, cells + 1));
  g.sortedIndex.set(k.sectionOf(Uint32Array, layout.sortedIndex, n));
  if (float32) g.coords.set(k.sectionOf(Float32Array, layout.coords, d * n));
  else g.coords.set(k.sectionOf(Float64Array, layout.coords, d * n));
  // The caller publishes the build next, which counts it (g.builds + 1).
  k.holdGrid(g.data, g.builds + 1);
  return true;
}

/** Cells of each grid's last hashed build on the kernels: the size its next count's table starts from. */
const lastCells = new WeakMap<KernelGrid, number>();

/**
 * The hashed build of `g` (bounds, origin and capacity for the points already
 * set by the caller, as for the JavaScript build) on the kernels: counts the
 * occupied cells, numbers them in row-major order, then, once `reserveCells`
 * has made room for them in the grid's buffer, sorts the points into them and
 * fills the lookup; the result is copied into the grid's buffer. False, with
 * the grid's buffer untouched, when the kernels are off or out of memory.
 */
export function buildHashed(g: KernelGrid, positions: NumericArray, reserveCells: (cells: number) => void): boolean {
  const k = kernels();
  if (k === undefined) return false;
  try {
    return hashedOnKernels(k, g, positions, reserveCells);
  } catch (error) {
    // (A trap: see buildDense.)
    if (isTrap(error)) return false;
    throw error;
  }
}

function hashedOnKernels(
  k: Kernels,
  g: KernelGrid,
  positions: NumericArray,
  reserveCells: (cells: number) => void,
): boolean {
  const d = g.dimension;
  const n = g.points;
  const float32 = g.coords instanceof Float32Array;
  const size = float32 ? 4 : 8;
  // The counting table: sized for the cells of the last hashed build of this grid (or a quarter of the points),
  // load at most 1/2, grown when the count outgrows it. Sized by the points it would be ten times larger than
  // clustered data needs, and every cache miss into it costs.
  const expected = Math.max(64, lastCells.get(g) ?? n >> 2);
  let tableSlots = 16;
  while (tableSlots < 4 * expected) tableSlots *= 2;
  // Work areas past the largest mirror this build can make: at most n cells, and the lookup the grid's
  // buffer may grow to (see slotsFor in grid-data.ts).
  const most = layoutOf(MOST, d, n, float32, n, false, Math.max(g.slotMask + 1, 8 * n + 16));
  const input = most.end;
  const cellOf = input + align8(n * d * size);
  const firstKeys = cellOf + align8(4 * n);
  const counts = firstKeys + 8 * d * n;
  const ids = counts + align8(4 * n);
  const rank = ids + align8(4 * n);
  const sortKeys = rank + align8(4 * n);
  const table = sortKeys + 8 * d * n;
  if (!k.reserve(table + 4 * tableSlots)) return false;
  // From here on the build writes over the mirror's bytes (see buildDense).
  k.forgetGrid();
  copyPositions(k, positions, n, d, g.stride, g.offset, float32, input);
  const e = k.exports;
  const g3 = g as KernelGrid3;
  const count = float32 ? e.countHashed32 : e.countHashed64;
  let cells = -1;
  for (; cells < 0; tableSlots *= 4) {
    if (!k.reserve(table + 4 * tableSlots)) return false;
    cells = count(
      input,
      n,
      d,
      g.originX,
      g.originY,
      d === 3 ? g3.originZ : 0,
      g.width,
      cellOf,
      table,
      tableSlots - 1,
      firstKeys,
      counts,
    );
  }
  lastCells.set(g, cells);
  // Room in the grid's buffer for the cells (this may replace it), before anything of the grid is written.
  reserveCells(cells);
  const layout = layoutOf(BUILT, d, n, float32, cells, false, g.slotMask + 1);
  e.orderCells(firstKeys, counts, cells, d, n, cellOf, ids, rank, layout.keys, layout.cellStart, sortKeys);
  const largest = e.prefixSums(layout.cellStart, cells, n);
  (float32 ? e.scatter32 : e.scatter64)(input, n, d, cellOf, layout.cellStart, layout.coords, layout.sortedIndex);
  // The count's work areas from firstKeys on are free now, and hold the crowded cells' scratch (at most
  // (16 + 8d) bytes a point, against their 16d + 12): no growing, so this cannot fail after reserveCells.
  sortCells(k, layout, cells, d, float32, largest, firstKeys);
  e.fillLookup(layout.slots, g.slotMask, layout.keys, cells, d);
  g.cellTotal = cells;
  g.cellStart.set(k.sectionOf(Int32Array, layout.cellStart, cells + 1));
  g.keys.set(k.sectionOf(Float64Array, layout.keys, d * cells));
  g.slots.set(k.sectionOf(Int32Array, layout.slots, g.slotMask + 1));
  g.sortedIndex.set(k.sectionOf(Uint32Array, layout.sortedIndex, n));
  if (float32) g.coords.set(k.sectionOf(Float32Array, layout.coords, d * n));
  else g.coords.set(k.sectionOf(Float64Array, layout.coords, d * n));
  // The caller publishes the build next, which counts it (g.builds + 1).
  k.holdGrid(g.data, g.builds + 1);
  return true;
}

/**
 * Sorts every cell of a build by (x, index): crowded cells (more than
 * SMALL_CELL points, the largest `largest`) through the kernels' records,
 * their scratch from `end` on (rounded up to 16 bytes). False when the
 * memory cannot grow for it (the caller then builds in JavaScript, the
 * grid's buffer untouched).
 */
function sortCells(
  k: Kernels,
  layout: Layout,
  cells: number,
  d: number,
  float32: boolean,
  largest: number,
  end: number,
): boolean {
  const scratch = Math.ceil(end / 16) * 16;
  if (largest > SMALL_CELL && !k.reserve(scratch + largest * (16 + d * (float32 ? 4 : 8)))) return false;
  (float32 ? k.exports.sortCells32 : k.exports.sortCells64)(
    layout.coords,
    layout.sortedIndex,
    layout.cellStart,
    cells,
    d,
    scratch,
    introDepthPerLevel(),
  );
  return true;
}

/** Copies the points, packed, into the kernels' memory at `at`: as float32 when `float32`, else float64. */
function copyPositions(
  k: Kernels,
  positions: NumericArray,
  n: number,
  d: number,
  stride: number,
  offset: number,
  float32: boolean,
  at: number,
): void {
  const target = float32 ? k.f32 : k.f64;
  const base = float32 ? at >> 2 : at >> 3;
  if (stride === d && (positions instanceof Float64Array || positions instanceof Float32Array)) {
    // (The whole array as it is where it holds just the points: no view to allocate per build.)
    target.set(
      offset === 0 && positions.length === d * n ? positions : positions.subarray(offset, offset + d * n),
      base,
    );
    return;
  }
  for (let i = 0, p = offset, q = base; i < n; i++, p += stride, q += d) {
    target[q] = positions[p];
    target[q + 1] = positions[p + 1];
    if (d === 3) target[q + 2] = positions[p + 2];
  }
}

/** Whether the kernels' memory holds `g` as it is now (see the module comment). */
function current(k: Kernels, g: KernelGrid): boolean {
  if (k.mirrorData !== g.data) return false;
  // A shared buffer only while pinned (see pinGrid): another thread may rebuild it at any other time.
  return k.pinned === g.data || (!isShared(g.data) && k.mirrorBuilds === g.builds);
}

/**
 * Lets the kernels keep their copy of the grid in `data` (a
 * SharedArrayBuffer too) until {@link unpinGrid}, from a fresh copy made by
 * the next search: for a PointGridWorkers thread, whose task searches
 * several slices of a grid that no thread rebuilds meanwhile. Does nothing
 * where the kernels are off.
 */
export function pinGrid(data: ArrayBuffer | SharedArrayBuffer): void {
  const k = kernels();
  if (k === undefined) return;
  k.forgetGrid();
  k.pinned = data;
}

/** Ends {@link pinGrid}: a shared buffer is copied in afresh by every search again. */
export function unpinGrid(): void {
  const k = kernels();
  if (k !== undefined) k.pinned = undefined;
}

/** Makes the kernels' memory hold `g`, copying it in unless it is there already; returns its layout. */
function mirror(k: Kernels, g: KernelGrid, d: number): Layout | undefined {
  const n = g.points;
  const cells = g.cellTotal;
  const float32 = g.coords instanceof Float32Array;
  const layout = layoutOf(MIRRORED, d, n, float32, cells, g.dense, g.slotMask + 1);
  if (current(k, g)) return layout;
  if (!k.reserve(layout.end)) return undefined;
  k.forgetGrid();
  if (!g.dense) k.i32.set(g.slots.subarray(0, g.slotMask + 1), layout.slots >> 2);
  if (float32) k.f32.set(g.coords.subarray(0, d * n), layout.coords >> 2);
  else k.f64.set(g.coords.subarray(0, d * n), layout.coords >> 3);
  k.u32.set(g.sortedIndex.subarray(0, n), layout.sortedIndex >> 2);
  k.i32.set(g.cellStart.subarray(0, cells + 1), layout.cellStart >> 2);
  if (!g.dense) k.f64.set(g.keys.subarray(0, d * cells), layout.keys >> 3);
  k.holdGrid(g.data, g.builds);
  return layout;
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
 * Sets up the half-stencil search of `g` (see pairs2d.ts / pairs3d.ts) with
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
  // Extreme radii (decision 2: r * r overflows or is below 2^-896) take the JavaScript path's cold search.
  if (!isOrdinaryRadius(radius)) return undefined;
  const k = kernels();
  if (k === undefined) return undefined;
  const d = g.dimension;
  const g3 = g as KernelGrid3;
  const extent = d === 2 ? Math.max(g.cellsX, g.cellsY) : Math.max(g.cellsX, g.cellsY, g3.cellsZ);
  const reach = stencilReach(radius, g.width, extent);
  const r2 = radius * radius;
  const layout = mirror(k, g, d);
  if (layout === undefined) return undefined;
  const n = g.points;
  const cells = g.cellTotal;
  const side = 2 * reach + 1;
  const half = d === 2 ? reach + reach * side : reach + reach * side + reach * side * side;
  const scanAll = !g.dense && half > cells;
  const stencilRows = d === 2 ? reach : reach + reach * side;
  // At most a range per stencil row the grid has (dense), or per stencil row (hashed), as pairs2d.ts / pairs3d.ts.
  const denseRows =
    d === 2
      ? Math.min(reach, g.cellsY - 1)
      : Math.min(reach, g.cellsY - 1) + Math.min(reach, g3.cellsZ - 1) * Math.min(side, g.cellsY);
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
  // (A search sets the same globals as queries, for this grid.)
  k.queryGrid = undefined;
  e.setGrid(
    layout.coords,
    layout.cellStart,
    layout.keys,
    cells,
    g.cellsX,
    g.cellsY,
    d === 3 ? g3.cellsZ : 1,
    g.dense ? 1 : 0,
    g.originY,
    d === 3 ? g3.originZ : 0,
    g.width,
    n,
  );
  e.startSearch(
    reach,
    r2,
    scanAll ? 1 : 0,
    slice.cellFrom,
    slice.cellTo,
    ranges,
    edges,
    cursors,
    cursorRows,
    out,
    capacity,
    step,
    rowEnd,
  );
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
 * positions, 2 numbers a pair) is copied into `buffer` (grown through
 * `grow`) and handed to `visit`, which takes `length` numbers and empties
 * the batch. False when the kernels are off; the caller searches in
 * JavaScript.
 */
export function visitPairs<G extends KernelGrid, B extends { buffer: Uint32Array; length: number }>(
  g: G,
  radius: number,
  slice: KernelSlice,
  batch: B,
  visit: (grid: G, batch: B) => void,
): boolean {
  const search = startSearch(g, radius, slice, 2, 2 * BATCH);
  if (search === undefined) return false;
  const { k, out } = search;
  const e = k.exports;
  k.busy = true;
  try {
    for (;;) {
      const done = guarded('forEachPair', search.run) === 0;
      const length = e.length.value as number;
      if (length > 0) {
        if (batch.buffer.length < length) batch.buffer = new Uint32Array(length);
        // Copied by a loop, not set(subarray()): a view per batch is garbage a frame loop would make every frame.
        const target = batch.buffer;
        const source = k.u32;
        for (let i = 0, from = out >> 2; i < length; i++) target[i] = source[from + i];
        batch.length = length;
        visit(g, batch);
      }
      if (done) return true;
      const needed = e.needed.value as number;
      if (!k.reserve(out + 4 * needed))
        throw new RangeError(`pair search: ${needed} candidates of one point do not fit in memory`);
      e.setOutput(out, Math.max(2 * BATCH, needed), 0);
    }
  } finally {
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
  // Rows read from a buffer not checked may overlap (sorted indices that repeat) and leave entries unwritten:
  // those read 0 then, as in the fresh array of the JavaScript path, rather than whatever the memory held.
  if (g.clampsIndices) k.u32.fill(0, indicesAt >> 2, (indicesAt >> 2) + total);
  e.fillRows(layout.sortedIndex, out, rowEnd, cursorAt, indicesAt, n, total);
  const offsets = reuseArray(reuse?.offsets, n + 1) ?? roomyArray(n + 1, false);
  offsets.set(k.u32.subarray(offsetsAt >> 2, (offsetsAt >> 2) + n + 1));
  const indices = reuseArray(reuse?.indices, total) ?? roomyArray(total, false);
  indices.set(k.u32.subarray(indicesAt >> 2, (indicesAt >> 2) + total));
  return { offsets, indices };
}

/**
 * within2D / within3D on the kernels: writes the points within `radius` of
 * (x, y[, z]) into `target` (as far as it fits) exactly as query2d.ts /
 * query3d.ts do and returns how many there are; -1 when the radius is not
 * ordinary (see isOrdinaryRadius), the kernels are off, the grid lives in
 * a SharedArrayBuffer (which would be copied in at every query), or another
 * grid was copied in for a query too recently, so the caller queries in
 * JavaScript. The first query after a build copies the grid in unless the
 * kernels built it.
 */
export function within(g: KernelGrid, x: number, y: number, z: number, radius: number, target: Uint32Array): number {
  if (!isOrdinaryRadius(radius)) return -1;
  const k = kernels();
  // (A transferred buffer reads as empty: the JavaScript query then finds nothing, and the caller throws.)
  if (k === undefined || isShared(g.data) || g.data.byteLength === 0) return -1;
  if (k.queryGrid !== g || !current(k, g)) {
    const copies = !current(k, g);
    // Queries that alternate between grids would copy a grid in at every call (about 50 µs at 1e5 points, against
    // a query of a microsecond or two): after a copy, the next one waits until enough queries came between to
    // pay for it (copies grow with the points), and the queries meanwhile run in JavaScript.
    if (copies && k.queriesSinceCopy < Math.max(64, g.points >> 6)) {
      k.queriesSinceCopy++;
      return -1;
    }
    if (!setQueries(k, g)) return -1;
    if (copies) k.queriesSinceCopy = 0;
  }
  k.queriesSinceCopy++;
  const e = k.exports;
  const float32 = g.coords instanceof Float32Array;
  let found: number;
  try {
    found =
      g.dimension === 2
        ? (float32 ? e.within2d32 : e.within2d64)(x, y, radius, k.queryTarget)
        : (float32 ? e.within3d32 : e.within3d64)(x, y, z, radius, k.queryTarget);
  } catch (error) {
    throw trapError('within', error);
  }
  const u32 = k.u32;
  const from = k.queryTarget >> 2;
  const count = Math.min(found, target.length);
  for (let i = 0; i < count; i++) target[i] = u32[from + i];
  // (Indices clamped to the count for a buffer not checked, as within2D does: see bounded.ts.)
  if (g.clampsIndices) clampIndices(target, count, g.points);
  return found;
}

/**
 * Points the query globals of the kernels at `g`, copying it in unless the
 * memory holds it, with room for a query's result after it (queryTarget).
 * False when the memory cannot grow that far.
 */
function setQueries(k: Kernels, g: KernelGrid): boolean {
  const d = g.dimension;
  const layout = mirror(k, g, d);
  if (layout === undefined || !k.reserve(layout.end + 4 * g.points)) return false;
  const e = k.exports;
  const g3 = g as KernelGrid3;
  e.setGrid(
    layout.coords,
    layout.cellStart,
    layout.keys,
    g.cellTotal,
    g.cellsX,
    g.cellsY,
    1,
    g.dense ? 1 : 0,
    g.originY,
    0,
    g.width,
    g.points,
  );
  e.setQueryGrid(
    g.originX,
    layout.sortedIndex,
    layout.slots,
    g.slotMask,
    g.points,
    g.cellsX,
    g.cellsY,
    d === 3 ? g3.cellsZ : 1,
    d === 3 ? g3.originZ : 0,
  );
  k.queryGrid = g;
  k.queryTarget = layout.end;
  return true;
}

/**
 * Queries a window of withinMany answers together (see within.ts): 65,536
 * took 1.2x the time of all at once on clustered data at a million points
 * (16,384: 1.5x), while gathering a million rows in query order from results
 * in cell order cost as much as the search saved.
 */
let WINDOW = 1 << 16;

/** Sets withinMany's window (default 65536) and returns the last one, so tests can cross windows. Internal. */
export function withinWindowForTests(queries: number): number {
  const last = WINDOW;
  WINDOW = queries;
  return last;
}

/**
 * withinMany on the kernels (see src/pointgrid/within-many.ts): `queries`
 * packed, checked float64 (d per query), answered a window at a time in the
 * grid's cell order and gathered into rows in query order, written into
 * `reuse` where it has room. Undefined when the radius is not ordinary (see
 * isOrdinaryRadius: within2D / within3D answer those) or the kernels are off
 * or out of memory. A grid in a SharedArrayBuffer is copied in for the call, once.
 */
export function withinManyOnKernels(
  g: KernelGrid,
  queries: Float64Array,
  radius: number,
  reuse: NeighborLists | undefined,
): NeighborLists | undefined {
  if (!isOrdinaryRadius(radius)) return undefined;
  const k = kernels();
  if (k === undefined) return undefined;
  // (mirror copies a shared grid in every time: another thread may have rebuilt it since.)
  if ((k.queryGrid !== g || !current(k, g)) && !setQueries(k, g)) return undefined;
  const d = g.dimension;
  const count = queries.length / d;
  const window = Math.min(WINDOW, count);
  const at = k.queryTarget;
  const bucket = at + align8(8 * queries.length);
  const counts = bucket + align8(4 * window);
  const order = counts + align8(4 * (g.cellTotal + 2));
  const rowStart = order + align8(4 * window);
  const rowCount = rowStart + align8(4 * window);
  const results = rowCount + align8(4 * window);
  // Room for the results of a window (and their rows in query order after them): 16 a query at first.
  let room = Math.max(g.points, 16 * window);
  if (!k.reserve(results + 8 * room)) return undefined;
  k.f64.set(queries, at >> 3);
  const e = k.exports;
  const run = g.coords instanceof Float32Array ? e.withinMany32 : e.withinMany64;
  const offsets = reuseArray(reuse?.offsets, count + 1) ?? roomyArray(count + 1, false);
  // All the room of out's buffer, or (once the first window has said how many points a query finds) fresh memory.
  let indices =
    reuse === undefined
      ? new Uint32Array(0)
      : new Uint32Array(
          reuse.indices.buffer,
          reuse.indices.byteOffset,
          (reuse.indices.buffer.byteLength - reuse.indices.byteOffset) >>> 2,
        );
  let total = 0;
  for (let first = 0; first < count; first += window) {
    const size = Math.min(window, count - first);
    e.sortWindow(at, d, first, first + size, bucket, counts, order);
    for (let next = 0; ; ) {
      next = guarded('withinMany', () =>
        run(at, d, order, next, size, first, radius, results, room, rowStart, rowCount),
      );
      if (next === size) break;
      room = 2 * room;
      if (!k.reserve(results + 8 * room)) return undefined;
    }
    const written = e.written.value as number;
    const rows = results + 4 * room;
    e.gatherWindow(results, rowStart, rowCount, size, rows);
    const u32 = k.u32;
    for (let q = 0, row = total, runs = rowCount >> 2; q < size; q++) {
      offsets[first + q] = row;
      row += u32[runs + q];
    }
    if (total + written > indices.length) {
      // As many again a query as so far, an eighth to spare (roomyArray adds it).
      const expected = Math.ceil(((total + written) / (first + size)) * count);
      const grown = roomyArray(Math.max(expected, total + written, 2 * indices.length), false);
      grown.set(indices.subarray(0, total));
      indices = grown;
    }
    indices.set(u32.subarray(rows >> 2, (rows >> 2) + written), total);
    total += written;
  }
  offsets[count] = total;
  // (Indices clamped to the count for a buffer not checked, or copied while another thread wrote it.)
  if (g.clampsIndices) clampIndices(indices, total, g.points);
  return { offsets, indices: reuseArray(indices, total) ?? indices };
}
