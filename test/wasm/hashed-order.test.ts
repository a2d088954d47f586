/**
 * Both paths' hashed builds number the occupied cells in row-major order; from 2,048 cells, in a box of at most
 * 2^32 cells, by a radix sort of each cell's rank in the box (radixOrder of src/templates/build.template.ts, one
 * source for both), else by comparisons (src/wasm/assembly/hashed.ts, orderCells; src/pointgrid/cell-order.ts). Either way the cells' keys must rise in row-major order and the
 * two paths' grid buffers must be equal byte for byte (the JavaScript path is held to brute force by
 * test/pointgrid, whose grids have fewer cells): at the sizes and boxes where the radix sort runs, where it stops
 * (a box of 2^32 cells and one more column), and over builds that alternate between the two, so that a stale digit
 * count, a pass too few or a wrong span shows. Each build on the kernels is checked to have stayed there (one that
 * traps falls back to the JavaScript path, whose buffer would match).
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D, setKernelMode } from '../../src/index.js';
import { FLAG_DENSE, H_CELL_TOTAL, H_FLAGS, readGrid } from '../../src/pointgrid/grid-data.js';
import { kernels } from '../../src/wasm/kernels.js';
import { gridContents } from '../support/grid-twins.js';

afterAll(() => setKernelMode('auto'));

type Grid = PointGrid2D | PointGrid3D;

/** A hashed grid over `positions` (cellSize 1) on the given path, and its buffer's contents. */
function build(d: 2 | 3, positions: Float64Array, mode: 'wasm' | 'javascript'): { grid: Grid; contents: number[][] } {
  setKernelMode(mode);
  const options = { cellSize: 1, maxDenseCells: 0 };
  const grid = d === 2 ? new PointGrid2D(positions, options) : new PointGrid3D(positions, options);
  // Built where asked: a build that traps in the kernels falls back to JavaScript, and would pass unseen.
  if (mode === 'wasm') expect(kernels()?.mirrorData).toBe(grid.data);
  grid.validate();
  return { grid, contents: gridContents(grid.data, d) };
}

/** How many cells the grid's last build occupies (the header's count), and that it is hashed. */
function cellsOf(grid: Grid): number {
  const h = new Float64Array(grid.data, 0, 32);
  expect(h[H_FLAGS] & FLAG_DENSE).toBe(0);
  return h[H_CELL_TOTAL];
}

/** Points at integer-plus-jitter offsets (cells) from the first, each axis's span as given, `n` of them. */
function scatter(d: 2 | 3, n: number, spans: number[], seed: number, jitter = 0.5): Float64Array {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const out = new Float64Array(d * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < d; k++) out[d * i + k] = Math.floor(next() * spans[k]) + jitter * next();
  }
  // The box's far corner occupied, so that the spans are exactly those given.
  for (let k = 0; k < d; k++) {
    out[k] = 0;
    out[d + k] = spans[k] - 1 + 0.5;
  }
  return out;
}

/**
 * That the grid's cells are numbered in row-major order: their keys (d per cell) strictly increasing by z, then y,
 * then x. Both paths order cells by a radix sort from 2,048 cells, so this, not their agreement, is the oracle.
 */
function expectRowMajor(grid: Grid, d: 2 | 3): void {
  const keys = readGrid('test', grid.data, d).keys;
  const cells = cellsOf(grid);
  let ordered = 0;
  for (let c = 1; c < cells; c++) {
    let k = d - 1;
    while (k > 0 && keys[d * c + k] === keys[d * (c - 1) + k]) k--;
    if (keys[d * c + k] > keys[d * (c - 1) + k]) ordered++;
  }
  expect(ordered).toBe(cells - 1);
}

function sameBuild(d: 2 | 3, positions: Float64Array): number {
  const wasm = build(d, positions, 'wasm');
  const js = build(d, positions, 'javascript');
  expectRowMajor(wasm.grid, d);
  expectRowMajor(js.grid, d);
  expect(wasm.contents).toEqual(js.contents);
  return cellsOf(wasm.grid);
}

