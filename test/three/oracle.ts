/**
 * weldGeometry's rule, literally, in O(n^2): vertices in order; vertex i joins
 * the nearest earlier representative (by position, ties: lowest number) whose
 * position is within the tolerance and whose every compared channel is within
 * its own tolerance (Euclidean over its components, exact equality at 0);
 * else it founds a representative. Values are the float64 numbers the shader
 * sees (float32 widened, normalized integers divided). Distances follow the
 * library's rule (float64 as if its exponent range were unbounded, decided
 * by test/support/exact-distance.ts).
 *
 * @module
 */

import { compareDyadic, type Dyadic, ruleSquareFast, withinRule } from '../support/exact-distance.js';

/** One compared attribute or morph target: per-vertex values and its tolerance. */
export interface OracleChannel {
  values: readonly (readonly number[])[];
  tolerance: number;
}

export interface OracleWeld {
  remap: number[];
  representatives: number[];
}

function within(p: readonly number[], q: readonly number[], tolerance: number): { ok: boolean; d2?: Dyadic } {
  if (tolerance === 0) return { ok: p.every((v, k) => v === q[k]) };
  // A value that is not finite (NaN, Infinity) is within no tolerance of anything.
  if (!p.every(Number.isFinite) || !q.every(Number.isFinite)) return { ok: false };
  return { ok: withinRule(p, q, tolerance), d2: ruleSquareFast(p, q) };
}

export function oracleWeld(
  positions: readonly (readonly number[])[],
  tolerance: number,
  channels: readonly OracleChannel[],
): OracleWeld {
  const remap: number[] = [];
  const representatives: number[] = [];
  for (let i = 0; i < positions.length; i++) {
    let best = -1;
    let bestDistance2: Dyadic | undefined;
    for (let r = 0; r < representatives.length; r++) {
      const founder = representatives[r];
      const { ok, d2 } = within(positions[i], positions[founder], tolerance);
      if (!ok) continue;
      if (!channels.every((c) => within(c.values[i], c.values[founder], c.tolerance).ok)) continue;
      // Strict: an equal distance keeps the lower representative number.
      if (best < 0 || compareDyadic(d2 as Dyadic, bestDistance2 as Dyadic) < 0) {
        best = r;
        bestDistance2 = d2;
      }
    }
    if (best < 0) {
      best = representatives.length;
      representatives.push(i);
    }
    remap.push(best);
  }
  return { remap, representatives };
}

/** Whether two vertices' values of one channel are within its tolerance, by the rule oracleWeld applies. */
export function channelWithin(p: readonly number[], q: readonly number[], tolerance: number): boolean {
  return within(p, q, tolerance).ok;
}
