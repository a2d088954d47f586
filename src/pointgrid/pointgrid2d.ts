/**
 * PointGrid2D: a uniform grid over a typed array of 2D points, built by
 * counting sort and rebuilt whenever the points move (article 002, made exact).
 *
 * @module
 */

import { checkArray, checkDistance, checkFinite, checkInteger, describe, type NumericArray } from '../core/validate.js';
import { Grid2D } from './grid2d.js';
import {
  type NeighborLists,
  type NeighborsOptions,
  type PairSearchOptions,
  type PairsOptions,
  type PointGridFromOptions,
  type PointGridLayout,
  type PointGridOptions,
  type PointPairVisitor,
  resolveCheck,
  resolveOptions,
} from './options.js';
import { PairSink } from './pair-sink.js';
import { forEachPair2D } from './pairs2d.js';
import { checkQuery, checkRebuild } from './pool-use.js';
import { nearest2D, within2D } from './query2d.js';
import { pinShapes } from './shape-pins.js';
import { type WithinManyOptions, withinMany } from './within-many.js';

/** Set by PointGrid2D.from() while its constructor adopts an already made grid. */
let adopted: Grid2D | undefined;
const EMPTY_POSITIONS = new Float64Array(0);

/**
 * A uniform grid over 2D points for fixed-radius neighbour search, k-nearest
 * queries and all-pairs search: particles, point clouds, picking.
 *
 * Built by a counting sort of the points by cell: each point's cell is
 * `floor((x - minX) / width)` per axis, points are counted per cell,
 * prefix-summed into `cellStart` and their indices and coordinates copied in
 * cell order (each cell sorted by x), so a neighbour loop reads memory in
 * sequence. When the bounding box of the points spans at most
 * `maxDenseCells` cells every cell is indexed directly (a row of cells is then
 * one contiguous run of points); otherwise occupied cells are found through
 * an open-addressing hash table of integer cell coordinates. Either way
 * results are exact: each point within the radius once, no points of other
 * cells, at any distance from the origin.
 *
 * Any radius works; a radius up to `cellSize` is the fast path (3x3 cells,
 * half of them for pair searches), a radius of k cell sizes looks at
 * (2k + 1)^2. The cell width is `cellSize` plus one part in a million and
 * every cell range is padded by a rounding margin, so float rounding at cell
 * borders can never hide a point the distance test accepts, while radius ==
 * cellSize keeps its 3x3 stencil.
 *
 * Point i is at `positions[offset + i * stride]` (x) and the next number (y).
 * The grid keeps its own copy of the coordinates (32-bit floats for a
 * Float32Array, 64-bit otherwise): after moving the points, call
 * {@link PointGrid2D.rebuild}. Distances are Euclidean, computed as
 * `dx * dx + dy * dy <= radius * radius` in float64, the library's one rule
 * (see the Reliability guide): a radius above about 1.34e154 squares to
 * Infinity and takes every point, and coordinates may be any finite numbers
 * whose extent (max - min) along each axis is finite. Cells wider than
 * `cellSize` are used when the points span more than 2^31 cells of it along
 * an axis; answers do not change, only speed.
 *
 * Memory beyond the caller's positions: the coordinate copy (as many bytes as
 * the positions for a packed Float32Array or Float64Array), 8 bytes per point
 * (indices and build scratch) and 4 bytes per cell of the box (dense) or
 * about 80 bytes per occupied cell (hashed: the build's table, cell starts,
 * the row-major renumbering and the keys and lookup kept in `data`; up to 16 more for Float32Array input, whose smaller
 * coordinate copy may not hold the renumbering's sort keys). Pair searches and nearest
 * reuse their buffers; pairs() and neighbors() allocate their results.
 *
 * @example
 * ```ts
 * const grid = new PointGrid2D(positions, { cellSize: h });
 * grid.forEachPair(h, (i, j, d2) => { ... });
 * // next frame, after the points moved:
 * grid.rebuild();
 * ```
 */
