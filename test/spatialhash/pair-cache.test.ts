/**
 * forEachPair's pairs kept between calls (src/spatialhash/pair-cache.ts).
 * Seeded random worlds take steps of a few changes (the cache refreshes),
 * bursts of many (the cache is dropped and a full pass runs) and none; after
 * each step forEachPair is compared with brute force, sometimes with a
 * visitor that throws part way or runs a nested forEachPair, and validate()
 * checks the cache's own invariants. Each call asks for box pairs or ball
 * pairs (`shape: 'ball'`, filtered from the same kept box pairs). Each run
 * counts which way each call went (kept pairs, a recording full pass, a plain
 * full pass) per shape and the test fails unless all six were taken, so it
 * cannot quietly stop testing one of them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpatialHash2D, SpatialHash3D } from '../../src/index.js';
import { type Box, ballsMeet, boxesIntersect } from '../support/box-oracle.js';

type AnyHash = SpatialHash2D<number> | SpatialHash3D<number>;

interface Model {
  boxes: Map<number, Box>;
  filters: Map<number, [number, number]>;
  ids: Map<number, number>;
  next: number;
}

/** One change: which live item (an index into the live list), and what. */
type Op =
  | { kind: 'nudge' | 'jump' | 'grow'; pick: number; box: Box }
  | { kind: 'insert'; box: Box }
  | { kind: 'remove'; pick: number }
  | { kind: 'filter'; pick: number; category: number; mask: number }
  | { kind: 'clear' };

/**
 * How forEachPair is called after a step: plainly, after a call whose visitor
 * throws part way, with a forEachPair nested in its visitor, or from inside a
 * forEach visitor (changes pending: the kept pairs must be refreshed there).
 */
type Call = 'plain' | 'throw' | 'nested' | 'inForEach';

/** What forEachPair is asked to test: the boxes, or the balls inscribed in them. */
type Shape = 'box' | 'ball';

interface Step {
  ops: Op[];
  call: Call;
  shape: Shape;
}

/** Counts of the three ways a call can go (kept pairs, recording full pass, plain full pass), per shape. */
type Paths = Record<`${Shape} ${'kept' | 'recorded' | 'plain'}`, number>;

function noPaths(): Paths {
  return { 'box kept': 0, 'box recorded': 0, 'box plain': 0, 'ball kept': 0, 'ball recorded': 0, 'ball plain': 0 };
}

function cacheOf(hash: AnyHash): { valid: boolean; changedCount: number } {
  return (hash as unknown as { pairCache: { valid: boolean; changedCount: number } }).pairCache;
}

function insert(hash: AnyHash, item: number, box: Box): number {
  return hash instanceof SpatialHash2D
    ? hash.insert(item, box[0], box[1], box[2], box[3])
    : hash.insert(item, box[0], box[1], box[2], box[3], box[4], box[5]);
}

function updateById(hash: AnyHash, id: number, box: Box): void {
  if (hash instanceof SpatialHash2D) hash.updateById(id, box[0], box[1], box[2], box[3]);
  else hash.updateById(id, box[0], box[1], box[2], box[3], box[4], box[5]);
}

function key(a: number, b: number): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

function brutePairs(model: Model, shape: Shape): string[] {
  const keys: string[] = [];
  const list = [...model.boxes.entries()];
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      const [a, boxA] = list[i];
      const [b, boxB] = list[j];
      if (!(shape === 'box' ? boxesIntersect(boxA, boxB) : ballsMeet(boxA, boxB))) continue;
      const [ca, ma] = model.filters.get(a) ?? [1, -1];
      const [cb, mb] = model.filters.get(b) ?? [1, -1];
      if ((ca & mb) !== 0 && (cb & ma) !== 0) keys.push(key(a, b));
    }
  }
  return keys.sort();
}

/** A box on a coarse lattice (so borders, coincident and zero-size boxes are common), now and then huge. */
function boxArb(dim: 2 | 3, huge: boolean): fc.Arbitrary<Box> {
  const coordinate = fc.integer({ min: -24, max: 24 }).map((k) => k / 4);
  const side = fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 12 }).map((k) => k / 4),
  );
  const big = huge ? fc.oneof({ weight: 9, arbitrary: side }, { weight: 1, arbitrary: fc.constant(40) }) : side;
  return fc
    .tuple(fc.array(coordinate, { minLength: dim, maxLength: dim }), big)
    .map(([lo, s]) => [...lo, ...lo.map((x) => x + s)]);
}

