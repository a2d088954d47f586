/**
 * Stateful fuzz of the four dynamic hashes, several at once (issue 39: the
 * hashes wherever they keep state between calls). hash-extremes.cases.ts
 * runs one hash per case through a flat list of commands; the per-class
 * suites (test/support/hash-properties.ts, point-oracle.ts) and the pair
 * cache's own test (test/spatialhash/pair-cache.test.ts) each hold one hash
 * too. What they leave out, and this suite runs: 2 to 4 hashes of mixed kinds
 * in one fast-check `fc.commands` sequence (shrunk to the shortest failing
 * one), whose calls interleave, so that state a query keeps outside its hash
 * (the module-level search state of nearest and the ray casts, the query
 * stamps) meets another hash's calls:
 *
 * - inserts with filters, updates by item and by id (nudges that keep the
 *   pair cache refreshing, jumps and overflows that drop it), removals by
 *   item and by id, clear, setFilter;
 * - box, radius, nearest and ray queries with masks, and forEachPair again
 *   and again (the kept pairs), each against brute force over the model;
 * - queries of another hash from inside a nearest or ray predicate, a
 *   forEachOverlap visitor and a forEachPair visitor (the outer answer and
 *   the inner ones against brute force);
 * - snapshots mid-sequence: toData(), a structured clone (as postMessage
 *   makes), from(), and the sequence goes on with the restored hash (ids,
 *   filters and the order of id reuse kept);
 * - validate() and every item's id.
 *
 * @module
 */

import fc from 'fast-check';
import { expect } from 'vitest';
import { kept, SKIP, Step } from './grid-commands.js';
import {
  type Adapted,
  checkNearest,
  checkPairs,
  checkQueryBox,
  checkQueryRadius,
  checkRay,
  type Filters,
  hashFrom,
  KINDS,
  type Kind,
  kindName,
  type Model,
  makeHash,
  visible,
} from './hash-model.js';
import { commandSequences, fuzz } from './support.js';

/** One hash of the world and what it should hold. */
interface Slot {
  kind: Kind;
  cellSize: number;
  maxCellsPerItem: number | undefined;
  hash: Adapted;
  model: Model;
  filters: Filters;
  ids: Map<number, number>;
  next: number;
}

/** The hashes of one sequence. */
class HashWorld {
  readonly slots: Slot[] = [];
  readonly taken = new Map<string, number>();

  count(what: string): void {
    this.taken.set(what, (this.taken.get(what) ?? 0) + 1);
  }

  slot(pick: number): Slot {
    return this.slots[pick % this.slots.length];
  }

  /** The live item `pick` names, or undefined when the hash is empty. */
  item(slot: Slot, pick: number): number | undefined {
    const items = [...slot.model.keys()];
    return items.length === 0 ? undefined : items[pick % items.length];
  }
}

/** A box in cell units, scaled by the slot's cell size when drawn. */
interface BoxSpec {
  at: number[];
  size: number;
}

const coordinate = fc.integer({ min: -24, max: 24 }).map((k) => k / 4);
const boxSpec: fc.Arbitrary<BoxSpec> = fc.record({
  at: fc.tuple(coordinate, coordinate, coordinate),
  size: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 12 }).map((k) => k / 4) },
    { weight: 1, arbitrary: fc.constant(40) },
  ),
});
const bits = fc.constantFrom(1, 2, 3, -1, 0x10000, 0);
const masks = fc.constantFrom(-1, -1, -1, 1, 2, 3, 0x10000);
const pick = fc.nat(1000);

/** The box of `spec` in `slot`: mins then maxes (a point hash's item is the mins). */
function boxOf(slot: Slot, spec: BoxSpec): number[] {
  const d = slot.kind.dim;
  const lo = spec.at.slice(0, d).map((v) => v * slot.cellSize);
  const size = slot.kind.points ? 0 : spec.size * slot.cellSize;
  return [...lo, ...lo.map((v) => v + size)];
}

