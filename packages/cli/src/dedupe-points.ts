/**
 * `dedupe` of a stream of points without holding the cloud: weld's rule,
 * exactly, with memory for the representatives and one chunk of points.
 *
 * Points come in file order and are welded a chunk at a time, each chunk
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
 * What a LAS or XYZ dedupe needs comes out: which points are kept (a byte a
 * point), the kept points' coordinates and return numbers in file order, and
 * with `mean` each cluster's mean, summed in file order as weld's remap would
 * give it.
 *
 * @module
 */

import { weld } from 'spatialhash';
import { Float64List, Uint8List, Uint32List } from './growable.js';

/** Points welded at a time: 2^21 (48 MB of coordinates, plus the weld's own arrays for them). */
const CHUNK = 1 << 21;

export class PointDedupe {
  /** Per point in file order, 1 when it is kept (a representative). */
  readonly kept = new Uint8List();
  /** The representatives' coordinates and return numbers, in file order. */
  readonly coordinates = new Float64List();
  readonly returns = new Uint8List();
  private readonly sums: Float64List | undefined;
  private readonly members: Uint32List | undefined;
  private readonly chunk: Float64Array;
  private readonly chunkReturns: Uint8Array;
  private filled = 0;
  /** Seconds spent in weld (the caller's timings count them as welding). */
  weldSeconds = 0;

  /**
   * @param radius the dedupe's radius (checked by the caller).
   * @param mean keep each cluster's sum of coordinates for {@link means}.
   * @param chunk points welded at a time (tests make it small).
   */
  constructor(
    private readonly radius: number,
    mean: boolean,
    chunk = CHUNK,
  ) {
    this.chunk = new Float64Array(chunk * 3);
    this.chunkReturns = new Uint8Array(chunk);
    if (mean) {
      this.sums = new Float64List();
      this.members = new Uint32List();
    }
  }

  /** Points pushed so far. */
  get points(): number {
    return this.kept.length + this.filled;
  }

  /** Representatives so far (all of them after {@link finish}). */
  get count(): number {
    return this.returns.length;
  }

  /** The next point in file order, with its return number (LAS; 0 otherwise). */
  push(x: number, y: number, z: number, returnNumber = 0): void {
    const at = this.filled * 3;
    this.chunk[at] = x;
    this.chunk[at + 1] = y;
    this.chunk[at + 2] = z;
    this.chunkReturns[this.filled++] = returnNumber;
    if (this.filled * 3 === this.chunk.length) this.weldChunk();
  }

  /** Welds what is left; call once, after the last point. */
  finish(): void {
    if (this.filled > 0) this.weldChunk();
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

  private weldChunk(): void {
    const points = this.chunk;
    const n = this.filled;
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
    const m = near.length;
    const coords = new Float64Array((m + n) * 3);
    for (let k = 0; k < m; k++) coords.set(reps.subarray(near.array[k]! * 3, near.array[k]! * 3 + 3), k * 3);
    coords.set(points.subarray(0, n * 3), m * 3);
    const started = performance.now();
    const { remap, representatives } = weld(coords, this.radius);
    this.weldSeconds += (performance.now() - started) / 1000;
    // The representative number each of the chunk's founders gets.
    const founded = new Int32Array(n);
    const { sums, members } = this;
    for (let i = 0; i < n; i++) {
      const j = m + i;
      const founder = representatives[remap[j]!]!;
      const x = points[i * 3]!;
      const y = points[i * 3 + 1]!;
      const z = points[i * 3 + 2]!;
      if (founder === j) {
        founded[i] = this.count;
        this.kept.push(1);
        this.coordinates.push(x);
        this.coordinates.push(y);
        this.coordinates.push(z);
        this.returns.push(this.chunkReturns[i]!);
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
      const r = founder < m ? near.array[founder]! : founded[founder - m]!;
      sums.array[r * 3] += x;
      sums.array[r * 3 + 1] += y;
      sums.array[r * 3 + 2] += z;
      members!.array[r]++;
    }
    this.filled = 0;
  }
}
