/**
 * Issue 31's PointGrid cases that could hang, run by watched.test.ts in a
 * worker under the fuzz runner's watchdog, so that a hang fails the test
 * (naming the case) instead of stopping the run: extreme but finite numbers
 * (answers of the float64 rule, the oracle's), spans whose cells overflow,
 * and buffers with a bad header or body, read with and without the body
 * check. Each failed, by hanging or by a wrong answer, on the code before
 * the fix.
 *
 * @module
 */

import { expect } from 'vitest';
import { PointGrid2D, PointGrid3D, type PointGridOptions } from '../../src/index.js';
import { type GridViews, readGrid } from '../../src/pointgrid/grid-data.js';
import { example } from '../fuzz/support.js';
import { checkAnswers, gridFace, PointOracle } from '../support/pointgrid-oracle.js';

type Grid = PointGrid2D | PointGrid3D;

function make(d: 2 | 3, flat: number[], options: PointGridOptions): Grid {
  return d === 2 ? new PointGrid2D(new Float64Array(flat), options) : new PointGrid3D(new Float64Array(flat), options);
}

function trusted(d: 2 | 3, data: ArrayBuffer): Grid {
  return d === 2 ? PointGrid2D.from(data, { check: 'header' }) : PointGrid3D.from(data, { check: 'header' });
}

function from(d: 2 | 3, data: ArrayBuffer): Grid {
  return d === 2 ? PointGrid2D.from(data) : PointGrid3D.from(data);
}

/** Every query of `grid` at `q`; each must return, with indices of points the grid holds. */
function askEverything(grid: Grid, q: number[], radius: number): void {
  const n = grid.count;
  const inRange = (indices: ArrayLike<number>) => {
    for (let k = 0; k < indices.length; k++) {
      expect(indices[k]).toBeGreaterThanOrEqual(0);
      expect(indices[k]).toBeLessThan(n);
    }
  };
  if (grid instanceof PointGrid2D) {
    inRange(grid.within(q[0], q[1], radius));
    inRange(grid.nearest(q[0], q[1], 3, radius));
    grid.withinInto(q[0], q[1], radius, new Uint32Array(n));
  } else {
    inRange(grid.within(q[0], q[1], q[2], radius));
    inRange(grid.nearest(q[0], q[1], q[2], 3, radius));
    grid.withinInto(q[0], q[1], q[2], radius, new Uint32Array(n));
  }
  inRange(grid.pairs(radius));
  inRange(grid.neighbors(radius).indices);
  grid.forEachPair(radius, (i, j) => inRange([i, j]));
}

/** A grid's buffer, copied, with views of its sections. */
function copyOf(grid: Grid, d: 2 | 3): GridViews {
  return readGrid('test', (grid.data as ArrayBuffer).slice(0), d);
}

/** 24 points over 3^d cells of size 1, several to a cell, flat. */
function cloud(d: 2 | 3): number[] {
  return Array.from({ length: 24 }, (_, i) => [(i * 0.37) % 3, (i * 0.61) % 3, (i * 0.23) % 3].slice(0, d)).flat();
}

/** Every query of a dense and of a hashed grid over `points` against the oracle, at every radius. */
function expectOracle(d: 2 | 3, points: number[][], options: PointGridOptions, queries: number[][], radii: number[]) {
  for (const maxDenseCells of [undefined, 0]) {
    const grid = make(d, points.flat(), { ...options, maxDenseCells });
    grid.validate();
    const oracle = new PointOracle(points);
    for (const radius of radii) checkAnswers(gridFace(grid), oracle, queries, radius);
  }
}

