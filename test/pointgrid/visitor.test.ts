import { describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D } from '../../src/index.js';
import { random } from '../support/random.js';

/** Points on a line, one apart: pairs within radius 1 are the consecutive ones. */
function line(count: number, dimension: 2 | 3): Float64Array {
  const positions = new Float64Array(count * dimension);
  for (let i = 0; i < count; i++) positions[i * dimension] = i;
  return positions;
}

describe('forEachPair visitor arity', () => {
  for (const [name, grid] of [
    ['PointGrid2D', new PointGrid2D(line(6, 2), { cellSize: 1 })],
    ['PointGrid3D', new PointGrid3D(line(6, 3), { cellSize: 1 })],
  ] as const) {
    it(`${name} passes the squared distance to a visitor that declares it`, () => {
      const seen: number[][] = [];
      grid.forEachPair(1, (i, j, distanceSquared) => seen.push([i, j, distanceSquared]));
      expect(seen.sort((a, b) => a[0] - b[0])).toEqual([0, 1, 2, 3, 4].map((i) => [i, i + 1, 1]));
    });

    it(`${name} calls a two-parameter visitor with the pair only, so no double is boxed per pair`, () => {
      const argumentCounts = new Set<number>();
      const pairs: number[][] = [];
      grid.forEachPair(1, function (this: unknown, i: number, j: number) {
        // biome-ignore lint/complexity/noArguments: the test is about how many arguments arrive
        argumentCounts.add(arguments.length);
        pairs.push([i, j]);
      });
      expect([...argumentCounts]).toEqual([2]);
      expect(pairs.sort((a, b) => a[0] - b[0])).toEqual([0, 1, 2, 3, 4].map((i) => [i, i + 1]));
    });

    // Issue 12: a visitor declared with fewer than three parameters is not
    // passed the distance (a double, which V8 boxes for a call it does not
    // inline); one that declares it is. The declared count is the function's
    // length, set here on a visitor that records what arrives.
    for (const [declared, expected] of [
      [0, 2],
      [1, 2],
      [2, 2],
      [3, 3],
      [4, 3],
    ] as const) {
      it(`${name} passes ${expected} arguments to a visitor declared with ${declared} parameters`, () => {
        const counts = new Set<number>();
        const seen: number[][] = [];
        const visitor = function (this: unknown) {
          // biome-ignore lint/complexity/noArguments: the test is about how many arguments arrive
          const args = arguments;
          counts.add(args.length);
          seen.push([...args]);
        };
        Object.defineProperty(visitor, 'length', { value: declared });
        grid.forEachPair(1, visitor);
        expect([...counts]).toEqual([expected]);
        const pair = (i: number) => (expected === 3 ? [i, i + 1, 1] : [i, i + 1]);
        expect(seen.sort((x, y) => x[0] - y[0])).toEqual([0, 1, 2, 3, 4].map(pair));
      });
    }

    it(`${name} counts a defaulted third parameter as not declared`, () => {
      const got: number[] = [];
      grid.forEachPair(1, (_i, _j, distanceSquared = -1) => got.push(distanceSquared));
      expect(got).toEqual([-1, -1, -1, -1, -1]);
    });
  }
});

/** `count` points uniform in a cube (square) of side `side`, flat. */
function cloud(count: number, dimension: 2 | 3, side: number, seed: number): Float64Array {
  const next = random(seed);
  const positions = new Float64Array(count * dimension);
  for (let k = 0; k < positions.length; k++) positions[k] = (next() - 0.5) * side;
  return positions;
}

/** Every pair within radius by brute force, as "i,j,d2" strings, sorted. */
function brutePairs(positions: Float64Array, dimension: 2 | 3, radius: number): string[] {
  const n = positions.length / dimension;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      let d2 = 0;
      for (let a = 0; a < dimension; a++) {
        const d = positions[j * dimension + a] - positions[i * dimension + a];
        d2 += d * d;
      }
      if (d2 <= radius * radius) out.push(`${i},${j},${d2}`);
    }
  }
  return out.sort();
}

