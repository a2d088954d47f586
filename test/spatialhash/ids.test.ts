/**
 * Ids, collision filters, predicates, forEachOverlap, toData / from and argument
 * counts of SpatialHash2D and SpatialHash3D: the seeded model-based properties
 * of test/support/hash-ids.ts, and hand-written cases for the rules they cannot
 * reach (re-entry from predicates and visitors, encoders, malformed snapshots).
 */

import { describe, expect, it } from 'vitest';
import { PointHash2D, PointHash3D, SpatialHash2D, SpatialHash3D } from '../../src/index.js';
import { describeIdProperties, type LooseFactory, type LooseHash } from '../support/hash-ids.js';
import { expectRangeError } from '../support/hash-properties.js';

type Options = { cellSize: number; maxCellsPerItem?: number; initialCapacity?: number };

const factory2: LooseFactory = {
  make: (options: Options) => new SpatialHash2D<unknown>(options) as unknown as LooseHash,
  from: (data, options) => SpatialHash2D.from(data as never, options as never) as unknown as LooseHash,
};
const factory3: LooseFactory = {
  make: (options: Options) => new SpatialHash3D<unknown>(options) as unknown as LooseHash,
  from: (data, options) => SpatialHash3D.from(data as never, options as never) as unknown as LooseHash,
};

describeIdProperties(2, factory2);
describeIdProperties(3, factory3);

describe('argument counts', () => {
  it('3D insert with 4 or 5 numbers is a RangeError and changes nothing (issue 11)', () => {
    const hash = new SpatialHash3D<string>({ cellSize: 1 });
    expectRangeError(() => (hash.insert as (...a: unknown[]) => number)('a', 0, 0, 1, 1), ['insert'], [4]);
    expectRangeError(() => (hash.insert as (...a: unknown[]) => number)('a', 0, 0, 1, 1, 1), ['insert'], [5]);
    expect(hash.size).toBe(0);
    expect(hash.has('a')).toBe(false);
    hash.validate();
  });

  it('2D insert with 3 numbers is a RangeError', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1 });
    expectRangeError(() => (hash.insert as (...a: unknown[]) => number)('a', 0, 0, 1), ['insert'], [3]);
    expect(hash.size).toBe(0);
  });
});

