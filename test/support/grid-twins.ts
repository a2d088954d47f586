/**
 * A scenario's grid (built by setUp from the points as the scenario packs
 * them) and a twin over the same positions and options, for tests that
 * compare a reused result with a fresh one call after call.
 */
import type { NumericArray } from '../../src/core/validate.js';
import { PointGrid2D, PointGrid3D, type PointGridOptions } from '../../src/index.js';
import { type GridFactory, type Scenario, setUp } from './pointgrid-oracle.js';

/** Either grid class, as these tests use them. */
export type AnyGrid = PointGrid2D | PointGrid3D;

const makers: Record<2 | 3, (positions: NumericArray, options: PointGridOptions) => AnyGrid> = {
  2: (positions, options) => new PointGrid2D(positions, options),
  3: (positions, options) => new PointGrid3D(positions, options),
};

/** The scenario's grid and a fresh twin of it (same positions, cell size, layout and dense limit). */
export function twinGrids(d: 2 | 3, s: Scenario): { grid: AnyGrid; fresh: AnyGrid } {
  const { grid, positions } = setUp(makers[d] as unknown as GridFactory, d, s);
  const options: PointGridOptions = { cellSize: s.cellSize, stride: s.layout.stride, offset: s.layout.offset };
  if (s.maxDenseCells !== undefined) options.maxDenseCells = s.maxDenseCells;
  return { grid: grid as unknown as AnyGrid, fresh: makers[d](positions, options) };
}
