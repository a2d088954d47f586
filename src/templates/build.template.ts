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

//#output js src/pointgrid/build-loops.ts
//#output as src/wasm/assembly/build-loops.ts

//#macro js pos(p) = positions[p]
//#macro as pos(p) = <f64>load<P>(pos + <usize>(p) * ps)
//#macro js first() = offset
//#macro as first() = 0
//#macro js stride() = stride
//#macro as stride() = ${D}
// A number k after p or i (a point's y or z): in the kernels the constant is added last, so that Binaryen folds it
// into the access's immediate offset, where (p + k) * size costs an add and a shift of its own at every load and
// store (as the hand-written kernels before the template had it: scatter64 went from 181 to 143 instructions).
//#macro js posAt(p, k) = positions[p + k]
//#macro as posAt(p, k) = <f64>load<P>(pos + <usize>(p) * ps + <usize>(k) * ps)
//#macro js coordAt(i, k) = coords[i + k]
//#macro as coordAt(i, k) = load<C>(coords + <usize>(i) * cs + <usize>(k) * cs)
//#macro js setCoordAt(i, k, v) = coords[i + k] = v
//#macro as setCoordAt(i, k, v) = store<C>(coords + <usize>(i) * cs + <usize>(k) * cs, v)
//#macro js cellOf(i) = cellOf[i]
//#macro as cellOf(i) = load<i32>(cellOf + (<usize>(i) << 2))
//#macro js setCellOf(i, c) = cellOf[i] = c
//#macro as setCellOf(i, c) = store<i32>(cellOf + (<usize>(i) << 2), c)
//#macro js start(c) = cellStart[c]
//#macro as start(c) = load<i32>(cellStart + (<usize>(c) << 2))
//#macro js setStart(c, v) = cellStart[c] = v
//#macro as setStart(c, v) = store<i32>(cellStart + (<usize>(c) << 2), v)
//#macro js coord(i) = coords[i]
//#macro as coord(i) = load<C>(coords + <usize>(i) * cs)
//#macro js setCoord(i, v) = coords[i] = v
//#macro as setCoord(i, v) = store<C>(coords + <usize>(i) * cs, v)
//#macro js index(s) = sortedIndex[s]
//#macro as index(s) = load<u32>(sortedIndex + (<usize>(s) << 2))
//#macro js setIndex(s, v) = sortedIndex[s] = v
//#macro as setIndex(s, v) = store<u32>(sortedIndex + (<usize>(s) << 2), v)
// The type of an int32 array: a typed array on the JavaScript path, a byte offset into memory in the kernels.
//#macro js int32s() = Int32Array
//#macro as int32s() = usize
//#macro js uint32s() = Uint32Array
//#macro as uint32s() = usize
//#macro js float64s() = Float64Array
//#macro as float64s() = usize
// Element i of array `a` (a typed array here, a byte offset in the kernels), for the functions over several arrays
// of one type (radixOrder).
//#macro js f64In(a, i) = a[i]
//#macro as f64In(a, i) = load<f64>(a + (<usize>(i) << 3))
//#macro js u32In(a, i) = a[i]
//#macro as u32In(a, i) = load<u32>(a + (<usize>(i) << 2))
//#macro js setU32In(a, i, v) = a[i] = v
//#macro as setU32In(a, i, v) = store<u32>(a + (<usize>(i) << 2), v)
//#macro js i32In(a, i) = a[i]
//#macro as i32In(a, i) = load<i32>(a + (<usize>(i) << 2))
//#macro js setI32In(a, i, v) = a[i] = v
//#macro as setI32In(a, i, v) = store<i32>(a + (<usize>(i) << 2), v)
//#macro js clearDigits() = digits.fill(0)
//#macro as clearDigits() = memory.fill(digits, 0, <usize>(DIGIT_MASK + 1) << 2)
// `export` in the JavaScript path's output only: what its callers need that the kernels keep to themselves (an
// export of theirs would be one of the module's).
//#macro js exportedConst() = export const
//#macro as exportedConst() = const
// The bits of an integral double below 2^32 (0 for 0).
//#macro js bitsOf(v) = 32 - Math.clz32(v)
//#macro as bitsOf(v) = 32 - <i32>clz<u32>(<u32>(v))
// The bounds: what they start from (the JavaScript path's empty bounds, the kernels' SIMD scan's in `out`), where
// they go, and the first point with a coordinate that is not finite (the JavaScript path throws naming it; the
// kernels return it, and the glue throws the same error).
//#macro js low(k) = Number.POSITIVE_INFINITY
//#macro as low(k) = load<f64>(out + (<usize>(k) << 3))
//#macro js high(k) = Number.NEGATIVE_INFINITY
//#macro as high(k) = load<f64>(out + (<usize>(k) << 3))
//#macro all2 seeds() = let minX = @low(0); let minY = @low(1); let maxX = @high(2); let maxY = @high(3)
//#macro all3 seeds() = let minX = @low(0); let minY = @low(1); let minZ = @low(2); let maxX = @high(3); let maxY = @high(4); let maxZ = @high(5)
//#macro js setOut(k, v) = out[k] = v
//#macro as setOut(k, v) = store<f64>(out + (<usize>(k) << 3), v)
//#macro js bad(i, p) = badPoint(positions, i, p, ${D})
//#macro as bad(i, p) = return i
//#macro js from() = 0
//#macro as from() = first
//#macro js startAt() = offset
//#macro as startAt() = ${D} * first
//#macro all widen(v, lo, hi) = if (v < lo) lo = v; if (v > hi) hi = v
//#macro all2 storeBounds() = @setOut(0, minX); @setOut(1, minY); @setOut(2, maxX); @setOut(3, maxY)
//#macro all3 storeBounds() = @setOut(0, minX); @setOut(1, minY); @setOut(2, minZ); @setOut(3, maxX); @setOut(4, maxY); @setOut(5, maxZ)
// The hashed count's point cell, the dense count's (with cellX and cellY, the point's cells along x and y), and
// the JavaScript path's z parameters (the kernels' count takes them in 2D too, one signature for the glue).
//#macro all2 pointCell(p) = cellAlong(positions[p], originX, width), cellAlong(positions[p + 1], originY, width)
//#macro all3 pointCell(p) = cellAlong(positions[p], originX, width), cellAlong(positions[p + 1], originY, width), cellAlong(positions[p + 2], originZ, width)
//#macro all2 denseCell(p) = cellX + cellY * cellsX
//#macro all3 denseCell(p) = cellX + cellY * cellsX + cellAlong(@posAt(p, 2), originZ, width) * layer
//#macro all2 originZ() =
//#macro all3 originZ() = originZ: f64,
//#macro all2 layer() =
//#macro all3 layer() = layer: f64,
// A cell of the box, which has fewer than 2^31 (| 0 keeps it an int32 on the JavaScript path).
//#macro js cell(x) = (x) | 0
//#macro as cell(x) = <i32>(x)
//#macro js narrow(v) = v
//#macro as narrow(v) = <C>(v)

