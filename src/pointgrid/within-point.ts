/**
 * within, withinInto and countWithin of PointGrid2D and PointGrid3D, one
 * query point at a time, for both dimensions: an extreme radius takes the cold path
 * (extreme.ts), an ordinary one the WebAssembly kernels where they are on
 * (src/wasm/within-kernels.ts), else the JavaScript rows (within-rows.ts,
 * generated from the same template as the kernels' search), and mode
 * 'verify' asks both. Internal: arguments are checked by the public classes.
 *
 * Every loop is bounded by the header's numbers (read once per build),
 * whatever the buffer's sections hold: cell runs are clamped to the points
 * and indices to the count, so a buffer that another thread rewrites
 * mid-query gives a wrong answer at worst, never a hang.
 *
 * @module
 */

import { isOrdinaryRadius } from '../core/distance.js';
import { verifying } from '../wasm/kernels.js';
import { verifyFound } from '../wasm/verify.js';
import { countWithin, within } from '../wasm/within-kernels.js';
import { extremeGrid, withinExtreme } from './extreme.js';
import type { Grid2D } from './grid2d.js';
import type { Grid3D } from './grid3d.js';
import { countWithin2D, countWithin3D, withinRows2D, withinRows3D } from './within-rows.js';

/**
 * Writes the points of `g` within `radius` of (x, y[, z]) into `target` (as
 * far as it fits) and returns how many there are (z is ignored in 2D).
 */
export function withinPoint(
  g: Grid2D | Grid3D,
  x: number,
  y: number,
  z: number,
  radius: number,
  target: Uint32Array,
): number {
  if (g.points === 0) return 0;
  // An extreme radius (its square overflows or is below 2^-896) takes the cold path (see core/distance.ts).
  if (!isOrdinaryRadius(radius)) return withinExtreme(extremeGrid(g), query(g, x, y, z), radius, target);
  // On the WebAssembly kernels where they are on (ordinary radii only, as here): the same points in the same
  // order (src/wasm/within-kernels.ts).
  const fast = within(g, x, y, z, radius, target);
  if (fast < 0) return withinRows(g, x, y, z, radius, target);
  if (verifying()) {
    const check = new Uint32Array(target.length);
    verifyFound(`${label(g)} within`, fast, target, withinRows(g, x, y, z, radius, check), check);
  }
  return fast;
}

/** How many points {@link withinPoint} finds, without writing them anywhere. */
export function countPoint(g: Grid2D | Grid3D, x: number, y: number, z: number, radius: number): number {
  if (g.points === 0) return 0;
  // The cold path counts what it would write into a target with no room.
  if (!isOrdinaryRadius(radius)) return withinExtreme(extremeGrid(g), query(g, x, y, z), radius, NO_ROOM);
  const fast = countWithin(g, x, y, z, radius);
  if (fast < 0) return countRows(g, x, y, z, radius);
  if (verifying()) verifyFound(`${label(g)} countWithin`, fast, NO_ROOM, countRows(g, x, y, z, radius), NO_ROOM);
  return fast;
}

/** A target that holds nothing. */
const NO_ROOM = new Uint32Array(0);

/** The JavaScript path's count of the grid's dimension. */
function countRows(g: Grid2D | Grid3D, x: number, y: number, z: number, radius: number): number {
  return g.dimension === 2 ? countWithin2D(g, x, y, radius) : countWithin3D(g, x, y, z, radius);
}

/** The JavaScript path's search of the grid's dimension. */
function withinRows(g: Grid2D | Grid3D, x: number, y: number, z: number, radius: number, target: Uint32Array) {
  return g.dimension === 2 ? withinRows2D(g, x, y, radius, target) : withinRows3D(g, x, y, z, radius, target);
}

/** The query point as the cold paths take it. */
function query(g: Grid2D | Grid3D, x: number, y: number, z: number): number[] {
  return g.dimension === 2 ? [x, y] : [x, y, z];
}

/** The class a verify error names. */
function label(g: Grid2D | Grid3D): string {
  return g.dimension === 2 ? 'PointGrid2D' : 'PointGrid3D';
}
