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

// The loops of a PointGrid build on the kernels that the JavaScript path runs too (src/pointgrid/build-loops.ts,
// from the same template). Every pointer is a byte offset into the imported memory.

import { sortCrowdedCell } from './build';

/** Cells up to this many points are insertion-sorted, larger ones by introsort of records (build.ts); SMALL_CELL of src/core/sort-keys.ts. */
export const SMALL_CELL: i32 = 24;

// The cell along an axis of a coordinate: both paths' builds (here, and the kernels' hashed count,
// assembly/hashed.ts), the cells of a build's box (grid-base.ts), from()'s check that every point lies in its cell
// (check-data.ts) and the query cells of nearest and of withinMany's windows take it from here, so that none of
// them restates it.
// @ts-ignore: decorator
@inline
/** The cell holding coordinate `value` along an axis whose cells start at `origin`, `width` wide (see the template). */
export function cellAlong(value: f64, origin: f64, width: f64): f64 {
  return Math.floor((value - origin) / width);
}

/**
 * Inclusive prefix sums of the counts in `cellStart`: entry c becomes the end of cell c (the scatter walks it
 * back to the start), and entry `cells` the point count n. Returns the largest count (the kernels size the
 * crowded cells' scratch by it).
 */
export function prefixSums(cellStart: usize, cells: i32, n: i32): i32 {
  let sum = 0;
  let largest = 0;
  for (let c = 0; c < cells; c++) {
    const count = load<i32>(cellStart + (<usize>(c) << 2));
    sum = <i32>(sum + count);
    if (count > largest) largest = count;
    store<i32>(cellStart + (<usize>(c) << 2), sum);
  }
  store<i32>(cellStart + (<usize>(cells) << 2), n);
  return largest;
}

// A hashed build's cells, at least this many, in a box of at most 2^32 cells, are put in row-major order by a
// radix sort of each cell's rank in that box (radixOrder): the order the comparisons give (a rank orders cells as
// their coordinates do, z then y then x), in at most three passes over the cells where the comparisons cost
// c log c tests of d doubles (the 41,961 cells of the places as lon/lat, on the kernels: 4.2 ms by quicksort).
const RADIX_CELLS: i32 = 2048;
// The radix sort's digit: 2,048 counts (RADIX_DIGITS), three passes for 32-bit ranks.
const DIGIT_BITS: i32 = 11;
const RADIX_DIGITS: i32 = 1 << DIGIT_BITS;
const DIGIT_MASK: i32 = RADIX_DIGITS - 1;

/**
 * The ids of a hashed build's `cells` cells in row-major order into `ids`: each cell's rank in the box of the
 * cells (`keys`: x, y[, z] a cell) into `ranks`, sorted by a stable least-significant-digit radix sort through
 * `ranksB` and `idsB`, with `digits` for its 2,048 counts. False, with nothing written, for fewer than 2,048 cells
 * or a box of more than 2^32 cells: the caller sorts by comparisons then.
 */
