/**
 * The script each PointGridWorkers thread runs (built to worker.js): takes
 * task messages, runs them (tasks.ts) and posts back `{ ok, result }` or
 * `{ ok: false, error }`. Works as a Node worker_threads worker and as a
 * browser module Web Worker.
 *
 * @module
 */
import { runTask, type Task } from './tasks.js';

/** What a worker posts back for each task. */
export type Reply = { ok: true; result: unknown; ms: number } | { ok: false; error: string; name: string };

// The package compiles against ES2022 alone (no DOM or Node types): declared for this module.
declare const performance: { now(): number };

type Post = (reply: Reply, transfer: ArrayBuffer[]) => void;

function handler(post: Post): (task: Task) => void {
  return (task) => {
    const started = performance.now();
    try {
      const done = runTask(task);
      post({ ok: true, result: done.result, ms: performance.now() - started }, done.transfer);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      post({ ok: false, error: e.message, name: e.name }, []);
    }
  };
}

interface WorkerScope {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  addEventListener(type: 'message', listener: (event: { data: Task }) => void): void;
}

const scope = globalThis as unknown as Partial<WorkerScope> & { WorkerGlobalScope?: unknown };
if (scope.WorkerGlobalScope !== undefined && typeof scope.postMessage === 'function') {
  const post: Post = (reply, transfer) => scope.postMessage!(reply, transfer);
  const handle = handler(post);
  scope.addEventListener!('message', (event) => handle(event.data));
} else {
  // Node: a variable specifier keeps bundlers from pulling worker_threads into browser builds.
  const module = 'node:worker_threads';
  import(/* @vite-ignore */ module).then(({ parentPort }) => {
    const handle = handler((reply, transfer) => parentPort.postMessage(reply, transfer));
    parentPort.on('message', handle);
  });
}
