/**
 * What PointGrid2D and PointGrid3D share, written once: the options, the
 * buffer and its getters, rebuild, withinMany, the pair searches
 * (forEachPair, pairs, neighbors) and validate, over the grid of their
 * dimension (Grid2D, Grid3D) and its half-stencil search. What differs is
 * the signature of the queries that take a point (within, withinInto,
 * nearest) and each class's own TSDoc, in pointgrid2d.ts and pointgrid3d.ts.
 *
 * @module
 */

import type { NeighborLists } from '../core/results.js';
import type { NumericArray } from '../core/validate.js';
import type { GridArgs } from './grid-base.js';
import type { Grid2D } from './grid2d.js';
import type { Grid3D } from './grid3d.js';
import {
  type NeighborsOptions,
  type PairSearchOptions,
  type PairsOptions,
  type PointGridLayout,
  type PointGridOptions,
  type PointPairBatchVisitor,
  type PointPairVisitor,
  resolveOptions,
} from './options.js';
import { type PairSearch, PairSink } from './pair-sink.js';
import { checkQuery, checkRebuild } from './pool-use.js';
import { type WithinManyOptions, withinMany } from './within-many.js';

/** Set by {@link adopting} while a class's constructor takes over a grid already made (by from()). */
let adopted: Grid2D | Grid3D | undefined;

/** What from() gives its constructor for positions: a grid opened from a buffer has none of its own. */
export const EMPTY_POSITIONS = new Float64Array(0);

/**
 * Runs `make` (a call of a PointGrid class's constructor) so that it takes
 * over `grid` instead of building one: how from() makes a PointGrid2D or
 * PointGrid3D of a grid opened over another grid's buffer.
 */
export function adopting<T>(grid: Grid2D | Grid3D, make: () => T): T {
  adopted = grid;
  try {
    return make();
  } finally {
    adopted = undefined;
  }
}

/** What a PointGrid class builds on: Grid2D or Grid3D, the constructor and its static `dimension`. */
type GridClass = { new (...args: GridArgs): Grid2D | Grid3D; readonly dimension: 2 | 3 };

/**
 * Base of PointGrid2D and PointGrid3D; not exported from the package.
 * `grid` and `sink` are the library's own (PointGridWorkers reads the grid
 * through internalGrid2D / internalGrid3D), not the user's: they are marked
 * internal, so that the package's declarations name no internal type.
 */
export abstract class PointGridBase {
  /** Edge of a grid cell, in position units, as given to the constructor. */
  readonly cellSize: number;
  /** Numbers between the starts of two consecutive points. */
  readonly stride: number;
  /** Index of the first point's x in the positions array. */
  readonly offset: number;

  /** @internal The grid's state: a Grid2D or Grid3D, as each class declares. */
  protected readonly grid: Grid2D | Grid3D;
  /** @internal Where the pair searches send what they find. */
  protected readonly sink = new PairSink();
  /**
   * The half-stencil search of the grid's dimension (forEachPair2D or
   * forEachPair3D): always given this class's own kind of grid.
   */
  private readonly search: PairSearch<Grid2D | Grid3D>;

  /**
   * @internal Builds a grid of class `Grid` (Grid2D or Grid3D) over
   * `positions` with `options`, or takes over the grid from() opened (see
   * {@link adopting}); `search` is the pair search of that dimension.
   */
  protected constructor(
    positions: NumericArray,
    options: PointGridOptions,
    Grid: GridClass,
    search: PairSearch<Grid2D> | PairSearch<Grid3D>,
  ) {
    let grid = adopted;
    if (grid === undefined) {
      const r = resolveOptions(options, Grid.dimension);
      grid = new Grid(r.cellSize, r.stride, r.offset, r.maxDenseCells, positions, r.shared);
      grid.build(positions);
    }
    this.cellSize = grid.cellSize;
    this.stride = grid.stride;
    this.offset = grid.offset;
    this.grid = grid;
    // (The class pairs its grid with its own dimension's search, so the search is only ever given its own kind.)
    this.search = search as PairSearch<Grid2D | Grid3D>;
  }

  /**
   * The buffer holding all of the built grid (header, coordinates in cell
   * order, indices, cell starts, hashed cell table): a SharedArrayBuffer with
   * option `shared`, else an ArrayBuffer. Hand it to `from` in another
   * thread. A rebuild writes into the same buffer while it fits; a rebuild
   * with more points (or cells) than it has room for allocates a new one, so
   * `data` changes identity then and other threads need the new one.
   */
  get data(): ArrayBuffer | SharedArrayBuffer {
    return this.grid.data;
  }

  /** Number of points in the grid. */
  get count(): number {
    this.grid.syncQuietly();
    return this.grid.points;
  }

  /** How the cells are stored since the last build (see {@link PointGridLayout}). */
  get layout(): PointGridLayout {
    this.grid.syncQuietly();
    return this.grid.dense ? 'dense' : 'hashed';
  }

