/**
 * Stateful differential suites of the WebAssembly kernels (issue 39), run by
 * kernels.test.ts under the runner's watchdog (support.ts): seeded random
 * sequences of commands on several grids at once (grid-world.ts,
 * grid-commands.ts), each grid against its JavaScript-path twin (twin.ts:
 * the same answers in the same order) and a brute-force oracle, shrunk by
 * fast-check to the shortest failing sequence.
 *
 * - grids2d / grids3d: PointGrid2D or PointGrid3D grids, dense and hashed,
 *   over Float32Array, Float64Array and number[] positions, packed and
 *   strided: builds, moves in place, rebuilds from the same, a new, a larger
 *   or a smaller array, every query with and without `out` and with
 *   `part`/`parts`, calls from inside a visitor, from() views and copies
 *   with the full and the header check (SharedArrayBuffer views whose owner
 *   rebuilds in place among them), corrupt copies, releaseKernelMemory(),
 *   mode switches and rejected rebuilds.
 * - mixed: 2D and 3D grids in one sequence, so that the kernels' one
 *   mirror and query state pass between dimensions too.
 * - transfers: the same, 2D and 3D, with grid buffers and positions'
 *   buffers transferred away (structuredClone with transfer) now and then.
 * - weld: grid sequences with weld and weldMesh calls mixed in
 *   (weld-commands.ts): the weld and the grids share the kernels' memory.
 * - pool: grid sequences with a PointGridWorkers pool in shared mode (2 threads)
 *   and one in copy mode (1 thread) mixed in: pool.rebuild, pool.pairs and
 *   pool.neighbors.
 *
 * Each property also fails when its runs never took one of the paths it
 * lists (see expectTaken). CI runs each property the runs given here;
 * `npm run fuzz` runs them FUZZ_RUNS times, and FUZZ_SKIP leaves commands
 * out (see grid-commands.ts).
 *
 * @module
 */

import fc from 'fast-check';
import { batchPairsForTests } from '../../src/wasm/pair-kernels.js';
import { PointGridWorkers } from '../../src/workers/index.js';
import { ForeignBuilder } from './foreign.js';
import {
  type AsyncStep,
  asAsync,
  gridCommands,
  initialArb,
  poolCommands,
  SKIP,
  setUpWorld,
  transferCommands,
  weighted,
} from './grid-commands.js';
import { subject, World } from './grid-world.js';
import { commandSequences, fuzz, fuzzAsync } from './support.js';
import { weldCommands } from './weld-commands.js';

/** How often each grid command is drawn, against 1 for the others. */
const WEIGHTS = {
  query: 4,
  interleave: 3,
  rebuild: 3,
  moveRebuild: 3,
  modeRebuild: 2,
  move: 2,
  pairs: 3,
  withinMany: 2,
} as const;

/** Commands per sequence, at most. */
const MAX_COMMANDS = 40;

type Initial = Parameters<typeof setUpWorld>[1];

/** Grid sequences in `dims`, with the transfer commands (`transfers` times each) or without. */
function gridSequences(
  dims: readonly (2 | 3)[],
  transfers = 0,
): fc.Arbitrary<[Initial, Iterable<fc.Command<object, World>>]> {
  const commands = [...weighted(gridCommands(dims), WEIGHTS)];
  for (let k = 0; k < transfers; k++) commands.push(...transferCommands());
  return fc.tuple(initialArb(dims), commandSequences(commands, { maxCommands: MAX_COMMANDS, size: 'max' }));
}

/** What the sequences of the property under way did, summed over its runs (see World.taken). */
const totals = new Map<string, number>();

/** The thread that rebuilds shared buffers in the sequences of the property under way (see World.foreignRebuild). */
let foreign: ForeignBuilder | undefined;

/** A world for one sequence, from a clean kernel memory: a run's outcome must not hang on the runs before it. */
function freshWorld(pools: PointGridWorkers[] = []): World {
  subject.releaseKernelMemory();
  batchPairsForTests(1 << 14);
  return new World(pools, foreign);
}

/** Adds a finished sequence's counts to the totals. */
function tally(world: World): void {
  for (const [what, count] of world.taken) totals.set(what, (totals.get(what) ?? 0) + count);
}

/**
 * Fails unless every path named in `required` was taken in the property's
 * runs (unless FUZZ_SKIP leaves commands out): a change that quietly stops
 * the sequences reaching one (a generator that no longer draws it, a check
 * that returns early) would otherwise leave the suite passing without testing it.
 */
function expectTaken(name: string, required: string[]): void {
  if (SKIP.size > 0) return;
  const missing = required.filter((what) => !((totals.get(what) ?? 0) > 0));
  if (missing.length > 0) {
    throw new Error(`${name}: no sequence took ${missing.join(', ')}; taken: ${JSON.stringify([...totals])}`);
  }
}

