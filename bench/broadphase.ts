/**
 * Workload 5: a game broadphase. 20,000 boxes in a 2000 x 2000 world (sides
 * 1..40, plus 5 huge ones of 300..1000), 5% of them (fixed movers with a
 * velocity, bouncing off the walls) move each frame for 300 frames. Per
 * frame: apply the moves, find all overlapping pairs, run 100 box queries.
 * Each contender replays the same precomputed frames from the same start.
 *
 * @module
 */
import boxIntersect from 'box-intersect';
import Flatbush from 'flatbush';
import RBush from 'rbush';
import { SpatialHash2D } from '../src/index.js';
import { answerCount, consume, fingerprint, gc, median, ms, percentile, random, ratio, table } from './harness.js';

const OURS = 'SpatialHash2D';
const WORLD = 2000;
const QUERIES = 100;

interface Scene {
  count: number;
  frames: number;
  /** Initial boxes, minX minY maxX maxY per box. */
  boxes: Float64Array;
  movers: Uint32Array;
  /** Per frame, per mover, its new box. */
  moves: Float64Array;
  /** Per frame, QUERIES query boxes. */
  queries: Float64Array;
}

function makeScene(count: number, frames: number, seed: number): Scene {
  const rand = random(seed);
  const boxes = new Float64Array(count * 4);
  const huge = 5;
  for (let i = 0; i < count; i++) {
    const w = i < huge ? 300 + rand() * 700 : 1 + rand() * 39;
    const h = i < huge ? 300 + rand() * 700 : 1 + rand() * 39;
    const x = rand() * (WORLD - w);
    const y = rand() * (WORLD - h);
    boxes.set([x, y, x + w, y + h], i * 4);
  }
  // Movers are ordinary boxes: the huge ones (ids below 5) stay put.
  const moverCount = Math.round(count * 0.05);
  const movers = new Uint32Array(moverCount);
  for (let k = 0; k < moverCount; k++) movers[k] = huge + Math.floor((k * (count - huge)) / moverCount);
  const vx = new Float64Array(moverCount);
  const vy = new Float64Array(moverCount);
  for (let k = 0; k < moverCount; k++) {
    vx[k] = (rand() - 0.5) * 6;
    vy[k] = (rand() - 0.5) * 6;
  }
  const current = boxes.slice();
  const moves = new Float64Array(frames * moverCount * 4);
  const queries = new Float64Array(frames * QUERIES * 4);
  for (let f = 0; f < frames; f++) {
    for (let k = 0; k < moverCount; k++) {
      const b = movers[k] * 4;
      const w = current[b + 2] - current[b];
      const h = current[b + 3] - current[b + 1];
      let x = current[b] + vx[k];
      let y = current[b + 1] + vy[k];
      if (x < 0 || x + w > WORLD) {
        vx[k] = -vx[k];
        x = Math.min(Math.max(x, 0), WORLD - w);
      }
      if (y < 0 || y + h > WORLD) {
        vy[k] = -vy[k];
        y = Math.min(Math.max(y, 0), WORLD - h);
      }
      current.set([x, y, x + w, y + h], b);
      moves.set([x, y, x + w, y + h], (f * moverCount + k) * 4);
    }
    for (let q = 0; q < QUERIES; q++) {
      const w = 50 + rand() * 150;
      const h = 50 + rand() * 150;
      const x = rand() * (WORLD - w);
      const y = rand() * (WORLD - h);
      queries.set([x, y, x + w, y + h], (f * QUERIES + q) * 4);
    }
  }
  return { count, frames, boxes, movers, moves, queries };
}

/**
 * What a contender does per frame. `frame` applies frame f's moves, counts
 * its pairs and queries into the shared tally.
 */
interface Engine {
  frame(f: number): void;
}

interface Tally {
  count: number;
  sum: number;
}

function pair(t: Tally, a: number, b: number): void {
  t.count++;
  t.sum = (t.sum + Math.imul(a + 1, b + 1)) | 0;
}

