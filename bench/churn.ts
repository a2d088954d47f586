/**
 * Workload 6: dynamic churn. One million mixed operations on points in a
 * 10,000 x 10,000 world: 35% inserts, 45% updates (mostly small moves, some
 * teleports), 20% removes, so the population grows to about 150,000. Each run
 * starts empty, replays the same precomputed stream and ends with 1,000 box
 * queries whose answers must agree between contenders.
 *
 * @module
 */
import { quadtree } from 'd3-quadtree';
import RBush from 'rbush';
import { PointHash2D, SpatialHash2D } from '../src/index.js';
import { type Contender, consume, fingerprint, measure, median, random, timingTable } from './harness.js';

const OURS = 'SpatialHash2D';
const WORLD = 10000;
const INSERT = 0;
const UPDATE = 1;
const REMOVE = 2;

interface Stream {
  ops: Uint8Array;
  ids: Uint32Array;
  xs: Float64Array;
  ys: Float64Array;
  idCount: number;
  queries: Float64Array;
}

function makeStream(length: number, seed: number): Stream {
  const rand = random(seed);
  const ops = new Uint8Array(length);
  const ids = new Uint32Array(length);
  const xs = new Float64Array(length);
  const ys = new Float64Array(length);
  const px: number[] = [];
  const py: number[] = [];
  const live: number[] = [];
  for (let k = 0; k < length; k++) {
    const r = rand();
    if (live.length < 1000 || r < 0.35) {
      const id = px.length;
      px.push(rand() * WORLD);
      py.push(rand() * WORLD);
      live.push(id);
      ops[k] = INSERT;
      ids[k] = id;
      xs[k] = px[id];
      ys[k] = py[id];
    } else if (r < 0.8) {
      const id = live[Math.floor(rand() * live.length)];
      if (rand() < 0.05) {
        px[id] = rand() * WORLD;
        py[id] = rand() * WORLD;
      } else {
        px[id] += (rand() - 0.5) * 20;
        py[id] += (rand() - 0.5) * 20;
      }
      ops[k] = UPDATE;
      ids[k] = id;
      xs[k] = px[id];
      ys[k] = py[id];
    } else {
      const at = Math.floor(rand() * live.length);
      const id = live[at];
      const last = live.pop() as number;
      if (last !== id) live[at] = last;
      ops[k] = REMOVE;
      ids[k] = id;
    }
  }
  const queries = new Float64Array(1000 * 4);
  for (let q = 0; q < 1000; q++) {
    const x = rand() * (WORLD - 200);
    const y = rand() * (WORLD - 200);
    queries.set([x, y, x + 200, y + 200], q * 4);
  }
  return { ops, ids, xs, ys, idCount: px.length, queries };
}

/** Our hashes' answers to the stream's final box queries, as one fingerprint with their size. */
function answerQueries(s: Stream, hash: SpatialHash2D<number> | PointHash2D<number>): bigint {
  const out: number[] = [];
  let count = 0;
  let sum = 0;
  for (let q = 0; q < 1000; q++) {
    const b = q * 4;
    hash.queryBox(s.queries[b], s.queries[b + 1], s.queries[b + 2], s.queries[b + 3], out);
    for (let k = 0; k < out.length; k++) sum = (sum + Math.imul(q + 1, out[k] + 1)) | 0;
    count += out.length;
  }
  return fingerprint(count + hash.size, sum);
}

/**
 * The stream through the item API. Given a `reused` hash, the run clears it
 * instead of building a new one, so its arrays are already grown and their
 * pages already mapped: the difference to a fresh hash is what growing from
 * empty costs (on this VM, mostly first touches of fresh memory).
 */
function runSpatialHash(s: Stream, reused?: SpatialHash2D<number>, keep?: unknown[]): bigint {
  const hash = reused ?? new SpatialHash2D<number>({ cellSize: 64 });
  keep?.push(hash);
  hash.clear();
  const { ops, ids, xs, ys } = s;
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k];
    if (op === INSERT) hash.insert(ids[k], xs[k], ys[k]);
    else if (op === UPDATE) hash.update(ids[k], xs[k], ys[k]);
    else hash.remove(ids[k]);
  }
  return answerQueries(s, hash);
}

