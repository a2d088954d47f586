/**
 * SpatialHash2D/3D's radius queries for extreme radii: a radius whose square
 * overflows or is below 2^-896 (see core/distance.ts and isOrdinaryRadius
 * there). queryRadius hands such a call here once, at its start, and keeps
 * its float64 loop for every other radius; nearest() settles its extremes
 * through exact-nearest.ts with the {@link boxSource} of this file. Written
 * once for both dimensions, plain on purpose: the items filed in the cells
 * around the query for a tiny radius, every item for a huge one, each tested
 * with the scaled test. Their speed matters little.
 *
 * @module
 */
import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import {
  bandScale,
  extremeScale,
  HUGE_SCALE,
  ORDINARY_BAND,
  scaledGap,
  scaledLimit,
  squareBand,
} from '../core/distance.js';
import { radiusPad, type SpatialHashBase } from './base.js';
import { SLOT } from './cell-runs.js';
import type { ExactSource } from './exact-nearest.js';

const NONE = -1;

/**
 * Squared distance from q to the box of handle h (the gap on each axis, 0
 * inside), every length scaled by `scale` (see core/distance.ts's scaledGap):
 * the box hashes' distance test, scaled.
 */
function scaledBoxDistance<T>(hash: SpatialHashBase<T>, h: number, q: ArrayLike<number>, scale: number): number {
  const boxes = hash.boxes;
  const dim = hash.dim;
  const b = h * hash.boxStride;
  let sum = 0;
  for (let a = 0; a < dim; a++) {
    const lo = boxes[b + a];
    const hi = boxes[b + dim + a];
    const gap = lo > q[a] ? scaledGap(lo, q[a], scale) : q[a] > hi ? scaledGap(q[a], hi, scale) : 0;
    sum = a === 0 ? gap * gap : sum + gap * gap;
  }
  return sum;
}

/**
 * The live handles whose box may lie within `radius` of q, each once: for a
 * radius whose square is not huge, those filed in the cells of the padded
 * range around q (looked up one by one, or found among the occupied cells
 * when the range spans more) and the overflow items; otherwise every live
 * handle.
 */
function handlesNear<T>(hash: SpatialHashBase<T>, q: ArrayLike<number>, radius: number): number[] {
  const found: number[] = [];
  if (radius * radius > Number.MAX_VALUE) {
    for (let h = 0; h < hash.handleLimit; h++) if (hash.alive[h] === 1) found.push(h);
    return found;
  }
  const dim = hash.dim;
  const cells = hash.cells;
  const seen = new Set<number>();
  const collect = (id: number) => {
    for (let slot = hash.cellStart[id], end = slot + hash.cellEntryCount[id]; slot < end; slot++) {
      const h = hash.slotInfo[slot * SLOT];
      if (!seen.has(h)) {
        seen.add(h);
        found.push(h);
      }
    }
  };
  let magnitude = 0;
  for (let a = 0; a < dim; a++) magnitude += Math.abs(q[a]);
  const pad = radiusPad(radius, magnitude);
  const lo: number[] = [];
  const hi: number[] = [];
  let count = 1;
  for (let a = 0; a < dim; a++) {
    lo[a] = Math.max(hash.cellOf(q[a] - pad), -MAX_CELL_INDEX);
    hi[a] = Math.min(hash.cellOf(q[a] + pad), MAX_CELL_INDEX);
    count *= Math.max(hi[a] - lo[a] + 1, 0);
  }
  if (count > cells.size) {
    const keys = cells.keys;
    for (let id = 0; id < cells.idLimit; id++) {
      if (hash.cellEntryCount[id] === 0) continue;
      let inside = true;
      for (let a = 0; a < dim; a++) {
        const key = keys[id * dim + a];
        if (key < lo[a] || key > hi[a]) inside = false;
      }
      if (inside) collect(id);
    }
  } else if (count > 0) {
    const top = dim === 3 ? hi[2] : 0;
    for (let kz = dim === 3 ? lo[2] : 0; kz <= top; kz++) {
      for (let ky = lo[1]; ky <= hi[1]; ky++) {
        for (let kx = lo[0]; kx <= hi[0]; kx++) {
          const id = dim === 2 ? cells.find2(kx, ky) : cells.find3(kx, ky, kz);
          if (id !== NONE) collect(id);
        }
      }
    }
  }
  for (let i = 0; i < hash.overflowCount; i++) found.push(hash.overflow[i]);
  return found;
}

/**
 * queryRadius for an extreme radius: writes the items whose box is within it
 * and that pass mask `m` into `out` from its start and returns their count.
 */
export function radiusExtreme<T>(
  hash: SpatialHashBase<T>,
  q: ArrayLike<number>,
  radius: number,
  m: number,
  out: T[],
): number {
  // As every box or radius query: none inside a predicate or a forEachOverlap visitor.
  hash.nextStamp();
  const scale = extremeScale(radius);
  const limit = scaledLimit(radius, scale);
  let found = 0;
  for (const h of handlesNear(hash, q, radius)) {
    if ((hash.categories[h] & m) === 0) continue;
    if (scaledBoxDistance(hash, h, q, scale) <= limit) out[found++] = hash.items[h] as T;
  }
  return found;
}

/**
 * Whether live handle h's box lies within `radius` of q under the rule, for
 * a radius whose square overflows (see pointhash/extreme.ts's withinHuge).
 */
export function withinHuge<T>(hash: SpatialHashBase<T>, h: number, q: ArrayLike<number>, radius: number): boolean {
  return scaledBoxDistance(hash, h, q, HUGE_SCALE) <= scaledLimit(radius, HUGE_SCALE);
}

/**
 * The {@link ExactSource} of a nearest query at q over `hash`, mask `m`,
 * with `ask` for the predicate's (remembered) verdicts.
 */
export function boxSource<T>(
  hash: SpatialHashBase<T>,
  q: ArrayLike<number>,
  m: number,
  ask: (h: number) => boolean,
): ExactSource {
  return {
    key(h, key) {
      const d2 = scaledBoxDistance(hash, h, q, 1);
      const band = squareBand(d2);
      key[0] = band;
      key[1] = band === ORDINARY_BAND ? d2 : scaledBoxDistance(hash, h, q, bandScale(band));
    },
    masked: (h) => (hash.categories[h] & m) !== 0,
    candidates: (radius) => handlesNear(hash, q, radius),
    ask,
  };
}