describe('hashed builds: cells in row-major order, on the kernels as in JavaScript', () => {
  it('2D and 3D, from 2,048 cells up, boxes of every shape below 2^32 cells (seed 4201)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<2 | 3>(2, 3),
        fc.integer({ min: 2100, max: 9000 }),
        fc.integer({ min: 1, max: 2 ** 20 }),
        fc.integer({ min: 1, max: 2 ** 12 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer(),
        (d, n, wide, narrow, deep, seed) => {
          const spans = d === 2 ? [wide, narrow] : [narrow, wide, deep];
          sameBuild(d, scatter(d, n, spans, seed));
        },
      ),
      { seed: 4201, numRuns: 40 },
    );
  });

  it('at the edge of the radix sort: a box of exactly 2^32 cells, and of one column more (comparisons)', () => {
    // 2^16 x 2^16 cells: ranks up to 2^32 - 1, all 32 bits in three digits of 11.
    expect(sameBuild(2, scatter(2, 6000, [2 ** 16, 2 ** 16], 7))).toBeGreaterThanOrEqual(2048);
    expect(sameBuild(2, scatter(2, 6000, [2 ** 16 + 1, 2 ** 16], 8))).toBeGreaterThanOrEqual(2048);
    expect(sameBuild(3, scatter(3, 6000, [2 ** 11, 2 ** 11, 2 ** 10], 9))).toBeGreaterThanOrEqual(2048);
    expect(sameBuild(3, scatter(3, 6000, [2 ** 11, 2 ** 11, 2 ** 10 + 1], 10))).toBeGreaterThanOrEqual(2048);
  });

  it('just below and at 2,048 cells, and far-flung points whose box no 32-bit rank holds', () => {
    // Cells one per point along a line: 2,047 (comparisons) and 2,048 (radix).
    for (const cells of [2047, 2048, 2049]) {
      const line = new Float64Array(2 * cells);
      // Two apart, as cells are a little wider than cellSize (see core/margins.ts): a cell per point.
      for (let i = 0; i < cells; i++) line[2 * i] = 2 * ((i * 7919) % cells) + 0.5;
      expect(sameBuild(2, line)).toBe(cells);
    }
    // Two clusters 2^29 cells apart along both axes (below the span where cells widen, see cellWidthFor): a box of
    // 2^58 cells, which the comparisons order.
    const far = scatter(2, 5000, [300, 300], 11);
    for (let i = 2; i < 2500; i++) {
      far[2 * i] += 2 ** 29;
      far[2 * i + 1] += 2 ** 29;
    }
    expect(sameBuild(2, far)).toBeGreaterThanOrEqual(2048);
  });

  it('one grid rebuilt between boxes the radix sort takes and boxes it does not, then queried', () => {
    const shapes = [
      scatter(2, 5000, [2 ** 18, 64], 21),
      scatter(2, 5000, [2 ** 17, 2 ** 16], 22),
      scatter(2, 5000, [3000, 3000], 23),
      scatter(2, 1500, [40, 40], 24),
      scatter(2, 5000, [2 ** 20, 2 ** 12], 25),
    ];
    // The same rebuilds on both paths, one grid each: their buffers (headers included) must stay equal.
    setKernelMode('wasm');
    const grid = new PointGrid2D(shapes[0], { cellSize: 1, maxDenseCells: 0 });
    setKernelMode('javascript');
    const twin = new PointGrid2D(shapes[0], { cellSize: 1, maxDenseCells: 0 });
    for (let round = 0; round < 3; round++) {
      for (const positions of shapes) {
        setKernelMode('wasm');
        grid.rebuild(positions);
        expect(kernels()?.mirrorData).toBe(grid.data);
        grid.validate();
        setKernelMode('javascript');
        twin.rebuild(positions);
        expectRowMajor(grid, 2);
        expect(gridContents(grid.data, 2)).toEqual(gridContents(twin.data, 2));
        // A query near a far corner, against brute force.
        setKernelMode('wasm');
        const x = positions[2];
        const y = positions[3];
        const expected: number[] = [];
        for (let i = 0; i < positions.length / 2; i++) {
          const dx = positions[2 * i] - x;
          const dy = positions[2 * i + 1] - y;
          if (dx * dx + dy * dy <= 4) expected.push(i);
        }
        expect(grid.within(x, y, 2).sort((a, b) => a - b)).toEqual(expected);
      }
    }
  });
});
