/**
 * Issue 31: arguments that are not numbers. PointHash's queryBox and
 * forEachOverlap share SpatialHash's box check, which once let `null` and
 * numeric strings through (`null <= null`, `'0x10' - '0x10' === 0`) and
 * failed on a bigint with a TypeError. Every numeric argument of every
 * method now gets a RangeError naming it, and the hash stays as it was.
 */
import { describe, expect, it } from 'vitest';
import { PointHash2D, PointHash3D } from '../../src/index.js';

const NOT_NUMBERS: unknown[] = [null, '0x10', '1', '', true, 1n, [], [3], {}, { valueOf: () => 2 }];

type AnyHash = PointHash2D<string> | PointHash3D<string>;

/** A method call taking its numeric arguments as a list, with the names of those arguments. */
interface Call {
  method: string;
  names: string[];
  good: number[];
  run: (hash: AnyHash, args: unknown[]) => unknown;
}

function callsFor(dim: 2 | 3): Call[] {
  const axes = dim === 2 ? ['x', 'y'] : ['x', 'y', 'z'];
  const box = dim === 2 ? ['minX', 'minY', 'maxX', 'maxY'] : ['minX', 'minY', 'minZ', 'maxX', 'maxY', 'maxZ'];
  const point = Array(dim).fill(1);
  const anyHash = (hash: AnyHash) => hash as unknown as Record<string, (...args: unknown[]) => unknown>;
  return [
    { method: 'insert', names: axes, good: point, run: (h, a) => anyHash(h).insert.call(h, 'new', ...a) },
    { method: 'update', names: axes, good: point, run: (h, a) => anyHash(h).update.call(h, 'a', ...a) },
    {
      method: 'updateById',
      names: axes,
      good: point,
      run: (h, a) => anyHash(h).updateById.call(h, h.idOf('a'), ...a),
    },
    {
      method: 'queryBox',
      names: box,
      good: [...Array(dim).fill(0), ...Array(dim).fill(1)],
      run: (h, a) => anyHash(h).queryBox.call(h, ...a),
    },
    {
      method: 'forEachOverlap',
      names: box,
      good: [...Array(dim).fill(0), ...Array(dim).fill(1)],
      run: (h, a) => anyHash(h).forEachOverlap.call(h, ...a, () => undefined),
    },
    {
      method: 'queryRadius',
      names: [...axes, 'radius'],
      good: [...point, 1],
      run: (h, a) => anyHash(h).queryRadius.call(h, ...a),
    },
    {
      method: 'nearest',
      names: [...axes, 'k', 'maxDistance'],
      good: [...point, 1, 5],
      run: (h, a) => anyHash(h).nearest.call(h, ...a),
    },
    {
      method: 'forEachPair',
      names: ['radius'],
      good: [1],
      run: (h, a) => anyHash(h).forEachPair.call(h, ...a, () => undefined),
    },
  ];
}

function state(hash: AnyHash): unknown {
  const points: unknown[] = [];
  for (const item of [...hash].sort()) points.push([item, hash.idOf(item), hash.getPosition(item)]);
  return { size: hash.size, points };
}

describe.each([2, 3] as const)('PointHash%iD arguments that are not numbers', (dim) => {
  it('every numeric argument of every method gets a RangeError naming it, and nothing changes', () => {
    const hash: AnyHash =
      dim === 2 ? new PointHash2D<string>({ cellSize: 4 }) : new PointHash3D<string>({ cellSize: 4 });
    const insert = hash.insert as (item: string, ...args: number[]) => number;
    insert.call(hash, 'a', ...Array(dim).fill(0));
    insert.call(hash, 'b', ...Array(dim).fill(16));
    const before = state(hash);
    for (const call of callsFor(dim)) {
      for (let slot = 0; slot < call.names.length; slot++) {
        for (const value of NOT_NUMBERS) {
          const args: unknown[] = call.good.slice();
          args[slot] = value;
          const what = `${call.method} with ${call.names[slot]} = ${typeof value === 'bigint' ? `${value}n` : JSON.stringify(value)}`;
          let error: unknown;
          try {
            call.run(hash, args);
          } catch (e) {
            error = e;
          }
          expect(error, what).toBeInstanceOf(RangeError);
          expect((error as Error).message, what).toContain(call.names[slot]);
        }
      }
    }
    hash.validate();
    expect(state(hash)).toEqual(before);
  });

  it("queryBox does not read '0x10' as 16 nor null as 0", () => {
    const hash: AnyHash =
      dim === 2 ? new PointHash2D<string>({ cellSize: 4 }) : new PointHash3D<string>({ cellSize: 4 });
    const h = hash as unknown as Record<string, (...args: unknown[]) => unknown>;
    h.insert.call(hash, 'p', ...Array(dim).fill(16));
    expect(() => h.queryBox.call(hash, '0x10', ...Array(dim - 1).fill(16), ...Array(dim).fill(16))).toThrow(
      /minX must be a finite number, got "0x10"/,
    );
    expect(() => h.queryBox.call(hash, ...Array(dim).fill(null), ...Array(dim).fill(0))).toThrow(
      /minX must be a finite number, got null/,
    );
    expect(() => h.forEachOverlap.call(hash, ...Array(dim).fill(0), 1n, ...Array(dim - 1).fill(0), () => 0)).toThrow(
      /maxX must be a finite number, got 1n/,
    );
  });
});
