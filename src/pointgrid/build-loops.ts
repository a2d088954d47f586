// Generated from src/templates/build.template.ts by scripts/expand-templates.mjs (npm run build): edit the template, not this file.
// The loops of a PointGrid build that both paths run, written once for 2D and 3D and for both paths
// (scripts/expand-templates.mjs explains the directives): check the points and find their bounds, count the
// points per cell of a dense grid, scatter them into cell order, and sort each small cell by (x, index). The JavaScript path reads the caller's positions
// (any numeric array, with a stride and an offset); the kernels read them packed into their memory, as float64
// (P = f64) or float32 (P = f32), and keep coordinates as C. Both give the same grid, byte for byte.
//
// Not here, and why: the kernels scan the bounds of all but the last few points 128 bits at a time first
// (build.ts), then run the loop here from where that scan stopped. A crowded cell (more than SMALL_CELL points)
// is sorted by introsort on both paths, but the
// kernels sort 16-byte records, one v128 each (src/wasm/assembly/build.ts), where JavaScript sorts parallel key
// arrays (src/core/sort-keys.ts): the same total order, by two bodies each fast on its target. A hashed grid's
// count goes through core/cell-table.ts here and the kernels' own table (hashed.ts): each path's data structure,
// the same cells.

/**
 * The loops of a PointGrid build on the JavaScript path (the kernels run the
 * same ones, src/wasm/assembly/build-loops.ts, from the same template, but
 * for the hashed count and the renumbering), one function a loop.
 *
 * Why separate functions: a build called once per frame runs each loop over
 * every point once per call, so V8 first compiles it on-stack (OSR) in the
 * middle of its first hot loop. With every phase in one method, that code
 * also covers the phases after the loop, whose branches the interpreter has
 * not run yet, and it deoptimises there on every call (then interprets the
 * rest, boxing doubles: garbage each frame). A function holding one loop has
 * nothing after its loop to guess about, gets optimised normally after a few
 * calls and stays optimised. Keep each loop here small and free of paths a
 * steady build never takes, other than throwing on bad input.
 *
 * @module
 */
import type { CellTable } from '../core/cell-table.js';
import { SMALL_CELL } from '../core/sort-keys.js';
import { type NumericArray, pointError } from '../core/validate.js';

/** Hashed layout: replaces each point's first-seen cell id by the cell's row-major rank. */
export function renumber(cellOf: Uint32Array, rank: Uint32Array | Int32Array, n: number): void {
  for (let i = 0; i < n; i++) cellOf[i] = rank[cellOf[i]];
}

/** Throws the RangeError for point i (at p) naming its first non-finite coordinate. Out of line: never hot. */
function badPoint(positions: NumericArray, i: number, p: number, d: number): never {
  for (let k = 0; k < d; k++) {
    const v = positions[p + k];
    if (v - v !== 0) throw pointError('positions', i, k === 0 ? 'x' : k === 1 ? 'y' : 'z', v);
  }
  throw new Error(`point ${i} is finite`);
}

// The cell along an axis of a coordinate: both paths' builds (here, and the kernels' hashed count,
// assembly/hashed.ts), the cells of a build's box (grid-base.ts), from()'s check that every point lies in its cell
// (check-data.ts) and the query cells of nearest and of withinMany's windows take it from here, so that none of
// them restates it.
/** The cell holding coordinate `value` along an axis whose cells start at `origin`, `width` wide (see the template). */
export function cellAlong(value: number, origin: number, width: number): number {
  return Math.floor((value - origin) / width);
}

/**
 * Inclusive prefix sums of the counts in `cellStart`: entry c becomes the end of cell c (the scatter walks it
 * back to the start), and entry `cells` the point count n. Returns the largest count (the kernels size the
 * crowded cells' scratch by it).
 */
export function prefixSums(cellStart: Int32Array, cells: number, n: number): number {
  let sum = 0;
  let largest = 0;
  for (let c = 0; c < cells; c++) {
    const count = cellStart[c];
    sum = (sum + count) | 0;
    if (count > largest) largest = count;
    cellStart[c] = sum;
  }
  cellStart[cells] = n;
  return largest;
}

// A hashed build's cells, at least this many, in a box of at most 2^32 cells, are put in row-major order by a
// radix sort of each cell's rank in that box (radixOrder): the order the comparisons give (a rank orders cells as
// their coordinates do, z then y then x), in at most three passes over the cells where the comparisons cost
// c log c tests of d doubles (the 41,961 cells of the places as lon/lat, on the kernels: 4.2 ms by quicksort).
export const RADIX_CELLS: number = 2048;
// The radix sort's digit: 2,048 counts (RADIX_DIGITS), three passes for 32-bit ranks.
const DIGIT_BITS: number = 11;
export const RADIX_DIGITS: number = 1 << DIGIT_BITS;
const DIGIT_MASK: number = RADIX_DIGITS - 1;

