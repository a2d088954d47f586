/**
 * Brute-force oracle for the ray, nearest and pair queries of SpatialHash2D /
 * SpatialHash3D, plus the comparisons the property tests share. Each answer is
 * the most obvious scan over every item, so the hashes can be checked against it.
 *
 * A box is `[minX, minY, maxX, maxY]` (2D) or `[minX, minY, minZ, maxX, maxY, maxZ]`
 * (3D); a point or vector has one number per axis.
 *
 * @module
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Box, boxesIntersect } from './box-oracle.js';
import { boxWithinRule, dyadicKey, ruleBoxSquareFast, smallestKeys } from './exact-distance.js';

export type { Box } from './box-oracle.js';

/** A point or a direction, one number per axis. */
export type Vec = readonly number[];

/** An item with its box. */
export type Entry<T> = readonly [T, Box];

/** One oracle ray hit. */
export interface OracleHit<T> {
  item: T;
  distance: number;
}

/**
 * Where the ray `origin + t * direction` (t >= 0) enters the closed box, as
 * t, or undefined when it misses: the slab test, `t = (bound - o) / d` per axis.
 */
export function rayEnterParameter(box: Box, origin: Vec, direction: Vec): number | undefined {
  const dim = origin.length;
  let enter = 0;
  let exit = Number.POSITIVE_INFINITY;
  for (let a = 0; a < dim; a++) {
    const lo = box[a];
    const hi = box[a + dim];
    if (direction[a] === 0) {
      if (origin[a] < lo || origin[a] > hi) return undefined;
      continue;
    }
    const t1 = (lo - origin[a]) / direction[a];
    const t2 = (hi - origin[a]) / direction[a];
    enter = Math.max(enter, Math.min(t1, t2));
    exit = Math.min(exit, Math.max(t1, t2));
    if (enter > exit) return undefined;
  }
  return enter;
}

/**
 * The direction times a power of two that brings its largest component into
 * [1, 2). The product is exact, so every hit and every tie stays the same, but
 * the slab formula no longer overflows for subnormal or huge directions.
 */
export function scaleDirection(direction: Vec): number[] {
  const m = Math.max(...direction.map(Math.abs));
  const e = Math.floor(Math.log2(m));
  const half = Math.trunc(-e / 2);
  let scaled = direction.map((v) => v * 2 ** half * 2 ** (-e - half));
  const top = Math.max(...scaled.map(Math.abs));
  if (top >= 2) scaled = scaled.map((v) => v / 2);
  if (top < 1) scaled = scaled.map((v) => v * 2);
  return scaled;
}

/** Euclidean length of a vector. */
export function norm(v: Vec): number {
  return Math.hypot(...v);
}

/** Every item the ray hits within maxDistance, ascending by distance. */
export function raycastAllOracle<T>(
  entries: readonly Entry<T>[],
  origin: Vec,
  direction: Vec,
  maxDistance: number,
): OracleHit<T>[] {
  direction = scaleDirection(direction);
  const length = norm(direction);
  const hits: OracleHit<T>[] = [];
  for (const [item, box] of entries) {
    const t = rayEnterParameter(box, origin, direction);
    if (t === undefined) continue;
    const distance = t * length;
    if (distance <= maxDistance) hits.push({ item, distance });
  }
  return hits.sort((p, q) => p.distance - q.distance);
}

/**
 * The rule's squared distances (dyadicKey strings, see exact-distance.ts) of
 * the k nearest items within maxDistance, ascending.
 */
export function nearestDistancesOracle<T>(
  entries: readonly Entry<T>[],
  point: Vec,
  k: number,
  maxDistance: number,
): string[] {
  return smallestKeys(
    entries.filter(([, box]) => boxWithinRule(box, point, maxDistance)).map(([, box]) => ruleBoxSquareFast(box, point)),
    k,
  );
}

/** Every unordered intersecting pair, as sorted "a|b" keys of the items' string forms. */
export function pairKeysOracle<T>(entries: readonly Entry<T>[]): string[] {
  const keys: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      if (boxesIntersect(entries[i][1], entries[j][1])) keys.push(pairKey(entries[i][0], entries[j][0]));
    }
  }
  return keys.sort();
}

