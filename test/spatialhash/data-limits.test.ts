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
import fc from 'fast-check';
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

describe('SpatialHash from() has a budget of cells (issue 31: the memory of from() stays bounded by its data)', () => {
  /**
   * A snapshot of `n` boxes each covering sides[a] cells along axis a, apart from each other, with
   * maxCellsPerItem at the limit: 12 + 16 x dim bytes of typed arrays per item.
   */
  function snapshot(dim: 2 | 3, n: number, sides: number[]): SpatialHashData {
    const boxes = new Float64Array(n * 2 * dim);
    for (let i = 0; i < n; i++) {
      for (let a = 0; a < dim; a++) {
        const at = a === 0 ? i * 2 * sides[0] : 0;
        boxes[i * 2 * dim + a] = at + 0.5;
        boxes[i * 2 * dim + dim + a] = at + sides[a] - 0.5;
      }
    }
    return {
      format: 'spatialhash',
      version: 1,
      dimension: dim,
      cellSize: 1,
      maxCellsPerItem: MAX_CELLS_PER_ITEM_LIMIT,
      idLimit: n,
      ids: Int32Array.from({ length: n }, (_, i) => i),
      items: Array.from({ length: n }, (_, i) => i),
      boxes,
      categories: new Int32Array(n).fill(1),
      masks: new Int32Array(n).fill(-1),
      freeIds: new Int32Array(0),
    };
  }
  const from = (dim: 2 | 3, data: SpatialHashData, options?: object) =>
    dim === 2 ? SpatialHash2D.from<number>(data, options) : SpatialHash3D.from<number>(data, options);
  /** Sides of a box of 4096 cells, the limit per item. */
  const atLimit = (dim: 2 | 3) => (dim === 2 ? [64, 64] : [16, 16, 16]);

  it.each([2, 3] as const)('%iD: a small hostile snapshot is refused before anything is built', (dim) => {
    // 200 items of 4096 cells: 819,200 cells (about 100 MB to build) from about 10 KB of typed arrays.
    const data = snapshot(dim, 200, atLimit(dim));
    let decoded = 0;
    const decodeItem = (value: unknown) => {
      decoded++;
      return value as number;
    };
    expect(() => from(dim, data, { decodeItem })).toThrow(
      'from: invalid SpatialHash data: its items cover 819200 cells, more than maxCells (65536); from(data, { maxCells }) allows more, for data you trust',
    );
    // Refused by the count alone: no item was read, so no hash was filled.
    expect(decoded).toBe(0);
    // The 1 MB: 20,000 such items would have been 80 million cells.
    expect(() => from(dim, snapshot(dim, 20_000, atLimit(dim)), { decodeItem })).toThrow(
      /its items cover 81920000 cells, more than maxCells \(320000\)/,
    );
    expect(decoded).toBe(0);
  });

  it.each([2, 3] as const)('%iD: maxCells sets the budget; the default is 16 cells an item, at least 65,536', (dim) => {
    // 20 items of 4096 cells: 81,920 cells, over the floor of 65,536.
    const data = snapshot(dim, 20, atLimit(dim));
    expect(() => from(dim, data)).toThrow(/its items cover 81920 cells, more than maxCells \(65536\)/);
    expect(() => from(dim, data, { maxCells: 81_919 })).toThrow(/more than maxCells \(81919\)/);
    expect(from(dim, data, { maxCells: 81_920 }).cellCount).toBe(81_920);
    expect(from(dim, data, { maxCells: Number.POSITIVE_INFINITY }).cellCount).toBe(81_920);
    // 16 items at the limit fit the floor.
    expect(from(dim, snapshot(dim, 16, atLimit(dim))).cellCount).toBe(65_536);
    // 5,000 items of 16 cells each (80,000) fit 16 an item; of 20 cells each (100,000), not.
    const sixteen = dim === 2 ? [4, 4] : [4, 2, 2];
    const twenty = dim === 2 ? [5, 4] : [5, 2, 2];
    expect(from(dim, snapshot(dim, 5000, sixteen)).cellCount).toBe(80_000);
    expect(() => from(dim, snapshot(dim, 5000, twenty))).toThrow(/cover 100000 cells, more than maxCells \(80000\)/);
    // Items of the overflow list count no cells.
    const overflowing = snapshot(
      dim,
      100,
      atLimit(dim).map((side, a) => (a === 0 ? side + 1 : side)),
    );
    expect(from(dim, overflowing).overflowSize).toBe(100);
  });

  it('refuses a bad maxCells with a RangeError naming it', () => {
    const data = snapshot(2, 3, [2, 2]);
    for (const maxCells of [-1, 1.5, Number.NaN, '5', null, Number.NEGATIVE_INFINITY]) {
      expect(() => from(2, data, { maxCells }), String(maxCells)).toThrow(RangeError);
      expect(() => from(2, data, { maxCells }), String(maxCells)).toThrow(
        /maxCells must be an integer >= 0 or Infinity/,
      );
    }
    expect(() => from(2, data, { maxCells: 11 })).toThrow(/cover 12 cells, more than maxCells \(11\)/);
    expect(from(2, data, { maxCells: 12 }).size).toBe(3);
    expect(from(2, snapshot(2, 0, [1, 1]), { maxCells: 0 }).size).toBe(0);
  });

  it.each([2, 3] as const)('%iD: seeded hashes with the advised cell size round-trip under the default', (dim) => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            at: fc.array(fc.double({ min: -1e4, max: 1e4, noNaN: true }), { minLength: 3, maxLength: 3 }),
            size: fc.array(fc.double({ min: 0, max: 2, noNaN: true }), { minLength: 3, maxLength: 3 }),
          }),
          { maxLength: 300 },
        ),
        fc.constantFrom(0.001, 1, 1e6),
        (boxes, scale) => {
          // A cell size twice the largest object: at most 2 cells an axis.
          const cellSize = 4 * scale;
          const hash = dim === 2 ? new SpatialHash2D<number>({ cellSize }) : new SpatialHash3D<number>({ cellSize });
          const insert = hash.insert as (item: number, ...box: number[]) => number;
          boxes.forEach((b, i) => {
            const lo = b.at.slice(0, dim).map((v) => v * scale);
            insert.call(hash, i, ...lo, ...lo.map((v, a) => v + b.size[a] * scale));
          });
          const data = hash.toData();
          const copy = dim === 2 ? SpatialHash2D.from<number>(data) : SpatialHash3D.from<number>(data);
          copy.validate();
          expect(copy.size).toBe(hash.size);
          expect(copy.cellCount).toBe(hash.cellCount);
          expect(copy.toData()).toEqual(data);
        },
      ),
      { seed: 31, numRuns: 60 },
    );
  });
});
