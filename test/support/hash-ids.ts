/**
 * Property tests of the game-facing API of SpatialHash2D / SpatialHash3D, shared
 * by both dimensions: stable integer ids (insert's return value, updateById,
 * removeById, itemById, idOf), collision filters (category and mask on items,
 * masks on every query, forEachPair's two-way test), predicates on nearest and
 * the ray casts, forEachOverlap, toData / from, argument counts and the
 * fail-fast for...of. Random command sequences run against a brute-force model;
 * `validate()` and a full comparison follow every step, and every rejected call
 * must leave the hash exactly as it was.
 *
 * The hash is driven through {@link LooseHash}: boxes are spread into the real
 * argument lists, which are the same in 2D and 3D up to the number of coordinates.
 *
 * @module
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Box, boxContainsPoint, boxesIntersect, boxWithinRadius } from './box-oracle.js';
import { expectLogicError, expectRangeError } from './hash-properties.js';
import {
  boxArbitrary,
  directionArbitrary,
  type Entry,
  expectNearest,
  expectNearestHit,
  expectSameHits,
  maxDistanceArbitrary,
  raycastAllOracle,
} from './query-oracle.js';

/** The methods the tests call, with loose argument lists. */
export interface LooseHash {
  readonly size: number;
  insert(...args: unknown[]): number;
  update(...args: unknown[]): void;
  updateById(...args: unknown[]): void;
  remove(item: unknown): boolean;
  removeById(id: unknown): unknown;
  itemById(id: unknown): unknown;
  hasId(id: unknown): boolean;
  idOf(item: unknown): number;
  boxById(id: unknown): number[];
  categoryOf(id: unknown): number;
  maskOf(id: unknown): number;
  setFilter(item: unknown, category: unknown, mask: unknown): void;
  setFilterById(id: unknown, category: unknown, mask: unknown): void;
  clear(): void;
  queryPoint(...args: unknown[]): unknown[];
  queryBox(...args: unknown[]): unknown[];
  queryRadius(...args: unknown[]): unknown[];
  forEachOverlap(...args: unknown[]): boolean;
  nearest(...args: unknown[]): unknown[];
  raycast(...args: unknown[]): { item: unknown; distance: number } | undefined;
  raycastAll(...args: unknown[]): { item: unknown; distance: number }[];
  forEachPair(visit: (a: unknown, b: unknown) => void): void;
  toData(options?: unknown): unknown;
  validate(): void;
  [Symbol.iterator](): Iterator<unknown>;
}

/** How the tests make a hash of one dimension. */
export interface LooseFactory {
  make(options: { cellSize: number; maxCellsPerItem?: number; initialCapacity?: number }): LooseHash;
  from(data: unknown, options?: unknown): LooseHash;
}

/** Items: numbers and strings (so toData needs no encoder), NaN and '' included. */
const POOL: readonly unknown[] = [0, 1, 2, 3, 4, 5, 6, 7, 'a', 'b', 'c', '', -1.5, Number.NaN, 1e300, 'z'];

/** Filter bits worth testing: single layers, unions, none, all (both spellings), the sign bit. */
const BITS = [1, 2, 4, 3, 6, 5, 0, -1, 0xffffffff, 0x80000000, -0x80000000] as const;

/** A stored item in the model. */
interface Stored {
  item: unknown;
  box: number[];
  category: number;
  mask: number;
}

/** The model: what the hash should hold, by id. */
class Model {
  readonly byId = new Map<number, Stored>();
  /** Ids handed out and not in use. */
  readonly free = new Set<number>();
  /** One past the highest id handed out since the last clear. */
  idLimit = 0;

  idOf(item: unknown): number {
    for (const [id, s] of this.byId) if (Object.is(s.item, item) || s.item === item) return id;
    return -1;
  }

  entries(mask = -1, keep: (item: unknown) => boolean = () => true): Entry<unknown>[] {
    const out: Entry<unknown>[] = [];
    for (const s of this.byId.values()) if ((s.category & mask) !== 0 && keep(s.item)) out.push([s.item, s.box]);
    return out;
  }

  /** Records an insert that returned `id`, checking it is a free id or the next new one. */
  inserted(id: number, stored: Stored): void {
    if (this.free.size > 0) expect(this.free.has(id), `insert returned ${id}, not a free id`).toBe(true);
    else expect(id, 'insert with no free id returns the next new id').toBe(this.idLimit);
    this.free.delete(id);
    if (id >= this.idLimit) this.idLimit = id + 1;
    this.byId.set(id, stored);
  }

