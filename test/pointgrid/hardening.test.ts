/**
 * Issue 31's PointGrid defects that cannot hang, one test each (every one
 * failed on the code before the fix): from() refuses bad buffers with an
 * Error naming what is wrong, results too long to return throw a RangeError
 * before the memory is spent, and a search far past a long dense grid needs
 * scratch in proportion to the points. Extreme numbers, transferred buffers
 * and everything else that could hang run under a watchdog in watched.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D, type PointGridOptions } from '../../src/index.js';
import { type GridViews, readGrid } from '../../src/pointgrid/grid-data.js';

type Grid = PointGrid2D | PointGrid3D;

function make(d: 2 | 3, points: number[][], options: PointGridOptions): Grid {
  const flat = new Float64Array(points.flat());
  return d === 2 ? new PointGrid2D(flat, options) : new PointGrid3D(flat, options);
}

function from(d: 2 | 3, data: ArrayBuffer | SharedArrayBuffer): Grid {
  return d === 2 ? PointGrid2D.from(data) : PointGrid3D.from(data);
}

/** A copy of a grid's buffer and views of its sections, to corrupt. */
function copyOf(grid: Grid, d: 2 | 3): GridViews {
  return readGrid('test', (grid.data as ArrayBuffer).slice(0), d);
}

/** 24 points over 3^d cells of size 1, several to a cell, for corrupting. */
function cloud(d: 2 | 3): number[][] {
  return Array.from({ length: 24 }, (_, i) => [(i * 0.37) % 3, (i * 0.61) % 3, (i * 0.23) % 3].slice(0, d));
}