export class PointGrid2D {
  /** Edge of a grid cell, in position units, as given to the constructor. */
  readonly cellSize: number;
  /** Numbers between the starts of two consecutive points. */
  readonly stride: number;
  /** Index of the first point's x in the positions array. */
  readonly offset: number;

  private readonly grid: Grid2D;
  private readonly sink = new PairSink();

  /**
   * A grid over the buffer of another grid (its {@link PointGrid2D.data | data}, from any
   * thread: postMessage it, or share a SharedArrayBuffer), zero-copy: it
   * answers every query exactly as the grid that built the buffer did.
   *
   * The buffer is untrusted by default: `from` checks its header and its
   * whole body, in time linear in its size (see {@link PointGridFromOptions};
   * `{ check: 'header' }` skips the body for a buffer this library built).
   *
   * It has no positions array: {@link rebuild} needs one passed, and then
   * builds into this buffer (a SharedArrayBuffer is rebuilt for every grid
   * viewing it) or, when the buffer is too small, into a new one of its own.
   * {@link validate} checks everything but the copies against the positions.
   *
   * Grids over one SharedArrayBuffer see each other's rebuilds. A query that
   * runs while another thread rebuilds the buffer is the caller's race: its
   * answer may be wrong (a mix of the two builds), but it ends, and every
   * index it returns is below {@link count}. Order rebuilds and queries
   * (PointGridWorkers does) to get exact answers.
   *
   * @param data a grid's `data`: ArrayBuffer or SharedArrayBuffer.
   * @param options `check`: `'full'` (default) or `'header'`.
   * @throws Error when `data` is not a good PointGrid2D buffer, naming what is
   * wrong: not a buffer, no grid header, the other dimension, another format
   * version, truncated, a header field out of range or inconsistent, or (with
   * the full check) a body that does not hold a grid. RangeError for a bad
   * `options`.
   */
  static from(data: ArrayBuffer | SharedArrayBuffer, options?: PointGridFromOptions): PointGrid2D {
    const checkBody = resolveCheck(options);
    adopted = Grid2D.fromData(data, checkBody);
    try {
      return new PointGrid2D(EMPTY_POSITIONS, { cellSize: adopted.cellSize });
    } finally {
      adopted = undefined;
    }
  }

  /**
   * Builds the grid over `positions`. O(n) time.
   *
   * @param positions Float32Array, Float64Array or number[] of coordinates
   * (any numeric typed array works), e.g. a three.js BufferAttribute's array,
   * interleaved buffers included. Not modified; kept for {@link rebuild}.
   * @param options `cellSize` (required), `stride` (default 2), `offset`
   * (default 0), `maxDenseCells`: see {@link PointGridOptions}.
   * @throws RangeError for a cellSize that is not a finite number > 0, a
   * stride below 2, an offset outside the array, a length that ends inside a
   * point's coordinates (see {@link PointGridOptions.stride}), a BigInt64Array,
   * options given first (the arguments swapped), or a non-finite coordinate
   * (the message names the point index).
   */
  constructor(positions: NumericArray, options: PointGridOptions) {
    if (adopted !== undefined) {
      // from(): the grid is already made, over another grid's buffer.
      this.grid = adopted;
      this.cellSize = adopted.cellSize;
      this.stride = adopted.stride;
      this.offset = adopted.offset;
      return;
    }
    const resolved = resolveOptions(options, 2);
    this.cellSize = resolved.cellSize;
    this.stride = resolved.stride;
    this.offset = resolved.offset;
    const r = resolved;
    this.grid = new Grid2D(r.cellSize, r.stride, r.offset, r.maxDenseCells, positions, r.shared);
    this.grid.build(positions);
  }

