/**
 * The state of a PointGrid2D or PointGrid3D and its build, written once for
 * both dimensions: a counting sort of the points by cell into `cellStart`,
 * `sortedIndex` and a copy of the coordinates in cell order, over either the
 * whole bounding box of cells (dense) or the occupied cells found through an
 * open-addressing table (hashed). Internal: the public classes check
 * arguments and delegate here, and to the queries and searches
 * (within-point.ts, query2d.ts, query3d.ts, pair-visits.ts).
 *
 * Everything here is cold (once per build, per call or per buffer) and
 * follows the dimension `d`; a 2D grid is one layer deep (originZ 0, cellsZ
 * 1, as its header says). What differs per dimension is the hot steps of the
 * build (build-loops.ts, one function per loop and dimension) and the cell
 * lookup, which grid2d.ts and grid3d.ts give.
 *
 * @module
 */

import { hashCell2, hashCell3 } from '../core/cell-hash.js';
import { CellTable } from '../core/cell-table.js';
import { hugeRadiusCovers } from '../core/distance.js';
import { grownLength } from '../core/grow.js';
import { checkLayout, type NumericArray } from '../core/validate.js';
import { buildDense, buildHashed } from '../wasm/build-kernels.js';
import { onJavaScript, verifying } from '../wasm/kernels.js';
import { cellAlong, prefixSums, renumber } from './build-loops.js';
import { CellOrder } from './cell-order.js';
import { bodyProblem, copiesProblem, type GridBody } from './check-data.js';
import {
  allocateGrid,
  baseCellWidth,
  type Capacities,
  capacitiesOf,
  cellWidthFor,
  checkExtent,
  detachedError,
  FLAG_DENSE,
  FLAG_FLOAT32,
  fitCapacity,
  type GridViews,
  H_BUILDS,
  H_CELL_SIZE,
  H_CELL_TOTAL,
  H_CELL_WIDTH,
  H_CELLS_X,
  H_CELLS_Y,
  H_CELLS_Z,
  H_FLAGS,
  H_MAX_DENSE_CELLS,
  H_OFFSET,
  H_ORIGIN_X,
  H_ORIGIN_Y,
  H_ORIGIN_Z,
  H_POINTS,
  H_STRIDE,
  headerProblem,
  readGrid,
  slotsFor,
  verifySameGrid,
  writeGridOptions,
} from './grid-data.js';
import { NearestHeap } from './nearest-heap.js';
import { checkPointCount, denseLimit, isFloat32 } from './options.js';
import type { PoolUse } from './pool-use.js';
import { sortCellsByX } from './sort-cells.js';

/**
 * The arguments of Grid2D's and Grid3D's constructors: the options, the
 * positions built from (undefined for a grid opened from a buffer), and, to
 * open a buffer, its sections.
 */
export type GridArgs = [
  cellSize: number,
  stride: number,
  offset: number,
  maxDenseCells: number | undefined,
  positions: NumericArray | undefined,
  shared: boolean,
  views?: GridViews,
];

/** What a grid class is: Grid2D or Grid3D, whose static `dimension` says which. */
interface GridClass<G extends GridBase> {
  new (...args: GridArgs): G;
  readonly dimension: 2 | 3;
}

/**
 * Buffers and bounds of one point grid, rebuilt in place by
 * {@link GridBase.build}. Its dimension is its class's (the static
 * `dimension` of Grid2D or Grid3D), so the subclasses need no constructor.
 */
