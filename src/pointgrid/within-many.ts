/**
 * withinMany of PointGrid2D and PointGrid3D: the points within a radius of
 * many query points, one CSR row per query, row q exactly what within()
 * answers for query q, in the same order. Internal: the classes call it.
 *
 * On the WebAssembly kernels the queries are taken in the grid's cell order
 * (a counting sort by the cell holding each), so consecutive queries read the
 * same cells from cache instead of jumping across the grid in the order the
 * caller listed them; on clustered data at a million points that order alone
 * made the queries two to three times faster. The rows come back in query
 * order either way.
 *
 * @module
 */

import { type NeighborLists, reuseArray, roomyArray } from '../core/results.js';
import { checkDistance, checkInteger, checkLayout, describe, type NumericArray, pointError } from '../core/validate.js';
import { onJavaScript, verifying } from '../wasm/kernels.js';
import { verifySame } from '../wasm/verify.js';
import { withinManyOnKernels } from '../wasm/within-kernels.js';
import type { Grid2D } from './grid2d.js';
import type { Grid3D } from './grid3d.js';
import { checkOut } from './options.js';
import { withinPoint } from './within-point.js';

/** Options of `withinMany()` on {@link PointGrid2D} and {@link PointGrid3D}. */
export interface WithinManyOptions {
  /**
   * Numbers between the starts of two consecutive queries. Default: the dimension (packed).
   * The length rule is that of the grid's positions (PointGridOptions' stride).
   */
  stride?: number;
  /** Index of the first query's x in the queries array. Default 0. */
  offset?: number;
  /**
   * An earlier result (of `withinMany()` or `neighbors()`) to write into:
   * each array is reused when its buffer has room, as `neighbors()` does
   * with its `out` (see {@link NeighborsOptions}).
   */
  out?: NeighborLists | undefined;
}

/**
 * The queries packed as float64, `d` numbers each, every coordinate checked
 * finite (RangeError naming the query and axis).
 */
function packQueries(queries: NumericArray, d: 2 | 3, stride: number, offset: number): Float64Array {
  const count = checkLayout(queries, d, stride, offset, 'queries');
  const packed = new Float64Array(count * d);
  for (let q = 0, from = offset, to = 0; q < count; q++, from += stride) {
    for (let axis = 0; axis < d; axis++, to++) {
      const value = queries[from + axis];
      // v - v is 0 for finite v, NaN for NaN and the infinities.
      if (value - value !== 0) throw pointError('queries', q, 'xyz'[axis], value);
      packed[to] = value;
    }
  }
  return packed;
}

/** Checks `withinMany` options; returns [stride, offset, out]. */
function readOptions(options: WithinManyOptions | undefined, d: number): [number, number, NeighborLists | undefined] {
  if (options === undefined) return [d, 0, undefined];
  if (options === null || typeof options !== 'object') {
    throw new RangeError(`options must be an object (stride, offset, out), got ${describe(options)}`);
  }
  const stride = options.stride ?? d;
  const offset = options.offset ?? 0;
  checkInteger('stride', stride, d);
  checkInteger('offset', offset, 0);
  return [stride, offset, checkOut(options.out)];
}

/**
 * Every query's points within `radius` as CSR rows (see the module notes).
 *
 * @throws RangeError for a radius < 0 or NaN, bad options, a queries array
 * whose layout leaves a partial query, or a query with a coordinate that is
 * not a finite number.
 */
export function withinMany(
  g: Grid2D | Grid3D,
  d: 2 | 3,
  queries: NumericArray,
  radius: number,
  options: WithinManyOptions | undefined,
): NeighborLists {
  checkDistance('radius', radius);
  const [stride, offset, out] = readOptions(options, d);
  const packed = packQueries(queries, d, stride, offset);
  g.sync('withinMany');
  const fast = g.points === 0 ? undefined : withinManyOnKernels(g, packed, radius, out);
  if (fast === undefined) return withinEach(g, d, packed, radius, out);
  if (verifying()) {
    // (Copies first: the JavaScript answer is written into out's arrays too.)
    const offsets = fast.offsets.slice();
    const indices = fast.indices.slice();
    const check = onJavaScript(() => withinEach(g, d, packed, radius, out));
    verifySame(`PointGrid${d}D withinMany`, 'offsets', offsets, check.offsets);
    verifySame(`PointGrid${d}D withinMany`, 'indices', indices, check.indices);
    return check;
  }
  return fast;
}

/** {@link withinMany} a query at a time: what the JavaScript path does. */
function withinEach(
  g: Grid2D | Grid3D,
  d: 2 | 3,
  packed: Float64Array,
  radius: number,
  out: NeighborLists | undefined,
): NeighborLists {
  const count = packed.length / d;
  const offsets = reuseArray(out?.offsets, count + 1) ?? roomyArray(count + 1, false);
  // All the room of out's buffer (this loop grows the result as it goes), or fresh memory.
  let indices =
    out === undefined
      ? new Uint32Array(Math.max(16, count))
      : new Uint32Array(
          out.indices.buffer,
          out.indices.byteOffset,
          (out.indices.buffer.byteLength - out.indices.byteOffset) >>> 2,
        );
  const scratch = g.scratchFor(g.points);
  let total = 0;
  for (let q = 0; q < count; q++) {
    offsets[q] = total;
    const found = withinPoint(g, packed[d * q], packed[d * q + 1], d === 3 ? packed[3 * q + 2] : 0, radius, scratch);
    if (total + found > indices.length) {
      const grown = roomyArray(Math.max(2 * indices.length, total + found), false);
      grown.set(indices.subarray(0, total));
      indices = grown;
    }
    indices.set(scratch.subarray(0, found), total);
    total += found;
  }
  offsets[count] = total;
  return { offsets, indices: reuseArray(indices, total) ?? indices };
}
