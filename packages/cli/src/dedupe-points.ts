/**
 * `dedupe` of a stream of points without holding the cloud: weld's rule,
 * exactly, with memory for the representatives and one chunk of points.
 *
 * Points come in file order and are welded a chunk at a time (up to 2^20), each chunk
 * after the representatives found so far that lie near it (within twice the
 * radius of its bounding box). That is weld's answer on the whole cloud:
 * representatives are pairwise farther apart than the radius, so each stays
 * its own in the chunk's weld; they all come before the chunk's points, in
 * their file order, so a point meets its earlier representatives in the same
 * order as in one weld of the file, and the nearest one (ties: the earliest)
 * is the same; and a representative farther from the box than the radius
 * can be the nearest of none of its points. The test
 * (test/dedupe-points.test.ts) checks it against weld on seeded clouds with
 * chunks of a few points.
 *
 * Memory is the representatives and a chunk: a file in some spatial order
 * (as scanners and tilers write them) carries few representatives into each
 * chunk. A cloud in no order with few duplicates would carry most of them
 * into every chunk; once a chunk's carried representatives are as many as
 * half of it while most of the last chunk's points founded one, the rest of
 * the cloud is welded in one go after all of them.
 * Chunks start at 2^18 points and double, so such a cloud is found after a
 * small one and costs about one weld of the file, in time and memory.
 *
 * What a LAS or XYZ dedupe needs comes out: which points are kept (a byte a
 * point), the kept points' coordinates and return numbers in file order, and
 * with `mean` each cluster's mean, summed in file order as weld's remap would
 * give it.
 *
 * @module
 */

import { weld } from 'spatialhash';
import { Float64List, Uint8List, Uint32List } from './growable.js';

/** Points welded at a time: at most 2^20 (24 MB of coordinates, plus the weld's own arrays for them). */
const CHUNK = 1 << 20;
/** The first chunk's size: chunks double from it, so a cloud that chunks do not suit is found early. */
const FIRST_CHUNK = 1 << 18;

export class PointDedupe {
  /** Per point in file order, 1 when it is kept (a representative). */
  readonly kept = new Uint8List();
  /** The representatives' coordinates and return numbers, in file order. */
  readonly coordinates = new Float64List();
  readonly returns = new Uint8List();
  private readonly sums: Float64List | undefined;
  private readonly members: Uint32List | undefined;
  private chunk: Float64Array;
  private chunkReturns: Uint8Array;
  /** Once chunks stop paying (see weldChunk): every representative, then every point since, welded at the end. */
  private rest: { coordinates: Float64List; returns: Uint8List; carried: number } | undefined;
  private filled = 0;
  /** The share of the last chunk's points that founded a representative (few duplicates: near 1). */
  private founding = 0;
  /** Seconds spent in weld (the caller's timings count them as welding). */
  weldSeconds = 0;

  /**
   * @param radius the dedupe's radius (checked by the caller).
   * @param mean keep each cluster's sum of coordinates for {@link means}.
   * @param largestChunk most points welded at a time (tests make it small).
   */
  constructor(
    private readonly radius: number,
    mean: boolean,
    private readonly largestChunk = CHUNK,
  ) {
    const first = Math.min(largestChunk, FIRST_CHUNK);
    this.chunk = new Float64Array(first * 3);
    this.chunkReturns = new Uint8Array(first);
    if (mean) {
      this.sums = new Float64List();
      this.members = new Uint32List();
    }
  }

  /** Points pushed so far. */
  get points(): number {
    const rest = this.rest === undefined ? 0 : this.rest.returns.length;
    return this.kept.length + this.filled + rest;
  }

  /** Representatives so far (all of them after {@link finish}). */
  get count(): number {
    return this.returns.length;
  }

  /** The next point in file order, with its return number (LAS; 0 otherwise). */
  push(x: number, y: number, z: number, returnNumber = 0): void {
    const rest = this.rest;
    if (rest !== undefined) {
      rest.coordinates.push(x);
      rest.coordinates.push(y);
      rest.coordinates.push(z);
      rest.returns.push(returnNumber);
      return;
    }
    const at = this.filled * 3;
    this.chunk[at] = x;
    this.chunk[at + 1] = y;
    this.chunk[at + 2] = z;
    this.chunkReturns[this.filled++] = returnNumber;
    if (this.filled * 3 === this.chunk.length) this.weldChunk(false);
  }

  /** Welds what is left; call once, after the last point. */
  finish(): void {
    const rest = this.rest;
    if (rest !== undefined) {
      const m = rest.carried;
      const coords = rest.coordinates.array.subarray(0, rest.coordinates.length);
      this.rest = undefined;
      // Every representative was carried, in order: carried one f is representative f.
      this.assign(coords, m, coords.length / 3 - m, rest.returns.array, (f) => f);
    } else if (this.filled > 0) this.weldChunk(true);
  }