/**
 * The ids of a hashed build's `cells` cells in row-major order into `ids`: each cell's rank in the box of the
 * cells (`keys`: x, y[, z] a cell) into `ranks`, sorted by a stable least-significant-digit radix sort through
 * `ranksB` and `idsB`, with `digits` for its 2,048 counts. False, with nothing written, for fewer than 2,048 cells
 * or a box of more than 2^32 cells: the caller sorts by comparisons then.
 */
export function radixOrder(
  keys: Float64Array,
  cells: number,
  d: number,
  ids: Int32Array,
  ranks: Uint32Array,
  ranksB: Uint32Array,
  idsB: Int32Array,
  digits: Int32Array,
): boolean {
  if (cells < RADIX_CELLS) return false;
  let lowX = Number.POSITIVE_INFINITY;
  let lowY = Number.POSITIVE_INFINITY;
  let lowZ: number = d === 3 ? Number.POSITIVE_INFINITY : 0;
  let highX = Number.NEGATIVE_INFINITY;
  let highY = Number.NEGATIVE_INFINITY;
  let highZ: number = d === 3 ? Number.NEGATIVE_INFINITY : 0;
  for (let c = 0; c < cells; c++) {
    const x = keys[d * c];
    const y = keys[d * c + 1];
    if (x < lowX) lowX = x;
    if (x > highX) highX = x;
    if (y < lowY) lowY = y;
    if (y > highY) highY = y;
    if (d === 3) {
      const z = keys[3 * c + 2];
      if (z < lowZ) lowZ = z;
      if (z > highZ) highZ = z;
    }
  }
  const spanX = highX - lowX + 1;
  const spanY = highY - lowY + 1;
  const box = spanX * spanY * (highZ - lowZ + 1);
  // (NaN fails too.) Below 2^32 every rank is exact in a double: products and sums of integers under it.
  if (!(box <= 4294967296)) return false;
  for (let c = 0; c < cells; c++) {
    const z: number = d === 3 ? keys[3 * c + 2] - lowZ : 0;
    const rank = (z * spanY + keys[d * c + 1] - lowY) * spanX + keys[d * c] - lowX;
    ranks[c] = rank;
    ids[c] = c;
  }
  // The bits the largest rank needs (box - 1 < 2^32).
  const bits = 32 - Math.clz32(box - 1);
  let fromRank = ranks;
  let toRank = ranksB;
  let fromId = ids;
  let toId = idsB;
  for (let shift = 0; shift < bits; shift += DIGIT_BITS) {
    digits.fill(0);
    for (let c = 0; c < cells; c++) {
      const digit = (fromRank[c] >>> shift) & DIGIT_MASK;
      digits[digit] = digits[digit] + 1;
    }
    let sum = 0;
    for (let digit = 0; digit <= DIGIT_MASK; digit++) {
      const here = digits[digit];
      digits[digit] = sum;
      sum += here;
    }
    // Stable: the cells of a digit keep the order of the pass before.
    for (let c = 0; c < cells; c++) {
      const rank = fromRank[c];
      const digit = (rank >>> shift) & DIGIT_MASK;
      const to = digits[digit];
      digits[digit] = to + 1;
      toRank[to] = rank;
      toId[to] = fromId[c];
    }
    const spareRank = fromRank;
    fromRank = toRank;
    toRank = spareRank;
    const spareId = fromId;
    fromId = toId;
    toId = spareId;
  }
  if (fromId !== ids) for (let c = 0; c < cells; c++) ids[c] = fromId[c];
  return true;
}

/**
 * Checks that every point of `positions` is finite (throwing a RangeError naming the first bad one) and writes
 * their bounds into `out`: the minima per axis, then the maxima. `n` is at least 1. Returns -1 (as the kernels'
 * loop does when every point is finite).
 */
