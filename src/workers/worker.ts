/**
 * The script each PointGridWorkers thread runs: greets the pool (protocol.ts),
 * then takes task messages, runs them (tasks.ts) and posts back
 * `{ ok, result }` or `{ ok: false, error }`. The build bundles it with all
 * it imports into one classic script (see worker-script.ts), which runs as a
 * browser worker (classic or module) and as a Node worker_threads worker
 * (from a string with `eval`, or from a file).
 *
 * @module
 */
import { activeKernels } from '../wasm/kernels.js';
import { type Hello, PROTOCOL, type Reply } from './protocol.js';
import { runTask, type Task } from './tasks.js';

// The package compiles against ES2022 alone (no DOM or Node types): declared for this module.
declare const performance: { now(): number };

type Post = (message: Reply | Hello, transfer: ArrayBuffer[]) => void;

function handler(post: Post): (task: Task) => void {
  return (task) => {
    const started = performance.now();
    try {
      const done = runTask(task);
      post({ ok: true, result: done.result, ms: performance.now() - started, kernels: activeKernels() }, done.transfer);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      post({ ok: false, error: e.message, name: e.name }, []);
    }
  };
}

/** Listens on `port` and greets the pool. */
function serve(post: Post, listen: (handle: (task: Task) => void) => void): void {
  listen(handler(post));
  post({ hello: PROTOCOL }, []);
}

interface WorkerScope {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  addEventListener(type: 'message', listener: (event: { data: Task }) => void): void;
}

interface Port {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  on(event: 'message', listener: (task: Task) => void): void;
}

function serveNode(parentPort: Port): void {
  serve(
    (message, transfer) => parentPort.postMessage(message, transfer),
    (handle) => parentPort.on('message', handle),
  );
}

const scope = globalThis as unknown as Partial<WorkerScope> & {
  WorkerGlobalScope?: unknown;
  process?: { getBuiltinModule?: (id: string) => unknown };
};
if (scope.WorkerGlobalScope !== undefined && typeof scope.postMessage === 'function') {
  serve(
    (message, transfer) => scope.postMessage!(message, transfer),
    (handle) => scope.addEventListener!('message', (event) => handle(event.data)),
  );
} else if (typeof scope.process?.getBuiltinModule === 'function') {
  // Node 20.16 and later.
  serveNode((scope.process.getBuiltinModule('node:worker_threads') as { parentPort: Port }).parentPort);
} else {
  // Node before 20.16 (from a string or a file, CommonJS or ES module alike): a variable specifier keeps
  // bundlers from pulling worker_threads into browser builds of the sources (the built script is a string to them).
  const module = 'node:worker_threads';
  import(/* @vite-ignore */ module).then(({ parentPort }) => serveNode(parentPort));
}
