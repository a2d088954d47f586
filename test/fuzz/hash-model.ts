/**
 * The four dynamic hashes (SpatialHash2D/3D, PointHash2D/3D) behind one flat
 * interface for the hash fuzz suites, with a brute-force model and the
 * checks that compare them: box, radius, nearest, ray and pair queries, ids,
 * filters and snapshots. Boxes are flat arrays, the mins then the maxes; a
 * point hash stores the mins (its items are boxes of zero size).
 *
 * @module
 */

import { expect } from 'vitest';
import {
  PointHash2D,
  PointHash3D,
  type PointHashData,
  type RayHit,
  SpatialHash2D,
  SpatialHash3D,
  type SpatialHashData,
} from '../../src/index.js';
import { boxesIntersect } from '../support/box-oracle.js';
import { boxWithinRule, dyadicKey, ruleBoxSquareFast, smallestKeys } from '../support/exact-distance.js';
import { expectNearestHit, expectSameHits, raycastAllOracle } from '../support/query-oracle.js';

/** Which structure: a box hash or a point hash, in 2 or 3 dimensions. */
export interface Kind {
  points: boolean;
  dim: 2 | 3;
}

/** The four kinds, for fast-check's constantFrom. */
export const KINDS: Kind[] = [
  { points: false, dim: 2 },
  { points: false, dim: 3 },
  { points: true, dim: 2 },
  { points: true, dim: 3 },
];

/** A kind's name as the tests print it. */
export function kindName(kind: Kind): string {
  return `${kind.points ? 'PointHash' : 'SpatialHash'}${kind.dim}D`;
}

type AnyHash = SpatialHash2D<number> | SpatialHash3D<number> | PointHash2D<number> | PointHash3D<number>;
type Call = (...args: unknown[]) => unknown;

/** One hash seen through flat arrays. */
export class Adapted {
  readonly kind: Kind;
  readonly hash: AnyHash;

  constructor(kind: Kind, hash: AnyHash) {
    this.kind = kind;
    this.hash = hash;
  }

  private call(name: string, ...args: unknown[]): unknown {
    return ((this.hash as unknown as Record<string, Call>)[name] as Call).apply(this.hash, args);
  }

  /** The box's arguments for insert / update: a point hash takes the mins only. */
  private geometry(box: readonly number[]): number[] {
    return this.kind.points ? box.slice(0, this.kind.dim) : [...box];
  }

  insert(item: number, box: readonly number[]): number {
    return this.call('insert', item, ...this.geometry(box)) as number;
  }

  update(item: number, box: readonly number[]): void {
    this.call('update', item, ...this.geometry(box));
  }

  remove(item: number): boolean {
    return this.hash.remove(item);
  }

  /** insert with a filter (category and mask bits). */
  insertFiltered(item: number, box: readonly number[], filter: { category: number; mask: number }): number {
    return this.call('insert', item, ...this.geometry(box), filter) as number;
  }

  updateById(id: number, box: readonly number[]): void {
    this.call('updateById', id, ...this.geometry(box));
  }

  queryBox(box: readonly number[], mask = -1): number[] {
    return this.call('queryBox', ...box, [], mask) as number[];
  }

  queryRadius(point: readonly number[], radius: number, mask = -1): number[] {
    return this.call('queryRadius', ...point, radius, [], mask) as number[];
  }

  nearest(
    point: readonly number[],
    k: number,
    maxDistance: number,
    mask = -1,
    predicate?: (item: number) => boolean,
  ): number[] {
    return this.call('nearest', ...point, k, maxDistance, [], mask, predicate) as number[];
  }

  raycastAll(
    origin: readonly number[],
    direction: readonly number[],
    maxDistance: number,
    mask = -1,
    predicate?: (item: number) => boolean,
  ): RayHit<number>[] {
    return this.call('raycastAll', ...origin, ...direction, maxDistance, [], mask, predicate) as RayHit<number>[];
  }

  raycast(
    origin: readonly number[],
    direction: readonly number[],
    maxDistance: number,
    mask = -1,
    predicate?: (item: number) => boolean,
  ): RayHit<number> | undefined {
    return this.call('raycast', ...origin, ...direction, maxDistance, mask, predicate) as RayHit<number> | undefined;
  }

  /** forEachOverlap over `box`: the items its visitor saw, in order (the visitor runs `inside` for each). */
  forEachOverlap(box: readonly number[], inside?: (item: number) => void): number[] {
    const seen: number[] = [];
    this.call('forEachOverlap', ...box, (item: number) => {
      seen.push(item);
      inside?.(item);
    });
    return seen;
  }

