/**
 * Sorting the points of crowded cells by x after a build.
 *
 * @module
 */

/** Cells up to this many points are insertion-sorted by the build itself (specialised per dimension). */
export const SMALL_CELL = 24;

/** (x, index) of sorted position a is before that of b. */
function before(coords: Float32Array | Float64Array, order: Uint32Array, d: number, a: number, b: number): boolean {
  const xa = coords[d * a];
  const xb = coords[d * b];
  return xa < xb || (xa === xb && order[a] < order[b]);
}

/** Swaps sorted positions a and b: index and every coordinate. */
function swap(coords: Float32Array | Float64Array, order: Uint32Array, d: number, a: number, b: number): void {
  const i = order[a];
  order[a] = order[b];
  order[b] = i;
  for (let k = 0; k < d; k++) {
    const v = coords[d * a + k];
    coords[d * a + k] = coords[d * b + k];
    coords[d * b + k] = v;
  }
}

/**
 * Sorts the points of every cell by x (ties by index), in place in the
 * cell-ordered coordinates and indices. Cells are already in x order along a
 * row, so a whole row then reads left to right: a pair search can stop at
 * the first point more than a radius to the right and skip those more than
 * a radius to the left. This handles crowded cells (more than SMALL_CELL
 * points) by heapsort, so coincident points cost O(k log k); the build sorts
 * the usual handful itself.
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
    const size = end - start;
    // Small cells were insertion-sorted by the caller's build loop.
    if (size <= SMALL_CELL) continue;
    // Heapsort on positions start..end-1 (a max-heap, then pop to the back).
    for (let root = (size >> 1) - 1; root >= 0; root--) siftDown(coords, order, d, start, root, size);
    for (let last = size - 1; last > 0; last--) {
      swap(coords, order, d, start, start + last);
      siftDown(coords, order, d, start, 0, last);
    }
  }
}

function siftDown(
  coords: Float32Array | Float64Array,
  order: Uint32Array,
  d: number,
  base: number,
  root: number,
  size: number,
): void {
  for (;;) {
    let child = 2 * root + 1;
    if (child >= size) return;
    if (child + 1 < size && before(coords, order, d, base + child, base + child + 1)) child++;
    if (!before(coords, order, d, base + root, base + child)) return;
    swap(coords, order, d, base + root, base + child);
    root = child;
  }
}
