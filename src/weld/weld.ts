/**
 * Vertex welding (issue 6): merge every vertex that lies within a tolerance of
 * an earlier one, as importers, 3D-printing tools and glTF pipelines need.
 *
 * Built on the library's cell hashing, "grid coordinates -> hash map -> linked
 * list in an array" (Bitsquid's "Finding nearby stuff", see
 * docs/guides/welding.md): representatives are linked per cell in flat
 * typed arrays and each vertex does one lookup of the cells its tolerance ball
 * touches (weld/near.ts). Tolerance 0 takes an exact path that hashes the
 * coordinate bits (weld/exact.ts). This file holds the public API: argument
 * checks, packing the input, and the mesh side of weldMesh.
 *
 * @module
 */

import { isOrdinaryRadius } from '../core/distance.js';
import {
  checkFiniteDistance,
  checkInteger,
  checkLayout,
  describe,
  type NumericArray,
  pointError,
} from '../core/validate.js';
import { onJavaScript, verifying } from '../wasm/kernels.js';
import { verifyError, verifySame } from '../wasm/verify.js';
import { weldOnKernels } from '../wasm/weld-kernels.js';
import { weldExact } from './exact.js';
import { LOWEST_HOT_TOLERANCE, weldHuge, weldTiny } from './extreme.js';
import { type AcceptRepresentative, weldNear2, weldNear3 } from './near.js';

/** Options of {@link weld}. */
export interface WeldOptions {
  /** Coordinates per vertex: 2 or 3. Default 3. */
  dimension?: 2 | 3;
  /**
   * Array elements from one vertex to the next (three.js interleaved data). Default `dimension`.
   * Vertex i's coordinates are at `offset + i * stride`; the array may end anywhere after the last
   * vertex's coordinates and before the next vertex's first, never inside a vertex's coordinates.
   */
  stride?: number;
  /** Index of the first vertex's first coordinate. Default 0. */
  offset?: number;
}

/** What {@link weld} returns. */
export interface WeldResult {
  /** For each input vertex, the number of its representative (welded vertex), in [0, count). */
  remap: Uint32Array;
  /** For each representative, the input index of the vertex that founded it (increasing). */
  representatives: Uint32Array;
  /** Number of representatives (welded vertices). */
  count: number;
}

/** Options of {@link weldMesh}. */
export interface WeldMeshOptions extends WeldOptions {
  /** Drop triangles with two corners on the same welded vertex. Default true. */
  removeDegenerate?: boolean;
}

/** The array type weldMesh returns positions in: the input's own type, or `number[]` for arrays. */
export type WeldedPositions<P extends NumericArray> = P extends readonly number[] ? number[] : P;

/** What {@link weldMesh} returns. */
export interface WeldMeshResult<P extends NumericArray> {
  /** Coordinates of the welded vertices, packed (`dimension` per vertex), same array type as the input. */
  positions: WeldedPositions<P>;
  /** Triangle corners (3 per triangle) indexing `positions` by vertex. */
  indices: Uint32Array;
  /** Triangles dropped because two of their corners are on the same welded vertex. */
  removedTriangles: number;
  /** For each input vertex, its welded vertex number, in [0, count). */
  remap: Uint32Array;
  /** For each welded vertex, the input vertex it was founded by: copy other attributes (normals, UVs) through it. */
  representatives: Uint32Array;
  /** Number of welded vertices. */
  count: number;
}

