/**
 * SpatialHash2D against a brute-force oracle: seeded random command sequences
 * (test/support/hash-properties.ts), hand-written corner cases
 * (test/support/hash-examples.ts) and the 2D argument lists spelled out.
 */

import { describe, expect, it } from 'vitest';
import { SpatialHash2D } from '../../src/index.js';
import { describeHashExamples } from '../support/hash-examples.js';
import { describeHashProperties, type HashFactory, type HashUnderTest } from '../support/hash-properties.js';

type Options = ConstructorParameters<typeof SpatialHash2D>[0];

/** The 2D hash behind the flat-array interface the shared tests use. */
function wrap(hash: SpatialHash2D<unknown>): HashUnderTest {
  return {
    get size() {
      return hash.size;
    },
    get cellSize() {
      return hash.cellSize;
    },
    insert: (item, b) => hash.insert(item, b[0], b[1], b[2], b[3]),
    insertPoint: (item, p) => hash.insert(item, p[0], p[1]),
    update: (item, b) => hash.update(item, b[0], b[1], b[2], b[3]),
    updatePoint: (item, p) => hash.update(item, p[0], p[1]),
    remove: (item) => hash.remove(item),
    has: (item) => hash.has(item),
    clear: () => hash.clear(),
    queryPoint: (p, out) => (out === undefined ? hash.queryPoint(p[0], p[1]) : hash.queryPoint(p[0], p[1], out)),
    queryBox: (b, out) =>
      out === undefined ? hash.queryBox(b[0], b[1], b[2], b[3]) : hash.queryBox(b[0], b[1], b[2], b[3], out),
    queryRadius: (p, r, out) =>
      out === undefined ? hash.queryRadius(p[0], p[1], r) : hash.queryRadius(p[0], p[1], r, out),
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

const factory: HashFactory = (options) => wrap(new SpatialHash2D<unknown>(options as Options));

describeHashProperties(2, factory);
describeHashExamples(2, factory);

describe('SpatialHash2D API shape', () => {
  it('is generic over the item type and takes points with the max coordinates omitted', () => {
    interface Enemy {
      name: string;
    }
    const hash = new SpatialHash2D<Enemy>({ cellSize: 64, maxCellsPerItem: 8, initialCapacity: 1 });
    const goblin: Enemy = { name: 'goblin' };
    const troll: Enemy = { name: 'troll' };
    hash.insert(goblin, -10, 20);
    hash.insert(troll, 100, 100, 140, 180);
    const near: Enemy[] = hash.queryRadius(0, 0, 30);
    expect(near).toEqual([goblin]);
    expect(hash.queryBox(-10, 20, -10, 20)).toEqual([goblin]);
    expect(hash.queryPoint(140, 180)).toEqual([troll]);
    hash.update(goblin, 139, 101);
    expect(new Set(hash.queryBox(130, 100, 150, 110))).toEqual(new Set([goblin, troll]));
    expect(hash.queryPoint(-10, 20)).toEqual([]);
    expect([...hash].length).toBe(2);
    expect(hash.size).toBe(2);
  });

  it('keeps x and y apart: a box long in x is not found by the same span in y', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1 });
    hash.insert('wide', -5, 0, 5, 0);
    hash.insert('tall', 0, -5, 0, 5);
    expect(hash.queryPoint(4, 0)).toEqual(['wide']);
    expect(hash.queryPoint(0, 4)).toEqual(['tall']);
    expect(hash.queryBox(-5, -0.5, -4, 0.5)).toEqual(['wide']);
    expect(hash.queryRadius(0, -4.5, 0.5)).toEqual(['tall']);
    hash.update('wide', -5, 1, 5, 1);
    expect(hash.queryPoint(4, 0)).toEqual([]);
    expect(hash.queryPoint(4, 1)).toEqual(['wide']);
    hash.validate();
  });
});
