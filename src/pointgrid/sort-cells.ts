/**
 * Sorting the points of crowded cells by x after a build.
 *
 * @module
 */

import { grownLength } from '../core/grow.js';

/** Cells up to this many points are insertion-sorted by the build itself (specialised per dimension). */
export const SMALL_CELL = 24;

// A crowded cell is sorted through keys in scratch arrays, not in place: x, index and the point's slot in the
// cell, side by side. A comparison then reads two numbers that lie together rather than coordinates d apart, and
// a move is three numbers rather than d + 1; the coordinates are gathered into their order once at the end.
let xs = new Float64Array(0);
let ids = new Uint32Array(0);
let slots = new Uint32Array(0);
let copy = new Float64Array(0);

/** Key runs below this many are insertion-sorted by introsort. */
const RUN = 16;

/** The scratch kept between builds covers cells of up to this many points. */
const SCRATCH_KEPT = 1 << 16;

/** Partitions introsort allows per halving of a cell's points before it turns to heapsort (tests lower it). */
let depthPerLevel = 2;

/**
 * Sets the partitions introsort allows per halving of a crowded cell's
 * points, here and in the kernels (default 2), and returns the last value:
 * at 0 every crowded cell is heapsorted, which tests compare with the usual
 * sort. Internal.
 */
export function introDepthForTests(perLevel: number): number {
  const last = depthPerLevel;
  depthPerLevel = perLevel;
  return last;
}

/** Partitions introsort allows per halving (see {@link introDepthForTests}): the kernels' sort takes it too. */
export function introDepthPerLevel(): number {
  return depthPerLevel;
}

/**
 * Sorts every cell of a build by x (ties by index), in place in the
 * cell-ordered coordinates and indices. Cells are already in x order along a
 * row, so a whole row then reads left to right: a pair search can stop at
 * the first point more than a radius to the right and skip those more than
 * a radius to the left. This handles crowded cells (more than SMALL_CELL
 * points), by introsort of keys, so coincident points cost O(k log k); the
 * build sorts the usual handful itself.
 */
export function sortCellsByX(
  coords: Float32Array | Float64Array,
  order: Uint32Array,
  cellStart: Int32Array,
  cells: number,
  d: number,
): void {
  for (let c = 0; c < cells; c++) {
    const start = cellStart[c];
    const end = cellStart[c + 1];
    // Small cells were insertion-sorted by the caller's build loop.
    if (end - start > SMALL_CELL) sortCrowdedCell(coords, order, d, start, end);
  }
  // Scratch for a cell of more than 65,536 points (coincident points, or a cell size far too large) is not
  // kept: it would hold 40 bytes a point for as long as the module lives.
  if (xs.length > SCRATCH_KEPT) {
    xs = new Float64Array(0);
    ids = new Uint32Array(0);
    slots = new Uint32Array(0);
    copy = new Float64Array(0);
  }
}

/** Sorts the points of sorted positions start..end-1 by (x, index) through the scratch keys. */
function sortCrowdedCell(
  coords: Float32Array | Float64Array,
  order: Uint32Array,
  d: number,
  start: number,
  end: number,
): void {
  const size = end - start;
  if (xs.length < size) {
    const length = grownLength(xs.length, size);
    xs = new Float64Array(length);
    ids = new Uint32Array(length);
    slots = new Uint32Array(length);
    copy = new Float64Array(d * length);
  }
  if (copy.length < d * size) copy = new Float64Array(d * xs.length);
  for (let k = 0; k < size; k++) {
    xs[k] = coords[d * (start + k)];
    ids[k] = order[start + k];
    slots[k] = k;
  }
  let depth = 0;
  for (let k = size; k > 1; k >>= 1) depth += depthPerLevel;
  sortKeys(0, size, depth);
  const first = d * start;
  for (let k = 0; k < d * size; k++) copy[k] = coords[first + k];
  for (let k = 0; k < size; k++) {
    order[start + k] = ids[k];
    const from = d * slots[k];
    const to = first + d * k;
    for (let axis = 0; axis < d; axis++) coords[to + axis] = copy[from + axis];
  }
}

/** Key a is before key b: by x, then by index (a total order: indices differ). */
function precedes(a: number, b: number): boolean {
  return xs[a] < xs[b] || (xs[a] === xs[b] && ids[a] < ids[b]);
}

function swapKeys(a: number, b: number): void {
  const x = xs[a];
  xs[a] = xs[b];
  xs[b] = x;
  const i = ids[a];
  ids[a] = ids[b];
  ids[b] = i;
  const s = slots[a];
  slots[a] = slots[b];
  slots[b] = s;
}

/**
 * Introsort of keys from..to-1: quicksort (median of three, Hoare's
 * partition) down to runs of RUN, then insertion sort, and heapsort where
 * `depth` partitions ran out, so the worst case stays O(k log k). The same
 * order as the kernels' sort of records (src/wasm/assembly/build.ts).
 */
function sortKeys(from: number, to: number, depth: number): void {
  while (to - from > RUN) {
    if (depth === 0) {
      heapSortKeys(from, to);
      return;
    }
    depth--;
    const mid = from + ((to - from) >> 1);
    if (precedes(mid, from)) swapKeys(mid, from);
    if (precedes(to - 1, mid)) {
      swapKeys(to - 1, mid);
      if (precedes(mid, from)) swapKeys(mid, from);
    }
    // The median now at mid: Hoare's scans stop at it or before, so neither leaves the range.
    const px = xs[mid];
    const pi = ids[mid];
    let i = from - 1;
    let j = to;
    for (;;) {
      do i++;
      while (xs[i] < px || (xs[i] === px && ids[i] < pi));
      do j--;
      while (px < xs[j] || (px === xs[j] && pi < ids[j]));
      if (i >= j) break;
      swapKeys(i, j);
    }
    // from..j and j+1..to-1, each non-empty: the smaller by recursion, so the stack stays O(log k).
    if (j + 1 - from < to - j - 1) {
      sortKeys(from, j + 1, depth);
      from = j + 1;
    } else {
      sortKeys(j + 1, to, depth);
      to = j + 1;
    }
  }
  for (let s = from + 1; s < to; s++) {
    for (let t = s; t > from && precedes(t, t - 1); t--) swapKeys(t, t - 1);
  }
}

function heapSortKeys(from: number, to: number): void {
  const size = to - from;
  for (let root = (size >> 1) - 1; root >= 0; root--) siftKeys(from, root, size);
  for (let last = size - 1; last > 0; last--) {
    swapKeys(from, from + last);
    siftKeys(from, 0, last);
  }
}

function siftKeys(base: number, root: number, size: number): void {
  for (;;) {
    let child = 2 * root + 1;
    if (child >= size) return;
    if (child + 1 < size && precedes(base + child, base + child + 1)) child++;
    if (!precedes(base + root, base + child)) return;
    swapKeys(base + root, base + child);
    root = child;
  }
}
