/**
 * The loops of a point grid build that are the JavaScript path's alone, one
 * function per phase (the hashed count, renumbering); the loops the kernels
 * run too (the bounds, the dense count, prefix sums, scatter, small-cell
 * sort) are generated into build-loops.ts from src/templates/build.template.ts.
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
import type { NumericArray } from '../core/validate.js';
import { cellAlong } from './build-loops.js';

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