describe('predicates and visitors', () => {
  const scene = () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1 });
    hash.insert('me', 0, 0, 1, 1);
    hash.insert('wall', 3, -1, 4, 2);
    hash.insert('far', 10, 0, 11, 1);
    return hash;
  };

  it('"not myself": raycast and nearest skip the item the predicate rejects, exactly', () => {
    const hash = scene();
    const notMe = (item: string) => item !== 'me';
    expect(hash.raycast(0.5, 0.5, 1, 0)?.item).toBe('me');
    expect(hash.raycast(0.5, 0.5, 1, 0, Number.POSITIVE_INFINITY, -1, notMe)).toEqual({ item: 'wall', distance: 2.5 });
    expect(hash.nearest(0.5, 0.5, 2, Number.POSITIVE_INFINITY, [], -1, notMe)).toEqual(['wall', 'far']);
  });

  it('a predicate may read the hash but not query or change it; the hash stays usable', () => {
    const hash = scene();
    const id = hash.idOf('wall');
    expect(() =>
      hash.nearest(0, 0, 3, Number.POSITIVE_INFINITY, [], -1, () => hash.queryBox(0, 0, 1, 1).length > 0),
    ).toThrow(/inside a predicate/);
    expect(() => hash.raycast(0, 0, 1, 0, 100, -1, () => hash.nearest(0, 0).length > 0)).toThrow(/inside a predicate/);
    expect(() => hash.raycast(0, 0, 1, 0, 100, -1, () => hash.removeById(id) !== '')).toThrow(/cannot change/);
    expect(hash.raycast(0.5, 0.5, 1, 0, 100, -1, (item, i) => hash.itemById(i) === item && item !== 'me')?.item).toBe(
      'wall',
    );
    expect(hash.queryBox(-10, -10, 20, 20).sort()).toEqual(['far', 'me', 'wall']);
    hash.removeById(id);
    hash.validate();
  });

  it('a predicate may not start a nearest or ray cast of another hash of its family: they share one search state', () => {
    // A nearest of another hash from inside a predicate overwrote the outer search's state (heap, query point,
    // verdicts), which then answered a farther item (found by test/fuzz/hash-stateful: issue 39).
    const hash = scene();
    const other = new SpatialHash3D<string>({ cellSize: 1 });
    other.insert('box', 0, 0, 0, 1, 1, 1);
    const all = Number.POSITIVE_INFINITY;
    expect(() => hash.nearest(5, 0, 1, all, [], -1, () => other.nearest(0, 0, 0).length >= 0)).toThrow(
      /nearest cannot run inside a nearest predicate \(of any SpatialHash2D or SpatialHash3D\)/,
    );
    expect(() => hash.raycast(0.5, 0.5, 1, 0, 100, -1, () => other.raycast(0, 0, 0, 1, 0, 0) !== undefined)).toThrow(
      /raycast: a ray cast cannot run inside a ray cast's predicate/,
    );
    expect(() =>
      hash.raycastAll(0.5, 0.5, 1, 0, 100, [], -1, () => other.raycastAll(0, 0, 0, 1, 0, 0).length >= 0),
    ).toThrow(/raycastAll: a ray cast cannot run inside a ray cast's predicate/);
    const points = new PointHash2D<string>({ cellSize: 1 });
    const pointsToo = new PointHash3D<string>({ cellSize: 1 });
    points.insert('near', 0, 0);
    points.insert('far', 0, 1);
    pointsToo.insert('p', 0, 0, 0);
    expect(() => points.nearest(5, -3.25, 1, all, [], -1, () => pointsToo.nearest(0, 0, 0).length >= 0)).toThrow(
      /nearest cannot run inside a nearest predicate \(of any PointHash2D or PointHash3D\)/,
    );
    // Each family has its own search state: the other family's nearest, and a ray cast in a nearest predicate, run.
    const inner: unknown[] = [];
    const found = hash.nearest(5, 0, 1, all, [], -1, (item) => {
      inner.push(points.nearest(0, -2.75, 1)[0], other.raycast(0.5, 0.5, -5, 0, 0, 1)?.item);
      return item !== 'wall';
    });
    expect(found).toEqual(['me']);
    expect(inner.slice(0, 2)).toEqual(['near', 'box']);
    expect(points.nearest(5, -3.25, 1, all, [], -1, () => hash.nearest(0, 0).length > 0)).toEqual(['near']);
    // Every hash is usable after the refusals.
    expect(hash.nearest(5, 0, 2)).toEqual(['wall', 'me']);
    expect(points.nearest(5, -3.25, 2)).toEqual(['near', 'far']);
    hash.validate();
    points.validate();
  });

  it('forEachOverlap visits each overlap once, stops early, and refuses nested box queries and changes', () => {
    const hash = scene();
    const seen: string[] = [];
    expect(hash.forEachOverlap(-5, -5, 20, 5, (item) => void seen.push(item))).toBe(false);
    expect(seen.sort()).toEqual(['far', 'me', 'wall']);
    let calls = 0;
    expect(hash.forEachOverlap(-5, -5, 20, 5, () => ++calls === 2)).toBe(true);
    expect(calls).toBe(2);
    expect(() => hash.forEachOverlap(-5, -5, 20, 5, () => void hash.queryRadius(0, 0, 1))).toThrow(/forEachOverlap/);
    expect(() => hash.forEachOverlap(-5, -5, 20, 5, () => void hash.insert('new', 0, 0))).toThrow(/cannot change/);
    // queryPoint needs no stamps, so it may run inside.
    hash.forEachOverlap(-5, -5, 20, 5, () => void hash.queryPoint(0, 0));
    expect(hash.queryRadius(0, 0, 0.5)).toEqual(['me']);
    hash.validate();
  });
});

