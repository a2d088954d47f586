/**
 * The commands of the stateful kernel suites (kernels.cases.ts) over a
 * {@link World} (grid-world.ts), and the fast-check arbitraries that draw
 * them. Each command holds only its drawn parameters and resolves them
 * against the world when it runs (which grid, which points, which query
 * point), so fast-check can drop and shrink commands freely: a failure
 * shrinks to the shortest sequence that still fails, printed one command per
 * step as `toString` names it.
 *
 * @module
 */

import fc from 'fast-check';
import type { NumericArray } from '../../src/core/validate.js';
import type { KernelMode } from '../../src/index.js';
import { kernelMemoryLimitForTests } from '../../src/wasm/kernels.js';
import { batchPairsForTests } from '../../src/wasm/pair-kernels.js';
import { KERNEL_BASE } from '../../src/wasm/records.js';
import type { Layout } from '../support/pointgrid-oracle.js';
import {
  type MoveSpec,
  makePoints,
  type Nested,
  type PairKind,
  type PointsSpec,
  type QueryKind,
  type QuerySpec,
  type Shape,
  type Slot,
  subject,
  type World,
} from './grid-world.js';

/** A command of the sync suites: an action on the world, named for the failure report. */
export class Step<W = World> implements fc.Command<object, W> {
  constructor(
    private readonly label: string,
    private readonly action: (world: W) => void,
  ) {}

  check(): boolean {
    return true;
  }

  run(_model: object, world: W): void {
    this.action(world);
  }

  toString(): string {
    return this.label;
  }
}

/** A command of the pool suite (the pool's calls are asynchronous; the others run as they are). */
export class AsyncStep implements fc.AsyncCommand<object, World> {
  constructor(
    private readonly label: string,
    private readonly action: (world: World) => void | Promise<void>,
  ) {}

  check(): boolean {
    return true;
  }

  async run(_model: object, world: World): Promise<void> {
    await this.action(world);
  }

  toString(): string {
    return this.label;
  }
}

// ---------------------------------------------------------------------------
// Parameters

/**
 * What FUZZ_SKIP (a comma-separated list) leaves out of every sequence:
 * command names (GridCommand's, 'transfer', 'pool'), query anchors
 * ('outside', 'far'), kernel modes ('verify', 'wasm'...), and 'unshared'
 * (every grid then has `shared: true`).
 * For finding which other defects the suites meet while one is known (a
 * property reports its first failure only); CI sets none.
 */
export const SKIP: ReadonlySet<string> = new Set(
  (typeof process === 'undefined' ? '' : (process.env.FUZZ_SKIP ?? '')).split(',').filter((name) => name !== ''),
);

/** `values` without the ones FUZZ_SKIP names. */
export function kept<T extends string>(values: T[]): T[] {
  return values.filter((value) => !SKIP.has(value));
}

const pick = fc.nat(60);
const seed = fc.integer({ min: 1, max: 2 ** 31 - 2 });
const unit = fc.integer({ min: -8, max: 8 }).map((k) => k / 8);
const kinds = fc.constantFrom<Layout['kind']>('f64', 'f32', 'array');

/** Point sets: mostly a few dozen points; now and then a few hundred (past the query throttle's 64). */
export const pointsArb: fc.Arbitrary<PointsSpec> = fc.record({
  shape: fc.constantFrom<PointsSpec['shape']>(
    'uniform',
    'uniform',
    'lattice',
    'coincident',
    'clustered',
    'far',
    'line',
    'distant',
  ),
  count: fc.oneof({ arbitrary: fc.nat(40), weight: 9 }, { arbitrary: fc.integer({ min: 100, max: 300 }), weight: 1 }),
  seed,
});

