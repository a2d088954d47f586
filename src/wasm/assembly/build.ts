// The kernels' own parts of a point grid build: the SIMD bounds scan and the introsort of crowded cells'
// records (see build-loops.ts, generated from src/templates/build.template.ts, for the loops both paths share
// and why these two are the kernels' alone). Positions come packed (2 or 3 numbers per point) as float64 (P =
// f64) or float32 (P = f32); coordinates are kept as C. Every pointer is a byte offset into the imported memory.

import { boundsFrom2, boundsFrom3 } from './build-loops';


// Scratch of the SIMD bounds, in the module's own bytes below KERNEL_BASE (see src/wasm/kernels.ts): the
// lanes' lows and highs (3 vectors each), then the bounds they make (min x, y, z, max x, y, z as f64).
const LOWS: usize = 0;
const HIGHS: usize = 48;
const BULK: usize = 96;

/**
 * Reduces the d vectors of lows and highs (lanes of type P; element e holds
 * axis e % d, as the positions do) to bounds per axis at BULK.
 */
function reduceLanes<P>(d: i32): void {
  const count = <i32>(16 / sizeof<P>()) * d;
  for (let axis = 0; axis < d; axis++) {
    let lo: f64 = Infinity;
    let hi: f64 = -Infinity;
    for (let e = axis; e < count; e += d) {
      lo = min(lo, <f64>load<P>(LOWS + <usize>e * sizeof<P>()));
      hi = max(hi, <f64>load<P>(HIGHS + <usize>e * sizeof<P>()));
    }
    store<f64>(BULK + (<usize>axis << 3), lo);
    store<f64>(BULK + (<usize>(3 + axis) << 3), hi);
  }
}

// The lane operations of P's vectors (4 float32 or 2 float64 lanes), chosen when the generic function is
// compiled (sizeof<P>() is a constant), so that simdBounds is written once for both.
// @ts-ignore: decorator
@inline function vsplat<P>(v: f64): v128 {
  return sizeof<P>() == 4 ? f32x4.splat(<f32>v) : f64x2.splat(v);
}
// @ts-ignore: decorator
@inline function vmin<P>(a: v128, b: v128): v128 {
  return sizeof<P>() == 4 ? f32x4.min(a, b) : f64x2.min(a, b);
}
// @ts-ignore: decorator
@inline function vmax<P>(a: v128, b: v128): v128 {
  return sizeof<P>() == 4 ? f32x4.max(a, b) : f64x2.max(a, b);
}
// @ts-ignore: decorator
@inline function vadd<P>(a: v128, b: v128): v128 {
  return sizeof<P>() == 4 ? f32x4.add(a, b) : f64x2.add(a, b);
}
// @ts-ignore: decorator
@inline function vsub<P>(a: v128, b: v128): v128 {
  return sizeof<P>() == 4 ? f32x4.sub(a, b) : f64x2.sub(a, b);
}
/** Whether every lane of `v` is 0. */
// @ts-ignore: decorator
@inline function allZero<P>(v: v128): bool {
  return sizeof<P>() == 4
    ? i32x4.all_true(f32x4.eq(v, f32x4.splat(0)))
    : i64x2.all_true(f64x2.eq(v, f64x2.splat(0)));
}

/**
 * The bounds of the first `rounds` * (16 / sizeof<P>()) points (d vectors a round, each lane always the same
 * axis) into BULK; false when one of them has a coordinate that is not finite.
 */
