/**
 * Issue 31: snapshots are untrusted, and `maxCellsPerItem` bounds what one
 * item may cost. A 200-byte snapshot with `maxCellsPerItem: 1e15`, one box
 * 0..5000 and cellSize 1 made from() file the box under 25 million cells
 * (past 5 GB), and the constructor took any maxCellsPerItem too. Now both
 * refuse more than MAX_CELLS_PER_ITEM_LIMIT, an item covering more cells goes
 * to the overflow list as before, and from() checks every field of the
 * snapshot before it builds anything, reading the data once (a snapshot on a
 * SharedArrayBuffer that another thread rewrites cannot slip a value past
 * the checks).
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_CELLS_PER_ITEM,
  MAX_CELLS_PER_ITEM_LIMIT,
  SpatialHash2D,
  SpatialHash3D,
  type SpatialHashData,
} from '../../src/index.js';
import { expectRangeError } from '../support/hash-properties.js';
import { retainedBytes } from './memory.js';

describe('maxCellsPerItem has an upper limit', () => {
  it('is 4096, above the default', () => {
    expect(MAX_CELLS_PER_ITEM_LIMIT).toBe(4096);
    expect(DEFAULT_MAX_CELLS_PER_ITEM).toBeLessThan(MAX_CELLS_PER_ITEM_LIMIT);
  });

  it.each([2, 3] as const)('the %iD constructor refuses more with a RangeError naming the option and value', (dim) => {
    const make = (maxCellsPerItem: number) =>
      dim === 2
        ? new SpatialHash2D({ cellSize: 1, maxCellsPerItem })
        : new SpatialHash3D({ cellSize: 1, maxCellsPerItem });
    for (const value of [4097, 1e6, 2 ** 31, 1e15, Number.MAX_SAFE_INTEGER]) {
      expectRangeError(() => make(value), ['maxCellsPerItem'], [value]);
    }
    expect(make(4096).maxCellsPerItem).toBe(4096);
  });

  it('an item covering more cells than the limit goes to the overflow list and is found by every query', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1, maxCellsPerItem: MAX_CELLS_PER_ITEM_LIMIT });
    hash.insert('fits', 0, 0, 63.5, 63.5); // 64 x 64 cells
    hash.insert('over', 0, 0, 64.5, 63.5); // 65 x 64 cells
    expect(hash.overflowSize).toBe(1);
    expect(hash.cellCount).toBe(4096);
    expect(hash.queryPoint(64.2, 10)).toEqual(['over']);
    expect(hash.queryPoint(1, 1).sort()).toEqual(['fits', 'over']);
    hash.validate();
  });
});

describe('SpatialHash from() checks the snapshot before building', () => {
  const good = (): SpatialHashData => {
    const hash = new SpatialHash2D<number>({ cellSize: 1 });
    hash.insert(7, 0, 0, 2, 2);
    hash.insert(8, 5, 5);
    hash.removeById(hash.insert(9, 1, 1));
    return hash.toData();
  };

  it("refuses the issue's snapshot (maxCellsPerItem 1e15) without building its cells", () => {
    const data: SpatialHashData = {
      format: 'spatialhash',
      version: 1,
      dimension: 2,
      cellSize: 1,
      maxCellsPerItem: 1e15,
      idLimit: 1,
      ids: new Int32Array([0]),
      items: ['box'],
      // 101 x 101 cells here (the 0..5000 made 25 million): enough to tell, quick to build if taken.
      boxes: new Float64Array([0, 0, 100, 100]),
      categories: new Int32Array([1]),
      masks: new Int32Array([-1]),
      freeIds: new Int32Array(0),
    };
    expect(() => SpatialHash2D.from(data)).toThrow(/from: invalid SpatialHash data: maxCellsPerItem/);
    // At the limit, the box overflows: no cell at all.
    const atLimit = SpatialHash2D.from({
      ...data,
      maxCellsPerItem: MAX_CELLS_PER_ITEM_LIMIT,
      boxes: new Float64Array([0, 0, 5000, 5000]),
    });
    expect(atLimit.cellCount).toBe(0);
    expect(atLimit.overflowSize).toBe(1);
    expect(atLimit.queryPoint(2500, 2500)).toEqual(['box']);
    expect(retainedBytes(atLimit)).toBeLessThan(64 * 1024);
  });

  it('refuses every bad cellSize and maxCellsPerItem with an Error naming the field', () => {
    const data = good();
    for (const cellSize of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '1', null, undefined]) {
      expect(() => SpatialHash2D.from({ ...data, cellSize } as never), String(cellSize)).toThrow(
        /from: invalid SpatialHash data: cellSize/,
      );
    }
    for (const maxCellsPerItem of [0, -1, 2.5, 4097, 1e15, Number.NaN, Number.POSITIVE_INFINITY, '8', null]) {
      expect(() => SpatialHash2D.from({ ...data, maxCellsPerItem } as never), String(maxCellsPerItem)).toThrow(
        /from: invalid SpatialHash data: maxCellsPerItem/,
      );
    }
  });

  it('a typed array whose length getter lies is measured by its real length', () => {
    class Liar extends Int32Array {
      override get length(): number {
        return 1 << 20;
      }
    }
    const data = good();
    const n = data.ids.length;
    const lying = {
      ...data,
      ids: new Liar(data.ids),
      items: new Array(1 << 20),
      categories: new Liar(n),
      masks: new Liar(n),
      idLimit: (1 << 20) + data.freeIds.length,
    };
    expect(() => SpatialHash2D.from(lying as never)).toThrow(/from: invalid SpatialHash data: items/);
  });

  it('keeps from() within 600 bytes per id and per covered cell', () => {
    for (const dim of [2, 3] as const) {
      const hash = dim === 2 ? new SpatialHash2D<number>({ cellSize: 1 }) : new SpatialHash3D<number>({ cellSize: 1 });
      const insert = hash.insert as (item: number, ...box: number[]) => number;
      let cells = 0;
      for (let i = 0; i < 200; i++) {
        const side = i % 5;
        insert.call(hash, i, ...Array(dim).fill(i * 10), ...Array(dim).fill(i * 10 + side));
        cells += (side + 1) ** dim;
      }
      const data = hash.toData();
      const copy = dim === 2 ? SpatialHash2D.from(data) : SpatialHash3D.from(data);
      expect(retainedBytes(copy)).toBeLessThanOrEqual(600 * (data.idLimit + 64) + 600 * cells);
    }
  });
});
