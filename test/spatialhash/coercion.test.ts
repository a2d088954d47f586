/**
 * Issue 31: arguments that are not numbers. `null`, numeric strings such as
 * '0x10', booleans and bigints once went through the box checks of insert,
 * update, updateById, queryBox and forEachOverlap (`null <= null` and
 * `'0x10' - '0x10' === 0` pass, a bigint failed later with a TypeError), so
 * `null` was stored at 0 and '0x10' at 16. Every method now gives a
 * RangeError naming the argument, as the other methods always did, and the
 * hash stays exactly as it was.
 */
import { describe, expect, it } from 'vitest';
import { SpatialHash2D, SpatialHash3D } from '../../src/index.js';
import { argumentNames, expectRangeError } from '../support/hash-properties.js';

/** Values that are not numbers but that JavaScript's operators turn into one. */
const NOT_NUMBERS: unknown[] = [null, '0x10', '1', '', true, false, 1n, 0n, [], [3], {}, { valueOf: () => 2 }];

type AnyHash = SpatialHash2D<string> | SpatialHash3D<string>;

/** What a caller can observe of a hash: every item's id and box, and what queries see. */
function state(hash: AnyHash, dim: 2 | 3): unknown {
  const boxes: unknown[] = [];
  for (const item of [...hash].sort()) boxes.push([item, hash.idOf(item), hash.getBox(item)]);
  const all =
    dim === 2
      ? (hash as SpatialHash2D<string>).queryBox(-1e9, -1e9, 1e9, 1e9)
      : (hash as SpatialHash3D<string>).queryBox(-1e9, -1e9, -1e9, 1e9, 1e9, 1e9);
  return { size: hash.size, boxes, all: all.sort() };
}

describe.each([2, 3] as const)('SpatialHash%iD arguments that are not numbers', (dim) => {
  const names = argumentNames(dim).box;
  const make = (): AnyHash => {
    const hash = dim === 2 ? new SpatialHash2D<string>({ cellSize: 4 }) : new SpatialHash3D<string>({ cellSize: 4 });
    const insert = hash.insert as (item: string, ...args: unknown[]) => number;
    insert.call(hash, 'a', ...Array(dim).fill(0), ...Array(dim).fill(2));
    insert.call(hash, 'b', ...Array(dim).fill(16));
    return hash;
  };
  /** Each box method as a call taking the box's 2 x dim arguments. */
  const calls = (hash: AnyHash): [string, (args: unknown[]) => unknown][] => {
    const h = hash as unknown as Record<string, (...args: unknown[]) => unknown>;
    const id = hash.idOf('a');
    return [
      ['insert', (args) => h.insert.call(hash, 'new', ...args)],
      ['update', (args) => h.update.call(hash, 'a', ...args)],
      ['updateById', (args) => h.updateById.call(hash, id, ...args)],
      ['queryBox', (args) => h.queryBox.call(hash, ...args)],
      ['forEachOverlap', (args) => h.forEachOverlap.call(hash, ...args, () => undefined)],
    ];
  };

  it('insert, update, updateById, queryBox and forEachOverlap reject them with a RangeError naming the argument', () => {
    const hash = make();
    const before = state(hash, dim);
    const good = [...Array(dim).fill(0), ...Array(dim).fill(1)];
    for (const [method, call] of calls(hash)) {
      for (let slot = 0; slot < 2 * dim; slot++) {
        for (const value of NOT_NUMBERS) {
          const args: unknown[] = good.slice();
          args[slot] = value;
          const what = `${method} with ${names[slot]} = ${typeof value === 'bigint' ? `${value}n` : JSON.stringify(value)}`;
          let error: unknown;
          try {
            call(args);
          } catch (e) {
            error = e;
          }
          expect(error, what).toBeInstanceOf(RangeError);
          expect((error as Error).message, what).toContain(names[slot]);
        }
      }
    }
    hash.validate();
    expect(state(hash, dim)).toEqual(before);
  });

  it('the point forms of insert, update and updateById reject them too', () => {
    const hash = make();
    const before = state(hash, dim);
    const h = hash as unknown as Record<string, (...args: unknown[]) => unknown>;
    const id = hash.idOf('a');
    for (let axis = 0; axis < dim; axis++) {
      for (const value of NOT_NUMBERS) {
        const args: unknown[] = Array(dim).fill(1);
        args[axis] = value;
        expect(() => h.insert.call(hash, 'new', ...args)).toThrow(RangeError);
        expect(() => h.update.call(hash, 'a', ...args)).toThrow(RangeError);
        expect(() => h.updateById.call(hash, id, ...args)).toThrow(RangeError);
      }
    }
    hash.validate();
    expect(state(hash, dim)).toEqual(before);
  });

  it("quotes the value: null, '0x10' and 1n are not stored at 0, 16 and 1", () => {
    const hash = make();
    const insert = hash.insert as (item: string, ...args: unknown[]) => number;
    expectRangeError(() => insert.call(hash, 'n', null, ...Array(dim - 1).fill(0)), [names[0]], ['null']);
    expectRangeError(() => insert.call(hash, 's', ...Array(dim - 1).fill(0), '0x10'), [names[dim - 1]], ['"0x10"']);
    expectRangeError(() => insert.call(hash, 'g', 1n, ...Array(dim - 1).fill(0)), [names[0]], ['1n']);
    expect(hash.has('n') || hash.has('s') || hash.has('g')).toBe(false);
    expect(hash.size).toBe(2);
  });
});
