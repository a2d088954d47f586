/**
 * Workload 4: moving particles. 100,000 particles in a box (the setting of
 * Müller's "Blazing Fast Neighbor Search", see peers/ten-minute-physics.ts),
 * each frame: move them (not timed), then rebuild the grid and visit every
 * neighbour pair within 2 spacings (timed). Reports frame-time
 * percentiles and what the heap does once warm: growth across the measured
 * frames after a full collection, collections that happened during them, and
 * the heap's rise within a frame.
 *
 * @module
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { type NeighborLists, PointGrid3D } from '../src/index.js';
import { jitteredLattice3D } from './data.js';
import { consume, gc, median, ms, percentile, random, table } from './harness.js';
import { tenMinutePhysicsNeighbors } from './peers/ten-minute-physics.js';

interface FrameStats {
  name: string;
  p50: number;
  p99: number;
  worst: number;
  heapGrowth: number;
  externalGrowth: number;
  collections: number;
  perFrameRise: number;
  links: number;
  frames: number;
}

/** Velocities and the integration step shared by every variant. */
function makeMotion(n: number, side: number, seed: number) {
  const rand = random(seed);
  const velocity = new Float64Array(n * 3);
  for (let k = 0; k < velocity.length; k++) velocity[k] = (rand() - 0.5) * 0.1;
  return (pos: Float64Array) => {
    for (let k = 0; k < pos.length; k++) {
      let x = pos[k] + velocity[k];
      if (x < 0 || x > side) {
        velocity[k] = -velocity[k];
        x = Math.min(Math.max(x, 0), side);
      }
      pos[k] = x;
    }
  };
}

/**
 * Full collections with pauses between them, so array buffers freed by the
 * previous variant or the warm-up are released before memory is read.
 */
