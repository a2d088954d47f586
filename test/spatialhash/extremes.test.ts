/**
 * Issue 31's extreme numbers, checked in all four dynamic hashes: the
 * distance rule where squares overflow (points at 0 and 1e306 are both
 * within 1e300 of the origin, since 1e300 * 1e300 is Infinity), coordinates
 * near the largest double, cell sizes from 5e-324 to the largest double,
 * and ray casts with far origins and subnormal or huge directions. These
 * already held before the hardening; they are here so they keep holding
 * (the fuzz suite draws such cases at random, test/fuzz/hash-extremes).
 */
import { describe, expect, it } from 'vitest';
import { PointHash2D, PointHash3D, SpatialHash2D, SpatialHash3D } from '../../src/index.js';

const MAX = Number.MAX_VALUE;

type Any = SpatialHash2D<string> | SpatialHash3D<string> | PointHash2D<string> | PointHash3D<string>;
const CLASSES = [
  ['SpatialHash2D', 2, (cellSize: number) => new SpatialHash2D<string>({ cellSize })],
  ['SpatialHash3D', 3, (cellSize: number) => new SpatialHash3D<string>({ cellSize })],
  ['PointHash2D', 2, (cellSize: number) => new PointHash2D<string>({ cellSize })],
  ['PointHash3D', 3, (cellSize: number) => new PointHash3D<string>({ cellSize })],
] as const;

/** Calls `method` of any hash with a point's coordinates padded to its dimension with zeros. */
function call(hash: Any, dim: number, method: string, point: number[], ...rest: unknown[]): unknown {
  const p = [...point, 0, 0].slice(0, dim);
  return (hash as unknown as Record<string, (...args: unknown[]) => unknown>)[method].call(hash, ...p, ...rest);
}

describe.each(CLASSES)('%s at the extremes', (_name, dim, make) => {
  const at = (hash: Any, item: string, x: number, y = 0) =>
    (hash.insert as (item: string, ...point: number[]) => number).call(hash, item, ...[x, y, 0].slice(0, dim));

  it('radius 1e300 reaches a point 1e306 away: its square overflows to Infinity, and every distance is within', () => {
    for (const cellSize of [1, 1e300, MAX]) {
      const hash = make(cellSize);
      at(hash, 'origin', 0);
      at(hash, 'far', 1e306);
      expect((call(hash, dim, 'queryRadius', [0], 1e300) as string[]).sort()).toEqual(['far', 'origin']);
      expect(call(hash, dim, 'nearest', [0], 2, 1e300)).toEqual(['origin', 'far']);
      // 1e150 squared is finite (1e300): the far point is out of reach.
      expect(call(hash, dim, 'queryRadius', [0], 1e150)).toEqual(['origin']);
      expect(call(hash, dim, 'nearest', [0], 2, 1e150)).toEqual(['origin']);
    }
  });

  it('keeps points at the largest doubles apart and finds them, with any cell size', () => {
    for (const cellSize of [5e-324, 1e-300, 1, 1e300, MAX]) {
      const hash = make(cellSize);
      at(hash, 'low', -MAX, -MAX);
      at(hash, 'high', MAX, MAX);
      at(hash, 'zero', 0, 0);
      at(hash, 'tiny', 5e-324, 0);
      hash.validate();
      expect(call(hash, dim, 'nearest', [MAX, MAX], 1)).toEqual(['high']);
      expect(call(hash, dim, 'nearest', [-MAX, -MAX], 1)).toEqual(['low']);
      // Their squared distances from 1e-320 both underflow to 0: a tie, in any order.
      expect((call(hash, dim, 'nearest', [1e-320, 0], 2) as string[]).sort()).toEqual(['tiny', 'zero']);
      // 5e-324 squared underflows to 0: within radius 0 of the origin, as the rule says.
      expect((call(hash, dim, 'queryRadius', [0, 0], 0) as string[]).sort()).toEqual(['tiny', 'zero']);
      expect((call(hash, dim, 'queryRadius', [5e-324, 0], 0) as string[]).sort()).toEqual(['tiny', 'zero']);
      const box = [-MAX, -MAX, -MAX, MAX, MAX, MAX];
      const all = dim === 2 ? [box[0], box[1], box[3], box[4]] : box;
      expect(
        ((hash as unknown as Record<string, (...a: number[]) => string[]>).queryBox(...all) as string[]).sort(),
      ).toEqual(['high', 'low', 'tiny', 'zero']);
    }
  });
});

describe.each([
  ['SpatialHash2D', 2, (cellSize: number) => new SpatialHash2D<string>({ cellSize })],
  ['SpatialHash3D', 3, (cellSize: number) => new SpatialHash3D<string>({ cellSize })],
] as const)('%s rays at the extremes', (_name, dim, make) => {
  const ray = (hash: Any, o: number[], d: number[], max = Number.POSITIVE_INFINITY) =>
    (hash as SpatialHash2D<string>).raycastAll.call(
      hash,
      ...([...o, 0].slice(0, dim) as [number, number]),
      ...([...d, 0].slice(0, dim) as [number, number]),
      max,
    );

  it('casts from the far end of the float range, with subnormal and huge directions', () => {
    for (const cellSize of [1, 1e300, MAX]) {
      const hash = make(cellSize);
      const insert = hash.insert as (item: string, ...box: number[]) => number;
      insert.call(hash, 'near', ...[1e307, -1, -1, 1e307 + 1e293, 1, 1].filter((_, k) => dim === 3 || k % 3 !== 2));
      insert.call(hash, 'edge', ...[MAX, -1, -1, MAX, 1, 1].filter((_, k) => dim === 3 || k % 3 !== 2));
      for (const dx of [1, 5e-324, 1e308]) {
        const hits = ray(hash, [-MAX, 0], [dx, 0]);
        // From -MAX, both lie farther than the largest double: their distances overflow to Infinity, a tie.
        expect(hits.map((h) => h.item).sort()).toEqual(['edge', 'near']);
        expect(hits.map((h) => h.distance)).toEqual([Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]);
        // Within any finite maxDistance, neither is reached.
        expect(ray(hash, [-MAX, 0], [dx, 0], MAX)).toEqual([]);
        const fromZero = ray(hash, [0, 0], [dx, 0]);
        expect(fromZero.map((h) => h.item)).toEqual(['near', 'edge']);
        expect(fromZero[0].distance).toBe(1e307);
        expect(fromZero[1].distance).toBe(MAX);
      }
    }
  });
});
