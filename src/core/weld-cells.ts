/**
 * The parameters of weld's cell grid and tables, computed before any loop
 * runs: the reach and cell side of a weld with a tolerance (see weld/near.ts
 * for why cells are 2 * reach wide), the distance that ends a search early,
 * and the slots each table starts with (weld/near.ts, weld/exact.ts). Shared
 * by weld's JavaScript loops (weld/near.ts, exact.ts, extreme.ts) and the
 * kernels' glue (src/wasm/weld-kernels.ts), so below both; the kernels'
 * near search (src/wasm/assembly/weld-near.ts, from
 * src/templates/weld.template.ts) keeps a copy of REACH_SLACK, which must
 * stay equal to this one (test/wasm/kernel-constants.test.ts).
 *
 * @module
 */

import { nextPowerOfTwo } from './cell-hash.js';

/**
 * Accepted pairs can be an ulp or two farther apart than the tolerance once
 * the squared distance is rounded (relative error < 2^-50), so the search
 * reaches this much further to never miss one the float64 test accepts.
 */
export const REACH_SLACK = 1 + 2 ** -40;

/**
 * Squared distances below 2^-1022 lose precision or flush to 0, so with a tiny
 * tolerance the float64 test accepts pairs up to ~2^-511 apart: the search
 * reaches at least that far.
 */
const MIN_REACH = 2 ** -510;

/**
 * Representatives are pairwise farther apart than the tolerance, so one found
 * within half the tolerance is the nearest, strictly (any other is farther
 * than tolerance - d > d away): the search stops there. Most copies of a
 * vertex in a soup land that close to their representative, usually in their
 * own cell, which is looked up first. The factor keeps the argument sound
 * under float64 rounding (relative errors ~2^-50).
 */
const SURE_FRACTION = 0.25 * (1 - 2 ** -20);

/**
 * Below this squared tolerance the rounding of squared distances is no longer
 * relative (subnormals), so the early stop is off.
 */
const SURE_MIN_TOLERANCE2 = 2 ** -1000;

/**
 * The squared distance within which a representative is surely the answer
 * (see SURE_FRACTION), or -1 when none is: with an extra test (`accept`,
 * weld/near.ts's AcceptRepresentative), representatives may sit at one place
 * (differing in what the test reads).
 */
export function sureDistance2(
  tolerance2: number,
  accept: ((vertex: number, representativeVertex: number) => boolean) | undefined,
): number {
  return accept === undefined && tolerance2 >= SURE_MIN_TOLERANCE2 ? tolerance2 * SURE_FRACTION : -1;
}

/**
 * Cells per axis at most: cells grow past 2 * reach only when the data spans
 * more than 2^50 of them, so cell coordinates stay exact consecutive integers
 * in float64. The table keys on their low 32 bits (int32, fast to hash and
 * compare): cells 2^32 apart on every axis share a list, which costs a few
 * extra distance tests on data spanning billions of tolerances and never a
 * wrong answer, since every candidate's distance is tested. Correctness does
 * not depend on the cell side or the keys, only speed.
 */
const MAX_CELLS_PER_AXIS = 2 ** 50;

/**
 * Grid parameters: [reach, 1 / half cell side, then half the data's minimum
 * per axis]. Everything the hot loops touch is a typed array or a number: an
 * optimised loop that read a plain object would be thrown away whenever the
 * garbage collector drops that object's hidden class between calls, and this
 * loop takes tens of milliseconds to optimise again.
 *
 * @param min, max the data's bounds per axis (finite).
 */
export function gridParameters(min: Float64Array, max: Float64Array, tolerance: number): Float64Array {
  const reach = Math.max(tolerance * REACH_SLACK, MIN_REACH);
  const grid = new Float64Array(2 + min.length);
  let halfExtent = 0;
  for (let axis = 0; axis < min.length; axis++) {
    grid[2 + axis] = min[axis] * 0.5;
    halfExtent = Math.max(halfExtent, max[axis] * 0.5 - grid[2 + axis]);
  }
  grid[0] = reach;
  grid[1] = 1 / Math.max(reach, halfExtent / MAX_CELLS_PER_AXIS);
  return grid;
}

/** Slots weld/near.ts's table starts with: few, it doubles (soups hold about one distinct position per six vertices). */
export function initialSlots(n: number): number {
  return nextPowerOfTwo(Math.max(64, Math.min(n, 1024) * 2));
}

/** Slots weld/exact.ts's table starts with: few, it doubles (a table sized for the distinct positions stays in cache). */
export function initialExactSlots(n: number): number {
  return nextPowerOfTwo(Math.min(n, 1024) * 2);
}
