/**
 * The property tests shared by SpatialHash2D and SpatialHash3D: random command
 * sequences (insert / update / remove / clear, every query, and rejected calls)
 * run against the hash and against the brute-force {@link BoxOracle}, with
 * `validate()` and a full comparison after every step.
 *
 * The tests only see the hash through {@link HashUnderTest}, written once per
 * dimension in the test files, so the argument lists of the real API stay
 * visible there. Boxes and points are flat arrays in argument order (see
 * box-oracle.ts).
 *
 * @module
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Box, BoxOracle, type Point } from './box-oracle.js';

/** One hash seen through flat box / point arrays. */
export interface HashUnderTest {
  readonly size: number;
  readonly cellSize: number;
  insert(item: unknown, box: Box): void;
  /** insert with the max coordinates omitted (a point). */
  insertPoint(item: unknown, point: Point): void;
  update(item: unknown, box: Box): void;
  /** update with the max coordinates omitted (a point). */
  updatePoint(item: unknown, point: Point): void;
  remove(item: unknown): boolean;
  has(item: unknown): boolean;
  clear(): void;
  queryPoint(point: Point, out?: unknown[]): unknown[];
  queryBox(box: Box, out?: unknown[]): unknown[];
  queryRadius(point: Point, radius: number, out?: unknown[]): unknown[];
  /** Items in `for...of` order. */
  iterate(): unknown[];
  /** Items in `forEach` order. */
  forEachItems(): unknown[];
  validate(): void;
}

/** Makes a hash from constructor options, passed through untouched (bad ones too). */
export type HashFactory = (options: unknown) => HashUnderTest;

/** Argument names of the public API, per dimension, in argument order. */
export function argumentNames(dimension: 2 | 3): { box: string[]; point: string[] } {
  return dimension === 2
    ? { box: ['minX', 'minY', 'maxX', 'maxY'], point: ['x', 'y'] }
    : { box: ['minX', 'minY', 'minZ', 'maxX', 'maxY', 'maxZ'], point: ['x', 'y', 'z'] };
}

// ---------------------------------------------------------------------------
// Small numeric helpers

const scratch = new DataView(new ArrayBuffer(8));

/** The next double above `x` (finite x). */
export function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  scratch.setFloat64(0, x);
  const bits = scratch.getBigUint64(0);
  scratch.setBigUint64(0, x > 0 ? bits + 1n : bits - 1n);
  return scratch.getFloat64(0);
}

/** The next double below `x` (finite x). */
export function nextDown(x: number): number {
  return -nextUp(-x);
}

/** The box around everything a finite coordinate can reach. */
export function everythingBox(dimension: 2 | 3): Box {
  const box: number[] = [];
  for (let a = 0; a < dimension; a++) box.push(-Number.MAX_VALUE);
  for (let a = 0; a < dimension; a++) box.push(Number.MAX_VALUE);
  return box;
}

// ---------------------------------------------------------------------------
// Items of every kind, compared by identity like Map keys

/**
 * A fresh pool of distinct items of mixed types. The number 1 and the string
 * '1' are both in it (a hash keyed by strings would merge them), so are a
 * null-prototype object and a symbol (which break naive `${item}` messages),
 * `undefined` (easy to confuse with a free slot) and NaN (equal to itself as a
 * Map key, not under ===).
 */
export function makeItemPool(): unknown[] {
  const bare = Object.create(null) as object;
  return [
    { name: 'a' },
    { name: 'b' },
    { name: 'c' },
    0,
    1,
    '1',
    -7.5,
    'x',
    '',
    bare,
    Symbol('s'),
    [1, 2],
    () => 0,
    undefined,
    Number.NaN,
  ];
}

/** Maps items to their pool index so answers can be sorted and printed; unknown items map to -1. */
export class ItemIds {
  private readonly ids = new Map<unknown, number>();

  constructor(readonly pool: readonly unknown[]) {
    for (let i = 0; i < pool.length; i++) this.ids.set(pool[i], i);
  }

  id(item: unknown): number {
    return this.ids.get(item) ?? -1;
  }

