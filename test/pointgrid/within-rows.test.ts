/**
 * PointGrid2D within / withinInto row by row (issue 12): each row of cells is
 * read as one x-sorted run (a dense row directly, a hashed one as consecutive
 * row-major cell ids), cut to the chord by bisection and an early stop, with a
 * lower bound on every point's dy^2 per row. These tests aim at what that
 * could get wrong: points exactly on the circle (in the query's row and in the
 * rows above and below), on cell borders, crowded runs long enough to bisect,
 * hashed rows with empty cells between occupied ones, far coordinates, and
 * an `out` too short for the answer. Every answer is compared with brute force.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PointGrid2D } from '../../src/index.js';
import { withinRule } from '../support/exact-distance.js';

/** Indices within radius of (x, y) by brute force, under the distance rule (float64 where rounding cannot matter). */
function bruteWithin(points: number[][], x: number, y: number, radius: number): number[] {
  const out: number[] = [];
  points.forEach((p, i) => {
    if (withinRule(p, [x, y], radius)) out.push(i);
  });
  return out;
}

const ascending = (a: number, b: number) => a - b;

/** Checks within and withinInto (roomy and short outputs) of one query against brute force. */
function expectQuery(grid: PointGrid2D, points: number[][], x: number, y: number, radius: number): void {
  const expected = bruteWithin(points, x, y, radius);
  expect(grid.within(x, y, radius).sort(ascending)).toEqual(expected);
  const out = new Uint32Array(points.length + 1);
  const found = grid.withinInto(x, y, radius, out);
  expect(found).toBe(expected.length);
  expect(Array.from(out.subarray(0, found)).sort(ascending)).toEqual(expected);
  // Too short: the full count still comes back, and what was written is part of the answer.
  const short = new Uint32Array(Math.max(0, expected.length - 2));
  expect(grid.withinInto(x, y, radius, short)).toBe(expected.length);
  const answer = new Set(expected);
  for (const i of short) expect(answer.has(i)).toBe(true);
  expect(new Set(short).size).toBe(short.length);
}

/** Both layouts of the same points: dense (room for 1e7 cells) and hashed (maxDenseCells 0). */
function grids(points: number[][], cellSize: number): PointGrid2D[] {
  const flat = Float64Array.from(points.flat());
  const dense = new PointGrid2D(flat, { cellSize, maxDenseCells: 1e7 });
  const hashed = new PointGrid2D(flat, { cellSize, maxDenseCells: 0 });
  expect(dense.layout).toBe('dense');
  expect(hashed.layout).toBe('hashed');
  return [dense, hashed];
}

/** Integer points at distance exactly 5 (and 25, 13) from the origin, and their neighbours one unit out. */
const CIRCLE_5 = [
  [5, 0],
  [-5, 0],
  [0, 5],
  [0, -5],
  [3, 4],
  [-3, 4],
  [3, -4],
  [-3, -4],
  [4, 3],
  [-4, 3],
  [4, -3],
  [-4, -3],
];