export abstract class GridBase {
  /** Numbers per point. */
  readonly dimension: 2 | 3;
  /** The public class, for messages: 'PointGrid2D' or 'PointGrid3D'. */
  readonly label: string;
  readonly cellSize: number;
  readonly stride: number;
  readonly offset: number;
  /**
   * The cell width a build starts from: cellSize plus one part in a million
   * (see CELL_SCALE), at most Number.MAX_VALUE (see baseCellWidth).
   */
  readonly cellWidth: number;
  /**
   * Width of the cells of the last build: cellWidth, or wider when the points
   * span more than MAX_AXIS_CELLS / 2 cells of it (see cellWidthFor). Every
   * query reads this one.
   */
  width: number;
  readonly maxDenseCells: number | undefined;
  /** Whether the buffer is a SharedArrayBuffer (option `shared`). */
  readonly shared: boolean;
  /**
   * Whether queries clamp the indices they hand over to the count (see
   * core/bounded.ts): when another thread may write the buffer (shared), or its
   * body was not checked (from() with check 'header'). A grid built here, or
   * opened from a checked ArrayBuffer, holds a permutation no one else writes.
   */
  clampsIndices: boolean;
  /** The array last built from; undefined for a grid made by from() until it is rebuilt from one. */
  positions: NumericArray | undefined;
  /**
   * Whether the buffer holds this grid's own last build from {@link positions}
   * (false once another grid over the buffer rebuilt it, see {@link sync}):
   * only then does {@link validate} compare the copies with the positions.
   */
  holdsPositions = true;
  /** Builds published into the buffer as this grid last read or wrote the header's count (see H_BUILDS). */
  builds = 0;
  points = 0;
  /** The minimum corner of the points' bounding box (originZ is 0 in 2D). */
  originX = 0;
  originY = 0;
  originZ = 0;
  /** Cells spanned by the points' bounding box along each axis (cellsZ is 1 in 2D). */
  cellsX = 0;
  cellsY = 0;
  cellsZ = 1;
  dense = true;
  /** Cells indexed by `cellStart`: the whole box when dense, the occupied cells when hashed. */
  cellTotal = 0;
  /** The one buffer every section below is a view of (see grid-data.ts); replaced when a build outgrows it. */
  data!: ArrayBuffer | SharedArrayBuffer;
  /** Header numbers at the start of `data`. */
  header!: Float64Array;
  /** What `data` has room for. */
  capacity: Capacities;
  /** Coordinates in cell order, `dimension` numbers a point (x, y[, z]) interleaved. */
  coords!: Float32Array | Float64Array;
  /** Original index of each point in cell order. */
  sortedIndex!: Uint32Array;
  /** Point i of cell c is at `cellStart[c] + i`; `cellTotal + 1` entries. */
  cellStart!: Int32Array;
  /**
   * Hashed layout: cell coordinates by id, `dimension` per cell, ids in
   * row-major order of the cells (by z, then y, then x).
   */
  keys!: Float64Array;
  /** Hashed layout: open-addressing lookup of `keys` (cell id or -1 per slot), `slotMask + 1` slots. */
  slots!: Int32Array;
  slotMask = 0;
  /** Cell id per point while building; result buffer of `within`. Per thread: not in `data`. */
  scratch = new Uint32Array(0);
  /** Hashed build: point count per first-seen cell id, before they move into `cellStart`. */
  cellCounts = new Int32Array(0);
  /** Hashed build: cell coordinates -> first-seen cell id. Not in `data`: only the build uses it. */
  table: CellTable | undefined = undefined;
  /** Hashed layout: puts the cells in row-major order at each build. */
  cellOrder: CellOrder | undefined = undefined;
  /** Bounds of the points found by a build: the minimum per axis, then the maximum per axis. */
  private readonly bounds: Float64Array;
  /** Reused by nearest queries. */
  readonly heap = new NearestHeap();
  /** How a PointGridWorkers pool is using the buffer (see pool-use.ts); cleared by {@link publish}. */
  use: PoolUse | undefined = undefined;

  constructor(...[cellSize, stride, offset, maxDenseCells, positions, shared, views]: GridArgs) {
    const d = (new.target as unknown as GridClass<GridBase>).dimension;
    this.dimension = d;
    this.label = d === 2 ? 'PointGrid2D' : 'PointGrid3D';
    this.cellSize = cellSize;
    this.stride = stride;
    this.offset = offset;
    this.cellWidth = baseCellWidth(cellSize);
    this.width = this.cellWidth;
    this.maxDenseCells = maxDenseCells;
    this.positions = positions;
    this.shared = shared;
    this.clampsIndices = shared;
    this.bounds = new Float64Array(2 * d);
    const v = views ?? allocateGrid(d, { points: 0, cellStarts: 1, keyCells: 0, slots: 0, float32: false }, shared);
    this.capacity = capacitiesOf(v.header);
    this.useViews(v);
    if (views === undefined) {
      writeGridOptions(v.header, cellSize, stride, offset, maxDenseCells);
      this.publish();
    }
  }

