/**
 * The state of a PointGrid2D and its build: a counting sort of the points by
 * cell into `cellStart`, `sortedIndex` and a copy of the coordinates in cell
 * order, over either the whole bounding box of cells (dense) or the occupied
 * cells found through an open-addressing table (hashed). Internal: the public
 * class checks arguments and delegates here, to query2d.ts and pairs2d.ts.
 *
 * @module
 */
import { CellTable } from '../core/cell-table.js';
import { grownLength } from '../core/grow.js';
import { checkLayout, type NumericArray, pointError } from '../core/validate.js';
import { CellOrder } from './cell-order.js';
import { CELL_SCALE } from './margins.js';
import { NearestHeap } from './nearest-heap.js';
import { checkPointCount, denseLimit, isFloat32 } from './options.js';
import { SMALL_CELL, sortCellsByX } from './sort-cells.js';

/** Buffers and bounds of one 2D point grid, rebuilt in place by {@link Grid2D.build}. */
export class Grid2D {
  readonly cellSize: number;
  readonly stride: number;
  readonly offset: number;
  /** cellSize plus one part in a million (see CELL_SCALE). */
  readonly cellWidth: number;
  readonly maxDenseCells: number | undefined;
  positions: NumericArray;
  points = 0;
  originX = 0;
  originY = 0;
  /** Cells spanned by the points' bounding box along x and y. */
  cellsX = 0;
  cellsY = 0;
  dense = true;
  /** Cells indexed by `cellStart`: the whole box when dense, the occupied cells when hashed. */
  cellTotal = 0;
  /** Coordinates in cell order, x and y interleaved. */
  coords: Float32Array | Float64Array = new Float64Array(0);
  /** Original index of each point in cell order. */
  sortedIndex = new Uint32Array(0);
  /** Point i of cell c is at `cellStart[c] + i`; `cellTotal + 1` entries. */
  cellStart = new Int32Array(1);
  /** Cell id per point while building; result buffer of `within`. */
  scratch = new Uint32Array(0);
  /** Hashed layout: cell coordinates -> cell id; ids run in row-major order of the cells (by y, then x) after each build. */
  table: CellTable | undefined = undefined;
  /** Hashed layout: puts the cells in row-major order at each build. */
  cellOrder: CellOrder | undefined = undefined;
  /** Sorted-order [start, end) runs a pair search tests against, gathered per cell. */
  ranges = new Int32Array(64);
  /** Reused by nearest queries. */
  readonly heap = new NearestHeap();

  constructor(
    cellSize: number,
    stride: number,
    offset: number,
    maxDenseCells: number | undefined,
    positions: NumericArray,
  ) {
    this.cellSize = cellSize;
    this.stride = stride;
    this.offset = offset;
    this.cellWidth = cellSize * CELL_SCALE;
    this.maxDenseCells = maxDenseCells;
    this.positions = positions;
  }