/** Grid settings in `dims`: every array kind, packed and strided, dense, hashed and a dense limit that flips. */
export function shapeArb(dims: readonly (2 | 3)[]): fc.Arbitrary<Shape> {
  return fc.constantFrom(...dims).chain((d) =>
    fc.record({
      d: fc.constant(d),
      layout: fc.record({
        stride: fc.constantFrom(d, d, d + 1, d + 2),
        offset: fc.constantFrom(0, 0, 1, 2),
        kind: kinds,
      }),
      cellSize: fc.constantFrom(1, 1, 0.5, 0.3, 2.5, 7),
      // undefined: the default limit; 0: always hashed; 24: dense or hashed as the points spread.
      maxDenseCells: fc.constantFrom(undefined, undefined, 0, 24),
      shared: SKIP.has('unshared') ? fc.constant(true) : fc.boolean(),
    }),
  );
}

export const queryArb: fc.Arbitrary<QuerySpec> = fc.record({
  anchor: fc.constantFrom<QuerySpec['anchor']>(
    ...kept<QuerySpec['anchor']>(['point', 'point', 'near', 'near', 'free', 'outside', 'outside', 'far']),
  ),
  pick,
  u: fc.tuple(unit, unit, unit),
  radius: fc.constantFrom<number | 'exact'>(0, 0.5, 1, 1, 1.5, 2.5, 6, Number.POSITIVE_INFINITY, 'exact'),
});

/** Pair radii in cell sizes: 0, below, at and past one cell, several cells. */
const pairRadius = fc.constantFrom(0, 0.25, 0.999, 1, 1, 1.5, 2, 3.5);

const moveArb: fc.Arbitrary<MoveSpec> = fc.record({
  kind: fc.constantFrom<MoveSpec['kind']>('jitter', 'jitter', 'shift', 'shift', 'scatter', 'collapse', 'swap'),
  seed,
  share: fc.constantFrom(0.1, 0.5, 1),
});

// 'verify' answers every kernel call in JavaScript too and throws at the first difference (a wrong kernel answer
// then shows as the subject's Error where the twin answers).
const modes = fc.constantFrom<KernelMode>(...kept<KernelMode>(['auto', 'auto', 'wasm', 'javascript', 'verify']));

/** A call from inside a visitor. */
const nestedArb: fc.Arbitrary<Nested> = fc.record({
  op: fc.constantFrom<Nested['op']>(
    'within',
    'within',
    'burst',
    'withinInto',
    'nearest',
    'pairs',
    'forEachPair',
    'rebuild',
    'mode',
    'release',
  ),
  other: fc.boolean(),
  pick,
  query: queryArb,
  mode: modes,
});

function describeQuery(q: QuerySpec): string {
  return `${q.anchor} ${q.pick} [${q.u}] r ${q.radius}`;
}

// ---------------------------------------------------------------------------
// Rebuilds

/** How a rebuild gets its array. */
export type RebuildHow = 'same' | 'explicit' | 'copy' | 'larger' | 'smaller' | 'kind' | 'fresh';

/** The array a rebuild of `slot` reads (undefined: the grid's own) and its layout. */
export function rebuildInput(
  world: World,
  slot: Slot,
  how: RebuildHow,
  points: PointsSpec,
  kind: Layout['kind'],
): { positions: NumericArray | undefined; layout: Layout } {
  if (how === 'same') return { positions: undefined, layout: slot.layout };
  if (how === 'explicit') return { positions: slot.positions, layout: slot.layout };
  const now = world.currentPoints(slot);
  const own = slot.layout.kind;
  switch (how) {
    case 'copy':
      return world.packFor(slot, now, own);
    case 'larger':
      return world.packFor(
        slot,
        now.concat(makePoints({ ...points, count: 1 + points.count }, slot.d, slot.cellSize)),
        own,
      );
    case 'smaller':
      return world.packFor(slot, now.slice(0, Math.floor(now.length * ((points.seed % 4) / 4))), own);
    case 'kind':
      return world.packFor(slot, now, kind === own ? (own === 'f32' ? 'f64' : 'f32') : kind);
    default:
      return world.packFor(slot, makePoints(points, slot.d, slot.cellSize), kind);
  }
}

