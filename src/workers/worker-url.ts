/**
 * Where the worker script is, kept in one small module because it is the only
 * place that depends on the module format: `import.meta.url` here (ESM build
 * and sources). A CommonJS build swaps this file for one that resolves
 * `worker.js` next to `__filename`.
 *
 * @module
 */

// The package compiles against ES2022 alone (no DOM or Node types, which its
// users may not have): the host names used here, declared for this module.
declare const URL: new (url: string, base?: string) => { readonly href: string };
declare const Worker: new (url: { readonly href: string }, options: { type: 'module' }) => WorkerLike;
declare global {
  interface ImportMeta {
    url: string;
  }
}

/** The part of a Worker (browser) or worker_threads Worker (Node) the pool uses. */
export interface WorkerLike {
  /** Sends one task to the worker (structured clone; `transfer` lists buffers to move rather than copy). */
  postMessage(message: unknown, transfer?: unknown[]): void;
  /** Stops the worker; called by {@link PointGridWorkers.close}. */
  terminate(): unknown;
}

/** A file URL, as the URL class gives it. */
export type FileUrl = { readonly href: string };

/** worker.js next to this module (the built package). */
export function builtWorkerUrl(): FileUrl {
  return new URL('./worker.js', import.meta.url);
}

/** worker.ts next to this module (running from the TypeScript sources, as the tests do). */
export function sourceWorkerUrl(): FileUrl {
  return new URL('./worker.ts', import.meta.url);
}

/**
 * Node, from the TypeScript sources: code for an `eval` worker that registers
 * tsx's loader and then imports worker.ts. (Node 20 does not run `--import`
 * hooks for a worker's entry file, so `execArgv: ['--import', 'tsx']` is not
 * enough.) tsx is resolved from here, so the working directory does not matter.
 */
export function sourceWorkerCode(
  createRequire: (from: string) => { resolve(id: string): string },
  exists: (path: string) => boolean,
): string {
  let api = 'tsx/esm/api';
  try {
    // require.resolve finds the CommonJS entry; its ES module twin sits beside it.
    const esm = createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs');
    if (exists(esm)) api = new URL(`file://${esm}`).href;
  } catch {
    // Not resolvable from here: leave it to the worker's own resolution (from the working directory).
  }
  const entry = sourceWorkerUrl().href;
  return `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
}

/**
 * A browser module worker running worker.js, written as the literal
 * `new Worker(new URL(..., import.meta.url))` that bundlers (Vite, webpack,
 * esbuild) recognise and bundle.
 */
export function browserWorker(): WorkerLike {
  return new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
}