function simdBounds<P>(pos: usize, rounds: i32, d: i32): bool {
  let lo0 = vsplat<P>(Infinity);
  let lo1 = lo0;
  let lo2 = lo0;
  let hi0 = vsplat<P>(-Infinity);
  let hi1 = hi0;
  let hi2 = hi0;
  let nan = vsplat<P>(0);
  const step = <usize>(16 * d);
  const end = pos + <usize>rounds * step;
  for (let p = pos; p < end; p += step) {
    const a = v128.load(p);
    const b = v128.load(p, 16);
    lo0 = vmin<P>(lo0, a);
    hi0 = vmax<P>(hi0, a);
    lo1 = vmin<P>(lo1, b);
    hi1 = vmax<P>(hi1, b);
    nan = vadd<P>(nan, vadd<P>(vsub<P>(a, a), vsub<P>(b, b)));
    if (d == 3) {
      const c = v128.load(p, 32);
      lo2 = vmin<P>(lo2, c);
      hi2 = vmax<P>(hi2, c);
      nan = vadd<P>(nan, vsub<P>(c, c));
    }
  }
  // v - v is 0 for finite v, NaN for NaN and the infinities; their sum stays 0 only if every one is.
  if (!allZero<P>(nan)) return false;
  v128.store(LOWS, lo0);
  v128.store(LOWS, lo1, 16);
  v128.store(LOWS, lo2, 32);
  v128.store(HIGHS, hi0);
  v128.store(HIGHS, hi1, 16);
  v128.store(HIGHS, hi2, 32);
  reduceLanes<P>(d);
  return true;
}

/**
 * Bounds of the points into out (min per axis, then max per axis, d numbers
 * each); returns -1, or the index of the first point with a coordinate that
 * is not finite (the caller throws the error naming it). The bulk 128 bits at
 * a time (lanes vertices a round, d vectors, each lane always the same axis),
 * then the loop both paths run (boundsFrom2 / boundsFrom3, generated from
 * src/templates/build.template.ts) from where it stopped; a coordinate that
 * is not finite sends the whole scan to that loop, which names the first.
 */
export function bounds<P>(pos: usize, n: i32, d: i32, out: usize): i32 {
  const lanes = 16 / <i32>sizeof<P>();
  const rounds = n / lanes;
  let first = 0;
  if (rounds > 0 && simdBounds<P>(pos, rounds, d)) {
    first = rounds * lanes;
    for (let a = 0; a < d; a++) {
      store<f64>(out + (<usize>a << 3), load<f64>(BULK + (<usize>a << 3)));
      store<f64>(out + (<usize>(d + a) << 3), load<f64>(BULK + (<usize>(3 + a) << 3)));
    }
  } else {
    for (let a = 0; a < d; a++) {
      store<f64>(out + (<usize>a << 3), Infinity);
      store<f64>(out + (<usize>(d + a) << 3), -Infinity);
    }
  }
  return d == 2 ? boundsFrom2<P>(pos, first, n, out) : boundsFrom3<P>(pos, first, n, out);
}

// Crowded cells are sorted through records of 16 bytes, one per point: x as f64, the point's index (u32), and
// its slot in the cell (u32). A record is one v128, so a move is one load and one store, and a comparison reads
// only the records, which lie together, rather than coordinates d apart.

/** Records below this many are insertion-sorted by introsort. */
const RUN: i32 = 16;

// @ts-ignore: decorator
@inline function record(base: usize, i: i32): usize {
  return base + (<usize>i << 4);
}

/** (x, index) of record a comes before that of record b (a total order: indices differ). */
// @ts-ignore: decorator
@inline function precedes(a: usize, b: usize): bool {
  const xa = load<f64>(a);
  const xb = load<f64>(b);
  return xa < xb || (xa == xb && load<u32>(a, 8) < load<u32>(b, 8));
}

// @ts-ignore: decorator
@inline function swapRecords(a: usize, b: usize): void {
  const v = v128.load(a);
  v128.store(a, v128.load(b));
  v128.store(b, v);
}

function insertionSortRecords(base: usize, from: i32, to: i32): void {
  for (let s = from + 1; s < to; s++) {
    const v = v128.load(record(base, s));
    const x = f64x2.extract_lane(v, 0);
    const index = i32x4.extract_lane(v, 2);
    let t = s;
    for (; t > from; t--) {
      const p = record(base, t - 1);
      const px = load<f64>(p);
      if (px < x || (px == x && load<u32>(p, 8) < <u32>index)) break;
      v128.store(record(base, t), v128.load(p));
    }
    if (t != s) v128.store(record(base, t), v);
  }
}