export function radixOrder(
  keys: usize,
  cells: i32,
  d: i32,
  ids: usize,
  ranks: usize,
  ranksB: usize,
  idsB: usize,
  digits: usize,
): bool {
  if (cells < RADIX_CELLS) return false;
  let lowX = Number.POSITIVE_INFINITY;
  let lowY = Number.POSITIVE_INFINITY;
  let lowZ: f64 = d === 3 ? Number.POSITIVE_INFINITY : 0;
  let highX = Number.NEGATIVE_INFINITY;
  let highY = Number.NEGATIVE_INFINITY;
  let highZ: f64 = d === 3 ? Number.NEGATIVE_INFINITY : 0;
  for (let c = 0; c < cells; c++) {
    const x = load<f64>(keys + (<usize>(d * c) << 3));
    const y = load<f64>(keys + (<usize>(d * c + 1) << 3));
    if (x < lowX) lowX = x;
    if (x > highX) highX = x;
    if (y < lowY) lowY = y;
    if (y > highY) highY = y;
    if (d === 3) {
      const z = load<f64>(keys + (<usize>(3 * c + 2) << 3));
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
    const z: f64 = d === 3 ? load<f64>(keys + (<usize>(3 * c + 2) << 3)) - lowZ : 0;
    const rank = (z * spanY + load<f64>(keys + (<usize>(d * c + 1) << 3)) - lowY) * spanX + load<f64>(keys + (<usize>(d * c) << 3)) - lowX;
    store<u32>(ranks + (<usize>(c) << 2), <u32>rank);
    store<i32>(ids + (<usize>(c) << 2), c);
  }
  // The bits the largest rank needs (box - 1 < 2^32).
  const bits = 32 - <i32>clz<u32>(<u32>(box - 1));
  let fromRank = ranks;
  let toRank = ranksB;
  let fromId = ids;
  let toId = idsB;
  for (let shift = 0; shift < bits; shift += DIGIT_BITS) {
    memory.fill(digits, 0, <usize>(DIGIT_MASK + 1) << 2);
    for (let c = 0; c < cells; c++) {
      const digit = <i32>((load<u32>(fromRank + (<usize>(c) << 2)) >>> <u32>shift) & <u32>DIGIT_MASK);
      store<i32>(digits + (<usize>(digit) << 2), load<i32>(digits + (<usize>(digit) << 2)) + 1);
    }
    let sum = 0;
    for (let digit = 0; digit <= DIGIT_MASK; digit++) {
      const here = load<i32>(digits + (<usize>(digit) << 2));
      store<i32>(digits + (<usize>(digit) << 2), sum);
      sum += here;
    }
    // Stable: the cells of a digit keep the order of the pass before.
    for (let c = 0; c < cells; c++) {
      const rank = load<u32>(fromRank + (<usize>(c) << 2));
      const digit = <i32>((rank >>> <u32>shift) & <u32>DIGIT_MASK);
      const to = load<i32>(digits + (<usize>(digit) << 2));
      store<i32>(digits + (<usize>(digit) << 2), to + 1);
      store<u32>(toRank + (<usize>(to) << 2), rank);
      store<i32>(toId + (<usize>(to) << 2), load<i32>(fromId + (<usize>(c) << 2)));
    }
    const spareRank = fromRank;
    fromRank = toRank;
    toRank = spareRank;
    const spareId = fromId;
    fromId = toId;
    toId = spareId;
  }
  if (fromId !== ids) for (let c = 0; c < cells; c++) store<i32>(ids + (<usize>(c) << 2), load<i32>(fromId + (<usize>(c) << 2)));
  return true;
}

/** bounds2 of the JavaScript path from point `first` on, `out` holding the bounds before it (build.ts). */
export function boundsFrom2<P>(pos: usize, first: i32, n: i32, out: usize): i32 {
  const ps = sizeof<P>();
  let minX = load<f64>(out + (<usize>(0) << 3));
  let minY = load<f64>(out + (<usize>(1) << 3));
  let maxX = load<f64>(out + (<usize>(2) << 3));
  let maxY = load<f64>(out + (<usize>(3) << 3));
  // (x - x !== 0 is the cheap test for NaN and both infinities.)
  for (let i = first, p = 2 * first; i < n; i++, p += 2) {
    const x = <f64>load<P>(pos + <usize>(p) * ps);
    const y = <f64>load<P>(pos + <usize>(p) * ps + <usize>(1) * ps);
    if (x - x !== 0 || y - y !== 0) return i;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  store<f64>(out + (<usize>(0) << 3), minX);
  store<f64>(out + (<usize>(1) << 3), minY);
  store<f64>(out + (<usize>(2) << 3), maxX);
  store<f64>(out + (<usize>(3) << 3), maxY);
  return -1;
}

/** countDense2 of the JavaScript path (cellStart zeroed here: `cells` + 1 entries). */
export function countDense2<P>(
  pos: usize, n: i32, originX: f64, originY: f64, originZ: f64, width: f64, cellsX: f64, layer: f64, cells: i32,
  cellOf: usize, cellStart: usize,
): void {
  memory.fill(cellStart, 0, <usize>(cells + 1) << 2);
  const ps = sizeof<P>();
  for (let i = 0, p = 0; i < n; i++, p += 2) {
    const cellX = cellAlong(<f64>load<P>(pos + <usize>(p) * ps), originX, width);
    const cellY = cellAlong(<f64>load<P>(pos + <usize>(p) * ps + <usize>(1) * ps), originY, width);
    const c = <i32>(cellX + cellY * cellsX);
    store<i32>(cellOf + (<usize>(i) << 2), c);
    store<i32>(cellStart + (<usize>(c) << 2), load<i32>(cellStart + (<usize>(c) << 2)) + 1);
  }
}

/** scatter2 of the JavaScript path, for a whole build (first = 0). */
export function scatter2<P, C>(pos: usize, n: i32, cellOf: usize, cellStart: usize, coords: usize, sortedIndex: usize): void {
  const ps = sizeof<P>();
  const cs = sizeof<C>();
  const first = 0;
  for (let i = n - 1, p = 0 + (n - 1) * 2; i >= 0; i--, p -= 2) {
    const c = load<i32>(cellOf + (<usize>(i) << 2));
    const s = load<i32>(cellStart + (<usize>(c) << 2)) - 1;
    store<i32>(cellStart + (<usize>(c) << 2), s);
    store<u32>(sortedIndex + (<usize>(s) << 2), first + i);
    store<C>(coords + <usize>(2 * s) * cs, <C>(<f64>load<P>(pos + <usize>(p) * ps)));
    store<C>(coords + <usize>(2 * s) * cs + <usize>(1) * cs, <C>(<f64>load<P>(pos + <usize>(p) * ps + <usize>(1) * ps)));
  }
}

/**
 * sortSmallCells2 of the JavaScript path over every cell, crowded cells (more than SMALL_CELL points) sorted
 * by introsort of records at `scratch` (see build.ts).
 */
export function sortCells2<C>(coords: usize, sortedIndex: usize, cellStart: usize, cells: i32, scratch: usize, perLevel: i32): void {
  const cs = sizeof<C>();
  const from = 0;
  const to = cells;
  for (let c = from; c < to; c++) {
    const start = load<i32>(cellStart + (<usize>(c) << 2));
    const end = load<i32>(cellStart + (<usize>(c + 1) << 2));
    if (end - start > SMALL_CELL) {
      sortCrowdedCell<C>(coords, sortedIndex, 2, start, end, scratch, perLevel);
      continue;
    }
    if (end - start < 2 || end - start > SMALL_CELL) continue;
    for (let s = start + 1; s < end; s++) {
      const x = load<C>(coords + <usize>(2 * s) * cs);
      const y = load<C>(coords + <usize>(2 * s) * cs + <usize>(1) * cs);
      const index = load<u32>(sortedIndex + (<usize>(s) << 2));
      let t = s;
      for (; t > start; t--) {
        const px = load<C>(coords + <usize>(2 * t - 2) * cs);
        if (px < x || (px === x && load<u32>(sortedIndex + (<usize>(t - 1) << 2)) < index)) break;
        store<C>(coords + <usize>(2 * t) * cs, px);
        store<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs, load<C>(coords + <usize>(2 * t - 2) * cs + <usize>(1) * cs));
        store<u32>(sortedIndex + (<usize>(t) << 2), load<u32>(sortedIndex + (<usize>(t - 1) << 2)));
      }
      if (t !== s) {
        store<C>(coords + <usize>(2 * t) * cs, x);
        store<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs, y);
        store<u32>(sortedIndex + (<usize>(t) << 2), index);
      }
    }
  }
}

