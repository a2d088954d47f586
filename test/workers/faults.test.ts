/**
 * PointGridWorkers under faults, injected through createWorker: workers that
 * exit, throw, run out of memory, never answer a task, post garbage or fail
 * to load, in shared and copy mode. Every call settles (no test waits on a
 * clock: a call that did not settle fails the test by its timeout), a worker
 * that died is replaced, one that never loaded fails every later call, and a
 * rebuild that is interrupted leaves the grid throwing on every query until
 * it is rebuilt, never answering from a half-written buffer.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D } from '../../src/index.js';
import { PointGridWorkers, type WorkerLike } from '../../src/workers/index.js';
import { sourceWorkerScript } from '../../src/workers/worker-script.js';

/** The pool's worker script, as the build ships it. */
const script = sourceWorkerScript(createRequire);

/** A real worker running the pool's script, after `prefix`, whose message listener runs before the pool's. */
function realWorker(prefix = '', options: { resourceLimits?: { maxOldGenerationSizeMb: number } } = {}): Worker {
  return new Worker(`${prefix}\n${script}`, { eval: true, ...options });
}

/** Code for a worker's prefix: runs `body` (with the task as `task`) on every task whose op is `op`. */
function onTask(op: string, body: string): string {
  return `require('node:worker_threads').parentPort.on('message', (task) => { if (task.op === ${JSON.stringify(op)}) { ${body} } });`;
}

/**
 * Code for a worker's prefix: throws `error` (uncaught: the worker's `error` event) where the pool's script
 * posts its reply to a task whose op is `op`, so that no reply comes.
 */
function throwInsteadOfReply(op: string, error: string): string {
  return `const port = require('node:worker_threads').parentPort;
const post = port.postMessage.bind(port);
let op;
port.on('message', (task) => { op = task.op; });
port.postMessage = (message, transfer) => {
  if (op === ${JSON.stringify(op)} && 'ok' in message) throw ${error};
  return post(message, transfer);
};`;
}

/**
 * createWorker that makes `faulty()` for worker `index` the first time the
 * pool starts it, and healthy workers otherwise (the pool's replacements).
 */
function faultAt(index: number, faulty: () => WorkerLike): { create: () => WorkerLike; made: () => number } {
  let made = 0;
  return {
    create: () => (made++ === index ? faulty() : realWorker()),
    made: () => made,
  };
}

/**
 * A real worker behind a wrapper that calls `seen(task)` for every task it
 * forwards (after forwarding it), and drops those `drop` selects.
 */