  /**
   * A grid of this class (Grid2D or Grid3D) over the buffer of another one
   * (`grid.data`), zero-copy: its sections become this grid's arrays and its
   * header its bounds. Checks the header (O(1)), and with `checkBody` the
   * rest too (O(buffer), see check-data.ts); PointGridWorkers' threads reopen
   * the grid on every task and skip the body.
   *
   * @throws Error when `data` is not a grid buffer of this class's dimension
   * and this version, whole, with a consistent header (and body), naming what
   * is wrong.
   */
  static fromData<G extends GridBase>(this: GridClass<G>, data: unknown, checkBody = false): G {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class called, Grid2D or Grid3D, whose grid is made.
    const d = this.dimension;
    const label = d === 2 ? 'PointGrid2D' : 'PointGrid3D';
    const v = readGrid(label, data, d);
    const header = headerProblem(v.header, d, capacitiesOf(v.header));
    if (header !== undefined) throw new Error(`${label}.from: data has a bad PointGrid header: ${header}`);
    const h = v.header;
    const maxDense = h[H_MAX_DENSE_CELLS];
    const shared = typeof SharedArrayBuffer !== 'undefined' && v.data instanceof SharedArrayBuffer;
    const grid = new this(
      h[H_CELL_SIZE],
      h[H_STRIDE],
      h[H_OFFSET],
      maxDense < 0 ? undefined : maxDense,
      undefined,
      shared,
      v,
    );
    grid.load();
    grid.holdsPositions = false;
    grid.clampsIndices = shared || !checkBody;
    if (checkBody) {
      const problem = bodyProblem(grid.body());
      if (problem !== undefined) throw new Error(`${label}.from: data has a bad PointGrid body: ${problem}`);
    }
    return grid;
  }

  /** What the body check reads (see check-data.ts). */
  body(): GridBody {
    const d = this.dimension;
    return {
      d,
      points: this.points,
      cellTotal: this.cellTotal,
      dense: this.dense,
      cells: d === 2 ? [this.cellsX, this.cellsY] : [this.cellsX, this.cellsY, this.cellsZ],
      origin: d === 2 ? [this.originX, this.originY] : [this.originX, this.originY, this.originZ],
      width: this.width,
      cellSize: this.cellSize,
      coords: this.coords,
      sortedIndex: this.sortedIndex,
      cellStart: this.cellStart,
      keys: this.keys,
      slots: this.slots,
    };
  }

  /**
   * Whether every pair of points is within `radius` (see core/distance.ts's
   * hugeRadiusCovers): radius Infinity, or a radius whose square overflows
   * and that spans the box of the grid's cells. A pair search then takes
   * every pair, and its count is known before it runs.
   */
  coversEveryPair(radius: number): boolean {
    // (Only a radius whose square overflows can: no array of sides for the others, once per search.)
    if (!(radius * radius > Number.MAX_VALUE)) return false;
    const width = this.width;
    const x = this.cellsX * width;
    const y = this.cellsY * width;
    return hugeRadiusCovers(radius, this.dimension === 2 ? [x, y] : [x, y, this.cellsZ * width]);
  }

  /**
   * Throws unless the buffer is still this thread's: a buffer transferred to
   * another thread (postMessage, structuredClone with transfer) is detached,
   * and every view of it reads as empty. One length read per call.
   */
  attached(method: string): void {
    if (this.header.length === 0) throw detachedError(`${this.label}.${method}`);
  }

  /**
   * Makes this grid's numbers those of the last build published into its
   * buffer. Another grid over the same buffer (a from() view, or the grid it
   * was opened from, in this thread or another) may have rebuilt it in place
   * since this one last read the header: then the header is checked again
   * (O(1), as from() checks it) and read. One header read per call when
   * nothing changed. Every query and search calls it first.
   *
   * @throws Error when the buffer was transferred away (see {@link attached}),
   * or another grid left a header that does not hold a grid.
   */
  sync(method: string): void {
    const h = this.header;
    // (A detached buffer's header reads as empty, so its count as undefined.)
    if (h[H_BUILDS] === this.builds) return;
    this.attached(method);
    const problem = headerProblem(h, this.dimension, this.capacity);
    if (problem !== undefined) {
      throw new Error(
        `${this.label}.${method}: another grid over this grid's buffer left a bad header in it: ${problem}`,
      );
    }
    this.load();
    this.holdsPositions = false;
  }

  /** {@link sync} for a getter: nothing is thrown, and a detached or bad header leaves the numbers as they are. */
  syncQuietly(): void {
    const h = this.header;
    if (h.length === 0 || h[H_BUILDS] === this.builds || headerProblem(h, this.dimension, this.capacity) !== undefined)
      return;
    this.load();
    this.holdsPositions = false;
  }

