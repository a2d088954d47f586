/**
 * PointGrid3D, the public class: a uniform grid over a typed array of 3D points,
 * built by counting sort and rebuilt whenever the points move (the counting
 * sort of Müller's "Blazing Fast Neighbor Search", made exact: see
 * docs/guides/design.md). What does not depend on the dimension's
 * signatures is written once in pointgrid-base.ts; the grid's state and build
 * in grid-base.ts and grid3d.ts; the hot loops per dimension in
 * within-point.ts, query3d.ts and pair-visits.ts.
 *
 * @module
 */

import { checkArray, checkDistance, checkFinite, checkInteger, describe, type NumericArray } from '../core/validate.js';
import { Grid3D } from './grid3d.js';
import { type PointGridFromOptions, type PointGridOptions, resolveCheck } from './options.js';
import { forEachPair3D } from './pair-visits.js';
import { adopting, EMPTY_POSITIONS, PointGridBase } from './pointgrid-base.js';
import { checkQuery } from './pool-use.js';
import { nearest3D } from './query3d.js';
import { pinShapes } from './shape-pins.js';
import { countPoint, withinPoint } from './within-point.js';

/**
 * A uniform grid over 3D points for fixed-radius neighbour search, k-nearest
 * queries and all-pairs search: particles (SPH fluids, sand, snow), point
 * clouds, picking.
 *
 * Built by a counting sort of the points by cell: each point's cell is
 * `floor((x - minX) / width)` per axis, points are counted per cell,
 * prefix-summed into `cellStart` and their indices and coordinates copied in
 * cell order (each cell sorted by x), so a neighbour loop reads memory in
 * sequence. When the bounding box of the points spans at most
 * `maxDenseCells` cells every cell is indexed directly (a row of cells along
 * x is then one contiguous run of points); otherwise occupied cells are found
 * through an open-addressing hash table of integer cell coordinates. Either
 * way results are exact: each point within the radius once, no points of
 * other cells, at any distance from the origin.
 *
 * Any radius works; a radius up to `cellSize` is the fast path (3x3x3 cells,
 * 14 of them for pair searches), a radius of k cell sizes looks at
 * (2k + 1)^3. The cell width is `cellSize` plus one part in a million and
 * every cell range is padded by a rounding margin, so float rounding at cell
 * borders can never hide a point the distance test accepts, while radius ==
 * cellSize keeps its 3x3x3 stencil.
 *
 * Point i is at `positions[offset + i * stride]` (x) and the next two numbers
 * (y, z). The grid keeps its own copy of the coordinates (32-bit floats for a
 * Float32Array, 64-bit otherwise): after moving the points, call
 * {@link PointGrid3D.rebuild}. Distances are Euclidean, the library's one
 * rule (see the Reliability guide and {@link PointGrid2D}: a radius above
 * about 1.34e154 takes every point, extents must be finite), computed as
 * `dx * dx + dy * dy + dz * dz <= radius * radius` in float64.
 *
 * Memory beyond the caller's positions: the coordinate copy (as many bytes as
 * the positions for a packed Float32Array or Float64Array), 8 bytes per point
 * (indices and build scratch) and 4 bytes per cell of the box (dense) or
 * about 100 bytes per occupied cell (hashed: the build's table, cell starts,
 * the row-major renumbering and the keys and lookup kept in `data`; up to 16 more for Float32Array input, whose smaller
 * coordinate copy may not hold the renumbering's sort keys). Pair searches and
 * nearest reuse their buffers; pairs() and neighbors() allocate their results.
 *
 * @example
 * ```ts
 * const grid = new PointGrid3D(particles, { cellSize: h });
 * const { offsets, indices } = grid.neighbors(h); // SPH neighbour lists
 * // next frame, after the particles moved:
 * grid.rebuild();
 * ```
 */
export class PointGrid3D extends PointGridBase {
  /** @internal */
  declare protected readonly grid: Grid3D;

  /**
   * A grid over the buffer of another grid (its {@link PointGrid3D.data | data}, from any
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
   * @throws Error when `data` is not a good PointGrid3D buffer, naming what is
   * wrong: not a buffer, no grid header, the other dimension, another format
   * version, truncated, a header field out of range or inconsistent, or (with
   * the full check) a body that does not hold a grid. RangeError for a bad
   * `options`.
   */
  static from(data: ArrayBuffer | SharedArrayBuffer, options?: PointGridFromOptions): PointGrid3D {
    const grid = Grid3D.fromData(data, resolveCheck(options));
    return adopting(grid, () => new PointGrid3D(EMPTY_POSITIONS, { cellSize: grid.cellSize }));
  }

  /**
   * Builds the grid over `positions`. O(n) time.
   *
   * @param positions Float32Array, Float64Array or number[] of coordinates
   * (any numeric typed array works), e.g. a three.js BufferAttribute's array,
   * interleaved buffers included. Not modified; kept for {@link rebuild}.
   * @param options `cellSize` (required), `stride` (default 3), `offset`
   * (default 0), `maxDenseCells`: see {@link PointGridOptions}.
   * @throws RangeError for a cellSize that is not a finite number > 0, a
   * stride below 3, an offset outside the array, a length that ends inside a
   * point's coordinates (see {@link PointGridOptions.stride}), a BigInt64Array,
   * options given first (the arguments swapped), or a non-finite coordinate
   * (the message names the point index).
   */
  constructor(positions: NumericArray, options: PointGridOptions) {
    super(positions, options, Grid3D, forEachPair3D);
  }

