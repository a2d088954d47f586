/**
 * The loops of a point grid build that are the JavaScript path's alone, one
 * function per phase (bounds, the hashed count, renumbering); the loops the
 * kernels run too (the dense count, prefix sums, scatter, small-cell sort)
 * are generated into build-loops.ts from src/templates/build.template.ts.
 *
 * Why separate functions: a build called once per frame runs each loop over
 * every point once per call, so V8 first compiles it on-stack (OSR) in the
 * middle of its first hot loop. With every phase in one method, that code
 * also covers the phases after the loop, whose branches the interpreter has
 * not run yet, and it deoptimises there on every call (then interprets the
 * rest, boxing doubles: garbage each frame). A function holding one loop has
 * nothing after its loop to guess about, gets optimised normally after a few
 * calls and stays optimised. Keep each loop here small and free of paths a
 * steady build never takes, other than throwing on bad input.
 *
 * @module
 */
import type { CellTable } from '../core/cell-table.js';
import { type NumericArray, pointError } from '../core/validate.js';
import { cellAlong } from './build-loops.js';

/**
 * Checks that every point of `positions` is finite (throwing a RangeError
 * naming the first bad one) and writes their bounds into `out`: min x, min y,
 * max x, max y. `n` is at least 1.
 */
export function bounds2(positions: NumericArray, n: number, stride: number, offset: number, out: Float64Array): void {
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  // (x - x !== 0 is the cheap test for NaN and both infinities.)
  for (let i = 0, p = offset; i < n; i++, p += stride) {
    const x = positions[p];
    const y = positions[p + 1];
    if (x - x !== 0 || y - y !== 0) badPoint(positions, i, p, 2);
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  out[0] = minX;
  out[1] = minY;
  out[2] = maxX;
  out[3] = maxY;
}

/** {@link bounds2} in 3D: writes min x, min y, min z, max x, max y, max z into `out`. */
export function bounds3(positions: NumericArray, n: number, stride: number, offset: number, out: Float64Array): void {
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let minZ = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  let maxZ = Number.NEGATIVE_INFINITY;
  for (let i = 0, p = offset; i < n; i++, p += stride) {
    const x = positions[p];
    const y = positions[p + 1];
    const z = positions[p + 2];
    if (x - x !== 0 || y - y !== 0 || z - z !== 0) badPoint(positions, i, p, 3);
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  out[0] = minX;
  out[1] = minY;
  out[2] = minZ;
  out[3] = maxX;
  out[4] = maxY;
  out[5] = maxZ;
}

/** Throws the RangeError for point i (at p) naming its first non-finite coordinate. Out of line: never hot. */
function badPoint(positions: NumericArray, i: number, p: number, d: number): never {
  for (let k = 0; k < d; k++) {
    const v = positions[p + k];
    if (v - v !== 0) throw pointError('positions', i, k === 0 ? 'x' : k === 1 ? 'y' : 'z', v);
  }
  throw new Error(`point ${i} is finite`);
}

/**
 * Hashed layout: inserts each point's cell into the cleared `table`, writes
 * the cell's first-seen id into `cellOf` and counts the points per id into
 * `counts` (at least n long: there are at most n cells). Returns the number
 * of cells. Cell coordinates stay doubles: far points have cells past 2^31.
 */
export function countHashed2(
  table: CellTable,
  positions: NumericArray,
  n: number,
  stride: number,
  offset: number,
  originX: number,
  originY: number,
  width: number,
  cellOf: Uint32Array,
  counts: Int32Array,
): number {
  let cells = 0;
  for (let i = 0, p = offset; i < n; i++, p += stride) {
    const id = table.insert2(cellAlong(positions[p], originX, width), cellAlong(positions[p + 1], originY, width));
    // After clear() ids come in first-seen order: a new cell takes the next one.
    if (id === cells) counts[cells++] = 0;
    cellOf[i] = id;
    counts[id]++;
  }
  return cells;
}

/** {@link countHashed2} in 3D. */
export function countHashed3(
  table: CellTable,
  positions: NumericArray,
  n: number,
  stride: number,
  offset: number,
  originX: number,
  originY: number,
  originZ: number,
  width: number,
  cellOf: Uint32Array,
  counts: Int32Array,
): number {
  let cells = 0;
  for (let i = 0, p = offset; i < n; i++, p += stride) {
    const id = table.insert3(
      cellAlong(positions[p], originX, width),
      cellAlong(positions[p + 1], originY, width),
      cellAlong(positions[p + 2], originZ, width),
    );
    if (id === cells) counts[cells++] = 0;
    cellOf[i] = id;
    counts[id]++;
  }
  return cells;
}

/** Hashed layout: replaces each point's first-seen cell id by the cell's row-major rank. */
export function renumber(cellOf: Uint32Array, rank: Uint32Array | Int32Array, n: number): void {
  for (let i = 0; i < n; i++) cellOf[i] = rank[cellOf[i]];
}