describe('PointGrid2D within, row by row', () => {
  it('keeps points exactly on the circle, in every row, at every cell size', () => {
    const points: number[][] = [];
    for (const [x, y] of CIRCLE_5) {
      points.push([x, y], [x * 1.0000001, y * 1.0000001], [x * 0.9999999, y * 0.9999999]);
      // Just outside and just inside by an ulp along x (the chord's ends).
      points.push([x + Math.sign(x) * 2 ** -40, y], [x - Math.sign(x) * 2 ** -40, y]);
    }
    for (let k = 0; k < 200; k++) points.push([Math.cos(k) * 7 * (k % 3), Math.sin(k * 1.3) * 7 * ((k + 1) % 3)]);
    // Radius 5 spans 3 rows (cellSize 5), 5 rows (2.5), 11 rows (1), 15 rows (0.7), 101 rows (0.1, more than a
    // batch of rows), a single cell (100).
    for (const cellSize of [5, 2.5, 1, 0.7, 0.1, 100, 5 * (1 - 2 ** -30)]) {
      for (const grid of grids(points, cellSize)) {
        for (const [qx, qy] of [
          [0, 0],
          [1e-300, -1e-300],
          [5, 5],
          [-2.5, 2.5],
        ]) {
          for (const r of [5, 5 * (1 - 2 ** -52), 5 * (1 + 2 ** -52), 0, 3, 10]) expectQuery(grid, points, qx, qy, r);
        }
      }
    }
  });

  it('answers crowded rows with runs long enough to bisect, gaps between occupied cells included', () => {
    // Columns of points at cell borders (multiples of 0.5) and inside cells, with some columns left empty.
    const points: number[][] = [];
    for (let column = -12; column <= 12; column++) {
      if (column % 4 === 1) continue; // empty cells in hashed rows between occupied ones
      for (let k = 0; k < 30; k++) points.push([column * 0.25, (k - 15) * 0.1]);
    }
    for (const cellSize of [0.5, 1, 0.25]) {
      for (const grid of grids(points, cellSize)) {
        for (const [qx, qy] of [
          [0, 0],
          [0.5, 0.5],
          [-1.25, 0.3],
          [0.1, -1.5],
          [3, 1.5],
        ]) {
          for (const r of [0.5, 1, 1.25, 2, 0.25, 0]) expectQuery(grid, points, qx, qy, r);
        }
      }
    }
  });

  it('answers a radius spanning thousands of rows of a one-column grid, batch after batch', () => {
    const points: number[][] = [];
    for (let k = 0; k < 1500; k++) points.push([0.5 * (k % 3), k * 0.37]);
    const flat = Float64Array.from(points.flat());
    const grid = new PointGrid2D(flat, { cellSize: 0.05, maxDenseCells: 1e6 });
    expect(grid.layout).toBe('dense');
    const hashed = new PointGrid2D(flat, { cellSize: 0.05, maxDenseCells: 0 });
    for (const g of [grid, hashed]) {
      for (const r of [1e4, 300, 31.9, 0.37]) expectQuery(g, points, 0.5, 250, r);
    }
  });

  it('agrees with brute force on clustered and far point sets (seeded)', () => {
    const coordinate = (scale: number) => fc.double({ min: -scale, max: scale, noNaN: true });
    const scenario = fc.record({
      base: fc.constantFrom(0, 1e12, -3e9, 12345.678),
      cellSize: fc.constantFrom(1, 0.3, 2.5, 1e-3),
      // Blob centres, and for each point its blob and offset; some points exactly on a lattice.
      centers: fc.array(fc.tuple(coordinate(20), coordinate(20)), { minLength: 1, maxLength: 4 }),
      offsets: fc.array(fc.tuple(fc.nat(), coordinate(3), coordinate(3), fc.boolean()), {
        minLength: 1,
        maxLength: 150,
      }),
      radiusFactor: fc.constantFrom(0, 0.5, 1, 1.0000001, 2, 3.7),
      queries: fc.array(fc.tuple(fc.nat(), coordinate(2), coordinate(2), fc.boolean()), {
        minLength: 1,
        maxLength: 6,
      }),
    });
    fc.assert(
      fc.property(scenario, (s) => {
        const c = s.cellSize;
        const points = s.offsets.map(([b, ox, oy, lattice]) => {
          const [cx, cy] = s.centers[b % s.centers.length];
          const x = (cx + ox) * c;
          const y = (cy + oy) * c;
          return lattice ? [s.base + Math.round(x / c) * c, s.base + Math.round(y / c) * c] : [s.base + x, s.base + y];
        });
        const radius = s.radiusFactor * c;
        for (const grid of grids(points, c)) {
          for (const [p, dx, dy, onPoint] of s.queries) {
            const [px, py] = points[p % points.length];
            // On a point, or offset from one; then also at exactly radius along x and y from that point.
            const x = onPoint ? px : px + dx * c;
            const y = onPoint ? py : py + dy * c;
            expectQuery(grid, points, x, y, radius);
            expectQuery(grid, points, px + radius, py, radius);
            expectQuery(grid, points, px, py - radius, radius);
          }
        }
      }),
      { seed: 120012, numRuns: 150 },
    );
  });
});