  /** Reads the bounds of the last build back from the header (another thread may have rebuilt into the buffer). */
  load(): void {
    const h = this.header;
    this.points = h[H_POINTS];
    this.cellTotal = h[H_CELL_TOTAL];
    this.cellsX = h[H_CELLS_X];
    this.cellsY = h[H_CELLS_Y];
    this.originX = h[H_ORIGIN_X];
    this.originY = h[H_ORIGIN_Y];
    // (A 2D grid keeps its 1 and 0, which its checked header holds too.)
    if (this.dimension === 3) {
      this.cellsZ = h[H_CELLS_Z];
      this.originZ = h[H_ORIGIN_Z];
    }
    this.width = h[H_CELL_WIDTH];
    this.dense = (h[H_FLAGS] & FLAG_DENSE) !== 0;
    this.slotMask = this.slots.length - 1;
    this.builds = h[H_BUILDS];
  }

  /** Writes the bounds of the last build into the header, for from() and other threads. */
  publish(): void {
    this.use = undefined;
    const h = this.header;
    // A build changed what the buffer holds: every other grid over it, and the kernels' copy of it, learn so from
    // the count (see sync and KernelGrid.builds).
    this.builds = h[H_BUILDS] + 1;
    h[H_BUILDS] = this.builds;
    h[H_POINTS] = this.points;
    h[H_CELL_TOTAL] = this.cellTotal;
    h[H_CELLS_X] = this.cellsX;
    h[H_CELLS_Y] = this.cellsY;
    h[H_CELLS_Z] = this.cellsZ;
    h[H_ORIGIN_X] = this.originX;
    h[H_ORIGIN_Y] = this.originY;
    h[H_ORIGIN_Z] = this.originZ;
    h[H_CELL_WIDTH] = this.width;
    h[H_FLAGS] = (this.dense ? FLAG_DENSE : 0) | (this.capacity.float32 ? FLAG_FLOAT32 : 0);
  }

  /** Makes `scratch` hold at least `n` numbers (within() of a grid made by from() allocates it on first use). */
  scratchFor(n: number): Uint32Array {
    if (this.scratch.length < n) this.scratch = new Uint32Array(grownLength(this.scratch.length, n));
    return this.scratch;
  }

  /**
   * Validates every point of `positions`, then re-sorts them into the grid.
   * Throws before changing anything. O(n + cells).
   */
  build(positions: NumericArray): void {
    const d = this.dimension;
    const stride = this.stride;
    const offset = this.offset;
    const n = checkLayout(positions, d, stride, offset);
    checkPointCount(this.label, n);
    // Each loop is a function of build-loops.ts, so that V8 optimises them
    // one by one rather than this method mid-loop (see there).
    // Validate every point before touching anything, and find the bounds.
    const b = this.bounds;
    if (n > 0) this.findBounds(positions, n, b);
    // Cells count from the points' minimum corner: the dense box starts at
    // cell 0, and rounding in (x - origin) / width grows with the extent of
    // the points rather than their distance from 0, so a cloud at 1e12 gets
    // cells as exact (and stencils as small) as one at the origin.
    const extent = n === 0 ? 0 : checkExtent(this.label, b, d);
    const width = cellWidthFor(this.cellWidth, extent);
    const originX = n === 0 ? 0 : b[0];
    const originY = n === 0 ? 0 : b[1];
    const originZ = n === 0 || d === 2 ? 0 : b[2];
    const cellsX = n === 0 ? 0 : cellAlong(b[d], originX, width) + 1;
    const cellsY = n === 0 ? 0 : cellAlong(b[d + 1], originY, width) + 1;
    const cellsZ = d === 2 ? 1 : n === 0 ? 0 : cellAlong(b[5], originZ, width) + 1;
    const boxCells = cellsX * cellsY * cellsZ;
    const dense = boxCells <= denseLimit(this.maxDenseCells, n);

    // Hashed: the cell starts are sized once the occupied cells are counted.
    this.reserve(n, dense ? boxCells : 0, isFloat32(positions));
    if (!dense) this.reserveHashed(n);
    this.positions = positions;
    this.holdsPositions = true;
    this.points = n;
    this.originX = originX;
    this.originY = originY;
    this.originZ = originZ;
    this.cellsX = cellsX;
    this.cellsY = cellsY;
    this.cellsZ = cellsZ;
    this.width = width;
    this.dense = dense;
    // The build runs on the WebAssembly kernels where they are on (src/wasm/build-kernels.ts).
    if (dense) {
      this.cellTotal = boxCells;
      if (buildDense(this, positions)) {
        this.publish();
        if (verifying()) this.verifyBuild(positions);
        return;
      }
    } else if (buildHashed(this, positions, (cells) => this.reserveCells(cells))) {
      this.publish();
      if (verifying()) this.verifyBuild(positions);
      return;
    }

    const scratch = this.scratch;
    let cells: number;
    if (dense) {
      cells = boxCells;
      this.cellStart.fill(0, 0, cells + 1);
      this.countDense(positions, n);
    } else {
      const table = this.table!;
      table.clear();
      const counts = this.cellCounts;
      cells = this.countHashed(positions, n);
      // Now that the cells are known, make room for their starts, keys and lookup in the buffer, before anything
      // is written into it: a build that outgrows the buffer moves to a new one and must leave the old one as it
      // was, since grids over it (a from() view, another thread's grid) keep answering the build it holds.
      this.reserveCells(cells);
      // Row-major cell ids, so that pair searches read rows as runs (see CellOrder).
      const order = this.cellOrder!;
      // The coordinate copy (of the buffer the build ends in) is filled only below, so the sort may keep its
      // keys there.
      const spare = this.coords instanceof Float64Array ? this.coords : undefined;
      order.byRow(table, counts, cells, cellsY, cellsZ, spare);
      renumber(scratch, order.rank, n);
      this.cellStart.set(counts.subarray(0, cells));
      this.keys.set(table.keys.subarray(0, d * cells));
    }
    this.cellTotal = cells;
    prefixSums(this.cellStart, cells, n);
    this.scatter(positions, n);
    // Sort each cell by x, ties by index: the usual handful by insertion, crowded ones by heapsort.
    this.sortSmallCells(cells);
    sortCellsByX(this.coords, this.sortedIndex, this.cellStart, cells, d);
    if (!dense) this.fillLookup(cells);
    this.publish();
  }

