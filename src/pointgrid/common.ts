/**
 * What PointGrid2D and PointGrid3D share that is not hot: options, the
 * rounding margins that keep cell stencils exact, buffer growth and the
 * k-nearest heap.
 *
 * @module
 */
import type { CellTable } from '../cells.js';
import { checkDistance, checkInteger, checkPositive, describe, type NumericArray } from '../validate.js';

/** Options of {@link PointGrid2D} and {@link PointGrid3D}. */
export interface PointGridOptions {
  /**
   * Edge of a square (cubic) grid cell, in position units. Required, finite,
   * > 0. Queries are fastest when the radius is about one cell size: a radius
   * up to `cellSize` looks at 3x3 (3x3x3) cells, a radius of k cell sizes at
   * (2k + 1)^d.
   */
  cellSize: number;
  /** Numbers between the starts of two consecutive points. Default: the dimension (2 or 3). */
  stride?: number;
  /** Index of the first point's x in `positions`. Default 0. */
  offset?: number;
  /**
   * Largest number of cells of the points' bounding grid for which the grid is
   * stored densely (every cell of the bounding box indexed directly, 4 bytes
   * each: fastest). Beyond it only occupied cells are stored, in a hash table.
   * Default `4 * count + 4096`; 0 always hashes.
   */
  maxDenseCells?: number;
}

/**
 * Every point's neighbour list in compressed sparse row form: the neighbours
 * of point i are `indices[offsets[i]]` to `indices[offsets[i + 1] - 1]`.
 */
export interface NeighborLists {
  /** `count + 1` row starts into `indices`; `offsets[count]` is `indices.length`. */
  offsets: Uint32Array;
  /** Neighbour indices, row after row. */
  indices: Uint32Array;
}

/**
 * How a grid stores its cells: `dense` indexes every cell of the points'
 * bounding box directly, `hashed` keeps only occupied cells in a hash table
 * (sparse or far-flung points).
 */
export type PointGridLayout = 'dense' | 'hashed';

/** Visitor of {@link PointGrid2D.forEachPair}: original indices `i < j` and their squared distance. */
export type PointPairVisitor = (i: number, j: number, distanceSquared: number) => void;

/**
 * Cells are this much wider than `cellSize` (one part in a million). Rounding
 * in `floor((x - origin) / width)` makes cell borders wobble by a few ulps, so
 * with cells exactly `cellSize` wide two points at distance exactly `cellSize`
 * could sit two cells apart; the tiny surplus keeps radius == cellSize inside
 * the 3^d stencil with a proof instead of luck.
 */
export const CELL_SCALE = 1 + 2 ** -20;

/**
 * Relative margin (32 ulps) added to radii and distance bounds so that float
 * rounding in cell coordinates, subtractions and squares can never hide a
 * point that the distance test accepts.
 */
export const SLACK = 2 ** -48;

/**
 * Absolute margin for underflow: a gap below about 1.6e-162 squares to 0 (or
 * to a subnormal), so the distance test passes it even at radius 0.
 */
export const UNDERFLOW = 2 ** -536;

/** The dense layout never indexes more cells than this (1 GiB of cell starts). */
export const MAX_DENSE_CELLS = 2 ** 28;

/** Beyond this many cells from the grid a nearest query scans every point instead of ring by ring. */
export const MAX_RING_CELL = 2 ** 30;

/**
 * Most points a grid holds. Indices must stay 32-bit integers with room for
 * a difference (see {@link lowerMinusUpper}); an array of 2 or more numbers
 * per point never gets there, so only array-likes can hit this.
 */
export const MAX_POINTS = 2 ** 31 - 1;

/** Throws a RangeError when `count` points are more than a grid holds. */
export function checkPointCount(owner: string, count: number): void {
  if (count > MAX_POINTS) throw new RangeError(`${owner} holds at most ${MAX_POINTS} points, got ${count}`);
}

