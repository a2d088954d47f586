/**
 * Sorting the points of crowded cells by x after a build.
 *
 * @module
 */

import { grownLength } from '../core/grow.js';
import { SMALL_CELL, sortByKeys } from '../core/sort-keys.js';

// A crowded cell is sorted through keys in scratch arrays, not in place: x, index and the point's slot in the
// cell, side by side. A comparison then reads two numbers that lie together rather than coordinates d apart, and
// a move is three numbers rather than d + 1; the coordinates are gathered into their order once at the end.
let xs = new Float64Array(0);
let indices = new Float64Array(0);
let slots = new Int32Array(0);
let copy = new Float64Array(0);

/** The scratch kept between builds covers cells of up to this many points. */
const SCRATCH_KEPT = 1 << 16;

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
    indices = new Float64Array(0);
    slots = new Int32Array(0);
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
    indices = new Float64Array(length);
    slots = new Int32Array(length);
    copy = new Float64Array(d * length);
  }
  if (copy.length < d * size) copy = new Float64Array(d * xs.length);
  for (let k = 0; k < size; k++) {
    xs[k] = coords[d * (start + k)];
    indices[k] = order[start + k];
    slots[k] = k;
  }
  sortByKeys(xs, indices, slots, size);
  const first = d * start;
  for (let k = 0; k < d * size; k++) copy[k] = coords[first + k];
  for (let k = 0; k < size; k++) {
    order[start + k] = indices[k];
    const from = d * slots[k];
    const to = first + d * k;
    for (let axis = 0; axis < d; axis++) coords[to + axis] = copy[from + axis];
  }
}