  /**
   * Re-hashes every point: after the points moved, or from a new array of the
   * same layout (stride and offset), whose point count may differ. Buffers are
   * reused and grow by half again when the count outgrows them, so a steady
   * loop allocates nothing. O(n) time.
   *
   * @param positions the array to read, by default the one given last.
   * @throws RangeError as the constructor; a rejected rebuild leaves the grid
   * as it was. Error when called from inside a {@link forEachPair} visitor, or
   * without positions on a grid made by `from`.
   */
  rebuild(positions: NumericArray | undefined = this.grid.positions): void {
    const label = this.grid.label;
    if (this.sink.busy) throw new Error(`${label}.rebuild() cannot be called from inside a forEachPair visitor`);
    if (this.grid.use !== undefined) checkRebuild(`${label}.rebuild()`, this.grid.use);
    if (positions === undefined) {
      throw new Error(`${label}.rebuild(): this grid was made by from() and has no positions array: pass one`);
    }
    this.grid.build(positions);
  }

  /**
   * The points within `radius` of each of many query points, as rows in
   * compressed sparse row form: row q (`indices[offsets[q]]` to
   * `indices[offsets[q + 1] - 1]`) lists what `within` answers for query
   * q, in the same order. Faster than a call per query: on the WebAssembly
   * kernels the queries are answered in the grid's cell order (a counting sort
   * by the cell holding each), so neighbouring queries read the same cells
   * from cache whatever order they are listed in; the rows still come in query
   * order. Allocates the two returned arrays (reused from `options.out` where
   * they have room) and a float64 copy of the queries.
   *
   * @param queries the query points' coordinates, x and y (x, y and z for a PointGrid3D) of query q at
   * `offset + q * stride`.
   * @param radius largest distance included, >= 0 (Infinity finds every point).
   * @param options `stride` (default 2, or 3 for a PointGrid3D), `offset` (default 0), `out` (an earlier
   * result to write into).
   * @throws RangeError for a radius < 0 or NaN, bad options, a queries array whose length leaves a
   * partial query, or a query coordinate that is not a finite number (naming the query).
   */
  withinMany(queries: NumericArray, radius: number, options?: WithinManyOptions): NeighborLists {
    return withinMany(this.grid, this.grid.dimension, queries, radius, options);
  }

  /**
   * Calls `visit(i, j, distanceSquared)` once for every unordered pair of
   * points at distance <= `radius`, with original indices i < j, in no
   * particular order. Each pair of neighbouring cells is visited once (half
   * stencil), and nothing is allocated after the first call. O(n + pairs
   * tested); with radius about cellSize each point is tested against about
   * 3 cells' worth of points in 2D, 9 in 3D (the x-sorted rows are cut to
   * the radius).
   *
   * `visit` may call `within`, `withinInto` and `nearest`, but not
   * {@link rebuild} or another pair search.
   *
   * Only a visitor declared with three parameters gets the distance; one of
   * 0, 1 or 2 parameters (`(i, j) => ...`) is called with the pair only, so a
   * steady loop allocates nothing at all whatever V8 does with it. V8 boxes a
   * double passed to a call it does not inline, one allocation per pair, so
   * a three-parameter visitor allocates nothing only where V8 inlines it (a
   * lone visitor in a small program), and otherwise one small short-lived
   * number per pair: prefer `(i, j)` and recompute the distance where a
   * steady loop must not collect garbage. (A visitor whose third parameter has a
   * default, or that reads `arguments`, declares fewer and gets the default.)
   *
   * `options.part` / `options.parts` search one slice of the pairs (see
   * {@link PairSearchOptions}): the slices are disjoint and together give
   * every pair once, for splitting the search across workers.
   *
   * @throws RangeError for a radius < 0 or NaN (Infinity pairs every point),
   * or a part / parts that is not an integer with 0 <= part < parts;
   * Error when called from inside another pair search's visitor.
   */
  forEachPair(radius: number, visit: PointPairVisitor, options?: PairSearchOptions): void {
    const grid = this.grid;
    if (grid.use !== undefined) checkQuery(`${grid.label}.forEachPair()`, grid.use);
    this.sink.visitPairs(grid.label, grid, radius, visit, this.search, options);
  }