/** Checked options with their defaults filled in. */
export interface ResolvedOptions {
  cellSize: number;
  stride: number;
  offset: number;
  maxDenseCells: number | undefined;
}

/** Checks the options object and fills in the defaults. */
export function resolveOptions(options: PointGridOptions, dimension: 2 | 3): ResolvedOptions {
  if (options === null || typeof options !== 'object') {
    throw new RangeError(`options must be an object with a cellSize, got ${describe(options)}`);
  }
  checkPositive('cellSize', options.cellSize);
  const stride = options.stride ?? dimension;
  const offset = options.offset ?? 0;
  checkInteger('stride', stride, dimension);
  checkInteger('offset', offset, 0);
  const maxDenseCells = options.maxDenseCells;
  if (maxDenseCells !== undefined && (typeof maxDenseCells !== 'number' || !(maxDenseCells >= 0))) {
    throw new RangeError(`maxDenseCells must be a number >= 0, got ${describe(maxDenseCells)}`);
  }
  return { cellSize: options.cellSize, stride, offset, maxDenseCells };
}

/** Largest bounding-box cell count stored densely for `count` points. */
export function denseLimit(maxDenseCells: number | undefined, count: number): number {
  return Math.min(maxDenseCells ?? 4 * count + 4096, MAX_DENSE_CELLS);
}

/**
 * How many cells each side of its own a pair search must look at so that no
 * pair within `radius` is missed: ceil(radius / width) plus a margin for
 * rounding that grows with the grid's extent (in cells). Clamped to the
 * extent, which already covers every cell.
 */
export function stencilReach(radius: number, cellWidth: number, extent: number): number {
  // No shortcut for radius 0: a gap that squares to 0 may straddle a cell border.
  const q = (radius + UNDERFLOW) / cellWidth;
  const reach = Math.ceil(q + (q + extent + 2) * SLACK);
  return Math.min(reach, extent);
}

/**
 * The radius a query pads its cell range with: rounding in `x - origin`, in the
 * subtraction of the radius and in the squared-distance test all stay inside it.
 * `relative` is the query coordinate minus the grid origin.
 */
export function paddedRadius(radius: number, relative: number, cellWidth: number): number {
  return radius + UNDERFLOW + (radius + Math.abs(relative) + cellWidth) * SLACK;
}

/** True when `positions` holds 32-bit floats, which the grid then copies as 32-bit floats too. */
export function isFloat32(positions: NumericArray): boolean {
  return positions instanceof Float32Array;
}

/** Capacity to grow a buffer to: exactly what is needed the first time, then by half again. */
export function grownLength(current: number, needed: number): number {
  return current === 0 ? needed : Math.max(needed, Math.ceil(current * 1.5));
}

/**
 * min(i, j) - j for two point indices, without a branch: (j + m, i - m) is
 * then (min, max). A branch on i < j costs a misprediction on every other
 * pair of shuffled points, a third of a whole pair search. Exact because
 * indices stay below {@link MAX_POINTS}, so i - j is a 32-bit integer and
 * >> 31 its sign.
 */
export function lowerMinusUpper(i: number, j: number): number {
  const difference = i - j;
  return difference & (difference >> 31);
}

/** What a {@link PairSink} does with each pair: call the visitor. */
export const VISIT = 0;
/** ... append it, as sorted positions, to `buffer` (pairs()). */
export const COLLECT = 1;
/**
 * ... append only its second sorted position to `buffer`, with `rowEnd[s]`
 * marking where the partners found for point s end (neighbors()): half the
 * memory of COLLECT, because a search handles the points in ascending sorted
 * position, so each point's partners are one run.
 */
export const ROWS = 2;

const EMPTY = new Uint32Array(0);

/** What a pair search needs of a grid besides its own dimension's data. */
export interface SearchedGrid {
  /** Original index of each sorted position. */
  sortedIndex: Uint32Array;
  /** Number of points. */
  points: number;
}

