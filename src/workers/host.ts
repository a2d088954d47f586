/**
 * What differs between hosts when a pool starts: how many cores, whether
 * threads can share memory, and how to start a worker running this
 * package's script (see worker-script.ts for the design): Node's
 * worker_threads from the script as a string, or a browser classic worker
 * from a Blob URL of it.
 *
 * @module
 */

import { nodeBuiltin } from '../core/node-builtin.js';
import { THREADS_GUIDE, type WorkerLike, type WorkerOrigin } from './channel.js';
import { sourceModuleWorker, sourceWorkerScript, WORKER_SCRIPT } from './worker-script.js';

// The package compiles against ES2022 alone (no DOM or Node types, which its users may not have): the host
// names used here, declared for this module.
declare const Worker: (new (url: string) => WorkerLike) | undefined;
declare const Blob: new (parts: string[], options: { type: string }) => object;
declare const URL: { createObjectURL(blob: object): string };

function nodeVersion(): string | undefined {
  return (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
}

export function defaultThreads(): number {
  const os = nodeBuiltin<{ availableParallelism?: () => number; cpus: () => unknown[] }>('node:os');
  if (os !== undefined) return os.availableParallelism?.() ?? os.cpus().length;
  const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  return typeof cores === 'number' && cores >= 1 ? cores : 1;
}

/**
 * Whether threads can share memory here: SharedArrayBuffer exists, and the
 * page (if any) is cross-origin isolated, without which a browser that still
 * has the constructor refuses to post one.
 */
export function sharedMemoryAvailable(): boolean {
  return (
    typeof SharedArrayBuffer === 'function' &&
    (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated !== false
  );
}

/** The Blob URL of the worker's script, made once per page (workers started later reuse it). */
let scriptUrl: string | undefined;

const CREATE_WORKER_HINT =
  "pass createWorker to start the worker from a copy of the package's dist/esm/workers/worker.js served by your own origin";

/** A worker running this package's script, started the default way for this host. */
export function defaultWorker(): { worker: WorkerLike; origin: WorkerOrigin } {
  const threads = nodeBuiltin<{ Worker: new (code: string, options: { eval: true }) => WorkerLike }>(
    'node:worker_threads',
  );
  if (threads !== undefined) {
    const module = nodeBuiltin<{ createRequire: (from: string) => (id: string) => unknown }>('node:module')!;
    const code = WORKER_SCRIPT ?? sourceWorkerScript(module.createRequire);
    return {
      worker: new threads.Worker(code, { eval: true }),
      origin: {
        what: 'the script bundled into spatialhash/workers, run by new Worker(script, { eval: true }) of node:worker_threads',
        hint: 'Under the permission model, Node needs --allow-worker',
      },
    };
  }
  const version = nodeVersion();
  if (version !== undefined) {
    // Node before 20.16 has no process.getBuiltinModule, and a static import of worker_threads would reach browser
    // bundles: say what to do instead of failing on the browser's missing Worker.
    throw new Error(
      `PointGridWorkers starts worker_threads by itself on Node 20.16 or newer (process.getBuiltinModule); this is Node ${version}: pass createWorker, e.g. () => new Worker(join(dirname(require.resolve('spatialhash/package.json')), 'dist/esm/workers/worker.js')) with Worker from node:worker_threads`,
    );
  }
  if (typeof Worker !== 'function') {
    throw new Error(`PointGridWorkers: this context has no Worker class to start threads with; ${CREATE_WORKER_HINT}`);
  }
  if (WORKER_SCRIPT === undefined) {
    const { worker, url } = sourceModuleWorker();
    return {
      worker,
      origin: {
        what: `module worker ${url}, from the TypeScript sources`,
        hint: 'Serve the sources through Vite (as the demo does), or use the built package',
      },
    };
  }
  scriptUrl ??= URL.createObjectURL(new Blob([WORKER_SCRIPT], { type: 'text/javascript' }));
  let worker: WorkerLike;
  try {
    worker = new Worker(scriptUrl);
  } catch (error) {
    throw new Error(
      `PointGridWorkers: the browser refused to start a worker from ${scriptUrl} (the script bundled into spatialhash/workers): ${(error as Error)?.message}. A page with a Content-Security-Policy must allow worker-src blob:, or ${CREATE_WORKER_HINT}; see ${THREADS_GUIDE}`,
    );
  }
  return {
    worker,
    origin: {
      what: `the script bundled into spatialhash/workers, from ${scriptUrl}`,
      hint: `A page with a Content-Security-Policy must allow worker-src blob:, or ${CREATE_WORKER_HINT}`,
    },
  };
}

/** Where a worker from createWorker comes from, as its load failure's Error says. */
export const CUSTOM_ORIGIN: WorkerOrigin = {
  what: 'a worker from createWorker',
  hint: "Check that createWorker starts this package's worker script (dist/esm/workers/worker.js in the package) from a URL that serves it",
};
