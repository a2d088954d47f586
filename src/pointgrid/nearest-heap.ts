/**
 * The bounded heap of k-nearest queries.
 *
 * @module
 */
import { keptNeedExactOrder, LOWEST_ORDINARY_SQUARE } from '../core/distance.js';
import { grownLength } from '../core/grow.js';

/**
 * Bounded max-heap of (squared distance, index) pairs keeping the k best,
 * ordered by distance then index so ties come out by ascending index. Its
 * arrays grow with k and are reused across queries.
 *
 * An entry whose squared distance lies outside the ordinary band of
 * core/distance.ts (below 2^-896, or Infinity) is noted with its sorted
 * position as it enters: its float64 value may tie or misorder points that
 * the distance rule tells apart, and the search then settles the answer
 * exactly (fixNearest in extreme.ts). The note costs a comparison per entry
 * that enters, none per candidate turned away.
 */
export class NearestHeap {
  private distances = new Float64Array(16);
  private indices = new Uint32Array(16);
  /** Entries held. */
  size = 0;
  /** Entries wanted. */
  capacity = 0;
  /** Entries noted since the last reset (see the class notes): original index and sorted position. */
  noted = 0;
  private notedIndex = new Uint32Array(16);
  private notedPosition = new Uint32Array(16);

  /** Empties the heap and sets how many entries it keeps. */
  reset(capacity: number): void {
    if (capacity > this.distances.length) {
      const length = grownLength(this.distances.length, capacity);
      this.distances = new Float64Array(length);
      this.indices = new Uint32Array(length);
    }
    this.capacity = capacity;
    this.size = 0;
    this.noted = 0;
  }

  /** Squared distance a candidate must beat (ties: a lower index), Infinity until the heap is full. */
  worst(): number {
    return this.size < this.capacity ? Number.POSITIVE_INFINITY : this.distances[0];
  }

  /** Offers one candidate, the point of sorted position `position`. */
  offer(distanceSquared: number, index: number, position: number): void {
    const distances = this.distances;
    const indices = this.indices;
    if (this.size < this.capacity) {
      if (distanceSquared < LOWEST_ORDINARY_SQUARE || distanceSquared === Number.POSITIVE_INFINITY) {
        this.note(index, position);
      }
      // Sift up from the new leaf.
      let hole = this.size++;
      while (hole > 0) {
        const parent = (hole - 1) >> 1;
        const pd = distances[parent];
        if (pd > distanceSquared || (pd === distanceSquared && indices[parent] > index)) break;
        distances[hole] = pd;
        indices[hole] = indices[parent];
        hole = parent;
      }
      distances[hole] = distanceSquared;
      indices[hole] = index;
      return;
    }
    const top = distances[0];
    if (distanceSquared > top || (distanceSquared === top && index > indices[0])) return;
    if (distanceSquared < LOWEST_ORDINARY_SQUARE || distanceSquared === Number.POSITIVE_INFINITY) {
      this.note(index, position);
    }
    this.siftDown(distanceSquared, index, this.size);
  }

  /** Whether the entries held must be settled exactly (core/distance.ts's keptNeedExactOrder); O(size). */
  needsExactOrder(): boolean {
    return keptNeedExactOrder(this.distances, this.size, this.capacity);
  }

  /** Notes an entry outside the ordinary band (see the class notes). */
  private note(index: number, position: number): void {
    if (this.noted === this.notedIndex.length) {
      const length = grownLength(this.noted, this.noted + 1);
      const indices = new Uint32Array(length);
      const positions = new Uint32Array(length);
      indices.set(this.notedIndex);
      positions.set(this.notedPosition);
      this.notedIndex = indices;
      this.notedPosition = positions;
    }
    this.notedIndex[this.noted] = index;
    this.notedPosition[this.noted] = position;
    this.noted++;
  }

  /** The sorted position of each noted index. */
  notedPositions(): Map<number, number> {
    const positions = new Map<number, number>();
    for (let i = 0; i < this.noted; i++) positions.set(this.notedIndex[i], this.notedPosition[i]);
    return positions;
  }

  /** Empties the heap into `distances` and `indices`, ascending by distance (ties by index). */
  drainEntries(distances: number[], indices: number[]): void {
    const count = this.size;
    distances.length = count;
    indices.length = count;
    while (this.size > 0) {
      const last = --this.size;
      distances[last] = this.distances[0];
      indices[last] = this.indices[0];
      if (last > 0) this.siftDown(this.distances[last], this.indices[last], last);
    }
  }

  /** Writes the held indices into `out` (resized to fit) ascending by distance (ties by index); empties the heap. */
  drain(out: number[]): number[] {
    out.length = this.size;
    const distances = this.distances;
    const indices = this.indices;
    while (this.size > 0) {
      const last = --this.size;
      out[last] = indices[0];
      if (last > 0) this.siftDown(distances[last], indices[last], last);
    }
    return out;
  }

  /** Places (d, i) at the root of a heap of `size` entries and sifts it down. */
  private siftDown(d: number, i: number, size: number): void {
    const distances = this.distances;
    const indices = this.indices;
    let hole = 0;
    for (;;) {
      let child = 2 * hole + 1;
      if (child >= size) break;
      const right = child + 1;
      if (right < size) {
        const cd = distances[child];
        const rd = distances[right];
        if (rd > cd || (rd === cd && indices[right] > indices[child])) child = right;
      }
      const cd = distances[child];
      if (cd < d || (cd === d && indices[child] < i)) break;
      distances[hole] = cd;
      indices[hole] = indices[child];
      hole = child;
    }
    distances[hole] = d;
    indices[hole] = i;
  }
}