/** The half-stencil pair search of one grid type (forEachPair2D or forEachPair3D). */
export type PairSearch<G> = (grid: G, sink: PairSink, radius: number) => void;

/**
 * Where a pair search sends what it finds, one long-lived object per grid so
 * that a steady loop of rebuild + forEachPair allocates nothing. It also
 * guards against a pair search starting inside another one (the searches
 * share the grid's range buffer).
 */
export class PairSink {
  /** True while a search runs. */
  busy = false;
  mode = VISIT;
  visitor: PointPairVisitor | undefined = undefined;
  /**
   * Whether the visitor gets the squared distance. A visitor declared with two
   * parameters does not: passing a double to a call V8 does not inline boxes it,
   * an allocation per pair, while two small integers allocate nothing.
   */
  withDistance = true;
  /** Original index of each sorted position (the grid's sortedIndex). */
  order: Uint32Array = EMPTY;
  /**
   * Flat pairs of sorted positions found and not yet handed over, `length`
   * numbers used: the growing result of a COLLECT search, or the batch a
   * VISIT search hands to the visitor whenever it fills up.
   */
  buffer = EMPTY;
  length = 0;
  /**
   * Numbers written per pair: 2 (both sorted positions), or 1 in ROWS mode.
   * The search writes s at `length` and t at `length + step - 1`, so in ROWS
   * mode t simply overwrites s, with no branch in the loop.
   */
  step = 2;
  /** ROWS mode: end of point s's run of partners in `buffer`, per sorted position. */
  rowEnd: Uint32Array = EMPTY;
  /**
   * The VISIT batch, kept between searches so that a steady loop allocates
   * nothing. Batching is what makes the search fast: the distance test only
   * decides whether the write position advances, with no branch to
   * mispredict (about half the candidates pass), and the visitor is then
   * called from a short loop of its own that V8 can inline it into.
   */
  private batch = new Uint32Array(4096);
  /** Pairs the next COLLECT or ROWS search makes room for first: the last one's count plus an eighth. */
  private guess = 32;

  /** Starts a search over a grid whose sorted positions map to `order`; throws when one is already running. */
  start(mode: number, order: Uint32Array, owner: string): void {
    if (this.busy) throw new Error(`${owner}: a pair search cannot start inside another pair search`);
    this.busy = true;
    this.mode = mode;
    this.order = order;
    this.length = 0;
    this.step = mode === ROWS ? 1 : 2;
    this.rowEnd = mode === ROWS ? new Uint32Array(order.length) : EMPTY;
    this.buffer = mode === VISIT ? this.batch : new Uint32Array(this.guess * this.step);
  }

  /** Ends a search (also after a throw) and lets go of the caller's arrays. */
  finish(): void {
    if (this.mode === VISIT) this.batch = this.buffer;
    else this.guess = Math.max(32, Math.ceil((this.length / this.step) * 1.125));
    this.busy = false;
    this.visitor = undefined;
    this.withDistance = true;
    this.order = EMPTY;
    this.buffer = EMPTY;
    this.rowEnd = EMPTY;
  }

  /**
   * Makes room for `needed` numbers in the buffer, keeping the first `length`;
   * returns the buffer. A VISIT search hands its batch over before calling
   * this, so the batch only grows for a single point with more candidates
   * than it holds.
   */
  reserve(needed: number, length: number, done: number): Uint32Array {
    // Once a sixty-fourth of the points is done, grow to what the search so
    // far predicts for the whole (plus an eighth), at most 4x at a time: a
    // first search over a million points then allocates and copies its buffer
    // a few times rather than twenty, and a crowded start cannot make it
    // reserve wildly more than it will use. Doubling covers the rest.
    const current = this.buffer.length;
    const predicted = done >= 1 / 64 ? Math.min(Math.ceil((length / done) * 1.125), 4 * current) : 0;
    const grown = new Uint32Array(Math.max(needed, 2 * current, predicted));
    grown.set(this.buffer.subarray(0, length));
    this.buffer = grown;
    return grown;
  }

