// The loops of a point grid build (see src/pointgrid/build-steps.ts, whose
// results these reproduce bit for bit): bounds, count, prefix sums, scatter
// and the per-cell sort by (x, index). Positions come packed (2 or 3 numbers
// per point) as float64 (P = f64) or float32 (P = f32); coordinates are kept
// as C. Every pointer is a byte offset into the imported memory.

// @ts-nocheck: AssemblyScript, compiled by asc (see scripts/build-wasm.mjs).

/** Cells up to this many points are insertion-sorted, larger ones heap-sorted (as sort-cells.ts). */
const SMALL_CELL: i32 = 24;

/**
 * Bounds of the points into out (min per axis, then max per axis, d numbers
 * each); returns -1, or the index of the first point with a coordinate that
 * is not finite (the caller throws the error naming it).
 */
export function bounds<P>(pos: usize, n: i32, d: i32, out: usize): i32 {
  let minX = Infinity, minY = Infinity, minZ = Infinity;
  let maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
  const size = sizeof<P>();
  if (d == 2) {
    for (let i = 0; i < n; i++) {
      const p = pos + <usize>(2 * i) * size;
      const x = <f64>load<P>(p);
      const y = <f64>load<P>(p + size);
      if (x - x != 0 || y - y != 0) return i;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
    store<f64>(out, minX); store<f64>(out, minY, 8);
    store<f64>(out, maxX, 16); store<f64>(out, maxY, 24);
  } else {
    for (let i = 0; i < n; i++) {
      const p = pos + <usize>(3 * i) * size;
      const x = <f64>load<P>(p);
      const y = <f64>load<P>(p + size);
      const z = <f64>load<P>(p + 2 * size);
      if (x - x != 0 || y - y != 0 || z - z != 0) return i;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      if (z < minZ) minZ = z;
      if (z > maxZ) maxZ = z;
    }
    store<f64>(out, minX); store<f64>(out, minY, 8); store<f64>(out, minZ, 16);
    store<f64>(out, maxX, 24); store<f64>(out, maxY, 32); store<f64>(out, maxZ, 40);
  }
  return -1;
}

/**
 * Dense layout: each point's row-major cell into cellOf, and the count per
 * cell into cellStart (zeroed here, cells + 1 entries).
 */
export function countDense<P>(
  pos: usize, n: i32, d: i32,
  originX: f64, originY: f64, originZ: f64, width: f64,
  cellsX: i32, layer: i32, cells: i32,
  cellOf: usize, cellStart: usize,
): void {
  memory.fill(cellStart, 0, <usize>(cells + 1) << 2);
  const size = sizeof<P>();
  if (d == 2) {
    for (let i = 0; i < n; i++) {
      const p = pos + <usize>(2 * i) * size;
      const c = <i32>(Math.floor((<f64>load<P>(p) - originX) / width) +
        Math.floor((<f64>load<P>(p + size) - originY) / width) * <f64>cellsX);
      store<i32>(cellOf + (<usize>i << 2), c);
      const at = cellStart + (<usize>c << 2);
      store<i32>(at, load<i32>(at) + 1);
    }
  } else {
    for (let i = 0; i < n; i++) {
      const p = pos + <usize>(3 * i) * size;
      const c = <i32>(Math.floor((<f64>load<P>(p) - originX) / width) +
        Math.floor((<f64>load<P>(p + size) - originY) / width) * <f64>cellsX +
        Math.floor((<f64>load<P>(p + 2 * size) - originZ) / width) * <f64>layer);
      store<i32>(cellOf + (<usize>i << 2), c);
      const at = cellStart + (<usize>c << 2);
      store<i32>(at, load<i32>(at) + 1);
    }
  }
}

/** Inclusive prefix sums of the counts (entry c becomes the end of cell c), entry `cells` = n. */
export function prefixSums(cellStart: usize, cells: i32, n: i32): void {
  let sum = 0;
  for (let c = 0; c < cells; c++) {
    const at = cellStart + (<usize>c << 2);
    sum += load<i32>(at);
    store<i32>(at, sum);
  }
  store<i32>(cellStart + (<usize>cells << 2), n);
}

/** Copies each point's index and coordinates to its place in cell order, from the last point back. */
export function scatter<P, C>(pos: usize, n: i32, d: i32, cellOf: usize, cellStart: usize, coords: usize, sortedIndex: usize): void {
  const ps = sizeof<P>();
  const cs = sizeof<C>();
  for (let i = n - 1; i >= 0; i--) {
    const at = cellStart + (<usize>load<i32>(cellOf + (<usize>i << 2)) << 2);
    const s = load<i32>(at) - 1;
    store<i32>(at, s);
    store<u32>(sortedIndex + (<usize>s << 2), i);
    const p = pos + <usize>(d * i) * ps;
    const q = coords + <usize>(d * s) * cs;
    store<C>(q, <C>load<P>(p));
    store<C>(q + cs, <C>load<P>(p + ps));
    if (d == 3) store<C>(q + 2 * cs, <C>load<P>(p + 2 * ps));
  }
}

/** (x, index) of sorted position a comes before that of b. */
// @ts-ignore: decorator
@inline function before<C>(coords: usize, order: usize, d: i32, a: i32, b: i32): bool {
  const xa = load<C>(coords + <usize>(d * a) * sizeof<C>());
  const xb = load<C>(coords + <usize>(d * b) * sizeof<C>());
  return xa < xb || (xa == xb && load<u32>(order + (<usize>a << 2)) < load<u32>(order + (<usize>b << 2)));
}

// @ts-ignore: decorator
@inline function swap<C>(coords: usize, order: usize, d: i32, a: i32, b: i32): void {
  const ia = order + (<usize>a << 2);
  const ib = order + (<usize>b << 2);
  const i = load<u32>(ia);
  store<u32>(ia, load<u32>(ib));
  store<u32>(ib, i);
  for (let k = 0; k < d; k++) {
    const pa = coords + <usize>(d * a + k) * sizeof<C>();
    const pb = coords + <usize>(d * b + k) * sizeof<C>();
    const v = load<C>(pa);
    store<C>(pa, load<C>(pb));
    store<C>(pb, v);
  }
}

function siftDown<C>(coords: usize, order: usize, d: i32, base: i32, root: i32, size: i32): void {
  for (;;) {
    let child = 2 * root + 1;
    if (child >= size) return;
    if (child + 1 < size && before<C>(coords, order, d, base + child, base + child + 1)) child++;
    if (!before<C>(coords, order, d, base + root, base + child)) return;
    swap<C>(coords, order, d, base + root, base + child);
    root = child;
  }
}

/**
 * Sorts every cell's points by (x, index), a total order, so the result is
 * the one sort-cells.ts and build-steps.ts give: insertion sort for the usual
 * handful, heapsort for crowded cells (coincident points stay O(k log k)).
 */
export function sortCells<C>(coords: usize, order: usize, cellStart: usize, cells: i32, d: i32): void {
  const cs = sizeof<C>();
  for (let c = 0; c < cells; c++) {
    const start = load<i32>(cellStart + (<usize>c << 2));
    const end = load<i32>(cellStart + (<usize>c << 2), 4);
    const size = end - start;
    if (size < 2) continue;
    if (size > SMALL_CELL) {
      for (let root = (size >> 1) - 1; root >= 0; root--) siftDown<C>(coords, order, d, start, root, size);
      for (let last = size - 1; last > 0; last--) {
        swap<C>(coords, order, d, start, start + last);
        siftDown<C>(coords, order, d, start, 0, last);
      }
      continue;
    }
    for (let s = start + 1; s < end; s++) {
      const q = coords + <usize>(d * s) * cs;
      const x = load<C>(q);
      const y = load<C>(q + cs);
      const z = d == 3 ? load<C>(q + 2 * cs) : <C>0;
      const index = load<u32>(order + (<usize>s << 2));
      let t = s;
      for (; t > start; t--) {
        const pq = coords + <usize>(d * (t - 1)) * cs;
        const px = load<C>(pq);
        if (px < x || (px == x && load<u32>(order + (<usize>(t - 1) << 2)) < index)) break;
        const tq = coords + <usize>(d * t) * cs;
        store<C>(tq, px);
        store<C>(tq + cs, load<C>(pq + cs));
        if (d == 3) store<C>(tq + 2 * cs, load<C>(pq + 2 * cs));
        store<u32>(order + (<usize>t << 2), load<u32>(order + (<usize>(t - 1) << 2)));
      }
      if (t != s) {
        const tq = coords + <usize>(d * t) * cs;
        store<C>(tq, x);
        store<C>(tq + cs, y);
        if (d == 3) store<C>(tq + 2 * cs, z);
        store<u32>(order + (<usize>t << 2), index);
      }
    }
  }
}