  removed(id: number): void {
    this.byId.delete(id);
    this.free.add(id);
  }

  clear(): void {
    this.byId.clear();
    this.free.clear();
    this.idLimit = 0;
  }
}

/** One step of a sequence. Items are pool indices; `pick` chooses among live ids (or stale ones). */
type Command =
  | {
      op: 'insert';
      item: number;
      box: number[];
      point: boolean;
      filter: 'none' | 'category' | 'both';
      c: number;
      m: number;
    }
  | { op: 'updateById' | 'updateItem'; pick: number; box: number[]; point: boolean }
  | { op: 'removeById' | 'removeItem'; pick: number }
  | { op: 'setFilterById' | 'setFilterItem'; pick: number; c: number; m: number }
  | { op: 'clear' }
  | { op: 'query'; box: number[]; mask: number | undefined; stopAfter: number }
  | { op: 'nearest'; point: number[]; k: number; maxDistance: number; mask: number | undefined; skip: number }
  | {
      op: 'ray';
      origin: number[];
      direction: number[];
      maxDistance: number;
      mask: number | undefined;
      skip: number;
    }
  | { op: 'pairs' }
  | { op: 'roundtrip'; probe: number[] }
  | { op: 'iterate'; insertAt: number; item: number; box: number[] }
  | { op: 'badId'; pick: number; kind: number; box: number[]; c: number }
  | { op: 'badCount'; pick: number; box: number[]; count: number; method: number; item: number }
  | { op: 'badFilter'; pick: number; value: unknown; box: number[]; item: number; where: number };

/**
 * A box crowded into a few cells, so that pairs, overlaps and filtered-out
 * overlaps are common; sometimes one of query-oracle's (far, huge, anywhere).
 */
function crowdedBoxArb(dim: 2 | 3): fc.Arbitrary<number[]> {
  const half = (lo: number, hi: number) => fc.integer({ min: lo * 2, max: hi * 2 }).map((n) => n / 2);
  const crowded = fc
    .tuple(
      fc.array(half(-3, 3), { minLength: dim, maxLength: dim }),
      fc.array(
        fc.oneof(
          { weight: 1, arbitrary: fc.constant(0) },
          { weight: 4, arbitrary: half(0.5, 3) },
          { weight: 1, arbitrary: fc.double({ min: 0.25, max: 3, noNaN: true }) },
        ),
        {
          minLength: dim,
          maxLength: dim,
        },
      ),
    )
    .map(([min, size]) => [...min, ...min.map((v, a) => v + size[a])]);
  return fc.oneof({ weight: 4, arbitrary: crowded }, { weight: 1, arbitrary: boxArbitrary(dim) });
}

function commandArb(dim: 2 | 3): fc.Arbitrary<Command> {
  const item = fc.integer({ min: 0, max: POOL.length - 1 });
  const pick = fc.nat();
  const box = crowdedBoxArb(dim);
  // Points a quarter of the time.
  const point = fc.nat({ max: 3 }).map((n) => n === 0);
  const bits = fc.constantFrom(...BITS);
  const queryMask = fc.oneof(fc.constant(undefined), bits);
  const position = box.map((b) => b.slice(0, dim));
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc.record({
        op: fc.constant('insert' as const),
        item,
        box,
        point,
        filter: fc.constantFrom('none' as const, 'category' as const, 'both' as const),
        c: bits,
        m: bits,
      }),
    },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('updateById' as const), pick, box, point }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('updateItem' as const), pick, box, point }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('removeById' as const), pick }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('removeItem' as const), pick }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('setFilterById' as const), pick, c: bits, m: bits }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('setFilterItem' as const), pick, c: bits, m: bits }) },
    { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
    {
      weight: 3,
      arbitrary: fc.record({ op: fc.constant('query' as const), box, mask: queryMask, stopAfter: fc.nat({ max: 4 }) }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        op: fc.constant('nearest' as const),
        point: position,
        k: fc.nat({ max: 6 }),
        maxDistance: maxDistanceArbitrary,
        mask: queryMask,
        skip: fc.integer({ min: -1, max: POOL.length - 1 }),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        op: fc.constant('ray' as const),
        origin: position,
        direction: directionArbitrary(dim),
        maxDistance: maxDistanceArbitrary,
        mask: queryMask,
        skip: fc.integer({ min: -1, max: POOL.length - 1 }),
      }),
    },
    { weight: 2, arbitrary: fc.constant({ op: 'pairs' as const }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('roundtrip' as const), probe: box }) },
    {
      weight: 1,
      arbitrary: fc.record({ op: fc.constant('iterate' as const), insertAt: fc.nat({ max: 5 }), item, box }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ op: fc.constant('badId' as const), pick, kind: fc.nat({ max: 5 }), box, c: bits }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('badCount' as const),
        pick,
        box,
        count: fc.constantFrom(...(dim === 2 ? [3] : [4, 5])),
        method: fc.nat({ max: 2 }),
        item,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('badFilter' as const),
        pick,
        value: fc.constantFrom(2 ** 32, -(2 ** 31) - 1, 1.5, Number.NaN, '1', null, Number.POSITIVE_INFINITY),
        box,
        item,
        where: fc.nat({ max: 4 }),
      }),
    },
  );
}

