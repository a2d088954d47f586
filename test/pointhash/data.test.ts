import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PointHash2D, PointHash3D, type PointHashData } from '../../src/index.js';

/** Everything a snapshot must carry over, read through the public API. */
function state(hash: PointHash2D<unknown> | PointHash3D<unknown>): unknown[] {
  const rows: unknown[] = [];
  hash.forEach((item, id) => {
    rows.push([id, item, hash.positionById(id), hash.categoryOf(id), hash.maskOf(id)]);
  });
  return rows;
}

describe('PointHash toData / from', () => {
  it('restores ids, positions, filters, far points and the order of id reuse (2D, property)', () => {
    const coordinate = fc.oneof(
      fc.double({ min: -50, max: 50, noNaN: true }),
      fc.constantFrom(-1e300, 1e300, 0, -0, 4, -4),
    );
    const step = fc.record({
      kind: fc.constantFrom('insert', 'insert', 'remove', 'filter'),
      x: coordinate,
      y: coordinate,
      pick: fc.nat(),
      bits: fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.boolean(), (steps, tracked) => {
        const hash = new PointHash2D<number>({ cellSize: 4, trackItems: tracked });
        let next = 0;
        const live: number[] = [];
        for (const s of steps) {
          if (s.kind === 'insert' || live.length === 0) live.push(hash.insert(next++, s.x, s.y));
          else if (s.kind === 'remove') hash.removeById(live.splice(s.pick % live.length, 1)[0]);
          else hash.setFilterById(live[s.pick % live.length], s.bits, ~s.bits);
        }
        const copy = PointHash2D.from<number>(structuredClone(hash.toData()), { trackItems: tracked });
        copy.validate();
        expect(state(copy)).toEqual(state(hash));
        expect(copy.cellSize).toBe(hash.cellSize);
        // Free ids come back in the same order.
        for (let k = 0; k < 5; k++) expect(copy.insert(next + k, k, k)).toBe(hash.insert(next + k, k, k));
        expect(copy.queryRadius(0, 0, 30).sort()).toEqual(hash.queryRadius(0, 0, 30).sort());
      }),
      { seed: 4101, numRuns: 150 },
    );
  });

  it('round-trips a 3D hash and encodes / decodes items that are objects', () => {
    const hash = new PointHash3D<{ name: string }>({ cellSize: 2 });
    const things = ['a', 'b', 'c', 'd'].map((name) => ({ name }));
    const ids = things.map((t, i) => hash.insert(t, i, -i, 1e300 * (i % 2), { category: 1 << i, mask: 5 }));
    hash.removeById(ids[1]);
    expect(() => hash.toData()).toThrow(/encodeItem/);
    const data = hash.toData({ encodeItem: (item) => item.name });
    expect(data.items).toEqual(['a', 'c', 'd']);
    const copy = PointHash3D.from(data, { decodeItem: (value) => ({ name: value as string }) });
    copy.validate();
    expect(state(copy)).toEqual(state(hash));
    expect(copy.nearest(3, -3, 1e300)[0]).toEqual({ name: 'd' });
    expect(copy.insert({ name: 'e' }, 0, 0, 0)).toBe(hash.insert({ name: 'e' }, 0, 0, 0));
  });

  it('from() rejects malformed data with an Error saying what is wrong', () => {
    const hash = new PointHash2D<number>({ cellSize: 1 });
    hash.insert(7, 0, 0);
    hash.insert(8, 2, 2);
    const good = hash.toData();
    const broken: [string, unknown, RegExp][] = [
      ['not an object', 42, /expected an object/],
      ['a box hash snapshot', { ...good, format: 'spatialhash' }, /format/],
      ['wrong version', { ...good, version: 2 }, /version/],
      ['wrong dimension', { ...good, dimension: 3 }, /dimension/],
      ['short positions', { ...good, positions: new Float64Array(3) }, /positions/],
      ['a position that is not finite', { ...good, positions: new Float64Array([0, Number.NaN, 2, 2]) }, /finite/],
      ['repeated id', { ...good, ids: new Int32Array([0, 0]) }, /repeated/],
      ['repeated item', { ...good, items: [7, 7] }, /twice/],
      ['free id in use', { ...good, idLimit: 3, freeIds: new Int32Array([1]) }, /freeIds/],
      ['bad cell size', { ...good, cellSize: -1 }, /cellSize/],
    ];
    for (const [what, data, message] of broken) {
      expect(() => PointHash2D.from(data as PointHashData), what).toThrow(message);
    }
    expect(() => PointHash3D.from(good)).toThrow(/dimension/);
    expect(() => PointHash2D.from(good, { decodeItem: 5 as never })).toThrow(RangeError);
    expect(() => hash.toData({ encodeItem: 'x' as never })).toThrow(/encodeItem must be a function/);
  });
});