/**
 * The same stream through ids: insert keeps the returned id, updates and
 * removes go by id; with `trackItems` false the hash keeps no item Map either.
 */
function runSpatialHashIds(s: Stream, trackItems = true, keep?: unknown[]): bigint {
  const hash = new SpatialHash2D<number>({ cellSize: 64, trackItems });
  keep?.push(hash);
  const { ops, ids, xs, ys } = s;
  const handle = new Int32Array(s.idCount);
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k];
    if (op === INSERT) handle[ids[k]] = hash.insert(ids[k], xs[k], ys[k]);
    else if (op === UPDATE) hash.updateById(handle[ids[k]], xs[k], ys[k]);
    else hash.removeById(handle[ids[k]]);
  }
  return answerQueries(s, hash);
}

/**
 * The stream through PointHash2D, the hash for items that are points: the
 * same item-keyed calls as {@link runSpatialHash}, from a new hash.
 */
function runPointHash(s: Stream, keep?: unknown[]): bigint {
  const hash = new PointHash2D<number>({ cellSize: 64 });
  keep?.push(hash);
  const { ops, ids, xs, ys } = s;
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k];
    if (op === INSERT) hash.insert(ids[k], xs[k], ys[k]);
    else if (op === UPDATE) hash.update(ids[k], xs[k], ys[k]);
    else hash.remove(ids[k]);
  }
  return answerQueries(s, hash);
}

interface Item {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  id: number;
}

function runRbush(s: Stream, keep?: unknown[]): bigint {
  const tree = new RBush<Item>();
  keep?.push(tree);
  const items: Item[] = new Array(s.idCount);
  const { ops, ids, xs, ys } = s;
  let size = 0;
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k];
    const id = ids[k];
    if (op === INSERT) {
      const item = { minX: xs[k], minY: ys[k], maxX: xs[k], maxY: ys[k], id };
      items[id] = item;
      tree.insert(item);
      size++;
    } else if (op === UPDATE) {
      const item = items[id];
      tree.remove(item);
      item.minX = item.maxX = xs[k];
      item.minY = item.maxY = ys[k];
      tree.insert(item);
    } else {
      tree.remove(items[id]);
      size--;
    }
  }
  let count = 0;
  let sum = 0;
  const query = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  for (let q = 0; q < 1000; q++) {
    const b = q * 4;
    query.minX = s.queries[b];
    query.minY = s.queries[b + 1];
    query.maxX = s.queries[b + 2];
    query.maxY = s.queries[b + 3];
    const found = tree.search(query);
    for (let k = 0; k < found.length; k++) sum = (sum + Math.imul(q + 1, found[k].id + 1)) | 0;
    count += found.length;
  }
  return fingerprint(count + size, sum);
}

interface Datum {
  x: number;
  y: number;
  id: number;
}

function runD3Quadtree(s: Stream, keep?: unknown[]): bigint {
  const tree = quadtree<Datum>()
    .x((d) => d.x)
    .y((d) => d.y);
  keep?.push(tree);
  const data: Datum[] = new Array(s.idCount);
  const { ops, ids, xs, ys } = s;
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k];
    const id = ids[k];
    if (op === INSERT) {
      const d = { x: xs[k], y: ys[k], id };
      data[id] = d;
      tree.add(d);
    } else if (op === UPDATE) {
      // d3 finds a datum by its current coordinates, so remove before moving.
      const d = data[id];
      tree.remove(d);
      d.x = xs[k];
      d.y = ys[k];
      tree.add(d);
    } else {
      tree.remove(data[id]);
    }
  }
  let count = 0;
  let sum = 0;
  for (let q = 0; q < 1000; q++) {
    const b = q * 4;
    const minX = s.queries[b];
    const minY = s.queries[b + 1];
    const maxX = s.queries[b + 2];
    const maxY = s.queries[b + 3];
    tree.visit((node, x0, y0, x1, y1) => {
      if (!node.length) {
        let leaf: typeof node | undefined = node;
        while (leaf && !leaf.length) {
          const d = (leaf as { data: Datum }).data;
          if (d.x >= minX && d.x <= maxX && d.y >= minY && d.y <= maxY) {
            count++;
            sum = (sum + Math.imul(q + 1, d.id + 1)) & 0x3fffffff; // kept a small integer: see fingerprint()
          }
          leaf = (leaf as { next?: typeof node }).next;
        }
      }
      return x0 > maxX || y0 > maxY || x1 < minX || y1 < minY;
    });
  }
  return fingerprint(count + tree.size(), sum);
}

