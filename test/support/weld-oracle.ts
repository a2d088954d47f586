/**
 * The brute-force definition of weld, shared by its tests and the fuzz
 * suite: vertices in index order, each joins the nearest earlier
 * representative within tolerance (ties: the lowest representative number)
 * or founds a new one, by the library's distance rule (float64 as if its
 * exponent range were unbounded, decided by exact-distance.ts).
 *
 * @module
 */

import { expect } from 'vitest';
import type { weld } from '../../src/index.js';
import { compareDyadic, type Dyadic, ruleSquareFast, withinRule } from './exact-distance.js';

type Point = number[];

/** What weld returns, as plain arrays. */
export interface Expected {
  remap: number[];
  representatives: number[];
  count: number;
}

/** The definition, literally. Points are the float64 values the library sees (Float32 input widened). */
export function oracle(points: readonly Point[], tolerance: number): Expected {
  const remap: number[] = [];
  const representatives: number[] = [];
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    let best = -1;
    let bestDistance2: Dyadic | undefined;
    for (let c = 0; c < representatives.length; c++) {
      const q = points[representatives[c]];
      if (!withinRule(q, p, tolerance)) continue;
      const d2 = ruleSquareFast(q, p);
      // Strict: an equal distance keeps the lower representative number.
      if (best < 0 || compareDyadic(d2, bestDistance2 as Dyadic) < 0) {
        best = c;
        bestDistance2 = d2;
      }
    }
    if (best < 0) {
      best = representatives.length;
      representatives.push(i);
    }
    remap.push(best);
  }
  return { remap, representatives, count: representatives.length };
}

/** Expects weld's result to be the oracle's. */
export function expectMatches(actual: ReturnType<typeof weld>, expected: Expected): void {
  expect(actual.count).toBe(expected.count);
  expect(Array.from(actual.remap)).toEqual(expected.remap);
  expect(Array.from(actual.representatives)).toEqual(expected.representatives);
}