  /**
   * The pairs of {@link forEachPair}, handed over a batch at a time:
   * `visit(pairs, count)` gets `count` pairs of original indices, pair k
   * being `pairs[2 * k] < pairs[2 * k + 1]`, as many calls as it takes (up
   * to 16,384 pairs a batch on the WebAssembly kernels, 2,048 on the
   * JavaScript path; more once one point's candidates have needed more).
   * The same pairs in the same order as forEachPair, and the same options;
   * nothing is allocated after the first call.
   *
   * For a loop that does little per pair: forEachPair calls its visitor once
   * per pair, which costs more than the visit itself where V8 does not
   * inline it, while a loop over `pairs` in the visitor's own body pays no
   * call per pair and, unlike pairs(), builds no list of every pair (the
   * performance guide has the figures).
   *
   * `pairs` is the search's own memory (on the WebAssembly kernels, a view
   * of theirs), valid until `visit` returns: the next batch is written over
   * it. It may be longer than `2 * count`; read the first `2 * count`
   * numbers. `visit` may call `within`, `withinInto` and `nearest`, but not
   * {@link rebuild} or another pair search.
   *
   * @throws RangeError for a radius < 0 or NaN (Infinity pairs every point),
   * a `visit` that is not a function, or a part / parts that is not an
   * integer with 0 <= part < parts; Error when called from inside another
   * pair search's visitor.
   */
  forEachPairBatch(radius: number, visit: PointPairBatchVisitor, options?: PairSearchOptions): void {
    const grid = this.grid;
    if (grid.use !== undefined) checkQuery(`${grid.label}.forEachPairBatch()`, grid.use);
    this.sink.visitBatches(grid.label, grid, radius, visit, this.search, options);
  }

  /**
   * Every unordered pair of points at distance <= `radius`, flat
   * `[i0, j0, i1, j1, ...]` with i < j in each pair, in the search's order:
   * not sorted, but the same for the same positions and options, from every
   * call and from PointGridWorkers whatever its thread count.
   * Allocates the returned array, growing it while searching; it may be a
   * view of a buffer up to an eighth longer (the search's own, not copied).
   * A loop that passes its last result as `options.out` (see
   * {@link PairsOptions}) has the pairs written into that buffer when they
   * fit, and takes no result memory once warm.
   * With `options.part` / `parts` (see {@link PairSearchOptions}), only that
   * slice's pairs, in the full search's order: the slices' results
   * concatenated in part order are the full result. 8 bytes per pair; a
   * result longer than `options.maxResultLength` numbers (default 2^31 - 1)
   * throws before its memory is taken (see {@link PairsOptions}).
   *
   * @throws RangeError for a radius < 0 or NaN, a bad part / parts or
   * maxResultLength, an `out` that is not a Uint32Array or is a view of the
   * grid's own buffer, or a result longer than maxResultLength (naming its
   * pairs and bytes). Error when the grid's buffer was transferred away.
   */
  pairs(radius: number, options?: PairsOptions): Uint32Array {
    const grid = this.grid;
    if (grid.use !== undefined) checkQuery(`${grid.label}.pairs()`, grid.use);
    return this.sink.pairs(grid.label, grid, radius, this.search, options);
  }

  /**
   * Every point's neighbours within `radius` (itself excluded) in compressed
   * sparse row form, what an SPH solver consumes. Row i lists its neighbours
   * in the search's order, not ascending (sorting every row would cost about
   * half again the whole call), but the same for the same positions and
   * options, from every call and from PointGridWorkers whatever its thread
   * count. One pass over the half stencil finds each pair
   * once and keeps, per point, the run of partners it found; the rows are
   * then counted and filled from those runs. Allocates the two returned
   * arrays (8 bytes per pair, each pair in two rows, and 4 bytes per point)
   * plus, transiently, the runs (4 bytes per pair) and two arrays of
   * 4 bytes per point: 12 bytes per pair at the peak. A loop that passes its
   * last result as `options.out` (see {@link NeighborsOptions}) allocates
   * none of them once warm. Rows longer than `options.maxResultLength`
   * numbers in all (default 2^31 - 1) throw before their memory is taken.
   *
   * With `options.part` / `parts` (see {@link PairSearchOptions}), row i lists
   * the neighbours of i through that slice's pairs only: row i of the slices
   * concatenated in part order is row i of the full search.
   *
   * @throws RangeError for a radius < 0 or NaN, a bad part / parts or
   * maxResultLength, an `out` that is not an earlier result, or rows longer
   * than maxResultLength (naming the pairs and bytes). Error when the grid's
   * buffer was transferred away.
   */
  neighbors(radius: number, options?: NeighborsOptions): NeighborLists {
    const grid = this.grid;
    if (grid.use !== undefined) checkQuery(`${grid.label}.neighbors()`, grid.use);
    return this.sink.neighbors(grid.label, grid, radius, this.search, options);
  }

  /**
   * Checks every internal invariant: the header and the body as
   * `from` does (cell starts ascending from 0 to count, every point once
   * in cell order, inside its cell and in x order, hashed cells distinct,
   * occupied and findable), and, for a grid built from positions here, each
   * copy equal to its source. For tests and debugging; O(n + cells + lookup
   * slots), whatever the buffer holds.
   *
   * @throws Error naming the first broken invariant, or when the grid's
   * buffer was transferred away.
   */
  validate(): void {
    const grid = this.grid;
    if (grid.use !== undefined) checkQuery(`${grid.label}.validate()`, grid.use);
    grid.validate();
  }
}