const rebuildHow = fc.constantFrom<RebuildHow>(
  'same',
  'same',
  'same',
  'explicit',
  'copy',
  'larger',
  'smaller',
  'kind',
  'fresh',
);

// ---------------------------------------------------------------------------
// Commands

/** Runs `act` on slot `p` when there is one. */
function onSlot(world: World, p: number, act: (slot: Slot) => void): void {
  const slot = world.slot(p);
  if (slot !== undefined) act(slot);
}

/** The calls of an `interleave` command. */
const INTERLEAVED = [
  'within',
  'within',
  'withinMany',
  'pairs',
  'forEachPair',
  'nearest',
  'rebuild',
  'rebuild in JavaScript',
  'release',
  'other grid',
] as const;
type InterleavedOp = (typeof INTERLEAVED)[number];

/** One call of an `interleave` command on `slot` (see gridCommands). */
function interleaved(
  w: World,
  slot: Slot,
  op: InterleavedOp,
  query: QuerySpec,
  radius: number,
  move: MoveSpec,
  other: number,
): void {
  switch (op) {
    case 'within':
    case 'nearest':
      w.query(slot, op, query, other);
      return;
    case 'withinMany':
      w.withinMany(slot, [query, { ...query, pick: query.pick + 1 }], { stride: slot.d, offset: 0 }, false);
      return;
    case 'pairs':
    case 'forEachPair':
      w.pairSearch(slot, op, radius * slot.cellSize, 0, 1, false);
      return;
    case 'rebuild':
    case 'rebuild in JavaScript': {
      const before = w.mode;
      if (op !== 'rebuild') subject.setKernelMode('javascript');
      try {
        w.move(slot, move);
        w.rebuild(slot, undefined, slot.layout);
      } finally {
        subject.setKernelMode(before);
      }
      return;
    }
    case 'release':
      subject.releaseKernelMemory();
      return;
    case 'other grid': {
      const next = w.slot(other);
      if (next !== undefined) w.query(next, 'within', query, 0);
    }
  }
}

/** The names of the grid commands (see gridCommands). */
export type GridCommand =
  | 'build'
  | 'move'
  | 'rebuild'
  | 'moveRebuild'
  | 'modeRebuild'
  | 'foreign'
  | 'query'
  | 'interleave'
  | 'burst'
  | 'withinMany'
  | 'pairs'
  | 'nested'
  | 'from'
  | 'corrupt'
  | 'batch'
  | 'counts'
  | 'limit'
  | 'release'
  | 'mode'
  | 'validate'
  | 'poison';

/**
 * Each command arbitrary of `set` repeated `weights[name]` times (fc.commands
 * draws each entry alike), none of those FUZZ_SKIP names.
 */
export function weighted<K extends string, C>(
  set: Record<K, fc.Arbitrary<C>>,
  weights: Partial<Record<K, number>>,
): fc.Arbitrary<C>[] {
  const out: fc.Arbitrary<C>[] = [];
  for (const key of Object.keys(set) as K[]) {
    if (SKIP.has(key)) continue;
    for (let k = 0; k < (weights[key] ?? 1); k++) out.push(set[key]);
  }
  return out;
}