  /**
   * forEachPair of either grid: checks the arguments and runs `search` (the
   * grid's half-stencil search) with every pair going to `visit`.
   */
  visitPairs<G extends SearchedGrid>(
    owner: string,
    grid: G,
    radius: number,
    visit: PointPairVisitor,
    search: PairSearch<G>,
  ): void {
    checkDistance('radius', radius);
    if (typeof visit !== 'function') throw new RangeError(`visit must be a function, got ${describe(visit)}`);
    this.start(VISIT, grid.sortedIndex, owner);
    this.visitor = visit;
    this.withDistance = visit.length !== 2;
    try {
      search(grid, this, radius);
    } finally {
      this.finish();
    }
  }

  /** pairs() of either grid: every pair within `radius`, flat, i < j in each. */
  pairs<G extends SearchedGrid>(owner: string, grid: G, radius: number, search: PairSearch<G>): Uint32Array {
    checkDistance('radius', radius);
    this.start(COLLECT, grid.sortedIndex, owner);
    try {
      search(grid, this, radius);
      return this.collected();
    } finally {
      this.finish();
    }
  }

  /** neighbors() of either grid: every point's neighbours within `radius` as CSR rows. */
  neighbors<G extends SearchedGrid>(owner: string, grid: G, radius: number, search: PairSearch<G>): NeighborLists {
    checkDistance('radius', radius);
    this.start(ROWS, grid.sortedIndex, owner);
    try {
      search(grid, this, radius);
      const offsets = new Uint32Array(grid.points + 1);
      const indices = neighborRows(this.order, this.buffer, this.rowEnd, offsets);
      return { offsets, indices };
    } finally {
      this.finish();
    }
  }

  /** The collected pairs as original indices, i < j in each, in a fresh array of exactly their length. */
  private collected(): Uint32Array {
    const order = this.order;
    const pairs = this.buffer.length === this.length ? this.buffer : this.buffer.slice(0, this.length);
    for (let k = 0; k < pairs.length; k += 2) {
      const i = order[pairs[k]];
      const j = order[pairs[k + 1]];
      const m = lowerMinusUpper(i, j);
      pairs[k] = j + m;
      pairs[k + 1] = i - m;
    }
    return pairs;
  }
}

/**
 * CSR rows in original index order from the partner runs of a ROWS search
 * over `count` points (see {@link ROWS}): `partners[rowEnd[s - 1]..rowEnd[s]]`
 * are the sorted positions paired with sorted position s, each pair once.
 * Row lengths are counted by sorted position, where a pair's two points are
 * close, so the counts stay in cache; then each pair is written into both
 * rows. The rows being filled at any moment belong to the points near the
 * search's current position, so their writes hit a small, cached set of
 * lines even though rows sit in original index order. Fills `offsets`
 * (count + 1 entries, zeroed) and returns the indices.
 * Takes only typed arrays so its optimised code depends on no object shape
 * (a shape that dies in a GC throws the code away).
 */
