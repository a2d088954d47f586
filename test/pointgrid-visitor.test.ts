import { describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D } from '../src/index.js';

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
  }
});
