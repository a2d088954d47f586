/**
 * The within queries of PointGrid2D / PointGrid3D on the WebAssembly
 * kernels: within / withinInto and countWithin one query at a time,
 * withinMany a window of queries at a time in the grid's cell order, each
 * giving exactly what the JavaScript path gives (pointgrid/within-point.ts,
 * within-many.ts), in the same order. A query reads the grid through the
 * kernels' grid state, set for it by {@link setQueries} (see mirror.ts for
 * when that state may be trusted); a grid other than the one the kernels
 * hold is copied in first, which the copy throttle of queryKernels keeps
 * from happening at every call.
 *
 * @module
 */
import { clampIndices } from '../core/bounded.js';
import { isOrdinaryRadius } from '../core/distance.js';
import { type NeighborLists, reuseArray, roomyArray } from '../core/results.js';
import { guarded, type Kernels, kernels, trapError } from './kernels.js';
import { align8, type KernelGrid, writeGridRecord } from './layout.js';
import { copyIn, current, isShared } from './mirror.js';

/**
 * within / withinInto on the kernels: writes the points within `radius` of
 * (x, y[, z]) into `target` (as far as it fits) exactly as the JavaScript
 * path does (pointgrid/within-point.ts) and returns how many there are; -1
 * when the radius is not ordinary (see isOrdinaryRadius) or the kernels do
 * not take the query (see {@link queryKernels}), so the caller queries in
 * JavaScript.
 */
export function within(g: KernelGrid, x: number, y: number, z: number, radius: number, target: Uint32Array): number {
  const k = isOrdinaryRadius(radius) ? queryKernels(g) : undefined;
  if (k === undefined) return -1;
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
  // (Indices clamped to the count for a buffer not checked, as the JavaScript path does: see core/bounded.ts.)
  if (g.clampsIndices) clampIndices(target, count, g.points);
  return found;
}

/** countWithin on the kernels: how many points {@link within} would find, or -1 as there; nothing is written. */
export function countWithin(g: KernelGrid, x: number, y: number, z: number, radius: number): number {
  const k = isOrdinaryRadius(radius) ? queryKernels(g) : undefined;
  if (k === undefined) return -1;
  const e = k.exports;
  const float32 = g.coords instanceof Float32Array;
  try {
    return g.dimension === 2
      ? (float32 ? e.countWithin2d32 : e.countWithin2d64)(x, y, radius)
      : (float32 ? e.countWithin3d32 : e.countWithin3d64)(x, y, z, radius);
  } catch (error) {
    throw trapError('countWithin', error);
  }
}

/**
 * The kernels, their grid state set for `g`, for a query of one point; undefined when the kernels are off, the
 * grid lives in a SharedArrayBuffer (which would be copied in at every query), or another grid was copied in for
 * a query too recently. The first query after a build copies the grid in unless the kernels built it.
 */
function queryKernels(g: KernelGrid): Kernels | undefined {
  const k = kernels();
  // (A transferred buffer reads as empty: the JavaScript query then finds nothing, and the caller throws.)
  if (k === undefined || isShared(g.data) || g.data.byteLength === 0) return undefined;
  if (k.queryGrid !== g || !current(k, g)) {
    const copies = !current(k, g);
    // Queries that alternate between grids would copy a grid in at every call (about 50 µs at 1e5 points, against
    // a query of a microsecond or two): after a copy, the next one waits until enough queries came between to
    // pay for it (copies grow with the points), and the queries meanwhile run in JavaScript.
    if (copies && k.queriesSinceCopy < Math.max(64, g.points >> 6)) {
      k.queriesSinceCopy++;
      return undefined;
    }
    if (!setQueries(k, g)) return undefined;
    if (copies) k.queriesSinceCopy = 0;
  }
  k.queriesSinceCopy++;
  return k;
}

/**
 * Sets the kernels' grid state for `g` (the grid record, see layout.ts),
 * copying it in unless the memory holds it, with room for a query's result
 * after it (queryTarget), and records that queries may trust that state
 * (queryGrid, see mirror.ts). False when the memory cannot grow that far.
 */
function setQueries(k: Kernels, g: KernelGrid): boolean {
  const layout = copyIn(k, g);
  if (layout === undefined || !k.reserve(layout.end + 4 * g.points)) return false;
  writeGridRecord(k, g, layout);
  k.queryGrid = g;
  k.queryTarget = layout.end;
  return true;
}

/**
 * Queries a window of withinMany answers together (see assembly/within.ts): 65,536
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
 * isOrdinaryRadius: within-point.ts answers those) or the kernels are off
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
