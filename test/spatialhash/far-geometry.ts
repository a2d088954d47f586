/**
 * Scenes for the nearest-cost and extreme-number tests of both hashes: a few
 * clusters of boxes or points placed anywhere a double reaches (next to the
 * origin, millions of cells apart, past 2^52 cells, near the largest double),
 * cell sizes from subnormal to near the largest double, and queries near a
 * cluster, between them or far outside, with k and maxDistance around what
 * the scene holds. Drawn by fast-check, so a failure shrinks and prints its seed.
 *
 * @module
 */

import fc from 'fast-check';
import { boxWithinRule, dyadicKey, ruleBoxSquareFast, smallestKeys } from '../support/exact-distance.js';

/** Cell sizes: ordinary, tiny, subnormal and huge. */
export const EXTREME_CELL_SIZES = [
  1,
  0.1,
  7,
  1e-3,
  1e6,
  2 ** -20,
  1e-300,
  5e-324,
  1e300,
  Number.MAX_VALUE / 4,
  Number.MAX_VALUE / 1.5,
  Number.MAX_VALUE,
];

/** Per-axis places for a cluster: the origin, far (in cells or in absolute terms) and near the float limit. */
const PLACES = [
  0,
  3,
  -3,
  1e3,
  -1e4,
  1e8,
  -5e8,
  2 ** 53,
  -(2 ** 60),
  1e15,
  1e300,
  -1e306,
  Number.MAX_VALUE / 2,
  -Number.MAX_VALUE,
];

/** One item of a scene: a point (min = max) or a box, `dim` mins then `dim` maxes. */
export type SceneBox = number[];

export interface Scene {
  dim: 2 | 3;
  cellSize: number;
  /** Boxes (points have min = max); a point hash stores the mins. */
  boxes: SceneBox[];
  /** Items inserted and then removed again before the query (they leave empty cells behind). */
  removed: boolean[];
  query: number[];
  k: number;
  maxDistance: number;
}

/** A coordinate near `place`, within a few cells (or a few units) of it, clamped to the finite range. */
function near(place: number, offset: number, cellSize: number, scale: number): number {
  const step = offset * (scale === 0 ? cellSize : scale);
  const v = place + step;
  return Number.isFinite(v) ? v : place;
}

/** Scenes of `dim` dimensions; `points` makes every item a point. */
export function sceneArb(dim: 2 | 3, points: boolean): fc.Arbitrary<Scene> {
  const axis = fc.constantFrom(...PLACES);
  const cluster = fc.array(axis, { minLength: dim, maxLength: dim });
  const offset = fc.integer({ min: -6, max: 6 }).map((i) => i / 2);
  const item = fc.record({
    cluster: fc.nat(),
    offsets: fc.array(offset, { minLength: dim, maxLength: dim }),
    size: fc.array(fc.constantFrom(0, 0, 0.5, 1, 3), { minLength: dim, maxLength: dim }),
    scale: fc.constantFrom(0, 0, 1, 1e-6),
    removed: fc.boolean(),
  });
  return fc
    .record({
      cellSize: fc.constantFrom(...EXTREME_CELL_SIZES),
      clusters: fc.array(cluster, { minLength: 1, maxLength: 3 }),
      items: fc.array(item, { minLength: 1, maxLength: 24 }),
      queryCluster: fc.nat(),
      queryOffsets: fc.array(fc.integer({ min: -40, max: 40 }), { minLength: dim, maxLength: dim }),
      queryAt: fc.constantFrom('cluster', 'cluster', 'origin', 'between'),
      k: fc.constantFrom(0, 1, 1, 2, 3, 5, 100),
      maxDistance: fc.constantFrom('infinite', 'infinite', 'zero', 'cell', 'item', 'huge'),
      maxItem: fc.nat(),
    })
    .map((r): Scene => {
      const cs = r.cellSize;
      const boxes: SceneBox[] = r.items.map((it) => {
        const c = r.clusters[it.cluster % r.clusters.length];
        const min = c.map((place, a) => near(place, it.offsets[a], cs, it.scale));
        const max = points
          ? min.slice()
          : min.map((v, a) => {
              const w = v + it.size[a] * (it.scale === 0 ? cs : it.scale);
              return Number.isFinite(w) ? w : v;
            });
        return [...min, ...max];
      });
      const home = r.clusters[r.queryCluster % r.clusters.length];
      const other = r.clusters[(r.queryCluster + 1) % r.clusters.length];
      const query = home.map((place, a) => {
        if (r.queryAt === 'origin') return r.queryOffsets[a] / 4;
        if (r.queryAt === 'between') {
          const mid = place / 2 + other[a] / 2;
          return Number.isFinite(mid) ? mid : 0;
        }
        return near(place, r.queryOffsets[a] / 4, cs, 0);
      });
      let maxDistance = Number.POSITIVE_INFINITY;
      if (r.maxDistance === 'zero') maxDistance = 0;
      else if (r.maxDistance === 'cell') maxDistance = cs;
      else if (r.maxDistance === 'huge') maxDistance = 1e300;
      else if (r.maxDistance === 'item') {
        const d2 = boxDistance2(boxes[r.maxItem % boxes.length], query);
        maxDistance = Math.sqrt(d2);
      }
      const removed = r.items.map((it) => it.removed);
      return { dim, cellSize: cs, boxes, removed, query, k: r.k, maxDistance };
    });
}

/** The library's squared distance from a point to a closed box: per axis max(min - p, 0, p - max), summed left to right. */
export function boxDistance2(box: readonly number[], p: readonly number[]): number {
  const dim = p.length;
  let sum = 0;
  for (let a = 0; a < dim; a++) {
    const d = box[a] > p[a] ? box[a] - p[a] : p[a] > box[a + dim] ? p[a] - box[a + dim] : 0;
    sum += d * d;
  }
  return sum;
}

/**
 * The squared distances a nearest() answer must have, ascending: the k
 * smallest of every item still stored within maxDistance (ties may pick any
 * of the items at the same distance, so answers are compared by distance),
 * under the distance rule (as dyadicKey strings, see exact-distance.ts).
 */
export function expectedNearestDistances(scene: Scene): string[] {
  return smallestKeys(
    scene.boxes
      .filter((b, i) => !scene.removed[i] && boxWithinRule(b, scene.query, scene.maxDistance))
      .map((b) => ruleBoxSquareFast(b, scene.query)),
    scene.k,
  );
}

/** The rule's squared distances of a nearest() answer (indices into scene.boxes), as dyadicKey strings. */
export function answerDistances(scene: Scene, got: readonly number[]): string[] {
  return got.map((i) => dyadicKey(ruleBoxSquareFast(scene.boxes[i], scene.query)));
}