/** Everything the hash tells about itself through its public API, for before/after comparisons. */
function state(hash: LooseHash, model: Model, dim: 2 | 3): unknown {
  const everything = [...new Array(dim).fill(-Number.MAX_VALUE), ...new Array(dim).fill(Number.MAX_VALUE)] as number[];
  const ids: unknown[] = [];
  for (let id = 0; id < model.idLimit + 2; id++) {
    ids.push(
      hash.hasId(id) ? [id, hash.itemById(id), hash.boxById(id), hash.categoryOf(id), hash.maskOf(id)] : [id, false],
    );
  }
  return { size: hash.size, ids, items: [...hash].map(String).sort(), all: hash.queryBox(...everything).length };
}

/** A live id chosen by `pick`, or undefined when the hash is empty. */
function liveId(model: Model, pick: number): number | undefined {
  const ids = [...model.byId.keys()];
  return ids.length === 0 ? undefined : ids[pick % ids.length];
}

/** Checks the hash against the model: validate, size, every id, iteration, idOf. */
function compare(hash: LooseHash, model: Model): void {
  hash.validate();
  expect(hash.size).toBe(model.byId.size);
  for (let id = -1; id < model.idLimit + 2; id++) {
    const s = model.byId.get(id);
    expect(hash.hasId(id), `hasId(${id})`).toBe(s !== undefined);
    if (s === undefined) continue;
    expect(Object.is(hash.itemById(id), s.item), `itemById(${id})`).toBe(true);
    expect(hash.idOf(s.item), `idOf(${String(s.item)})`).toBe(id);
    expect(hash.boxById(id)).toEqual(s.box);
    expect(hash.categoryOf(id)).toBe(s.category >>> 0);
    expect(hash.maskOf(id)).toBe(s.mask >>> 0);
  }
  const iterated = [...hash];
  expect(iterated.length).toBe(model.byId.size);
  // for...of walks ids in ascending order.
  const expected = [...model.byId.entries()].sort((a, b) => a[0] - b[0]).map(([, s]) => s.item);
  expect(iterated.every((x, i) => Object.is(x, expected[i]))).toBe(true);
  checkPairs(hash, model);
}

/** forEachPair against the brute-force pairs with the two-way filter test. */
function checkPairs(hash: LooseHash, model: Model): void {
  const got: string[] = [];
  hash.forEachPair((a, b) => {
    const x = String(a);
    const y = String(b);
    got.push(x < y ? `${x}|${y}` : `${y}|${x}`);
  });
  const want: string[] = [];
  const all = [...model.byId.values()];
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      const a = all[i];
      const b = all[j];
      if (!boxesIntersect(a.box, b.box)) continue;
      if ((a.category & b.mask) === 0 || (b.category & a.mask) === 0) continue;
      const x = String(a.item);
      const y = String(b.item);
      want.push(x < y ? `${x}|${y}` : `${y}|${x}`);
    }
  }
  expect(got.sort()).toEqual(want.sort());
}

/** Items as sorted strings (NaN included), so answers compare whatever their order. */
function keys(items: readonly unknown[]): string[] {
  return items.map((x) => String(x)).sort();
}

