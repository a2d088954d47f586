/**
 * The exact end of nearest() in both dynamic hashes, SpatialHash and
 * PointHash, for the distance rule's extremes (core/distance.ts): squared
 * distances below 2^-896 or past Number.MAX_VALUE, whose float64 values may
 * tie or misorder items the rule tells apart, and maxDistances whose square
 * is below 2^-896 (0 included). The hot searches stay plain float64 and hand
 * over here only when their heap holds such a distance ({@link settleHeap})
 * or the maxDistance is tiny ({@link rankExactly}). Cold, written once for
 * both hashes and dimensions; the hash-specific parts come in an
 * {@link ExactSource}.
 *
 * @module
 */
import {
  bandScale,
  compareBanded,
  HUGE_BAND,
  keptNeedExactOrder,
  ORDINARY_BAND,
  scaledLimit,
  squareBand,
} from '../core/distance.js';

/** What the exact end of a nearest search needs of one hash and query. */
export interface ExactSource {
  /**
   * The squared distance of live handle h from the query under the rule, as
   * its band (core/distance.ts) and its value scaled by `bandScale(band)`
   * squared, into `key[0]` and `key[1]`.
   */
  key(h: number, key: Float64Array): void;
  /** Whether h passes the query's mask. */
  masked(h: number): boolean;
  /**
   * The live handles that may lie within `radius` of the query (a radius
   * whose square is not huge: the cells around it), or every live handle
   * (Infinity).
   */
  candidates(radius: number): number[];
  /** The predicate's verdict on h (true without one), asked at most once per handle and query. */
  ask(h: number): boolean;
}

/**
 * The predicate's verdicts in one nearest search, so that an exact end that
 * ranks the items again asks it nothing twice: the hot search records each
 * answer (a write per predicate call, none without a predicate), and
 * {@link Verdicts.ask} looks them up before asking.
 */
export class Verdicts {
  private handles = new Int32Array(16);
  private answers = new Uint8Array(16);
  private count = 0;
  private known: Map<number, boolean> | undefined = undefined;

  /** Forgets every verdict (a new search). */
  clear(): void {
    this.count = 0;
    this.known = undefined;
  }

  /** Records the predicate's verdict on h. */
  add(h: number, verdict: boolean): void {
    if (this.count === this.handles.length) {
      const handles = new Int32Array(this.count * 2);
      const answers = new Uint8Array(this.count * 2);
      handles.set(this.handles);
      answers.set(this.answers);
      this.handles = handles;
      this.answers = answers;
    }
    this.handles[this.count] = h;
    this.answers[this.count] = verdict ? 1 : 0;
    this.count++;
  }

  /** The verdict on h: the recorded one, or `predicate()`'s (then recorded). */
  ask(h: number, predicate: () => boolean): boolean {
    if (this.known === undefined) {
      this.known = new Map();
      for (let i = 0; i < this.count; i++) this.known.set(this.handles[i], this.answers[i] === 1);
    }
    let verdict = this.known.get(h);
    if (verdict === undefined) {
      verdict = predicate();
      this.known.set(h, verdict);
    }
    return verdict;
  }
}

/** The band and scaled value of maxDistance's square (see ExactSource.key). */
function limitKey(maxDistance: number): [number, number] {
  const square = maxDistance * maxDistance;
  const band = squareBand(square);
  return [band, band === ORDINARY_BAND ? square : scaledLimit(maxDistance, bandScale(band))];
}

/**
 * The `limit` handles nearest to the query among `handles` (each at most
 * once), within maxDistance, passing the mask and then the predicate, by the
 * rule's squared distance (ties by handle). The predicate is asked only of a
 * handle that would then be in the answer, in order, until `limit` pass.
 */
function rank(source: ExactSource, handles: number[], limit: number, maxDistance: number): number[] {
  const [limitBand, limitValue] = limitKey(maxDistance);
  const key = new Float64Array(2);
  const bands: number[] = [];
  const values: number[] = [];
  const kept: number[] = [];
  for (const h of handles) {
    if (!source.masked(h)) continue;
    source.key(h, key);
    if (compareBanded(key[0], key[1], limitBand, limitValue) > 0) continue;
    bands.push(key[0]);
    values.push(key[1]);
    kept.push(h);
  }
  const order = kept.map((_, i) => i);
  order.sort((i, j) => compareBanded(bands[i], values[i], bands[j], values[j]) || kept[i] - kept[j]);
  const answer: number[] = [];
  for (let i = 0; i < order.length && answer.length < limit; i++) {
    const h = kept[order[i]];
    if (source.ask(h)) answer.push(h);
  }
  return answer;
}

/** nearest() with a maxDistance whose square is below 2^-896 (0 included): the candidates near the query, ranked. */
export function rankExactly(source: ExactSource, limit: number, maxDistance: number): number[] {
  return rank(source, source.candidates(maxDistance), limit, maxDistance);
}

/**
 * Settles the heap of a finished hot search (`size` entries of at most
 * `limit`, squared distances in `dist`, handles in `handles`, a max-heap)
 * when what it holds needs it (core/distance.ts's keptNeedExactOrder: an
 * overflowed entry, or two tiny ones): returns the answer's handles, nearest
 * first, or undefined when the heap's own order stands. `source` is called
 * only then, so the ordinary query allocates nothing for it.
 *
 * Where the heap is not full, or its worst entry is ordinary, its set is the
 * rule's (every item nearer than its worst was scored, and tiny distances
 * lie below every ordinary one, huge ones above), so only the order of its
 * extreme entries changes, and those past a finite huge maxDistance go. A
 * full heap of tiny entries all exactly at the query is right as it is (no
 * item is nearer; ties come in any order). Otherwise the float64 order may
 * have picked the wrong items: those near the query (a tiny worst: every
 * item within 2^-448 of it) or all of them (a huge worst) are ranked again
 * exactly, the predicate's earlier verdicts reused.
 */
export function settleHeap(
  sourceOf: () => ExactSource,
  dist: Float64Array,
  handles: Int32Array,
  size: number,
  limit: number,
  maxDistance: number,
): number[] | undefined {
  if (!keptNeedExactOrder(dist, size, limit)) return undefined;
  const source = sourceOf();
  const entries = Array.from(handles.subarray(0, size));
  // (A max-heap: its root is the worst entry.)
  const worst = squareBand(dist[0]);
  if (size === limit && worst !== ORDINARY_BAND) {
    if (worst === HUGE_BAND) return rank(source, source.candidates(Number.POSITIVE_INFINITY), limit, maxDistance);
    const key = new Float64Array(2);
    let exact = true;
    for (const h of entries) {
      source.key(h, key);
      if (key[1] !== 0) exact = false;
    }
    if (exact) return entries;
    // (At least `limit` tiny ones pass, the heap's own: the answer holds nothing else.)
    return rank(source, source.candidates(2 ** -448), limit, maxDistance);
  }
  // Every entry already passed the mask and the predicate.
  const [limitBand, limitValue] = limitKey(maxDistance);
  const key = new Float64Array(2);
  const keyed = entries.map((h, i) => {
    const band = squareBand(dist[i]);
    if (band === ORDINARY_BAND) return { h, band, value: dist[i] };
    source.key(h, key);
    return { h, band: key[0], value: key[1] };
  });
  return keyed
    .filter((e) => compareBanded(e.band, e.value, limitBand, limitValue) <= 0)
    .sort((a, b) => compareBanded(a.band, a.value, b.band, b.value) || a.h - b.h)
    .map((e) => e.h);
}
