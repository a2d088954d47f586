/**
 * Options, result types and limits of PointGrid2D and PointGrid3D, and the
 * checks that turn a user's options into a grid's settings.
 *
 * @module
 */
import type { NeighborLists } from '../core/results.js';
import { checkInteger, checkPositive, describe, type NumericArray } from '../core/validate.js';

/** Options of {@link PointGrid2D} and {@link PointGrid3D}. */
export interface PointGridOptions {
  /**
   * Edge of a square (cubic) grid cell, in position units. Required: a finite
   * number > 0. Queries are fastest when the radius is about one cell size: a
   * radius up to `cellSize` looks at 3x3 (3x3x3) cells, a radius of k cell
   * sizes at (2k + 1)^d.
   */
  cellSize: number;
  /**
   * Numbers between the starts of two consecutive points. Default: the
   * dimension (2 or 3). With `offset`, point i's coordinates are at
   * `offset + i * stride`; the array may end anywhere after the last point's
   * coordinates and before the next point's first (so after a whole last
   * record, or right after its coordinates), never inside a point's coordinates.
   */
  stride?: number;
  /** Index of the first point's x in `positions`: an attribute's place in each record, or a header's length. Default 0. */
  offset?: number;
  /**
   * Largest number of cells of the points' bounding grid for which the grid is
   * stored densely (every cell of the bounding box indexed directly, 4 bytes
   * each: fastest). Beyond it only occupied cells are stored, in a hash table.
   * Default `4 * count + 4096`; 0 always hashes.
   */
  maxDenseCells?: number;
  /**
   * Build into SharedArrayBuffers, so that `grid.data` can be handed to other
   * threads (`PointGrid2D.from(data)` there) without a copy, and a
   * `PointGridWorkers` pool can rebuild and search it in place. Default
   * false (an ArrayBuffer, which a pool copies to its threads instead).
   * Browsers have SharedArrayBuffer only on cross-origin isolated pages
   * (served with `Cross-Origin-Opener-Policy: same-origin` and
   * `Cross-Origin-Embedder-Policy: require-corp`); elsewhere `shared: true`
   * throws an Error saying so, rather than quietly build an ArrayBuffer that
   * other threads would not see rebuilt.
   */
  shared?: boolean;
}

/** Options of {@link PointGrid2D.from} and {@link PointGrid3D.from}. */
export interface PointGridFromOptions {
  /**
   * How much of the buffer to check before answering from it:
   *
   * - `'full'` (the default): the header and the whole body, in time linear
   *   in the buffer's size (counts, cells and origin consistent; cell starts
   *   in order; the sorted indices a permutation; every coordinate in its
   *   cell and in x order; hashed keys and lookup slots consistent). For a
   *   buffer from storage, the network or any code you do not control: a bad
   *   one throws an Error naming what is wrong.
   * - `'header'`: the header's numbers only, O(1). For a buffer this library
   *   built and nothing else wrote, such as one handed from the thread that
   *   built it. If the body is bad after all, queries still end and return
   *   indices of points the grid holds, but which ones is unspecified.
   */
  check?: 'full' | 'header';
}

/** Whether from() checks the body (`check` 'full', the default). */
export function resolveCheck(options: PointGridFromOptions | undefined): boolean {
  if (options === undefined) return true;
  if (options === null || typeof options !== 'object') {
    throw new RangeError(`options must be an object such as { check: 'header' }, got ${describe(options)}`);
  }
  const check = options.check ?? 'full';
  if (check !== 'full' && check !== 'header') {
    throw new RangeError(`check must be 'full' or 'header', got ${describe(check)}`);
  }
  return check === 'full';
}

/**
 * How a grid stores its cells: `dense` indexes every cell of the points'
 * bounding box directly, `hashed` keeps only occupied cells in a hash table
 * (sparse or far-flung points).
 */
export type PointGridLayout = 'dense' | 'hashed';

/**
 * Options of a pair search ({@link PointGrid2D.forEachPair}, `pairs`,
 * `neighbors` and their 3D twins): search only slice `part` of `parts`.
 *
 * The cells are cut, in cell order, into `parts` runs holding about as many
 * points each (deterministic for a given build); slice `part` handles the
 * pairs whose lower sorted point lies in its run. The slices are disjoint and
 * together find exactly the full search's pairs, each once, so `parts`
 * workers over one shared grid (see `PointGrid2D.from`) can each run one.
 */
export interface PairSearchOptions {
  /** Which slice, an integer 0 <= part < parts. Default 0. */
  part?: number;
  /** How many slices, an integer >= 1. Default 1 (the whole search). */
  parts?: number;
}