describe('moves', () => {
  it('a move by one cell keeps the slots of the cells still covered', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1 });
    const id = hash.insert('box', 0.5, 0.5, 2.5, 2.5);
    // cell -> who owns the item's slot there: its home, or an entry number.
    const owners = () => {
      const list = new Map<string, string>();
      const key = (cell: number) => `${hash.cells.keys[cell * 2]},${hash.cells.keys[cell * 2 + 1]}`;
      list.set(key(hash.itemLinks[id * 4 + 1]), 'home');
      for (let e = hash.itemLinks[id * 4 + 2]; e !== -1; e = hash.entryItemNext[e]) {
        list.set(key(hash.entryCell[e]), `entry ${e}`);
      }
      return list;
    };
    const before = owners();
    expect(before.size).toBe(9);
    expect(before.get('0,0')).toBe('home');
    hash.updateById(id, 1.5, 0.5, 3.5, 2.5);
    const after = owners();
    expect(after.size).toBe(9);
    const kept = [...after.keys()].filter((cell) => before.has(cell));
    expect(kept.length).toBe(6);
    // The home's cell (0, 0) was left, so one kept entry became the home; the
    // other 5 kept cells keep their entries: only the 3 cells left and the 3
    // entered changed.
    expect(kept.filter((cell) => after.get(cell) === before.get(cell)).length).toBe(5);
    expect([...after.values()].filter((owner) => owner === 'home').length).toBe(1);
    hash.validate();
    expect(hash.queryPoint(0.5, 1)).toEqual([]);
    expect(hash.queryPoint(3.4, 1)).toEqual(['box']);
  });
});

describe('filters of reused ids', () => {
  // insert does not write the default filter: a free id must already hold it.
  it('an id freed by remove or clear comes back with the default category and mask', () => {
    for (const hash of [new SpatialHash2D<string>({ cellSize: 1 }), new SpatialHash3D<string>({ cellSize: 1 })]) {
      const insert = (item: string, filter?: { category: number; mask: number }) =>
        hash instanceof SpatialHash2D ? hash.insert(item, 0, 0, filter) : hash.insert(item, 0, 0, 0, filter);
      const a = insert('a', { category: 4, mask: 2 });
      const b = insert('b');
      hash.setFilterById(b, 8, 8);
      hash.removeById(a);
      const c = insert('c');
      expect(c).toBe(a);
      expect([hash.categoryOf(c), hash.maskOf(c)]).toEqual([1, 0xffffffff]);
      hash.validate();
      hash.clear();
      const d = insert('d');
      expect([hash.categoryOf(d), hash.maskOf(d)]).toEqual([1, 0xffffffff]);
      const e = insert('e');
      expect([hash.categoryOf(e), hash.maskOf(e)]).toEqual([1, 0xffffffff]);
      expect(new Set([d, e])).toEqual(new Set([a, b]));
      hash.validate();
    }
  });
});

