import { describe, expect, it } from 'vitest';
import { SpatialHash2D } from '../../src/index.js';

/** Reaches the private query counter so the wrap-around can be tested without 2^32 queries. */
function setStamp(hash: SpatialHash2D<number>, value: number): void {
  (hash as unknown as { stamp: number }).stamp = value;
}

// Box and radius queries dedup by start bits (the lowest shared cell); nearest
// and the ray queries still stamp each item they meet, so they are used here.
describe('query stamps', () => {
  it('still report multi-cell items once each across the 2^32 wrap-around', () => {
    const hash = new SpatialHash2D<number>({ cellSize: 1 });
    // Each item covers several cells, so only the stamps keep it from repeating.
    for (let i = 0; i < 20; i++) hash.insert(i, i * 0.5, 0, i * 0.5 + 3, 3);
    const expected = hash.nearest(10, 1.5, 100).sort((a, b) => a - b);
    expect(expected).toHaveLength(20);
    expect(hash.queryBox(0, 0, 20, 3).sort((a, b) => a - b)).toEqual(expected);
    setStamp(hash, 0xffffffff - 3);
    for (let q = 0; q < 8; q++) {
      const got = hash.nearest(10, 1.5, 100).sort((a, b) => a - b);
      expect(got).toEqual(expected);
      const hits = hash.raycastAll(-1, 1.5, 1, 0).map((hit) => hit.item);
      expect(hits.sort((a, b) => a - b)).toEqual(expected);
    }
  });

  it('do not match an item stamped just before the wrap-around', () => {
    const hash = new SpatialHash2D<number>({ cellSize: 1 });
    hash.insert(1, 0, 0, 2, 2);
    setStamp(hash, 0xffffffff - 1);
    expect(hash.nearest(1, 1, 5)).toEqual([1]);
    expect(hash.nearest(1, 1, 5)).toEqual([1]);
    // After the wrap, stamp 1 is reused: a stale stamp equal to it must be gone.
    expect(hash.nearest(1, 1, 5)).toEqual([1]);
    expect(hash.raycastAll(-1, 1, 1, 0).map((hit) => hit.item)).toEqual([1]);
  });
});
