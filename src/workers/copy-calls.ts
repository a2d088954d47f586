/**
 * The pool's calls in copy mode, where the threads cannot share memory with
 * the calling thread (a page that is not cross-origin isolated, a pool made
 * with `shared: false`, or a grid built without `shared`): each thread gets
 * a copy of the grid's buffer, made here and transferred (the grid's own
 * buffer is never detached), searches its slices and transfers its results
 * back; this thread checks them (they come from another thread) and puts
 * them together in slice order, so the result equals the one-thread call's.
 *
 * A rebuild in copy mode runs on the calling thread (see pool.ts): copying
 * the points to the threads and the sorted grid back would cost about what
 * the counting sort itself does.
 *
 * @module
 */

import { type NeighborLists, reuseArray, roomyArray } from '../core/results.js';
import { checkDistance } from '../core/validate.js';
import type { Grid2D } from '../pointgrid/grid2d.js';
import type { Grid3D } from '../pointgrid/grid3d.js';
import { checkOut, checkResultLength } from '../pointgrid/options.js';
import { fillRows, rowStarts } from '../pointgrid/pair-sink.js';
import { reading } from './grid-use.js';
import { isCount, type SearchRound, searchWithin, threadRoom } from './result-size.js';
import { SLICES_PER_THREAD } from './shared-calls.js';
import type { CopiedPairs, CopiedRows, CountedSlices } from './tasks.js';
import type { Threads } from './threads.js';

/** A copy of a grid's buffer as an ArrayBuffer (which can be transferred, unlike a SharedArrayBuffer). */
function copyOf(data: ArrayBuffer | SharedArrayBuffer): ArrayBuffer {
  if (data instanceof ArrayBuffer) return data.slice(0);
  const copy = new ArrayBuffer(data.byteLength);
  new Uint8Array(copy).set(new Uint8Array(data));
  return copy;
}

/** The slices thread k searches: every `threads`-th from k on, so a dense region is spread over the threads. */
function slicesOf(k: number, threads: number, parts: number): number[] {
  const slices: number[] = [];
  for (let part = k; part < parts; part += threads) slices.push(part);
  return slices;
}

function countsOf(value: unknown, length: number): value is number[] {
  return Array.isArray(value) && value.length === length && value.every(isCount);
}

/** The threads' results of a copy-mode search, by thread, and the slices each searched. */
interface Copies<R> {
  found: R[];
  slices: number[][];
  parts: number;
}

/**
 * Sends each thread its copy of the grid and its slices, with its `room`
 * (see result-size.ts); the threads' results, by thread. A thread that
 * reached its ceiling sends only its slices' counts (CountedSlices): this
 * round's pairs are then their sum, with what the other threads found by
 * `pairsOf`, which also checks a thread's result.
 */
async function searchCopies<R>(
  threads: Threads,
  g: Grid2D | Grid3D,
  d: 2 | 3,
  radius: number,
  op: 'copyPairs' | 'copyRows',
  limit: number,
  room: number,
  again: boolean,
  pairsOf: (found: R, k: number, slices: number[]) => number,
): Promise<SearchRound<Copies<R>>> {
  const parts = threads.count * SLICES_PER_THREAD;
  const slices = Array.from({ length: threads.count }, (_, k) => slicesOf(k, threads.count, parts));
  const copies = slices.map(() => copyOf(g.data));
  const found = await threads.phase<R | CountedSlices>(
    again ? 'search again' : 'search',
    (k) => ({ op, data: copies[k], d, radius, parts, slices: slices[k], room, limit }),
    (k) => [copies[k]],
  );
  let pairs = 0;
  let counter = -1;
  found.forEach((f, k) => {
    const counts = typeof f === 'object' && f !== null && 'counts' in f ? f.counts : undefined;
    if (counts === undefined) {
      pairs += pairsOf(f as R, k, slices[k]);
      return;
    }
    if (!countsOf(counts, slices[k].length)) threads.malformed(k, `${op} search result`);
    for (const count of counts) pairs += count;
    counter = k;
  });
  return { found: { found: found as R[], slices, parts }, pairs, counter };
}

/** pairs() in copy mode; `limit` is the call's maxResultLength. */
export function copyPairs(
  threads: Threads,
  g: Grid2D | Grid3D,
  d: 2 | 3,
  radius: number,
  limit: number,
): Promise<Uint32Array> {
  checkDistance('radius', radius);
  const owner = 'PointGridWorkers.pairs';
  const what = 'pairs() search result';
  const firstRoom = threadRoom(owner, g, radius, limit, threads.count);
  // The threads send original indices; the grid is copied again if a second round searches.
  return reading(g, 'pairs', async () => {
    const n = g.points;
    const pairsOf = (f: CopiedPairs, k: number, slices: number[]) => {
      if (
        typeof f !== 'object' ||
        f === null ||
        !(f.pairs instanceof Uint32Array) ||
        !countsOf(f.lengths, slices.length)
      ) {
        threads.malformed(k, what);
      }
      return f.pairs.length / 2;
    };
    const { found, slices, parts } = await searchWithin(threads, owner, limit, firstRoom, what, (room, again) =>
      searchCopies(threads, g, d, radius, 'copyPairs', limit, room, again, pairsOf),
    );
    return placePairs(threads, found, slices, parts, n);
  });
}