// forEachPair hands pairs over in batches of a couple of thousand; these
// searches find many batches' worth, and crowds with more candidates per
// point than one batch holds.
describe('pair searches larger than their first buffers', () => {
  for (const [name, dimension, Grid] of [
    ['PointGrid2D', 2, PointGrid2D],
    ['PointGrid3D', 3, PointGrid3D],
  ] as const) {
    it(`${name} hands over every pair of a large search exactly once, with its distance`, () => {
      const positions = cloud(3000, dimension, dimension === 2 ? 50 : 16, 7 + dimension);
      const grid = new Grid(positions, { cellSize: 1.5 });
      const expected = brutePairs(positions, dimension, 1.5);
      expect(expected.length).toBeGreaterThan(10000);
      const seen: string[] = [];
      grid.forEachPair(1.5, (i, j, d2) => seen.push(`${i},${j},${d2}`));
      expect(seen.sort()).toEqual(expected);
      const plain: string[] = [];
      grid.forEachPair(1.5, (i, j) => plain.push(`${i},${j}`));
      const indexPairs = expected.map((p) => p.slice(0, p.lastIndexOf(','))).sort();
      expect(plain.sort()).toEqual(indexPairs);
      // pairs() and neighbors() grow their buffers from a guess several times on this search.
      const flat = grid.pairs(1.5);
      const fromFlat: string[] = [];
      for (let k = 0; k < flat.length; k += 2) fromFlat.push(`${flat[k]},${flat[k + 1]}`);
      expect(fromFlat.sort()).toEqual(indexPairs);
      const { offsets, indices } = grid.neighbors(1.5);
      const fromRows: string[] = [];
      for (let i = 0; i < 3000; i++) {
        for (let k = offsets[i]; k < offsets[i + 1]; k++) if (i < indices[k]) fromRows.push(`${i},${indices[k]}`);
      }
      expect(fromRows.sort()).toEqual(indexPairs);
      expect(indices.length).toBe(2 * expected.length);
    });

    it(`${name} handles a crowd with more candidates per point than a batch holds`, () => {
      // 2500 coincident points: each has up to 2499 partners, more than a batch.
      const n = 2500;
      const grid = new Grid(new Float64Array(n * dimension).fill(-3.25), { cellSize: 1 });
      const seen = new Uint8Array(n * n);
      let visits = 0;
      let wrong = 0;
      grid.forEachPair(0, (i, j, d2) => {
        visits++;
        if (!(i < j) || d2 !== 0 || seen[i * n + j] === 1) wrong++;
        seen[i * n + j] = 1;
      });
      expect(wrong).toBe(0);
      expect(visits).toBe((n * (n - 1)) / 2);
    });

    it(`${name} hands over the pairs of a sparse hashed search exactly once, with their distances`, () => {
      // 5000 points, mostly alone, a few close pairs scattered among them: a
      // hashed grid whose stencil rows are mostly empty (see hashedPairs).
      const n = 5000;
      const next = random(17 + dimension);
      const positions = new Float64Array(n * dimension);
      for (let i = 0; i < n; i++) {
        positions[i * dimension] = i * 10;
        for (let a = 1; a < dimension; a++) positions[i * dimension + a] = next() * 3;
        if (i % 97 === 1) positions[i * dimension] = (i - 1) * 10 + next();
      }
      const grid = new Grid(positions, { cellSize: 2 });
      const expected = brutePairs(positions, dimension, 2);
      expect(expected.length).toBeGreaterThan(20);
      const seen: string[] = [];
      grid.forEachPair(2, (i, j, d2) => seen.push(`${i},${j},${d2}`));
      expect(seen.sort()).toEqual(expected);
      const plain: string[] = [];
      grid.forEachPair(2, (i, j) => plain.push(`${i},${j}`));
      expect(plain.sort()).toEqual(expected.map((p) => p.slice(0, p.lastIndexOf(','))).sort());
    });

    it(`${name} starts clean after a visitor throws halfway`, () => {
      const positions = cloud(2000, dimension, dimension === 2 ? 40 : 12, 3 + dimension);
      const grid = new Grid(positions, { cellSize: 1.5 });
      let calls = 0;
      expect(() =>
        grid.forEachPair(1.5, () => {
          if (++calls === 3000) throw new Error('stop here');
        }),
      ).toThrow('stop here');
      const seen: string[] = [];
      grid.forEachPair(1.5, (i, j, d2) => seen.push(`${i},${j},${d2}`));
      expect(seen.sort()).toEqual(brutePairs(positions, dimension, 1.5));
    });
  }
});