  /** Sorted ids; duplicates kept so a comparison catches them. */
  sorted(items: readonly unknown[]): number[] {
    return items.map((item) => this.id(item)).sort((a, b) => a - b);
  }
}

/** Asserts that `actual` holds exactly the items of `expected`, each once, whatever the order. */
export function expectSameItems(ids: ItemIds, actual: readonly unknown[], expected: readonly unknown[], what: string) {
  const got = ids.sorted(actual);
  expect(new Set(got).size, `${what}: duplicates in [${got}]`).toBe(got.length);
  expect(got, what).toEqual(ids.sorted(expected));
}

// ---------------------------------------------------------------------------
// Error checks

const WORD = /[\w$]/;

/** True when `needle` occurs in `text` as a whole token (not inside a longer name or number). */
function containsToken(text: string, needle: string): boolean {
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    const before = at > 0 ? text[at - 1] : ' ';
    const after = at + needle.length < text.length ? text[at + needle.length] : ' ';
    if (WORD.test(before) || before === '-' || before === '.') continue;
    if (WORD.test(after) || (after === '.' && WORD.test(text[at + needle.length + 1] ?? ''))) continue;
    return true;
  }
  return false;
}

/**
 * Runs `call`, expecting a RangeError whose message names each of `names` and
 * quotes each of `values` (as String(value), as a whole token).
 */
export function expectRangeError(call: () => unknown, names: readonly string[], values: readonly unknown[]): void {
  let error: unknown;
  try {
    call();
  } catch (e) {
    error = e;
  }
  expect(error, `expected a RangeError naming ${names.join(', ')}`).toBeInstanceOf(RangeError);
  const message = (error as Error).message;
  for (const name of names) {
    expect(containsToken(message, name), `message "${message}" should name ${name}`).toBe(true);
  }
  for (const value of values) {
    const text = Object.is(value, -0) ? '-0' : String(value);
    expect(containsToken(message, text), `message "${message}" should quote the value ${text}`).toBe(true);
  }
}

/** Runs `call`, expecting an Error (any kind) whose message is not empty. */
export function expectLogicError(call: () => unknown, what: string): void {
  let error: unknown;
  try {
    call();
  } catch (e) {
    error = e;
  }
  expect(error, `${what} should throw an Error`).toBeInstanceOf(Error);
  expect((error as Error).message.length, `${what}: empty error message`).toBeGreaterThan(0);
}

// ---------------------------------------------------------------------------
// Generators

/** The world a run lives in: cell size, overflow bound and where its coordinates cluster. */
export interface Scenario {
  cellSize: number;
  maxCellsPerItem: number | undefined;
  /** 0 or 1 make every typed array grow many times during a run. */
  initialCapacity: number | undefined;
  /** Added to every ordinary coordinate: 0, or far from the origin. */
  origin: number;
}

/** Cell sizes worth testing: powers of two, decimals that do not divide evenly, tiny and huge. */
export const CELL_SIZES = [1, 10, 0.1, 0.3, 1 / 3, 7, 1e-3, 1e6] as const;

/** Scenario arbitrary: `origins` maps a cell size to the origins to try. */
export function scenarioArb(options: {
  cellSizes?: readonly number[];
  maxCellsPerItem?: readonly (number | undefined)[];
  origins?: (cellSize: number) => number[];
}): fc.Arbitrary<Scenario> {
  const cellSizes = options.cellSizes ?? CELL_SIZES;
  const limits = options.maxCellsPerItem ?? [undefined, undefined, 4, 1, 4096];
  const origins = options.origins ?? ((cs: number) => [0, 0, 0, 1e12 * cs, -1e12 * cs, 1e16 * cs, -1e300]);
  return fc
    .record({
      cellSize: fc.constantFrom(...cellSizes),
      maxCellsPerItem: fc.constantFrom(...limits),
      initialCapacity: fc.constantFrom(undefined, undefined, 0, 1),
      originIndex: fc.nat(),
    })
    .map(({ cellSize, maxCellsPerItem, initialCapacity, originIndex }) => {
      const list = origins(cellSize);
      return { cellSize, maxCellsPerItem, initialCapacity, origin: list[originIndex % list.length] };
    });
}