/** bounds3 of the JavaScript path from point `first` on, `out` holding the bounds before it (build.ts). */
export function boundsFrom3<P>(pos: usize, first: i32, n: i32, out: usize): i32 {
  const ps = sizeof<P>();
  let minX = load<f64>(out + (<usize>(0) << 3));
  let minY = load<f64>(out + (<usize>(1) << 3));
  let minZ = load<f64>(out + (<usize>(2) << 3));
  let maxX = load<f64>(out + (<usize>(3) << 3));
  let maxY = load<f64>(out + (<usize>(4) << 3));
  let maxZ = load<f64>(out + (<usize>(5) << 3));
  // (x - x !== 0 is the cheap test for NaN and both infinities.)
  for (let i = first, p = 3 * first; i < n; i++, p += 3) {
    const x = <f64>load<P>(pos + <usize>(p) * ps);
    const y = <f64>load<P>(pos + <usize>(p) * ps + <usize>(1) * ps);
    const z = <f64>load<P>(pos + <usize>(p) * ps + <usize>(2) * ps);
    if (x - x !== 0 || y - y !== 0 || z - z !== 0) return i;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  store<f64>(out + (<usize>(0) << 3), minX);
  store<f64>(out + (<usize>(1) << 3), minY);
  store<f64>(out + (<usize>(2) << 3), minZ);
  store<f64>(out + (<usize>(3) << 3), maxX);
  store<f64>(out + (<usize>(4) << 3), maxY);
  store<f64>(out + (<usize>(5) << 3), maxZ);
  return -1;
}

/** countDense3 of the JavaScript path (cellStart zeroed here: `cells` + 1 entries). */
export function countDense3<P>(
  pos: usize, n: i32, originX: f64, originY: f64, originZ: f64, width: f64, cellsX: f64, layer: f64, cells: i32,
  cellOf: usize, cellStart: usize,
): void {
  memory.fill(cellStart, 0, <usize>(cells + 1) << 2);
  const ps = sizeof<P>();
  for (let i = 0, p = 0; i < n; i++, p += 3) {
    const cellX = cellAlong(<f64>load<P>(pos + <usize>(p) * ps), originX, width);
    const cellY = cellAlong(<f64>load<P>(pos + <usize>(p) * ps + <usize>(1) * ps), originY, width);
    const c = <i32>(cellX + cellY * cellsX + cellAlong(<f64>load<P>(pos + <usize>(p) * ps + <usize>(2) * ps), originZ, width) * layer);
    store<i32>(cellOf + (<usize>(i) << 2), c);
    store<i32>(cellStart + (<usize>(c) << 2), load<i32>(cellStart + (<usize>(c) << 2)) + 1);
  }
}

/** scatter3 of the JavaScript path, for a whole build (first = 0). */
export function scatter3<P, C>(pos: usize, n: i32, cellOf: usize, cellStart: usize, coords: usize, sortedIndex: usize): void {
  const ps = sizeof<P>();
  const cs = sizeof<C>();
  const first = 0;
  for (let i = n - 1, p = 0 + (n - 1) * 3; i >= 0; i--, p -= 3) {
    const c = load<i32>(cellOf + (<usize>(i) << 2));
    const s = load<i32>(cellStart + (<usize>(c) << 2)) - 1;
    store<i32>(cellStart + (<usize>(c) << 2), s);
    store<u32>(sortedIndex + (<usize>(s) << 2), first + i);
    store<C>(coords + <usize>(3 * s) * cs, <C>(<f64>load<P>(pos + <usize>(p) * ps)));
    store<C>(coords + <usize>(3 * s) * cs + <usize>(1) * cs, <C>(<f64>load<P>(pos + <usize>(p) * ps + <usize>(1) * ps)));
    store<C>(coords + <usize>(3 * s) * cs + <usize>(2) * cs, <C>(<f64>load<P>(pos + <usize>(p) * ps + <usize>(2) * ps)));
  }
}

/**
 * sortSmallCells3 of the JavaScript path over every cell, crowded cells (more than SMALL_CELL points) sorted
 * by introsort of records at `scratch` (see build.ts).
 */
export function sortCells3<C>(coords: usize, sortedIndex: usize, cellStart: usize, cells: i32, scratch: usize, perLevel: i32): void {
  const cs = sizeof<C>();
  const from = 0;
  const to = cells;
  for (let c = from; c < to; c++) {
    const start = load<i32>(cellStart + (<usize>(c) << 2));
    const end = load<i32>(cellStart + (<usize>(c + 1) << 2));
    if (end - start > SMALL_CELL) {
      sortCrowdedCell<C>(coords, sortedIndex, 3, start, end, scratch, perLevel);
      continue;
    }
    if (end - start < 2 || end - start > SMALL_CELL) continue;
    for (let s = start + 1; s < end; s++) {
      const x = load<C>(coords + <usize>(3 * s) * cs);
      const y = load<C>(coords + <usize>(3 * s) * cs + <usize>(1) * cs);
      const z = load<C>(coords + <usize>(3 * s) * cs + <usize>(2) * cs);
      const index = load<u32>(sortedIndex + (<usize>(s) << 2));
      let t = s;
      for (; t > start; t--) {
        const px = load<C>(coords + <usize>(3 * t - 3) * cs);
        if (px < x || (px === x && load<u32>(sortedIndex + (<usize>(t - 1) << 2)) < index)) break;
        store<C>(coords + <usize>(3 * t) * cs, px);
        store<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs, load<C>(coords + <usize>(3 * t - 3) * cs + <usize>(1) * cs));
        store<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs, load<C>(coords + <usize>(3 * t - 3) * cs + <usize>(2) * cs));
        store<u32>(sortedIndex + (<usize>(t) << 2), load<u32>(sortedIndex + (<usize>(t - 1) << 2)));
      }
      if (t !== s) {
        store<C>(coords + <usize>(3 * t) * cs, x);
        store<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs, y);
        store<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs, z);
        store<u32>(sortedIndex + (<usize>(t) << 2), index);
      }
    }
  }
}