/** Order-free key of a pair. */
export function pairKey<T>(a: T, b: T): string {
  const x = String(a);
  const y = String(b);
  return x < y ? `${x}|${y}` : `${y}|${x}`;
}

/** |a - b| within a relative 1e-9 (absolute near 0); equal infinities (distances past the float range) match. */
export function closeTo(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/**
 * Checks a raycastAll answer against the oracle: the same items (an item within
 * rounding of maxDistance may be in either), each once, distances within a
 * relative 1e-9, in ascending order.
 */
export function expectSameHits<T>(
  got: readonly { item: T; distance: number }[],
  want: readonly OracleHit<T>[],
  maxDistance: number,
): void {
  for (let i = 1; i < got.length; i++) expect(got[i].distance).toBeGreaterThanOrEqual(got[i - 1].distance);
  const wanted = new Map(want.map((hit) => [hit.item, hit.distance]));
  const seen = new Set<T>();
  for (const hit of got) {
    expect(seen.has(hit.item), `item ${String(hit.item)} reported twice`).toBe(false);
    seen.add(hit.item);
    const distance = wanted.get(hit.item);
    if (distance === undefined) {
      // Only acceptable right at the maxDistance boundary.
      expect(closeTo(hit.distance, maxDistance), `unexpected hit ${String(hit.item)} at ${hit.distance}`).toBe(true);
      continue;
    }
    expect(closeTo(hit.distance, distance), `distance of ${String(hit.item)}: ${hit.distance} vs ${distance}`).toBe(
      true,
    );
  }
  for (const hit of want) {
    if (seen.has(hit.item)) continue;
    expect(closeTo(hit.distance, maxDistance), `missed ${String(hit.item)} at ${hit.distance}`).toBe(true);
  }
}

/** Checks a raycast answer: the nearest oracle distance (or undefined when the oracle has no hit). */
export function expectNearestHit<T>(
  got: { item: T; distance: number } | undefined,
  want: readonly OracleHit<T>[],
  maxDistance: number,
): void {
  if (want.length === 0) {
    if (got !== undefined) expect(closeTo(got.distance, maxDistance), `unexpected hit at ${got.distance}`).toBe(true);
    return;
  }
  if (got === undefined) {
    expect(closeTo(want[0].distance, maxDistance), `missed the hit at ${want[0].distance}`).toBe(true);
    return;
  }
  expect(closeTo(got.distance, want[0].distance), `hit at ${got.distance}, nearest is ${want[0].distance}`).toBe(true);
  // SameValueZero, as the hashes compare items: a NaN item is itself.
  const own = want.find((hit) => hit.item === got.item || (Number.isNaN(hit.item) && Number.isNaN(got.item)));
  expect(own, `reported item ${String(got.item)} is not hit`).toBeDefined();
  expect(closeTo((own as OracleHit<T>).distance, got.distance)).toBe(true);
}

/**
 * Checks a nearest answer: distinct items, squared distances (by the oracle
 * formula) ascending and equal to the oracle's k smallest, so ties at the k-th
 * distance may be broken either way.
 */
export function expectNearest<T>(
  got: readonly T[],
  entries: readonly Entry<T>[],
  point: Vec,
  k: number,
  maxDistance: number,
) {
  const boxes = new Map(entries);
  expect(new Set(got).size).toBe(got.length);
  const distances = got.map((item) => {
    const box = boxes.get(item);
    expect(box, `unknown item ${String(item)}`).toBeDefined();
    return dyadicKey(ruleBoxSquareFast(box as Box, point));
  });
  expect(distances).toEqual(nearestDistancesOracle(entries, point, k, maxDistance));
}

/** Closed cell box of cell `cell` for a cell size, in box layout. */
export function cellBox(cell: Vec, cellSize: number): number[] {
  return [...cell.map((c) => c * cellSize), ...cell.map((c) => (c + 1) * cellSize)];
}

// ---------------------------------------------------------------------------
// The shared property tests, run once per dimension through a flat-array view.

/** A ray hit as the hashes report it. */
export interface Hit {
  item: number;
  distance: number;
}

/** One cell reported by forEachCellOnRay. */
export interface CellOnRay {
  cell: number[];
  enter: number;
  exit: number;
}

/** One hash seen through flat arrays (items are numbers). Optional arguments are passed only when given. */
export interface QueryHash {
  readonly size: number;
  insert(item: number, box: Box): void;
  update(item: number, box: Box): void;
  remove(item: number): boolean;
  clear(): void;
  raycast(origin: Vec, direction: Vec, maxDistance?: number): Hit | undefined;
  raycastAll(origin: Vec, direction: Vec, maxDistance?: number, out?: Hit[]): Hit[];
  /** Every cell forEachCellOnRay visits, stopping (returning true) after `stopAfter` cells when given. */
  cellsOnRay(origin: Vec, direction: Vec, maxDistance: number, stopAfter?: number): CellOnRay[];
  nearest(point: Vec, k?: number, maxDistance?: number, out?: number[]): number[];
  /** Every pair forEachPair reports, in order; `query` runs a box query inside the visitor. */
  pairs(query?: boolean): [number, number][];
  validate(): void;
}

/** Makes an empty hash. */
export type QueryHashFactory = (options: { cellSize: number; maxCellsPerItem?: number }) => QueryHash;

/** A scene: hash options and the boxes of items 0, 1, 2, ... */
export interface Scene {
  cellSize: number;
  maxCellsPerItem: number;
  boxes: number[][];
}

/** A ray query. */
export interface Ray {
  origin: number[];
  direction: number[];
  maxDistance: number;
}

/** Builds a hash holding a scene and returns it with its oracle entries. */
export function build(factory: QueryHashFactory, scene: Scene): { hash: QueryHash; entries: Entry<number>[] } {
  const hash = factory({ cellSize: scene.cellSize, maxCellsPerItem: scene.maxCellsPerItem });
  const entries: Entry<number>[] = [];
  scene.boxes.forEach((box, item) => {
    hash.insert(item, box);
    entries.push([item, box]);
  });
  return { hash, entries };
}

/** Coordinates in half units, often on cell borders for cell sizes 0.5, 1 and 2. */
const half = (lo: number, hi: number) => fc.integer({ min: lo * 2, max: hi * 2 }).map((n) => n / 2);

/** A coordinate: mostly half units near the origin, sometimes any double in range. */
const coordinate = fc.oneof(
  { weight: 4, arbitrary: half(-10, 10) },
  { weight: 1, arbitrary: fc.double({ min: -12, max: 12, noNaN: true }) },
);

/** A box: a point (size 0) a third of the time, up to 6 units wide otherwise. */
export function boxArbitrary(dim: number): fc.Arbitrary<number[]> {
  const side = fc.oneof(fc.constant(0), half(0, 3), fc.double({ min: 0, max: 6, noNaN: true }));
  return fc
    .tuple(fc.array(coordinate, { minLength: dim, maxLength: dim }), fc.array(side, { minLength: dim, maxLength: dim }))
    .map(([min, size]) => [...min, ...min.map((v, a) => v + size[a])]);
}

/** A scene of up to `maxItems` boxes, with duplicates and a few far or huge ones; small maxCellsPerItem forces overflow. */
export function sceneArbitrary(dim: number, maxItems = 30): fc.Arbitrary<Scene> {
  const fill = (lo: number, hi: number): number[] => [...Array(dim).fill(lo), ...Array(dim).fill(hi)];
  const special = fc.oneof(
    boxArbitrary(dim),
    // Far away, and across the whole scene (overflow when maxCellsPerItem is small).
    fc.constant(fill(1e6, 1e6 + 1)),
    fc.constant(fill(-20, 20)),
    fc.constant(fill(-3e300, -1e300)),
  );
  return fc
    .record({
      cellSize: fc.constantFrom(1, 0.5, 2, 0.7, 3),
      maxCellsPerItem: fc.constantFrom(2, 8, 256),
      boxes: fc.array(fc.oneof({ weight: 8, arbitrary: boxArbitrary(dim) }, { weight: 1, arbitrary: special }), {
        maxLength: maxItems,
      }),
      duplicates: fc.array(fc.nat(), { maxLength: 4 }),
    })
    .map(({ cellSize, maxCellsPerItem, boxes, duplicates }) => {
      // Coincident boxes: copies of earlier ones.
      const all = [...boxes];
      if (boxes.length > 0) for (const d of duplicates) all.push([...boxes[d % boxes.length]]);
      return { cellSize, maxCellsPerItem, boxes: all };
    });
}

/** A non-zero direction: small integers (exact corners), axis-parallel, or any doubles. */
export function directionArbitrary(dim: number): fc.Arbitrary<number[]> {
  const small = fc.array(fc.integer({ min: -3, max: 3 }), { minLength: dim, maxLength: dim });
  const axis = fc
    .tuple(fc.integer({ min: 0, max: dim - 1 }), fc.constantFrom(-1, 1, 0.25, -7))
    .map(([a, v]) => Array.from({ length: dim }, (_, i) => (i === a ? v : 0)));
  const any = fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: dim, maxLength: dim });
  return fc.oneof(small, axis, any).filter((d) => d.some((v) => v !== 0));
}