/** Runs workload 6 and returns its markdown section. */
export function churn(quick: boolean): string {
  const length = quick ? 1e5 : 1e6;
  const stream = makeStream(length, 6);
  let inserts = 0;
  let updates = 0;
  for (let k = 0; k < length; k++) {
    if (stream.ops[k] === INSERT) inserts++;
    else if (stream.ops[k] === UPDATE) updates++;
  }
  const removes = length - inserts - updates;
  const reused = new SpatialHash2D<number>({ cellSize: 64 });
  const contenders: Contender[] = [
    { name: OURS, run: () => runSpatialHash(stream) },
    { name: `${OURS}, one hash reused (clear() first)`, run: () => runSpatialHash(stream, reused) },
    { name: `${OURS} by id (updateById, removeById)`, run: () => runSpatialHashIds(stream) },
    { name: `${OURS} by id, trackItems: false`, run: () => runSpatialHashIds(stream, false) },
    { name: 'PointHash2D (insert, update, remove)', run: () => runPointHash(stream) },
    { name: 'rbush (insert, remove + insert, remove)', run: () => runRbush(stream) },
    { name: 'd3-quadtree (add, remove + add, remove)', run: () => runD3Quadtree(stream) },
  ];
  // A small structure of every kind, built from a short stream of its own,
  // stays alive for the whole workload. Each timed run follows a full
  // collection, and were no instance of a kind alive then, V8 would drop its
  // hidden classes and with them the code it optimised for them: every run
  // would start again from the interpreter. (The reused hash kept
  // SpatialHash2D's alive; PointHash2D's runs of 1e5 operations took 100 ms
  // instead of 20, and rbush's and d3's functions were thrown away likewise.)
  const alive: unknown[] = [];
  const small = makeStream(5000, 7);
  runSpatialHash(small, undefined, alive);
  runSpatialHashIds(small, true, alive);
  runSpatialHashIds(small, false, alive);
  runPointHash(small, alive);
  runRbush(small, alive);
  runD3Quadtree(small, alive);
  console.log(`  churn: ${length} operations`);
  const timings = measure('churn', contenders, { reps: 5, slowMs: 3000, slowReps: 3 });
  consume(alive.length);
  return [
    '## 6. Dynamic churn',
    `${length.toLocaleString('en-US')} operations on points in 10,000 x 10,000, from empty: ${inserts.toLocaleString('en-US')} inserts, ${updates.toLocaleString('en-US')} updates (95% moves of up to 10 per axis, 5% teleports), ${removes.toLocaleString('en-US')} removes; then 1,000 box queries of 200 x 200 to check the final contents. SpatialHash2D cellSize = 64. Every contender starts from a new, empty structure except the "reused" row, which clears one hash kept between runs: its arrays stay grown, so it shows what growing from empty costs. A small structure of every kind stays alive throughout, so that V8 keeps each contender's optimised code between runs.`,
    'Page faults are first touches of memory the process had to get from the OS (median over the timed runs). A structure that grows from empty touches fresh pages for every array it outgrows; where each fault is expensive (13 to 25 µs each, measured on the 2-core Firecracker VM the committed figures come from; bare metal typically takes well under 1 µs) they can cost as much as the operations, and their count moves between runs with what the allocator kept from the previous one.',
    timingTable(timings, OURS, {
      header: ['page faults'],
      cells: (t) => [median(t.faults).toLocaleString('en-US')],
    }),
  ].join('\n\n');
}