  /**
   * Validates every point of `positions`, then re-sorts them into the grid.
   * Throws before changing anything. O(n + cells).
   */
  build(positions: NumericArray): void {
    const stride = this.stride;
    const offset = this.offset;
    const n = checkLayout(positions, 2, stride, offset);
    checkPointCount('PointGrid2D', n);

    // Validate every point before touching anything, and find the bounds.
    // (x - x !== 0 is the cheap test for NaN and both infinities.)
    let minX = Number.POSITIVE_INFINITY;
    let minY = Number.POSITIVE_INFINITY;
    let maxX = Number.NEGATIVE_INFINITY;
    let maxY = Number.NEGATIVE_INFINITY;
    for (let i = 0, p = offset; i < n; i++, p += stride) {
      const x = positions[p];
      const y = positions[p + 1];
      if (x - x !== 0) throw pointError('positions', i, 'x', x);
      if (y - y !== 0) throw pointError('positions', i, 'y', y);
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
    // Cells count from the points' minimum corner: the dense box starts at
    // cell 0, and rounding in (x - origin) / width grows with the extent of
    // the points rather than their distance from 0, so a cloud at 1e12 gets
    // cells as exact (and stencils as small) as one at the origin.
    const width = this.cellWidth;
    const originX = n === 0 ? 0 : minX;
    const originY = n === 0 ? 0 : minY;
    const cellsX = n === 0 ? 0 : Math.floor((maxX - originX) / width) + 1;
    const cellsY = n === 0 ? 0 : Math.floor((maxY - originY) / width) + 1;
    const boxCells = cellsX * cellsY;
    const dense = boxCells <= denseLimit(this.maxDenseCells, n);

    // Hashed: room for a quarter as many cells as points to start with; the
    // count below grows it when the points are sparser than that.
    this.reserve(n, dense ? boxCells : Math.min(n, Math.max(64, n >> 2)), !dense, isFloat32(positions));
    this.positions = positions;
    this.points = n;
    this.originX = originX;
    this.originY = originY;
    this.cellsX = cellsX;
    this.cellsY = cellsY;
    this.dense = dense;

    const scratch = this.scratch;
    let cellStart = this.cellStart;
    let cells: number;
    if (dense) {
      cells = boxCells;
      cellStart.fill(0, 0, cells + 1);
      for (let i = 0, p = offset; i < n; i++, p += stride) {
        const c =
          Math.floor((positions[p] - originX) / width) + Math.floor((positions[p + 1] - originY) / width) * cellsX;
        scratch[i] = c;
        cellStart[c]++;
      }
    } else {
      cells = 0;
      const table = this.table!;
      table.clear();
      for (let i = 0, p = offset; i < n; i++, p += stride) {
        const cx = Math.floor((positions[p] - originX) / width);
        const cy = Math.floor((positions[p + 1] - originY) / width);
        const id = table.insert2(cx, cy);
        // After clear() ids come in first-seen order: a new cell takes the next one.
        if (id === cells) {
          if (++cells === cellStart.length) {
            const grown = new Int32Array(grownLength(cellStart.length, cells + 1));
            grown.set(cellStart);
            this.cellStart = cellStart = grown;
          }
          cellStart[id] = 0;
        }
        scratch[i] = id;
        cellStart[id]++;
      }
      // Row-major cell ids, so that pair searches read rows as runs (see CellOrder).
      this.cellOrder ??= new CellOrder();
      // The coordinate copy is filled only below, so the sort may keep its keys there.
      const spare = this.coords instanceof Float64Array ? this.coords : undefined;
      this.cellOrder.byRow(table, cellStart, cells, cellsY, 1, spare);
      const rank = this.cellOrder.rank;
      for (let i = 0; i < n; i++) scratch[i] = rank[scratch[i]];
    }
    this.cellTotal = cells;

    // Inclusive prefix sums: cellStart[c] becomes the end of cell c, and the
    // fill below walks it back to the start.
    let sum = 0;
    for (let c = 0; c < cells; c++) {
      sum += cellStart[c];
      cellStart[c] = sum;
    }
    cellStart[cells] = n;
    // Filling from the last point keeps each cell in ascending index order (then sorted by x).
    const coords = this.coords;
    const sortedIndex = this.sortedIndex;
    for (let i = n - 1, p = offset + (n - 1) * stride; i >= 0; i--, p -= stride) {
      const s = --cellStart[scratch[i]];
      sortedIndex[s] = i;
      coords[2 * s] = positions[p];
      coords[2 * s + 1] = positions[p + 1];
    }
    // Sort each cell by x, ties by index (see sortCellsByX): insertion sort
    // with the moving point held in locals for the usual handful.
    for (let c = 0; c < cells; c++) {
      const start = cellStart[c];
      const end = cellStart[c + 1];
      if (end - start < 2 || end - start > SMALL_CELL) continue;
      for (let s = start + 1; s < end; s++) {
        const x = coords[2 * s];
        const y = coords[2 * s + 1];
        const index = sortedIndex[s];
        let t = s;
        for (; t > start; t--) {
          const px = coords[2 * t - 2];
          if (px < x || (px === x && sortedIndex[t - 1] < index)) break;
          coords[2 * t] = px;
          coords[2 * t + 1] = coords[2 * t - 1];
          sortedIndex[t] = sortedIndex[t - 1];
        }
        if (t !== s) {
          coords[2 * t] = x;
          coords[2 * t + 1] = y;
          sortedIndex[t] = index;
        }
      }
    }
    sortCellsByX(coords, sortedIndex, cellStart, cells, 2);
  }

  /**
   * Checks every internal invariant against the positions array the grid was
   * built from: cell starts ascending from 0 to count, every point once in
   * cell order, each copy equal to its source and inside its cell, hashed
   * cells distinct, occupied and findable. For tests and debugging; O(n + cells).
   *
   * @throws Error naming the first broken invariant.
   */
  validate(): void {
    const n = this.points;
    const cells = this.cellTotal;
    const cellStart = this.cellStart;
    const fail = (what: string): never => {
      throw new Error(`PointGrid2D invariant broken: ${what}`);
    };
    if (n !== checkLayout(this.positions, 2, this.stride, this.offset)) fail('count differs from the positions');
    if (this.dense && cells !== this.cellsX * this.cellsY) fail('dense cell total is not the box size');
    if (cellStart[0] !== 0 || cellStart[cells] !== n) fail('cellStart does not run from 0 to count');
    const seen = new Uint8Array(n);
    const width = this.cellWidth;
    for (let c = 0; c < cells; c++) {
      const start = cellStart[c];
      const end = cellStart[c + 1];
      if (end < start) fail(`cellStart decreases at cell ${c}`);
      if (!this.dense && end === start) fail(`hashed cell ${c} is empty`);
      let cx: number;
      let cy: number;
      if (this.dense) {
        cx = c % this.cellsX;
        cy = Math.floor(c / this.cellsX);
      } else {
        cx = this.cellKeys[2 * c];
        cy = this.cellKeys[2 * c + 1];
        if (this.findCell(cx, cy) !== c) fail(`hashed cell ${c} (${cx}, ${cy}) is not found by its key`);
        const keys = this.cellKeys;
        if (c > 0 && (keys[2 * c - 1] > cy || (keys[2 * c - 1] === cy && keys[2 * c - 2] >= cx)))
          fail(`hashed cell ${c} (${cx}, ${cy}) is not after cell ${c - 1} in row-major order`);
      }
      for (let s = start; s < end; s++) {
        const i = this.sortedIndex[s];
        if (i >= n || seen[i] === 1) fail(`point ${i} is missing or listed twice`);
        seen[i] = 1;
        if (s > start) {
          const previous = this.coords[2 * (s - 1)];
          const x = this.coords[2 * s];
          if (previous > x || (previous === x && this.sortedIndex[s - 1] > i)) fail(`cell ${c} is not in x order`);
        }
        const p = this.offset + i * this.stride;
        const x = this.coords[2 * s];
        const y = this.coords[2 * s + 1];
        if (x !== this.positions[p] || y !== this.positions[p + 1]) fail(`copy of point ${i} differs from positions`);
        if (Math.floor((x - this.originX) / width) !== cx || Math.floor((y - this.originY) / width) !== cy) {
          fail(`point ${i} is not in its cell ${c}`);
        }
      }
    }
  }

  /** Makes every buffer big enough for n points and `cells` cells. Allocates before changing any state. */
  private reserve(n: number, cells: number, hashed: boolean, float32: boolean): void {
    const coordsFit = this.coords.length >= 2 * n && this.coords instanceof Float32Array === float32;
    if (!coordsFit) {
      const length = grownLength(this.coords instanceof Float32Array === float32 ? this.coords.length : 0, 2 * n);
      this.coords = float32 ? new Float32Array(length) : new Float64Array(length);
    }
    if (this.sortedIndex.length < n) {
      const length = grownLength(this.sortedIndex.length, n);
      this.sortedIndex = new Uint32Array(length);
      this.scratch = new Uint32Array(length);
    }
    if (this.cellStart.length < cells + 1)
      this.cellStart = new Int32Array(grownLength(this.cellStart.length, cells + 1));
    if (hashed && this.table === undefined) {
      // A first guess of a quarter as many cells as points; the table grows
      // while counting, so sparse points cost what they use.
      this.table = new CellTable(2, Math.max(64, n >> 2));
    }
  }

  /** Cell coordinates of the hashed layout's cells by id, 2 per cell. */
  get cellKeys(): Float64Array {
    return this.table!.keys;
  }

  /** Id of the occupied hashed cell (cx, cy), or -1. */
  findCell(cx: number, cy: number): number {
    return this.table!.find2(cx, cy);
  }
}
