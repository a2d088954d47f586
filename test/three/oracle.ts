/**
 * weldGeometry's rule, literally, in O(n^2): vertices in order; vertex i joins
 * the nearest earlier representative (by position, ties: lowest number) whose
 * position is within the tolerance and whose every compared channel is within
 * its own tolerance (Euclidean over its components, exact equality at 0);
 * else it founds a representative. Values are the float64 numbers the shader
 * sees (float32 widened, normalized integers divided).
 *
 * @module
 */

/** One compared attribute or morph target: per-vertex values and its tolerance. */
export interface OracleChannel {
  values: readonly (readonly number[])[];
  tolerance: number;
}

export interface OracleWeld {
  remap: number[];
  representatives: number[];
}

function within(p: readonly number[], q: readonly number[], tolerance: number): { ok: boolean; d2: number } {
  if (tolerance === 0) return { ok: p.every((v, k) => v === q[k]), d2: 0 };
  let d2 = 0;
  for (let k = 0; k < p.length; k++) {
    const d = p[k] - q[k];
    d2 += d * d;
  }
  return { ok: d2 <= tolerance * tolerance, d2 };
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
    let bestDistance2 = Number.POSITIVE_INFINITY;
    for (let r = 0; r < representatives.length; r++) {
      const founder = representatives[r];
      const { ok, d2 } = within(positions[i], positions[founder], tolerance);
      if (!ok) continue;
      if (!channels.every((c) => within(c.values[i], c.values[founder], c.tolerance).ok)) continue;
      // Strict: an equal distance keeps the lower representative number.
      if (best < 0 || d2 < bestDistance2) {
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