/**
 * Welds vertices that are within `tolerance` of each other.
 *
 * Definition (deterministic): vertices are taken in index order; vertex i joins
 * the nearest existing representative within `tolerance` (ties: the lowest
 * representative number); if there is none, i becomes representative number
 * `count` and count grows by one. So every vertex is within tolerance of its
 * representative and no two representatives are within tolerance of each other.
 *
 * Distance test: with `dx = a.x - b.x` (and dy, dz), a pair is within tolerance
 * when `dx * dx + dy * dy + dz * dz <= tolerance * tolerance`, evaluated in
 * float64 as if its exponent range were unbounded (the library's distance
 * rule: every operation rounded to float64, nothing overflows or underflows;
 * Float32Array input is widened exactly first), and squared distances so
 * evaluated decide which representative is nearest. So it is the
 * mathematical answer up to rounding at any scale: `tolerance` 0 merges exact
 * duplicates only (+0 equal to -0), 1e-200 merges vertices up to 1e-200 apart
 * and no farther, and 1e200 does not merge vertices 1e300 apart. Tolerances
 * below about 3.5e-133 or above about 1.3e154 take a slower exact path.
 *
 * Cost: O(n) time for non-degenerate input (the representatives near any
 * point are few because they are pairwise farther apart than the tolerance):
 * none for a vertex within half the tolerance of the representative of one
 * of the 4 vertices before it (a soup repeats corners within a triangle or
 * two), one for one with such a representative in its own cell, else up to 8
 * in 3D (4 in 2D). O(n) memory, about 70 to 100 bytes per 3D vertex while
 * welding (24 fewer for a packed Float32Array or Float64Array, read in place).
 * The input is never modified.
 *
 * @param positions vertex coordinates, `dimension` per vertex at `offset + i * stride`.
 * @param tolerance largest distance at which two vertices merge, in coordinate units, >= 0.
 * @param options dimension (2 or 3, default 3), stride (default dimension), offset (default 0).
 * @throws RangeError for a negative, NaN or infinite tolerance, a dimension other than 2 or 3,
 * a stride below the dimension, an offset outside the array, a length that ends inside a
 * vertex's coordinates (see {@link WeldOptions.stride}), or a non-finite coordinate (naming the vertex).
 */
export function weld(positions: NumericArray, tolerance: number, options: WeldOptions = {}): WeldResult {
  checkFiniteDistance('tolerance', tolerance);
  const layout = readLayout(options);
  // (weld returns no coordinates: the kernels need not copy them out.)
  const { remap, representatives, count } = weldPositions(positions, layout, tolerance, undefined, false);
  return { remap, representatives: exactly(representatives, count), count };
}

/**
 * Welds a triangle mesh: vertices within `tolerance` merge exactly as in
 * {@link weld} (same definition, same distance test), the index buffer is
 * remapped to the welded vertices and, by default, triangles left with two
 * corners on the same welded vertex (including ones that already had) are
 * removed. Every welded vertex is kept, even one only removed triangles used,
 * so `remap` and `representatives` stay those of {@link weld}.
 *
 * Works on three.js attributes: pass `attribute.array` (or the interleaved
 * buffer's array with its `stride` and the attribute's `offset`) and
 * `geometry.index?.array`.
 *
 * Cost: O(n + t) time for n vertices and t triangles (non-degenerate input),
 * O(n + t) memory. The input arrays are never modified.
 *
 * @param positions vertex coordinates, `dimension` per vertex at `offset + i * stride`.
 * @param indices triangle corners, 3 per triangle, as Uint32Array, Uint16Array, number[] or any
 * array of integers (three.js `geometry.index?.array`); `undefined` for a triangle soup
 * (vertices 3t, 3t + 1, 3t + 2 form triangle t).
 * @param tolerance largest distance at which two vertices merge, in coordinate units, >= 0.
 * @param options as {@link weld}, plus `removeDegenerate` (default true).
 * @returns positions in the input's array type (`number[]` for an array).
 * @throws RangeError as {@link weld}, and for indices whose length is not a multiple of 3
 * or that hold a value that is not a vertex index (naming its position), or a soup whose
 * vertex count is not a multiple of 3.
 */