/** The pairs of every thread's slices of a copy-mode pairs(), checked, in slice order. */
function placePairs(threads: Threads, found: CopiedPairs[], slices: number[][], parts: number, n: number): Uint32Array {
  // Where each slice's pairs lie: thread, first number, count of numbers.
  const thread = new Int32Array(parts);
  const first = new Float64Array(parts);
  const length = new Float64Array(parts);
  let total = 0;
  found.forEach((f, k) => {
    let at = 0;
    slices[k].forEach((part, j) => {
      thread[part] = k;
      first[part] = at;
      length[part] = f.lengths[j];
      at += f.lengths[j];
    });
    if (at !== f.pairs.length || at % 2 !== 0) threads.malformed(k, 'pairs() search result');
    total += at;
  });
  const result = new Uint32Array(total);
  let at = 0;
  for (let part = 0; part < parts; part++) {
    const k = thread[part];
    const pairs = found[k].pairs;
    for (let q = first[part], end = q + length[part]; q < end; q += 2) {
      const i = pairs[q];
      const j = pairs[q + 1];
      if (!(i < j && j < n)) threads.malformed(k, 'pairs() search result (a pair out of range)');
      result[at++] = i;
      result[at++] = j;
    }
  }
  return result;
}

/**
 * neighbors() in copy mode: the threads' partner runs are put together as
 * one search over every slice would have left them, and the rows are
 * counted and filled here by the one-thread code (pair-sink.ts).
 */
export function copyNeighbors(
  threads: Threads,
  g: Grid2D | Grid3D,
  d: 2 | 3,
  radius: number,
  out: NeighborLists | undefined,
  limit: number,
): Promise<NeighborLists> {
  checkDistance('radius', radius);
  checkOut(out);
  const owner = 'PointGridWorkers.neighbors';
  const what = 'neighbors() search result';
  const firstRoom = threadRoom(owner, g, radius, limit, threads.count);
  // The fill reads the grid's order: it must not be rebuilt meanwhile.
  return reading(g, 'neighbors', async () => {
    const n = g.points;
    // Partner entries (one per pair): the ends and starts are checked below, before anything is allocated.
    const pairsOf = (f: CopiedRows, k: number, slices: number[]) => {
      let pairs = 0;
      if (typeof f === 'object' && f !== null && countsOf(f.start, slices.length) && countsOf(f.end, slices.length)) {
        for (let j = 0; j < slices.length; j++) pairs += Math.max(0, f.end[j] - f.start[j]);
      } else {
        threads.malformed(k, what);
      }
      return pairs;
    };
    const { found, slices, parts } = await searchWithin(threads, owner, limit, firstRoom, what, (room, again) =>
      searchCopies(threads, g, d, radius, 'copyRows', limit, room, again, pairsOf),
    );
    const thread = new Int32Array(parts);
    const nth = new Int32Array(parts);
    /** Where a slice's row ends start in its thread's rowEnds. */
    const rowAt = new Float64Array(parts);
    let half = 0;
    found.forEach((f, k) => {
      const count = slices[k].length;
      const valid =
        typeof f === 'object' &&
        f !== null &&
        f.rowEnds instanceof Uint32Array &&
        f.partners instanceof Uint32Array &&
        countsOf(f.from, count) &&
        countsOf(f.to, count) &&
        countsOf(f.start, count) &&
        countsOf(f.end, count);
      if (!valid) threads.malformed(k, 'neighbors() search result');
      let rows = 0;
      slices[k].forEach((part, j) => {
        thread[part] = k;
        nth[part] = j;
        rowAt[part] = rows;
        rows += f.to[j] - f.from[j];
        if (!(f.from[j] <= f.to[j] && f.start[j] <= f.end[j] && f.end[j] <= f.partners.length)) {
          threads.malformed(k, 'neighbors() search result');
        }
        half += f.end[j] - f.start[j];
      });
      if (rows !== f.rowEnds.length) threads.malformed(k, 'neighbors() search result');
    });
    checkResultLength(owner, half, limit);
    // The runs of every slice one after another, in slice order: what one search over all of them leaves.
    const partners = new Uint32Array(half);
    const rowEnd = new Uint32Array(n);
    let base = 0;
    let point = 0;
    for (let part = 0; part < parts; part++) {
      const k = thread[part];
      const j = nth[part];
      const f = found[k];
      const from = f.from[j];
      const to = f.to[j];
      const start = f.start[j];
      const end = f.end[j];
      // Slices cover the sorted positions in order; a point's partners come after it, within the grid.
      if (from !== point || to > n) threads.malformed(k, 'neighbors() search result (slices out of order)');
      let previous = start;
      for (let s = from; s < to; s++) {
        const runEnd = f.rowEnds[rowAt[part] + s - from];
        if (!(runEnd >= previous && runEnd <= end)) threads.malformed(k, 'neighbors() search result (row ends)');
        for (let q = previous; q < runEnd; q++) {
          const t = f.partners[q];
          if (!(t > s && t < n)) threads.malformed(k, 'neighbors() search result (a partner out of range)');
          partners[base + q - start] = t;
        }
        rowEnd[s] = base + runEnd - start;
        previous = runEnd;
      }
      if (previous !== end) threads.malformed(k, 'neighbors() search result (row ends)');
      base += end - start;
      point = to;
    }
    if (point !== n) threads.malformed(0, 'neighbors() search result (a slice is missing)');
    const offsets = reuseArray(out?.offsets, n + 1) ?? roomyArray(n + 1, false);
    offsets[0] = 0;
    const cursor = new Uint32Array(n);
    rowStarts(g.sortedIndex, partners, rowEnd, offsets, cursor);
    const indices = reuseArray(out?.indices, offsets[n]) ?? roomyArray(offsets[n], false);
    fillRows(0, n, g.sortedIndex, partners, 0, rowEnd, cursor, indices);
    return { offsets, indices };
  });
}
