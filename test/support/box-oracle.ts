/**
 * Brute-force oracle for SpatialHash2D / SpatialHash3D: a plain Map from item to
 * its box, answering every query by scanning every item. It states the query
 * semantics once, in the most obvious code, so the hashes can be compared to it.
 *
 * A box is a flat array in argument order: `[minX, minY, maxX, maxY]` in 2D,
 * `[minX, minY, minZ, maxX, maxY, maxZ]` in 3D. A point is `[x, y]` or `[x, y, z]`.
 *
 * @module
 */

import { boxWithinRule } from './exact-distance.js';

/** A box in argument order (all mins, then all maxes). */
export type Box = readonly number[];
/** A point, one coordinate per axis. */
export type Point = readonly number[];

/** True when the closed box contains the point (touching counts). */
export function boxContainsPoint(box: Box, point: Point): boolean {
  const dimension = point.length;
  for (let a = 0; a < dimension; a++) {
    if (!(box[a] <= point[a] && point[a] <= box[a + dimension])) return false;
  }
  return true;
}

/** True when two closed boxes intersect (touching counts). */
export function boxesIntersect(a: Box, b: Box): boolean {
  const dimension = a.length / 2;
  for (let i = 0; i < dimension; i++) {
    if (!(a[i] <= b[i + dimension] && b[i] <= a[i + dimension])) return false;
  }
  return true;
}

/**
 * True when the balls inscribed in two closed boxes meet (touching counts):
 * each centred on its box's centre with a radius of half its smallest side,
 * as forEachPair's `shape: 'ball'` defines them.
 */
export function ballsMeet(a: Box, b: Box): boolean {
  const dimension = a.length / 2;
  let distance2 = 0;
  let radiusA = Number.POSITIVE_INFINITY;
  let radiusB = Number.POSITIVE_INFINITY;
  for (let i = 0; i < dimension; i++) {
    const centreA = (a[i] + a[i + dimension]) / 2;
    const centreB = (b[i] + b[i + dimension]) / 2;
    distance2 += (centreB - centreA) * (centreB - centreA);
    radiusA = Math.min(radiusA, (a[i + dimension] - a[i]) / 2);
    radiusB = Math.min(radiusB, (b[i + dimension] - b[i]) / 2);
  }
  return distance2 <= (radiusA + radiusB) * (radiusA + radiusB);
}

/**
 * Squared distance from a point to a closed box in the library's float
 * formula: per axis `d = Math.max(min - p, 0, p - max)`, squares summed left
 * to right.
 */
export function boxDistance2(box: Box, point: Point): number {
  const dimension = point.length;
  let sum = 0;
  for (let a = 0; a < dimension; a++) {
    const d = Math.max(box[a] - point[a], 0, point[a] - box[a + dimension]);
    sum += d * d;
  }
  return sum;
}

/**
 * The radius test of the library, exactly: `boxDistance2 <= r*r` under the
 * distance rule (float64 as if its exponent range were unbounded; see
 * exact-distance.ts).
 */
export function boxWithinRadius(box: Box, point: Point, radius: number): boolean {
  return boxWithinRule(box, point, radius);
}

/** The oracle itself: same operations and answers as the hashes, O(n) per query. */
export class BoxOracle<T> {
  readonly dimension: 2 | 3;
  private readonly boxes = new Map<T, Box>();

  constructor(dimension: 2 | 3) {
    this.dimension = dimension;
  }

  get size(): number {
    return this.boxes.size;
  }

  has(item: T): boolean {
    return this.boxes.has(item);
  }

  /** The stored box of a present item. */
  boxOf(item: T): Box {
    const box = this.boxes.get(item);
    if (box === undefined) throw new Error('oracle: boxOf an absent item');
    return box;
  }

  insert(item: T, box: Box): void {
    if (this.boxes.has(item)) throw new Error('oracle: insert of a present item');
    this.boxes.set(item, this.copy(box));
  }

  update(item: T, box: Box): void {
    if (!this.boxes.has(item)) throw new Error('oracle: update of an absent item');
    this.boxes.set(item, this.copy(box));
  }

  remove(item: T): boolean {
    return this.boxes.delete(item);
  }

  clear(): void {
    this.boxes.clear();
  }

  items(): T[] {
    return [...this.boxes.keys()];
  }

  /** Every live item with its box. */
  entries(): [T, Box][] {
    return [...this.boxes.entries()];
  }

  queryPoint(point: Point): T[] {
    const found: T[] = [];
    for (const [item, box] of this.boxes) if (boxContainsPoint(box, point)) found.push(item);
    return found;
  }

  queryBox(query: Box): T[] {
    const found: T[] = [];
    for (const [item, box] of this.boxes) if (boxesIntersect(box, query)) found.push(item);
    return found;
  }

  queryRadius(point: Point, radius: number): T[] {
    const found: T[] = [];
    for (const [item, box] of this.boxes) if (boxWithinRadius(box, point, radius)) found.push(item);
    return found;
  }

  private copy(box: Box): Box {
    if (box.length !== this.dimension * 2)
      throw new Error(`oracle: a ${this.dimension}D box has ${box.length} numbers`);
    return Object.freeze([...box]);
  }
}