/** Coordinates far from everything else, some past 2^52 cells at any cell size, some at the edge of float range. */
const OUTLIERS = [1e15, -1e15, 2 ** 53, -(2 ** 53) + 1, 123456789012345.67, 1e300, -1e300, -9.87e250, Number.MAX_VALUE];

/** A coordinate: mostly on or near the cell grid around the scenario's origin, sometimes an outlier. */
export function coordinateArb(s: Scenario): fc.Arbitrary<number> {
  const cs = s.cellSize;
  const local = fc.oneof(
    // Multiples of a quarter cell: many land exactly on cell borders, negative ones too.
    { weight: 6, arbitrary: fc.integer({ min: -48, max: 48 }).map((i) => (i * cs) / 4) },
    { weight: 2, arbitrary: fc.integer({ min: -12, max: 12 }).map((k) => k * cs) },
    // One ulp either side of a border.
    {
      weight: 1,
      arbitrary: fc
        .record({ k: fc.integer({ min: -12, max: 12 }), up: fc.boolean() })
        .map(({ k, up }) => (up ? nextUp(k * cs) : nextDown(k * cs))),
    },
    { weight: 2, arbitrary: fc.double({ min: -12 * cs, max: 12 * cs, noNaN: true }) },
    { weight: 1, arbitrary: fc.constant(-0) },
  );
  return fc.oneof(
    { weight: 14, arbitrary: local.map((v) => (s.origin === 0 ? v : s.origin + v)) },
    { weight: 1, arbitrary: fc.constantFrom(...OUTLIERS) },
  );
}

/** A box extent along one axis: often zero, sometimes many cells, sometimes enormous. */
function extentArb(s: Scenario): fc.Arbitrary<number> {
  const cs = s.cellSize;
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(0) },
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 12 }).map((i) => (i * cs) / 4) },
    { weight: 2, arbitrary: fc.double({ min: 0, max: 3 * cs, noNaN: true }) },
    { weight: 1, arbitrary: fc.integer({ min: 4, max: 20 }).map((i) => i * cs) },
    { weight: 1, arbitrary: fc.constantFrom(1e4 * cs, 1e9 * cs, 1e300) },
  );
}

/** A box (argument order) of the scenario. Extents that would overflow to Infinity collapse to zero. */
export function boxArb(dimension: 2 | 3, s: Scenario): fc.Arbitrary<number[]> {
  return fc
    .tuple(
      fc.array(coordinateArb(s), { minLength: dimension, maxLength: dimension }),
      fc.array(extentArb(s), { minLength: dimension, maxLength: dimension }),
    )
    .map(([mins, extents]) => {
      const maxes = mins.map((m, a) => {
        const max = m + extents[a];
        return Number.isFinite(max) ? max : m;
      });
      return [...mins, ...maxes];
    });
}

/** A point of the scenario, drawn like box corners. */
export function pointArb(dimension: 2 | 3, s: Scenario): fc.Arbitrary<number[]> {
  return fc.array(coordinateArb(s), { minLength: dimension, maxLength: dimension });
}

/**
 * A radius. -0 is a valid zero. Past ~1.3e154 r*r overflows to Infinity and
 * the library's float formula then accepts every box, however far: the oracle
 * follows the formula, so 1e200 checks the hash does too. Infinity is valid
 * and returns everything.
 */
export function radiusArb(s: Scenario): fc.Arbitrary<number> {
  const cs = s.cellSize;
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(0, -0) },
    { weight: 5, arbitrary: fc.integer({ min: 1, max: 16 }).map((i) => (i * cs) / 4) },
    { weight: 3, arbitrary: fc.double({ min: 0, max: 5 * cs, noNaN: true }) },
    { weight: 1, arbitrary: fc.constantFrom(1e6 * cs, 1e12 * cs, 1e150, 1e200, Number.POSITIVE_INFINITY) },
  );
}

/** How a query's `out` argument is given. */
export type OutMode = 'none' | 'shared' | 'junk';

const outModeArb: fc.Arbitrary<OutMode> = fc.constantFrom('none', 'shared', 'shared', 'junk');