/** maxDistance: Infinity, 0, half units or any double up to 30. */
export const maxDistanceArbitrary = fc.oneof(
  fc.constant(Number.POSITIVE_INFINITY),
  fc.constant(0),
  half(0, 15),
  fc.double({ min: 0, max: 30, noNaN: true }),
);

/**
 * A ray for a scene: from a coordinate (often a cell corner), from inside a box
 * (its centre or its min corner), or from far outside.
 */
export function rayArbitrary(
  dim: number,
): fc.Arbitrary<{ origin: number[] | number; direction: number[]; maxDistance: number }> {
  const origin = fc.oneof(
    { weight: 3, arbitrary: fc.array(coordinate, { minLength: dim, maxLength: dim }) },
    { weight: 2, arbitrary: fc.nat() },
    { weight: 1, arbitrary: fc.array(half(-40, 40), { minLength: dim, maxLength: dim }) },
  );
  return fc.record({ origin, direction: directionArbitrary(dim), maxDistance: maxDistanceArbitrary });
}

/** Resolves a ray's origin: a number picks a box (centre when even, min corner when odd). */
export function resolveRay(
  scene: Scene,
  dim: number,
  ray: { origin: number[] | number; direction: number[]; maxDistance: number },
): Ray {
  if (typeof ray.origin !== 'number') return ray as Ray;
  if (scene.boxes.length === 0) return { ...ray, origin: Array(dim).fill(0) };
  const box = scene.boxes[ray.origin % scene.boxes.length];
  const origin = box.slice(0, dim).map((lo, a) => ((ray.origin as number) % 2 === 0 ? (lo + box[a + dim]) / 2 : lo));
  if (origin.some((v) => !Number.isFinite(v) || Math.abs(v) > 1e12)) return { ...ray, origin: Array(dim).fill(0.5) };
  return { ...ray, origin };
}