export function neighborRows(
  order: Uint32Array,
  partners: Uint32Array,
  rowEnd: Uint32Array,
  offsets: Uint32Array,
): Uint32Array {
  const count = offsets.length - 1;
  // Row lengths by sorted position, then the write cursor of each row.
  const cursor = new Uint32Array(count);
  for (let s = 0, from = 0; s < count; s++) {
    const to = rowEnd[s];
    cursor[s] += to - from;
    for (let k = from; k < to; k++) cursor[partners[k]]++;
    from = to;
  }
  for (let s = 0; s < count; s++) offsets[order[s] + 1] = cursor[s];
  for (let i = 0; i < count; i++) offsets[i + 1] += offsets[i];
  for (let s = 0; s < count; s++) cursor[s] = offsets[order[s]];
  const indices = new Uint32Array(offsets[count]);
  for (let s = 0, from = 0; s < count; s++) {
    const i = order[s];
    const to = rowEnd[s];
    // t is never s (no point pairs with itself), so cursor[s] can wait in a local.
    let own = cursor[s];
    for (let k = from; k < to; k++) {
      const t = partners[k];
      indices[own++] = order[t];
      indices[cursor[t]++] = i;
    }
    cursor[s] = own;
    from = to;
  }
  return indices;
}

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

  /**
   * Renumbers the `count` occupied cells of `table`, just filled with ids
   * 0..count-1 in first-seen order, into row-major order of their coordinates
   * (relative to the grid's minimum corner, so 0 <= cy < cellsY and so on),
   * and moves their point counts (`cellStart[id]`) along. Then, as in the
   * dense layout, the occupied cells of one row within any x range have
   * consecutive ids, so a pair search reads them as one x-sorted run of
   * points instead of cell by cell. O(count log count) whatever the
   * first-seen order. `spare`, when given, is free memory (the grid's
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
    const ids = this.ids;
    const keys = table.keys;
    const d = table.dimension;
    for (let id = 0; id < count; id++) ids[id] = id;
    // A row is one number: y in 2D, z * cellsY + y in 3D, exact while the
    // layers hold at most 2^53 rows.
    if (cellsY * cellsZ <= 2 ** 53) {
      const rows = this.rows;
      const xs = this.xs;
      for (let id = 0; id < count; id++) {
        rows[id] = d === 2 ? keys[2 * id + 1] : keys[3 * id + 2] * cellsY + keys[3 * id + 1];
        xs[id] = keys[id * d];
      }
      sortByRow(rows, xs, ids, 0, count, 2 * Math.floor(Math.log2(count + 1)), keys, d);
    } else {
      // Points spread over more than 2^53 rows: compare the coordinates themselves.
      sortByCoordinates(ids, keys, d, 0, count);
    }
    const rank = this.rank;
    for (let r = 0; r < count; r++) rank[ids[r]] = r;
    table.renumber(rank);
    // Counts by new id, through `ids` (no longer needed) as the spare array.
    for (let id = 0; id < count; id++) ids[rank[id]] = cellStart[id];
    for (let r = 0; r < count; r++) cellStart[r] = ids[r];
  }
}

/** Position a sorts before position b: by row, then x. */
function rowBefore(rows: Float64Array, xs: Float64Array, a: number, b: number): boolean {
  return rows[a] < rows[b] || (rows[a] === rows[b] && xs[a] < xs[b]);
}

/**
 * Sorts the cells at positions from..to-1 into row-major order, moving the
 * ids along: quicksort on (row, x) with a median-of-three pivot and
 * insertion sort for short runs. Once `depth` is spent (an order that
 * defeats the pivot choice) the rest goes to {@link sortByCoordinates}; only
 * the ids are read after the sort. Keys must be distinct, as cells are.
 */