/** One change; a nudge shifts the item's current box by at most half a unit per axis. */
function opArb(dim: 2 | 3): fc.Arbitrary<Op> {
  const pick = fc.nat(1000);
  const bits = fc.constantFrom(1, 2, 3, -1, 0x10000, 0);
  return fc.oneof(
    { weight: 8, arbitrary: fc.record({ kind: fc.constant('nudge' as const), pick, box: boxArb(dim, false) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('jump' as const), pick, box: boxArb(dim, false) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('grow' as const), pick, box: boxArb(dim, true) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('insert' as const), box: boxArb(dim, true) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick }) },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('filter' as const), pick, category: bits, mask: bits }),
    },
  );
}

function stepArb(dim: 2 | 3): fc.Arbitrary<Step> {
  const ops = fc.oneof(
    { weight: 6, arbitrary: fc.array(opArb(dim), { minLength: 1, maxLength: 6 }) },
    { weight: 2, arbitrary: fc.array(opArb(dim), { minLength: 90, maxLength: 200 }) },
    { weight: 1, arbitrary: fc.constant<Op[]>([]) },
    { weight: 1, arbitrary: fc.constant<Op[]>([{ kind: 'clear' }]) },
  );
  const call = fc.constantFrom<Call>('plain', 'plain', 'plain', 'throw', 'nested', 'inForEach');
  return fc.record({ ops, call, shape: fc.constantFrom<Shape>('box', 'ball') });
}

function apply(hash: AnyHash, model: Model, op: Op): void {
  const live = [...model.ids.keys()];
  if (op.kind === 'insert') {
    const item = model.next++;
    model.ids.set(item, insert(hash, item, op.box));
    model.boxes.set(item, op.box);
    return;
  }
  if (op.kind === 'clear') {
    hash.clear();
    model.boxes.clear();
    model.filters.clear();
    model.ids.clear();
    return;
  }
  if (live.length === 0) return;
  const item = live[op.pick % live.length];
  const id = model.ids.get(item) as number;
  if (op.kind === 'remove') {
    hash.removeById(id);
    model.ids.delete(item);
    model.boxes.delete(item);
    model.filters.delete(item);
  } else if (op.kind === 'filter') {
    hash.setFilterById(id, op.category, op.mask);
    model.filters.set(item, [op.category | 0, op.mask | 0]);
  } else {
    const dim = op.box.length / 2;
    // A nudge moves the current box a little; a jump or grow puts it anywhere.
    const old = model.boxes.get(item) as Box;
    const box = op.kind === 'nudge' ? old.map((x, k) => x + ((op.box[k % dim] * 4) % 3) / 4) : op.box;
    updateById(hash, id, box);
    model.boxes.set(item, box);
  }
}

/**
 * Calls forEachPair the way `call` says, for the pairs of `shape` (the kept
 * pairs are box pairs whatever the shape), and checks its answer against
 * brute force.
 */
function check(hash: AnyHash, model: Model, call: Call, shape: Shape, paths: Paths): void {
  const expected = brutePairs(model, shape);
  const options = shape === 'ball' ? ({ shape } as const) : undefined;
  const before = cacheOf(hash).valid;
  if (call === 'throw' && expected.length > 0) {
    // A visitor that throws part way: the next call must still see every pair.
    let seen = 0;
    const stop = Math.floor(expected.length / 2);
    expect(() =>
      hash.forEachPair(() => {
        if (seen++ === stop) throw new Error('visitor stops');
      }, options),
    ).toThrow('visitor stops');
    hash.validate();
  }
  const keys: string[] = [];
  let nested: string[] | undefined;
  const pass = (): void =>
    hash.forEachPair((a, b) => {
      if (call === 'nested' && nested === undefined) {
        nested = [];
        const inner = nested;
        hash.forEachPair((c, d) => inner.push(key(c, d)), options);
      }
      keys.push(key(a, b));
    }, options);
  if (call !== 'inForEach' || model.boxes.size === 0) pass();
  else {
    let first = true;
    hash.forEach(() => {
      if (first) pass();
      first = false;
    });
  }
  const after = cacheOf(hash).valid;
  // The call has found every flagged item's pairs again: no flag may outlive it
  // (a stale flag is still correct, only slower, so validate() cannot see it).
  expect(cacheOf(hash).changedCount).toBe(0);
  if (call === 'plain' || call === 'nested') {
    if (before) paths[`${shape} kept`]++;
    else if (after) paths[`${shape} recorded`]++;
    else paths[`${shape} plain`]++;
  }
  expect(keys.sort()).toEqual(expected);
  if (nested !== undefined) expect(nested.sort()).toEqual(expected);
  hash.validate();
}