async function settle(): Promise<void> {
  for (let k = 0; k < 2; k++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function runFrames(
  name: string,
  n: number,
  frames: number,
  warmup: number,
  step: (pos: Float64Array) => number,
): Promise<FrameStats> {
  const pos = jitteredLattice3D(n, 4);
  const move = makeMotion(n, Math.ceil(Math.cbrt(n)), 4);
  // Entries arrive asynchronously, so they are kept by time stamp: only
  // collections that started inside the measured frames count.
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  let collections = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.startTime >= windowStart && entry.startTime <= windowEnd) collections++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const times: number[] = [];
  let heapBefore = 0;
  let externalBefore = 0;
  let rise = 0;
  let riseFrames = 0;
  let links = 0;
  for (let f = 0; f < warmup + frames; f++) {
    if (f === warmup) {
      await settle();
      windowStart = performance.now();
      const usage = process.memoryUsage();
      heapBefore = usage.heapUsed;
      externalBefore = usage.external + usage.arrayBuffers;
    }
    move(pos);
    const heap0 = process.memoryUsage().heapUsed;
    const start = performance.now();
    links = step(pos);
    const elapsed = performance.now() - start;
    const heap1 = process.memoryUsage().heapUsed;
    consume(links);
    if (f >= warmup) {
      times.push(elapsed);
      // A collection inside the frame makes the difference meaningless.
      if (heap1 >= heap0) {
        rise += heap1 - heap0;
        riseFrames++;
      }
    }
  }
  windowEnd = performance.now();
  // Also lets the observer receive the entries of the measured frames.
  await settle();
  const usage = process.memoryUsage();
  observer.disconnect();
  return {
    name,
    p50: median(times),
    p99: percentile(times, 99),
    worst: Math.max(...times),
    heapGrowth: usage.heapUsed - heapBefore,
    externalGrowth: usage.external + usage.arrayBuffers - externalBefore,
    collections,
    perFrameRise: riseFrames > 0 ? rise / riseFrames : Number.NaN,
    links,
    frames,
  };
}

function bytes(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const sign = value < 0 ? '-' : '';
  const a = Math.abs(value);
  if (a >= 1 << 20) return `${sign}${(a / (1 << 20)).toFixed(1)} MiB`;
  if (a >= 1024) return `${sign}${(a / 1024).toFixed(1)} KiB`;
  return `${sign}${a.toFixed(0)} B`;
}

/**
 * A frame step that rebuilds one PointGrid3D and visits every pair with a
 * visitor declared with `arity` parameters (0 to 3), each of which folds what
 * it gets into small integers, so that the visitor itself allocates nothing.
 */
function forEachPairStep(radius: number, arity: 0 | 1 | 2 | 3): (pos: Float64Array) => number {
  let grid: PointGrid3D | undefined;
  let pairs = 0;
  let sum = 0;
  const r2 = radius * radius;
  const visitors = [
    () => {
      pairs++;
    },
    (i: number) => {
      pairs++;
      sum = (sum + i) & 0x3fffffff;
    },
    (i: number, j: number) => {
      pairs++;
      sum = (sum + Math.imul(i + 1, j + 1)) & 0x3fffffff; // kept a small integer: see fingerprint()
    },
    (i: number, j: number, distanceSquared: number) => {
      pairs++;
      sum = (sum + Math.imul(i + 1, j + 1) + +(distanceSquared <= r2)) & 0x3fffffff;
    },
  ];
  const visit = visitors[arity];
  return (pos) => {
    if (grid) grid.rebuild(pos);
    else grid = new PointGrid3D(pos, { cellSize: radius });
    pairs = 0;
    sum = 0;
    grid.forEachPair(radius, visit);
    consume(sum);
    return pairs;
  };
}

/** Runs workload 4 and returns its markdown section. */
export async function particles(quick: boolean): Promise<string> {
  const n = 100000;
  const frames = quick ? 100 : 600;
  const warmup = quick ? 20 : 60;
  const radius = 2;
  // The secondary variants run fewer frames to keep the workload short: their
  // medians settle long before 600 frames.
  const csrFrames = quick ? 50 : 100;
  const baselineFrames = quick ? 10 : 20;
  const arityFrames = quick ? 50 : 200;
  const variants: [string, number, () => (pos: Float64Array) => number][] = [
    ['PointGrid3D rebuild + forEachPair', frames, () => forEachPairStep(radius, 2)],
    [
      'PointGrid3D rebuild + neighbors (CSR)',
      csrFrames,
      () => {
        let grid: PointGrid3D | undefined;
        return (pos) => {
          if (grid) grid.rebuild(pos);
          else grid = new PointGrid3D(pos, { cellSize: radius });
          return grid.neighbors(radius).indices.length / 2;
        };
      },
    ],
    [
      'PointGrid3D rebuild + neighbors (CSR, { out }: last result written over)',
      csrFrames,
      () => {
        let grid: PointGrid3D | undefined;
        let last: NeighborLists | undefined;
        return (pos) => {
          if (grid) grid.rebuild(pos);
          else grid = new PointGrid3D(pos, { cellSize: radius });
          last = grid.neighbors(radius, { out: last });
          return last.indices.length / 2;
        };
      },
    ],
    [
      'Ten Minute Physics hash (reimplemented), CSR',
      baselineFrames,
      () => (pos) => tenMinutePhysicsNeighbors(pos, radius).indices.length / 2,
    ],
    // Issue 12: no visitor arity may allocate. These run after the two-parameter
    // row, so its call site has seen several visitors by then (the worst case
    // for V8's inlining); the three-parameter visitor is the only one at its own.
    ['forEachPair, visitor () => ...', arityFrames, () => forEachPairStep(radius, 0)],
    ['forEachPair, visitor (i) => ...', arityFrames, () => forEachPairStep(radius, 1)],
    ['forEachPair, visitor (i, j, distanceSquared) => ...', arityFrames, () => forEachPairStep(radius, 3)],
  ];
  // Check before timing: on the starting positions every variant must find
  // the same pairs (CSR rows hold each pair twice, hence the halving above).
  const start = jitteredLattice3D(n, 4);
  const pairCounts = variants.map(([, , make]) => make()(start.slice()));
  if (new Set(pairCounts).size !== 1) {
    throw new Error(`particles: variants disagree on the pairs of the first frame: ${pairCounts.join(', ')}`);
  }
  // What the measuring itself allocates (process.memoryUsage() results):
  // a step that does nothing, so the rise column can be read against it.
  variants.push(['no-op step (measurement overhead)', baselineFrames, () => () => pairCounts[0]]);
  const results: FrameStats[] = [];
  for (const [name, count, make] of variants) {
    const warm = count < frames ? Math.min(warmup, 10) : warmup;
    console.log(`  particles: ${name}, ${warm} + ${count} frames`);
    results.push(await runFrames(name, n, count, warm, make()));
  }
  const ours = results[0].p50;
  return [
    '## 4. Moving particles',
    `${n.toLocaleString('en-US')} particles in a box (start: shuffled jittered lattice, spacing 1), random velocities, ${frames} measured frames after ${warmup} warm-up frames (the CSR variants ${csrFrames} after 10, the Ten Minute Physics baseline ${baselineFrames} after 10, the visitor-arity rows ${arityFrames} after 10). Timed per frame: rebuild + every neighbour pair within r = ${radius} (${pairCounts[0].toLocaleString('en-US')} pairs in the first frame, checked equal across variants before timing). Heap growth: heapUsed (and external + array buffers) after a full collection at the end minus the same after warm-up. GCs: collections that started during the measured frames. Rise: mean heapUsed increase within one frame (frames with a collection inside excluded); the no-op row is what the measuring itself allocates. The last rows repeat the forEachPair loop with visitors declared with 0, 1 and 3 parameters (none may allocate; only the three-parameter one is passed the squared distance).`,
    table(
      [
        'variant',
        'frame p50 ms',
        'frame p99 ms',
        'worst ms',
        'ratio (p50)',
        'heap growth',
        'external growth',
        'GCs',
        'GCs per frame',
        'rise per frame',
      ],
      results.map((r) => [
        r.name,
        ms(r.p50),
        ms(r.p99),
        ms(r.worst),
        (r.p50 / ours).toFixed(2),
        bytes(r.heapGrowth),
        bytes(r.externalGrowth),
        String(r.collections),
        (r.collections / r.frames).toFixed(2),
        bytes(r.perFrameRise),
      ]),
    ),
  ].join('\n\n');
}
