/**
 * Vertex welding (issue 6): merge every vertex that lies within a tolerance of
 * an earlier one, as importers, 3D-printing tools and glTF pipelines need.
 *
 * Built on the library's cell hashing, "grid coordinates -> hash map -> linked
 * list in an array" (article 004): representatives are linked per cell in flat
 * typed arrays and each vertex does one lookup of the cells its tolerance ball
 * touches. Tolerance 0 takes an exact path that hashes the coordinate bits.
 *
 * @module
 */

import { hashCell2, hashCell3, nextPowerOfTwo } from './cells.js';
import { checkFiniteDistance, checkInteger, checkLayout, describe, type NumericArray, pointError } from './validate.js';

/** Options of {@link weld}. */
export interface WeldOptions {
  /** Coordinates per vertex: 2 or 3. Default 3. */
  dimension?: 2 | 3;
  /** Array elements from one vertex to the next (three.js interleaved data). Default `dimension`. */
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
 * Accepted pairs can be an ulp or two farther apart than the tolerance once
 * the squared distance is rounded, so the cell search reaches this much
 * further to never miss one the float64 test accepts.
 */
const REACH_SLACK = 1 + 2 ** -40;

/**
 * Squared distances below 2^-1022 lose precision or flush to 0, so with a tiny
 * tolerance the float64 test accepts pairs up to ~2^-511 apart: the search
 * reaches at least that far.
 */
const MIN_REACH = 2 ** -510;

/**
 * Cells per axis at most. Cells grow past 2 * tolerance when the data spans
 * more than 2^30 of them, so cell coordinates are always int32 and far-away
 * coordinates with a tiny tolerance still get exact, distinct cells.
 */
const MAX_CELLS_PER_AXIS = 2 ** 30;

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
 * when `dx * dx + dy * dy + dz * dz <= tolerance * tolerance`, every operation
 * rounded to float64 (Float32Array input is widened exactly first).
 * `tolerance` 0 merges exact duplicates only, +0 equal to -0. Edge cases of
 * the float64 test, kept as is: a tolerance below ~1.5e-154 squares to 0 or a
 * subnormal, so pairs up to ~1e-154 apart may merge; a tolerance above
 * ~1.3e154 squares to Infinity and every vertex merges into vertex 0.
 *
 * Cost: O(n) time for non-degenerate input (the representatives near any
 * point are bounded because they are pairwise farther apart than the
 * tolerance), 8 cell lookups per vertex in 3D, 4 in 2D; O(n) memory (about
 * 40 bytes per 3D vertex). The input is never modified.
 *
 * @param positions vertex coordinates, `dimension` per vertex at `offset + i * stride`.
 * @param tolerance largest distance at which two vertices merge, in coordinate units, >= 0.
 * @param options dimension (2 or 3, default 3), stride (default dimension), offset (default 0).
 * @throws RangeError for a negative, NaN or infinite tolerance, a dimension other than 2 or 3,
 * a stride below the dimension, an offset outside the array, a length that leaves a partial
 * vertex, or a non-finite coordinate (naming the vertex).
 */
export function weld(positions: NumericArray, tolerance: number, options: WeldOptions = {}): WeldResult {
  checkFiniteDistance('tolerance', tolerance);
  const layout = readLayout(options);
  const coords = packCoordinates(positions, layout);
  const { remap, representatives, count } = weldCoordinates(coords, layout.dimension, tolerance);
  return { remap, representatives: representatives.slice(0, count), count };
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
 * @param indices triangle corners, 3 per triangle; `undefined` for a triangle soup
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
  indices: Uint32Array | Uint16Array | readonly number[] | undefined,
  tolerance: number,
  options: WeldMeshOptions = {},
): WeldMeshResult<P> {
  checkFiniteDistance('tolerance', tolerance);
  const layout = readLayout(options);
  const removeDegenerate = options.removeDegenerate ?? true;
  if (typeof removeDegenerate !== 'boolean') {
    throw new RangeError(`removeDegenerate must be a boolean, got ${describe(removeDegenerate)}`);
  }
  const coords = packCoordinates(positions, layout);
  const vertexCount = coords.length / layout.dimension;
  if (indices !== undefined) checkIndices(indices, vertexCount);
  else if (vertexCount % 3 !== 0) {
    throw new RangeError(
      `positions: a triangle soup (indices undefined) needs a multiple of 3 vertices, got ${vertexCount}`,
    );
  }

  const { remap, representatives, count } = weldCoordinates(coords, layout.dimension, tolerance);
  const cornerCount = indices === undefined ? vertexCount : indices.length;
  const welded = new Uint32Array(cornerCount);
  let written = 0;
  for (let corner = 0; corner < cornerCount; corner += 3) {
    let a: number;
    let b: number;
    let c: number;
    if (indices === undefined) {
      a = remap[corner];
      b = remap[corner + 1];
      c = remap[corner + 2];
    } else {
      a = remap[indices[corner]];
      b = remap[indices[corner + 1]];
      c = remap[indices[corner + 2]];
    }
    if (removeDegenerate && (a === b || b === c || a === c)) continue;
    welded[written] = a;
    welded[written + 1] = b;
    welded[written + 2] = c;
    written += 3;
  }

  return {
    positions: gatherPositions(positions, coords, representatives, count, layout.dimension),
    indices: written === cornerCount ? welded : welded.slice(0, written),
    removedTriangles: (cornerCount - written) / 3,
    remap,
    representatives: representatives.slice(0, count),
    count,
  };
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
 * Copies the vertices into one packed Float64Array so the hot loops read a
 * single array type whatever the input (number[], Float32Array, interleaved),
 * checking every coordinate on the way and turning -0 into +0 so the exact
 * path can hash bits.
 */
function packCoordinates(positions: NumericArray, layout: Layout): Float64Array {
  const { dimension, stride, offset } = layout;
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
  for (let j = 0; j < coords.length; j++) {
    const v = coords[j];
    // v - v is 0 for finite v, NaN for NaN and the infinities.
    if (v - v !== 0) {
      const index = Math.floor(j / dimension);
      const raw = positions[offset + index * stride + (j % dimension)];
      throw pointError('positions', index, 'xyz'[j % dimension], raw);
    }
    coords[j] = v + 0;
  }
  return coords;
}

function checkIndices(indices: Uint32Array | Uint16Array | readonly number[], vertexCount: number): void {
  if (indices === null || typeof indices !== 'object' || typeof indices.length !== 'number') {
    throw new RangeError(
      `indices must be an array, a Uint32Array, a Uint16Array or undefined, got ${describe(indices)}`,
    );
  }
  if (indices.length % 3 !== 0) {
    throw new RangeError(`indices.length must be a multiple of 3 (triangles), got ${indices.length}`);
  }
  for (let k = 0; k < indices.length; k++) {
    const v = indices[k];
    if (!(v >= 0 && v < vertexCount && Number.isInteger(v))) {
      throw new RangeError(
        `indices[${k}] must be an integer vertex index in [0, ${vertexCount - 1}], got ${describe(v)}`,
      );
    }
  }
}

function gatherPositions<P extends NumericArray>(
  positions: P,
  coords: Float64Array,
  representatives: Uint32Array,
  count: number,
  dimension: number,
): WeldedPositions<P> {
  // Copy from the packed float64 copy: it holds the input values exactly (-0 aside, which welds to +0 anyway).
  let out: number[] | Exclude<NumericArray, readonly number[]>;
  if (Array.isArray(positions)) out = new Array<number>(count * dimension).fill(0);
  else {
    const Typed = (positions as Exclude<NumericArray, readonly number[]>).constructor as new (
      length: number,
    ) => Exclude<NumericArray, readonly number[]>;
    out = new Typed(count * dimension);
  }
  for (let c = 0, target = 0; c < count; c++) {
    const source = representatives[c] * dimension;
    for (let axis = 0; axis < dimension; axis++) out[target++] = coords[source + axis];
  }
  return out as WeldedPositions<P>;
}

interface Welding {
  remap: Uint32Array;
  /** Room for one representative per vertex; the first `count` are set. */
  representatives: Uint32Array;
  count: number;
}

/** Welds packed, checked coordinates: the shared core of weld and weldMesh. */
function weldCoordinates(coords: Float64Array, dimension: 2 | 3, tolerance: number): Welding {
  const n = coords.length / dimension;
  const remap = new Uint32Array(n);
  const representatives = new Uint32Array(n);
  if (n === 0) return { remap, representatives, count: 0 };
  let count: number;
  if (tolerance === 0) count = weldExact(coords, dimension, remap, representatives);
  else if (tolerance * tolerance === Number.POSITIVE_INFINITY) {
    // The squared tolerance overflows: every finite squared distance passes the test, so all join vertex 0.
    count = 1;
  } else if (dimension === 3) count = weldNear3(coords, tolerance, remap, representatives);
  else count = weldNear2(coords, tolerance, remap, representatives);
  return { remap, representatives, count };
}

/** Murmur3's 32-bit finalizer: spreads every input bit over the low bits the table uses. */
function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Tolerance 0: open-addressing table from coordinate bits to representative.
 * No cell division, so no rounding can split equal values; -0 was already
 * turned into +0, so equal coordinates have equal bits.
 */
function weldExact(coords: Float64Array, dimension: number, remap: Uint32Array, representatives: Uint32Array): number {
  const n = coords.length / dimension;
  const bits = new Uint32Array(coords.buffer, coords.byteOffset, coords.length * 2);
  const words = dimension * 2;
  // At most n representatives: a table of 2n slots keeps the load at 1/2 without growing.
  const slots = new Int32Array(nextPowerOfTwo(n * 2)).fill(-1);
  const mask = slots.length - 1;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const base = i * dimension;
    let h = 0;
    for (let w = i * words, end = w + words; w < end; w++) {
      h = Math.imul(h ^ bits[w], 0x9e3779b1);
      h ^= h >>> 15;
    }
    let s = mix32(h) & mask;
    let found = -1;
    for (;;) {
      const r = slots[s];
      if (r < 0) break;
      const other = representatives[r] * dimension;
      let same = true;
      for (let axis = 0; axis < dimension; axis++) {
        if (coords[other + axis] !== coords[base + axis]) {
          same = false;
          break;
        }
      }
      if (same) {
        found = r;
        break;
      }
      s = (s + 1) & mask;
    }
    if (found < 0) {
      found = count++;
      representatives[found] = i;
      slots[s] = found;
    }
    remap[i] = found;
  }
  return count;
}

/**
 * Grid for the tolerance path. Cells have side 2 * reach (reach: the tolerance
 * plus slack) so a vertex's ball [p - reach, p + reach] spans 2 cells per
 * axis: 8 lookups in 3D (4 in 2D) against 27 (9) with tolerance-sized cells,
 * for a searched volume of 64 tolerance^3 against 27. Welding input is sparse
 * at the tolerance scale (the tolerance is well below edge lengths), so almost
 * every lookup is a miss or a one-entry list and the lookup count dominates:
 * 2 * reach is the side the article's table ("search diameter") favours.
 *
 * Cell coordinates are taken relative to the data's lowest corner and halved
 * first so neither can overflow: u = (v * 0.5 - min * 0.5) / cellHalf. Every
 * step is a monotone float64 operation, so a vertex with a <= r <= b (r, a, b
 * doubles) always has cell(a) <= cell(r) <= cell(b): searching the cells from
 * cell(p - reach) to cell(p + reach) finds every accepted representative, with
 * no rounding case missed. That range is 2 cells per axis, 3 on rare rounding.
 */
interface Grid {
  reach: number;
  halfMin: Float64Array;
  inverseCellHalf: number;
}

function makeGrid(coords: Float64Array, dimension: number, tolerance: number): Grid {
  const reach = Math.max(tolerance * REACH_SLACK, MIN_REACH);
  const halfMin = new Float64Array(dimension).fill(Number.POSITIVE_INFINITY);
  const halfMax = new Float64Array(dimension).fill(Number.NEGATIVE_INFINITY);
  for (let j = 0; j < coords.length; j += dimension) {
    for (let axis = 0; axis < dimension; axis++) {
      const half = coords[j + axis] * 0.5;
      if (half < halfMin[axis]) halfMin[axis] = half;
      if (half > halfMax[axis]) halfMax[axis] = half;
    }
  }
  let halfExtent = 0;
  for (let axis = 0; axis < dimension; axis++) halfExtent = Math.max(halfExtent, halfMax[axis] - halfMin[axis]);
  const cellHalf = Math.max(reach, halfExtent / MAX_CELLS_PER_AXIS);
  return { reach, halfMin, inverseCellHalf: 1 / cellHalf };
}

/**
 * Open-addressing cell table (linear probing, load <= 1/2) with the cell key
 * and the head of its representative list stored in the slot itself, so a
 * lookup touches one slot record. Cells are never removed while welding.
 */
class WeldCells {
  /** Per slot: the cell's int32 coordinates, `dimension` of them. */
  keys: Int32Array;
  /** Per slot: newest representative in the cell, or -1 for an empty slot. */
  heads: Int32Array;
  mask: number;
  size = 0;
  readonly dimension: number;

