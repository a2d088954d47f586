/**
 * Messages that name the mistake made, through the public API: arguments
 * swapped, bigints where numbers go, a box given to a point hash, and the
 * positions length rule, which every structure reading strided positions
 * shares (PointGrid2D/3D and their rebuild, withinMany's queries, weld,
 * weldMesh). A refused call changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D, PointHash2D, PointHash3D, weld, weldMesh } from '../../src/index.js';

describe('messages that name the mistake', () => {
  it('PointGrid options given first: says the positions come first', () => {
    const positions = new Float32Array([0, 0, 0, 1, 1, 1]);
    const swapped3 = () => new PointGrid3D({ cellSize: 1 } as never, positions as never);
    expect(swapped3).toThrow(RangeError);
    expect(swapped3).toThrow(
      /options must be an object with a cellSize, got a Float32Array: the positions come first, new PointGrid3D\(positions, \{ cellSize \}\)/,
    );
    expect(() => new PointGrid2D({ cellSize: 1 } as never, [0, 0] as never)).toThrow(
      /got an array of length 2: the positions come first, new PointGrid2D/,
    );
  });

  it('a BigInt64Array is an array of bigints, not of non-finite coordinates', () => {
    const bigints = new BigInt64Array([0n, 0n, 0n, 1n, 1n, 1n]);
    expect(() => new PointGrid3D(bigints as never, { cellSize: 1 })).toThrow(
      /positions must hold numbers, got a BigInt64Array of bigints/,
    );
    const grid = new PointGrid3D(new Float64Array([0, 0, 0]), { cellSize: 1 });
    expect(() => grid.rebuild(bigints as never)).toThrow(/got a BigInt64Array of bigints/);
    expect(grid.count).toBe(1); // the refused rebuild left the grid as it was
    expect(() => grid.withinMany(new BigUint64Array(3) as never, 1)).toThrow(/queries must hold numbers/);
    expect(() => weld(bigints as never, 0)).toThrow(/positions must hold numbers, got a BigInt64Array/);
  });

  it('PointHash insert given a box names the hash of boxes', () => {
    const hash2 = new PointHash2D<string>({ cellSize: 1 });
    const insert2 = hash2.insert as (item: string, ...args: unknown[]) => number;
    expect(() => insert2.call(hash2, 'crate', 0, 0, 1, 1)).toThrow(
      /PointHash2D\.insert\(item, x, y, filter\?\) takes a point, got a number \(1\) where the filter goes: for a box, use SpatialHash2D\.insert/,
    );
    const hash3 = new PointHash3D<string>({ cellSize: 1 });
    const insert3 = hash3.insert as (item: string, ...args: unknown[]) => number;
    expect(() => insert3.call(hash3, 'crate', 0, 0, 0, 1, 1, 1)).toThrow(
      /PointHash3D\.insert\(item, x, y, z, filter\?\) takes a point, got a number \(1\) where the filter goes: for a box, use SpatialHash3D\.insert/,
    );
    expect(hash2.size + hash3.size).toBe(0);
    // A filter that is not an object, and not a number, keeps its own message.
    expect(() => insert2.call(hash2, 'a', 0, 0, 'layer 2')).toThrow(
      /filter must be an object \{ category\?, mask\? \}/,
    );
    expect(hash2.insert('a', 0, 0, { category: 2 })).toBe(0);
  });

  it('records after a header: four records of 5 after one value are four points everywhere', () => {
    // Header value, then x, y, z and two other values per record.
    const records = new Float64Array(21);
    for (let i = 0; i < 4; i++) records.set([i, 0, 0], 1 + 5 * i);
    const layout = { stride: 5, offset: 1 };
    const grid = new PointGrid3D(records, { cellSize: 1, ...layout });
    expect(grid.count).toBe(4);
    expect(grid.within(3, 0, 0, 0.5)).toEqual([3]);
    const grid2 = new PointGrid2D(records, { cellSize: 1, stride: 5, offset: 1 });
    expect(grid2.count).toBe(4);
    expect(weld(records, 0.5, layout).count).toBe(4);
    expect(weldMesh(records.subarray(0, 16), undefined, 0.5, layout).count).toBe(3);
    expect(grid.withinMany(records, 0.5, layout).offsets.length).toBe(5);
    // The same records cut inside point 4's coordinates: refused everywhere, naming the point and the rule.
    const cut = new Float64Array(22);
    const rule =
      /positions\.length \(22\) leaves a partial point: it ends inside point 4's coordinates \(indices 21 to 23\)/;
    expect(() => new PointGrid3D(cut, { cellSize: 1, ...layout })).toThrow(rule);
    expect(() => grid.rebuild(cut)).toThrow(rule);
    expect(grid.count).toBe(4);
    expect(() => weld(cut, 0.5, layout)).toThrow(rule);
    expect(() => grid.withinMany(cut, 0.5, layout)).toThrow(/queries\.length \(22\) leaves a partial point/);
  });
});