/** Checks every ray query of a hash against the oracle for one ray. */
export function checkRay(hash: QueryHash, entries: readonly Entry<number>[], scene: Scene, ray: Ray): void {
  const { origin, direction, maxDistance } = ray;
  const dim = origin.length;
  const want = raycastAllOracle(entries, origin, direction, maxDistance);
  expectSameHits(hash.raycastAll(origin, direction, maxDistance), want, maxDistance);
  expectNearestHit(hash.raycast(origin, direction, maxDistance), want, maxDistance);
  // forEachCellOnRay on a segment of at most 40 cells, or an infinite ray
  // (clipped to the stored cells) cut after WALK_CAP cells.
  const limit = maxDistance === Number.POSITIVE_INFINITY ? maxDistance : Math.min(maxDistance, 40 * scene.cellSize);
  const cells = hash.cellsOnRay(origin, direction, limit, WALK_CAP);
  checkCells(cells, scene.cellSize, origin, direction, limit);
  const visited = new Set(cells.map((c) => c.cell.join()));
  expect(visited.size, 'a cell was visited twice').toBe(cells.length);
  const reached = cells.length === WALK_CAP ? cells[cells.length - 1].enter : limit;
  // Completeness: every item in cells that the ray hits has one of its cells on the walk.
  for (const hit of raycastAllOracle(entries, origin, direction, reached)) {
    const box = scene.boxes[hit.item];
    const lo = box.slice(0, dim).map((v) => Math.floor(v / scene.cellSize));
    const hi = box.slice(dim).map((v) => Math.floor(v / scene.cellSize));
    const count = lo.reduce((n, l, a) => n * (hi[a] - l + 1), 1);
    if (count > scene.maxCellsPerItem || hi.some((h, a) => Math.max(-lo[a], h) > 2 ** 52)) continue;
    let found = false;
    const cell = [...lo];
    for (;;) {
      if (visited.has(cell.join())) {
        found = true;
        break;
      }
      let a = 0;
      while (a < dim && cell[a] === hi[a]) {
        cell[a] = lo[a];
        a++;
      }
      if (a === dim) break;
      cell[a]++;
    }
    expect(found, `item ${hit.item} (box ${box}) is hit at ${hit.distance} but none of its cells is visited`).toBe(
      true,
    );
  }
}

