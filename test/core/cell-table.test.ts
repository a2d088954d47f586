import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashCell2, hashCell3, MAX_CELL_INDEX } from '../../src/core/cell-hash.js';
import { CellTable } from '../../src/core/cell-table.js';
import { random } from '../support/random.js';

const SEED = 20261122;

/** A cell coordinate: mostly small (collisions, negatives), sometimes beyond 32 bits. */
const coordinate = fc.oneof(
  fc.integer({ min: -6, max: 6 }),
  fc.integer({ min: -(2 ** 31) - 3, max: -(2 ** 31) + 3 }),
  fc.constantFrom(2 ** 32, 2 ** 32 + 1, -(2 ** 32), 1e12, -1e12, MAX_CELL_INDEX, -MAX_CELL_INDEX),
);

describe('cell hashes', () => {
  it('tell apart cells that differ only above 32 bits', () => {
    expect(hashCell2(1, 0)).not.toBe(hashCell2(1 + 2 ** 32, 0));
    expect(hashCell3(0, 0, 5)).not.toBe(hashCell3(0, 0, 5 - 2 ** 32));
  });
  it('are unsigned 32-bit integers', () => {
    fc.assert(
      fc.property(coordinate, coordinate, coordinate, (x, y, z) => {
        for (const h of [hashCell2(x, y), hashCell3(x, y, z)]) {
          expect(Number.isInteger(h) && h >= 0 && h < 2 ** 32).toBe(true);
        }
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});

describe(`CellTable against a Map (seed ${SEED})`, () => {
  for (const dimension of [2, 3] as const) {
    it(`keeps ids stable through insert / release / growth in ${dimension}D`, () => {
      const op = fc.tuple(fc.boolean(), coordinate, coordinate, coordinate);
      fc.assert(
        fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
          const table = new CellTable(dimension, 1);
          const model = new Map<string, number>();
          for (const [add, x, y, z] of ops) {
            const key = dimension === 2 ? `${x},${y}` : `${x},${y},${z}`;
            const found = dimension === 2 ? table.find2(x, y) : table.find3(x, y, z);
            expect(found).toBe(model.get(key) ?? -1);
            if (add) {
              const id = dimension === 2 ? table.insert2(x, y) : table.insert3(x, y, z);
              if (found >= 0) expect(id).toBe(found);
              expect(id).toBeLessThan(table.capacity);
              model.set(key, id);
            } else if (found >= 0) {
              table.release(found);
              model.delete(key);
            }
            expect(table.size).toBe(model.size);
          }
          for (const [key, id] of model) {
            const [x, y, z] = key.split(',').map(Number);
            expect(dimension === 2 ? table.find2(x, y) : table.find3(x, y, z)).toBe(id);
          }
          expect(new Set(model.values()).size).toBe(model.size);
        }),
        { seed: SEED + dimension, numRuns: 150 },
      );
    });
  }

  it('renumbers the cells of a freshly filled table, keys, hashes and lookups alike', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(2 as const, 3 as const),
        fc.uniqueArray(fc.tuple(coordinate, coordinate, coordinate), {
          minLength: 1,
          maxLength: 300,
          selector: ([x, y, z]) => `${x},${y},${z}`,
        }),
        fc.integer(),
        (dimension, cells, seed) => {
          const table = new CellTable(dimension, 1);
          // 2D takes (x, y) only; repeats of (x, y) are simply found again.
          const ids = cells.map(([x, y, z]) => (dimension === 2 ? table.insert2(x, y) : table.insert3(x, y, z)));
          const count = table.size;
          const newId = Int32Array.from({ length: count }, (_, i) => i);
          const next = random(seed);
          for (let i = count - 1; i > 0; i--) {
            const j = Math.floor(next() * (i + 1));
            [newId[i], newId[j]] = [newId[j], newId[i]];
          }
          const before = Int32Array.from(newId);
          table.renumber(newId);
          expect(newId).toEqual(before);
          cells.forEach(([x, y, z], k) => {
            const id = before[ids[k]];
            expect(dimension === 2 ? table.find2(x, y) : table.find3(x, y, z)).toBe(id);
            expect(table.keys[id * dimension]).toBe(x);
            expect(table.keys[id * dimension + 1]).toBe(y);
            expect(table.hashes[id]).toBe(dimension === 2 ? hashCell2(x, y) : hashCell3(x, y, z));
          });
          // Still a working table: a new cell gets the next id, a released one disappears.
          const fresh = dimension === 2 ? table.insert2(1e9, 1e9) : table.insert3(1e9, 1e9, 1e9);
          expect(fresh).toBe(count);
          table.release(before[ids[0]]);
          const [x, y, z] = cells[0];
          expect(dimension === 2 ? table.find2(x, y) : table.find3(x, y, z)).toBe(-1);
        },
      ),
      { seed: SEED + 7, numRuns: 150 },
    );
  });

  it('forgets everything on clear', () => {
    const table = new CellTable(2);
    for (let i = 0; i < 100; i++) table.insert2(i, -i);
    table.clear();
    expect(table.size).toBe(0);
    expect(table.find2(3, -3)).toBe(-1);
    expect(table.insert2(3, -3)).toBe(0);
  });
});

/** The table's private slot array (a full one has no empty slot to end a probe). */
function slotsOf(table: CellTable): Int32Array {
  return (table as unknown as { slots: Int32Array }).slots;
}

describe('CellTable probes are bounded whatever its memory holds (issue 31)', () => {
  for (const dimension of [2, 3] as const) {
    it(`${dimension}D: with every slot overwritten, lookups end, and inserts and releases throw an Error`, () => {
      const table = new CellTable(dimension, 16);
      const find = (k: number) => (dimension === 2 ? table.find2(k, -k) : table.find3(k, -k, k));
      const insert = (k: number) => (dimension === 2 ? table.insert2(k, -k) : table.insert3(k, -k, k));
      for (let k = 0; k < 5; k++) insert(k);
      // No empty slot left: every probe used to run on forever.
      slotsOf(table).fill(1);
      expect(find(1)).toBe(1);
      expect(find(3)).toBe(-1);
      expect(find(1e6)).toBe(-1);
      expect(() => insert(1e6)).toThrow(/CellTable: no empty slot .* overwritten/);
      // Id 3 is in no slot now, so its release cannot find it.
      expect(() => table.release(3)).toThrow(/CellTable: cell id 3 is in no slot/);
      // A release whose backward shift meets no empty slot: it stops after one pass.
      table.release(1);
    });
  }

  it('renumber stops on a newId that is not a permutation', () => {
    const table = new CellTable(2, 16);
    for (let k = 0; k < 4; k++) table.insert2(k, k);
    // 0 -> 1 -> 2 -> 1 ...: a cycle that never comes back to 0.
    expect(() => table.renumber(Int32Array.from([1, 2, 1, 3]))).toThrow(/CellTable: renumber/);
  });
});