function run(dim: 2 | 3, cellSize: number, maxCellsPerItem: number, start: Box[], steps: Step[], paths: Paths): void {
  const hash: AnyHash =
    dim === 2
      ? new SpatialHash2D<number>({ cellSize, maxCellsPerItem })
      : new SpatialHash3D<number>({ cellSize, maxCellsPerItem });
  const model: Model = { boxes: new Map(), filters: new Map(), ids: new Map(), next: 0 };
  for (const box of start) apply(hash, model, { kind: 'insert', box });
  check(hash, model, 'plain', 'box', paths);
  for (const step of steps) {
    for (const op of step.ops) apply(hash, model, op);
    hash.validate();
    check(hash, model, step.call, step.shape, paths);
  }
}

describe.each([2, 3] as const)('%iD forEachPair with kept pairs', (dim) => {
  const seed = 0x9a1c00 + dim;
  it(`matches brute force through small steps, bursts, clears, throwing and nested visitors (seed ${seed})`, () => {
    const paths = noPaths();
    fc.assert(
      fc.property(
        fc.constantFrom(1, 0.5, 3),
        fc.constantFrom(256, 4),
        fc.array(boxArb(dim, true), { minLength: 0, maxLength: 260, size: 'max' }),
        fc.array(stepArb(dim), { minLength: 1, maxLength: 14 }),
        (cellSize, limit, start, steps) => run(dim, cellSize, limit, start, steps, paths),
      ),
      // A failure is reported as found: shrinking hundreds of boxes and steps takes many minutes.
      { seed, numRuns: 60, endOnFailure: true },
    );
    for (const shape of ['box', 'ball'] as const) {
      expect(paths[`${shape} kept`]).toBeGreaterThan(25);
      expect(paths[`${shape} recorded`]).toBeGreaterThan(8);
      expect(paths[`${shape} plain`]).toBeGreaterThan(6);
    }
  });

  it('keeps no pairs for a crowd where every item meets every other, and still reports each pair once', () => {
    // 200 coincident items: 19,900 pairs, far over 32 per item, so recording them would cost more than it saves.
    const hash: AnyHash =
      dim === 2 ? new SpatialHash2D<number>({ cellSize: 1 }) : new SpatialHash3D<number>({ cellSize: 1 });
    const box: Box = [...Array(dim).fill(0), ...Array(dim).fill(0.5)];
    const ids = Array.from({ length: 200 }, (_, i) => insert(hash, i, box));
    for (let frame = 0; frame < 3; frame++) {
      updateById(hash, ids[frame], box);
      let count = 0;
      const seen = new Set<string>();
      hash.forEachPair((a, b) => {
        count++;
        seen.add(key(a, b));
      });
      expect(count).toBe(19900);
      expect(seen.size).toBe(19900);
      expect(cacheOf(hash).valid).toBe(false);
      hash.validate();
    }
  });

  it('drops the kept pairs when a refresh finds too many, and reports them all', () => {
    // 1,200 items apart (pairs kept), then a quarter of them piled on one spot:
    // 44,850 pairs, over 32 per item, found by the refresh and then not kept.
    const hash: AnyHash =
      dim === 2 ? new SpatialHash2D<number>({ cellSize: 1 }) : new SpatialHash3D<number>({ cellSize: 1 });
    const at = (i: number): Box => [...Array(dim).fill(i * 3), ...Array(dim).fill(i * 3 + 1)];
    const ids = Array.from({ length: 1200 }, (_, i) => insert(hash, i, at(i)));
    hash.forEachPair(() => {});
    updateById(hash, ids[0], at(0));
    hash.forEachPair(() => {});
    expect(cacheOf(hash).valid).toBe(true);
    for (let i = 0; i < 300; i++) updateById(hash, ids[i], at(0));
    let count = 0;
    hash.forEachPair(() => count++);
    expect(count).toBe((300 * 299) / 2);
    expect(cacheOf(hash).valid).toBe(false);
    hash.validate();
  });

  it('keeps a pair whose items both stand still, and drops it when one moves away or is removed', () => {
    const hash: AnyHash =
      dim === 2 ? new SpatialHash2D<number>({ cellSize: 1 }) : new SpatialHash3D<number>({ cellSize: 1 });
    const unit = (x: number): Box => [...Array(dim).fill(x), ...Array(dim).fill(x + 1)];
    const a = insert(hash, 0, unit(0));
    insert(hash, 1, unit(0.5));
    const c = insert(hash, 2, unit(5));
    const pairs = (): string[] => {
      const keys: string[] = [];
      hash.forEachPair((p, q) => keys.push(key(p, q)));
      return keys.sort();
    };
    expect(pairs()).toEqual(['0|1']);
    expect(cacheOf(hash).valid).toBe(true);
    updateById(hash, c, unit(1.5));
    expect(pairs()).toEqual(['0|1', '1|2']);
    updateById(hash, a, unit(9));
    expect(pairs()).toEqual(['1|2']);
    hash.removeById(c);
    expect(pairs()).toEqual([]);
    // The removed id is reused by the next insert: no pair of the old item survives.
    expect(insert(hash, 3, unit(9.5))).toBe(c);
    expect(pairs()).toEqual(['0|3']);
    hash.validate();
  });
});

