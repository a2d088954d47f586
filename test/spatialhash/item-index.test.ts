/**
 * The item -> id index behind trackItems: int32 items live in an array indexed
 * by the key while the keys are small and dense, then (after the first key
 * that does not fit) in an open-addressing table; everything else lives in a
 * Map. Checked against a plain Map
 * (SameValueZero) through seeded sequences of sets, deletes, lookups and
 * clears, with keys chosen to collide: runs of consecutive integers, multiples
 * of large powers of two (same low bits), 0 and -0, the int32 bounds, and
 * numbers just outside int32 or not integers, which must go to the Map.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ItemIndex } from '../../src/spatialhash/item-index.js';

const shared = { id: 'object' };
const key = fc.oneof(
  fc.integer({ min: -40, max: 40 }),
  fc.integer({ min: -8, max: 8 }).map((n) => n * 2 ** 20),
  fc.integer({ min: -3, max: 3 }).map((n) => n * 2 ** 28),
  fc.constantFrom(-0, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 0.5, -1.5, Number.NaN, 1e300),
  fc.constantFrom('0', '', 'a', shared, true),
);

type Step = { op: 'set' | 'delete' | 'get'; key: unknown } | { op: 'clear' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('set' as const), key }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('delete' as const), key }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('get' as const), key }) },
  { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
);

/**
 * Runs `steps` on a fresh index and on a Map, comparing after every step (and
 * every stored item at the end); returns both.
 */
function replay(steps: Step[]): { index: ItemIndex<unknown>; model: Map<unknown, number> } {
  const index = new ItemIndex<unknown>();
  const model = new Map<unknown, number>();
  let next = 0;
  for (const s of steps) {
    if (s.op === 'clear') {
      index.clear();
      model.clear();
    } else if (s.op === 'set' && !model.has(s.key)) {
      // The index's contract: set only absent items.
      index.set(s.key, next);
      model.set(s.key, next++);
    } else if (s.op === 'delete') {
      index.delete(s.key);
      model.delete(s.key);
    }
    if (s.op !== 'clear') {
      expect(index.get(s.key)).toBe(model.get(s.key) ?? -1);
      expect(index.has(s.key)).toBe(model.has(s.key));
    }
    expect(index.size).toBe(model.size);
  }
  for (const [k, id] of model) expect(index.get(k)).toBe(id);
  return { index, model };
}

describe('ItemIndex', () => {
  it('agrees with a Map through sets, deletes, lookups and clears (seed 0x17e3)', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 400 }), (steps) => {
        replay(steps);
      }),
      { seed: 0x17e3, numRuns: 300 },
    );
  });

  it('agrees with a Map while the keys stay dense, and after a far key turns the array into the table (seed 0x17e4)', () => {
    // Mostly small non-negative keys (the dense array, grown many times), now
    // and then a key past the array's limit or a negative one: from then on the table.
    const denseKey = fc.oneof(
      { weight: 30, arbitrary: fc.integer({ min: 0, max: 600 }) },
      { weight: 1, arbitrary: fc.constantFrom(-1, -0, 5000, 2 ** 20, 2 ** 31 - 1, 'x') },
    );
    const denseStep: fc.Arbitrary<Step> = fc.oneof(
      { weight: 8, arbitrary: fc.record({ op: fc.constant('set' as const), key: denseKey }) },
      { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), key: denseKey }) },
      { weight: 3, arbitrary: fc.record({ op: fc.constant('get' as const), key: denseKey }) },
      { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
    );
    fc.assert(
      fc.property(fc.array(denseStep, { maxLength: 600 }), (steps) => {
        const { index, model } = replay(steps);
        for (let k = -2; k < 700; k++) expect(index.get(k)).toBe(model.get(k) ?? -1);
      }),
      { seed: 0x17e4, numRuns: 200 },
    );
  });

  it('keeps every id through growth and deletes in the middle of probe runs', () => {
    const index = new ItemIndex<number>();
    // Consecutive keys and keys sharing their low bits, interleaved, past several growths.
    const keys: number[] = [];
    for (let i = 0; i < 3000; i++) keys.push(i % 2 === 0 ? i : (i << 18) | 1);
    for (let i = 0; i < keys.length; i++) index.set(keys[i], i);
    for (let i = 0; i < keys.length; i += 3) index.delete(keys[i]);
    expect(index.size).toBe(keys.length - Math.ceil(keys.length / 3));
    for (let i = 0; i < keys.length; i++) expect(index.get(keys[i])).toBe(i % 3 === 0 ? -1 : i);
    // Key 0 was deleted above (its index is a multiple of 3); -0 is the same key.
    index.set(-0, 7);
    expect(index.get(0)).toBe(7);
    index.clear();
    expect(index.size).toBe(0);
    expect(index.get(keys[1])).toBe(-1);
  });
});

describe('ItemIndex probes are bounded whatever its memory holds (issue 31)', () => {
  it('with every pair of the hashed table overwritten, lookups and deletes end and a set throws an Error', () => {
    const index = new ItemIndex<number>();
    // A key far past the dense range turns the index into the hashed table.
    for (const k of [5, -7, 1 << 30, 12]) index.set(k, k & 0xff);
    const table = (index as unknown as { table: Int32Array }).table;
    // Every pair holds key 99 with id 1: no empty pair ends a probe.
    for (let i = 0; i < table.length; i += 2) {
      table[i] = 99;
      table[i + 1] = 1;
    }
    expect(index.get(99)).toBe(1);
    expect(index.get(5)).toBe(-1);
    expect(index.has(-7)).toBe(false);
    index.delete(12);
    expect(() => index.set(1234567, 3)).toThrow(/ItemIndex: no empty pair .* overwritten/);
  });
});