  /**
   * Every pair forEachPair reports: of intersecting boxes, or (point hash) of
   * points within `radius`; `inside` runs in the visitor after each pair.
   */
  pairs(radius: number, inside?: (a: number, b: number) => void): [number, number][] {
    const pairs: [number, number][] = [];
    const visit = (a: number, b: number) => {
      pairs.push([a, b]);
      inside?.(a, b);
    };
    if (this.kind.points) this.call('forEachPair', radius, visit);
    else this.call('forEachPair', visit);
    return pairs;
  }

  /** The stored geometry of id `id` as a box (a point: min = max). */
  boxById(id: number): number[] {
    if (!this.kind.points) return this.call('boxById', id) as number[];
    const p = this.call('positionById', id) as number[];
    return [...p, ...p];
  }

  validate(): void {
    this.hash.validate();
  }

  toData(): SpatialHashData | PointHashData {
    return this.hash.toData();
  }
}

/** A new hash of `kind` from constructor options. */
export function makeHash(kind: Kind, options: Record<string, unknown>): Adapted {
  const { cellSize, maxCellsPerItem } = options as { cellSize: number; maxCellsPerItem?: number };
  let hash: AnyHash;
  if (kind.points) hash = kind.dim === 2 ? new PointHash2D({ cellSize }) : new PointHash3D({ cellSize });
  else {
    hash =
      kind.dim === 2
        ? new SpatialHash2D({ cellSize, maxCellsPerItem })
        : new SpatialHash3D({ cellSize, maxCellsPerItem });
  }
  return new Adapted(kind, hash);
}

/** `from(data)` of `kind`'s class. */
export function hashFrom(kind: Kind, data: unknown, trackItems = true, maxCells?: number): Adapted {
  const options = maxCells === undefined ? { trackItems } : { trackItems, maxCells };
  let hash: AnyHash;
  if (kind.points) {
    hash =
      kind.dim === 2
        ? PointHash2D.from<number>(data as PointHashData, options)
        : PointHash3D.from<number>(data as PointHashData, options);
  } else {
    hash =
      kind.dim === 2
        ? SpatialHash2D.from<number>(data as SpatialHashData, options)
        : SpatialHash3D.from<number>(data as SpatialHashData, options);
  }
  return new Adapted(kind, hash);
}

/** What the hash should hold: item -> box (for a point hash, min = max). */
export type Model = Map<number, number[]>;

/** Items' filters: item -> [category, mask]; an item not listed has the defaults, category 1 and every mask bit. */
export type Filters = Map<number, [number, number]>;

/** The items of `model` a query with `mask` may report: those whose category shares a bit with it. */
export function visible(model: Model, filters: Filters | undefined, mask: number): Model {
  if (filters === undefined && mask === -1) return model;
  const out: Model = new Map();
  for (const [item, box] of model) if (((filters?.get(item)?.[0] ?? 1) & mask) !== 0) out.set(item, box);
  return out;
}