//#if TARGET === 'js'
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
//#else
// The loops of a PointGrid build on the kernels that the JavaScript path runs too (src/pointgrid/build-loops.ts,
// from the same template). Every pointer is a byte offset into the imported memory.

import { sortCrowdedCell } from './build';

/** Cells up to this many points are insertion-sorted, larger ones by introsort of records (build.ts); SMALL_CELL of src/core/sort-keys.ts. */
export const SMALL_CELL: i32 = 24;
//#endif

// The cell along an axis of a coordinate: both paths' builds (here, and the kernels' hashed count,
// assembly/hashed.ts), the cells of a build's box (grid-base.ts), from()'s check that every point lies in its cell
// (check-data.ts) and the query cells of nearest and of withinMany's windows take it from here, so that none of
// them restates it.
@inlined()
/** The cell holding coordinate `value` along an axis whose cells start at `origin`, `width` wide (see the template). */
export function cellAlong(value: f64, origin: f64, width: f64): f64 {
  return Math.floor((value - origin) / width);
}

/**
 * Inclusive prefix sums of the counts in `cellStart`: entry c becomes the end of cell c (the scatter walks it
 * back to the start), and entry `cells` the point count n. Returns the largest count (the kernels size the
 * crowded cells' scratch by it).
 */
export function prefixSums(cellStart: @int32s(), cells: i32, n: i32): i32 {
  let sum = 0;
  let largest = 0;
  for (let c = 0; c < cells; c++) {
    const count = @start(c);
    sum = @cell(sum + count);
    if (count > largest) largest = count;
    @setStart(c, sum);
  }
  @setStart(cells, n);
  return largest;
}