function insert(world: HashWorld, slot: Slot, spec: BoxSpec, filter?: [number, number]): void {
  const item = slot.next++;
  const box = boxOf(slot, spec);
  const id =
    filter === undefined
      ? slot.hash.insert(item, box)
      : slot.hash.insertFiltered(item, box, { category: filter[0], mask: filter[1] });
  slot.model.set(item, box);
  slot.ids.set(item, id);
  if (filter !== undefined) slot.filters.set(item, filter);
  world.count('insert');
}

/** Checks every item's id and the hash's own invariants. */
function checkIds(slot: Slot): void {
  slot.hash.validate();
  expect(slot.hash.hash.size, `${kindName(slot.kind)}.size`).toBe(slot.model.size);
  for (const [item, id] of slot.ids) expect(slot.hash.hash.idOf(item), `idOf(${item})`).toBe(id);
}

/** A query of `slot` (the nested ones run from inside another hash's callbacks). */
type QueryKind = 'box' | 'radius' | 'nearest' | 'ray';

interface QuerySpec {
  kind: QueryKind;
  at: BoxSpec;
  radius: number;
  k: number;
  mask: number;
  direction: number;
}

const DIRECTIONS = [
  [1, 0, 0],
  [0, -1, 0],
  [1, 1, 0],
  [-1, 0.5, 0.25],
  [0, 1, 1],
  [0.001, 1, -1],
];

const querySpec: fc.Arbitrary<QuerySpec> = fc.record({
  kind: fc.constantFrom<QueryKind>('box', 'radius', 'nearest', 'ray'),
  at: boxSpec,
  radius: fc.constantFrom(0, 0.5, 1, 2.5, Number.POSITIVE_INFINITY),
  k: fc.constantFrom(0, 1, 3, 50),
  mask: masks,
  direction: fc.nat(DIRECTIONS.length - 1),
});

/** Runs query `q` on `slot` and checks it against brute force over its model. */
function runQuery(world: HashWorld, slot: Slot, q: QuerySpec, predicate?: (item: number) => boolean): void {
  const d = slot.kind.dim;
  const box = boxOf(slot, q.at);
  const point = box.slice(0, d);
  const model = visible(slot.model, slot.filters, q.mask);
  const radius = q.radius * slot.cellSize;
  world.count(`query ${q.kind}`);
  switch (q.kind) {
    case 'box':
      checkQueryBox(slot.hash, model, [...point, ...point.map((v) => v + q.at.size * slot.cellSize)], q.mask);
      return;
    case 'radius':
      checkQueryRadius(slot.hash, model, point, radius, q.mask);
      return;
    case 'nearest':
      checkNearest(slot.hash, model, point, q.k, radius === 0 ? Number.POSITIVE_INFINITY : radius, q.mask, predicate);
      return;
    case 'ray':
      if (slot.kind.points) {
        checkNearest(slot.hash, model, point, q.k, Number.POSITIVE_INFINITY, q.mask, predicate);
        return;
      }
      checkRay(slot.hash, model, point, DIRECTIONS[q.direction].slice(0, d), radius || 10, q.mask, predicate);
  }
}

/** The search state a query of `kind` on `slot` uses: a point hash answers a ray query with nearest (see runQuery). */
function searchKind(slot: Slot, kind: QueryKind): QueryKind {
  return slot.kind.points && kind === 'ray' ? 'nearest' : kind;
}

/**
 * A query of slot `outer` with callbacks that query slot `inner` (another
 * hash): a nearest or ray predicate, a forEachOverlap visitor or a
 * forEachPair visitor. Both answers against brute force.
 */
