/**
 * SpatialHash3D against a brute-force oracle: seeded random command sequences
 * (test/support/hash-properties.ts), hand-written corner cases
 * (test/support/hash-examples.ts) and the 3D argument lists spelled out.
 */

import { describe, expect, it } from 'vitest';
import { SpatialHash3D } from '../../src/index.js';
import { describeHashExamples } from '../support/hash-examples.js';
import { describeHashProperties, type HashFactory, type HashUnderTest } from '../support/hash-properties.js';

type Options = ConstructorParameters<typeof SpatialHash3D>[0];

/** The 3D hash behind the flat-array interface the shared tests use. */
function wrap(hash: SpatialHash3D<unknown>): HashUnderTest {
  return {
    get size() {
      return hash.size;
    },
    get cellSize() {
      return hash.cellSize;
    },
    insert: (item, b) => hash.insert(item, b[0], b[1], b[2], b[3], b[4], b[5]),
    insertPoint: (item, p) => hash.insert(item, p[0], p[1], p[2]),
    update: (item, b) => hash.update(item, b[0], b[1], b[2], b[3], b[4], b[5]),
    updatePoint: (item, p) => hash.update(item, p[0], p[1], p[2]),
    remove: (item) => hash.remove(item),
    has: (item) => hash.has(item),
    clear: () => hash.clear(),
    queryPoint: (p, out) =>
      out === undefined ? hash.queryPoint(p[0], p[1], p[2]) : hash.queryPoint(p[0], p[1], p[2], out),
    queryBox: (b, out) =>
      out === undefined
        ? hash.queryBox(b[0], b[1], b[2], b[3], b[4], b[5])
        : hash.queryBox(b[0], b[1], b[2], b[3], b[4], b[5], out),
    queryRadius: (p, r, out) =>
      out === undefined ? hash.queryRadius(p[0], p[1], p[2], r) : hash.queryRadius(p[0], p[1], p[2], r, out),
    iterate: () => {
      const items: unknown[] = [];
      for (const item of hash) items.push(item);
      return items;
    },
    forEachItems: () => {
      const items: unknown[] = [];
      hash.forEach((item) => {
        items.push(item);
      });
      return items;
    },
    validate: () => hash.validate(),
  };
}

const factory: HashFactory = (options) => wrap(new SpatialHash3D<unknown>(options as Options));

describeHashProperties(3, factory);
describeHashExamples(3, factory);

describe('SpatialHash3D API shape', () => {
  it('is generic over the item type and takes z after y, points with the max coordinates omitted', () => {
    interface Particle {
      id: number;
    }
    const hash = new SpatialHash3D<Particle>({ cellSize: 0.5, maxCellsPerItem: 8, initialCapacity: 1 });
    const a: Particle = { id: 1 };
    const b: Particle = { id: 2 };
    hash.insert(a, -1, 2, -3);
    hash.insert(b, 0, 0, 0, 1, 2, 3);
    const near: Particle[] = hash.queryRadius(-1, 2, -2.5, 0.5);
    expect(near).toEqual([a]);
    expect(hash.queryBox(-1, 2, -3, -1, 2, -3)).toEqual([a]);
    expect(hash.queryPoint(1, 2, 3)).toEqual([b]);
    hash.update(a, 1, 2, 3);
    expect(new Set(hash.queryPoint(1, 2, 3))).toEqual(new Set([a, b]));
    expect(hash.queryPoint(-1, 2, -3)).toEqual([]);
    expect([...hash].length).toBe(2);
    expect(hash.size).toBe(2);
  });

  it('keeps x, y and z apart: a box long along one axis is found only along that axis', () => {
    const hash = new SpatialHash3D<string>({ cellSize: 1 });
    hash.insert('x', -5, 0, 0, 5, 0, 0);
    hash.insert('y', 0, -5, 0, 0, 5, 0);
    hash.insert('z', 0, 0, -5, 0, 0, 5);
    expect(hash.queryPoint(4, 0, 0)).toEqual(['x']);
    expect(hash.queryPoint(0, 4, 0)).toEqual(['y']);
    expect(hash.queryPoint(0, 0, 4)).toEqual(['z']);
    expect(hash.queryPoint(0, 0, -5)).toEqual(['z']);
    expect(hash.queryBox(-0.5, -0.5, 4, 0.5, 0.5, 6)).toEqual(['z']);
    expect(hash.queryRadius(0, 0, -5.5, 0.5)).toEqual(['z']);
    expect(hash.queryRadius(0, 0, -5.5, nextBelowHalf)).toEqual([]);
    hash.update('z', 0, 1, -5, 0, 1, 5);
    expect(hash.queryPoint(0, 0, 4)).toEqual([]);
    expect(hash.queryPoint(0, 1, 4)).toEqual(['z']);
    hash.validate();
  });
});

/** The largest double below 0.5. */
const nextBelowHalf = 0.5 - 2 ** -54;