/**
 * Most numbers a `pairs()` or `neighbors()` result holds, and the default of
 * {@link ResultLengthOptions.maxResultLength}: 2^31 - 1 (the searches count in
 * int32), about a billion pairs, 8 GiB of them.
 */
export const MAX_RESULT_LENGTH = 2 ** 31 - 1;

/**
 * Options that `pairs()` and `neighbors()` on {@link PointGrid2D} and
 * {@link PointGrid3D} share: the slice and the longest result.
 */
export interface ResultLengthOptions extends PairSearchOptions {
  /**
   * Longest result the call may return, in numbers: 2 per pair, both for
   * `pairs()` (flat) and `neighbors()` (each pair in two rows; `offsets`
   * not counted). A longer result throws a RangeError naming its pair count
   * and the bytes it needs, after at most O(points) memory was taken: the
   * search counts its pairs before it grows past about 64 numbers per point.
   * An integer >= 0, default (and at most) 2^31 - 1 (the searches count in
   * int32): about a billion pairs, 8 GiB of them.
   */
  maxResultLength?: number;
}

/** Options of `pairs()` on {@link PointGrid2D} and {@link PointGrid3D}. */
export interface PairsOptions extends ResultLengthOptions {
  /**
   * An earlier result of `pairs()` (of this grid or another) to write into:
   * its buffer is reused, from where the array starts, when it has room for
   * the new pairs (the returned array is then a new view of the same buffer,
   * and the earlier result's contents are overwritten), else fresh memory is
   * taken. Fresh memory costs a page fault per 4 KiB on first touch: for a
   * million 2D points (21 million pairs, 168 MB) about a quarter of the call
   * on the benchmark VM. A loop that hands each frame's result back in takes
   * no result memory once warm. A call that throws may leave the buffer
   * partly overwritten.
   */
  out?: Uint32Array | undefined;
}

/** Options of `neighbors()` on {@link PointGrid2D} and {@link PointGrid3D}. */
export interface NeighborsOptions extends ResultLengthOptions {
  /**
   * An earlier result of `neighbors()` (of this grid or another) to write
   * into: each of its two arrays is reused when its buffer has room for the
   * new rows (the returned arrays are then new views of the same buffers, and
   * the earlier result's contents are overwritten), else fresh memory is
   * taken, with an eighth to spare so the next frame's slightly longer result
   * still fits. Passing `out` also lets the grid keep its search scratch
   * (about half the result's size) for the next call instead of freeing it. A
   * loop that hands each frame's result back in allocates nothing once warm;
   * fresh memory costs a page fault per 4 KiB on first touch, which for a
   * million points is a good part of the call.
   */
  out?: NeighborLists | undefined;
}

/** The `out` of neighbors() options, checked (see {@link checkOut}). */
export function resolveOut(options: NeighborsOptions | undefined): NeighborLists | undefined {
  return checkOut(options?.out);
}

/** Checks an `out` to write neighbour lists into: undefined, or an object with two Uint32Arrays over different buffers. */
export function checkOut(out: NeighborLists | undefined): NeighborLists | undefined {
  if (out === undefined) return undefined;
  if (
    out === null ||
    typeof out !== 'object' ||
    !(out.offsets instanceof Uint32Array) ||
    !(out.indices instanceof Uint32Array)
  ) {
    throw new RangeError(
      `out must be an earlier neighbors() result ({ offsets, indices }, two Uint32Arrays), got ${describe(out)}`,
    );
  }
  if (out.offsets.buffer === out.indices.buffer) {
    throw new RangeError('out.offsets and out.indices must not share a buffer (pass an earlier neighbors() result)');
  }
  return out;
}

/** The `out` of pairs() options, checked: undefined or a Uint32Array. */
export function resolvePairsOut(options: PairsOptions | undefined): Uint32Array | undefined {
  const out = options?.out;
  if (out === undefined || out instanceof Uint32Array) return out;
  throw new RangeError(`out must be an earlier pairs() result (a Uint32Array), got ${describe(out)}`);
}

/** The `maxResultLength` of pairs() / neighbors() options, checked: an integer >= 0 (default and at most MAX_RESULT_LENGTH). */
export function resolveMaxResultLength(options: ResultLengthOptions | undefined): number {
  const value = options?.maxResultLength;
  if (value === undefined) return MAX_RESULT_LENGTH;
  if (typeof value !== 'number' || !(Number.isInteger(value) || value === Number.POSITIVE_INFINITY) || value < 0) {
    throw new RangeError(`maxResultLength must be an integer >= 0, got ${describe(value)}`);
  }
  return Math.min(value, MAX_RESULT_LENGTH);
}