function spatialHashEngine(scene: Scene, t: Tally, cellSize: number): Engine {
  const { boxes, movers, moves, queries, count } = scene;
  const hash = new SpatialHash2D<number>({ cellSize, initialCapacity: count });
  for (let i = 0; i < count; i++) hash.insert(i, boxes[i * 4], boxes[i * 4 + 1], boxes[i * 4 + 2], boxes[i * 4 + 3]);
  const out: number[] = [];
  const onPair = (a: number, b: number) => pair(t, a, b);
  return {
    frame(f) {
      for (let k = 0; k < movers.length; k++) {
        const m = (f * movers.length + k) * 4;
        hash.update(movers[k], moves[m], moves[m + 1], moves[m + 2], moves[m + 3]);
      }
      hash.forEachPair(onPair);
      for (let q = 0; q < QUERIES; q++) {
        const b = (f * QUERIES + q) * 4;
        hash.queryBox(queries[b], queries[b + 1], queries[b + 2], queries[b + 3], out);
        for (let k = 0; k < out.length; k++) pair(t, q, out[k]);
      }
    },
  };
}

/**
 * The same as a game that keeps ids would write it, with next to nothing
 * allocated per frame: movers move through updateById (no lookup of the
 * item), in a loop of their own as a movement system would be, and the
 * query boxes go through forEachOverlap (a reused `out` array still
 * reallocates: V8 shrinks an array whose length drops below half its
 * capacity, and the query sizes vary fourfold). What is left is the query
 * boxes' numbers, boxed for the forEachOverlap call. The pairs and hits
 * arrive as the items, which here are the ids.
 */
function spatialHashIdEngine(scene: Scene, t: Tally, cellSize: number): Engine {
  const { boxes, movers, moves, queries, count } = scene;
  const hash = new SpatialHash2D<number>({ cellSize, initialCapacity: count });
  const ids = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    ids[i] = hash.insert(i, boxes[i * 4], boxes[i * 4 + 1], boxes[i * 4 + 2], boxes[i * 4 + 3]);
  }
  const moverIds = Int32Array.from(movers, (m) => ids[m]);
  const onPair = (a: number, b: number) => pair(t, a, b);
  let query = 0;
  const onHit = (item: number): undefined => {
    pair(t, query, item);
  };
  const applyMoves = (f: number) => {
    for (let k = 0; k < moverIds.length; k++) {
      const m = (f * moverIds.length + k) * 4;
      hash.updateById(moverIds[k], moves[m], moves[m + 1], moves[m + 2], moves[m + 3]);
    }
  };
  return {
    frame(f) {
      applyMoves(f);
      hash.forEachPair(onPair);
      for (let q = 0; q < QUERIES; q++) {
        const b = (f * QUERIES + q) * 4;
        query = q;
        hash.forEachOverlap(queries[b], queries[b + 1], queries[b + 2], queries[b + 3], onHit);
      }
    },
  };
}

interface RBox {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  id: number;
}

function rbushEngine(scene: Scene, t: Tally): Engine {
  const { boxes, movers, moves, queries, count } = scene;
  const items: RBox[] = [];
  for (let i = 0; i < count; i++) {
    items.push({ minX: boxes[i * 4], minY: boxes[i * 4 + 1], maxX: boxes[i * 4 + 2], maxY: boxes[i * 4 + 3], id: i });
  }
  const tree = new RBush<RBox>();
  tree.load(items);
  const query = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  return {
    frame(f) {
      for (let k = 0; k < movers.length; k++) {
        const m = (f * movers.length + k) * 4;
        const item = items[movers[k]];
        tree.remove(item);
        item.minX = moves[m];
        item.minY = moves[m + 1];
        item.maxX = moves[m + 2];
        item.maxY = moves[m + 3];
        tree.insert(item);
      }
      for (let i = 0; i < count; i++) {
        const found = tree.search(items[i]);
        for (let k = 0; k < found.length; k++) if (found[k].id > i) pair(t, i, found[k].id);
      }
      for (let q = 0; q < QUERIES; q++) {
        const b = (f * QUERIES + q) * 4;
        query.minX = queries[b];
        query.minY = queries[b + 1];
        query.maxX = queries[b + 2];
        query.maxY = queries[b + 3];
        const found = tree.search(query);
        for (let k = 0; k < found.length; k++) pair(t, q, found[k].id);
      }
    },
  };
}

function flatbushEngine(scene: Scene, t: Tally): Engine {
  const { movers, moves, queries, count } = scene;
  const current = scene.boxes.slice();
  return {
    frame(f) {
      for (let k = 0; k < movers.length; k++) {
        const m = (f * movers.length + k) * 4;
        current.set(moves.subarray(m, m + 4), movers[k] * 4);
      }
      const index = new Flatbush(count);
      for (let i = 0; i < count; i++)
        index.add(current[i * 4], current[i * 4 + 1], current[i * 4 + 2], current[i * 4 + 3]);
      index.finish();
      for (let i = 0; i < count; i++) {
        const found = index.search(current[i * 4], current[i * 4 + 1], current[i * 4 + 2], current[i * 4 + 3]);
        for (let k = 0; k < found.length; k++) if (found[k] > i) pair(t, i, found[k]);
      }
      for (let q = 0; q < QUERIES; q++) {
        const b = (f * QUERIES + q) * 4;
        const found = index.search(queries[b], queries[b + 1], queries[b + 2], queries[b + 3]);
        for (let k = 0; k < found.length; k++) pair(t, q, found[k]);
      }
    },
  };
}