/** A total order over the items a snapshot may hold (numbers, NaN, strings). */
function compare(a: unknown, b: unknown): number {
  const ka = `${typeof a}:${typeof a === 'number' && Number.isNaN(a) ? 'NaN' : ''}`;
  const kb = `${typeof b}:${typeof b === 'number' && Number.isNaN(b) ? 'NaN' : ''}`;
  if (ka !== kb) return ka < kb ? -1 : 1;
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/** Sorted copy, for comparing answers whose order is free; -0 and 0 are one item, as in a Map. */
function sorted(items: readonly number[]): number[] {
  return items.map((item) => (Object.is(item, -0) ? 0 : item)).sort(compare);
}

/**
 * The library's point-in-radius test for a point hash, its box test for a box
 * hash (the same squares), under the distance rule (see exact-distance.ts).
 */
function within(box: readonly number[], point: readonly number[], radius: number): boolean {
  return boxWithinRule(box, point, radius);
}

/** Checks a box query (with `mask`: `model` holds the items it may report, see visible) against the model. */
export function checkQueryBox(adapted: Adapted, model: Model, query: readonly number[], mask = -1): void {
  const want: number[] = [];
  for (const [item, box] of model) if (boxesIntersect(box, query)) want.push(item);
  expect(sorted(adapted.queryBox(query, mask)), `queryBox(${query}, mask ${mask})`).toEqual(sorted(want));
}

/** Checks a radius query against the model (`mask` as for checkQueryBox). */
export function checkQueryRadius(
  adapted: Adapted,
  model: Model,
  point: readonly number[],
  radius: number,
  mask = -1,
): void {
  const want: number[] = [];
  for (const [item, box] of model) if (within(box, point, radius)) want.push(item);
  expect(sorted(adapted.queryRadius(point, radius, mask)), `queryRadius(${point}, ${radius}, mask ${mask})`).toEqual(
    sorted(want),
  );
}

/**
 * Checks nearest against the model: distinct items whose distances are the k
 * smallest in range (`mask` as for checkQueryBox; `predicate` is called and
 * must accept every item, so the answer is the unfiltered one).
 */
export function checkNearest(
  adapted: Adapted,
  model: Model,
  point: readonly number[],
  k: number,
  maxDistance: number,
  mask = -1,
  predicate?: (item: number) => boolean,
): void {
  const got = adapted.nearest(point, k, maxDistance, mask, predicate);
  const what = `nearest(${point}, ${k}, ${maxDistance}, mask ${mask}${predicate ? ', with a predicate' : ''})`;
  expect(new Set(got).size, what).toBe(got.length);
  const distances = got.map((item) => {
    const box = model.get(item);
    expect(box, `${what}: unknown item ${item}`).toBeDefined();
    return dyadicKey(ruleBoxSquareFast(box as number[], point));
  });
  const all = [...model.values()]
    .filter((box) => boxWithinRule(box, point, maxDistance))
    .map((box) => ruleBoxSquareFast(box, point));
  expect(distances, what).toEqual(smallestKeys(all, k));
}

/** Checks raycast and raycastAll (box hashes) against the model (`mask` and `predicate` as for checkNearest). */
export function checkRay(
  adapted: Adapted,
  model: Model,
  origin: readonly number[],
  direction: readonly number[],
  maxDistance: number,
  mask = -1,
  predicate?: (item: number) => boolean,
): void {
  const want = raycastAllOracle([...model.entries()], origin, direction, maxDistance);
  expectSameHits(adapted.raycastAll(origin, direction, maxDistance, mask, predicate), want, maxDistance);
  expectNearestHit(adapted.raycast(origin, direction, maxDistance, mask, predicate), want, maxDistance);
}

/** Whether two items' filters accept each other (Box2D's rule, as forEachPair applies it). */
function accept(filters: Filters | undefined, a: number, b: number): boolean {
  const [ca, ma] = filters?.get(a) ?? [1, -1];
  const [cb, mb] = filters?.get(b) ?? [1, -1];
  return (ca & mb) !== 0 && (cb & ma) !== 0;
}

/**
 * Checks forEachPair against the model: each pair once, exactly the
 * intersecting (or within-radius) ones whose filters accept each other;
 * `inside` runs in the visitor after each pair.
 */
export function checkPairs(
  adapted: Adapted,
  model: Model,
  radius: number,
  filters?: Filters,
  inside?: (a: number, b: number) => void,
): void {
  const key = (a: number, b: number) => (a < b ? `${a}|${b}` : `${b}|${a}`);
  const got = adapted.pairs(radius, inside).map(([a, b]) => key(a, b));
  expect(new Set(got).size, 'a pair reported twice').toBe(got.length);
  const entries = [...model.entries()];
  const want: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      const [a, boxA] = entries[i];
      const [b, boxB] = entries[j];
      const meet = adapted.kind.points
        ? within(boxA, boxB.slice(0, adapted.kind.dim), radius)
        : boxesIntersect(boxA, boxB);
      if (meet && accept(filters, a, b)) want.push(key(a, b));
    }
  }
  expect(got.sort(), `forEachPair(${radius})`).toEqual(want.sort());
}

/** Cells a box covers in a box hash with this cell size, or 0 when it overflows (more than `max`, or past 2^52 cells). */
export function coveredCells(box: readonly number[], cellSize: number, max: number): number {
  const dim = box.length / 2;
  let cells = 1;
  for (let a = 0; a < dim; a++) {
    const lo = Math.floor(box[a] / cellSize);
    const hi = Math.floor(box[a + dim] / cellSize);
    if (!(Math.max(-lo, hi) <= 2 ** 52)) return 0;
    cells *= hi - lo + 1;
  }
  return cells > max ? 0 : cells;
}
