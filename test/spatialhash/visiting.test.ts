import { describe, expect, it } from 'vitest';
import { SpatialHash2D, SpatialHash3D } from '../../src/index.js';

describe('changing the hash from inside a visitor', () => {
  it('throws from forEachPair and forEach visitors, and leaves the hash as it was', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1 });
    hash.insert('a', 0, 0, 2, 2);
    hash.insert('b', 1, 1, 3, 3);
    const attempts: (() => void)[] = [
      () => hash.insert('c', 0, 0),
      () => hash.update('a', 5, 5),
      () => hash.remove('b'),
      () => hash.clear(),
    ];
    for (const attempt of attempts) {
      expect(() => hash.forEachPair(() => attempt())).toThrow(/cannot change while forEach or forEachPair/);
      expect(() =>
        hash.forEach(() => {
          attempt();
        }),
      ).toThrow(/cannot change while forEach or forEachPair/);
      hash.validate();
      expect(hash.size).toBe(2);
      expect(hash.getBox('a')).toEqual([0, 0, 2, 2]);
    }
    // Queries stay allowed, and the hash is writable again afterwards.
    const seen: string[] = [];
    hash.forEachPair((x, y) => seen.push([x, y].sort().join(''), ...hash.queryPoint(1.5, 1.5)));
    expect(seen.sort()).toEqual(['a', 'ab', 'b'].sort());
    hash.update('a', 10, 10);
    expect(hash.queryPoint(10, 10)).toEqual(['a']);
  });

  it('guards SpatialHash3D too, including pairs with overflow items', () => {
    const hash = new SpatialHash3D<number>({ cellSize: 1, maxCellsPerItem: 1 });
    hash.insert(1, 0, 0, 0, 5, 5, 5);
    hash.insert(2, 1, 1, 1);
    expect(hash.overflowSize).toBe(1);
    expect(() => hash.forEachPair(() => hash.remove(2))).toThrow(Error);
    expect(hash.size).toBe(2);
    hash.validate();
  });
});