function boxIntersectEngine(scene: Scene, t: Tally): Engine {
  const { boxes, movers, moves, queries, count } = scene;
  // box-intersect takes an array of [minX, minY, maxX, maxY] boxes.
  const list: Float64Array[] = [];
  for (let i = 0; i < count; i++) list.push(boxes.slice(i * 4, i * 4 + 4));
  const queryList: Float64Array[] = [];
  for (let q = 0; q < QUERIES; q++) queryList.push(new Float64Array(4));
  // Returning anything but undefined would stop box-intersect early.
  const onPair = (a: number, b: number): undefined => {
    pair(t, a, b);
  };
  const onQuery = (i: number, q: number): undefined => {
    pair(t, q, i);
  };
  return {
    frame(f) {
      for (let k = 0; k < movers.length; k++) {
        const m = (f * movers.length + k) * 4;
        list[movers[k]].set(moves.subarray(m, m + 4));
      }
      boxIntersect(list, onPair);
      for (let q = 0; q < QUERIES; q++)
        queryList[q].set(queries.subarray((f * QUERIES + q) * 4, (f * QUERIES + q + 1) * 4));
      boxIntersect(list, queryList, onQuery);
    },
  };
}

/**
 * Runs `frames` frames on fresh engines, interleaved frame by frame (A B C D,
 * A B C D, ...) so load changes on the machine hit every contender alike,
 * with a full collection before each frame so nobody's frame pays for
 * another's garbage. After every frame each tally must equal the first's, or
 * it throws. Returns the frame times (ms) per engine.
 */
function runInterleaved(
  makers: readonly ((t: Tally) => Engine)[],
  names: readonly string[],
  frames: number,
  timed: boolean,
): { times: number[][]; answer: bigint } {
  const tallies = makers.map(() => ({ count: 0, sum: 0 }));
  const engines = makers.map((make, k) => make(tallies[k]));
  const times = makers.map(() => new Array<number>(frames));
  for (let f = 0; f < frames; f++) {
    for (let k = 0; k < engines.length; k++) {
      gc();
      const start = performance.now();
      engines[k].frame(f);
      times[k][f] = performance.now() - start;
    }
    for (let k = 1; k < engines.length; k++) {
      if (tallies[k].count !== tallies[0].count || tallies[k].sum !== tallies[0].sum) {
        throw new Error(
          `broadphase: ${names[k]} disagrees with ${names[0]} at frame ${f}${timed ? ' (timed pass)' : ''}: ${tallies[k].count} vs ${tallies[0].count} results`,
        );
      }
    }
  }
  return { times, answer: fingerprint(tallies[0].count, tallies[0].sum) };
}

/**
 * Runs `frames` frames on one fresh engine alone, as a game loop would: one
 * collection before it starts (the last contender's garbage is not this
 * one's), then none forced, so the only collections in its frames are those
 * its own garbage causes. Frames 0 .. warm - 1 of the scene run untimed, then
 * the next `frames` frames are timed: p99 is the steady state a game sees
 * after its first second, not the JIT compiling the shortest frame's code,
 * nor the aftermath of the forced collection (both showed in the first 20
 * frames of ours), nor a restart at frame 0 (every mover jumping back). Returns
 * the frame times (ms) and the answer, which the caller compares between
 * engines.
 */
function runAlone(make: (t: Tally) => Engine, frames: number, warm: number): { times: number[]; answer: bigint } {
  const tally = { count: 0, sum: 0 };
  gc();
  const engine = make(tally);
  for (let f = 0; f < warm; f++) engine.frame(f);
  const times = new Array<number>(frames);
  for (let f = 0; f < frames; f++) {
    const start = performance.now();
    engine.frame(warm + f);
    times[f] = performance.now() - start;
  }
  return { times, answer: fingerprint(tally.count, tally.sum) };
}

