/**
 * Issue 31: PointHash snapshots are untrusted too. from() checks every field
 * before it builds anything, on its own copies of the typed arrays (a
 * SharedArrayBuffer that another thread rewrites cannot slip a value past
 * the checks, and a typed array whose `length` getter lies is measured by
 * its real length), and builds one slot per point: its memory is bounded by
 * the snapshot's size.
 */
import { describe, expect, it } from 'vitest';
import { PointHash2D, PointHash3D, type PointHashData } from '../../src/index.js';
import { retainedBytes } from '../spatialhash/memory.js';

function good(): PointHashData {
  const hash = new PointHash2D<number>({ cellSize: 1 });
  hash.insert(7, 0, 0);
  hash.insert(8, 5, 5);
  hash.removeById(hash.insert(9, 1, 1));
  return hash.toData();
}

describe('PointHash from() checks the snapshot before building', () => {
  it('refuses every bad cellSize with an Error naming the field', () => {
    const data = good();
    for (const cellSize of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '1', null, undefined]) {
      expect(() => PointHash2D.from({ ...data, cellSize } as never), String(cellSize)).toThrow(
        /from: invalid PointHash data: cellSize/,
      );
    }
  });

  it('a typed array whose length getter lies is measured by its real length', () => {
    class Liar extends Float64Array {
      override get length(): number {
        return 1 << 20;
      }
    }
    const data = good();
    expect(() => PointHash2D.from({ ...data, positions: new Liar(3) } as never)).toThrow(
      /from: invalid PointHash data: positions must be a Float64Array of 4 numbers/,
    );
    // The right number of positions behind the lie: read as they are.
    const copy = PointHash2D.from({ ...data, positions: new Liar(data.positions) } as never);
    expect(copy.getPosition(8)).toEqual([5, 5]);
  });

  it('holds well under 200 bytes per id after from(), far points included', () => {
    for (const dim of [2, 3] as const) {
      const hash = dim === 2 ? new PointHash2D<number>({ cellSize: 1 }) : new PointHash3D<number>({ cellSize: 1 });
      const insert = hash.insert as (item: number, ...point: number[]) => number;
      for (let i = 0; i < 500; i++) insert.call(hash, i, ...Array(dim).fill(i % 7 === 0 ? 1e300 * i : i * 3));
      for (let i = 0; i < 500; i += 3) hash.removeById(i);
      const data = hash.toData();
      const copy = dim === 2 ? PointHash2D.from(data) : PointHash3D.from(data);
      expect(copy.size).toBe(hash.size);
      expect(retainedBytes(copy)).toBeLessThanOrEqual(200 * (data.idLimit + 64));
    }
  });
});

describe('PointHash from() counts a cell per point against maxCells', () => {
  it.each([2, 3] as const)('%iD: the default always passes; a smaller maxCells refuses, naming both counts', (dim) => {
    const hash = dim === 2 ? new PointHash2D<number>({ cellSize: 1 }) : new PointHash3D<number>({ cellSize: 1 });
    const insert = hash.insert as (item: number, ...at: number[]) => number;
    for (let i = 0; i < 100; i++) insert.call(hash, i, ...Array(dim).fill(i % 7));
    const data = hash.toData();
    const from = (options?: object) =>
      dim === 2 ? PointHash2D.from<number>(data, options) : PointHash3D.from<number>(data, options);
    expect(from().size).toBe(100);
    expect(from({ maxCells: 100 }).size).toBe(100);
    expect(() => from({ maxCells: 99 })).toThrow(
      'from: invalid PointHash data: its items cover 100 cells, more than maxCells (99); from(data, { maxCells }) allows more, for data you trust',
    );
    expect(() => from({ maxCells: -1 })).toThrow(RangeError);
  });
});
