/**
 * A workaround for V8, kept in one place: each PointGrid class exercises two
 * small grids of its own (one dense, one hashed) when its module loads and
 * keeps them, and what their queries returned, alive for good.
 *
 * Why: V8 forgets an object shape once every object of it has died, and
 * then throws away the optimised code of every loop that checked that shape.
 * A caller that builds a fresh grid per run and collects garbage in between
 * (as the benchmarks do) ran its searches 3 to 5 times slower; 3D
 * `neighbors` at 1e5 points under a GC before each run took 76 ms without the
 * pins and 56 ms with them (measured in the session that added this). Measured
 * again when the package build was added (fresh PointGrid3D + neighbors(2) on
 * the 1e5 jittered lattice, a full GC before each of 9 runs, three alternating
 * process pairs on a loaded 2-core machine): with the pins median 196 to
 * 300 ms, min 68 to 181 ms; without, median 389 to 506 ms, min 262 to 288 ms.
 * The cost is a few kilobytes and well under a millisecond at import.
 *
 * No better fix yet: the shapes that die are those of the grid's own objects
 * (the grid, its pair sink, the result objects) that the hot loops read
 * fields from. The real fix is hot loops that take typed arrays and numbers
 * only, with no object whose shape they check; remove this then, once
 * `npm run bench -- neighbors3d` shows no difference without it. The module
 * is imported only by pointgrid2d.ts and pointgrid3d.ts, whose static blocks
 * call {@link pinShapes}; nothing else depends on it, and it does nothing
 * observable (the package stays `"sideEffects": false`: importing nothing from
 * PointGrid2D/3D never loads it).
 *
 * @module
 */
import type { PointGridOptions } from './options.js';

/** Runs every query of one grid over `points` with `options`; returns what must stay alive. */
export type ShapeExercise = (points: Float64Array, options: PointGridOptions) => unknown[];

/** Everything the exercises returned, alive as long as the module. */
const pinned: unknown[] = [];

/**
 * Builds 64 points of the given dimension and runs `exercise` on a dense and
 * on a hashed grid over them, keeping everything it returns alive. Called
 * from a static block of each grid class, once the class is complete.
 */
export function pinShapes(dimension: 2 | 3, exercise: ShapeExercise): void {
  const points = new Float64Array(dimension * 64);
  for (let i = 0; i < points.length; i++) points[i] = (i % 4) + ((i * 7919) % 13) / 26;
  pinned.push(...exercise(points, { cellSize: 2 }), ...exercise(points, { cellSize: 2, maxDenseCells: 0 }));
}
