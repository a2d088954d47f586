/**
 * Issue 31's extreme numbers, checked in all four dynamic hashes: the
 * distance rule (decision 2, src/core/distance.ts) where squares overflow or
 * underflow (a point 1e306 from the origin is not within 1e300 of it, one
 * 5e-324 away not within 0; float64 said both were), coordinates near the
 * largest double, cell sizes from 5e-324 to the largest double, and ray
 * casts with far origins and subnormal or huge directions. The fuzz suite
 * draws such cases at random (test/fuzz/hash-extremes).
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

  it('radius 1e300 does not reach a point 1e306 away, though both squares overflow float64 (decision 2)', () => {
    for (const cellSize of [1, 1e300, MAX]) {
      const hash = make(cellSize);
      at(hash, 'origin', 0);
      at(hash, 'far', 1e306);
      expect(call(hash, dim, 'queryRadius', [0], 1e300)).toEqual(['origin']);
      expect(call(hash, dim, 'nearest', [0], 2, 1e300)).toEqual(['origin']);
      expect((call(hash, dim, 'queryRadius', [0], 1e306) as string[]).sort()).toEqual(['far', 'origin']);
      expect(call(hash, dim, 'nearest', [0], 2, 1e306)).toEqual(['origin', 'far']);
      expect(call(hash, dim, 'nearest', [0], 2, MAX)).toEqual(['origin', 'far']);
      expect((call(hash, dim, 'queryRadius', [0], Number.POSITIVE_INFINITY) as string[]).sort()).toEqual([
        'far',
        'origin',
      ]);
      // 1e150 squared is finite (1e300): the far point is out of reach.
      expect(call(hash, dim, 'queryRadius', [0], 1e150)).toEqual(['origin']);
      expect(call(hash, dim, 'nearest', [0], 2, 1e150)).toEqual(['origin']);
    }
  });

  it('orders nearest by the distance itself where the squares overflow or underflow (decision 2)', () => {
    for (const cellSize of [1, 1e-300, 1e300]) {
      const hash = make(cellSize);
      // Inserted farthest first, so neither insertion order nor ids give the answer.
      at(hash, 'e300', 1e300);
      at(hash, 'e200', 1e200);
      at(hash, 'm1e200', 0, -1.5e200);
      // Squared distances 1e400, 2.25e400 and 1e600: all Infinity in float64.
      expect(call(hash, dim, 'nearest', [0], 3)).toEqual(['e200', 'm1e200', 'e300']);
      expect(call(hash, dim, 'nearest', [0], 1)).toEqual(['e200']);
      expect(call(hash, dim, 'nearest', [0], 2, 1.2e200)).toEqual(['e200']);
      const tiny = make(cellSize);
      at(tiny, 'b', 2e-200);
      at(tiny, 'c', 3e-200);
      at(tiny, 'a', 1e-200);
      // Squared distances 1e-400, 4e-400 and 9e-400: all 0 in float64.
      expect(call(tiny, dim, 'nearest', [0], 3)).toEqual(['a', 'b', 'c']);
      expect(call(tiny, dim, 'nearest', [0], 1)).toEqual(['a']);
      expect(call(tiny, dim, 'nearest', [0], 2, 2.5e-200)).toEqual(['a', 'b']);
      expect(call(tiny, dim, 'nearest', [3e-200], 2)).toEqual(['c', 'b']);
      expect(call(tiny, dim, 'nearest', [0], 3, 0)).toEqual([]);
      expect(call(tiny, dim, 'nearest', [1e-200], 3, 0)).toEqual(['a']);
      // With a predicate, asked at most once per item, and a mask.
      const asked: string[] = [];
      const predicate = (item: string) => {
        asked.push(item);
        return item !== 'a';
      };
      const near = (tiny as unknown as Record<string, (...a: unknown[]) => string[]>).nearest.call(
        tiny,
        ...[0, 0, 0].slice(0, dim),
        2,
        Number.POSITIVE_INFINITY,
        [],
        -1,
        predicate,
      );
      expect(near).toEqual(['b', 'c']);
      expect(new Set(asked).size).toBe(asked.length);
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
      // Their squared distances from 1e-320 both underflow to 0 in float64; the rule orders them.
      expect(call(hash, dim, 'nearest', [1e-320, 0], 2)).toEqual(['tiny', 'zero']);
      // 5e-324 squared underflows to 0, but 5e-324 is not within radius 0 of the origin (decision 2).
      expect(call(hash, dim, 'queryRadius', [0, 0], 0)).toEqual(['zero']);
      expect(call(hash, dim, 'queryRadius', [5e-324, 0], 0)).toEqual(['tiny']);
      expect((call(hash, dim, 'queryRadius', [5e-324, 0], 5e-324) as string[]).sort()).toEqual(['tiny', 'zero']);
      expect(call(hash, dim, 'queryRadius', [-MAX, -MAX], MAX)).toEqual(['low']);
      expect(call(hash, dim, 'nearest', [MAX, MAX], 4, MAX)).toEqual(['high']);
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
