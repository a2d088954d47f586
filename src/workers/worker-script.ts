/**
 * Where the pool's worker code comes from. The design, shared with the
 * packaging work (docs/guides/threads.md tells users the same):
 *
 * - The built package carries the worker as one self-contained script:
 *   scripts/worker-bundle.cjs bundles src/workers/worker.ts and everything it
 *   imports with esbuild into one minified classic script (an IIFE, no import
 *   or export, about 73 KB). scripts/build.mjs replaces this module in dist/
 *   by one whose {@link WORKER_SCRIPT} is that text as a string, and also
 *   writes it as a file (dist/esm/workers/worker.js, dist/cjs/workers/worker.js)
 *   for users who start their own worker (createWorker).
 * - The pool starts it with nothing to resolve: in browsers a classic worker
 *   from a Blob URL, in Node `new Worker(code, { eval: true })` of
 *   worker_threads. No `new URL(..., import.meta.url)` and no `import()` of a
 *   variable is left in dist/ (build.mjs checks), so webpack, Rollup, esbuild
 *   and Vite bundle the pool as plain code with their default configs.
 *   Classic rather than module: the script imports nothing, so a module
 *   worker would buy nothing and lose Firefox before 114. A page with a
 *   Content-Security-Policy must allow `worker-src blob:`.
 * - From the TypeScript sources (this file as written, WORKER_SCRIPT
 *   undefined): in Node (vitest, tsx, the bench) the same bundle is made at
 *   run time by esbuild, a dev dependency, so the tests run the very script
 *   users get; in a browser (the demo under Vite) a module worker from
 *   worker.ts, written as the literal `new Worker(new URL(...))` Vite bundles.
 *
 * @module
 */
import type { WorkerLike } from './channel.js';

// The package compiles against ES2022 alone (no DOM or Node types, which its
// users may not have): the host names used here, declared for this module.
declare const URL: new (url: string, base?: string) => { readonly href: string };
declare const Worker: new (url: { readonly href: string }, options: { type: 'module' }) => WorkerLike;
declare global {
  interface ImportMeta {
    url: string;
  }
}

/**
 * The worker's script as one string: set in the built package (by
 * scripts/build.mjs); undefined when running from the TypeScript sources.
 */
export const WORKER_SCRIPT: string | undefined = undefined;

let bundled: string | undefined;

/**
 * From the sources in Node: the script the build would write, bundled now by
 * scripts/worker-bundle.cjs (once per process, about 0.1 s).
 */
export function sourceWorkerScript(createRequire: (from: string) => (id: string) => unknown): string {
  if (bundled === undefined) {
    const require = createRequire(import.meta.url);
    const { bundleWorker } = require('../../scripts/worker-bundle.cjs') as { bundleWorker(): string };
    bundled = bundleWorker();
  }
  return bundled;
}

/** From the sources in a browser: worker.ts as a module worker, in the form Vite recognises and bundles. */
export function sourceModuleWorker(): { worker: WorkerLike; url: string } {
  const url = new URL('./worker.ts', import.meta.url);
  return { worker: new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' }), url: url.href };
}