function siftRecords(base: usize, from: i32, root: i32, size: i32): void {
  for (;;) {
    let child = 2 * root + 1;
    if (child >= size) return;
    if (child + 1 < size && precedes(record(base, from + child), record(base, from + child + 1))) child++;
    if (!precedes(record(base, from + root), record(base, from + child))) return;
    swapRecords(record(base, from + root), record(base, from + child));
    root = child;
  }
}

/** Heapsort of records from..to-1: introsort's way out of a partition that keeps going badly. */
function heapSortRecords(base: usize, from: i32, to: i32): void {
  const size = to - from;
  for (let root = (size >> 1) - 1; root >= 0; root--) siftRecords(base, from, root, size);
  for (let last = size - 1; last > 0; last--) {
    swapRecords(record(base, from), record(base, from + last));
    siftRecords(base, from, 0, last);
  }
}

/**
 * Introsort of records from..to-1 by (x, index): quicksort (median of three,
 * Hoare's partition) down to runs of RUN, which insertion sort finishes,
 * and heapsort where `depth` partitions ran out, so the worst case stays
 * O(k log k) whatever the points (coincident ones included).
 */
function sortRecords(base: usize, from: i32, to: i32, depth: i32): void {
  while (to - from > RUN) {
    if (depth == 0) {
      heapSortRecords(base, from, to);
      return;
    }
    depth--;
    const mid = from + ((to - from) >> 1);
    const a = record(base, from);
    const m = record(base, mid);
    const z = record(base, to - 1);
    if (precedes(m, a)) swapRecords(m, a);
    if (precedes(z, m)) {
      swapRecords(z, m);
      if (precedes(m, a)) swapRecords(m, a);
    }
    // The median now at mid: Hoare's scans stop at it or before, so neither leaves the range.
    const pivot = v128.load(m);
    const px = f64x2.extract_lane(pivot, 0);
    const pi = <u32>i32x4.extract_lane(pivot, 2);
    let i = from - 1;
    let j = to;
    for (;;) {
      do i++; while (load<f64>(record(base, i)) < px || (load<f64>(record(base, i)) == px && load<u32>(record(base, i), 8) < pi));
      do j--; while (px < load<f64>(record(base, j)) || (px == load<f64>(record(base, j)) && pi < load<u32>(record(base, j), 8)));
      if (i >= j) break;
      swapRecords(record(base, i), record(base, j));
    }
    // from..j and j+1..to-1, each non-empty: the smaller by recursion, so the stack stays O(log k).
    if (j + 1 - from < to - j - 1) {
      sortRecords(base, from, j + 1, depth);
      from = j + 1;
    } else {
      sortRecords(base, j + 1, to, depth);
      to = j + 1;
    }
  }
  insertionSortRecords(base, from, to);
}

/**
 * Sorts the points of one crowded cell (sorted positions start..end-1) by
 * (x, index) through records at `scratch` (16 bytes a point), then the
 * cell's coordinates, copied after the records, back in that order.
 */
export function sortCrowdedCell<C>(coords: usize, order: usize, d: i32, start: i32, end: i32, scratch: usize, perLevel: i32): void {
  const cs = sizeof<C>();
  const size = end - start;
  for (let k = 0; k < size; k++) {
    const r = record(scratch, k);
    store<f64>(r, <f64>load<C>(coords + <usize>(d * (start + k)) * cs));
    store<u32>(r, load<u32>(order + (<usize>(start + k) << 2)), 8);
    store<u32>(r, k, 12);
  }
  let depth = 0;
  for (let k = size; k > 1; k >>= 1) depth += perLevel;
  sortRecords(scratch, 0, size, depth);
  const copy = record(scratch, size);
  const first = coords + <usize>(d * start) * cs;
  memory.copy(copy, first, <usize>(d * size) * cs);
  for (let k = 0; k < size; k++) {
    const r = record(scratch, k);
    store<u32>(order + (<usize>(start + k) << 2), load<u32>(r, 8));
    const from = copy + <usize>(d * load<i32>(r, 12)) * cs;
    const to = first + <usize>(d * k) * cs;
    store<C>(to, load<C>(from));
    store<C>(to + cs, load<C>(from + cs));
    if (d == 3) store<C>(to + 2 * cs, load<C>(from + 2 * cs));
  }
}