export function weldMesh<P extends NumericArray>(
  positions: P,
  indices: NumericArray | undefined,
  tolerance: number,
  options: WeldMeshOptions = {},
): WeldMeshResult<P> {
  if (typeof indices === 'number' && typeof tolerance !== 'number') {
    // weld's order (positions, tolerance[, options]): without this it would read as a missing tolerance.
    throw new RangeError(
      `weldMesh(positions, indices, tolerance, options?): indices come second (undefined for a triangle soup), got the number ${indices} there; did you mean weldMesh(positions, undefined, ${indices})?`,
    );
  }
  checkFiniteDistance('tolerance', tolerance);
  const layout = readLayout(options);
  const removeDegenerate = options.removeDegenerate ?? true;
  if (typeof removeDegenerate !== 'boolean') {
    throw new RangeError(`removeDegenerate must be a boolean, got ${describe(removeDegenerate)}`);
  }
  const { dimension } = layout;
  // Coordinates are checked first (their errors come before the indices'), by the weld itself.
  const { remap, representatives, repCoords, count } = weldPositions(positions, layout, tolerance, undefined);
  const vertexCount = remap.length;
  if (indices !== undefined) checkIndices(indices, vertexCount);
  else if (vertexCount % 3 !== 0) {
    throw new RangeError(
      `positions: a triangle soup (indices undefined) needs a multiple of 3 vertices, got ${vertexCount}`,
    );
  }
  const cornerCount = indices === undefined ? vertexCount : indices.length;
  const welded = new Uint32Array(cornerCount);
  const written = remapTriangles(remap, indices, welded, removeDegenerate);

  return {
    positions: convertPositions(positions, repCoords.subarray(0, count * dimension)),
    indices: written === cornerCount ? welded : welded.slice(0, written),
    removedTriangles: (cornerCount - written) / 3,
    remap,
    representatives: exactly(representatives, count),
    count,
  };
}

/** The first `count` of `array`: itself when that is all of it, else a copy. */
function exactly(array: Uint32Array, count: number): Uint32Array {
  return array.length === count ? array : array.slice(0, count);
}

interface Layout {
  dimension: 2 | 3;
  stride: number;
  offset: number;
}

function readLayout(options: WeldOptions): Layout {
  if (options === null || typeof options !== 'object') {
    throw new RangeError(`options must be an object, got ${describe(options)}`);
  }
  const dimension = options.dimension ?? 3;
  if (dimension !== 2 && dimension !== 3) {
    throw new RangeError(`dimension must be 2 or 3, got ${describe(dimension)}`);
  }
  const stride = options.stride ?? dimension;
  const offset = options.offset ?? 0;
  checkInteger('stride', stride, dimension);
  checkInteger('offset', offset, 0);
  return { dimension, stride, offset };
}

/**
 * The coordinates a weld reads, checked, with their bounds in min / max: the
 * input itself (a view of it) when it is a packed Float32Array or Float64Array
 * and the tolerance is > 0, otherwise the packed float64 copy of
 * {@link packCoordinates}, which the exact path needs (it hashes the bits,
 * so -0 must become +0). A soup of a
 * million vertices then costs no 24 MB copy: writing its fresh pages took
 * longer than the rest of the weld on a loaded machine.
 */
function coordinatesOf(
  positions: NumericArray,
  dimension: number,
  stride: number,
  offset: number,
  min: Float64Array,
  max: Float64Array,
  tolerance: number,
): Float32Array | Float64Array {
  const direct =
    tolerance > 0 && stride === dimension && (positions instanceof Float32Array || positions instanceof Float64Array);
  if (!direct) return packCoordinates(positions, dimension, stride, offset, min, max);
  const n = checkLayout(positions, dimension, stride, offset);
  const view = positions.subarray(offset, offset + n * dimension);
  const bad = boundsOf(view, dimension, min, max);
  if (bad >= 0) throw coordinateError(positions, dimension, stride, offset, bad);
  return view;
}

/**
 * Bounds per axis of packed coordinates into min / max, read only; returns the
 * first vertex with a non-finite coordinate, or -1 when all are finite.
 */