function watched(
  seen: (task: { op: string }) => void,
  drop: (task: { op: string }) => boolean = () => false,
): WorkerLike {
  const worker = realWorker();
  return {
    postMessage(task: unknown, transfer?: unknown[]) {
      const t = task as { op: string };
      if (!drop(t)) worker.postMessage(task, transfer as never);
      seen(t);
    },
    terminate: () => worker.terminate(),
    on: (event: string, listener: (value: unknown) => void) => worker.on(event, listener),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
}

/** Points on a jittered lattice, deterministic. */
function points(n: number, d: 2 | 3, seed: number): Float64Array {
  const p = new Float64Array(d * n);
  let state = seed;
  for (let k = 0; k < p.length; k++) {
    state = (state * 16807) % 2147483647;
    p[k] = (state / 2147483647) * 12;
  }
  return p;
}

const pools: PointGridWorkers[] = [];
function pool(options: ConstructorParameters<typeof PointGridWorkers>[0]): PointGridWorkers {
  const p = new PointGridWorkers(options);
  pools.push(p);
  return p;
}
afterEach(() => {
  for (const p of pools.splice(0)) p.close();
});

const positions = points(3000, 3, 11);
const moved = points(3000, 3, 12);

/** A grid over `moved` built on one thread: what a good rebuild leaves. */
function reference(): PointGrid3D {
  return new PointGrid3D(moved, { cellSize: 1 });
}

/** The grid answers every query as `want` does. */
function expectSameAnswers(grid: PointGrid3D, want: PointGrid3D): void {
  grid.validate();
  expect(grid.pairs(1)).toEqual(want.pairs(1));
  expect(grid.within(5, 5, 5, 1.5).sort()).toEqual(want.within(5, 5, 5, 1.5).sort());
}

/** Every query of the grid throws that it must be rebuilt. */
function expectMustRebuild(grid: PointGrid3D): void {
  const mustRebuild = /this grid must be rebuilt: its last PointGridWorkers\.rebuild\(\) was interrupted/;
  expect(() => grid.within(5, 5, 5, 1.5)).toThrow(mustRebuild);
  expect(() => grid.withinInto(5, 5, 5, 1.5, new Uint32Array(10))).toThrow(mustRebuild);
  expect(() => grid.countWithin(5, 5, 5, 1.5)).toThrow(mustRebuild);
  expect(() => grid.nearest(5, 5, 5)).toThrow(mustRebuild);
  expect(() => grid.pairs(1)).toThrow(mustRebuild);
  expect(() => grid.neighbors(1)).toThrow(mustRebuild);
  expect(() => grid.forEachPair(1, () => {})).toThrow(mustRebuild);
  expect(() => grid.validate()).toThrow(mustRebuild);
}

describe('PointGridWorkers: a worker that dies', () => {
  it('by process.exit during a shared rebuild: the call rejects, the grid must be rebuilt, the worker is replaced', async () => {
    const fault = faultAt(1, () => realWorker(onTask('build', 'process.exit(3);')));
    const p = pool({ threads: 3, createWorker: fault.create });
    const grid = new PointGrid3D(positions, { cellSize: 1, shared: true });
    await expect(p.rebuild(grid, moved)).rejects.toThrow(/worker 1 failed during rebuild\(\): it exited with code 3/);
    expectMustRebuild(grid);
    // The pool replaces the dead worker and rebuilds; the grid answers again.
    await p.rebuild(grid, moved);
    expect(fault.made()).toBe(4);
    expectSameAnswers(grid, reference());
    expect(await p.neighbors(grid, 1)).toEqual(reference().neighbors(1));
  });

  it('by an uncaught error during a search, shared and copy mode: the call rejects with it, the grid is untouched', async () => {
    for (const shared of [true, false]) {
      const op = shared ? 'rows' : 'copyRows';
      const fault = faultAt(0, () => realWorker(throwInsteadOfReply(op, "new TypeError('injected')")));
      const p = pool({ threads: 2, shared, createWorker: fault.create });
      const grid = new PointGrid3D(moved, { cellSize: 1, shared: true });
      await expect(p.neighbors(grid, 1)).rejects.toThrow(/worker 0 failed during neighbors\(\): TypeError: injected/);
      // A search writes nothing of the grid: it answers as before.
      expectSameAnswers(grid, reference());
      expect(await p.neighbors(grid, 1)).toEqual(grid.neighbors(1));
      expect(await p.pairs(grid, 1)).toEqual(grid.pairs(1));
    }
  });

  it('by running out of memory: the call rejects naming it, later calls work', async () => {
    const fault = faultAt(
      1,
      () =>
        realWorker(onTask('pairs', 'const hold = []; for (;;) hold.push(new Array(1e5).fill(hold.length));'), {
          resourceLimits: { maxOldGenerationSizeMb: 16 },
        }) as WorkerLike,
    );
    const p = pool({ threads: 2, createWorker: fault.create });
    const grid = new PointGrid3D(moved, { cellSize: 1, shared: true });
    await expect(p.pairs(grid, 1)).rejects.toThrow(/worker 1 failed during pairs\(\): .*memory/);
    expect(await p.pairs(grid, 1)).toEqual(grid.pairs(1));
  });

  it('that dies while idle is replaced before the next call', async () => {
    let first: Worker | undefined;
    const p = pool({
      threads: 1,
      createWorker: () => {
        const w = realWorker();
        first ??= w;
        return w;
      },
    });
    const grid = new PointGrid2D(points(500, 2, 3), { cellSize: 1, shared: true });
    expect(await p.pairs(grid, 1)).toEqual(grid.pairs(1));
    const exited = new Promise((resolve) => first!.once('exit', resolve));
    await first!.terminate();
    await exited;
    expect(await p.pairs(grid, 1)).toEqual(grid.pairs(1));
  });
});

describe('PointGridWorkers: a worker that misbehaves', () => {
  /**
   * A real worker whose reply to the first task with op `op` reaches the pool as a `messageerror` event (a reply
   * that could not be deserialized) instead of a message, through Node's on() or, with `browser`, through the
   * addEventListener() of a browser Worker (which has no `exit` event, no ref() and no unref()).
   */
  function unreadableReply(op: string, browser: boolean): WorkerLike {
    const worker = realWorker();
    let current = '';
    let spoiled = false;
    const listeners = new Map<string, ((value: unknown) => void)[]>();
    const emit = (event: string, value: unknown) => {
      for (const listener of listeners.get(event) ?? []) listener(value);
    };
    worker.on('message', (reply: unknown) => {
      if (!spoiled && current === op && typeof reply === 'object' && reply !== null && 'ok' in reply) {
        spoiled = true;
        emit('messageerror', browser ? { data: undefined } : new Error('injected: could not deserialize'));
      } else {
        emit('message', browser ? { data: reply } : reply);
      }
    });
    worker.on('error', (error) => emit('error', browser ? { message: (error as Error).message } : error));
    if (!browser) worker.on('exit', (code) => emit('exit', code));
    const listen = (event: string, listener: (value: never) => void) => {
      listeners.set(event, [...(listeners.get(event) ?? []), listener as (value: unknown) => void]);
    };
    const common = {
      postMessage(task: unknown, transfer?: unknown[]) {
        current = (task as { op: string }).op;
        worker.postMessage(task, transfer as never);
      },
      terminate: () => worker.terminate(),
    };
    return browser
      ? ({ ...common, addEventListener: listen } as unknown as WorkerLike)
      : ({ ...common, on: listen, ref: () => worker.ref(), unref: () => worker.unref() } as unknown as WorkerLike);
  }

  it('fires messageerror instead of its reply, Node and browser events, shared and copy mode: the call rejects, later calls work', async () => {
    for (const browser of [false, true]) {
      for (const shared of [true, false]) {
        const op = shared ? 'pairs' : 'copyPairs';
        const fault = faultAt(1, () => unreadableReply(op, browser));
        const p = pool({ threads: 2, shared, createWorker: fault.create });
        const grid = new PointGrid3D(moved, { cellSize: 1, shared: true });
        await expect(p.pairs(grid, 1)).rejects.toThrow(
          /worker 1 failed during pairs\(\): a message from it could not be read/,
        );
        expectSameAnswers(grid, reference());
        expect(await p.pairs(grid, 1)).toEqual(grid.pairs(1));
        expect(await p.neighbors(grid, 1)).toEqual(grid.neighbors(1));
        expect(fault.made()).toBe(3);
      }
    }
  });

  it('posts a message outside the protocol: the call rejects, the worker is replaced', async () => {
    const fault = faultAt(0, () =>
      realWorker(onTask('pairs', "require('node:worker_threads').parentPort.postMessage(42);")),
    );
    const p = pool({ threads: 2, createWorker: fault.create });
    const grid = new PointGrid3D(moved, { cellSize: 1, shared: true });
    await expect(p.pairs(grid, 1)).rejects.toThrow(/worker 0 failed during pairs\(\): it posted 42, which is no reply/);
    expect(await p.pairs(grid, 1)).toEqual(grid.pairs(1));
  });

  it('replies with results of the wrong shape or range, in shared and copy mode: the call rejects', async () => {
    const garbage: [boolean, string, string][] = [
      [true, 'pairs', '{ ok: true, ms: 0, result: [{ part: 99, length: 2 }] }'],
      [true, 'rows', "{ ok: true, ms: 0, result: 'garbage' }"],
      [false, 'copyPairs', '{ ok: true, ms: 0, result: { lengths: [2, 0, 0, 0], pairs: new Uint32Array([5, 1]) } }'],
      [false, 'copyRows', "{ ok: true, ms: 0, result: { from: 'x' } }"],
    ];
    for (const [shared, op, reply] of garbage) {
      const post = `require('node:worker_threads').parentPort.postMessage(${reply});`;
      const fault = faultAt(1, () => realWorker(onTask(op, post)));
      const p = pool({ threads: 2, shared, createWorker: fault.create });
      const grid = new PointGrid3D(moved, { cellSize: 1, shared: true });
      const call = op.toLowerCase().includes('pairs') ? p.pairs(grid, 1) : p.neighbors(grid, 1);
      await expect(call).rejects.toThrow(/worker 1 sent a malformed|worker 1 failed/);
      expectSameAnswers(grid, reference());
      expect(await p.pairs(grid, 1)).toEqual(grid.pairs(1));
      expect(await p.neighbors(grid, 1)).toEqual(grid.neighbors(1));
    }
  });

  it('never answers one task type: the call waits until close(), which rejects it and every waiting call', async () => {
    let p!: PointGridWorkers;
    const fault = faultAt(0, () =>
      watched(
        (task) => {
          if (task.op === 'pairs') queueMicrotask(() => p.close());
        },
        (task) => task.op === 'pairs',
      ),
    );
    p = pool({ threads: 2, createWorker: fault.create });
    const grid = new PointGrid3D(moved, { cellSize: 1, shared: true });
    expect(await p.neighbors(grid, 1)).toEqual(grid.neighbors(1));
    const hung = p.pairs(grid, 1);
    const waiting = p.neighbors(grid, 1);
    await expect(hung).rejects.toThrow(/the pool was closed during pairs\(\)/);
    await expect(waiting).rejects.toThrow(/neighbors\(\): the pool is closed/);
    await expect(p.rebuild(grid)).rejects.toThrow(/the pool is closed/);
    expectSameAnswers(grid, reference());
  });
});

describe('PointGridWorkers: a worker that fails to load', () => {
  it('fails the call it was started for and every later one, naming where it came from', async () => {
    let made = 0;
    const p = pool({
      threads: 2,
      createWorker: () => {
        made++;
        return new Worker('this is not a script (', { eval: true });
      },
    });
    const grid = new PointGrid2D(points(500, 2, 3), { cellSize: 1, shared: true });
    await expect(p.pairs(grid, 1)).rejects.toThrow(
      /a worker failed to load \(a worker from createWorker\): SyntaxError: .*Check that createWorker starts this package's worker script \(dist\/esm\/workers\/worker\.js/,
    );
    await expect(p.neighbors(grid, 1)).rejects.toThrow(/neighbors\(\): the pool cannot work: .*failed to load/);
    // Fails fast: no worker is started again.
    expect(made).toBe(2);
  });

  it('in a browser (an error event without a message): says what browsers do not tell', async () => {
    const listeners = new Map<string, (event: unknown) => void>();
    const browserLike: WorkerLike = {
      postMessage: () => queueMicrotask(() => listeners.get('error')?.({ type: 'error' })),
      terminate: () => undefined,
      addEventListener: (type: string, listener: (event: unknown) => void) => listeners.set(type, listener),
    };
    const p = pool({ threads: 1, createWorker: () => browserLike });
    const grid = new PointGrid2D(points(50, 2, 3), { cellSize: 1 });
    await expect(p.pairs(grid, 1)).rejects.toThrow(
      /failed to load \(a worker from createWorker\): the browser gives no reason; the usual ones are a 404, a wrong MIME type, or a Content-Security-Policy/,
    );
  });

  it('createWorker that returns no Worker, or throws: the constructor throws, stopping the workers it started', async () => {
    expect(() => pool({ threads: 1, createWorker: () => ({}) as WorkerLike })).toThrow(
      /createWorker must return a Worker \(with on\(\) in Node or addEventListener\(\) in browsers\), got an object/,
    );
    // Plain JavaScript may return anything: null and undefined get the same RangeError (a TypeError before).
    for (const [value, shown] of [
      [null, 'null'],
      [undefined, 'undefined'],
      [42, '42'],
    ] as const) {
      expect(() => pool({ threads: 1, createWorker: () => value as unknown as WorkerLike })).toThrow(
        new RangeError(
          `createWorker must return a Worker (with on() in Node or addEventListener() in browsers), got ${shown}`,
        ),
      );
    }
    const started: Worker[] = [];
    expect(() =>
      pool({
        threads: 3,
        createWorker: () => {
          if (started.length === 2) throw new Error('no more workers');
          const w = realWorker();
          started.push(w);
          return w;
        },
      }),
    ).toThrow(/no more workers/);
    // Both started workers were terminated: each exits.
    await Promise.all(started.map((w) => new Promise((resolve) => w.once('exit', resolve))));
  });
});

describe('PointGridWorkers: browser-style workers (addEventListener), ref and unref', () => {
  /** A real worker seen through the browser Worker's interface, counting nothing but its events. */
  function browserStyle(): WorkerLike {
    const worker = realWorker();
    return {
      postMessage: (message: unknown, transfer?: unknown[]) => worker.postMessage(message, transfer as never),
      terminate: () => worker.terminate(),
      addEventListener: (type: string, listener: (event: unknown) => void) => {
        if (type === 'message') worker.on('message', (data) => listener({ data }));
        else if (type === 'error') worker.on('error', (error: Error) => listener({ message: error.message }));
        else worker.on(type, () => listener({}));
      },
    };
  }

  it('work in both modes and settle when one exits (an error event)', async () => {
    for (const shared of [true, false]) {
      const p = pool({ threads: 2, shared, createWorker: browserStyle });
      const grid = new PointGrid3D(positions, { cellSize: 1, shared: true });
      await p.rebuild(grid, moved);
      expectSameAnswers(grid, reference());
      expect(await p.neighbors(grid, 1)).toEqual(grid.neighbors(1));
      expect(await p.pairs(grid, 1)).toEqual(grid.pairs(1));
    }
  });

  it('a worker is ref’d only while it runs a task, and workers without ref/unref are fine', async () => {
    const log: string[] = [];
    const counted = (): WorkerLike => {
      const worker = realWorker();
      return {
        postMessage: (message: unknown, transfer?: unknown[]) => worker.postMessage(message, transfer as never),
        terminate: () => worker.terminate(),
        on: (event: string, listener: (value: unknown) => void) => worker.on(event, listener),
        ref: () => {
          log.push('ref');
          worker.ref();
        },
        unref: () => {
          log.push('unref');
          worker.unref();
        },
      };
    };
    const p = pool({ threads: 1, createWorker: counted });
    expect(log).toEqual(['unref']);
    const grid = new PointGrid2D(points(500, 2, 3), { cellSize: 1, shared: true });
    await p.pairs(grid, 1);
    // Search, then write: each task ref'd while it runs, idle (unref'd) after.
    expect(log).toEqual(['unref', 'ref', 'unref', 'ref', 'unref']);
    const bare = (): WorkerLike => {
      const worker = realWorker();
      return {
        postMessage: (message: unknown, transfer?: unknown[]) => worker.postMessage(message, transfer as never),
        terminate: () => worker.terminate(),
        on: (event: string, listener: (value: unknown) => void) => worker.on(event, listener),
      };
    };
    const q = pool({ threads: 2, createWorker: bare });
    expect(await q.pairs(grid, 1)).toEqual(grid.pairs(1));
  });
});

describe('PointGridWorkers and the grid it works on', () => {
  it('close() during a shared rebuild: the call rejects, every query throws until the grid is rebuilt', async () => {
    for (const d of [2, 3] as const) {
      let p!: PointGridWorkers;
      const at = d === 2 ? points(3000, 2, 5) : positions;
      const to = d === 2 ? points(3000, 2, 6) : moved;
      const make = (data: Float64Array, shared: boolean) =>
        d === 2 ? new PointGrid2D(data, { cellSize: 1, shared }) : new PointGrid3D(data, { cellSize: 1, shared });
      const grid = make(at, true);
      let during: unknown;
      const fault = faultAt(0, () =>
        watched((task) => {
          if (task.op !== 'build') return;
          // Sent, the threads may be writing: the grid refuses queries and rebuilds meanwhile.
          try {
            grid.pairs(1);
          } catch (error) {
            during = error;
          }
          expect(() => grid.rebuild()).toThrow(/a PointGridWorkers call is using this grid's buffer/);
          p.close();
        }),
      );
      p = pool({ threads: 2, createWorker: fault.create });
      await expect(p.rebuild(grid, to)).rejects.toThrow(/the pool was closed during rebuild\(\)/);
      expect(String(during)).toMatch(/PointGridWorkers\.rebuild\(\) is rebuilding this grid in place: await it first/);
      const mustRebuild = /must be rebuilt/;
      expect(() => grid.pairs(1)).toThrow(mustRebuild);
      expect(() => grid.neighbors(1)).toThrow(mustRebuild);
      expect(() => grid.validate()).toThrow(mustRebuild);
      const other = pool({ threads: 1 });
      await expect(other.neighbors(grid, 1)).rejects.toThrow(
        /PointGridWorkers\.neighbors\(\): this grid must be rebuilt/,
      );
      // A rebuild on this thread or through a pool makes it whole again.
      grid.rebuild(to);
      const want = make(to, false);
      expect(grid.pairs(1)).toEqual(want.pairs(1));
      grid.validate();
      await other.rebuild(grid, at);
      expect(grid.pairs(1)).toEqual(make(at, false).pairs(1));
    }
  });

  it('close() during a search: the call rejects, the grid is untouched and may be rebuilt', async () => {
    let p!: PointGridWorkers;
    const grid = new PointGrid3D(moved, { cellSize: 1, shared: true });
    const fault = faultAt(1, () =>
      watched((task) => {
        if (task.op !== 'rows') return;
        // The threads read the buffer: queries are fine, a rebuild must wait.
        expect(grid.pairs(1).length).toBeGreaterThan(0);
        expect(() => grid.rebuild()).toThrow(/await it first/);
        p.close();
      }),
    );
    p = pool({ threads: 2, createWorker: fault.create });
    await expect(p.neighbors(grid, 1)).rejects.toThrow(/the pool was closed during neighbors\(\)/);
    expectSameAnswers(grid, reference());
    grid.rebuild();
    expectSameAnswers(grid, reference());
  });

  it('a worker dying in the second half of a growing rebuild (new buffer) also leaves the grid to be rebuilt', async () => {
    const fault = faultAt(0, () =>
      realWorker(
        // The second steps of a growing rebuild come with the layout the calling thread sized the grid for.
        onTask('build', 'if (task.layout !== undefined) process.exit(5);'),
      ),
    );
    const p = pool({ threads: 2, createWorker: fault.create });
    // Few points first, so that the rebuild with more outgrows the buffer and runs its steps twice.
    const grid = new PointGrid3D(positions.subarray(0, 30), { cellSize: 1, shared: true });
    await expect(p.rebuild(grid, moved)).rejects.toThrow(/exited with code 5/);
    expectMustRebuild(grid);
    await p.rebuild(grid, moved);
    expectSameAnswers(grid, reference());
  });
});