/** Cells after which a test stops an infinite forEachCellOnRay walk. */
const WALK_CAP = 3000;

/** Order, adjacency and soundness of a forEachCellOnRay answer. */
export function checkCells(
  cells: readonly CellOnRay[],
  cellSize: number,
  origin: Vec,
  direction: Vec,
  maxDistance: number,
) {
  direction = scaleDirection(direction);
  const length = norm(direction);
  for (let i = 0; i < cells.length; i++) {
    const { cell, enter, exit } = cells[i];
    expect(enter).toBeGreaterThanOrEqual(0);
    expect(exit).toBeGreaterThanOrEqual(enter);
    if (maxDistance !== Number.POSITIVE_INFINITY) expect(exit).toBeLessThanOrEqual(maxDistance * (1 + 1e-9) + 1e-9);
    if (i > 0) {
      expect(enter).toBeGreaterThanOrEqual(cells[i - 1].enter);
      const step = Math.max(...cell.map((v, a) => Math.abs(v - cells[i - 1].cell[a])));
      expect(step, `cells ${cells[i - 1].cell} then ${cell} are not neighbours`).toBe(1);
    }
    // Sound: the ray passes through (or within rounding of) the closed cell, at the reported distances.
    const box = cellBox(cell, cellSize);
    const pad = 1e-9 * Math.max(1, ...box.map(Math.abs));
    const padded = box.map((v, j) => (j < cell.length ? v - pad : v + pad));
    const t = rayEnterParameter(padded, origin, direction);
    expect(t, `cell ${cell} is not on the ray`).toBeDefined();
    expect((t as number) * length).toBeLessThanOrEqual(enter + 1e-9 * Math.max(1, enter) + pad);
  }
  if (maxDistance !== Number.POSITIVE_INFINITY && cells.length > 0) {
    // A finite walk starts in the origin's cell.
    expect(cells[0].cell).toEqual(origin.map((v) => Math.floor(v / cellSize)));
    expect(cells[0].enter).toBe(0);
  }
}

/** Checks nearest for one query point against the oracle. */
export function checkNearest(
  hash: QueryHash,
  entries: readonly Entry<number>[],
  point: Vec,
  k: number,
  maxDistance: number,
): void {
  expectNearest(hash.nearest(point, k, maxDistance), entries, point, k, maxDistance);
}

/** Checks forEachPair against the oracle: every intersecting pair exactly once. */
export function checkPairs(hash: QueryHash, entries: readonly Entry<number>[], query = false): void {
  const got = hash.pairs(query).map(([a, b]) => pairKey(a, b));
  expect(got.length, 'a pair was reported twice').toBe(new Set(got).size);
  expect(got.sort()).toEqual(pairKeysOracle(entries));
}