function sortByRow(
  rows: Float64Array,
  xs: Float64Array,
  ids: Int32Array,
  from: number,
  to: number,
  depth: number,
  keys: Float64Array,
  d: number,
): void {
  while (to - from > 16) {
    if (depth-- === 0) {
      sortByCoordinates(ids, keys, d, from, to);
      return;
    }
    const mid = from + ((to - from) >> 1);
    const last = to - 1;
    if (rowBefore(rows, xs, mid, from)) swapPosition(rows, xs, ids, mid, from);
    if (rowBefore(rows, xs, last, from)) swapPosition(rows, xs, ids, last, from);
    if (rowBefore(rows, xs, last, mid)) swapPosition(rows, xs, ids, last, mid);
    // The median, parked at `from` while partitioning, stops the j scan.
    swapPosition(rows, xs, ids, from, mid);
    let i = from;
    let j = to;
    for (;;) {
      do i++;
      while (i < to && rowBefore(rows, xs, i, from));
      do j--;
      while (rowBefore(rows, xs, from, j));
      if (i >= j) break;
      swapPosition(rows, xs, ids, i, j);
    }
    swapPosition(rows, xs, ids, from, j);
    // Recurse into the smaller side and loop on the larger: O(log n) stack.
    if (j - from < to - j - 1) {
      sortByRow(rows, xs, ids, from, j, depth, keys, d);
      from = j + 1;
    } else {
      sortByRow(rows, xs, ids, j + 1, to, depth, keys, d);
      to = j;
    }
  }
  for (let i = from + 1; i < to; i++) {
    for (let j = i; j > from && rowBefore(rows, xs, j, j - 1); j--) swapPosition(rows, xs, ids, j, j - 1);
  }
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

function swapPosition(rows: Float64Array, xs: Float64Array, ids: Int32Array, a: number, b: number): void {
  const row = rows[a];
  rows[a] = rows[b];
  rows[b] = row;
  const x = xs[a];
  xs[a] = xs[b];
  xs[b] = x;
  const id = ids[a];
  ids[a] = ids[b];
  ids[b] = id;
}

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

/**
 * Bounded max-heap of (squared distance, index) pairs keeping the k best,
 * ordered by distance then index so ties come out by ascending index. Its
 * arrays grow with k and are reused across queries.
 */
export class NearestHeap {
  private distances = new Float64Array(16);
  private indices = new Uint32Array(16);
  /** Entries held. */
  size = 0;
  /** Entries wanted. */
  capacity = 0;

  /** Empties the heap and sets how many entries it keeps. */
  reset(capacity: number): void {
    if (capacity > this.distances.length) {
      const length = grownLength(this.distances.length, capacity);
      this.distances = new Float64Array(length);
      this.indices = new Uint32Array(length);
    }
    this.capacity = capacity;
    this.size = 0;
  }

  /** Squared distance a candidate must beat (ties: a lower index), Infinity until the heap is full. */
  worst(): number {
    return this.size < this.capacity ? Number.POSITIVE_INFINITY : this.distances[0];
  }

  /** Offers one candidate. */
  offer(distanceSquared: number, index: number): void {
    const distances = this.distances;
    const indices = this.indices;
    if (this.size < this.capacity) {
      // Sift up from the new leaf.
      let hole = this.size++;
      while (hole > 0) {
        const parent = (hole - 1) >> 1;
        const pd = distances[parent];
        if (pd > distanceSquared || (pd === distanceSquared && indices[parent] > index)) break;
        distances[hole] = pd;
        indices[hole] = indices[parent];
        hole = parent;
      }
      distances[hole] = distanceSquared;
      indices[hole] = index;
      return;
    }
    const top = distances[0];
    if (distanceSquared > top || (distanceSquared === top && index > indices[0])) return;
    this.siftDown(distanceSquared, index, this.size);
  }

  /** The held indices ascending by distance (ties by index); empties the heap. */
  drain(): number[] {
    const out = new Array<number>(this.size);
    const distances = this.distances;
    const indices = this.indices;
    while (this.size > 0) {
      const last = --this.size;
      out[last] = indices[0];
      if (last > 0) this.siftDown(distances[last], indices[last], last);
    }
    return out;
  }

  /** Places (d, i) at the root of a heap of `size` entries and sifts it down. */
  private siftDown(d: number, i: number, size: number): void {
    const distances = this.distances;
    const indices = this.indices;
    let hole = 0;
    for (;;) {
      let child = 2 * hole + 1;
      if (child >= size) break;
      const right = child + 1;
      if (right < size) {
        const cd = distances[child];
        const rd = distances[right];
        if (rd > cd || (rd === cd && indices[right] > indices[child])) child = right;
      }
      const cd = distances[child];
      if (cd < d || (cd === d && indices[child] < i)) break;
      distances[hole] = cd;
      indices[hole] = indices[child];
      hole = child;
    }
    distances[hole] = d;
    indices[hole] = i;
  }
}