/** Kinds of call that must be rejected without changing anything. */
export type BadKind =
  | 'insertNonFinite'
  | 'insertPointNonFinite'
  | 'insertUnordered'
  | 'insertPresent'
  | 'updateNonFinite'
  | 'updatePointNonFinite'
  | 'updateUnordered'
  | 'updateAbsent'
  | 'queryPointNonFinite'
  | 'queryBoxNonFinite'
  | 'queryBoxUnordered'
  | 'queryRadiusNonFinite'
  | 'queryRadiusBadRadius';

const BAD_KINDS: readonly BadKind[] = [
  'insertNonFinite',
  'insertPointNonFinite',
  'insertUnordered',
  'insertPresent',
  'updateNonFinite',
  'updatePointNonFinite',
  'updateUnordered',
  'updateAbsent',
  'queryPointNonFinite',
  'queryBoxNonFinite',
  'queryBoxUnordered',
  'queryRadiusNonFinite',
  'queryRadiusBadRadius',
];

/** One step of a random sequence. Items are pool indices. */
export type Command =
  | { op: 'insert'; item: number; box: number[]; asPoint: boolean }
  | { op: 'update'; item: number; box: number[]; asPoint: boolean }
  /** Shift a present item by less than an eighth of a cell per axis (often the same cells), or not at all. */
  | { op: 'nudge'; item: number; shift: number[] }
  /** Move one side of a present item's box (one argument slot), so only that side may change cells. */
  | { op: 'stretch'; item: number; slot: number; delta: number }
  | { op: 'remove'; item: number }
  | { op: 'clear' }
  | { op: 'queryPoint'; point: number[]; out: OutMode }
  | { op: 'queryBox'; box: number[]; out: OutMode }
  | { op: 'queryRadius'; point: number[]; radius: number; out: OutMode }
  | { op: 'queryEverything'; out: OutMode }
  | {
      op: 'bad';
      kind: BadKind;
      item: number;
      box: number[];
      point: number[];
      /** Which argument to spoil: an index into the box (or point) arguments. */
      slot: number;
      value: number;
    };

/** Relative weights of the command kinds. */
export interface CommandWeights {
  insert: number;
  update: number;
  nudge: number;
  stretch: number;
  remove: number;
  clear: number;
  query: number;
  bad: number;
}

const DEFAULT_WEIGHTS: CommandWeights = {
  insert: 8,
  update: 4,
  nudge: 3,
  stretch: 3,
  remove: 3,
  clear: 1,
  query: 3,
  bad: 3,
};

/** One command of a random sequence over a pool of `poolSize` items. */
export function commandArb(
  dimension: 2 | 3,
  s: Scenario,
  poolSize: number,
  weights: CommandWeights = DEFAULT_WEIGHTS,
): fc.Arbitrary<Command> {
  const item = fc.integer({ min: 0, max: poolSize - 1 });
  const box = boxArb(dimension, s);
  const point = pointArb(dimension, s);
  const badValue = fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY);
  const badRadius = fc.constantFrom(-1, -s.cellSize, -Number.MIN_VALUE, -1e300, Number.NaN, Number.NEGATIVE_INFINITY);
  const bad = fc.constantFrom(...BAD_KINDS).chain((kind) =>
    fc.record({
      op: fc.constant('bad' as const),
      kind: fc.constant(kind),
      item,
      box,
      point,
      slot: fc.integer({ min: 0, max: 2 * dimension - 1 }),
      value: kind === 'queryRadiusBadRadius' ? badRadius : badValue,
    }),
  );
  return fc.oneof(
    {
      weight: weights.insert,
      arbitrary: fc.record({ op: fc.constant('insert' as const), item, box, asPoint: fc.boolean() }),
    },
    {
      weight: weights.update,
      arbitrary: fc.record({ op: fc.constant('update' as const), item, box, asPoint: fc.boolean() }),
    },
    {
      weight: weights.nudge,
      arbitrary: fc.record({
        op: fc.constant('nudge' as const),
        item,
        shift: fc.oneof(
          fc.constant(new Array<number>(dimension).fill(0)),
          fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: dimension, maxLength: dimension }),
        ),
      }),
    },
    {
      weight: weights.stretch,
      arbitrary: fc.record({
        op: fc.constant('stretch' as const),
        item,
        slot: fc.integer({ min: 0, max: 2 * dimension - 1 }),
        delta: fc.oneof(
          fc.integer({ min: -8, max: 8 }).map((i) => (i * s.cellSize) / 4),
          fc.double({ min: -2 * s.cellSize, max: 2 * s.cellSize, noNaN: true }),
        ),
      }),
    },
    { weight: weights.remove, arbitrary: fc.record({ op: fc.constant('remove' as const), item }) },
    { weight: weights.clear, arbitrary: fc.constant({ op: 'clear' as const }) },
    { weight: weights.query, arbitrary: fc.record({ op: fc.constant('queryPoint' as const), point, out: outModeArb }) },
    { weight: weights.query, arbitrary: fc.record({ op: fc.constant('queryBox' as const), box, out: outModeArb }) },
    {
      weight: weights.query,
      arbitrary: fc.record({ op: fc.constant('queryRadius' as const), point, radius: radiusArb(s), out: outModeArb }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('queryEverything' as const), out: outModeArb }) },
    { weight: weights.bad, arbitrary: bad },
  );
}