/** Runs one command sequence. */
function runCommands(
  dim: 2 | 3,
  factory: LooseFactory,
  cellSize: number,
  maxCellsPerItem: number,
  commands: Command[],
) {
  let hash = factory.make({ cellSize, maxCellsPerItem, initialCapacity: 1 });
  const model = new Model();
  const pointOf = (box: number[]) => box.slice(0, dim);
  const args = (box: number[], point: boolean) => (point ? pointOf(box) : box);
  const stored = (box: number[], point: boolean) => (point ? [...pointOf(box), ...pointOf(box)] : box.slice());
  const absentItem = (from: number): unknown | undefined => {
    for (let k = 0; k < POOL.length; k++) {
      const candidate = POOL[(from + k) % POOL.length];
      if (model.idOf(candidate) < 0) return candidate;
    }
    return undefined;
  };
  /**
   * "Not myself": with skip < 0 no predicate and the given position; else a
   * live item to leave out and, every other time, its min corner as the
   * position, so that it is the first hit or the nearest item the predicate
   * must skip.
   */
  const self = (skip: number, given: number[]): [unknown, number[]] => {
    const id = skip < 0 ? undefined : liveId(model, skip);
    if (id === undefined) return [skip < 0 ? undefined : { nobody: true }, given];
    const s = model.byId.get(id) as Stored;
    return [s.item, skip % 2 === 0 ? pointOf(s.box) : given];
  };
  /** Expects `call` to throw and leave everything as it was. */
  const rejected = (call: () => void, check: (call: () => void) => void) => {
    const before = state(hash, model, dim);
    check(call);
    hash.validate();
    expect(state(hash, model, dim), 'a rejected call changed the hash').toEqual(before);
  };

  for (const command of commands) {
    switch (command.op) {
      case 'insert': {
        const item = POOL[command.item];
        const box = args(command.box, command.point);
        if (model.idOf(item) >= 0) {
          rejected(
            () => hash.insert(item, ...box),
            (call) => expectLogicError(call, 'insert of a present item'),
          );
          break;
        }
        let filter: unknown;
        let category = 1;
        let mask = -1;
        if (command.filter === 'category') {
          filter = { category: command.c };
          category = command.c | 0;
        } else if (command.filter === 'both') {
          filter = { category: command.c, mask: command.m };
          category = command.c | 0;
          mask = command.m | 0;
        }
        const id = filter === undefined ? hash.insert(item, ...box) : hash.insert(item, ...box, filter);
        expect(Number.isInteger(id) && id >= 0).toBe(true);
        model.inserted(id, { item, box: stored(command.box, command.point), category, mask });
        break;
      }
      case 'updateById':
      case 'updateItem': {
        const id = liveId(model, command.pick);
        if (id === undefined) break;
        const s = model.byId.get(id) as Stored;
        const box = args(command.box, command.point);
        if (command.op === 'updateById') hash.updateById(id, ...box);
        else hash.update(s.item, ...box);
        s.box = stored(command.box, command.point);
        break;
      }
      case 'removeById':
      case 'removeItem': {
        const id = liveId(model, command.pick);
        if (id === undefined) {
          expect(hash.remove(POOL[command.pick % POOL.length])).toBe(false);
          break;
        }
        const s = model.byId.get(id) as Stored;
        if (command.op === 'removeById') expect(Object.is(hash.removeById(id), s.item)).toBe(true);
        else expect(hash.remove(s.item)).toBe(true);
        model.removed(id);
        break;
      }
      case 'setFilterById':
      case 'setFilterItem': {
        const id = liveId(model, command.pick);
        if (id === undefined) break;
        const s = model.byId.get(id) as Stored;
        if (command.op === 'setFilterById') hash.setFilterById(id, command.c, command.m);
        else hash.setFilter(s.item, command.c, command.m);
        s.category = command.c | 0;
        s.mask = command.m | 0;
        break;
      }
      case 'clear':
        hash.clear();
        model.clear();
        break;
      case 'query': {
        const m = command.mask ?? -1;
        const box = command.box;
        const point = pointOf(box);
        const maskArgs = command.mask === undefined ? [] : [[], command.mask];
        const inBox = model.entries(m).filter(([, b]) => boxesIntersect(b, box));
        expect(keys(hash.queryBox(...box, ...maskArgs))).toEqual(keys(inBox.map(([x]) => x)));
        const atPoint = model.entries(m).filter(([, b]) => boxContainsPoint(b, point));
        expect(keys(hash.queryPoint(...point, ...maskArgs))).toEqual(keys(atPoint.map(([x]) => x)));
        const r = cellSize * 0.75;
        const near = model.entries(m).filter(([, b]) => boxWithinRadius(b, point, r));
        expect(keys(hash.queryRadius(...point, r, ...maskArgs))).toEqual(keys(near.map(([x]) => x)));
        // forEachOverlap: every overlap once with its id, or exactly stopAfter + 1 when it stops early.
        const seen: unknown[] = [];
        const limit = command.stopAfter;
        const stopped = hash.forEachOverlap(
          ...box,
          (item: unknown, id: number) => {
            expect(Object.is(hash.itemById(id), item)).toBe(true);
            seen.push(item);
            return seen.length > limit;
          },
          ...(command.mask === undefined ? [] : [command.mask]),
        );
        if (inBox.length > limit) {
          expect(stopped).toBe(true);
          expect(seen.length).toBe(limit + 1);
          expect(new Set(keys(seen)).size).toBe(seen.length);
          for (const x of keys(seen)) expect(keys(inBox.map(([y]) => y))).toContain(x);
        } else {
          expect(stopped).toBe(false);
          expect(keys(seen)).toEqual(keys(inBox.map(([x]) => x)));
        }
        break;
      }
      case 'nearest': {
        const m = command.mask ?? -1;
        const [skipped, point] = self(command.skip, command.point);
        const keep = (item: unknown) => !Object.is(item, skipped);
        const predicate =
          skipped === undefined
            ? undefined
            : (item: unknown, id: number) => {
                expect(Object.is(hash.itemById(id), item)).toBe(true);
                return keep(item);
              };
        const got = hash.nearest(...point, command.k, command.maxDistance, [], m, predicate);
        expectNearest(got, model.entries(m, keep), point, command.k, command.maxDistance);
        break;
      }
      case 'ray': {
        const m = command.mask ?? -1;
        const [skipped, origin] = self(command.skip, command.origin);
        const keep = (item: unknown) => !Object.is(item, skipped);
        const predicate = skipped === undefined ? undefined : keep;
        const want = raycastAllOracle(model.entries(m, keep), origin, command.direction, command.maxDistance);
        const ray = [...origin, ...command.direction, command.maxDistance];
        expectSameHits(hash.raycastAll(...ray, [], m, predicate), want, command.maxDistance);
        expectNearestHit(hash.raycast(...ray, m, predicate), want, command.maxDistance);
        break;
      }
      case 'pairs': {
        checkPairs(hash, model);
        break;
      }
      case 'roundtrip': {
        const data = hash.toData();
        // What crosses postMessage: a structured clone.
        const restored = factory.from(structuredClone(data));
        restored.validate();
        expect(state(restored, model, dim)).toEqual(state(hash, model, dim));
        // Free ids are reused in the same order: a probe insert gets the same id in both.
        const probe = absentItem(0);
        if (probe !== undefined) {
          const a = hash.insert(probe, ...command.probe);
          const b = restored.insert(probe, ...command.probe);
          expect(b).toBe(a);
          hash.removeById(a);
          restored.removeById(b);
          if (a >= model.idLimit) {
            model.idLimit = a + 1;
            model.free.add(a);
          }
        }
        hash = restored;
        break;
      }
      case 'iterate': {
        // update during for...of is allowed; insert makes the next step throw.
        let steps = 0;
        for (const item of hash) {
          const id = hash.idOf(item);
          hash.updateById(id, ...(model.byId.get(id) as Stored).box);
          steps++;
        }
        expect(steps).toBe(model.byId.size);
        const newcomer = absentItem(command.item);
        if (model.byId.size === 0 || newcomer === undefined) break;
        const iterator = hash[Symbol.iterator]();
        for (let i = 0; i < Math.min(command.insertAt, model.byId.size - 1); i++) iterator.next();
        iterator.next();
        const id = hash.insert(newcomer, ...command.box);
        model.inserted(id, { item: newcomer, box: command.box.slice(), category: 1, mask: -1 });
        expectLogicError(() => iterator.next(), 'for...of after an insert');
        break;
      }
      case 'badId': {
        // A free id, one past the end, a negative, a fraction, NaN or a string.
        const free = [...model.free];
        const candidates: unknown[] = [
          free.length > 0 ? free[command.pick % free.length] : model.idLimit,
          model.idLimit + command.pick,
          -1 - (command.pick % 3),
          0.5,
          Number.NaN,
          '0',
        ];
        const id = candidates[command.kind];
        const calls: [string, () => unknown][] = [
          ['updateById', () => hash.updateById(id, ...command.box)],
          ['removeById', () => hash.removeById(id)],
          ['itemById', () => hash.itemById(id)],
          ['boxById', () => hash.boxById(id)],
          ['setFilterById', () => hash.setFilterById(id, command.c, command.c)],
          ['categoryOf', () => hash.categoryOf(id)],
        ];
        const [method, call] = calls[command.pick % calls.length];
        expect(hash.hasId(id)).toBe(false);
        rejected(call, (c) => expectRangeError(c, ['id', method], [typeof id === 'string' ? `"${id}"` : id]));
        break;
      }
      case 'badCount': {
        const numbers = command.box.slice(0, command.count);
        const id = liveId(model, command.pick);
        const newcomer = absentItem(command.item);
        if (command.method === 0 && newcomer !== undefined) {
          rejected(
            () => hash.insert(newcomer, ...numbers),
            (c) => expectRangeError(c, ['insert'], [command.count]),
          );
        } else if (command.method === 1 && id !== undefined) {
          const item = (model.byId.get(id) as Stored).item;
          rejected(
            () => hash.update(item, ...numbers),
            (c) => expectRangeError(c, ['update'], [command.count]),
          );
        } else if (id !== undefined) {
          rejected(
            () => hash.updateById(id, ...numbers),
            (c) => expectRangeError(c, ['updateById'], [command.count]),
          );
        }
        break;
      }
      case 'badFilter': {
        const id = liveId(model, command.pick);
        const newcomer = absentItem(command.item);
        const v = command.value;
        const shown = typeof v === 'string' ? `"${v}"` : v;
        if (command.where === 0 && newcomer !== undefined) {
          rejected(
            () => hash.insert(newcomer, ...command.box, { category: v }),
            (c) => expectRangeError(c, ['category'], [shown]),
          );
        } else if (command.where === 1 && newcomer !== undefined) {
          rejected(
            () => hash.insert(newcomer, ...command.box, { mask: v }),
            (c) => expectRangeError(c, ['mask'], [shown]),
          );
        } else if (command.where === 2 && id !== undefined) {
          rejected(
            () => hash.setFilterById(id, 1, v),
            (c) => expectRangeError(c, ['mask'], [shown]),
          );
        } else if (command.where === 3) {
          rejected(
            () => hash.queryBox(...command.box, [], v),
            (c) => expectRangeError(c, ['mask'], [shown]),
          );
        } else {
          rejected(
            () => hash.nearest(...pointOf(command.box), 1, Number.POSITIVE_INFINITY, [], v),
            (c) => expectRangeError(c, ['mask'], [shown]),
          );
        }
        break;
      }
    }
    compare(hash, model);
  }
}

/** Declares the seeded properties for one dimension. */
export function describeIdProperties(dim: 2 | 3, factory: LooseFactory): void {
  describe(`SpatialHash${dim}D ids, filters, predicates and snapshots against a model`, () => {
    const cases = [
      { name: 'mixed operations', seed: 0x1d5000 + dim, runs: 120, cellSizes: [1, 0.5, 2, 0.7], limits: [256, 8] },
      { name: 'small overflow bounds', seed: 0x1d6000 + dim, runs: 60, cellSizes: [1, 3], limits: [1, 2] },
    ];
    for (const c of cases) {
      it(`${c.name} (seed ${c.seed}, ${c.runs} runs)`, () => {
        fc.assert(
          fc.property(
            fc.constantFrom(...c.cellSizes),
            fc.constantFrom(...c.limits),
            fc.array(commandArb(dim), { minLength: 1, maxLength: 60, size: 'max' }),
            (cellSize, limit, commands) => runCommands(dim, factory, cellSize, limit, commands),
          ),
          { seed: c.seed, numRuns: c.runs },
        );
      });
    }
  });
}

/** A box in argument order, for the hand-written tests. */
export type { Box };