/** The grid commands of every suite, drawn in `dims`, as sync Steps, by name. */
export function gridCommands(dims: readonly (2 | 3)[]): Record<GridCommand, fc.Arbitrary<Step>> {
  return {
    build: fc
      .tuple(shapeArb(dims), pointsArb, pick)
      .map(
        ([shape, points, p]) =>
          new Step(`build(${JSON.stringify(shape)}, ${JSON.stringify(points)})`, (w) =>
            w.build(shape, makePoints(points, shape.d, shape.cellSize), p),
          ),
      ),
    move: fc
      .tuple(pick, moveArb)
      .map(
        ([p, move]) =>
          new Step(`move(${p}, ${JSON.stringify(move)})`, (w) => onSlot(w, p, (slot) => w.move(slot, move))),
      ),
    rebuild: fc.tuple(pick, rebuildHow, pointsArb, kinds).map(
      ([p, how, points, kind]) =>
        new Step(`rebuild(${p}, ${how}${how === 'same' ? '' : `, ${JSON.stringify(points)}, ${kind}`})`, (w) =>
          onSlot(w, p, (slot) => {
            const { positions, layout } = rebuildInput(w, slot, how, points, kind);
            w.rebuild(slot, positions, layout);
          }),
        ),
    ),
    moveRebuild: fc.tuple(pick, rebuildHow, pointsArb, kinds, moveArb).map(
      ([p, how, points, kind, move]) =>
        new Step(`move and rebuild(${p}, ${JSON.stringify(move)}, ${how})`, (w) =>
          onSlot(w, p, (slot) => {
            w.move(slot, move);
            const { positions, layout } = rebuildInput(w, slot, how, points, kind);
            w.rebuild(slot, positions, layout);
          }),
        ),
    ),
    modeRebuild: fc
      .tuple(
        pick,
        fc.constantFrom<KernelMode>(...kept<KernelMode>(['javascript', 'javascript', 'wasm', 'auto', 'verify'])),
        rebuildHow,
        pointsArb,
        kinds,
        moveArb,
      )
      .map(
        ([p, mode, how, points, kind, move]) =>
          new Step(`rebuild under setKernelMode('${mode}')(${p}, ${JSON.stringify(move)}, ${how}), then back`, (w) =>
            onSlot(w, p, (slot) => {
              // A build on the other path of a grid whose copy the kernels may hold (their stamps must see it).
              const before = w.mode;
              subject.setKernelMode(mode);
              try {
                w.move(slot, move);
                const { positions, layout } = rebuildInput(w, slot, how, points, kind);
                w.rebuild(slot, positions, layout);
              } finally {
                subject.setKernelMode(before);
              }
              w.count(`rebuild in mode ${mode}`);
            }),
          ),
      ),
    foreign: fc.tuple(pick, rebuildHow, pointsArb, kinds, moveArb).map(
      ([p, how, points, kind, move]) =>
        new Step(`rebuild by another thread(${p}, ${JSON.stringify(move)}, ${how})`, (w) =>
          onSlot(w, p, (slot) => {
            w.move(slot, move);
            const { positions, layout } = rebuildInput(w, slot, how, points, kind);
            w.foreignRebuild(slot, positions ?? slot.positions, layout);
          }),
        ),
    ),
    query: fc
      .tuple(
        pick,
        fc.constantFrom<QueryKind>('within', 'within', 'withinOut', 'withinInto', 'withinIntoShort', 'nearest'),
        queryArb,
        fc.nat(7),
      )
      .map(
        ([p, kind, query, k]) =>
          new Step(`query(${p}, ${kind}, ${describeQuery(query)}, k ${k})`, (w) =>
            onSlot(w, p, (slot) => w.query(slot, kind, query, k)),
          ),
      ),
    interleave: fc
      .tuple(
        pick,
        fc.array(fc.tuple(fc.constantFrom<InterleavedOp>(...INTERLEAVED), queryArb, pairRadius, moveArb, pick), {
          minLength: 3,
          maxLength: 8,
        }),
      )
      .map(
        ([p, ops]) =>
          new Step(`interleave(${p}: ${ops.map(([op]) => op).join(', ')})`, (w) =>
            onSlot(w, p, (slot) => {
              // Queries, searches, rebuilds and releases of one grid back to back: what one call leaves in the
              // kernels (query globals, the mirror, result areas) is what the next one finds.
              for (const [op, query, radius, move, other] of ops) interleaved(w, slot, op, query, radius, move, other);
            }),
          ),
      ),
    burst: fc.tuple(pick, pick, fc.integer({ min: 40, max: 150 }), queryArb).map(
      ([a, b, count, query]) =>
        new Step(`burst(${a}, ${b}, ${count} withins, ${describeQuery(query)})`, (w) => {
          // within calls alternating between two grids (or one): the kernels' query state and their copy throttle.
          const first = w.slot(a);
          const second = w.slot(b);
          if (first === undefined || second === undefined) return;
          for (let i = 0; i < count; i++) {
            const slot = i % 3 === 2 ? first : second;
            // Another point each time (the same anchor and radius rule), so a burst also sweeps where it asks.
            const u = query.u.map((v, a) => (((v * 8 + i * (a + 3) + 8) % 17) - 8) / 8);
            w.query(i % 2 === 0 ? first : slot, 'within', { ...query, pick: query.pick + i, u }, 0);
          }
        }),
    ),
    withinMany: fc
      .tuple(
        pick,
        fc.array(queryArb, { minLength: 1, maxLength: 6 }),
        fc.constantFrom({ stride: 0, offset: 0 }, { stride: 1, offset: 1 }),
        fc.boolean(),
      )
      .map(
        ([p, queries, extra, reuse]) =>
          new Step(
            `withinMany(${p}, [${queries.map(describeQuery).join('; ')}], stride +${extra.stride}, offset ${extra.offset}${reuse ? ', out' : ''})`,
            (w) =>
              onSlot(w, p, (slot) =>
                w.withinMany(slot, queries, { stride: slot.d + extra.stride, offset: extra.offset }, reuse),
              ),
          ),
      ),
    pairs: fc
      .tuple(
        pick,
        fc.constantFrom<PairKind>(
          'forEachPair',
          'forEachPair',
          'forEachPairDistance',
          'forEachPairBatch',
          'pairs',
          'pairs',
          'neighbors',
        ),
        pairRadius,
        fc.nat(3),
        fc.constantFrom(1, 1, 1, 2, 3),
        fc.boolean(),
      )
      .map(
        ([p, kind, radius, part, parts, reuse]) =>
          new Step(`pairs(${p}, ${kind}, r ${radius}, part ${part} of ${parts}${reuse ? ', out' : ''})`, (w) =>
            onSlot(w, p, (slot) => w.pairSearch(slot, kind, radius * slot.cellSize, part, parts, reuse)),
          ),
      ),
    nested: fc
      .tuple(
        pick,
        pairRadius,
        fc.array(fc.nat(12), { minLength: 1, maxLength: 3 }),
        fc.array(nestedArb, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
      )
      .map(
        ([p, radius, at, nested, batches]) =>
          new Step(
            `nested(${p}, r ${radius}, at [${at}], ${nested.map((n) => `${n.op}${n.other ? ` on ${n.pick}` : ''}${n.op === 'mode' ? ` ${n.mode}` : ''}`).join(', ')}${batches ? ', from forEachPairBatch' : ''})`,
            (w) =>
              onSlot(w, p, (slot) => w.nestedSearch(slot, Math.max(radius, 1) * slot.cellSize, at, nested, batches)),
          ),
      ),
    from: fc.tuple(pick, fc.boolean(), fc.constantFrom<'full' | 'header'>('full', 'header'), pick).map(
      ([p, clone, check, to]) =>
        new Step(`from(${p}, ${clone ? 'clone' : 'view'}, ${check})`, (w) =>
          onSlot(w, p, (slot) => {
            w.open(slot, clone, check, to);
          }),
        ),
    ),
    corrupt: fc
      .tuple(
        pick,
        fc.constantFrom<'cellStart' | 'sortedIndex' | 'coords'>(
          'cellStart',
          'cellStart',
          'cellStart',
          'sortedIndex',
          'coords',
        ),
        fc.integer({ min: 0, max: 15 }).map((k) => k / 16),
        fc.constantFrom(-(2 ** 31), -(2 ** 31), -(2 ** 31), 2 ** 31 - 1, -1, 3, 1e6, Number.NaN, -1e300),
        pick,
        fc.array(queryArb, { maxLength: 4 }),
      )
      .map(
        ([p, section, where, value, to, queries]) =>
          new Step(
            `corrupt(${p}, ${section}[${where}] = ${value}, then within ${queries.map(describeQuery).join('; ')})`,
            (w) =>
              onSlot(w, p, (slot) => {
                // The copy's first queries: a search through the written-over part is the point.
                const opened = w.corrupt(slot, section, where, value, to);
                if (opened !== undefined) for (const query of queries) w.query(opened, 'within', query, 0);
              }),
          ),
      ),
    batch: fc.constantFrom(1, 3, 1 << 14).map(
      (pairs) =>
        new Step(`batchPairsForTests(${pairs})`, (w) => {
          // The kernels hand a forEachPair visitor its pairs in batches (16384 by default): smaller ones make a
          // small grid's search stop and resume around its visitor, as a large grid's does.
          batchPairsForTests(pairs);
          w.count(pairs < 100 ? 'small batches' : 'batches of 16384');
        }),
    ),
    counts: fc.constant(new Step('counts', (w) => w.expectCounts())),
    limit: fc
      .tuple(
        pick,
        fc.constantFrom(0.5, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 4, 10),
        fc.constantFrom<RebuildHow>('same', 'same', 'explicit', 'copy', 'larger', 'kind'),
        pointsArb,
        kinds,
        fc.oneof(
          moveArb,
          moveArb.map((m) => ({ ...m, kind: 'crowd' as const })),
        ),
      )
      .map(
        ([p, share, how, points, kind, move]) =>
          new Step(`rebuild with the kernels' memory held to ${share} x 8(d + 1) bytes a point(${p}, ${how})`, (w) =>
            onSlot(w, p, (slot) => {
              // A reservation that fails part-way through a kernel build (as at 4 GiB): the build falls back to
              // JavaScript, and nothing may trust what the kernels had written before it did. The limit is drawn in
              // units of 8 (d + 1) bytes a point of the new points: a dense build reserves some 1 to 1.75 units
              // first, then, for a crowded cell (the 'crowd' move makes one), a quarter to a half more for its
              // sort, so the draws around 1.25 to 2.5 stop the build between its reservations, the others before
              // the first or not at all. A limit above the memory's size (1 MiB at least) would never bite, as
              // the earlier draws of 'a few more pages' never did (see kernelMemoryLimitForTests).
              w.move(slot, move);
              const { positions, layout } = rebuildInput(w, slot, how, points, kind);
              const input = positions ?? slot.positions ?? [];
              const n =
                input.length === 0
                  ? 0
                  : Math.floor((input.length - slot.subject.offset - slot.d) / slot.subject.stride) + 1;
              const last = kernelMemoryLimitForTests(
                KERNEL_BASE + Math.ceil(share * 8 * (slot.d + 1) * Math.max(n, 1)),
              );
              try {
                w.rebuild(slot, positions, layout);
              } finally {
                kernelMemoryLimitForTests(last);
              }
              w.count('rebuild at a memory limit');
            }),
          ),
      ),
    release: fc.constant(
      new Step('releaseKernelMemory()', (w) => {
        subject.releaseKernelMemory();
        w.count('release');
      }),
    ),
    mode: modes.map(
      (mode) =>
        new Step(`setKernelMode('${mode}')`, (w) => {
          subject.setKernelMode(mode);
          w.mode = mode;
          w.count(`mode ${mode}`);
        }),
    ),
    validate: pick.map(
      (p) =>
        new Step(`validate(${p})`, (w) =>
          onSlot(w, p, (slot) => {
            if (!w.validates(slot)) return;
            slot.subject.validate();
            slot.twin.validate();
            w.expectSameBuffers(slot, 'at validate()');
          }),
        ),
    ),
    poison: fc.tuple(pick, fc.nat(50)).map(
      ([p, i]) =>
        new Step(`poison(${p}, point ${i})`, (w) =>
          onSlot(w, p, (slot) => {
            // A NaN coordinate: the rebuild throws on both and leaves the grid as it was.
            const positions = slot.positions;
            if (positions === undefined || positions.length === 0 || positions.length < slot.subject.offset + 1) return;
            const n = Math.floor((positions.length - slot.subject.offset - slot.d) / slot.subject.stride) + 1;
            const at = slot.subject.offset + (i % n) * slot.subject.stride;
            const kept = positions[at];
            (positions as number[])[at] = Number.NaN;
            try {
              w.rebuild(slot, undefined, slot.layout);
            } finally {
              (positions as number[])[at] = kept;
            }
          }),
        ),
    ),
  };
}

/** Rare commands: transfers of a grid's buffer or of its positions' buffer. */
export function transferCommands(): fc.Arbitrary<Step>[] {
  if (SKIP.has('transfer')) return [];
  return [
    pick.map((p) => new Step(`transfer data(${p})`, (w) => onSlot(w, p, (slot) => w.transferData(slot)))),
    pick.map(
      (p) => new Step(`transfer positions(${p}) and rebuild`, (w) => onSlot(w, p, (slot) => w.transferPositions(slot))),
    ),
  ];
}

/** The pool commands (pool suite): rebuilds and searches through pool `index`, as AsyncSteps. */
export function poolCommands(): fc.Arbitrary<AsyncStep>[] {
  if (SKIP.has('pool')) return [];
  return [
    fc.tuple(pick, fc.nat(1), rebuildHow, pointsArb, kinds, moveArb).map(
      ([p, index, how, points, kind, move]) =>
        new AsyncStep(`pool ${index} move and rebuild(${p}, ${JSON.stringify(move)}, ${how})`, async (w) => {
          const slot = w.slot(p);
          if (slot === undefined || slot.corrupt) return;
          // Moved first: a rebuild of the same points gives the same grid, and a stale copy would still answer right.
          w.move(slot, move);
          const { positions, layout } = rebuildInput(w, slot, how, points, kind);
          await w.poolRebuild(w.pools[index % w.pools.length], slot, positions, layout);
        }),
    ),
    fc
      .tuple(pick, fc.nat(1), fc.constantFrom<'pairs' | 'neighbors'>('pairs', 'neighbors'), pairRadius, fc.boolean())
      .map(
        ([p, index, kind, radius, reuse]) =>
          new AsyncStep(`pool ${index} ${kind}(${p}, r ${radius}${reuse ? ', out' : ''})`, async (w) => {
            const slot = w.slot(p);
            if (slot === undefined || slot.corrupt || w.isDetached(slot)) return;
            await w.poolSearch(w.pools[index % w.pools.length], slot, kind, radius * slot.cellSize, reuse);
          }),
      ),
  ];
}

/** A sync Step as an AsyncStep (the pool suite's sequences mix both). */
export function asAsync(step: fc.Arbitrary<Step>): fc.Arbitrary<AsyncStep> {
  return step.map((s) => new AsyncStep(s.toString(), (w) => s.run({}, w)));
}

/** The grids a sequence starts with. */
export function initialArb(dims: readonly (2 | 3)[]): fc.Arbitrary<{ shape: Shape; points: PointsSpec }[]> {
  return fc.array(fc.record({ shape: shapeArb(dims), points: pointsArb }), { minLength: 2, maxLength: 3 });
}

/** Builds the starting grids of a sequence into `world`. */
export function setUpWorld(world: World, initial: { shape: Shape; points: PointsSpec }[]): void {
  for (const { shape, points } of initial) world.build(shape, makePoints(points, shape.d, shape.cellSize));
}
