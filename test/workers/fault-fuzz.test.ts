/**
 * Seeded fault injection for PointGridWorkers: a random sequence of pool
 * calls (rebuild, neighbors, pairs; shared or copy mode, 2D or 3D) where one
 * worker fails at a random task: it exits or throws when the task arrives or
 * when its reply is due (after the task wrote what it writes), posts a
 * message outside the protocol or a reply of the wrong shape, or never
 * replies (then close() is the only way out). After every call:
 *
 * - the call settled (a call that never does fails the test by its timeout);
 * - a call that resolved returned exactly the one-thread result;
 * - the grid answers exactly as a one-thread grid over the positions of its
 *   last successful rebuild, or every query throws that it must be rebuilt.
 *
 * FAULT_RUNS sets the number of sequences (default 20).
 */

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D } from '../../src/index.js';
import { PointGridWorkers, type WorkerLike } from '../../src/workers/index.js';
import { sourceWorkerScript } from '../../src/workers/worker-script.js';

const script = sourceWorkerScript(createRequire);
const RUNS = Number(process.env.FAULT_RUNS ?? 20);

type Grid = PointGrid2D | PointGrid3D;

/** How the faulty worker fails, and when: at its `nth` task whose op is `op`. */
interface Fault {
  kind: 'exit-on-arrival' | 'exit-at-reply' | 'throw-at-reply' | 'garbage' | 'malformed' | 'silent';
  op: string;
  nth: number;
  /** Which worker of the first `threads` is the faulty one. */
  worker: number;
}

const SHARED_OPS = ['build', 'rows', 'fill', 'pairs', 'place'];
const COPY_OPS = ['copyRows', 'copyPairs'];
const GARBAGE = ['42', 'null', '{ ok: true }', "{ hello: 'someone else' }", "{ ok: false, error: 5, name: 'Error' }"];
const MALFORMED = [
  '{ ok: true, ms: 0, result: null }',
  '{ ok: true, ms: 0, result: [{ part: -1, length: 2 }] }',
  '{ ok: true, ms: 0, result: { work: [1], done: [] } }',
  '{ ok: true, ms: 0, result: { lengths: [1e9], pairs: new Uint32Array(2) } }',
];

/** Code run before the pool's script in the faulty worker: counts tasks, and fails as `fault` says. */
function prefix(fault: Fault, pick: number): string {
  const act: Record<Fault['kind'], string> = {
    'exit-on-arrival': '',
    'exit-at-reply': 'process.exit(7);',
    'throw-at-reply': "throw new Error('fuzz: thrown where the reply was due');",
    garbage: `post(${GARBAGE[pick % GARBAGE.length]}); return;`,
    malformed: `post(${MALFORMED[pick % MALFORMED.length]}); return;`,
    silent: 'return;',
  };
  return `const port = require('node:worker_threads').parentPort;
const post = port.postMessage.bind(port);
let seen = 0;
let due = false;
port.on('message', (task) => {
  due = task.op === ${JSON.stringify(fault.op)} && ++seen === ${fault.nth};
  if (due && ${JSON.stringify(fault.kind)} === 'exit-on-arrival') process.exit(3);
});
port.postMessage = (message, transfer) => {
  if (due && message !== null && typeof message === 'object' && 'ok' in message) {
    due = false;
    ${act[fault.kind]}
  }
  return post(message, transfer);
};`;
}

function points(n: number, d: 2 | 3, seed: number): Float64Array {
  const p = new Float64Array(d * n);
  let state = seed;
  for (let k = 0; k < p.length; k++) {
    state = (state * 16807) % 2147483647;
    p[k] = (state / 2147483647) * 9;
  }
  return p;
}

function make(d: 2 | 3, positions: Float64Array, shared: boolean): Grid {
  return d === 2
    ? new PointGrid2D(positions, { cellSize: 1, shared })
    : new PointGrid3D(positions, { cellSize: 1, shared });
}

/** The grid's answers that the checks compare. */
function answers(grid: Grid): { pairs: number[]; neighbors: number[] } {
  const lists = grid.neighbors(1);
  return { pairs: Array.from(grid.pairs(1)), neighbors: [...lists.offsets, -1, ...lists.indices] };
}

/** The pool call that sends each task. */
const CALL_OF: Record<string, string> = {
  build: 'rebuild',
  rows: 'neighbors',
  fill: 'neighbors',
  pairs: 'pairs',
  place: 'pairs',
  copyRows: 'neighbors',
  copyPairs: 'pairs',
};

/**
 * A case: the mode, a fault at a task that mode sends, and calls that reach
 * that task at least `nth` times (random calls around them).
 */