// ---------------------------------------------------------------------------
// The runner

/** A scenario and the commands to run in it. */
export interface Run {
  scenario: Scenario;
  commands: Command[];
}

/** A scenario and up to `maxCommands` (default 40) commands in it. */
export function runArb(
  dimension: 2 | 3,
  scenario: fc.Arbitrary<Scenario>,
  options: { poolSize?: number; maxCommands?: number; weights?: CommandWeights } = {},
): fc.Arbitrary<Run> {
  const poolSize = options.poolSize ?? makeItemPool().length;
  return scenario.chain((s) =>
    fc.record({
      scenario: fc.constant(s),
      commands: fc.array(commandArb(dimension, s, poolSize, options.weights), {
        minLength: 1,
        maxLength: options.maxCommands ?? 40,
        // fast-check's default size keeps arrays near 10 long; the bugs hide in longer histories.
        size: 'max',
      }),
    }),
  );
}

/** Everything the hash answers about itself, through its public API only. */
function snapshot(hash: HashUnderTest, oracle: BoxOracle<unknown>, ids: ItemIds, dimension: 2 | 3): unknown {
  const entries = oracle.entries();
  return {
    size: hash.size,
    cellSize: hash.cellSize,
    items: ids.sorted(hash.iterate()),
    has: ids.pool.map((item) => hash.has(item)),
    ownBox: entries.map(([, box]) => ids.sorted(hash.queryBox(box))),
    minCorner: entries.map(([, box]) => ids.sorted(hash.queryPoint(box.slice(0, dimension)))),
    everything: ids.sorted(hash.queryBox(everythingBox(dimension))),
  };
}

/**
 * Runs one command sequence against a fresh hash and the oracle, checking
 * `validate()`, size, membership and iteration after every step, every query
 * answer, and that every rejected call leaves the hash exactly as it was.
 */