export const suites = {
  extremeNumbers(): void {
    for (const d of [2, 3] as const) {
      const at = (...xs: number[]) => xs.concat([0, 0, 0]).slice(0, d);
      example(`${d}D: cellSize Number.MAX_VALUE (within gave [])`, () => {
        expect(
          gridFace(make(d, at(0, 0).concat(at(0.5, 0)), { cellSize: Number.MAX_VALUE })).within(at(0, 0), 1),
        ).toEqual([0, 1]);
        const points = [at(0, 0), at(0.5, 0), at(-1e308, 1e308)];
        expectOracle(d, points, { cellSize: Number.MAX_VALUE }, [at(0, 0), at(1e308, -1e308)], [0, 1, 1e300]);
      });
      example(`${d}D: cellSize 5e-324 and a span of Number.MAX_VALUE (pairs(1e16) gave [])`, () => {
        const points = [at(0, 4.5e15, 0), at(0, Number.MAX_VALUE, -4.5), at(0, 0, 0)];
        expect(Array.from(make(d, points.flat(), { cellSize: 5e-324 }).pairs(1e16))).toEqual([0, 2]);
        expectOracle(d, points, { cellSize: 5e-324 }, [at(0, 0), at(0, Number.MAX_VALUE)], [0, 5e-324, 1e16, 1e300]);
      });
      example(`${d}D: a span over cellSize that overflows (within never returned)`, () => {
        const points = [at(0, -1e300), at(0, 0)];
        expectOracle(d, points, { cellSize: 1e-10 }, [at(0, 0), at(0, -1e300)], [0, 1, 1e-300, 1e150]);
      });
      example(
        `${d}D: squared distances that overflow (within(0, 0, 1e300) gave [0], then [0, 1] as the hashes)`,
        () => {
          // dx * dx and radius * radius both overflow float64; under the distance rule (decision 2) 1e306 > 1e300.
          const grid = gridFace(make(d, at(0, 0).concat(at(1e306, 0)), { cellSize: 1 }));
          expect(grid.within(at(0, 0), 1e300)).toEqual([0]);
          expect(grid.within(at(0, 0), 1e306)).toEqual([0, 1]);
          expect(grid.within(at(0, 0), Number.POSITIVE_INFINITY)).toEqual([0, 1]);
          expect(Array.from(grid.pairs(1e300))).toEqual([]);
          const points = [at(0, 0), at(1e306, 0), at(-1e300, 1e300), at(3, 4)];
          expectOracle(d, points, { cellSize: 1 }, [at(0, 0), at(1e306, 0)], [1e300, 1e154, 1.4e154, 5]);
        },
      );
      example(`${d}D: coordinates and cell sizes from 1e-300 to 1e300, mixed`, () => {
        const points = [
          at(1e-300, 2e-300),
          at(0, 0),
          at(-3e-300, 1e-300),
          at(1e300, -1e300),
          at(5e-324, 0),
          at(1e-10, 1e10),
        ];
        for (const cellSize of [1e-300, 5e-324, 1e-10, 1, 1e300]) {
          const queries = [at(0, 0), at(1e-300, 0), at(1e300, -1e300)];
          expectOracle(d, points, { cellSize }, queries, [0, 1e-300, 2e-300, 1e-150, 1e10, 1e300]);
        }
      });
      example(`${d}D: points whose extent along an axis overflows are refused, naming it`, () => {
        const points = at(-1e308, 0).concat(at(1e308, 0));
        expect(() => make(d, points, { cellSize: 1 })).toThrow(RangeError);
        expect(() => make(d, points, { cellSize: 1 })).toThrow(/extent/);
        // A rejected rebuild leaves the grid as it was.
        const grid = make(d, at(0, 0).concat(at(1, 0)), { cellSize: 1 });
        expect(() => grid.rebuild(new Float64Array(points))).toThrow(RangeError);
        expect(Array.from(grid.pairs(1))).toEqual([0, 1]);
      });
    }
  },

  extremeSpans(): void {
    example('2D: a span / cellSize that overflows (within(0, 0, 1) never returned)', () => {
      const grid = new PointGrid2D(new Float64Array([0, -1e300, 0, 0]), { cellSize: 1e-10 });
      expect(grid.within(0, 0, 1)).toEqual([1]);
      expect(grid.nearest(0, 0, 2)).toEqual([1, 0]);
      expect(Array.from(grid.pairs(1e300))).toEqual([0, 1]);
    });
    example('3D: a span / cellSize that overflows', () => {
      const grid = new PointGrid3D(new Float64Array([0, 0, -1e300, 0, 0, 0]), { cellSize: 1e-10 });
      expect(grid.within(0, 0, 0, 1)).toEqual([1]);
      expect(grid.nearest(0, 0, 0, 2)).toEqual([1, 0]);
    });
    for (const d of [2, 3] as const) {
      example(`${d}D: cells past 2^53 along y (cy + 1 === cy)`, () => {
        // A column of 1000 points near the origin and one at y = 1e21: with cellSize 1e4 the far
        // point's cell is about 1e17, where consecutive integers are no longer doubles.
        const flat: number[] = [];
        for (let i = 0; i <= 1000; i++) flat.push(0, i === 1000 ? 1e21 : i * 2e4, 0);
        const points = d === 2 ? flat.filter((_, k) => k % 3 !== 2) : flat;
        const grid = make(d, points, { cellSize: 1e4 });
        const q = [0, 1e21, 0];
        const found = grid instanceof PointGrid2D ? grid.within(0, 1e21, 1) : grid.within(0, 1e21, 0, 1);
        expect(found).toEqual([1000]);
        askEverything(grid, q, 1);
      });
    }
  },

  detached(): void {
    for (const d of [2, 3] as const) {
      for (const maxDenseCells of [undefined, 0]) {
        example(
          `${d}D ${maxDenseCells === 0 ? 'hashed' : 'dense'}: a transferred buffer makes every query throw`,
          () => {
            const grid = make(d, cloud(d), { cellSize: 1, maxDenseCells });
            structuredClone(grid.data, { transfer: [grid.data as ArrayBuffer] });
            const g = gridFace(grid);
            const q = [1, 1, 1];
            const detached = /transferred/;
            expect(() => g.within(q, 2)).toThrow(detached);
            expect(() => g.withinInto(q, 2, new Uint32Array(30))).toThrow(detached);
            expect(() => g.within(q, Number.POSITIVE_INFINITY)).toThrow(detached);
            expect(() => g.withinInto([1e300, 0, 0], 1, new Uint32Array(30))).toThrow(detached);
            expect(() => g.nearest(q, 3)).toThrow(detached);
            expect(() => g.pairs(2)).toThrow(detached);
            expect(() => g.neighbors(2)).toThrow(detached);
            expect(() => g.forEachPair(2, () => {})).toThrow(detached);
            expect(() => g.validate()).toThrow(detached);
            // A rebuild takes a new buffer and answers again.
            grid.rebuild();
            expect(g.pairs(2).length).toBeGreaterThan(0);
          },
        );
      }
    }
  },

  untrustedHeaders(): void {
    for (const d of [2, 3] as const) {
      const base = make(d, cloud(d), { cellSize: 1, maxDenseCells: 0 });
      // Caught by the header check alone: counts, cells, origin, widths that no build writes.
      const headerOnly: [number, number][] = [
        [7, Number.NaN],
        [6, Number.NaN],
        [7, 0],
        [6, 2 ** 33],
        [9, Number.NaN],
        [10, Number.NEGATIVE_INFINITY],
        [12, Number.NaN],
        [21, 0],
        [21, Number.POSITIVE_INFINITY],
        [5, 0],
        [4, 1e9],
        [3, 5],
      ];
      for (const [field, value] of headerOnly) {
        example(`${d}D hashed: header[${field}] = ${value}: from() throws, with the header check alone too`, () => {
          const v = copyOf(base, d);
          v.header[field] = value;
          expect(() => from(d, v.data as ArrayBuffer)).toThrow(/bad PointGrid header/);
          expect(() => trusted(d, v.data as ArrayBuffer)).toThrow(/bad PointGrid header/);
        });
      }
      // Consistent on their own, refuted by the body: the header check lets them through, and queries
      // end with indices of the grid's points.
      const bodyOnly: [number, number][] = [
        [12, 1e-320],
        [21, 5],
        [9, -100],
        [6, 1000],
        [4, 20],
      ];
      for (const [field, value] of bodyOnly) {
        example(`${d}D hashed: header[${field}] = ${value}: from() throws, the header check alone does not`, () => {
          const v = copyOf(base, d);
          v.header[field] = value;
          expect(() => from(d, v.data as ArrayBuffer)).toThrow(/bad PointGrid body/);
          const grid = trusted(d, v.data as ArrayBuffer);
          askEverything(grid, [2, 2, 2], 1.5);
          askEverything(grid, [2, 2, 2], 0);
          expect(() => grid.validate()).toThrow(Error);
        });
      }
      example(`${d}D hashed: a lookup table with no empty slot`, () => {
        const v = copyOf(base, d);
        v.slots.fill(0);
        expect(() => from(d, v.data as ArrayBuffer)).toThrow(/lookup/);
        // Trusted anyway: queries return, validate() throws.
        const grid = trusted(d, v.data as ArrayBuffer);
        askEverything(grid, [2, 2, 2], 1.5);
        askEverything(grid, [100, -7, 3], 1);
        expect(() => grid.validate()).toThrow(/lookup|found/);
      });
    }
  },

  corruptBodies(): void {
    example('3D hashed: a cell start of 2^31 - 1 before smaller ones (found by the fuzz suite)', () => {
      // Cell 0 then runs over every point and cell 1 backwards: a pair search counted the backward run as a
      // negative number of candidates, wrote past its batch and handed over NaN indices.
      const flat = Array.from({ length: 38 }, (_, i) => [0, (i % 3) * 1e-6, i === 37 ? 2.5 : 0]).flat();
      const grid = make(3, flat.concat([0, -7.5, 0, -7.5, 0, 0]), { cellSize: 2.5, maxDenseCells: 0 });
      const v = copyOf(grid, 3);
      v.cellStart[1] = 2 ** 31 - 1;
      expect(() => from(3, v.data as ArrayBuffer)).toThrow(/cell start/);
      askEverything(trusted(3, v.data as ArrayBuffer), [0, 0, 0], 7.5);
    });
    for (const d of [2, 3] as const) {
      for (const maxDenseCells of [undefined, 0]) {
        const base = make(d, cloud(d), { cellSize: 1, maxDenseCells });
        const edits: [string, (v: GridViews) => void][] = [
          ['a cell start of 2^31 - 1', (v) => (v.cellStart[1] = 2 ** 31 - 1)],
          ['every cell start 2^31 - 1', (v) => v.cellStart.fill(2 ** 31 - 1)],
          ['negative cell starts', (v) => v.cellStart.fill(-5)],
          ['sorted indices of 1e9', (v) => v.sortedIndex.fill(1e9)],
          ['NaN coordinates', (v) => v.coords.fill(Number.NaN)],
          ['keys of NaN', (v) => v.keys.fill(Number.NaN)],
          ['lookup slots of 1e9', (v) => v.slots.fill(1e9)],
        ];
        for (const [what, edit] of edits) {
          example(`${d}D ${maxDenseCells === 0 ? 'hashed' : 'dense'}: ${what}`, () => {
            const v = copyOf(base, d);
            edit(v);
            const unchanged = new Uint8Array(v.data).every((b, k) => b === new Uint8Array(base.data)[k]);
            if (!unchanged) expect(() => from(d, v.data as ArrayBuffer)).toThrow(Error);
            const grid = trusted(d, v.data as ArrayBuffer);
            askEverything(grid, [2, 2, 2], 1.5);
            askEverything(grid, [2, 2, 2], 100);
            if (!unchanged) expect(() => grid.validate()).toThrow(Error);
          });
        }
      }
    }
  },
};
