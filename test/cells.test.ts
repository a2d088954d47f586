import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CellTable, hashCell2, hashCell3, MAX_CELL_INDEX } from '../src/cells.js';

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

  it('forgets everything on clear', () => {
    const table = new CellTable(2);
    for (let i = 0; i < 100; i++) table.insert2(i, -i);
    table.clear();
    expect(table.size).toBe(0);
    expect(table.find2(3, -3)).toBe(-1);
    expect(table.insert2(3, -3)).toBe(0);
  });
});