export function runCommands(dimension: 2 | 3, factory: HashFactory, run: Run): void {
  const { scenario, commands } = run;
  const pool = makeItemPool();
  const ids = new ItemIds(pool);
  const names = argumentNames(dimension);
  const options: Record<string, number> = { cellSize: scenario.cellSize };
  if (scenario.maxCellsPerItem !== undefined) options.maxCellsPerItem = scenario.maxCellsPerItem;
  if (scenario.initialCapacity !== undefined) options.initialCapacity = scenario.initialCapacity;
  const hash = factory(options);
  const oracle = new BoxOracle<unknown>(dimension);
  let shared: unknown[] = [];
  const junk = { junk: true };

  expect(hash.cellSize).toBe(scenario.cellSize);

  const query = (what: string, mode: OutMode, ask: (out?: unknown[]) => unknown[], expected: unknown[]) => {
    let out: unknown[] | undefined;
    if (mode === 'shared') out = shared;
    else if (mode === 'junk') out = [junk, junk, pool[0]];
    const answer = ask(out);
    if (out !== undefined) expect(answer === out, `${what}: out must be returned`).toBe(true);
    expectSameItems(ids, answer, expected, what);
    if (mode === 'shared') shared = answer;
  };

  const probe = (box: Box, why: string) => {
    expectSameItems(ids, hash.queryBox(box), oracle.queryBox(box), `${why}: queryBox(${box})`);
    const min = box.slice(0, dimension);
    const max = box.slice(dimension);
    expectSameItems(ids, hash.queryPoint(min), oracle.queryPoint(min), `${why}: queryPoint(${min})`);
    expectSameItems(ids, hash.queryPoint(max), oracle.queryPoint(max), `${why}: queryPoint(${max})`);
    expectSameItems(ids, hash.queryRadius(min, 0), oracle.queryRadius(min, 0), `${why}: queryRadius(${min}, 0)`);
  };

  /** An absent pool item starting the search at `from`, or a fresh object outside the pool. */
  const absentItem = (from: number): unknown => {
    for (let k = 0; k < pool.length; k++) {
      const candidate = pool[(from + k) % pool.length];
      if (!oracle.has(candidate)) return candidate;
    }
    return { fresh: true };
  };
  /** A present pool item starting the search at `from`, or undefined when the hash is empty. */
  const presentItem = (from: number): unknown => {
    for (let k = 0; k < pool.length; k++) {
      const candidate = pool[(from + k) % pool.length];
      if (oracle.has(candidate)) return candidate;
    }
    return undefined;
  };

  const rejected = (command: Extract<Command, { op: 'bad' }>) => {
    const { kind, box, point, value } = command;
    const boxSlot = command.slot;
    const axis = command.slot % dimension;
    const spoiledBox = box.slice();
    spoiledBox[boxSlot] = value;
    const spoiledPoint = point.slice();
    spoiledPoint[axis] = value;
    // Swap one axis so min > max; if the box is flat there, move one side past
    // the other, towards the origin so it stays finite.
    const unordered = box.slice();
    const low = box[axis];
    const high = box[axis + dimension];
    if (low < high) {
      unordered[axis] = high;
      unordered[axis + dimension] = low;
    } else if (high >= 0) {
      unordered[axis + dimension] = high - (high * 1e-3 + 1);
    } else {
      unordered[axis] = high - (high * 1e-3 - 1);
    }
    const unorderedNames = [names.box[axis], names.box[axis + dimension]];
    const unorderedValues = [unordered[axis], unordered[axis + dimension]];
    const before = snapshot(hash, oracle, ids, dimension);
    const sharedBefore = shared.slice();
    let newcomer: unknown;
    switch (kind) {
      case 'insertNonFinite':
        newcomer = absentItem(command.item);
        expectRangeError(() => hash.insert(newcomer, spoiledBox), [names.box[boxSlot]], [value]);
        break;
      case 'insertPointNonFinite':
        newcomer = absentItem(command.item);
        expectRangeError(() => hash.insertPoint(newcomer, spoiledPoint), [names.box[axis]], [value]);
        break;
      case 'insertUnordered':
        newcomer = absentItem(command.item);
        expectRangeError(() => hash.insert(newcomer, unordered), unorderedNames, unorderedValues);
        break;
      case 'insertPresent': {
        const present = presentItem(command.item);
        if (present === undefined) return;
        expectLogicError(() => hash.insert(present, box), 'insert of a present item');
        break;
      }
      case 'updateNonFinite': {
        const present = presentItem(command.item);
        if (present === undefined) return;
        expectRangeError(() => hash.update(present, spoiledBox), [names.box[boxSlot]], [value]);
        break;
      }
      case 'updatePointNonFinite': {
        const present = presentItem(command.item);
        if (present === undefined) return;
        expectRangeError(() => hash.updatePoint(present, spoiledPoint), [names.box[axis]], [value]);
        break;
      }
      case 'updateUnordered': {
        const present = presentItem(command.item);
        if (present === undefined) return;
        expectRangeError(() => hash.update(present, unordered), unorderedNames, unorderedValues);
        break;
      }
      case 'updateAbsent':
        newcomer = absentItem(command.item);
        expectLogicError(() => hash.update(newcomer, box), 'update of an absent item');
        break;
      case 'queryPointNonFinite':
        expectRangeError(() => hash.queryPoint(spoiledPoint, shared), [names.point[axis]], [value]);
        break;
      case 'queryBoxNonFinite':
        expectRangeError(() => hash.queryBox(spoiledBox, shared), [names.box[boxSlot]], [value]);
        break;
      case 'queryBoxUnordered':
        expectRangeError(() => hash.queryBox(unordered, shared), unorderedNames, unorderedValues);
        break;
      case 'queryRadiusNonFinite':
        expectRangeError(() => hash.queryRadius(spoiledPoint, scenario.cellSize, shared), [names.point[axis]], [value]);
        break;
      case 'queryRadiusBadRadius':
        expectRangeError(() => hash.queryRadius(point, value, shared), ['radius'], [value]);
        break;
    }
    hash.validate();
    expect(snapshot(hash, oracle, ids, dimension), `${kind} changed the hash`).toEqual(before);
    if (newcomer !== undefined) expect(hash.has(newcomer), `${kind} left the item behind`).toBe(false);
    // A rejected query must not have emptied or filled the caller's array either.
    expect(ids.sorted(shared), `${kind} touched out`).toEqual(ids.sorted(sharedBefore));
  };

  for (const command of commands) {
    switch (command.op) {
      case 'insert':
      case 'update': {
        const item = pool[command.item];
        const box = command.asPoint
          ? [...command.box.slice(0, dimension), ...command.box.slice(0, dimension)]
          : command.box;
        const point = box.slice(0, dimension);
        const present = oracle.has(item);
        if (command.op === 'insert') {
          if (present) {
            expectLogicError(() => hash.insert(item, box), 'insert of a present item');
            break;
          }
          if (command.asPoint) hash.insertPoint(item, point);
          else hash.insert(item, box);
          oracle.insert(item, box);
          probe(box, `after insert of #${command.item}`);
        } else {
          if (!present) {
            expectLogicError(() => hash.update(item, box), 'update of an absent item');
            break;
          }
          const old = oracle.boxOf(item);
          if (command.asPoint) hash.updatePoint(item, point);
          else hash.update(item, box);
          oracle.update(item, box);
          probe(box, `after update of #${command.item}`);
          probe(old, `old place after update of #${command.item}`);
        }
        break;
      }
      case 'nudge': {
        const item = pool[command.item];
        if (!oracle.has(item)) break;
        const old = oracle.boxOf(item);
        const step = scenario.cellSize / 8;
        const box = old.map((v, i) => {
          const moved = v + command.shift[i % dimension] * step;
          return Number.isFinite(moved) ? moved : v;
        });
        // A shift absorbed by rounding on one side only could unorder a flat box.
        for (let a = 0; a < dimension; a++) if (box[a] > box[a + dimension]) box[a + dimension] = box[a];
        hash.update(item, box);
        oracle.update(item, box);
        probe(box, `after nudge of #${command.item}`);
        probe(old, `old place after nudge of #${command.item}`);
        break;
      }
      case 'stretch': {
        const item = pool[command.item];
        if (!oracle.has(item)) break;
        const old = oracle.boxOf(item);
        const box = old.slice();
        const { slot } = command;
        const moved = old[slot] + command.delta;
        if (Number.isFinite(moved)) box[slot] = moved;
        // Past the opposite side, stop at it (a flat box).
        const axis = slot % dimension;
        if (box[axis] > box[axis + dimension]) box[slot] = box[slot < dimension ? slot + dimension : slot - dimension];
        hash.update(item, box);
        oracle.update(item, box);
        probe(box, `after stretch of #${command.item}`);
        probe(old, `old place after stretch of #${command.item}`);
        break;
      }
      case 'remove': {
        const item = pool[command.item];
        expect(hash.remove(item), `remove(#${command.item})`).toBe(oracle.remove(item));
        break;
      }
      case 'clear':
        hash.clear();
        oracle.clear();
        break;
      case 'queryPoint':
        query(
          `queryPoint(${command.point})`,
          command.out,
          (out) => hash.queryPoint(command.point, out),
          oracle.queryPoint(command.point),
        );
        break;
      case 'queryBox':
        query(
          `queryBox(${command.box})`,
          command.out,
          (out) => hash.queryBox(command.box, out),
          oracle.queryBox(command.box),
        );
        break;
      case 'queryRadius':
        query(
          `queryRadius(${command.point}, ${command.radius})`,
          command.out,
          (out) => hash.queryRadius(command.point, command.radius, out),
          oracle.queryRadius(command.point, command.radius),
        );
        break;
      case 'queryEverything': {
        const box = everythingBox(dimension);
        query('queryBox(everything)', command.out, (out) => hash.queryBox(box, out), oracle.items());
        break;
      }
      case 'bad':
        rejected(command);
        break;
    }
    hash.validate();
    expect(hash.size, 'size').toBe(oracle.size);
    expectSameItems(ids, hash.iterate(), oracle.items(), 'for...of');
    expectSameItems(ids, hash.forEachItems(), oracle.items(), 'forEach');
    for (let i = 0; i < pool.length; i++) expect(hash.has(pool[i]), `has(#${i})`).toBe(oracle.has(pool[i]));
  }
}