function boundsOf(
  coords: Float32Array | Float64Array,
  dimension: number,
  min: Float64Array,
  max: Float64Array,
): number {
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let minZ = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  let maxZ = Number.NEGATIVE_INFINITY;
  const three = dimension === 3;
  for (let j = 0; j < coords.length; j += dimension) {
    const x = coords[j];
    const y = coords[j + 1];
    const z = three ? coords[j + 2] : 0;
    // v - v is 0 for finite v, NaN for NaN and the infinities.
    if (x - x + (y - y) + (z - z) !== 0) return j / dimension;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  min[0] = minX + 0;
  min[1] = minY + 0;
  max[0] = maxX + 0;
  max[1] = maxY + 0;
  if (three) {
    min[2] = minZ + 0;
    max[2] = maxZ + 0;
  }
  return -1;
}

/**
 * Copies the vertices into one packed Float64Array so the hot loops read a
 * single array type whatever the input (number[], Float32Array, interleaved),
 * checking every coordinate on the way, turning -0 into +0 so the exact path
 * can hash bits, and writing the bounds the grid is placed by into min / max.
 */
function packCoordinates(
  positions: NumericArray,
  dimension: number,
  stride: number,
  offset: number,
  min: Float64Array,
  max: Float64Array,
): Float64Array {
  const n = checkLayout(positions, dimension, stride, offset);
  const coords = new Float64Array(n * dimension);
  if (stride === dimension && ArrayBuffer.isView(positions)) {
    // Native bulk conversion, much faster than an element loop over a typed array of unknown kind.
    coords.set(positions.subarray(offset, offset + n * dimension));
  } else {
    for (let i = 0, source = offset, target = 0; i < n; i++, source += stride) {
      for (let axis = 0; axis < dimension; axis++) coords[target++] = positions[source + axis];
    }
  }
  // One pass, per-axis bounds in locals: this runs over every coordinate of the input.
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let minZ = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  let maxZ = Number.NEGATIVE_INFINITY;
  const three = dimension === 3;
  for (let j = 0; j < coords.length; j += dimension) {
    // +0 turns -0 into +0; v - v is 0 for finite v, NaN for NaN and the infinities.
    const x = coords[j] + 0;
    const y = coords[j + 1] + 0;
    const z = three ? coords[j + 2] + 0 : 0;
    if (x - x + (y - y) + (z - z) !== 0) throw coordinateError(positions, dimension, stride, offset, j / dimension);
    coords[j] = x;
    coords[j + 1] = y;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (three) {
      coords[j + 2] = z;
      if (z < minZ) minZ = z;
      if (z > maxZ) maxZ = z;
    }
  }
  min[0] = minX;
  min[1] = minY;
  max[0] = maxX;
  max[1] = maxY;
  if (three) {
    min[2] = minZ;
    max[2] = maxZ;
  }
  return coords;
}

/** The error for vertex `index`, which has a non-finite coordinate, read back from the input. */
function coordinateError(
  positions: NumericArray,
  dimension: number,
  stride: number,
  offset: number,
  index: number,
): RangeError {
  for (let axis = 0; axis < dimension; axis++) {
    const value = positions[offset + index * stride + axis];
    if (!Number.isFinite(Number(value))) return pointError('positions', index, 'xyz'[axis], value);
  }
  return pointError('positions', index, 'x', Number.NaN);
}

/**
 * Writes each triangle's welded corners to `out` (skipping degenerate ones when
 * asked) and returns how many corners were written. Only typed arrays and
 * numbers here, see gridParameters in core/weld-cells.ts for why.
 */
function remapTriangles(
  remap: Uint32Array,
  indices: NumericArray | undefined,
  out: Uint32Array,
  removeDegenerate: boolean,
): number {
  if (indices === undefined) return remapSoup(remap, out, removeDegenerate);
  let written = 0;
  for (let corner = 0; corner < out.length; corner += 3) {
    const a = remap[indices === undefined ? corner : indices[corner]];
    const b = remap[indices === undefined ? corner + 1 : indices[corner + 1]];
    const c = remap[indices === undefined ? corner + 2 : indices[corner + 2]];
    if (removeDegenerate && (a === b || b === c || a === c)) continue;
    out[written] = a;
    out[written + 1] = b;
    out[written + 2] = c;
    written += 3;
  }
  return written;
}

/** {@link remapTriangles} of a soup: corner k is vertex k, a loop of its own over typed arrays only. */
function remapSoup(remap: Uint32Array, out: Uint32Array, removeDegenerate: boolean): number {
  if (!removeDegenerate) {
    out.set(remap.subarray(0, out.length));
    return out.length;
  }
  let written = 0;
  for (let corner = 0; corner < out.length; corner += 3) {
    const a = remap[corner];
    const b = remap[corner + 1];
    const c = remap[corner + 2];
    out[written] = a;
    out[written + 1] = b;
    out[written + 2] = c;
    // Written either way, kept only when no two corners share a welded vertex: no hard-to-predict branch.
    written += a === b || b === c || a === c ? 0 : 3;
  }
  return written;
}

function checkIndices(indices: NumericArray, vertexCount: number): void {
  if (indices === null || typeof indices !== 'object' || typeof indices.length !== 'number') {
    throw new RangeError(
      `indices must be an array or typed array of vertex indices (e.g. Uint32Array, Uint16Array) or undefined, got ${describe(indices)}`,
    );
  }
  if (indices.length % 3 !== 0) {
    throw new RangeError(`indices.length must be a multiple of 3 (triangles), got ${indices.length}`);
  }
  for (let k = 0; k < indices.length; k++) {
    const v = indices[k];
    if (!(v >= 0 && v < vertexCount && Number.isInteger(v))) {
      const range = vertexCount === 0 ? 'but positions holds no vertices' : `in [0, ${vertexCount - 1}]`;
      throw new RangeError(`indices[${k}] must be an integer vertex index ${range}, got ${describe(v)}`);
    }
  }
}

/** The welded coordinates in the input's array type: exact, since they are input values widened to float64. */
function convertPositions<P extends NumericArray>(positions: P, packed: Float64Array): WeldedPositions<P> {
  if (Array.isArray(positions)) return Array.from(packed) as WeldedPositions<P>;
  type Typed = Exclude<NumericArray, readonly number[]>;
  const Constructor = (positions as Typed).constructor as new (source: Float64Array) => Typed;
  return new Constructor(packed) as WeldedPositions<P>;
}

/** @internal */
export interface Welding {
  remap: Uint32Array;
  /** The representatives: the first `count` entries (it may be longer). */
  representatives: Uint32Array;
  /**
   * Representatives' coordinates packed in representative order: the first `count * dimension` entries
   * (empty from the kernels when not asked for, see weldPositions).
   */
  repCoords: Float64Array;
  count: number;
}

/**
 * Welds `positions` (checked and packed here) by the definition of {@link weld}
 * with an extra condition for joining a representative: the core of
 * weldGeometry (spatialhash/three). Not part of the package's public API.
 *
 * @param name how errors name the positions argument.
 * @internal
 */
export function weldWithTest(
  name: string,
  positions: NumericArray,
  dimension: 2 | 3,
  tolerance: number,
  accept: AcceptRepresentative | undefined,
): Welding {
  checkFiniteDistance('tolerance', tolerance);
  try {
    return weldPositions(positions, { dimension, stride: dimension, offset: 0 }, tolerance, accept);
  } catch (error) {
    if (error instanceof RangeError) throw new RangeError(error.message.replace(/^positions/, name));
    throw error;
  }
}

/**
 * Checks and welds `positions` (tolerance already checked): on the
 * WebAssembly kernels where they run and there is no extra test (see
 * src/wasm/weld-kernels.ts), else here; both give the same result. Without
 * `coordinates` the kernels' welding may leave repCoords empty.
 */
function weldPositions(
  positions: NumericArray,
  layout: Layout,
  tolerance: number,
  accept: AcceptRepresentative | undefined,
  coordinates = true,
): Welding {
  const { dimension, stride, offset } = layout;
  // The kernels repeat the hot paths of weldCoordinates only, exact.ts (tolerance 0: equal coordinates, no
  // arithmetic) and near.ts (ordinary tolerances): extreme ones (whose square overflows or underflows, see
  // isOrdinaryRadius in core/distance.ts) take weld/extreme.ts's cold paths here.
  if (accept === undefined && (tolerance === 0 || (isOrdinaryRadius(tolerance) && tolerance >= LOWEST_HOT_TOLERANCE))) {
    const n = checkLayout(positions, dimension, stride, offset);
    const welded = weldOnKernels(positions, dimension, stride, offset, n, tolerance, coordinates || verifying());
    if (typeof welded === 'number') throw coordinateError(positions, dimension, stride, offset, welded);
    if (welded !== undefined) {
      if (verifying()) {
        verifyWelding(
          welded,
          onJavaScript(() => weldPositions(positions, layout, tolerance, accept)),
          dimension,
        );
      }
      return welded;
    }
  }
  const min = new Float64Array(dimension);
  const max = new Float64Array(dimension);
  const coords = coordinatesOf(positions, dimension, stride, offset, min, max, tolerance);
  return weldCoordinates(coords, min, max, dimension, tolerance, accept);
}

/** Mode 'verify': throws unless the kernels' welding equals the JavaScript path's. */
function verifyWelding(kernels: Welding, javascript: Welding, d: number): void {
  if (kernels.count !== javascript.count) {
    throw verifyError('weld', `it keeps ${kernels.count} vertices on the kernels, ${javascript.count} in JavaScript`);
  }
  verifySame('weld', 'remap', kernels.remap, javascript.remap);
  // (Only the first count representatives, and their coordinates, are the welding's: see Welding.)
  const count = kernels.count;
  verifySame(
    'weld',
    'representatives',
    kernels.representatives.subarray(0, count),
    javascript.representatives.subarray(0, count),
  );
  verifySame(
    'weld',
    "the representatives' coordinates",
    kernels.repCoords.subarray(0, d * count),
    javascript.repCoords.subarray(0, d * count),
  );
}

/** Welds packed, checked coordinates (see coordinatesOf): the shared core of weld and weldMesh. */
function weldCoordinates(
  coords: Float32Array | Float64Array,
  min: Float64Array,
  max: Float64Array,
  dimension: 2 | 3,
  tolerance: number,
  accept?: AcceptRepresentative,
): Welding {
  const n = coords.length / dimension;
  const remap = new Uint32Array(n);
  const representatives = new Uint32Array(n);
  const repCoords = new Float64Array(n * dimension);
  let count = 0;
  if (n === 0) count = 0;
  // coordinatesOf packs the coordinates (as float64, -0 turned into +0) for these two paths.
  else if (tolerance === 0)
    count = weldExact(coords as Float64Array, dimension, remap, representatives, repCoords, accept);
  else if (tolerance * tolerance === Number.POSITIVE_INFINITY) {
    // The squared tolerance overflows: near.ts on scaled coordinates (weld/extreme.ts).
    count = weldHuge(coords, min, max, dimension, tolerance, remap, representatives, repCoords, accept);
  } else if (tolerance < LOWEST_HOT_TOLERANCE) {
    // Squared distances that matter would underflow float64: the exact cold path (weld/extreme.ts).
    count = weldTiny(coords, min, max, dimension, tolerance, remap, representatives, repCoords, accept);
  } else if (dimension === 3) {
    count = weldNear3(coords, min, max, tolerance, remap, representatives, repCoords, accept);
  } else count = weldNear2(coords, min, max, tolerance, remap, representatives, repCoords, accept);
  return { remap, representatives, repCoords, count };
}
