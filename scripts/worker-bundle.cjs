// The PointGridWorkers worker as one self-contained classic script: src/workers/worker.ts and everything it
// imports (the pool's kernels and the PointGrid code they run), bundled and minified by esbuild into an IIFE
// with no import or export statement, so that it runs unchanged as a browser classic worker (from a Blob
// URL), as a Node worker_threads worker (`new Worker(code, { eval: true })`) or as a file of its own.
//
// One function, CommonJS so that both callers can load it synchronously:
//   scripts/build.mjs               writes it into dist/ (worker-script.js as a string, worker.js as a file);
//   src/workers/worker-script.ts    bundles it at run time when the pool runs from the TypeScript sources in
//                                   Node (vitest, tsx, the bench), so tests run the very script users get.
'use strict';
const { buildSync } = require('esbuild');
const { join } = require('node:path');

/** The worker's script text. Throws when esbuild warns (e.g. about import.meta, which a classic script lacks). */
function bundleWorker() {
  const result = buildSync({
    entryPoints: [join(__dirname, '../src/workers/worker.ts')],
    // The WebAssembly kernels' module stays out (src/wasm/binary.ts, 18 KB of deflated base64): the pool posts
    // each worker the module it compiled (see src/wasm/kernels.ts and withKernels in src/workers/threads.ts).
    define: { 'globalThis.SPATIALHASH_WORKER_SCRIPT': 'true' },
    bundle: true,
    format: 'iife',
    platform: 'neutral',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  if (result.warnings.length > 0) {
    throw new Error(`bundling the worker: esbuild warned: ${result.warnings.map((w) => w.text).join('; ')}`);
  }
  return result.outputFiles[0].text;
}

module.exports = { bundleWorker };