  constructor(dimension: number, expectedCells: number) {
    this.dimension = dimension;
    const slots = nextPowerOfTwo(Math.max(64, expectedCells * 2));
    this.keys = new Int32Array(slots * dimension);
    this.heads = new Int32Array(slots).fill(-1);
    this.mask = slots - 1;
  }

  /** Slot of a new cell, placed by `hash`; grows first when the load would pass 1/2. */
  claim(hash: number): number {
    if ((this.size + 1) * 2 > this.heads.length) this.grow();
    this.size++;
    const heads = this.heads;
    const mask = this.mask;
    let s = hash & mask;
    while (heads[s] >= 0) s = (s + 1) & mask;
    return s;
  }

  private grow(): void {
    const dimension = this.dimension;
    const oldKeys = this.keys;
    const oldHeads = this.heads;
    const slots = oldHeads.length * 2;
    this.keys = new Int32Array(slots * dimension);
    this.heads = new Int32Array(slots).fill(-1);
    this.mask = slots - 1;
    for (let old = 0; old < oldHeads.length; old++) {
      if (oldHeads[old] < 0) continue;
      const k = old * dimension;
      const hash =
        dimension === 3 ? hashCell3(oldKeys[k], oldKeys[k + 1], oldKeys[k + 2]) : hashCell2(oldKeys[k], oldKeys[k + 1]);
      let s = hash & this.mask;
      while (this.heads[s] >= 0) s = (s + 1) & this.mask;
      this.heads[s] = oldHeads[old];
      for (let axis = 0; axis < dimension; axis++) this.keys[s * dimension + axis] = oldKeys[k + axis];
    }
  }
}

/** Tolerance path, 3D. See {@link Grid} for the cell choice and why no accepted pair is missed. */
function weldNear3(coords: Float64Array, tolerance: number, remap: Uint32Array, representatives: Uint32Array): number {
  const n = coords.length / 3;
  const tolerance2 = tolerance * tolerance;
  const { reach, halfMin, inverseCellHalf: inv } = makeGrid(coords, 3, tolerance);
  const hx = halfMin[0];
  const hy = halfMin[1];
  const hz = halfMin[2];
  // Next-older representative in the same cell: the per-cell linked lists.
  const next = new Int32Array(n);
  // Soups repeat each position about 6 times: start the table near the representative count.
  const cells = new WeldCells(3, n >>> 2);
  let keys = cells.keys;
  let heads = cells.heads;
  let mask = cells.mask;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = coords[i * 3];
    const y = coords[i * 3 + 1];
    const z = coords[i * 3 + 2];
    const x0 = Math.floor(((x - reach) * 0.5 - hx) * inv) | 0;
    const x1 = Math.floor(((x + reach) * 0.5 - hx) * inv) | 0;
    const y0 = Math.floor(((y - reach) * 0.5 - hy) * inv) | 0;
    const y1 = Math.floor(((y + reach) * 0.5 - hy) * inv) | 0;
    const z0 = Math.floor(((z - reach) * 0.5 - hz) * inv) | 0;
    const z1 = Math.floor(((z + reach) * 0.5 - hz) * inv) | 0;
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    for (let cz = z0; cz <= z1; cz++) {
      for (let cy = y0; cy <= y1; cy++) {
        for (let cx = x0; cx <= x1; cx++) {
          let s = hashCell3(cx, cy, cz) & mask;
          let r = -1;
          for (;;) {
            r = heads[s];
            if (r < 0) break;
            const k = s * 3;
            if (keys[k] === cx && keys[k + 1] === cy && keys[k + 2] === cz) break;
            s = (s + 1) & mask;
          }
          for (; r >= 0; r = next[r]) {
            const j = representatives[r] * 3;
            const dx = coords[j] - x;
            const dy = coords[j + 1] - y;
            const dz = coords[j + 2] - z;
            const d2 = dx * dx + dy * dy + dz * dz;
            if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 === bestDistance2 && r < best))) {
              best = r;
              bestDistance2 = d2;
            }
          }
        }
      }
    }
    if (best < 0) {
      best = count++;
      representatives[best] = i;
      const cx = Math.floor((x * 0.5 - hx) * inv) | 0;
      const cy = Math.floor((y * 0.5 - hy) * inv) | 0;
      const cz = Math.floor((z * 0.5 - hz) * inv) | 0;
      const hash = hashCell3(cx, cy, cz);
      let s = hash & mask;
      for (;;) {
        if (heads[s] < 0) {
          s = cells.claim(hash);
          keys = cells.keys;
          heads = cells.heads;
          mask = cells.mask;
          keys[s * 3] = cx;
          keys[s * 3 + 1] = cy;
          keys[s * 3 + 2] = cz;
          next[best] = -1;
          break;
        }
        const k = s * 3;
        if (keys[k] === cx && keys[k + 1] === cy && keys[k + 2] === cz) {
          next[best] = heads[s];
          break;
        }
        s = (s + 1) & mask;
      }
      heads[s] = best;
    }
    remap[i] = best;
  }
  return count;
}