export function bounds2(positions: NumericArray, n: number, stride: number, offset: number, out: Float64Array): number {
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  // (x - x !== 0 is the cheap test for NaN and both infinities.)
  for (let i = 0, p = offset; i < n; i++, p += stride) {
    const x = positions[p];
    const y = positions[p + 1];
    if (x - x !== 0 || y - y !== 0) badPoint(positions, i, p, 2);
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  out[0] = minX;
  out[1] = minY;
  out[2] = maxX;
  out[3] = maxY;
  return -1;
}

/**
 * Dense layout: writes each point's cell (row-major in the box of cells,
 * which has fewer than 2^31) into `cellOf` and counts the points per cell
 * into `cellStart`, which must be zero.
 */
export function countDense2(
  positions: NumericArray,
  n: number,
  stride: number,
  offset: number,
  originX: number,
  originY: number,
  width: number,
  cellsX: number,
  cellOf: Uint32Array,
  cellStart: Int32Array,
): void {
  for (let i = 0, p = offset; i < n; i++, p += stride) {
    const cellX = cellAlong(positions[p], originX, width);
    const cellY = cellAlong(positions[p + 1], originY, width);
    const c = (cellX + cellY * cellsX) | 0;
    cellOf[i] = c;
    cellStart[c] = cellStart[c] + 1;
  }
}

/**
 * Hashed layout: inserts each point's cell into the cleared `table`, writes
 * the cell's first-seen id into `cellOf` and counts the points per id into
 * `counts` (at least n long: there are at most n cells). Returns the number
 * of cells. Cell coordinates stay doubles: far points have cells past 2^31.
 * (The kernels count with a table of their own, assembly/hashed.ts.)
 */
export function countHashed2(
  table: CellTable,
  positions: NumericArray,
  n: number,
  stride: number,
  offset: number,
  originX: number,
  originY: number,
  width: number,
  cellOf: Uint32Array,
  counts: Int32Array,
): number {
  let cells = 0;
  for (let i = 0, p = offset; i < n; i++, p += stride) {
    const id = table.insert2(cellAlong(positions[p], originX, width), cellAlong(positions[p + 1], originY, width));
    // After clear() ids come in first-seen order: a new cell takes the next one.
    if (id === cells) counts[cells++] = 0;
    cellOf[i] = id;
    counts[id]++;
  }
  return cells;
}

/**
 * Copies each point's index and coordinates to its place in cell order,
 * turning the cell ends of {@link prefixSums} into cell starts. Filling from
 * the last point keeps each cell in ascending index order. `first` is the
 * index of the first point: 0 for a whole build, a slice's start for a
 * thread of PointGridWorkers (whose `cellStart` then holds where its own
 * points of each cell end).
 */
export function scatter2(
  positions: NumericArray,
  n: number,
  stride: number,
  offset: number,
  cellOf: Uint32Array,
  cellStart: Int32Array,
  coords: Float32Array | Float64Array,
  sortedIndex: Uint32Array,
  first: number,
): void {
  for (let i = n - 1, p = offset + (n - 1) * stride; i >= 0; i--, p -= stride) {
    const c = cellOf[i];
    const s = cellStart[c] - 1;
    cellStart[c] = s;
    sortedIndex[s] = first + i;
    coords[2 * s] = positions[p];
    coords[2 * s + 1] = positions[p + 1];
  }
}

/**
 * Sorts each cell `from` to `to - 1` of 2 to SMALL_CELL points by x, ties by
 * index (see sortCellsByX, which takes the crowded ones): insertion sort with
 * the moving point held in locals. The order is the same whatever the cell
 * ranges, as (x, index) pairs are distinct: threads may sort ranges apart.
 */
export function sortSmallCells2(
  coords: Float32Array | Float64Array,
  sortedIndex: Uint32Array,
  cellStart: Int32Array,
  from: number,
  to: number,
): void {
  for (let c = from; c < to; c++) {
    const start = cellStart[c];
    const end = cellStart[c + 1];
    if (end - start < 2 || end - start > SMALL_CELL) continue;
    for (let s = start + 1; s < end; s++) {
      const x = coords[2 * s];
      const y = coords[2 * s + 1];
      const index = sortedIndex[s];
      let t = s;
      for (; t > start; t--) {
        const px = coords[2 * t - 2];
        if (px < x || (px === x && sortedIndex[t - 1] < index)) break;
        coords[2 * t] = px;
        coords[2 * t + 1] = coords[2 * t - 2 + 1];
        sortedIndex[t] = sortedIndex[t - 1];
      }
      if (t !== s) {
        coords[2 * t] = x;
        coords[2 * t + 1] = y;
        sortedIndex[t] = index;
      }
    }
  }
}

/**
 * Checks that every point of `positions` is finite (throwing a RangeError naming the first bad one) and writes
 * their bounds into `out`: the minima per axis, then the maxima. `n` is at least 1. Returns -1 (as the kernels'
 * loop does when every point is finite).
 */
export function bounds3(positions: NumericArray, n: number, stride: number, offset: number, out: Float64Array): number {
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let minZ = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  let maxZ = Number.NEGATIVE_INFINITY;
  // (x - x !== 0 is the cheap test for NaN and both infinities.)
  for (let i = 0, p = offset; i < n; i++, p += stride) {
    const x = positions[p];
    const y = positions[p + 1];
    const z = positions[p + 2];
    if (x - x !== 0 || y - y !== 0 || z - z !== 0) badPoint(positions, i, p, 3);
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  out[0] = minX;
  out[1] = minY;
  out[2] = minZ;
  out[3] = maxX;
  out[4] = maxY;
  out[5] = maxZ;
  return -1;
}

/**
 * Dense layout: writes each point's cell (row-major in the box of cells,
 * which has fewer than 2^31) into `cellOf` and counts the points per cell
 * into `cellStart`, which must be zero.
 */
export function countDense3(
  positions: NumericArray,
  n: number,
  stride: number,
  offset: number,
  originX: number,
  originY: number,
  originZ: number,
  width: number,
  cellsX: number,
  layer: number,
  cellOf: Uint32Array,
  cellStart: Int32Array,
): void {
  for (let i = 0, p = offset; i < n; i++, p += stride) {
    const cellX = cellAlong(positions[p], originX, width);
    const cellY = cellAlong(positions[p + 1], originY, width);
    const c = (cellX + cellY * cellsX + cellAlong(positions[p + 2], originZ, width) * layer) | 0;
    cellOf[i] = c;
    cellStart[c] = cellStart[c] + 1;
  }
}

/**
 * Hashed layout: inserts each point's cell into the cleared `table`, writes
 * the cell's first-seen id into `cellOf` and counts the points per id into
 * `counts` (at least n long: there are at most n cells). Returns the number
 * of cells. Cell coordinates stay doubles: far points have cells past 2^31.
 * (The kernels count with a table of their own, assembly/hashed.ts.)
 */
export function countHashed3(
  table: CellTable,
  positions: NumericArray,
  n: number,
  stride: number,
  offset: number,
  originX: number,
  originY: number,
  originZ: number,
  width: number,
  cellOf: Uint32Array,
  counts: Int32Array,
): number {
  let cells = 0;
  for (let i = 0, p = offset; i < n; i++, p += stride) {
    const id = table.insert3(
      cellAlong(positions[p], originX, width),
      cellAlong(positions[p + 1], originY, width),
      cellAlong(positions[p + 2], originZ, width),
    );
    // After clear() ids come in first-seen order: a new cell takes the next one.
    if (id === cells) counts[cells++] = 0;
    cellOf[i] = id;
    counts[id]++;
  }
  return cells;
}

/**
 * Copies each point's index and coordinates to its place in cell order,
 * turning the cell ends of {@link prefixSums} into cell starts. Filling from
 * the last point keeps each cell in ascending index order. `first` is the
 * index of the first point: 0 for a whole build, a slice's start for a
 * thread of PointGridWorkers (whose `cellStart` then holds where its own
 * points of each cell end).
 */
export function scatter3(
  positions: NumericArray,
  n: number,
  stride: number,
  offset: number,
  cellOf: Uint32Array,
  cellStart: Int32Array,
  coords: Float32Array | Float64Array,
  sortedIndex: Uint32Array,
  first: number,
): void {
  for (let i = n - 1, p = offset + (n - 1) * stride; i >= 0; i--, p -= stride) {
    const c = cellOf[i];
    const s = cellStart[c] - 1;
    cellStart[c] = s;
    sortedIndex[s] = first + i;
    coords[3 * s] = positions[p];
    coords[3 * s + 1] = positions[p + 1];
    coords[3 * s + 2] = positions[p + 2];
  }
}

/**
 * Sorts each cell `from` to `to - 1` of 2 to SMALL_CELL points by x, ties by
 * index (see sortCellsByX, which takes the crowded ones): insertion sort with
 * the moving point held in locals. The order is the same whatever the cell
 * ranges, as (x, index) pairs are distinct: threads may sort ranges apart.
 */
export function sortSmallCells3(
  coords: Float32Array | Float64Array,
  sortedIndex: Uint32Array,
  cellStart: Int32Array,
  from: number,
  to: number,
): void {
  for (let c = from; c < to; c++) {
    const start = cellStart[c];
    const end = cellStart[c + 1];
    if (end - start < 2 || end - start > SMALL_CELL) continue;
    for (let s = start + 1; s < end; s++) {
      const x = coords[3 * s];
      const y = coords[3 * s + 1];
      const z = coords[3 * s + 2];
      const index = sortedIndex[s];
      let t = s;
      for (; t > start; t--) {
        const px = coords[3 * t - 3];
        if (px < x || (px === x && sortedIndex[t - 1] < index)) break;
        coords[3 * t] = px;
        coords[3 * t + 1] = coords[3 * t - 3 + 1];
        coords[3 * t + 2] = coords[3 * t - 3 + 2];
        sortedIndex[t] = sortedIndex[t - 1];
      }
      if (t !== s) {
        coords[3 * t] = x;
        coords[3 * t + 1] = y;
        coords[3 * t + 2] = z;
        sortedIndex[t] = index;
      }
    }
  }
}