/** Runs workload 5 and returns its markdown section. */
export function broadphase(quick: boolean): string {
  const frames = quick ? 60 : 300;
  const checkFrames = quick ? 10 : 20;
  const aloneWarm = quick ? 10 : 60;
  const scene = makeScene(20000, frames, 5);
  const cellSize = 40;
  const engines: [string, (t: Tally) => Engine][] = [
    [OURS, (t) => spatialHashEngine(scene, t, cellSize)],
    [`${OURS} by id (updateById, forEachOverlap)`, (t) => spatialHashIdEngine(scene, t, cellSize)],
    ['rbush (remove + insert, search per box)', (t) => rbushEngine(scene, t)],
    ['flatbush (rebuilt per frame, search per box)', (t) => flatbushEngine(scene, t)],
    ['box-intersect (all pairs + bipartite queries)', (t) => boxIntersectEngine(scene, t)],
  ];
  const names = engines.map(([name]) => name);
  const makers = engines.map(([, make]) => make);
  console.log(`  broadphase: ${engines.length} contenders, ${checkFrames} check frames then ${frames} timed frames`);
  // Check and warm-up pass: answers compared frame by frame before any timing.
  runInterleaved(makers, names, checkFrames, false);
  const { times, answer } = runInterleaved(makers, names, frames, true);
  consume(answer);
  // The same frames with each contender alone and no forced collections: the
  // frame-to-frame spread a game loop sees (a collection before every frame
  // also leaves the caches cold, which weighs most on the shortest frames).
  console.log('  broadphase: each contender alone, no forced collections');
  // Two rounds of half the frames each, the second in reverse order, so a
  // slow spell of the machine does not fall on one contender alone.
  const half = Math.ceil(frames / 2);
  const alone = makers.map(() => ({ times: [] as number[], answers: [] as bigint[] }));
  for (const order of [makers.map((_, k) => k), makers.map((_, k) => makers.length - 1 - k)]) {
    for (const k of order) {
      const run = runAlone(makers[k], half, aloneWarm);
      alone[k].times.push(...run.times);
      alone[k].answers.push(run.answer);
    }
  }
  for (let k = 1; k < alone.length; k++) {
    if (alone[k].answers.some((a, round) => a !== alone[0].answers[round]))
      throw new Error(`broadphase: ${names[k]} disagrees with ${names[0]} (alone)`);
  }
  consume(alone[0].answers[0]);
  const aloneOurs = median(alone[0].times);
  const aloneRows = alone.map(({ times: t }, k) => {
    const p50 = median(t);
    const p99 = percentile(t, 99);
    return [names[k], ms(p50), ms(p99), (p99 / p50).toFixed(2), ms(Math.max(...t)), ratio(p50, aloneOurs)];
  });
  const ours = median(times[0]);
  const rows = times.map((t, k) => {
    const p50 = median(t);
    const p99 = percentile(t, 99);
    return [
      names[k],
      ms(p50),
      ms(Math.min(...t)),
      ms(p99),
      (p99 / p50).toFixed(2),
      ms(Math.max(...t)),
      ms(t.reduce((a, b) => a + b, 0)),
      ratio(p50, ours),
    ];
  });
  return [
    '## 5. Game broadphase',
    `20,000 boxes in 2000 x 2000 (sides 1..40, 5 huge of 300..1000), 1,000 movers (5%) per frame, ${frames} frames; per frame: moves, all overlapping pairs, 100 box queries of 50..200. SpatialHash2D cellSize = ${cellSize} (about twice the mean box side). Contenders run frame by frame interleaved (a full GC before each frame, not timed), after a ${checkFrames}-frame check pass; every frame's answer is compared. ${answerCount(answer).toLocaleString('en-US')} pairs + query hits over the ${frames} frames. The ratio compares median frame times.`,
    table(
      [
        'contender',
        'frame median ms',
        'frame min ms',
        'frame p99 ms',
        'p99 / median',
        'worst frame ms',
        `total ms (${frames} frames)`,
        `ratio to ${OURS}`,
      ],
      rows,
    ),
    `Each contender alone, as in a game loop: no forced collection (a contender's frames include the collections its own garbage causes). Two rounds, the second in reverse order, each a fresh engine after one forced collection, running ${aloneWarm} frames untimed (the JIT settles) and the next ${half} timed; the answers are compared between contenders.`,
    table(
      ['contender', 'frame median ms', 'frame p99 ms', 'p99 / median', 'worst frame ms', `ratio to ${OURS}`],
      aloneRows,
    ),
  ].join('\n\n');
}