// The instances the module exports (see src/wasm/kernels.ts), by the positions' and coordinates' types, with
// the dimension as an argument as the glue passes it.

export function countDense64(
  pos: usize, n: i32, d: i32, ox: f64, oy: f64, oz: f64, w: f64, cx: i32, layer: i32, cells: i32, cellOf: usize,
  cellStart: usize,
): void {
  if (d === 2) countDense2<f64>(pos, n, ox, oy, oz, w, <f64>cx, <f64>layer, cells, cellOf, cellStart);
  else countDense3<f64>(pos, n, ox, oy, oz, w, <f64>cx, <f64>layer, cells, cellOf, cellStart);
}
export function scatter64(pos: usize, n: i32, d: i32, cellOf: usize, cellStart: usize, coords: usize, sortedIndex: usize): void {
  if (d === 2) scatter2<f64, f64>(pos, n, cellOf, cellStart, coords, sortedIndex);
  else scatter3<f64, f64>(pos, n, cellOf, cellStart, coords, sortedIndex);
}
export function sortCells64(coords: usize, order: usize, cellStart: usize, cells: i32, d: i32, scratch: usize, perLevel: i32): void {
  if (d === 2) sortCells2<f64>(coords, order, cellStart, cells, scratch, perLevel);
  else sortCells3<f64>(coords, order, cellStart, cells, scratch, perLevel);
}
export function countDense32(
  pos: usize, n: i32, d: i32, ox: f64, oy: f64, oz: f64, w: f64, cx: i32, layer: i32, cells: i32, cellOf: usize,
  cellStart: usize,
): void {
  if (d === 2) countDense2<f32>(pos, n, ox, oy, oz, w, <f64>cx, <f64>layer, cells, cellOf, cellStart);
  else countDense3<f32>(pos, n, ox, oy, oz, w, <f64>cx, <f64>layer, cells, cellOf, cellStart);
}
export function scatter32(pos: usize, n: i32, d: i32, cellOf: usize, cellStart: usize, coords: usize, sortedIndex: usize): void {
  if (d === 2) scatter2<f32, f32>(pos, n, cellOf, cellStart, coords, sortedIndex);
  else scatter3<f32, f32>(pos, n, cellOf, cellStart, coords, sortedIndex);
}
export function sortCells32(coords: usize, order: usize, cellStart: usize, cells: i32, d: i32, scratch: usize, perLevel: i32): void {
  if (d === 2) sortCells2<f32>(coords, order, cellStart, cells, scratch, perLevel);
  else sortCells3<f32>(coords, order, cellStart, cells, scratch, perLevel);
}
