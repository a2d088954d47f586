/**
 * Row-major numbering of a hashed grid's occupied cells, so that pair
 * searches read a row of cells as one x-sorted run, as in the dense layout.
 *
 * @module
 */
import type { CellTable } from '../core/cell-table.js';
import { grownLength } from '../core/grow.js';
import { sortByKeys } from '../core/sort-keys.js';
import { RADIX_CELLS, RADIX_DIGITS, radixOrder } from './build-loops.js';

/**
 * Puts the occupied cells of a hashed grid in row-major order. One per grid,
 * created with its first hashed build; its buffers grow with the number of
 * occupied cells and are reused, so a steady rebuild allocates nothing.
 */
export class CellOrder {
  /** After {@link byRow}: the new id of each first-seen id. */
  rank = new Int32Array(0);
  /** Ids in sort order while sorting; the spare array that moves the counts after. */
  private ids = new Int32Array(0);
  /** Sort keys of the cell at each sort position: its row (see byRow) and its x. */
  private rows: Float64Array<ArrayBufferLike> = new Float64Array(0);
  private xs: Float64Array<ArrayBufferLike> = new Float64Array(0);
  /** The spare array `rows` and `xs` are halves of, when they are. */
  private spare: Float64Array | undefined = undefined;
  /** The radix sort's ranks (two arrays, a pass from one to the other), the ids it moves, and its digit counts. */
  private ranks = new Uint32Array(0);
  private ranksB = new Uint32Array(0);
  private idsB = new Int32Array(0);
  private readonly digits = new Int32Array(RADIX_DIGITS);

  /**
   * Renumbers the `count` occupied cells of `table`, just filled with ids
   * 0..count-1 in first-seen order, into row-major order of their coordinates
   * (relative to the grid's minimum corner, so 0 <= cy < cellsY and so on),
   * and moves their point counts (`cellStart[id]`) along. Then, as in the
   * dense layout, the occupied cells of one row within any x range have
   * consecutive ids, so a pair search reads them as one x-sorted run of
   * points instead of cell by cell. O(count) by a radix sort from 2,048
   * cells in a box of at most 2^32 cells, else O(count log count), whatever
   * the first-seen order. `spare`, when given, is free memory (the grid's
   * coordinate copy, filled only afterwards) to keep the sort keys in.
   */
  byRow(
    table: CellTable,
    cellStart: Int32Array,
    count: number,
    cellsY: number,
    cellsZ: number,
    spare: Float64Array | undefined,
  ): void {
    if (this.ids.length < count) {
      const length = grownLength(this.ids.length, count);
      this.ids = new Int32Array(length);
      this.rank = new Int32Array(length);
    }
    if (spare !== undefined && spare.length >= 2 * count) {
      // Views made once per spare array, so a steady rebuild allocates nothing.
      if (spare !== this.spare) {
        const half = spare.length >> 1;
        this.rows = spare.subarray(0, half);
        this.xs = spare.subarray(half, 2 * half);
        this.spare = spare;
      }
    } else if (this.spare !== undefined || this.rows.length < count) {
      const length = grownLength(this.spare !== undefined ? 0 : this.rows.length, count);
      this.rows = new Float64Array(length);
      this.xs = new Float64Array(length);
      this.spare = undefined;
    }
    // Each loop is a function of its own, so that a per-frame rebuild keeps
    // them optimised (see build-loops.ts).
    const ids = this.ids;
    const keys = table.keys;
    const d = table.dimension;
    identity(ids, count);
    // From 2,048 cells by a radix sort where the cells' box allows (see radixOrder in build-loops.ts).
    if (!this.radixOrder(keys, d, count)) {
      if (cellsY * cellsZ <= 2 ** 53) {
        // A row is one number: y in 2D, z * cellsY + y in 3D, exact while the
        // layers hold at most 2^53 rows.
        rowKeys(keys, d, cellsY, this.rows, this.xs, count);
        sortByKeys(this.rows, this.xs, ids, count);
      } else {
        // Points spread over more than 2^53 rows: compare the coordinates themselves.
        sortByCoordinates(ids, keys, d, 0, count);
      }
    }
    const rank = this.rank;
    invert(ids, rank, count);
    table.renumber(rank);
    // Counts by new id, through `ids` (no longer needed) as the spare array.
    moveCounts(cellStart, rank, ids, count);
  }

  /** radixOrder (build-loops.ts) into `ids`, its arrays grown for `count` cells first (and kept, as the others are). */
  private radixOrder(keys: Float64Array, d: number, count: number): boolean {
    if (count < RADIX_CELLS) return false;
    if (this.ranks.length < count) {
      const length = grownLength(this.ranks.length, count);
      this.ranks = new Uint32Array(length);
      this.ranksB = new Uint32Array(length);
      this.idsB = new Int32Array(length);
    }
    return radixOrder(keys, count, d, this.ids, this.ranks, this.ranksB, this.idsB, this.digits);
  }
}

/** ids[i] = i for i < count. */
function identity(ids: Int32Array, count: number): void {
  for (let id = 0; id < count; id++) ids[id] = id;
}

/** The sort keys of cells 0..count-1: row (y in 2D, z * cellsY + y in 3D) and x. */
function rowKeys(
  keys: Float64Array,
  d: number,
  cellsY: number,
  rows: Float64Array,
  xs: Float64Array,
  count: number,
): void {
  if (d === 2) {
    for (let id = 0; id < count; id++) {
      rows[id] = keys[2 * id + 1];
      xs[id] = keys[2 * id];
    }
  } else {
    for (let id = 0; id < count; id++) {
      rows[id] = keys[3 * id + 2] * cellsY + keys[3 * id + 1];
      xs[id] = keys[3 * id];
    }
  }
}

/** rank[ids[r]] = r: the new id of each old one, from the old ids in new order. */
function invert(ids: Int32Array, rank: Int32Array, count: number): void {
  for (let r = 0; r < count; r++) rank[ids[r]] = r;
}

/** Moves each cell's count from its old id to its new one, through `spare`. */
function moveCounts(cellStart: Int32Array, rank: Int32Array, spare: Int32Array, count: number): void {
  for (let id = 0; id < count; id++) spare[rank[id]] = cellStart[id];
  for (let r = 0; r < count; r++) cellStart[r] = spare[r];
}

/**
 * Sorts ids[from..to) into row-major order of the cells' coordinates in
 * `keys` (z, then y, then x) with the built-in sort. Only for what the
 * scalar row keys cannot do, so its comparator may allocate.
 */
function sortByCoordinates(ids: Int32Array, keys: Float64Array, d: number, from: number, to: number): void {
  ids.subarray(from, to).sort((a, b) => {
    for (let k = d - 1; k >= 0; k--) {
      const difference = keys[a * d + k] - keys[b * d + k];
      if (difference !== 0) return difference;
    }
    return 0;
  });
}
