/**
 * The introsort the builds share: positions sorted by two float64 keys with
 * a payload moved along (a hashed grid's cells by row then x, see
 * pointgrid/cell-order.ts; a crowded cell's points by x then index, see
 * pointgrid/sort-cells.ts; the kernels' sortCells does the latter in
 * src/wasm/assembly/build.ts).
 *
 * @module
 */

/** Runs below this many positions are insertion-sorted. */
const RUN = 16;

/**
 * A build's cells of up to this many points are insertion-sorted by x by the
 * build itself (specialised per dimension: pointgrid/build-loops.ts, and
 * the kernels' sortCells in src/wasm/assembly/build-loops.ts, whose
 * SMALL_CELL test/wasm/kernel-constants.test.ts holds equal to this);
 * crowded ones go through the introsort below (pointgrid/sort-cells.ts) or
 * the kernels' records.
 */
export const SMALL_CELL = 24;

/** Partitions allowed per halving of the positions before introsort turns to heapsort (tests lower it). */
let depthPerLevel = 2;

/**
 * Sets the partitions introsort allows per halving of the positions, here
 * and in the kernels (default 2), and returns the last value: at 0 every
 * sort of more than a run goes to heapsort, which tests compare with the
 * usual sort. Internal.
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
 * Sorts positions 0..count-1 by (first, then second), moving `payload`
 * along: quicksort (median of three, Hoare's partition) down to runs of 16,
 * insertion sort for those, and heapsort where the partitions allowed ran
 * out, so any order costs O(count log count). The key pairs must be
 * distinct, so that the order is total and any correct sort gives it.
 */
export function sortByKeys(first: Float64Array, second: Float64Array, payload: Int32Array, count: number): void {
  let depth = 0;
  for (let k = count; k > 1; k >>= 1) depth += depthPerLevel;
  introsort(first, second, payload, 0, count, depth);
}

function introsort(
  first: Float64Array,
  second: Float64Array,
  payload: Int32Array,
  from: number,
  to: number,
  depth: number,
): void {
  while (to - from > RUN) {
    if (depth === 0) {
      heapSort(first, second, payload, from, to);
      return;
    }
    depth--;
    const mid = from + ((to - from) >> 1);
    if (precedes(first, second, mid, from)) swap(first, second, payload, mid, from);
    if (precedes(first, second, to - 1, mid)) {
      swap(first, second, payload, to - 1, mid);
      if (precedes(first, second, mid, from)) swap(first, second, payload, mid, from);
    }
    // The median now at mid: Hoare's scans stop at it or before, so neither leaves the range.
    const p1 = first[mid];
    const p2 = second[mid];
    let i = from - 1;
    let j = to;
    for (;;) {
      do i++;
      while (first[i] < p1 || (first[i] === p1 && second[i] < p2));
      do j--;
      while (p1 < first[j] || (p1 === first[j] && p2 < second[j]));
      if (i >= j) break;
      swap(first, second, payload, i, j);
    }
    // from..j and j+1..to-1, each non-empty: the smaller by recursion, so the stack stays O(log count).
    if (j + 1 - from < to - j - 1) {
      introsort(first, second, payload, from, j + 1, depth);
      from = j + 1;
    } else {
      introsort(first, second, payload, j + 1, to, depth);
      to = j + 1;
    }
  }
  for (let s = from + 1; s < to; s++) {
    for (let t = s; t > from && precedes(first, second, t, t - 1); t--) swap(first, second, payload, t, t - 1);
  }
}

/** Position a sorts before position b. */
function precedes(first: Float64Array, second: Float64Array, a: number, b: number): boolean {
  return first[a] < first[b] || (first[a] === first[b] && second[a] < second[b]);
}

function swap(first: Float64Array, second: Float64Array, payload: Int32Array, a: number, b: number): void {
  const f = first[a];
  first[a] = first[b];
  first[b] = f;
  const s = second[a];
  second[a] = second[b];
  second[b] = s;
  const p = payload[a];
  payload[a] = payload[b];
  payload[b] = p;
}

function heapSort(first: Float64Array, second: Float64Array, payload: Int32Array, from: number, to: number): void {
  const size = to - from;
  for (let root = (size >> 1) - 1; root >= 0; root--) sift(first, second, payload, from, root, size);
  for (let last = size - 1; last > 0; last--) {
    swap(first, second, payload, from, from + last);
    sift(first, second, payload, from, 0, last);
  }
}

function sift(
  first: Float64Array,
  second: Float64Array,
  payload: Int32Array,
  base: number,
  root: number,
  size: number,
): void {
  for (;;) {
    let child = 2 * root + 1;
    if (child >= size) return;
    if (child + 1 < size && precedes(first, second, base + child, base + child + 1)) child++;
    if (!precedes(first, second, base + root, base + child)) return;
    swap(first, second, payload, base + root, base + child);
    root = child;
  }
}
