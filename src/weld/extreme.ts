/**
 * Welding at extreme tolerances, by the distance rule of core/distance.ts
 * (float64 as if its exponent range were unbounded). near.ts's hot loops
 * decide by the plain float64 test, which is the rule for a tolerance from
 * {@link LOWEST_HOT_TOLERANCE} up to the largest whose square is finite; the
 * rest comes here, once per call:
 *
 * - A tolerance whose square overflows: the coordinates are multiplied by
 *   HUGE_SCALE (2^-700, exact unless a coordinate is below about 1e-97, where
 *   what is lost is negligible against the scaled tolerance, at least
 *   2^-188) and welded by near.ts at the scaled tolerance, which is ordinary:
 *   the same tests and the same choices as the rule's on the input.
 * - A tolerance below LOWEST_HOT_TOLERANCE (0 excluded: exact.ts): a plain
 *   grid of representatives keyed by cell in a Map, candidates in the cells
 *   within reach, each tested and ranked with the scaled test (TINY_SCALE).
 *   Slow next to near.ts (a string key per lookup), and plain on purpose.
 *
 * @module
 */
import { HUGE_SCALE, scaledGap, scaledLimit, TINY_SCALE } from '../core/distance.js';
import { gridParameters } from '../core/weld-cells.js';
import { type AcceptRepresentative, weldNear2, weldNear3 } from './near.js';

/**
 * The smallest tolerance near.ts welds with: 2^-440 (about 3.5e-133). From
 * there on the float64 test is the rule (the squared tolerance is at least
 * 2^-880, in the ordinary range of core/distance.ts), and so is the choice of
 * the nearest representative: representatives are pairwise farther apart than
 * the tolerance, so at most one lies within 2^-448 of a vertex, where float64
 * squared distances may be off (below 2^-896); every other candidate's
 * squared distance is ordinary and exact, and greater.
 */
export const LOWEST_HOT_TOLERANCE = 2 ** -440;

/**
 * Welds with a tolerance whose square overflows: near.ts on the coordinates
 * scaled by HUGE_SCALE (see the module notes). `repCoords` gets the
 * representatives' own coordinates, unscaled.
 *
 * @returns the number of representatives.
 */
export function weldHuge(
  coords: Float32Array | Float64Array,
  min: Float64Array,
  max: Float64Array,
  dimension: 2 | 3,
  tolerance: number,
  remap: Uint32Array,
  representatives: Uint32Array,
  repCoords: Float64Array,
  accept: AcceptRepresentative | undefined,
): number {
  const scaled = new Float64Array(coords.length);
  for (let k = 0; k < coords.length; k++) scaled[k] = coords[k] * HUGE_SCALE;
  const low = min.map((v) => v * HUGE_SCALE);
  const high = max.map((v) => v * HUGE_SCALE);
  const weldNear = dimension === 3 ? weldNear3 : weldNear2;
  const count = weldNear(scaled, low, high, tolerance * HUGE_SCALE, remap, representatives, repCoords, accept);
  for (let r = 0; r < count; r++) {
    // + 0: welded positions never hold -0 (see weldNear3).
    for (let a = 0; a < dimension; a++) repCoords[r * dimension + a] = coords[representatives[r] * dimension + a] + 0;
  }
  return count;
}

/**
 * Welds with a tolerance above 0 and below {@link LOWEST_HOT_TOLERANCE}, by
 * the definition (see weld): each vertex in order joins the nearest
 * representative within the tolerance that `accept` takes (ties: the lowest
 * numbered), or founds one. Candidates come from the cells within reach of a
 * grid with cells of near.ts's shape (gridParameters: cell coordinates exact
 * and monotone in the coordinate, so no representative within reach is
 * missed); `accept` is asked nearest first, until one passes.
 *
 * @returns the number of representatives.
 */
export function weldTiny(
  coords: Float32Array | Float64Array,
  min: Float64Array,
  max: Float64Array,
  dimension: 2 | 3,
  tolerance: number,
  remap: Uint32Array,
  representatives: Uint32Array,
  repCoords: Float64Array,
  accept: AcceptRepresentative | undefined,
): number {
  const grid = gridParameters(min, max, tolerance);
  const reach = grid[0];
  const inv = grid[1];
  const limit = scaledLimit(tolerance, TINY_SCALE);
  const n = coords.length / dimension;
  const cells = new Map<string, number[]>();
  const cellOf = (v: number, axis: number) => Math.floor((v * 0.5 - grid[2 + axis]) * inv);
  const low = [0, 0, 0];
  const high = [0, 0, 0];
  const at = [0, 0, 0];
  let count = 0;
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) {
      const v = a < dimension ? coords[i * dimension + a] : 0;
      low[a] = a < dimension ? cellOf(v - reach, a) : 0;
      high[a] = a < dimension ? cellOf(v + reach, a) : 0;
    }
    const found: { r: number; d2: number }[] = [];
    for (at[2] = low[2]; at[2] <= high[2]; at[2]++) {
      for (at[1] = low[1]; at[1] <= high[1]; at[1]++) {
        for (at[0] = low[0]; at[0] <= high[0]; at[0]++) {
          for (const r of cells.get(at.slice(0, dimension).join()) ?? []) {
            let d2 = 0;
            for (let a = 0; a < dimension; a++) {
              const d = scaledGap(repCoords[r * dimension + a], coords[i * dimension + a], TINY_SCALE);
              d2 = a === 0 ? d * d : d2 + d * d;
            }
            if (d2 <= limit) found.push({ r, d2 });
          }
        }
      }
    }
    // The scaled squared distances are exact (core/distance.ts): nearest first, ties by representative number.
    found.sort((p, q) => p.d2 - q.d2 || p.r - q.r);
    let best = -1;
    for (const { r } of found) {
      if (accept === undefined || accept(i, representatives[r])) {
        best = r;
        break;
      }
    }
    if (best < 0) {
      best = count++;
      representatives[best] = i;
      const key: number[] = [];
      for (let a = 0; a < dimension; a++) {
        const v = coords[i * dimension + a];
        repCoords[best * dimension + a] = v + 0;
        key.push(cellOf(v, a));
      }
      const own = key.join();
      const list = cells.get(own);
      if (list === undefined) cells.set(own, [best]);
      else list.push(best);
    }
    remap[i] = best;
  }
  return count;
}
