// The hashed build of grid2d.ts / grid3d.ts: the occupied cells of the
// points, numbered in row-major order (z, then y, then x), with their point
// counts and the lookup slots the queries probe. Only the set of cells
// decides the result (ids are ranks in row-major order, the lookup is filled
// in id order), so the table used to count them is this file's own.

import { cellAlong, radixOrder } from './build-loops';
import { hashCell2, hashCell3 } from './cell-hash';

// @ts-ignore: decorator
@inline function at4(base: usize, i: i32): usize {
  return base + (<usize>i << 2);
}

// @ts-ignore: decorator
@inline function at8(base: usize, i: i32): usize {
  return base + (<usize>i << 3);
}

/**
 * Counts the points per occupied cell: each point's first-seen cell id into
 * cellOf, the cells' coordinates (d per id, first-seen order) into keys and
 * their counts into counts. `table` has mask + 1 slots (id + 1, 0 empty).
 * Returns the number of cells, or -1 when they fill more than half the table
 * (sized to the cells expected rather than the points, so that it stays in
 * cache: the caller grows it and counts again).
 */
export function countHashed<P>(
  pos: usize, n: i32, d: i32, originX: f64, originY: f64, originZ: f64, width: f64,
  cellOf: usize, table: usize, mask: u32, keys: usize, counts: usize,
): i32 {
  memory.fill(table, 0, (<usize>mask + 1) << 2);
  const size = sizeof<P>();
  let cells = 0;
  for (let i = 0; i < n; i++) {
    const p = pos + <usize>(d * i) * size;
    const cx = cellAlong(<f64>load<P>(p), originX, width);
    const cy = cellAlong(<f64>load<P>(p + size), originY, width);
    const cz = d == 3 ? cellAlong(<f64>load<P>(p + 2 * size), originZ, width) : 0;
    let s = (d == 2 ? hashCell2(cx, cy) : hashCell3(cx, cy, cz)) & mask;
    let id = -1;
    for (;;) {
      const entry = load<i32>(at4(table, s));
      if (entry == 0) {
        // Past a load of 1/2 the caller grows the table and counts again.
        if (<u32>(2 * (cells + 1)) > mask) return -1;
        id = cells++;
        store<i32>(at4(table, s), id + 1);
        store<f64>(at8(keys, d * id), cx);
        store<f64>(at8(keys, d * id + 1), cy);
        if (d == 3) store<f64>(at8(keys, d * id + 2), cz);
        store<i32>(at4(counts, id), 0);
        break;
      }
      const k = entry - 1;
      if (
        load<f64>(at8(keys, d * k)) == cx && load<f64>(at8(keys, d * k + 1)) == cy &&
        (d == 2 || load<f64>(at8(keys, d * k + 2)) == cz)
      ) {
        id = k;
        break;
      }
      s = (s + 1) & mask;
    }
    store<i32>(at4(cellOf, i), id);
    const c = at4(counts, id);
    store<i32>(c, load<i32>(c) + 1);
  }
  return cells;
}

/** Sort position a is before b: their keys (d numbers each, most significant first) compared in order. */
// @ts-ignore: decorator
@inline function before(sortKeys: usize, d: i32, a: i32, b: i32): bool {
  for (let k = 0; k < d - 1; k++) {
    const ka = load<f64>(at8(sortKeys, d * a + k));
    const kb = load<f64>(at8(sortKeys, d * b + k));
    if (ka != kb) return ka < kb;
  }
  return load<f64>(at8(sortKeys, d * a + d - 1)) < load<f64>(at8(sortKeys, d * b + d - 1));
}

function swap(sortKeys: usize, ids: usize, d: i32, a: i32, b: i32): void {
  for (let k = 0; k < d; k++) {
    const pa = at8(sortKeys, d * a + k);
    const pb = at8(sortKeys, d * b + k);
    const v = load<f64>(pa);
    store<f64>(pa, load<f64>(pb));
    store<f64>(pb, v);
  }
  const ia = at4(ids, a);
  const ib = at4(ids, b);
  const i = load<i32>(ia);
  store<i32>(ia, load<i32>(ib));
  store<i32>(ib, i);
}

function siftDown(sortKeys: usize, ids: usize, d: i32, base: i32, root: i32, size: i32): void {
  for (;;) {
    let child = 2 * root + 1;
    if (child >= size) return;
    if (child + 1 < size && before(sortKeys, d, base + child, base + child + 1)) child++;
    if (!before(sortKeys, d, base + root, base + child)) return;
    swap(sortKeys, ids, d, base + root, base + child);
    root = child;
  }
}