/** Paths every grid property must take. */
const GRID_PATHS = [
  'build dense f64',
  'build dense f32',
  'build dense array',
  'build hashed f64',
  'build hashed f32',
  'query within',
  'query withinOut',
  'query withinInto',
  'query withinIntoShort',
  'query nearest',
  'query of a from() grid',
  'withinMany',
  'pairs forEachPair',
  'pairs forEachPairDistance',
  'pairs forEachPairBatch',
  'pairs pairs',
  'pairs neighbors',
  'from view full',
  'from view header shared',
  'from copy header',
  'release',
  'mode javascript',
  'mode wasm',
  'mode verify',
  'rebuild in mode javascript',
  'rebuild at a memory limit',
];

/** Paths the 2D and the 3D property must take besides (rarer ones, which the mixed property's fewer runs may miss). */
const ONE_DIMENSION = [
  'nested',
  'nested in forEachPairBatch',
  'corrupt',
  'query after another grid rebuilt the buffer',
  'foreign rebuild in place',
  'small batches',
];

/** Runs the grid sequences of `sequences` as property `name` (sync commands), then checks the paths they took. */
function gridProperty(
  name: string,
  sequences: fc.Arbitrary<[Initial, Iterable<fc.Command<object, World>>]>,
  ciRuns: number,
  required: string[],
): void {
  totals.clear();
  foreign = new ForeignBuilder();
  try {
    fuzzSequences(name, sequences, ciRuns);
  } finally {
    foreign.close();
    foreign = undefined;
  }
  expectTaken(name, required);
}

function fuzzSequences(
  name: string,
  sequences: fc.Arbitrary<[Initial, Iterable<fc.Command<object, World>>]>,
  ciRuns: number,
): void {
  fuzz(
    name,
    sequences,
    ([initial, commands]) => {
      const world = freshWorld();
      try {
        setUpWorld(world, initial);
        fc.modelRun(() => ({ model: {}, real: world }), commands);
        world.expectCounts();
      } finally {
        subject.setKernelMode('auto');
        tally(world);
      }
    },
    ciRuns,
  );
}

function gridSuite(name: string, dims: readonly (2 | 3)[], ciRuns: number, required: string[], transfers = 0): void {
  gridProperty(name, gridSequences(dims, transfers), ciRuns, required);
}

async function poolSuite(): Promise<void> {
  const pools = [new PointGridWorkers({ threads: 2 }), new PointGridWorkers({ threads: 1, shared: false })];
  const name = 'kernels stateful: grids with a pool in shared and copy mode';
  totals.clear();
  try {
    const dims = [2, 3] as const;
    const grid = weighted(gridCommands(dims), { ...WEIGHTS, nested: 0, burst: 0, corrupt: 0, foreign: 0 }).map(asAsync);
    const commands: fc.Arbitrary<AsyncStep>[] = [...grid];
    for (let k = 0; k < 5; k++) commands.push(...poolCommands());
    await fuzzAsync(
      name,
      fc.tuple(initialArb(dims), commandSequences(commands, { maxCommands: 25, size: 'max' })),
      async ([initial, steps]) => {
        const world = freshWorld(pools);
        try {
          setUpWorld(world, initial);
          await fc.asyncModelRun(() => ({ model: {}, real: world }), steps);
          world.expectCounts();
        } finally {
          subject.setKernelMode('auto');
          tally(world);
        }
      },
      150,
    );
  } finally {
    for (const pool of pools) pool.close();
  }
  expectTaken(name, ['pool rebuild shared', 'pool rebuild copy', 'pool pairs', 'pool neighbors']);
}

/** Grid sequences with welds mixed in (the weld and the grids share the kernels' memory). */
function weldSuite(): void {
  const dims = [2, 3] as const;
  const grid = weighted(gridCommands(dims), { ...WEIGHTS, nested: 0, burst: 0, corrupt: 0, from: 0 });
  const welds = weldCommands();
  const commands = [...grid, ...welds, ...welds, ...welds, ...welds, ...welds, ...welds];
  gridProperty(
    'kernels stateful: weld and weldMesh between grid calls',
    fc.tuple(initialArb(dims), commandSequences(commands, { maxCommands: 30, size: 'max' })),
    250,
    ['weld exact', 'weld near', 'query within', 'pairs pairs', 'mode javascript', 'release'],
  );
}

export const suites = {
  grids2d: () => gridSuite('kernels stateful: PointGrid2D sequences', [2], 450, [...GRID_PATHS, ...ONE_DIMENSION]),
  grids3d: () => gridSuite('kernels stateful: PointGrid3D sequences', [3], 300, [...GRID_PATHS, ...ONE_DIMENSION]),
  mixed: () => gridSuite('kernels stateful: 2D and 3D grids in one sequence', [2, 3], 150, GRID_PATHS),
  // Transfers of grid buffers and of positions, in sequences of their own: a defect they meet does not hide the
  // others from the properties above (a property reports its first failure only).
  transfers: () =>
    gridSuite(
      'kernels stateful: transferred buffers and positions',
      [2, 3],
      60,
      ['transfer data', 'transfer positions', 'query within'],
      3,
    ),
  pool: poolSuite,
  weld: weldSuite,
};