/** One seeded property: the seed is in the test name and fast-check prints it (and the shrunk run) on failure. */
interface PropertyCase {
  name: string;
  seed: number;
  numRuns: number;
  scenario: fc.Arbitrary<Scenario>;
  maxCommands?: number;
  weights?: CommandWeights;
}

function propertyCases(): PropertyCase[] {
  return [
    {
      name: 'mixed cell sizes, origins and overflow bounds',
      seed: 0x5eed1000,
      numRuns: 120,
      scenario: scenarioArb({}),
    },
    {
      name: 'near the origin: negative coordinates, cell borders, coincident items',
      seed: 0x5eed2000,
      numRuns: 80,
      scenario: scenarioArb({ origins: () => [0] }),
      maxCommands: 60,
    },
    {
      name: 'far away: |x| ~ 1e12 cells, cell indices beyond 32 bits',
      seed: 0x5eed3000,
      numRuns: 50,
      scenario: scenarioArb({ cellSizes: [1, 0.1, 1e-3], origins: (cs) => [1e12 * cs, -1e12 * cs, 1e12] }),
    },
    {
      name: 'beyond 2^52 cells: 1e16 cells up to 1e300',
      seed: 0x5eed4000,
      numRuns: 50,
      scenario: scenarioArb({ origins: (cs) => [1e16 * cs, -1e16 * cs, 1e200, -1e300] }),
    },
    {
      name: 'small overflow bounds (maxCellsPerItem 1 and 4)',
      seed: 0x5eed5000,
      numRuns: 50,
      scenario: scenarioArb({ maxCellsPerItem: [1, 4], origins: () => [0] }),
    },
    {
      name: 'rejected calls leave the hash exactly as it was',
      seed: 0x5eed6000,
      numRuns: 50,
      scenario: scenarioArb({}),
      weights: { insert: 6, update: 2, nudge: 1, stretch: 1, remove: 1, clear: 0, query: 1, bad: 10 },
    },
  ];
}

/** Declares the seeded random-sequence properties for one dimension. */
export function describeHashProperties(dimension: 2 | 3, factory: HashFactory): void {
  describe(`SpatialHash${dimension}D random command sequences against a brute-force oracle`, () => {
    for (const c of propertyCases()) {
      // Each dimension gets its own seed: the case seed + 2 in 2D, + 3 in 3D.
      const seed = c.seed + dimension;
      it(`${c.name} (seed ${seed}, ${c.numRuns} runs)`, () => {
        fc.assert(
          fc.property(runArb(dimension, c.scenario, { maxCommands: c.maxCommands, weights: c.weights }), (run) => {
            runCommands(dimension, factory, run);
          }),
          { seed, numRuns: c.numRuns },
        );
      });
    }
  });
}