  /** Each cluster's mean (xyz per representative, in file order); only with `mean`. */
  means(): Float64Array {
    const sums = this.sums!.values();
    const members = this.members!.array;
    for (let r = 0; r < this.count; r++) {
      sums[r * 3] /= members[r]!;
      sums[r * 3 + 1] /= members[r]!;
      sums[r * 3 + 2] /= members[r]!;
    }
    return sums;
  }

  /**
   * Welds the chunk after the representatives near it. When those are as
   * many as half the chunk and the last chunk's points mostly founded
   * representatives (a cloud in no spatial order, with few duplicates), each
   * weld would mostly redo the last: the rest of the cloud is then gathered
   * after all the representatives and welded once at the end.
   */
  private weldChunk(last: boolean): void {
    const points = this.chunk;
    const n = this.filled;
    const near = this.nearChunk(points, n);
    const m = near.length;
    this.filled = 0;
    if (!last && m >= n / 2 && this.founding > 0.5) {
      const rest = new Float64List();
      const reps = this.coordinates.array;
      for (let k = 0; k < this.count * 3; k++) rest.push(reps[k]!);
      for (let k = 0; k < n * 3; k++) rest.push(points[k]!);
      const returns = new Uint8List();
      for (let i = 0; i < n; i++) returns.push(this.chunkReturns[i]!);
      this.rest = { coordinates: rest, returns, carried: this.count };
      return;
    }
    const coords = new Float64Array((m + n) * 3);
    const reps = this.coordinates.array;
    for (let k = 0; k < m; k++) coords.set(reps.subarray(near.array[k]! * 3, near.array[k]! * 3 + 3), k * 3);
    coords.set(points.subarray(0, n * 3), m * 3);
    const before = this.count;
    this.assign(coords, m, n, this.chunkReturns, (f) => near.array[f]!);
    this.founding = (this.count - before) / n;
    if (this.chunkReturns.length < this.largestChunk) {
      const size = Math.min(this.largestChunk, this.chunkReturns.length * 2);
      this.chunk = new Float64Array(size * 3);
      this.chunkReturns = new Uint8Array(size);
    }
  }

  /** The representatives within twice the radius of the box of the first `n` points. */
  private nearChunk(points: Float64Array, n: number): Uint32List {
    const min = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    const max = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
    for (let i = 0; i < n * 3; i += 3) {
      for (let axis = 0; axis < 3; axis++) {
        const v = points[i + axis]!;
        if (v < min[axis]!) min[axis] = v;
        if (v > max[axis]!) max[axis] = v;
      }
    }
    // Twice the radius: more than any rounding of a distance within it needs.
    const reach = 2 * this.radius;
    const reps = this.coordinates.array;
    const near = new Uint32List();
    for (let r = 0; r < this.count; r++) {
      const x = reps[r * 3]!;
      const y = reps[r * 3 + 1]!;
      const z = reps[r * 3 + 2]!;
      if (
        x >= min[0]! - reach &&
        x <= max[0]! + reach &&
        y >= min[1]! - reach &&
        y <= max[1]! + reach &&
        z >= min[2]! - reach &&
        z <= max[2]! + reach
      )
        near.push(r);
    }
    return near;
  }

  /**
   * Welds `coords` (`m` representatives, then `n` new points) and takes the
   * new points' answers: founders become representatives, the others join
   * theirs (`carried(f)`: the representative number of the carried one f).
   */
  private assign(
    coords: Float64Array,
    m: number,
    n: number,
    returns: Uint8Array,
    carried: (f: number) => number,
  ): void {
    const started = performance.now();
    const { remap, representatives } = weld(coords, this.radius);
    this.weldSeconds += (performance.now() - started) / 1000;
    // The representative number each of the new points' founders gets.
    const founded = new Int32Array(n);
    const { sums, members } = this;
    for (let i = 0; i < n; i++) {
      const j = m + i;
      const founder = representatives[remap[j]!]!;
      const x = coords[j * 3]!;
      const y = coords[j * 3 + 1]!;
      const z = coords[j * 3 + 2]!;
      if (founder === j) {
        founded[i] = this.count;
        this.kept.push(1);
        this.coordinates.push(x);
        this.coordinates.push(y);
        this.coordinates.push(z);
        this.returns.push(returns[i]!);
        if (sums !== undefined) {
          // 0 + x, as a sum from zero gives it (-0 becomes 0).
          sums.push(x + 0);
          sums.push(y + 0);
          sums.push(z + 0);
          members!.push(1);
        }
        continue;
      }
      this.kept.push(0);
      if (sums === undefined) continue;
      const r = founder < m ? carried(founder) : founded[founder - m]!;
      sums.array[r * 3] += x;
      sums.array[r * 3 + 1] += y;
      sums.array[r * 3 + 2] += z;
      members!.array[r]++;
    }
  }
}