/** Declares the seeded property tests of the ray, nearest and pair queries for one dimension. */
export function describeQueryProperties(dim: 2 | 3, factory: QueryHashFactory): void {
  // Fixed seeds, shown in the test names (fast-check also prints them on failure); 2D and 3D differ.
  const seeds = [1, 2, 3, 4, 5, 6, 7].map((i) => 0x4a110000 + dim * 0x100 + i);
  describe(`${dim}D queries against brute force`, () => {
    it(`raycast / raycastAll / forEachCellOnRay match the oracle on random rays (seed ${seeds[0]})`, () => {
      fc.assert(
        fc.property(
          sceneArbitrary(dim),
          fc.array(rayArbitrary(dim), { minLength: 1, maxLength: 12 }),
          (scene, rays) => {
            const { hash, entries } = build(factory, scene);
            for (const r of rays) checkRay(hash, entries, scene, resolveRay(scene, dim, r));
          },
        ),
        { seed: seeds[0], numRuns: dim === 2 ? 200 : 120 },
      );
    });

    it(`huge and tiny directions give the same hits (seed ${seeds[1]})`, () => {
      fc.assert(
        fc.property(
          sceneArbitrary(dim),
          rayArbitrary(dim),
          fc.constantFrom(2 ** 1000, 2 ** -1000, 2 ** 600, 2 ** -600),
          fc.constantFrom(1e150, 1e-150, 3e-200),
          (scene, r, exact, inexact) => {
            const { hash, entries } = build(factory, scene);
            const ray = resolveRay(scene, dim, r);
            const base = hash.raycastAll(ray.origin, ray.direction, ray.maxDistance);
            // A power-of-two factor is exact, so the answer must not change at all.
            const scaled = ray.direction.map((v) => v * exact);
            // (Unless the product leaves the doubles: a subnormal component times 2^-600.)
            if (scaled.every((v, a) => v / exact === ray.direction[a])) {
              expect(hash.raycastAll(ray.origin, scaled, ray.maxDistance)).toEqual(base);
              const one = hash.raycast(ray.origin, ray.direction, ray.maxDistance);
              expect(hash.raycast(ray.origin, scaled, ray.maxDistance)).toEqual(one);
            }
            const other = ray.direction.map((v) => v * inexact);
            if (other.some((v) => v !== 0)) checkRay(hash, entries, scene, { ...ray, direction: other });
          },
        ),
        { seed: seeds[1], numRuns: 150 },
      );
    });

    it(`raycast and nearest stop at the right cell on dense scenes (seed ${seeds[6]})`, () => {
      // Many overlapping boxes: the first box met is often not the nearest hit,
      // and the k-th nearest is often found before a nearer one.
      const point = fc.array(coordinate, { minLength: dim, maxLength: dim });
      fc.assert(
        fc.property(
          sceneArbitrary(dim, 150),
          fc.array(fc.tuple(rayArbitrary(dim), point, fc.integer({ min: 1, max: 12 })), {
            minLength: 1,
            maxLength: 10,
          }),
          (scene, queries) => {
            const { hash, entries } = build(factory, scene);
            for (const [r, p, k] of queries) {
              const ray = resolveRay(scene, dim, r);
              const want = raycastAllOracle(entries, ray.origin, ray.direction, ray.maxDistance);
              expectNearestHit(hash.raycast(ray.origin, ray.direction, ray.maxDistance), want, ray.maxDistance);
              checkNearest(hash, entries, p, k, Number.POSITIVE_INFINITY);
            }
          },
        ),
        { seed: seeds[6], numRuns: 60 },
      );
    });

    it(`rays through cell corners (edges, vertices) hit boxes touching them only there (seed ${seeds[5]})`, () => {
      // Boxes with one corner on a cell corner the ray passes, one per quadrant
      // (octant), each inside a single cell: the cells beside the corner matter.
      const corner = fc.array(fc.integer({ min: -4, max: 4 }), { minLength: dim, maxLength: dim });
      const direction = fc
        .array(fc.integer({ min: -3, max: 3 }), { minLength: dim, maxLength: dim })
        .filter((d) => d.filter((v) => v !== 0).length >= 2);
      fc.assert(
        fc.property(
          fc.constantFrom(1, 0.5, 2),
          corner,
          direction,
          fc.constantFrom(0, 0.5, 1, 2.5),
          fc.constantFrom(0.25, 0.5),
          maxDistanceArbitrary,
          (cellSize, c, d, back, size, maxDistance) => {
            const point = c.map((v) => v * cellSize);
            const boxes: number[][] = [];
            for (let mask = 0; mask < 2 ** dim; mask++) {
              const lo = point.map((v, a) => ((mask >> a) & 1 ? v : v - size * cellSize));
              boxes.push([...lo, ...lo.map((v) => v + size * cellSize)]);
            }
            const scene: Scene = { cellSize, maxCellsPerItem: 256, boxes };
            const { hash, entries } = build(factory, scene);
            const origin = point.map((v, a) => v - back * d[a]);
            checkRay(hash, entries, scene, { origin, direction: d, maxDistance });
            // Every box touches the ray at the corner, so all are hit unless maxDistance stops short of it.
            const length = Math.hypot(...d) * back;
            if (maxDistance >= length) expect(hash.raycastAll(origin, d, maxDistance)).toHaveLength(2 ** dim);
          },
        ),
        { seed: seeds[5], numRuns: 200 },
      );
    });

    it(`nearest matches the oracle, ties compared by distance (seed ${seeds[2]})`, () => {
      const point = fc.oneof(
        fc.array(coordinate, { minLength: dim, maxLength: dim }),
        fc.array(fc.constantFrom(-1e7, 1e7, 0, 5e5), { minLength: dim, maxLength: dim }),
      );
      const k = fc.oneof(fc.constantFrom(0, 1, 2, 3), fc.integer({ min: 0, max: 40 }));
      fc.assert(
        fc.property(
          sceneArbitrary(dim),
          fc.array(fc.tuple(point, k, maxDistanceArbitrary), { minLength: 1, maxLength: 10 }),
          (scene, queries) => {
            const { hash, entries } = build(factory, scene);
            for (const [p, kk, maxDistance] of queries) {
              checkNearest(hash, entries, p, kk, maxDistance);
              checkNearest(hash, entries, p, scene.boxes.length + 3, maxDistance);
            }
          },
        ),
        { seed: seeds[2], numRuns: 250 },
      );
    });

    it(`forEachPair reports every intersecting pair once, overflow items included (seed ${seeds[3]})`, () => {
      fc.assert(
        fc.property(sceneArbitrary(dim, 40), fc.boolean(), (scene, query) => {
          const { hash, entries } = build(factory, scene);
          checkPairs(hash, entries, query);
        }),
        { seed: seeds[3], numRuns: 250 },
      );
    });

    it(`queries stay right while items come and go (seed ${seeds[4]})`, () => {
      const op = fc.oneof(
        fc.record({
          kind: fc.constant('insert' as const),
          item: fc.integer({ min: 0, max: 24 }),
          box: boxArbitrary(dim),
        }),
        fc.record({
          kind: fc.constant('update' as const),
          item: fc.integer({ min: 0, max: 24 }),
          box: boxArbitrary(dim),
        }),
        fc.record({ kind: fc.constant('remove' as const), item: fc.integer({ min: 0, max: 24 }) }),
        fc.record({ kind: fc.constant('clear' as const) }),
        fc.record({
          kind: fc.constant('check' as const),
          ray: rayArbitrary(dim),
          point: fc.array(coordinate, { minLength: dim, maxLength: dim }),
          k: fc.integer({ min: 0, max: 6 }),
        }),
      );
      fc.assert(
        fc.property(
          fc.constantFrom(1, 0.5, 3),
          fc.constantFrom(2, 256),
          fc.array(op, { maxLength: 40 }),
          (cellSize, maxCellsPerItem, ops) => {
            const hash = factory({ cellSize, maxCellsPerItem });
            const boxes = new Map<number, number[]>();
            for (const o of ops) {
              if (o.kind === 'insert' && !boxes.has(o.item)) {
                hash.insert(o.item, o.box);
                boxes.set(o.item, o.box);
              } else if (o.kind === 'update' && boxes.has(o.item)) {
                hash.update(o.item, o.box);
                boxes.set(o.item, o.box);
              } else if (o.kind === 'remove') {
                expect(hash.remove(o.item)).toBe(boxes.delete(o.item));
              } else if (o.kind === 'clear') {
                hash.clear();
                boxes.clear();
              } else if (o.kind === 'check') {
                const entries = [...boxes.entries()];
                const scene: Scene = { cellSize, maxCellsPerItem, boxes: [] };
                for (const [item, box] of entries) scene.boxes[item] = box;
                const ray = resolveRay({ ...scene, boxes: entries.map(([, b]) => b) }, dim, o.ray);
                checkRay(hash, entries, scene, ray);
                checkNearest(hash, entries, o.point, o.k, Number.POSITIVE_INFINITY);
                checkPairs(hash, entries);
              }
            }
            hash.validate();
          },
        ),
        { seed: seeds[4], numRuns: 150 },
      );
    });
  });
}