const cases = fc
  .oneof(
    // Shared mode on a shared grid half the time: the only case where the threads write the grid.
    fc.record({ d: fc.constantFrom<2 | 3>(2, 3), shared: fc.constant(true), sharedGrid: fc.constant(true) }),
    fc.record({ d: fc.constantFrom<2 | 3>(2, 3), shared: fc.boolean(), sharedGrid: fc.boolean() }),
  )
  .chain((mode) =>
    fc.record({
      mode: fc.constant(mode),
      fault: fc.record({
        kind: fc.constantFrom<Fault['kind']>(
          'exit-on-arrival',
          'exit-at-reply',
          'throw-at-reply',
          'garbage',
          'malformed',
          'silent',
        ),
        // In shared mode on a shared grid the threads run the shared tasks, the rebuild's most often (it writes the
        // grid); otherwise the copy ones.
        op:
          mode.shared && mode.sharedGrid
            ? fc.oneof(
                { arbitrary: fc.constant('build'), weight: 3 },
                { arbitrary: fc.constantFrom(...SHARED_OPS), weight: 2 },
              )
            : fc.constantFrom(...COPY_OPS),
        nth: fc.integer({ min: 1, max: 2 }),
        worker: fc.nat(2),
      }),
      before: fc.array(fc.constantFrom('rebuild', 'neighbors', 'pairs'), { maxLength: 3 }),
      after: fc.array(fc.constantFrom('rebuild', 'neighbors', 'pairs'), { maxLength: 3 }),
      pick: fc.nat(20),
    }),
  );

describe('PointGridWorkers under random faults (seeded)', () => {
  it('every call settles, resolves with the one-thread answer or rejects, and the grid never answers wrongly', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async ({ mode, fault, before, after, pick }) => {
        const { d, shared, sharedGrid } = mode;
        const needed = CALL_OF[fault.op] as string;
        const sequence = [...before, ...Array.from({ length: fault.nth }, () => needed), ...after];
        const threads = 3;
        let made = 0;
        let pool!: PointGridWorkers;
        const createWorker = (): WorkerLike => {
          const faulty = made++ === fault.worker;
          const worker = new Worker(`${faulty ? prefix(fault, pick) : ''}\n${script}`, { eval: true });
          if (!faulty || fault.kind !== 'silent') return worker;
          // A worker that never replies: only close() ends the call, once the task that will not be answered is sent.
          return {
            postMessage(task: unknown, transfer: ArrayBuffer[]) {
              worker.postMessage(task, transfer);
              const op = (task as { op: string }).op;
              if (op === fault.op) queueMicrotask(() => pool.close());
            },
            terminate: () => worker.terminate(),
            on: (event: string, listener: (value: unknown) => void) => worker.on(event, listener),
            ref: () => worker.ref(),
            unref: () => worker.unref(),
          };
        };
        pool = new PointGridWorkers({ threads, shared, createWorker });
        try {
          let built = points(600, d, 1);
          const grid = make(d, built, sharedGrid);
          let step = 2;
          for (const call of sequence) {
            const next = points(step % 2 === 0 ? 600 : 900, d, step++);
            let outcome: { ok: true; value: unknown } | { ok: false; error: unknown };
            const run =
              call === 'rebuild'
                ? pool.rebuild(grid, next)
                : call === 'neighbors'
                  ? pool.neighbors(grid, 1)
                  : pool.pairs(grid, 1);
            try {
              outcome = { ok: true, value: await run };
            } catch (error) {
              outcome = { ok: false, error };
            }
            if (!outcome.ok) expect(outcome.error).toBeInstanceOf(Error);
            if (outcome.ok && call === 'rebuild') built = next;
            // The grid: as a one-thread grid over the last positions it was built from, or refusing every query.
            let current: ReturnType<typeof answers> | undefined;
            try {
              current = answers(grid);
            } catch (error) {
              expect(String(error)).toMatch(/must be rebuilt/);
              expect(() => grid.nearest(1, 1, 1)).toThrow(/must be rebuilt/);
              grid.rebuild(built);
              current = answers(grid);
            }
            expect(current).toEqual(answers(make(d, built, false)));
            if (outcome.ok && call === 'neighbors') {
              const lists = outcome.value as { offsets: Uint32Array; indices: Uint32Array };
              expect([...lists.offsets, -1, ...lists.indices]).toEqual(current.neighbors);
            }
            if (outcome.ok && call === 'pairs') expect(Array.from(outcome.value as Uint32Array)).toEqual(current.pairs);
          }
        } finally {
          pool.close();
        }
      }),
      { seed: 310031, numRuns: RUNS },
    );
  });
});
