/**
 * A scenario's grid (built by setUp from the points as the scenario packs
 * them) and a twin over the same positions and options, for tests that
 * compare a reused result with a fresh one call after call; and what a grid
 * buffer holds, for tests that compare two builds byte for byte.
 */
import type { NumericArray } from '../../src/core/validate.js';
import { PointGrid2D, PointGrid3D, type PointGridOptions } from '../../src/index.js';
import { FLAG_DENSE, H_CELL_TOTAL, H_FLAGS, H_POINTS, HEADER_BYTES, readGrid } from '../../src/pointgrid/grid-data.js';
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

/**
 * What a `d`-dimensional grid buffer holds: its header and the used part of
 * each section. (The room past them is never read; the JavaScript hashed
 * build parks its sort keys in the spare coordinates there.) Works on the
 * buffer of any module instance's grid.
 */
export function gridContents(data: ArrayBuffer | SharedArrayBuffer, d: 2 | 3): number[][] {
  const v = readGrid('test', data, d);
  const h = v.header;
  const n = h[H_POINTS];
  const cells = h[H_CELL_TOTAL];
  const hashed = (h[H_FLAGS] & FLAG_DENSE) === 0;
  return [
    Array.from(new Uint8Array(data, 0, HEADER_BYTES)),
    Array.from(v.coords.subarray(0, d * n)),
    Array.from(v.sortedIndex.subarray(0, n)),
    Array.from(v.cellStart.subarray(0, cells + 1)),
    hashed ? Array.from(v.keys.subarray(0, d * cells)) : [],
    hashed ? Array.from(v.slots) : [],
  ];
}