  /**
   * The buffer holding all of the built grid (header, coordinates in cell
   * order, indices, cell starts, hashed cell table): a SharedArrayBuffer with
   * option `shared`, else an ArrayBuffer. Hand it to {@link from} in another
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
   * without positions on a grid made by {@link from}.
   */
  rebuild(positions: NumericArray | undefined = this.grid.positions): void {
    if (this.sink.busy) throw new Error('PointGrid2D.rebuild() cannot be called from inside a forEachPair visitor');
    if (this.grid.use !== undefined) checkRebuild('PointGrid2D.rebuild()', this.grid.use);
    if (positions === undefined) {
      throw new Error('PointGrid2D.rebuild(): this grid was made by from() and has no positions array: pass one');
    }
    this.grid.build(positions);
  }

  /**
   * Indices of the points at distance <= `radius` from (x, y), each once, in no
   * particular order. O(points in the cells the disc touches).
   *
   * @param out array to fill (emptied first); a new one by default.
   * @returns `out`.
   * @throws RangeError for a non-finite x or y, or a radius < 0 or NaN (Infinity finds every point).
   */
  within(x: number, y: number, radius: number, out: number[] = []): number[] {
    checkArray('out', out);
    if (this.grid.use !== undefined) checkQuery('PointGrid2D.within()', this.grid.use);
    checkFinite('x', x);
    checkFinite('y', y);
    checkDistance('radius', radius);
    this.grid.sync('within');
    const scratch = this.grid.scratchFor(this.grid.points);
    const found = within2D(this.grid, x, y, radius, scratch);
    out.length = found;
    for (let k = 0; k < found; k++) out[k] = scratch[k];
    return out;
  }

  /**
   * Allocation-free {@link within}: writes the indices of the points at
   * distance <= `radius` into `out` and returns how many there are. When
   * there are more than `out.length`, only the first `out.length` are written
   * (which ones is unspecified) and the full count is still returned, so a
   * result larger than `out.length` means "grow out and ask again". An `out`
   * of length {@link count} always suffices. Entries of `out` past the
   * returned count may be overwritten (candidates are written before they are
   * tested, which spares a branch per candidate).
   *
   * @throws RangeError for a non-finite x or y, or a radius < 0 or NaN.
   */
  withinInto(x: number, y: number, radius: number, out: Uint32Array): number {
    if (this.grid.use !== undefined) checkQuery('PointGrid2D.withinInto()', this.grid.use);
    // Inline checks: this is called once per point per frame.
    if (typeof x !== 'number' || x - x !== 0) checkFinite('x', x);
    if (typeof y !== 'number' || y - y !== 0) checkFinite('y', y);
    if (typeof radius !== 'number' || !(radius >= 0)) checkDistance('radius', radius);
    if (!(out instanceof Uint32Array)) throw new RangeError(`out must be a Uint32Array, got ${describe(out)}`);
    this.grid.sync('withinInto');
    const found = within2D(this.grid, x, y, radius, out);
    return found;
  }

  /**
   * The (at most) k points nearest to (x, y) within `maxDistance`, ascending by
   * distance, ties by ascending index. Searches rings of cells outward and
   * stops once no unvisited cell can hold a closer point; about
   * O(k + points in the cells up to the k-th distance).
   *
   * @param k how many, an integer >= 0 (default 1); fewer come back when the grid holds fewer.
   * @param maxDistance largest distance accepted (inclusive), default Infinity.
   * @param out array to fill (emptied first); a new one by default.
   * @returns `out`, the point indices.
   * @throws RangeError for a non-finite x or y, a k that is not an integer >= 0, or a maxDistance < 0 or NaN.
   */
  nearest(x: number, y: number, k = 1, maxDistance = Number.POSITIVE_INFINITY, out: number[] = []): number[] {
    checkArray('out', out);
    if (this.grid.use !== undefined) checkQuery('PointGrid2D.nearest()', this.grid.use);
    checkFinite('x', x);
    checkFinite('y', y);
    checkInteger('k', k, 0);
    checkDistance('maxDistance', maxDistance);
    this.grid.sync('nearest');
    return nearest2D(this.grid, x, y, k, maxDistance, out);
  }