/**
 * Sorts positions from..to-1 by their keys, moving the ids along, as
 * cell-order.ts does: quicksort with a median-of-three pivot on the
 * contiguous keys (cache-friendly), insertion sort for short runs, and
 * heapsort once `depth` is spent, so any order costs O(c log c).
 */
function sortRange(sortKeys: usize, ids: usize, d: i32, from: i32, to: i32, depth: i32): void {
  while (to - from > 16) {
    if (depth-- == 0) {
      const size = to - from;
      for (let root = (size >> 1) - 1; root >= 0; root--) siftDown(sortKeys, ids, d, from, root, size);
      for (let last = size - 1; last > 0; last--) {
        swap(sortKeys, ids, d, from, from + last);
        siftDown(sortKeys, ids, d, from, 0, last);
      }
      return;
    }
    const mid = from + ((to - from) >> 1);
    const last = to - 1;
    if (before(sortKeys, d, mid, from)) swap(sortKeys, ids, d, mid, from);
    if (before(sortKeys, d, last, from)) swap(sortKeys, ids, d, last, from);
    if (before(sortKeys, d, last, mid)) swap(sortKeys, ids, d, last, mid);
    swap(sortKeys, ids, d, from, mid);
    let i = from;
    let j = to;
    for (;;) {
      do i++;
      while (i < to && before(sortKeys, d, i, from));
      do j--;
      while (before(sortKeys, d, from, j));
      if (i >= j) break;
      swap(sortKeys, ids, d, i, j);
    }
    swap(sortKeys, ids, d, from, j);
    if (j - from < to - j - 1) {
      sortRange(sortKeys, ids, d, from, j, depth);
      from = j + 1;
    } else {
      sortRange(sortKeys, ids, d, j + 1, to, depth);
      to = j;
    }
  }
  for (let i = from + 1; i < to; i++) {
    for (let j = i; j > from && before(sortKeys, d, j, j - 1); j--) swap(sortKeys, ids, d, j, j - 1);
  }
}

/**
 * Numbers the cells in row-major order: sorts the cells by their coordinates
 * (z, y, x), writes the keys in that order to `sortedKeys` and the counts to
 * `cellStart`, and replaces each point's first-seen id in cellOf by its
 * cell's rank. `ids` and `rank` hold `cells` numbers each, `sortKeys` d
 * numbers per cell (2D's 2 numbers a cell hold the radix sort's 3 32-bit ones,
 * and `rank` its digit counts, 2^11 of them: it runs only from 2,048 cells,
 * so over at least as many points).
 */
export function orderCells(
  keys: usize, counts: usize, cells: i32, d: i32, n: i32, cellOf: usize,
  ids: usize, rank: usize, sortedKeys: usize, cellStart: usize, sortKeys: usize,
): void {
  // From 2,048 cells by a radix sort where the cells' box allows (see radixOrder), its arrays in sortKeys.
  const ranksB = sortKeys + (<usize>cells << 2);
  if (!radixOrder(keys, cells, d, ids, sortKeys, ranksB, ranksB + (<usize>cells << 2), rank)) {
    for (let i = 0; i < cells; i++) {
      store<i32>(at4(ids, i), i);
      for (let k = 0; k < d; k++) store<f64>(at8(sortKeys, d * i + k), load<f64>(at8(keys, d * i + d - 1 - k)));
    }
    sortRange(sortKeys, ids, d, 0, cells, 2 * (32 - clz<i32>(cells + 1)));
  }
  for (let r = 0; r < cells; r++) {
    const id = load<i32>(at4(ids, r));
    store<i32>(at4(rank, id), r);
    store<i32>(at4(cellStart, r), load<i32>(at4(counts, id)));
    for (let k = 0; k < d; k++) store<f64>(at8(sortedKeys, d * r + k), load<f64>(at8(keys, d * id + k)));
  }
  for (let i = 0; i < n; i++) store<i32>(at4(cellOf, i), load<i32>(at4(rank, load<i32>(at4(cellOf, i)))));
}

/** fillLookup of grid2d.ts / grid3d.ts: each cell's id at its hash, probing on, in id order. */
export function fillLookup(slots: usize, mask: u32, keys: usize, cells: i32, d: i32): void {
  memory.fill(slots, 0xff, (<usize>mask + 1) << 2);
  for (let id = 0; id < cells; id++) {
    const cx = load<f64>(at8(keys, d * id));
    const cy = load<f64>(at8(keys, d * id + 1));
    let s = (d == 2 ? hashCell2(cx, cy) : hashCell3(cx, cy, load<f64>(at8(keys, d * id + 2)))) & mask;
    while (load<i32>(at4(slots, s)) >= 0) s = (s + 1) & mask;
    store<i32>(at4(slots, s), id);
  }
}