// A hashed build's cells, at least this many, in a box of at most 2^32 cells, are put in row-major order by a
// radix sort of each cell's rank in that box (radixOrder): the order the comparisons give (a rank orders cells as
// their coordinates do, z then y then x), in at most three passes over the cells where the comparisons cost
// c log c tests of d doubles (the 41,961 cells of the places as lon/lat, on the kernels: 4.2 ms by quicksort).
@exportedConst() RADIX_CELLS: i32 = 2048;
// The radix sort's digit: 2,048 counts (RADIX_DIGITS), three passes for 32-bit ranks.
const DIGIT_BITS: i32 = 11;
@exportedConst() RADIX_DIGITS: i32 = 1 << DIGIT_BITS;
const DIGIT_MASK: i32 = RADIX_DIGITS - 1;

/**
 * The ids of a hashed build's `cells` cells in row-major order into `ids`: each cell's rank in the box of the
 * cells (`keys`: x, y[, z] a cell) into `ranks`, sorted by a stable least-significant-digit radix sort through
 * `ranksB` and `idsB`, with `digits` for its 2,048 counts. False, with nothing written, for fewer than 2,048 cells
 * or a box of more than 2^32 cells: the caller sorts by comparisons then.
 */
export function radixOrder(
  keys: @float64s(),
  cells: i32,
  d: i32,
  ids: @int32s(),
  ranks: @uint32s(),
  ranksB: @uint32s(),
  idsB: @int32s(),
  digits: @int32s(),
): bool {
  if (cells < RADIX_CELLS) return false;
  let lowX = Number.POSITIVE_INFINITY;
  let lowY = Number.POSITIVE_INFINITY;
  let lowZ: f64 = d === 3 ? Number.POSITIVE_INFINITY : 0;
  let highX = Number.NEGATIVE_INFINITY;
  let highY = Number.NEGATIVE_INFINITY;
  let highZ: f64 = d === 3 ? Number.NEGATIVE_INFINITY : 0;
  for (let c = 0; c < cells; c++) {
    const x = @f64In(keys, d * c);
    const y = @f64In(keys, d * c + 1);
    if (x < lowX) lowX = x;
    if (x > highX) highX = x;
    if (y < lowY) lowY = y;
    if (y > highY) highY = y;
    if (d === 3) {
      const z = @f64In(keys, 3 * c + 2);
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
    const z: f64 = d === 3 ? @f64In(keys, 3 * c + 2) - lowZ : 0;
    const rank = (z * spanY + @f64In(keys, d * c + 1) - lowY) * spanX + @f64In(keys, d * c) - lowX;
    @setU32In(ranks, c, <u32>rank);
    @setI32In(ids, c, c);
  }
  // The bits the largest rank needs (box - 1 < 2^32).
  const bits = @bitsOf(box - 1);
  let fromRank = ranks;
  let toRank = ranksB;
  let fromId = ids;
  let toId = idsB;
  for (let shift = 0; shift < bits; shift += DIGIT_BITS) {
    @clearDigits();
    for (let c = 0; c < cells; c++) {
      const digit = <i32>((@u32In(fromRank, c) >>> <u32>shift) & <u32>DIGIT_MASK);
      @setI32In(digits, digit, @i32In(digits, digit) + 1);
    }
    let sum = 0;
    for (let digit = 0; digit <= DIGIT_MASK; digit++) {
      const here = @i32In(digits, digit);
      @setI32In(digits, digit, sum);
      sum += here;
    }
    // Stable: the cells of a digit keep the order of the pass before.
    for (let c = 0; c < cells; c++) {
      const rank = @u32In(fromRank, c);
      const digit = <i32>((rank >>> <u32>shift) & <u32>DIGIT_MASK);
      const to = @i32In(digits, digit);
      @setI32In(digits, digit, to + 1);
      @setU32In(toRank, to, rank);
      @setI32In(toId, to, @i32In(fromId, c));
    }
    const spareRank = fromRank;
    fromRank = toRank;
    toRank = spareRank;
    const spareId = fromId;
    fromId = toId;
    toId = spareId;
  }
  if (fromId !== ids) for (let c = 0; c < cells; c++) @setI32In(ids, c, @i32In(fromId, c));
  return true;
}

//#for D of 2 3
//#if TARGET === 'js'
/**
 * Checks that every point of `positions` is finite (throwing a RangeError naming the first bad one) and writes
 * their bounds into `out`: the minima per axis, then the maxima. `n` is at least 1. Returns -1 (as the kernels'
 * loop does when every point is finite).
 */
export function bounds${D}(positions: NumericArray, n: i32, stride: i32, offset: i32, out: Float64Array): i32 {
//#else
/** bounds${D} of the JavaScript path from point `first` on, `out` holding the bounds before it (build.ts). */
export function boundsFrom${D}<P>(pos: usize, first: i32, n: i32, out: usize): i32 {
  const ps = sizeof<P>();
//#endif
  @seeds();
  // (x - x !== 0 is the cheap test for NaN and both infinities.)
  for (let i = @from(), p = @startAt(); i < n; i++, p += @stride()) {
    const x = @pos(p);
    const y = @posAt(p, 1);
//#if D === 3
    const z = @posAt(p, 2);
    if (x - x !== 0 || y - y !== 0 || z - z !== 0) @bad(i, p);
    @widen(z, minZ, maxZ);
//#else
    if (x - x !== 0 || y - y !== 0) @bad(i, p);
//#endif
    @widen(x, minX, maxX);
    @widen(y, minY, maxY);
  }
  @storeBounds();
  return -1;
}

//#if TARGET === 'js'
/**
 * Dense layout: writes each point's cell (row-major in the box of cells,
 * which has fewer than 2^31) into `cellOf` and counts the points per cell
 * into `cellStart`, which must be zero.
 */
export function countDense${D}(
  positions: NumericArray,
  n: i32,
  stride: i32,
  offset: i32,
  originX: f64,
  originY: f64,
  @originZ() width: f64,
  cellsX: f64,
  @layer() cellOf: Uint32Array,
  cellStart: Int32Array,
): void {
//#else
/** countDense${D} of the JavaScript path (cellStart zeroed here: `cells` + 1 entries). */
export function countDense${D}<P>(
  pos: usize, n: i32, originX: f64, originY: f64, originZ: f64, width: f64, cellsX: f64, layer: f64, cells: i32,
  cellOf: usize, cellStart: usize,
): void {
  memory.fill(cellStart, 0, <usize>(cells + 1) << 2);
  const ps = sizeof<P>();
//#endif
  for (let i = 0, p = @first(); i < n; i++, p += @stride()) {
    const cellX = cellAlong(@pos(p), originX, width);
    const cellY = cellAlong(@posAt(p, 1), originY, width);
    const c = @cell(@denseCell(p));
    @setCellOf(i, c);
    @setStart(c, @start(c) + 1);
  }
}

//#if TARGET === 'js'
/**
 * Hashed layout: inserts each point's cell into the cleared `table`, writes
 * the cell's first-seen id into `cellOf` and counts the points per id into
 * `counts` (at least n long: there are at most n cells). Returns the number
 * of cells. Cell coordinates stay doubles: far points have cells past 2^31.
 * (The kernels count with a table of their own, assembly/hashed.ts.)
 */
export function countHashed${D}(
  table: CellTable, positions: NumericArray, n: i32, stride: i32, offset: i32, originX: f64, originY: f64,
  @originZ() width: f64, cellOf: Uint32Array, counts: Int32Array,
): i32 {
  let cells = 0;
  for (let i = 0, p = offset; i < n; i++, p += stride) {
    const id = table.insert${D}(@pointCell(p));
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
export function scatter${D}(
  positions: NumericArray,
  n: i32,
  stride: i32,
  offset: i32,
  cellOf: Uint32Array,
  cellStart: Int32Array,
  coords: Float32Array | Float64Array,
  sortedIndex: Uint32Array,
  first: i32,
): void {
//#else
/** scatter${D} of the JavaScript path, for a whole build (first = 0). */
export function scatter${D}<P, C>(pos: usize, n: i32, cellOf: usize, cellStart: usize, coords: usize, sortedIndex: usize): void {
  const ps = sizeof<P>();
  const cs = sizeof<C>();
  const first = 0;
//#endif
  for (let i = n - 1, p = @first() + (n - 1) * @stride(); i >= 0; i--, p -= @stride()) {
    const c = @cellOf(i);
    const s = @start(c) - 1;
    @setStart(c, s);
    @setIndex(s, first + i);
    @setCoord(${D} * s, @narrow(@pos(p)));
    @setCoordAt(${D} * s, 1, @narrow(@posAt(p, 1)));
    @in3D(@setCoordAt(3 * s, 2, @narrow(@posAt(p, 2)));)
  }
}

//#if TARGET === 'js'
/**
 * Sorts each cell `from` to `to - 1` of 2 to SMALL_CELL points by x, ties by
 * index (see sortCellsByX, which takes the crowded ones): insertion sort with
 * the moving point held in locals. The order is the same whatever the cell
 * ranges, as (x, index) pairs are distinct: threads may sort ranges apart.
 */
export function sortSmallCells${D}(
  coords: Float32Array | Float64Array,
  sortedIndex: Uint32Array,
  cellStart: Int32Array,
  from: i32,
  to: i32,
): void {
//#else
/**
 * sortSmallCells${D} of the JavaScript path over every cell, crowded cells (more than SMALL_CELL points) sorted
 * by introsort of records at `scratch` (see build.ts).
 */
export function sortCells${D}<C>(coords: usize, sortedIndex: usize, cellStart: usize, cells: i32, scratch: usize, perLevel: i32): void {
  const cs = sizeof<C>();
  const from = 0;
  const to = cells;
//#endif
  for (let c = from; c < to; c++) {
    const start = @start(c);
    const end = @start(c + 1);
//#if TARGET === 'as'
    if (end - start > SMALL_CELL) {
      sortCrowdedCell<C>(coords, sortedIndex, ${D}, start, end, scratch, perLevel);
      continue;
    }
//#endif
    if (end - start < 2 || end - start > SMALL_CELL) continue;
    for (let s = start + 1; s < end; s++) {
      const x = @coord(${D} * s);
      const y = @coordAt(${D} * s, 1);
      @in3D(const z = @coordAt(3 * s, 2);)
      const index = @index(s);
      let t = s;
      for (; t > start; t--) {
        const px = @coord(${D} * t - ${D});
        if (px < x || (px === x && @index(t - 1) < index)) break;
        @setCoord(${D} * t, px);
//#if D === 3
        @setCoordAt(3 * t, 1, @coordAt(3 * t - 3, 1));
        @setCoordAt(3 * t, 2, @coordAt(3 * t - 3, 2));
//#else
        @setCoordAt(2 * t, 1, @coordAt(2 * t - 2, 1));
//#endif
        @setIndex(t, @index(t - 1));
      }
      if (t !== s) {
        @setCoord(${D} * t, x);
        @setCoordAt(${D} * t, 1, y);
        @in3D(@setCoordAt(3 * t, 2, z);)
        @setIndex(t, index);
      }
    }
  }
}

//#endfor
//#if TARGET === 'as'
// The instances the module exports (see src/wasm/kernels.ts), by the positions' and coordinates' types, with
// the dimension as an argument as the glue passes it.

//#for BITS of 64 32
export function countDense${BITS}(
  pos: usize, n: i32, d: i32, ox: f64, oy: f64, oz: f64, w: f64, cx: i32, layer: i32, cells: i32, cellOf: usize,
  cellStart: usize,
): void {
  if (d === 2) countDense2<f${BITS}>(pos, n, ox, oy, oz, w, <f64>cx, <f64>layer, cells, cellOf, cellStart);
  else countDense3<f${BITS}>(pos, n, ox, oy, oz, w, <f64>cx, <f64>layer, cells, cellOf, cellStart);
}
export function scatter${BITS}(pos: usize, n: i32, d: i32, cellOf: usize, cellStart: usize, coords: usize, sortedIndex: usize): void {
  if (d === 2) scatter2<f${BITS}, f${BITS}>(pos, n, cellOf, cellStart, coords, sortedIndex);
  else scatter3<f${BITS}, f${BITS}>(pos, n, cellOf, cellStart, coords, sortedIndex);
}
export function sortCells${BITS}(coords: usize, order: usize, cellStart: usize, cells: i32, d: i32, scratch: usize, perLevel: i32): void {
  if (d === 2) sortCells2<f${BITS}>(coords, order, cellStart, cells, scratch, perLevel);
  else sortCells3<f${BITS}>(coords, order, cellStart, cells, scratch, perLevel);
}
//#endfor
//#endif