describe("forEachPair with shape: 'ball'", () => {
  it('reports discs that touch or overlap, not boxes that only meet at their corners', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 2 });
    const disc = (name: string, x: number, y: number, r: number): void => {
      hash.insert(name, x - r, y - r, x + r, y + r);
    };
    disc('a', 0, 0, 1);
    disc('touching', 2, 0, 1); // centres 2 apart, radii 1 + 1: touching counts
    disc('apart', -2.25, 0, 1.25); // touches a exactly too: 2.25 = 1 + 1.25
    disc('corner', 1.75, -1.75, 1); // boxes overlap, discs are 2.47 apart
    disc('point', 0, 1, 0); // a point on a's rim
    const pairs = (options?: { shape: 'box' | 'ball' }): string[] => {
      const found: string[] = [];
      hash.forEachPair((p, q) => found.push([p, q].sort().join('|')), options);
      return found.sort();
    };
    // corner and touching: centres (1.75, -1.75) and (2, 0), 1.77 apart, radii 1 + 1.
    expect(pairs({ shape: 'ball' })).toEqual(['a|apart', 'a|point', 'a|touching', 'corner|touching']);
    expect(pairs()).toEqual(['a|apart', 'a|corner', 'a|point', 'a|touching', 'corner|touching']);
    expect(pairs({ shape: 'box' })).toEqual(pairs());
  });

  it('uses the smallest side of a box that is not square, in 3D too', () => {
    const hash = new SpatialHash3D<number>({ cellSize: 4 });
    // A 4 x 2 x 2 box: its ball has radius 1 about (2, 1, 1).
    hash.insert(0, 0, 0, 0, 4, 2, 2);
    hash.insert(1, 4, 1, 1, 4, 1, 1); // a point 2 from the centre: outside
    hash.insert(2, 2, 2, 1, 2, 2, 1); // a point on the sphere: inside
    const found: string[] = [];
    hash.forEachPair((p, q) => found.push(key(p, q)), { shape: 'ball' });
    expect(found).toEqual(['0|2']);
  });

  it('refuses a bad shape or options with a RangeError and leaves the hash as it was', () => {
    const hash = new SpatialHash2D<number>({ cellSize: 1 });
    const a = hash.insert(0, 0, 0, 1, 1);
    hash.insert(1, 0.5, 0.5, 1.5, 1.5);
    hash.forEachPair(() => {});
    hash.updateById(a, 0.25, 0.25, 1.25, 1.25);
    const bad: unknown[] = [{ shape: 'circle' }, { shape: 1 }, null, 'ball', 7];
    for (const options of bad) {
      expect(() => hash.forEachPair(() => {}, options as { shape: 'ball' })).toThrow(RangeError);
    }
    expect(() => hash.forEachPair(() => {}, { shape: 'disc' as 'ball' })).toThrow(
      /options\.shape must be 'box' or 'ball', got "disc"/,
    );
    expect(() => hash.forEachPair(() => {}, null as unknown as { shape: 'ball' })).toThrow(
      /options must be an object, got null/,
    );
    // The pending move is still pending and the kept pair still there: the next call refreshes it.
    expect(cacheOf(hash).changedCount).toBe(1);
    hash.validate();
    let count = 0;
    hash.forEachPair(() => count++, {});
    expect(count).toBe(1);
    hash.validate();
  });
});
