/**
 * What one frame of a particle loop allocates on the JavaScript heap: move
 * every point a little, `rebuild()`, `forEachPair()` with a two-parameter
 * visitor (issue 39, item 9: at most 1 KiB a frame on both paths, no garbage
 * collection in 300 frames). 100,000 2D points uniform at unit density
 * (Float64Array), radius for about 8 neighbours, cell size the radius.
 *
 * How it measures (memory, not time: test/pointgrid/frame-allocation.test.ts
 * runs it and holds the bars):
 * - warm-up frames first (V8 compiles and the grid's and kernels' buffers
 *   reach their working size), and passes of the measuring loop itself,
 *   then a full collection (`gc()`, which needs `--expose-gc`);
 * - `process.memoryUsage().heapUsed` before the first measured frame and
 *   after each: a frame's growth is the difference, frames in which the heap
 *   shrank (a collection ran) are left out, and collections are counted by a
 *   PerformanceObserver of 'gc' entries;
 * - the sampling's own cost (memoryUsage() allocates its result) is measured
 *   the same way over as many empty frames, and subtracted.
 *
 * Run by hand: `node --expose-gc --import tsx bench/frame-allocation.ts
 * [wasm|javascript] [frames] [points]` prints one line; `--json` prints the
 * figures as JSON (what the test reads).
 *
 * @module
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { PointGrid2D, setKernelMode } from '../src/index.js';
import { radiusFor2D, uniform2D } from './data.js';

const args = process.argv.slice(2).filter((a) => a !== '--json');
const json = process.argv.includes('--json');
const mode = (args[0] ?? 'wasm') as 'wasm' | 'javascript';
const frames = Number(args[1] ?? 300);
const n = Number(args[2] ?? 1e5);
const WARM_UP = 20;

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with node --expose-gc');

setKernelMode(mode);
const positions = uniform2D(n, 1);
const side = Math.sqrt(n);
const radius = radiusFor2D(8);
const grid = new PointGrid2D(positions, { cellSize: radius });

// The frame's own work allocates nothing: a fixed LCG, plain loops, a two-parameter visitor.
let state = 12345;
let sink = 0;
const visit = (i: number, j: number) => {
  sink = (sink + i + j) | 0;
};
function frame(): void {
  for (let k = 0; k < positions.length; k++) {
    state = (Math.imul(state, 1664525) + 1013904223) | 0;
    let v = positions[k] + (state >>> 8) * 2 ** -24 * 0.02 - 0.01;
    if (v < 0) v += side;
    else if (v >= side) v -= side;
    positions[k] = v;
  }
  grid.rebuild();
  grid.forEachPair(radius, visit);
}

/**
 * Heap growth per frame over `count` frames of `work` (mean, and median for
 * context), leaving out frames a collection shrank. The caller collects first.
 */
function growth(work: () => void, count: number): { perFrame: number; median: number; gcFrames: number } {
  const heap = new Float64Array(count + 1);
  heap[0] = process.memoryUsage().heapUsed;
  for (let f = 1; f <= count; f++) {
    work();
    heap[f] = process.memoryUsage().heapUsed;
  }
  const deltas: number[] = [];
  for (let f = 1; f <= count; f++) {
    const delta = heap[f] - heap[f - 1];
    if (delta >= 0) deltas.push(delta);
  }
  const sum = deltas.reduce((a, b) => a + b, 0);
  deltas.sort((a, b) => a - b);
  const median = deltas.length === 0 ? 0 : deltas[deltas.length >> 1];
  return { perFrame: deltas.length === 0 ? 0 : sum / deltas.length, median, gcFrames: count - deltas.length };
}

for (let f = 0; f < WARM_UP; f++) frame();
// The sampling's cost, measured the same way with nothing in the frame; the first pass compiles the loop.
const empty = () => {};
growth(empty, frames);
collect();
const sampling = growth(empty, frames);
// A pass of the measuring loop with the frame, so that V8 has compiled it for this closure: its first long pass
// recompiled it some 10 frames in, a quarter of a megabyte of code that no frame allocates.
growth(frame, 60);
let collections = 0;
let window: [number, number] = [0, 0];
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    if (entry.startTime >= window[0] && entry.startTime <= window[1]) collections++;
});
const measured = await new Promise<ReturnType<typeof growth>>((resolve) => {
  observer.observe({ entryTypes: ['gc'] });
  // Collections during the measured frames only, not the full one forced before them.
  collect();
  const start = performance.now();
  window = [start, Number.POSITIVE_INFINITY];
  const result = growth(frame, frames);
  window = [start, performance.now()];
  // The observer's entries arrive after the synchronous loop: let them in.
  setTimeout(() => resolve(result), 50);
});
observer.disconnect();

const result = {
  mode,
  points: n,
  frames,
  bytesPerFrame: Math.round(measured.perFrame - sampling.perFrame),
  medianBytesPerFrame: Math.round(measured.median - sampling.median),
  samplingBytes: Math.round(sampling.perFrame),
  collections,
  gcFrames: measured.gcFrames,
  checksum: sink,
};
if (json) console.log(JSON.stringify(result));
else {
  console.log(
    `${mode}: ${result.bytesPerFrame} bytes a frame (median ${result.medianBytesPerFrame}; sampling ${result.samplingBytes} subtracted), ${collections} collections in ${frames} frames of rebuild() + forEachPair() on ${n} points`,
  );
}