  /**
   * Indices of the points at distance <= `radius` from (x, y, z), each once, in
   * no particular order. O(points in the cells the ball touches).
   *
   * @param out array to fill (emptied first); a new one by default.
   * @returns `out`.
   * @throws RangeError for a non-finite x, y or z, or a radius < 0 or NaN (Infinity finds every point).
   */
  within(x: number, y: number, z: number, radius: number, out: number[] = []): number[] {
    checkArray('out', out);
    if (this.grid.use !== undefined) checkQuery('PointGrid3D.within()', this.grid.use);
    checkFinite('x', x);
    checkFinite('y', y);
    checkFinite('z', z);
    checkDistance('radius', radius);
    this.grid.sync('within');
    const scratch = this.grid.scratchFor(this.grid.points);
    const found = withinPoint(this.grid, x, y, z, radius, scratch);
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
   * @throws RangeError for a non-finite x, y or z, a radius < 0 or NaN, or an out that is not a Uint32Array.
   */
  withinInto(x: number, y: number, z: number, radius: number, out: Uint32Array): number {
    if (this.grid.use !== undefined) checkQuery('PointGrid3D.withinInto()', this.grid.use);
    // Inline checks: this is called once per point per frame.
    if (typeof x !== 'number' || x - x !== 0) checkFinite('x', x);
    if (typeof y !== 'number' || y - y !== 0) checkFinite('y', y);
    if (typeof z !== 'number' || z - z !== 0) checkFinite('z', z);
    if (typeof radius !== 'number' || !(radius >= 0)) checkDistance('radius', radius);
    if (!(out instanceof Uint32Array)) throw new RangeError(`out must be a Uint32Array, got ${describe(out)}`);
    this.grid.sync('withinInto');
    const found = withinPoint(this.grid, x, y, z, radius, out);
    return found;
  }

  /**
   * How many points lie at distance <= `radius` from (x, y, z): the length of
   * what {@link within} returns, found by the same search (the same
   * distance rule, any radius, Infinity included), but no index is written
   * anywhere, so nothing is allocated and nothing is sized for the answer.
   * O(points in the cells the ball touches).
   *
   * @example
   * ```ts
   * const grid = new PointGrid3D(positions, { cellSize: h });
   * // How crowded each particle's neighbourhood is, with no index written:
   * for (let i = 0; i < grid.count; i++) {
   *   density[i] = grid.countWithin(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2], h) - 1;
   * }
   * ```
   *
   * @throws RangeError for a non-finite x, y or z, or a radius < 0 or NaN.
   */
  countWithin(x: number, y: number, z: number, radius: number): number {
    if (this.grid.use !== undefined) checkQuery('PointGrid3D.countWithin()', this.grid.use);
    // Inline checks, as withinInto's: a density loop calls this once per point.
    if (typeof x !== 'number' || x - x !== 0) checkFinite('x', x);
    if (typeof y !== 'number' || y - y !== 0) checkFinite('y', y);
    if (typeof z !== 'number' || z - z !== 0) checkFinite('z', z);
    if (typeof radius !== 'number' || !(radius >= 0)) checkDistance('radius', radius);
    this.grid.sync('countWithin');
    return countPoint(this.grid, x, y, z, radius);
  }

  /**
   * The (at most) k points nearest to (x, y, z) within `maxDistance`, ascending
   * by distance, ties by ascending index. Searches shells of cells outward and
   * stops once no unvisited cell can hold a closer point; about
   * O(k + points in the cells up to the k-th distance).
   *
   * @param k how many, an integer >= 0 (default 1); fewer come back when the grid holds fewer.
   * @param maxDistance largest distance accepted (inclusive), default Infinity.
   * @param out array to fill (emptied first); a new one by default.
   * @returns `out`, the point indices.
   * @throws RangeError for a non-finite x, y or z, a k that is not an integer >= 0, or a maxDistance < 0 or NaN.
   */
  nearest(
    x: number,
    y: number,
    z: number,
    k = 1,
    maxDistance = Number.POSITIVE_INFINITY,
    out: number[] = [],
  ): number[] {
    checkArray('out', out);
    if (this.grid.use !== undefined) checkQuery('PointGrid3D.nearest()', this.grid.use);
    checkFinite('x', x);
    checkFinite('y', y);
    checkFinite('z', z);
    checkInteger('k', k, 0);
    checkDistance('maxDistance', maxDistance);
    this.grid.sync('nearest');
    return nearest3D(this.grid, x, y, z, k, maxDistance, out);
  }

  // Keeps two small grids of this class alive for V8's sake (see shape-pins.ts);
  // a static block runs once the class is complete.
  static {
    pinShapes(3, (points, options) => {
      const grid = new PointGrid3D(points, options);
      // A one-point grid: its search finds no pair, so no pin reaches the
      // visitor call sites, which V8 inlines only while they have seen one visitor.
      const single = new PointGrid3D(points.subarray(0, 3), options);
      single.forEachPair(2, () => {});
      const out = new Uint32Array(64);
      grid.withinInto(0.5, 0.5, 0.5, 2, out);
      return [
        grid,
        single,
        out,
        grid.pairs(2),
        grid.neighbors(2),
        grid.within(0.5, 0.5, 0.5, 2),
        grid.nearest(0.5, 0.5, 0.5, 2),
      ];
    });
  }
}

/** The internal state of a PointGrid3D, for PointGridWorkers; not exported from the package. */
export function internalGrid3D(grid: PointGrid3D): Grid3D {
  return (grid as unknown as { grid: Grid3D }).grid;
}