/**
 * Throws the RangeError of a pair search result too long to return: `pairs`
 * pairs need 2 numbers each (flat pairs, or the two rows of neighbour
 * lists), 4 bytes a number. For PointGridWorkers too, which counts its
 * pairs before it allocates the result.
 *
 * @param owner what to name in the message, e.g. `'PointGrid2D.pairs'`.
 * @param pairs how many pairs the result holds.
 * @param maxResultLength the longest result allowed, in numbers (see
 * {@link PairsOptions.maxResultLength}); default {@link MAX_RESULT_LENGTH}.
 * @throws RangeError when `2 * pairs > maxResultLength`.
 */
export function checkResultLength(owner: string, pairs: number, maxResultLength = MAX_RESULT_LENGTH): void {
  const numbers = 2 * pairs;
  if (numbers <= maxResultLength) return;
  const limit =
    maxResultLength === MAX_RESULT_LENGTH
      ? `the longest result a search returns (${MAX_RESULT_LENGTH} numbers)`
      : `maxResultLength (${maxResultLength})`;
  throw new RangeError(`${owner}: ${pairs} pairs need ${numbers} numbers (${4 * numbers} bytes), more than ${limit}`);
}

/** Checks pair search options; returns [part, parts]. */
export function resolvePart(options: PairSearchOptions | undefined): readonly [number, number] {
  // (One array for the default, so that a frame loop's searches allocate none.)
  if (options === undefined) return WHOLE;
  if (options === null || typeof options !== 'object') {
    throw new RangeError(`options must be an object with part and parts, got ${describe(options)}`);
  }
  const parts = options.parts ?? 1;
  const part = options.part ?? 0;
  if (typeof parts !== 'number' || !Number.isInteger(parts) || parts < 1 || parts > MAX_POINTS) {
    throw new RangeError(`parts must be an integer >= 1, got ${describe(parts)}`);
  }
  if (typeof part !== 'number' || !Number.isInteger(part) || part < 0 || part >= parts) {
    throw new RangeError(`part must be an integer from 0 to parts - 1 = ${parts - 1}, got ${describe(part)}`);
  }
  return [part, parts];
}

const WHOLE: readonly [number, number] = [0, 1];

/**
 * First cell of slice `part` of `parts` (see {@link PairSearchOptions}): the
 * first cell whose points start at or after part / parts of them. Slice
 * `part` is cells partCell(part) to partCell(part + 1) - 1.
 */
export function partCell(cellStart: Int32Array, cells: number, points: number, part: number, parts: number): number {
  if (part <= 0) return 0;
  if (part >= parts) return cells;
  const target = Math.round((part * points) / parts);
  // Lower bound: cellStart is non-decreasing over 0..cells.
  let low = 0;
  let high = cells;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (cellStart[mid] < target) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Visitor of {@link PointGrid2D.forEachPair}: original indices `i < j` and their squared distance. */
export type PointPairVisitor = (i: number, j: number, distanceSquared: number) => void;

/**
 * Visitor of {@link PointGrid2D.forEachPairBatch}: `count` pairs of original
 * indices in `pairs`, pair k being `pairs[2 * k]` < `pairs[2 * k + 1]`. The
 * array may be longer than `2 * count` (read only the first `2 * count`
 * numbers), and it is the search's own memory, valid until the visitor
 * returns: copy what you keep.
 */
export type PointPairBatchVisitor = (pairs: Uint32Array, count: number) => void;

/** The dense layout never indexes more cells than this (1 GiB of cell starts). */
export const MAX_DENSE_CELLS = 2 ** 28;

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
  shared: boolean;
}

/** Checks the options object and fills in the defaults. */
export function resolveOptions(options: PointGridOptions, dimension: 2 | 3): ResolvedOptions {
  if (options === null || typeof options !== 'object') {
    throw new RangeError(`options must be an object with a cellSize, got ${describe(options)}`);
  }
  if (Array.isArray(options) || ArrayBuffer.isView(options)) {
    // The arguments swapped: its cellSize would be reported as missing.
    throw new RangeError(
      `options must be an object with a cellSize, got ${describe(options)}: the positions come first, new PointGrid${dimension}D(positions, { cellSize })`,
    );
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
  const shared = options.shared ?? false;
  if (typeof shared !== 'boolean') throw new RangeError(`shared must be a boolean, got ${describe(shared)}`);
  return { cellSize: options.cellSize, stride, offset, maxDenseCells, shared };
}

/** Largest bounding-box cell count stored densely for `count` points. */
export function denseLimit(maxDenseCells: number | undefined, count: number): number {
  return Math.min(maxDenseCells ?? 4 * count + 4096, MAX_DENSE_CELLS);
}

/** True when `positions` holds 32-bit floats, which the grid then copies as 32-bit floats too. */
export function isFloat32(positions: NumericArray): boolean {
  return positions instanceof Float32Array;
}