  /** The build's bounds of the first `n` points (checked finite): bounds2 or bounds3 of build-loops.ts. */
  protected abstract findBounds(positions: NumericArray, n: number, bounds: Float64Array): void;

  /** The dense build's count of the points per cell, into `cellStart` (each point's cell into `scratch`). */
  protected abstract countDense(positions: NumericArray, n: number): void;

  /**
   * The hashed build's count: the occupied cells into `table`, the points
   * per first-seen cell into `cellCounts` (each point's cell into
   * `scratch`); returns the cells.
   */
  protected abstract countHashed(positions: NumericArray, n: number): number;

  /** Copies each point's index and coordinates to its place in cell order (cells from `scratch`). */
  protected abstract scatter(positions: NumericArray, n: number): void;

  /** Sorts the cells of up to SMALL_CELL points by x, ties by index (the build's own insertion sort). */
  protected abstract sortSmallCells(cells: number): void;

  /**
   * Mode 'verify', after a build on the kernels: builds the same positions on
   * the JavaScript path into the same buffer and compares the two byte for byte.
   */
  private verifyBuild(positions: NumericArray): void {
    const kernels = new Uint8Array(this.data.slice(0));
    onJavaScript(() => this.build(positions));
    verifySameGrid(`${this.label} build`, this.dimension, kernels, new Uint8Array(this.data));
  }

  /**
   * The first step of a build done by other threads (PointGridWorkers): takes
   * the checked count and bounds of a dense build of `positions`, makes room
   * and sets the bounds. The caller then fills cellStart, sortedIndex and
   * coords exactly as {@link build} would and calls {@link publish}.
   */
  prepareDense(positions: NumericArray, n: number, origin: number[], cells: number[]): void {
    const d = this.dimension;
    const boxCells = d === 2 ? cells[0] * cells[1] : cells[0] * cells[1] * cells[2];
    this.reserve(n, boxCells, isFloat32(positions));
    this.positions = positions;
    this.holdsPositions = true;
    this.points = n;
    this.originX = origin[0];
    this.originY = origin[1];
    this.cellsX = cells[0];
    this.cellsY = cells[1];
    if (d === 3) {
      this.originZ = origin[2];
      this.cellsZ = cells[2];
    }
    this.width = this.cellWidth;
    this.dense = true;
    this.cellTotal = boxCells;
  }