describe('fresh ids past a growth', () => {
  // Growth fills nothing and clear resets only the ids it used: every id at
  // or past the old limit must still come out unlinked and unfiltered.
  it('after clear, ids that held filters, overflow and several cells come back clean', () => {
    const hash = new SpatialHash2D<number>({ cellSize: 1, maxCellsPerItem: 4, initialCapacity: 0 });
    for (let i = 0; i < 100; i++) {
      // Every third box is too big for its cells (overflow), every other spans 4 cells.
      const size = i % 3 === 0 ? 9 : i % 2 === 0 ? 1.5 : 0;
      hash.insert(i, i, -i, i + size, -i + size, { category: 1 << (i % 31), mask: i });
    }
    expect(hash.overflowSize).toBeGreaterThan(0);
    hash.validate();
    hash.clear();
    hash.validate();
    // Twice as many: the second half grows the arrays again, past the ids used before.
    const ids: number[] = [];
    for (let i = 0; i < 200; i++) ids.push(hash.insert(i, i * 2, 0));
    for (const id of ids) expect([hash.categoryOf(id), hash.maskOf(id)]).toEqual([1, 0xffffffff]);
    expect(hash.overflowSize).toBe(0);
    hash.validate();
    expect(hash.queryBox(0, 0, 10, 0).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('from() gives the free ids below the limit no links and the default filter', () => {
    const hash = new SpatialHash2D<number>({ cellSize: 1 });
    const ids = Array.from({ length: 40 }, (_, i) => hash.insert(i, i, 0, i + 2, 2, { category: 2, mask: 2 }));
    for (const id of ids.filter((_, i) => i % 4 !== 0)) hash.removeById(id);
    const copy = SpatialHash2D.from(hash.toData());
    copy.validate();
    for (let i = 0; i < 30; i++) {
      const id = copy.insert(100 + i, 0, 0);
      expect([copy.categoryOf(id), copy.maskOf(id)]).toEqual([1, 0xffffffff]);
    }
    copy.validate();
  });
});

describe('toData / from', () => {
  it('objects round-trip through encodeItem / decodeItem and keep their ids', () => {
    const hash = new SpatialHash3D<{ name: string }>({ cellSize: 2, maxCellsPerItem: 4 });
    const things = ['a', 'b', 'c', 'd'].map((name) => ({ name }));
    const ids = things.map((t, i) => hash.insert(t, i, 0, 0, i + 1, 1, 1, { category: 1 << i, mask: 0b0101 }));
    hash.removeById(ids[1]);
    expect(() => hash.toData()).toThrow(/encodeItem/);
    const data = structuredClone(hash.toData({ encodeItem: (t) => t.name }));
    const byName = new Map(things.map((t) => [t.name, t]));
    const copy = SpatialHash3D.from(data, { decodeItem: (name) => byName.get(name as string) as { name: string } });
    copy.validate();
    for (const i of [0, 2, 3]) {
      expect(copy.itemById(ids[i])).toBe(things[i]);
      expect(copy.categoryOf(ids[i])).toBe(1 << i);
      expect(copy.maskOf(ids[i])).toBe(0b0101);
    }
    expect(copy.hasId(ids[1])).toBe(false);
    expect(copy.cellSize).toBe(2);
    expect(copy.maxCellsPerItem).toBe(4);
    expect(copy.insert({ name: 'e' }, 0, 0, 0)).toBe(hash.insert({ name: 'e' }, 0, 0, 0));
  });

  it('from() rejects malformed data with an Error saying what is wrong', () => {
    const hash = new SpatialHash2D<number>({ cellSize: 1 });
    hash.insert(7, 0, 0, 1, 1);
    hash.insert(8, 2, 2);
    const good = hash.toData();
    const broken: [string, unknown, RegExp][] = [
      ['not an object', 42, /expected an object/],
      ['wrong version', { ...good, version: 2 }, /version/],
      ['wrong dimension', { ...good, dimension: 3 }, /dimension/],
      ['short boxes', { ...good, boxes: new Float64Array(3) }, /boxes/],
      ['repeated id', { ...good, ids: new Int32Array([0, 0]) }, /repeated/],
      ['unordered box', { ...good, boxes: new Float64Array([1, 0, 0, 1, 2, 2, 2, 2]) }, /box of id 0/],
      ['repeated item', { ...good, items: [7, 7] }, /twice/],
      ['bad cell size', { ...good, cellSize: -1 }, /cellSize/],
    ];
    for (const [what, data, message] of broken) {
      expect(() => SpatialHash2D.from(data as never), what).toThrow(message);
    }
    expect(() => SpatialHash3D.from(good)).toThrow(/dimension/);
  });
});
