// The page every bundler app builds (scripts/test-bundlers.mjs copies this file to each app's src/main.js):
// a user's code that imports the package's entries, runs the pool's searches and checks them against the
// same searches on this thread, and runs spatialhash/d3's collision force on a row of nodes. It reports to the
// test runner through window.__spatialhashConsumer and the page's #result text, and never throws past that report.
import { activeKernels, PointGrid2D, PointGrid3D } from 'spatialhash';
import { forceCollide } from 'spatialhash/d3';
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

/**
 * spatialhash/d3 as a d3 app uses it, without d3 (an optional peer): a row of nodes 1.5 apart with radius 1
 * overlaps pair by pair, and one tick of the force pushes neighbours apart, the first node back and the last
 * one forward, in the sequential order of d3's rule (each pair's correction as written out below).
 */
function collideCheck() {
  const nodes = Array.from({ length: 50 }, (_, i) => ({ x: 1.5 * i, y: 0, vx: 0, vy: 0 }));
  const force = forceCollide(1);
  force.initialize(nodes, () => 0.5);
  force(1);
  // Node 0 meets only node 1: (2 - 1.5) / 1.5 of their offset, split evenly.
  const first = -1.5 * (0.5 / 1.5) * 0.5;
  if (nodes[0].vx !== first) throw new Error(`forceCollide: node 0 vx is ${nodes[0].vx}, expected ${first}`);
  if (!(nodes[49].vx > 0) || force.stats().pairs !== 49) {
    throw new Error(`forceCollide: ${force.stats().pairs} pairs, last vx ${nodes[49].vx}`);
  }
  return force.stats().pairs;
}

async function check() {
  const collidePairs = collideCheck();
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
      collidePairs,
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