function nested(world: HashWorld, outer: Slot, inner: Slot, how: string, q: QuerySpec, innerQ: QuerySpec): void {
  if (outer === inner) return;
  let calls = 0;
  // A predicate's nearest (or ray cast) of a hash of the outer's family must throw: one search state serves the
  // family (src/pointhash/nearest.ts, src/spatialhash/nearest.ts and raycast.ts), and an inner search used to
  // overwrite the outer one's, which then answered wrong items.
  const outerKind = searchKind(outer, q.kind === 'box' || q.kind === 'radius' ? 'nearest' : q.kind);
  const refused =
    how === 'predicate' && outer.kind.points === inner.kind.points && outerKind === searchKind(inner, innerQ.kind);
  const ask = () => {
    // Every few callbacks, so a search sees its state both before and after the inner one.
    if (calls++ % 3 !== 0) return;
    if (!refused) {
      runQuery(world, inner, innerQ);
      return;
    }
    expect(() => runQuery(world, inner, innerQ), 'a nested search of the same family').toThrow(
      /cannot run inside a (nearest predicate|ray cast's predicate)/,
    );
    world.count('nested refused');
  };
  world.count(`nested ${how}`);
  if (how === 'predicate') {
    runQuery(world, outer, { ...q, kind: q.kind === 'box' || q.kind === 'radius' ? 'nearest' : q.kind }, () => {
      ask();
      return true;
    });
  } else if (how === 'overlap') {
    const box = boxOf(outer, q.at);
    const d = outer.kind.dim;
    const query = [...box.slice(0, d), ...box.slice(0, d).map((v) => v + (q.at.size + 1) * outer.cellSize)];
    const seen = outer.hash.forEachOverlap(query, ask);
    // forEachOverlap reports what queryBox reports.
    expect(seen.sort(), 'forEachOverlap against queryBox').toEqual(outer.hash.queryBox(query).sort());
  } else {
    checkPairs(outer.hash, outer.model, q.radius * outer.cellSize, outer.filters, ask);
  }
}

function hashCommands(): fc.Arbitrary<Step<HashWorld>>[] {
  const step = (label: string, action: (w: HashWorld) => void) => new Step<HashWorld>(label, action);
  const filterArb = fc.option(fc.tuple(bits, bits), { freq: 3 });
  return [
    fc
      .tuple(pick, boxSpec, filterArb)
      .map(([p, spec, filter]) =>
        step(`insert(${p}, ${JSON.stringify(spec)}${filter ? `, filter ${filter}` : ''})`, (w) =>
          insert(w, w.slot(p), spec, filter ?? undefined),
        ),
      ),
    fc.tuple(pick, fc.array(fc.tuple(pick, boxSpec), { minLength: 1, maxLength: 8 })).map(([p, many]) =>
      step(`insert ${many.length} (${p})`, (w) => {
        for (const [, spec] of many) insert(w, w.slot(p), spec);
      }),
    ),
    fc
      .tuple(pick, fc.array(fc.tuple(pick, boxSpec, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 6 }))
      .map(([p, moves]) =>
        step(`move(${p}, ${moves.length})`, (w) => {
          const slot = w.slot(p);
          for (const [which, spec, byId, nudge] of moves) {
            const item = w.item(slot, which);
            if (item === undefined) return;
            // A nudge: a quarter cell from where it was (the pair cache refreshes it); else anywhere.
            const old = slot.model.get(item) as number[];
            const d = slot.kind.dim;
            const box = nudge ? old.map((v, a) => v + (spec.at[a % d] / 24) * slot.cellSize) : boxOf(slot, spec);
            if (byId) slot.hash.updateById(slot.ids.get(item) as number, box);
            else slot.hash.update(item, box);
            slot.model.set(item, box);
            w.count(byId ? 'updateById' : 'update');
          }
        }),
      ),
    fc.tuple(pick, pick, fc.boolean()).map(([p, which, byId]) =>
      step(`remove(${p}, ${which}${byId ? ', by id' : ''})`, (w) => {
        const slot = w.slot(p);
        const item = w.item(slot, which);
        if (item === undefined) return;
        if (byId) expect(slot.hash.hash.removeById(slot.ids.get(item) as number)).toBe(item);
        else expect(slot.hash.remove(item)).toBe(true);
        slot.model.delete(item);
        slot.ids.delete(item);
        slot.filters.delete(item);
        w.count('remove');
      }),
    ),
    pick.map((p) =>
      step(`clear(${p})`, (w) => {
        const slot = w.slot(p);
        slot.hash.hash.clear();
        slot.model.clear();
        slot.ids.clear();
        slot.filters.clear();
        w.count('clear');
      }),
    ),
    fc.tuple(pick, pick, bits, bits).map(([p, which, category, mask]) =>
      step(`setFilter(${p}, ${which}, ${category}, ${mask})`, (w) => {
        const slot = w.slot(p);
        const item = w.item(slot, which);
        if (item === undefined) return;
        slot.hash.hash.setFilter(item, category, mask);
        slot.filters.set(item, [category, mask]);
        w.count('setFilter');
      }),
    ),
    fc
      .tuple(pick, querySpec)
      .map(([p, q]) => step(`query(${p}, ${JSON.stringify(q)})`, (w) => runQuery(w, w.slot(p), q))),
    fc.tuple(pick, fc.constantFrom(0, 0.5, 1, 2)).map(([p, radius]) =>
      step(`forEachPair(${p}, ${radius})`, (w) => {
        const slot = w.slot(p);
        w.count('pairs');
        checkPairs(slot.hash, slot.model, radius * slot.cellSize, slot.filters);
      }),
    ),
    fc
      .tuple(pick, pick, fc.constantFrom(...kept(['predicate', 'predicate', 'overlap', 'pairs'])), querySpec, querySpec)
      .map(([a, b, how, q, innerQ]) =>
        step(`nested(${a} ${how}, queries ${b}: ${JSON.stringify(innerQ)})`, (w) =>
          nested(w, w.slot(a), w.slot(b), how, q, innerQ),
        ),
      ),
    pick.map((p) =>
      step(`snapshot(${p})`, (w) => {
        // toData, a structured clone (postMessage's copy), from(): the sequence goes on with the copy.
        const slot = w.slot(p);
        const data = structuredClone(slot.hash.toData());
        slot.hash = hashFrom(slot.kind, data);
        checkIds(slot);
        w.count('snapshot');
      }),
    ),
    pick.map((p) =>
      step(`validate(${p})`, (w) => {
        checkIds(w.slot(p));
        w.count('validate');
      }),
    ),
  ];
}

const slotArb = fc.record({
  kind: fc.constantFrom(...KINDS),
  cellSize: fc.constantFrom(1, 0.5, 3),
  maxCellsPerItem: fc.constantFrom(undefined, undefined, 4),
});

function runSequences(): void {
  const totals = new Map<string, number>();
  fuzz(
    'hashes stateful: several hashes, interleaved calls, snapshots',
    fc.tuple(
      fc.array(slotArb, { minLength: 2, maxLength: 4 }),
      commandSequences(hashCommands(), { maxCommands: 60, size: 'max' }),
    ),
    ([settings, commands]) => {
      const world = new HashWorld();
      for (const s of settings) {
        world.slots.push({
          ...s,
          hash: makeHash(s.kind, { cellSize: s.cellSize, maxCellsPerItem: s.maxCellsPerItem }),
          model: new Map(),
          filters: new Map(),
          ids: new Map(),
          next: 0,
        });
      }
      try {
        fc.modelRun(() => ({ model: {}, real: world }), commands);
        for (const slot of world.slots) checkIds(slot);
      } finally {
        for (const [what, n] of world.taken) totals.set(what, (totals.get(what) ?? 0) + n);
      }
    },
    1000,
  );
  const required = [
    'nested predicate',
    'nested refused',
    'nested overlap',
    'nested pairs',
    'snapshot',
    'updateById',
    'setFilter',
  ];
  const missing = required.filter((what) => SKIP.size === 0 && !((totals.get(what) ?? 0) > 0));
  if (missing.length > 0) throw new Error(`hash sequences never took ${missing.join(', ')}`);
}

export const suites = { sequences: runSequences };