/** Tolerance path, 2D: {@link weldNear3} without z. */
function weldNear2(coords: Float64Array, tolerance: number, remap: Uint32Array, representatives: Uint32Array): number {
  const n = coords.length / 2;
  const tolerance2 = tolerance * tolerance;
  const { reach, halfMin, inverseCellHalf: inv } = makeGrid(coords, 2, tolerance);
  const hx = halfMin[0];
  const hy = halfMin[1];
  const next = new Int32Array(n);
  const cells = new WeldCells(2, n >>> 2);
  let keys = cells.keys;
  let heads = cells.heads;
  let mask = cells.mask;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = coords[i * 2];
    const y = coords[i * 2 + 1];
    const x0 = Math.floor(((x - reach) * 0.5 - hx) * inv) | 0;
    const x1 = Math.floor(((x + reach) * 0.5 - hx) * inv) | 0;
    const y0 = Math.floor(((y - reach) * 0.5 - hy) * inv) | 0;
    const y1 = Math.floor(((y + reach) * 0.5 - hy) * inv) | 0;
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    for (let cy = y0; cy <= y1; cy++) {
      for (let cx = x0; cx <= x1; cx++) {
        let s = hashCell2(cx, cy) & mask;
        let r = -1;
        for (;;) {
          r = heads[s];
          if (r < 0) break;
          const k = s * 2;
          if (keys[k] === cx && keys[k + 1] === cy) break;
          s = (s + 1) & mask;
        }
        for (; r >= 0; r = next[r]) {
          const j = representatives[r] * 2;
          const dx = coords[j] - x;
          const dy = coords[j + 1] - y;
          const d2 = dx * dx + dy * dy;
          if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 === bestDistance2 && r < best))) {
            best = r;
            bestDistance2 = d2;
          }
        }
      }
    }
    if (best < 0) {
      best = count++;
      representatives[best] = i;
      const cx = Math.floor((x * 0.5 - hx) * inv) | 0;
      const cy = Math.floor((y * 0.5 - hy) * inv) | 0;
      const hash = hashCell2(cx, cy);
      let s = hash & mask;
      for (;;) {
        if (heads[s] < 0) {
          s = cells.claim(hash);
          keys = cells.keys;
          heads = cells.heads;
          mask = cells.mask;
          keys[s * 2] = cx;
          keys[s * 2 + 1] = cy;
          next[best] = -1;
          break;
        }
        const k = s * 2;
        if (keys[k] === cx && keys[k + 1] === cy) {
          next[best] = heads[s];
          break;
        }
        s = (s + 1) & mask;
      }
      heads[s] = best;
    }
    remap[i] = best;
  }
  return count;
}
