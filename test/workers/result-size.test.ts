/**
 * PointGridWorkers with results too long to return (issue 31, "Huge
 * results"): pool.pairs() and pool.neighbors() take maxResultLength as the
 * grid's calls do, and a result longer than it (or than 2^31 - 1 numbers)
 * rejects with the RangeError naming the pairs and bytes, after each thread
 * held at most its ceiling: past it, a thread only counts its slices. The
 * threads' replies are watched through createWorker to check that bound on
 * what each thread collected (no test reads a clock or the memory), and
 * their room is lowered to check the second round: a result that fits after
 * a count is searched again and equals the one-thread call's.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D } from '../../src/index.js';
import { PointGridWorkers, type WorkerLike } from '../../src/workers/index.js';
import { sourceWorkerScript } from '../../src/workers/worker-script.js';

const script = sourceWorkerScript(createRequire);

type Grid = PointGrid2D | PointGrid3D;

/** A reply of a search task, as a thread sends it. */
interface Reply {
  op: string;
  result: unknown;
}

/**
 * A real worker running the pool's script, whose search tasks get `change`
 * applied before they are sent, and whose replies are recorded in `replies`
 * with the op of the task they answer.
 */
function watchedWorker(replies: Reply[], change: (task: Record<string, unknown>) => void = () => {}): WorkerLike {
  const worker = new Worker(script, { eval: true });
  let op = '';
  return {
    postMessage(task: unknown, transfer?: unknown[]) {
      const t = task as Record<string, unknown>;
      op = String(t.op);
      change(t);
      worker.postMessage(task, transfer as never);
    },
    terminate: () => worker.terminate(),
    on(event: string, listener: (value: unknown) => void) {
      if (event !== 'message') return worker.on(event, listener);
      return worker.on('message', (message: { ok?: boolean; result?: unknown }) => {
        if (message?.ok === true) replies.push({ op, result: message.result });
        listener(message);
      });
    },
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
}

const pools: PointGridWorkers[] = [];
afterAll(() => {
  for (const pool of pools) pool.close();
});

function pool(shared: boolean, replies: Reply[], change?: (task: Record<string, unknown>) => void): PointGridWorkers {
  const p = new PointGridWorkers({ threads: 2, shared, createWorker: () => watchedWorker(replies, change) });
  pools.push(p);
  return p;
}

/** Points of a cloud, deterministic, in a 10-unit box: radius 3 pairs a good share of them. */
function cloud(d: 2 | 3, n: number, shared: boolean): Grid {
  const positions = new Float64Array(d * n).map((_, k) => ((k * 7919) % 1000) / 100);
  return d === 2
    ? new PointGrid2D(positions, { cellSize: 1, shared })
    : new PointGrid3D(positions, { cellSize: 1, shared });
}

/**
 * Numbers each thread collected (not only counted) in the search replies,
 * and whether any slice was counted: for pairs 2 per pair, for neighbors'
 * partner runs 1 per pair.
 */
function collected(replies: Reply[]): { most: number; counted: boolean } {
  let most = 0;
  let counted = false;
  for (const { op, result } of replies) {
    let numbers = 0;
    if (op === 'pairs' || op === 'rows') {
      for (const slice of result as { length?: number; pairs?: number; counted?: boolean }[]) {
        if (slice.counted === true) counted = true;
        else numbers += op === 'pairs' ? slice.length! : slice.pairs!;
      }
    } else if (op === 'copyPairs' || op === 'copyRows') {
      const r = result as { counts?: number[]; lengths?: number[]; start?: number[]; end?: number[] };
      if (r.counts !== undefined) counted = true;
      else if (op === 'copyPairs') numbers = r.lengths!.reduce((a, b) => a + b, 0);
      else numbers = r.end!.reduce((a, b, j) => a + b - r.start![j], 0);
    } else {
      continue;
    }
    most = Math.max(most, numbers);
  }
  return { most, counted };
}

const cases: [string, 2 | 3, boolean][] = [
  ['2D shared', 2, true],
  ['2D copy', 2, false],
  ['3D shared', 3, true],
  ['3D copy', 3, false],
];

describe.each(cases)('PointGridWorkers, %s: results longer than maxResultLength', (_, d, shared) => {
  const replies: Reply[] = [];
  const p = pool(shared, replies);

  it('reject with the RangeError naming the pairs and bytes, each thread collecting at most its ceiling', async () => {
    const grid = cloud(d, 300, shared);
    const all = grid.pairs(3);
    const pairs = all.length / 2;
    expect(pairs).toBeGreaterThan(5_000);
    for (const limit of [0, 100, all.length - 1]) {
      const message = new RegExp(
        `PointGridWorkers\\.(pairs|neighbors): ${pairs} pairs need ${2 * pairs} numbers \\(${8 * pairs} bytes\\), more than maxResultLength \\(${limit}\\)`,
      );
      replies.length = 0;
      await expect(p.pairs(grid, 3, { maxResultLength: limit })).rejects.toThrow(RangeError);
      await expect(p.pairs(grid, 3, { maxResultLength: limit })).rejects.toThrow(message);
      // A thread's ceiling is what a result of `limit` numbers needs (plus a pair), or the first buffer a
      // search takes (32 numbers): past it, the thread counts.
      const pairsSeen = collected(replies);
      expect(pairsSeen.most).toBeLessThanOrEqual(Math.max(limit + 2, 64));
      if (limit < all.length / 4) expect(pairsSeen.counted).toBe(true);
      replies.length = 0;
      await expect(p.neighbors(grid, 3, { maxResultLength: limit })).rejects.toThrow(message);
      const rowsSeen = collected(replies);
      expect(rowsSeen.most).toBeLessThanOrEqual(Math.max(Math.ceil(limit / 2) + 1, 64));
      if (limit < all.length / 4) expect(rowsSeen.counted).toBe(true);
    }
    // At the limit, the whole result; and the pool goes on.
    expect(await p.pairs(grid, 3, { maxResultLength: all.length })).toEqual(all);
    const rows = grid.neighbors(3);
    expect(await p.neighbors(grid, 3, { maxResultLength: all.length })).toEqual(rows);
    expect(await p.neighbors(grid, 3, { out: rows, maxResultLength: all.length })).toEqual(grid.neighbors(3));
    expect(await p.pairs(grid, 3)).toEqual(all);
  });

  it('a radius passing every pair is counted before any thread searches', async () => {
    const grid = cloud(d, 200, shared);
    replies.length = 0;
    await expect(p.pairs(grid, Number.POSITIVE_INFINITY, { maxResultLength: 39_799 })).rejects.toThrow(
      /19900 pairs need 39800 numbers \(159200 bytes\), more than maxResultLength \(39799\)/,
    );
    await expect(p.neighbors(grid, Number.POSITIVE_INFINITY, { maxResultLength: 39_799 })).rejects.toThrow(
      /19900 pairs need 39800 numbers/,
    );
    expect(replies.filter((r) => r.op !== 'build')).toEqual([]);
    expect((await p.pairs(grid, Number.POSITIVE_INFINITY, { maxResultLength: 39_800 })).length).toBe(39_800);
  });

  it('refuses a bad maxResultLength or options, as the grid does', async () => {
    const grid = cloud(d, 50, shared);
    for (const bad of [-1, 1.5, Number.NaN, '10', null]) {
      await expect(p.pairs(grid, 1, { maxResultLength: bad as number })).rejects.toThrow(
        /maxResultLength must be an integer >= 0/,
      );
      await expect(p.neighbors(grid, 1, { maxResultLength: bad as number })).rejects.toThrow(
        /maxResultLength must be an integer >= 0/,
      );
    }
    await expect(p.pairs(grid, 1, 5 as never)).rejects.toThrow(/options must be an object/);
    await expect(p.neighbors(grid, 1, 5 as never)).rejects.toThrow(/out must be an earlier neighbors\(\) result/);
    await expect(p.neighbors(grid, 1, { out: 5 as never })).rejects.toThrow(/out must be an earlier/);
    expect(await p.pairs(grid, 1, { maxResultLength: Number.POSITIVE_INFINITY })).toEqual(grid.pairs(1));
  });
});

describe.each(cases)('PointGridWorkers, %s: threads that reach their ceiling', (_, d, shared) => {
  it('count, and the pool searches again without one: the same result as one thread', async () => {
    const replies: Reply[] = [];
    // Each thread's first search of a call may hold 64 numbers (its kept buffer grows no further).
    const p = pool(shared, replies, (task) => {
      if ('room' in task && task.room !== Number.POSITIVE_INFINITY) task.room = 64;
    });
    for (const [n, radius] of [
      [300, 2],
      [40, 0.5],
      [0, 1],
      [1, 1],
    ] as const) {
      const grid = cloud(d, n, shared);
      replies.length = 0;
      expect(await p.pairs(grid, radius)).toEqual(grid.pairs(radius));
      const counted = collected(replies).counted;
      const phases = p.lastTimings!.phases.map((phase) => phase.name);
      expect(phases.includes('search again')).toBe(counted);
      if (grid.pairs(radius).length > 2 * 64 * 2) expect(counted).toBe(true);
      expect(await p.neighbors(grid, radius)).toEqual(grid.neighbors(radius));
      // A result too long is still refused, from the counts.
      const all = grid.pairs(radius).length;
      if (all > 0) {
        await expect(p.neighbors(grid, radius, { maxResultLength: all - 2 })).rejects.toThrow(
          new RegExp(`${all / 2} pairs need ${all} numbers`),
        );
      }
    }
  });

  it('a thread that says it counted with no ceiling sent a malformed reply', async () => {
    // One thread, which lowers its first round's ceiling to 8 numbers, so that it counts, and then says it
    // counted in the second round too.
    const lie = `const port = require('node:worker_threads').parentPort;
const post = port.postMessage.bind(port);
let room;
port.on('message', (task) => {
  if (typeof task.room === 'number' && task.room !== Infinity) task.room = 8;
  room = task.room;
});
port.postMessage = (message, transfer) => {
  const r = message && message.result;
  if (room === Infinity && r && typeof r === 'object') {
    if (Array.isArray(r)) r[0].counted = true;
    else return post({ ...message, result: { counts: r.lengths ?? r.end.map((e, j) => e - r.start[j]) } }, []);
  }
  return post(message, transfer);
};`;
    const grid = cloud(d, 300, shared);
    for (const call of ['pairs', 'neighbors'] as const) {
      const p = new PointGridWorkers({
        threads: 1,
        shared,
        createWorker: () => new Worker(`${lie}\n${script}`, { eval: true }) as unknown as WorkerLike,
      });
      pools.push(p);
      await expect(call === 'pairs' ? p.pairs(grid, 2) : p.neighbors(grid, 2)).rejects.toThrow(
        `worker 0 sent a malformed ${call}() search result (counted with no ceiling)`,
      );
    }
  });
});