  /**
   * Checks every internal invariant: the header's numbers and the body as
   * from() does (see check-data.ts), and, when the grid was built here, the
   * count and every copied coordinate against the positions array. For tests
   * and debugging; O(n + cells + lookup slots), never more.
   *
   * @throws Error naming the first broken invariant.
   */
  validate(): void {
    // What the buffer holds now, as every query reads it: another grid over the buffer may have rebuilt it since
    // this one last read the header (checking the new body against the old header's bounds would report a broken
    // grid that is not).
    this.sync('validate');
    const body = this.body();
    const positions = this.positions;
    const problem =
      headerProblem(this.header, this.dimension, this.capacity) ??
      bodyProblem(body) ??
      (positions === undefined || !this.holdsPositions
        ? undefined
        : copiesProblem(body, positions, this.stride, this.offset));
    if (problem !== undefined) throw new Error(`${this.label} invariant broken: ${problem}`);
  }

  /**
   * Makes the buffer big enough for n points and, when dense, `cells` cells,
   * with coordinates of the input's precision. A buffer that does not fit is
   * replaced by a new one (contents are rebuilt, not copied), so `data`
   * changes identity after a growing build. Allocates before changing any state.
   */
  private reserve(n: number, cells: number, float32: boolean): void {
    const c = this.capacity;
    // A buffer transferred to another thread reads as empty here: build into a new one.
    const detached = this.header.length === 0;
    if (detached || c.points < n || c.cellStarts < cells + 1 || c.float32 !== float32) {
      this.reallocate({
        points: fitCapacity(c.float32 === float32 ? c.points : 0, n),
        cellStarts: fitCapacity(c.cellStarts, cells + 1),
        keyCells: c.keyCells,
        slots: c.slots,
        float32,
      });
    }
    if (this.scratch.length < n) this.scratch = new Uint32Array(grownLength(this.scratch.length, n));
  }

  /** Hashed build: the cell table and order, and room to count up to n cells (there are at most n). */
  private reserveHashed(n: number): void {
    this.table ??= new CellTable(this.dimension, Math.max(64, n >> 2));
    this.cellOrder ??= new CellOrder();
    if (this.cellCounts.length < n)
      this.cellCounts = new Int32Array(grownLength(this.cellCounts.length, Math.max(64, n)));
  }

  /** Hashed build: room for the starts, keys and lookup of `cells` occupied cells, keeping the points' sections. */
  private reserveCells(cells: number): void {
    const c = this.capacity;
    if (c.cellStarts >= cells + 1 && c.keyCells >= cells) return;
    const keyCells = fitCapacity(c.keyCells, cells);
    const next = { ...c, cellStarts: fitCapacity(c.cellStarts, cells + 1), keyCells, slots: slotsFor(keyCells) };
    // Nothing of the points is in the buffer yet at this stage of the build.
    this.reallocate(next);
  }

  private reallocate(capacity: Capacities): void {
    const v = allocateGrid(this.dimension, capacity, this.shared);
    writeGridOptions(v.header, this.cellSize, this.stride, this.offset, this.maxDenseCells);
    this.useViews(v);
    // A new buffer has seen no build.
    this.builds = 0;
    this.capacity = capacity;
  }

  /** Makes the sections of `v` this grid's buffer and arrays. */
  private useViews(v: GridViews): void {
    this.data = v.data;
    this.header = v.header;
    this.coords = v.coords;
    this.sortedIndex = v.sortedIndex;
    this.cellStart = v.cellStart;
    this.keys = v.keys;
    this.slots = v.slots;
    this.slotMask = v.slots.length - 1;
  }

  /** Hashed build: the lookup from cell coordinates to the (row-major) ids in `keys`, in the buffer. */
  private fillLookup(cells: number): void {
    const slots = this.slots;
    const keys = this.keys;
    const mask = this.slotMask;
    const d = this.dimension;
    slots.fill(-1);
    for (let id = 0, k = 0; id < cells; id++, k += d) {
      let s = (d === 2 ? hashCell2(keys[k], keys[k + 1]) : hashCell3(keys[k], keys[k + 1], keys[k + 2])) & mask;
      // Bounded whatever the slots hold: a full lookup (slots left from another build, say) throws, never hangs.
      for (let probes = 0; slots[s] >= 0; probes++) {
        if (probes > mask)
          throw new Error(`${this.label}: the cell lookup is full (${cells} cells, ${mask + 1} slots)`);
        s = (s + 1) & mask;
      }
      slots[s] = id;
    }
  }

  /** Cell coordinates of the hashed layout's cells by id, `dimension` per cell. */
  get cellKeys(): Float64Array {
    return this.keys;
  }
}
