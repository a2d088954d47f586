/**
 * The bounded heap of k-nearest queries.
 *
 * @module
 */
import { grownLength } from '../core/grow.js';

/**
 * Bounded max-heap of (squared distance, index) pairs keeping the k best,
 * ordered by distance then index so ties come out by ascending index. Its
 * arrays grow with k and are reused across queries.
 */
export class NearestHeap {
  private distances = new Float64Array(16);
  private indices = new Uint32Array(16);
  /** Entries held. */
  size = 0;
  /** Entries wanted. */
  capacity = 0;

  /** Empties the heap and sets how many entries it keeps. */
  reset(capacity: number): void {
    if (capacity > this.distances.length) {
      const length = grownLength(this.distances.length, capacity);
      this.distances = new Float64Array(length);
      this.indices = new Uint32Array(length);
    }
    this.capacity = capacity;
    this.size = 0;
  }

  /** Squared distance a candidate must beat (ties: a lower index), Infinity until the heap is full. */
  worst(): number {
    return this.size < this.capacity ? Number.POSITIVE_INFINITY : this.distances[0];
  }

  /** Offers one candidate. */
  offer(distanceSquared: number, index: number): void {
    const distances = this.distances;
    const indices = this.indices;
    if (this.size < this.capacity) {
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
    this.siftDown(distanceSquared, index, this.size);
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
