/**
 * The `trackItems: false` option: a hash without the item-to-id Map must give
 * the same answers as brute force over a model of its live ids, through
 * inserts, id moves (within and across cells, into and out of overflow),
 * removes, filters, clear and a toData / from round trip; and every item-keyed
 * method must throw a clear Error that leaves the hash as it was.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpatialHash2D, SpatialHash3D } from '../../src/index.js';

type Box = number[];

const coordinate = fc.integer({ min: -16, max: 16 }).map((n) => n / 4);
const size = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 0, max: 12 }).map((n) => n / 4),
  fc.constant(30),
);

function boxArb(dim: 2 | 3): fc.Arbitrary<Box> {
  return fc
    .tuple(fc.array(coordinate, { minLength: dim, maxLength: dim }), fc.array(size, { minLength: dim, maxLength: dim }))
    .map(([lo, extent]) => [...lo, ...lo.map((v, a) => v + extent[a])]);
}

type Command =
  | { op: 'insert'; box: Box; item: number; bits: number }
  | { op: 'move'; pick: number; box: Box }
  | { op: 'remove'; pick: number }
  | { op: 'filter'; pick: number; bits: number }
  | { op: 'clear' };

function commandArb(dim: 2 | 3): fc.Arbitrary<Command> {
  const bits = fc.integer({ min: 1, max: 3 });
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        op: fc.constant('insert' as const),
        box: boxArb(dim),
        item: fc.integer({ min: 0, max: 3 }),
        bits,
      }),
    },
    { weight: 5, arbitrary: fc.record({ op: fc.constant('move' as const), pick: fc.nat(), box: boxArb(dim) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('filter' as const), pick: fc.nat(), bits }) },
    { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
  );
}

function overlaps(a: Box, b: Box, dim: number): boolean {
  for (let i = 0; i < dim; i++) if (a[i] > b[dim + i] || b[i] > a[dim + i]) return false;
  return true;
}

interface Loose {
  insert(item: unknown, ...rest: unknown[]): number;
  updateById(id: number, ...box: number[]): void;
  removeById(id: number): unknown;
  itemById(id: number): unknown;
  setFilterById(id: number, category: number, mask: number): void;
  clear(): void;
  validate(): void;
  size: number;
  forEachPair(visit: (a: unknown, b: unknown) => void): void;
  queryBox(...args: unknown[]): unknown[];
  toData(): unknown;
}

function check(dim: 2 | 3, make: (options: object) => Loose, from: (data: unknown) => Loose): void {
  fc.assert(
    fc.property(
      fc.constantFrom(1, 0.75, 3),
      fc.constantFrom(256, 2),
      fc.array(commandArb(dim), { minLength: 5, maxLength: 60, size: 'max' }),
      (cellSize, maxCellsPerItem, commands) => {
        let hash = make({ cellSize, maxCellsPerItem, initialCapacity: 1, trackItems: false });
        // Model: live id -> item (small integers, so the same item recurs under several ids), box, bits.
        const model = new Map<number, { item: number; box: Box; bits: number }>();
        const pick = (n: number) => [...model.keys()][n % model.size];
        for (const c of commands) {
          if (c.op === 'insert') {
            const id = hash.insert(c.item, ...c.box, { category: c.bits, mask: c.bits });
            expect(model.has(id), `insert returned live id ${id}`).toBe(false);
            model.set(id, { item: c.item, box: c.box, bits: c.bits });
          } else if (c.op === 'clear') {
            hash.clear();
            model.clear();
          } else if (model.size > 0) {
            const id = pick(c.pick);
            const s = model.get(id) as { item: number; box: Box; bits: number };
            if (c.op === 'move') {
              hash.updateById(id, ...c.box);
              s.box = c.box;
            } else if (c.op === 'remove') {
              expect(hash.removeById(id)).toBe(s.item);
              model.delete(id);
            } else {
              hash.setFilterById(id, c.bits, c.bits);
              s.bits = c.bits;
            }
          }
          hash.validate();
          expect(hash.size).toBe(model.size);
        }
        hash = from(structuredClone(hash.toData()));
        hash.validate();
        expect(hash.size).toBe(model.size);
        // Pairs by id pairs: items repeat, so report the pair of ids via itemById on a per-id wrapper.
        const entries = [...model.entries()];
        const expected: string[] = [];
        for (let i = 0; i < entries.length; i++) {
          for (let j = i + 1; j < entries.length; j++) {
            const [, a] = entries[i];
            const [, b] = entries[j];
            if (overlaps(a.box, b.box, dim) && (a.bits & b.bits) !== 0)
              expected.push([a.item, b.item].sort().join('-'));
          }
        }
        const got: string[] = [];
        hash.forEachPair((a, b) => got.push([a, b].sort().join('-')));
        expect(got.sort()).toEqual(expected.sort());
        for (const [, s] of entries) {
          const want = entries
            .filter(([, t]) => overlaps(s.box, t.box, dim))
            .map(([, t]) => t.item)
            .sort();
          expect((hash.queryBox(...s.box) as number[]).sort()).toEqual(want);
        }
      },
    ),
    { seed: 0x7ac0 + dim, numRuns: 150 },
  );
}

describe('trackItems: false', () => {
  it('2D: ids, moves, removes, filters, clear and toData / from match brute force (seeded)', () => {
    check(
      2,
      (o) => new SpatialHash2D<number>(o as never) as unknown as Loose,
      (d) => SpatialHash2D.from(d as never, { trackItems: false }) as unknown as Loose,
    );
  });

  it('3D: ids, moves, removes, filters, clear and toData / from match brute force (seeded)', () => {
    check(
      3,
      (o) => new SpatialHash3D<number>(o as never) as unknown as Loose,
      (d) => SpatialHash3D.from(d as never, { trackItems: false }) as unknown as Loose,
    );
  });

  it('item-keyed methods throw an Error naming the option, and change nothing', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1, trackItems: false });
    expect(hash.trackItems).toBe(false);
    const id = hash.insert('a', 0, 0, 1, 1);
    // Without the Map the same item may be stored again, under a new id.
    const again = hash.insert('a', 5, 5);
    expect(again).not.toBe(id);
    const calls: [string, () => unknown][] = [
      ['has', () => hash.has('a')],
      ['remove', () => hash.remove('a')],
      ['update', () => hash.update('a', 2, 2)],
      ['idOf', () => hash.idOf('a')],
      ['setFilter', () => hash.setFilter('a', 1, 1)],
      ['getBox', () => hash.getBox('a')],
    ];
    for (const [name, call] of calls) {
      expect(call, name).toThrow(new RegExp(`^${name}: .*trackItems: false`));
    }
    hash.validate();
    expect(hash.size).toBe(2);
    expect(hash.boxById(id)).toEqual([0, 0, 1, 1]);
    expect(hash.queryPoint(5, 5)).toEqual(['a']);
    expect(new SpatialHash3D({ cellSize: 1 }).trackItems).toBe(true);
  });

  it('a trackItems that is not a boolean is a RangeError naming it', () => {
    expect(() => new SpatialHash2D({ cellSize: 1, trackItems: 0 as never })).toThrow(RangeError);
    expect(() => new SpatialHash2D({ cellSize: 1, trackItems: 'no' as never })).toThrow(
      /trackItems.*'no'|trackItems.*no/,
    );
  });
});