  /**
   * The points within `radius` of each of many query points, as rows in
   * compressed sparse row form: row q (`indices[offsets[q]]` to
   * `indices[offsets[q + 1] - 1]`) lists what {@link within} answers for query
   * q, in the same order. Faster than a call per query: on the WebAssembly
   * kernels the queries are answered in the grid's cell order (a counting sort
   * by the cell holding each), so neighbouring queries read the same cells
   * from cache whatever order they are listed in; the rows still come in query
   * order. Allocates the two returned arrays (reused from `options.out` where
   * they have room) and a float64 copy of the queries.
   *
   * @param queries the query points' coordinates, x and y of query q at `offset + q * stride`.
   * @param radius largest distance included, >= 0 (Infinity finds every point).
   * @param options `stride` (default 2), `offset` (default 0), `out` (an earlier result to write into).
   * @throws RangeError for a radius < 0 or NaN, bad options, a queries array whose length leaves a
   * partial query, or a query coordinate that is not a finite number (naming the query).
   */
  withinMany(queries: NumericArray, radius: number, options?: WithinManyOptions): NeighborLists {
    return withinMany(this.grid, 2, queries, radius, options);
  }

  /**
   * Calls `visit(i, j, distanceSquared)` once for every unordered pair of
   * points at distance <= `radius`, with original indices i < j, in no
   * particular order. Each pair of neighbouring cells is visited once (half
   * stencil), and nothing is allocated after the first call. O(n + pairs
   * tested); with radius about cellSize each point is tested against about
   * 3 cells' worth of points (the x-sorted rows are cut to the radius).
   *
   * `visit` may call {@link within}, {@link withinInto} and {@link nearest},
   * but not {@link rebuild} or another pair search.
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
    if (this.grid.use !== undefined) checkQuery('PointGrid2D.forEachPair()', this.grid.use);
    this.sink.visitPairs('PointGrid2D', this.grid, radius, visit, forEachPair2D, options);
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
    if (this.grid.use !== undefined) checkQuery('PointGrid2D.pairs()', this.grid.use);
    return this.sink.pairs('PointGrid2D', this.grid, radius, forEachPair2D, options);
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
    if (this.grid.use !== undefined) checkQuery('PointGrid2D.neighbors()', this.grid.use);
    return this.sink.neighbors('PointGrid2D', this.grid, radius, forEachPair2D, options);
  }

  /**
   * Checks every internal invariant: the header and the body as
   * {@link from} does (cell starts ascending from 0 to count, every point once
   * in cell order, inside its cell and in x order, hashed cells distinct,
   * occupied and findable), and, for a grid built from positions here, each
   * copy equal to its source. For tests and debugging; O(n + cells + lookup
   * slots), whatever the buffer holds.
   *
   * @throws Error naming the first broken invariant, or when the grid's
   * buffer was transferred away.
   */
  validate(): void {
    if (this.grid.use !== undefined) checkQuery('PointGrid2D.validate()', this.grid.use);
    this.grid.validate();
  }

  // Keeps two small grids of this class alive for V8's sake (see shape-pins.ts);
  // a static block runs once the class is complete.
  static {
    pinShapes(2, (points, options) => {
      const grid = new PointGrid2D(points, options);
      // A one-point grid: its search finds no pair, so no pin reaches the
      // visitor call sites, which V8 inlines only while they have seen one visitor.
      const single = new PointGrid2D(points.subarray(0, 2), options);
      single.forEachPair(2, () => {});
      const out = new Uint32Array(64);
      grid.withinInto(0.5, 0.5, 2, out);
      return [grid, single, out, grid.pairs(2), grid.neighbors(2), grid.within(0.5, 0.5, 2), grid.nearest(0.5, 0.5, 2)];
    });
  }
}

/** The internal state of a PointGrid2D, for PointGridWorkers; not exported from the package. */
export function internalGrid2D(grid: PointGrid2D): Grid2D {
  return (grid as unknown as { grid: Grid2D }).grid;
}
