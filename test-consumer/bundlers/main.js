// The page every bundler app builds (scripts/test-bundlers.mjs copies this file to each app's src/main.js):
// a user's code that imports the package's two entries, runs the pool's searches and checks them against the
// same searches on this thread. It reports to the test runner through window.__spatialhashConsumer and the
// page's #result text, and never throws past that report.
import { activeKernels, PointGrid2D, PointGrid3D } from 'spatialhash';
import { PointGridWorkers } from 'spatialhash/workers';

/** A seeded generator (an LCG), so every run and every bundler searches the same points. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function points(count, dimension, size, seed) {
  const next = random(seed);
  const positions = new Float64Array(count * dimension);
  for (let i = 0; i < positions.length; i++) positions[i] = next() * size;
  return positions;
}

function sameArray(what, got, want) {
  if (got.length !== want.length)
    throw new Error(`${what}: ${got.length} entries, the grid's own search has ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i]) throw new Error(`${what}: entry ${i} is ${got[i]}, the grid's own search has ${want[i]}`);
  }
}

/**
 * Waits (at most about 5 s) for the WebAssembly kernels, which a page's main thread compiles in the background,
 * so that the pool's calls below post the compiled module to the workers; says which path this thread is on.
 */
async function kernelsReady() {
  for (let k = 0; k < 100 && activeKernels() !== 'wasm'; k++) await new Promise((resolve) => setTimeout(resolve, 50));
  return activeKernels();
}

/** Which path the pool's threads searched on in its last call (see PointGridWorkersPhase.threadKernels). */
function threadKernels(pool) {
  const phases = pool.lastTimings?.phases ?? [];
  return [...new Set(phases.filter((p) => p.name === 'search' || p.name === 'pairs').flatMap((p) => p.threadKernels))];
}

async function check() {
  const radius = 0.5;
  const kernels = await kernelsReady();
  // The pool shares memory where the page has SharedArrayBuffer (cross-origin isolated) and works on copies
  // elsewhere: grids built with `shared: pool.shared` run either way, the same code on every page.
  const pool = new PointGridWorkers({ threads: 2 });
  try {
    const grid3 = new PointGrid3D(points(4000, 3, 10, 3), { cellSize: radius, shared: pool.shared });
    const grid2 = new PointGrid2D(points(3000, 2, 30, 2), { cellSize: radius, shared: pool.shared });
    const lists = await pool.neighbors(grid3, radius);
    const want = grid3.neighbors(radius);
    sameArray('pool.neighbors offsets (3D)', lists.offsets, want.offsets);
    sameArray('pool.neighbors indices (3D)', lists.indices, want.indices);
    const pairs3 = await pool.pairs(grid3, radius);
    const wantPairs3 = grid3.pairs(radius);
    sameArray('pool.pairs (3D)', pairs3, wantPairs3);
    const poolKernels = threadKernels(pool);
    const pairs2 = await pool.pairs(grid2, radius);
    const wantPairs2 = grid2.pairs(radius);
    sameArray('pool.pairs (2D)', pairs2, wantPairs2);
    // Equal empty results would prove nothing.
    if (wantPairs3.length === 0 || wantPairs2.length === 0) throw new Error('the test points have no pairs');
    return {
      isolated: globalThis.crossOriginIsolated === true,
      shared: pool.shared,
      threads: pool.threads,
      kernels,
      poolKernels,
      neighbors: want.indices.length,
      pairs: wantPairs3.length / 2 + wantPairs2.length / 2,
    };
  } finally {
    pool.close();
  }
}

function report(result) {
  globalThis.__spatialhashConsumer = result;
  const element = document.getElementById('result');
  if (element !== null) element.textContent = JSON.stringify(result, null, 2);
}

check().then(
  (result) => report({ ok: true, ...result }),
  (error) => report({ ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
);