for (const d of [2, 3] as const) {
  const name = `PointGrid${d}D`;

  describe(`${name}.from(data) checks the whole buffer`, () => {
    for (const layout of ['dense', 'hashed'] as const) {
      const options: PointGridOptions = { cellSize: 1, maxDenseCells: layout === 'dense' ? undefined : 0 };
      const corrupt = (what: string, edit: (v: GridViews) => void, message: RegExp) => {
        it(`refuses ${what} (${layout})`, () => {
          const grid = make(d, cloud(d), options);
          expect(grid.layout).toBe(layout);
          const v = copyOf(grid, d);
          edit(v);
          expect(() => from(d, v.data)).toThrow(message);
        });
      };
      corrupt('cellsY = 0', (v) => (v.header[7] = 0), /cellsY/);
      corrupt('cellsY = NaN', (v) => (v.header[7] = Number.NaN), /cellsY/);
      corrupt('cellsX = -1', (v) => (v.header[6] = -1), /cellsX/);
      corrupt('cellsX = 1e300', (v) => (v.header[6] = 1e300), /cellsX/);
      corrupt('an infinite origin', (v) => (v.header[9] = Number.POSITIVE_INFINITY), /origin/);
      corrupt('a cellSize of 0', (v) => (v.header[12] = 0), /cellSize/);
      corrupt('a NaN cellSize', (v) => (v.header[12] = Number.NaN), /cellSize/);
      corrupt('a stride of 1', (v) => (v.header[13] = 1), /stride/);
      corrupt('a fractional offset', (v) => (v.header[14] = 0.5), /offset/);
      corrupt('a maxDenseCells of -5', (v) => (v.header[15] = -5), /maxDenseCells/);
      corrupt('unknown flags', (v) => (v.header[3] += 4), /flags/);
      corrupt('a sorted index of 1e9', (v) => (v.sortedIndex[3] = 1e9), /sorted/);
      corrupt('a point listed twice', (v) => (v.sortedIndex[3] = v.sortedIndex[4]), /sorted/);
      corrupt('a cell start of 2^31 - 1', (v) => (v.cellStart[1] = 2 ** 31 - 1), /cell start/);
      corrupt('decreasing cell starts', (v) => (v.cellStart[1] = v.cellStart[2] + 1), /cell start/);
      corrupt('a point moved out of its cell', (v) => (v.coords[d] += 5), /cell/);
      corrupt('a NaN coordinate', (v) => (v.coords[1] = Number.NaN), /coordinate/);
      corrupt(
        'a cell out of x order',
        (v) => {
          // Swap the x of the first two points of the first cell holding two with different x.
          for (let c = 0; c < v.header[5]; c++) {
            const s = v.cellStart[c];
            if (v.cellStart[c + 1] - s >= 2 && v.coords[d * s] !== v.coords[d * (s + 1)]) {
              const x = v.coords[d * s];
              v.coords[d * s] = v.coords[d * (s + 1)];
              v.coords[d * (s + 1)] = x;
              return;
            }
          }
          throw new Error('no cell holds two points with different x');
        },
        /x order/,
      );
      if (layout === 'hashed') {
        corrupt('a lookup table with no empty slot', (v) => v.slots.fill(0), /lookup/);
        corrupt('a key out of its slot', (v) => v.slots.reverse(), /lookup/);
        corrupt('a cell id past the cells', (v) => (v.slots[v.slots.indexOf(0)] = 1e6), /lookup/);
        corrupt('a key that is not an integer', (v) => (v.keys[0] += 0.5), /key/);
        corrupt('keys out of row-major order', (v) => v.keys.copyWithin(0, d, 2 * d), /key/);
      }
    }

    it('reads a buffer that is whole, and { check: "header" } skips the body', () => {
      const grid = make(d, cloud(d), { cellSize: 1, maxDenseCells: 0 });
      const v = copyOf(grid, d);
      v.sortedIndex[3] = v.sortedIndex[4];
      const trusted =
        d === 2 ? PointGrid2D.from(v.data, { check: 'header' }) : PointGrid3D.from(v.data, { check: 'header' });
      expect(trusted.count).toBe(grid.count);
      expect(() => trusted.validate()).toThrow(/sorted|listed twice/);
      expect(() => from(d, v.data)).toThrow(/sorted/);
      // A header check still runs.
      v.header[7] = Number.NaN;
      expect(() =>
        d === 2 ? PointGrid2D.from(v.data, { check: 'header' }) : PointGrid3D.from(v.data, { check: 'header' }),
      ).toThrow(/cellsY/);
    });

    it('refuses a bad check option', () => {
      const grid = make(d, cloud(d), { cellSize: 1 });
      expect(() =>
        d === 2
          ? PointGrid2D.from(grid.data, { check: 'none' as 'full' })
          : PointGrid3D.from(grid.data, { check: 'none' as 'full' }),
      ).toThrow(RangeError);
    });
  });

  describe(`${name}: results too long to return`, () => {
    it('throw a RangeError naming the count and the bytes, for maxResultLength', () => {
      const points = cloud(d);
      const grid = make(d, points, { cellSize: 1 });
      const all = grid.pairs(10);
      expect(all.length).toBe(points.length * (points.length - 1));
      expect(() => grid.pairs(10, { maxResultLength: all.length - 1 })).toThrow(RangeError);
      expect(() => grid.pairs(10, { maxResultLength: all.length - 1 })).toThrow(/276 pairs.*552 numbers.*2208 bytes/);
      expect(grid.pairs(10, { maxResultLength: all.length })).toEqual(all);
      expect(() => grid.neighbors(10, { maxResultLength: all.length - 1 })).toThrow(/276 pairs.*552 numbers/);
      expect(grid.neighbors(10, { maxResultLength: all.length }).indices.length).toBe(all.length);
      expect(() => grid.pairs(10, { maxResultLength: -1 })).toThrow(/maxResultLength/);
    });

    it('radius Infinity on 60,000 points throws before growing (issue 31: past 13 GiB)', () => {
      const n = 60_000;
      const flat = new Float64Array(d * n);
      for (let i = 0; i < flat.length; i++) flat[i] = (i * 0.618034) % 100;
      const grid = d === 2 ? new PointGrid2D(flat, { cellSize: 1 }) : new PointGrid3D(flat, { cellSize: 1 });
      expect(() => grid.pairs(Number.POSITIVE_INFINITY)).toThrow(/1799970000 pairs.*3599940000 numbers/);
      expect(() => grid.neighbors(Number.POSITIVE_INFINITY)).toThrow(/1799970000 pairs/);
    });
  });

  it(`${name}: a radius far past the points of a long dense grid needs scratch in proportion to the cells`, () => {
    // Two points a million cells apart, dense by request: the 3D search sized its ranges for reach^2 rows
    // (2e12 numbers here) instead of the rows the grid has.
    const grid = make(d, [at3(0).slice(0, d), at3(1e6).slice(0, d)], { cellSize: 1, maxDenseCells: 2 ** 28 });
    expect(grid.layout).toBe('dense');
    expect(grid.pairs(5e5).length).toBe(0);
    expect(Array.from(grid.pairs(2e6))).toEqual([0, 1]);
  });
}

function at3(x: number): number[] {
  return [x, 0, 0];
}
