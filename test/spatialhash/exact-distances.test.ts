/**
 * PointHash2D/3D and SpatialHash2D/3D under the distance rule of decision 2
 * (src/core/distance.ts) at the extremes: queryRadius, nearest (every k,
 * with and without maxDistance) and PointHash's forEachPair against the exact
 * oracle (test/support/exact-distance.ts, BigInt where float64 is not the
 * rule), with coordinates up to ±MAX_VALUE, clusters whose gaps underflow
 * when squared, radii from 0 and 5e-324 to Infinity and at the edges of the
 * ordinary range, and points (and box corners) exactly on the boundary at
 * every scale. The command-sequence fuzz (test/fuzz/hash-extremes) covers
 * updates and removals at such numbers; this suite is the radius rule alone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkNearest,
  checkPairs,
  checkQueryRadius,
  KINDS,
  kindName,
  type Model,
  makeHash,
} from '../fuzz/hash-model.js';
import { BOUNDARY_TRIPLES, extremeCoordinates, extremeRadius } from '../support/extreme-numbers.js';
import { nextDown } from '../support/hash-properties.js';

const cellSizes = fc.oneof(
  fc.constantFrom(5e-324, 1e-300, 1e-150, 1, 0.3, 1e10, 1e150, 1e300, Number.MAX_VALUE),
  fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
);

/** Builds a hash of `kind` holding `boxes` (items 0, 1, ...) and the model of what it holds. */
function fill(kind: (typeof KINDS)[number], cellSize: number, boxes: number[][]) {
  const hash = makeHash(kind, { cellSize });
  const model: Model = new Map();
  boxes.forEach((box, item) => {
    const stored = kind.points ? [...box.slice(0, kind.dim), ...box.slice(0, kind.dim)] : box;
    hash.insert(item, stored);
    model.set(item, stored);
  });
  return { hash, model };
}

/** A box from two points: per axis the lower and the higher coordinate (a point when both are the same). */
function boxOf(a: readonly number[], b: readonly number[]): number[] {
  return [...a.map((v, i) => Math.min(v, b[i])), ...a.map((v, i) => Math.max(v, b[i]))];
}

describe.each(KINDS.map((kind) => [kindName(kind), kind] as const))(
  '%s by the distance rule at the extremes',
  (name, kind) => {
    const d = kind.dim;
    const seed = 3200 + (kind.points ? 10 : 0) + d;

    it(`queryRadius, nearest${kind.points ? ' and forEachPair' : ''} match the exact oracle (seed ${seed})`, () => {
      const scene = fc.record({
        flat: extremeCoordinates(d, fc.integer({ min: 0, max: 10 })),
        // For box hashes: how many points pair up into a box with the next one (the rest are point boxes).
        boxes: fc.nat(3),
        cellSize: cellSizes,
        radii: fc.array(extremeRadius(), { minLength: 1, maxLength: 3 }),
        queries: extremeCoordinates(d, fc.integer({ min: 0, max: 2 })),
      });
      fc.assert(
        fc.property(scene, (s) => {
          const points = Array.from({ length: s.flat.length / d }, (_, i) => s.flat.slice(i * d, i * d + d));
          const boxes = points.map((p, i) =>
            !kind.points && i < s.boxes && i + 1 < points.length ? boxOf(p, points[i + 1]) : boxOf(p, p),
          );
          const { hash, model } = fill(kind, s.cellSize, boxes);
          hash.validate();
          const queries = points.slice(0, 3);
          for (let k = 0; k + d <= s.queries.length; k += d) queries.push(s.queries.slice(k, k + d));
          for (const radius of s.radii) {
            for (const q of queries) {
              checkQueryRadius(hash, model, q, radius);
              for (const k of [1, 3, points.length + 1]) {
                checkNearest(hash, model, q, k, radius);
                checkNearest(hash, model, q, k, Number.POSITIVE_INFINITY);
              }
            }
            if (kind.points) checkPairs(hash, model, radius);
          }
        }),
        { seed: Number(process.env.SEED ?? seed), numRuns: Number(process.env.RUNS ?? 150) },
      );
    });

    it(`finds ${kind.points ? 'points' : 'box corners'} exactly on the boundary from 2^-1074 to 2^1018 (seed ${seed + 100})`, () => {
      const scene = fc.record({
        exponent: fc.oneof(
          fc.constantFrom(-1074, -1060, -600, -520, -460, -449, -448, -447, 0, 509, 511, 512, 513, 600, 1018),
          fc.integer({ min: -1074, max: 1018 }),
        ),
        centre: fc.array(fc.integer({ min: -4, max: 4 }), { minLength: d, maxLength: d }),
        signs: fc.array(fc.constantFrom(1, -1), { minLength: d, maxLength: d }),
        triple: fc.constantFrom(...BOUNDARY_TRIPLES[d]),
        cellSize: cellSizes,
      });
      fc.assert(
        fc.property(scene, (s) => {
          const unit = 2 ** s.exponent;
          const centre = s.centre.map((m) => m * unit);
          const corner = centre.map((c, a) => c + s.signs[a] * s.triple[a] * unit);
          // Item 0 is a point or a box whose nearest corner to the centre is `corner`; item 1 sits on the centre.
          const far = corner.map((c, a) => c + s.signs[a] * unit);
          const { hash, model } = fill(kind, s.cellSize, [
            boxOf(corner, kind.points ? corner : far),
            boxOf(centre, centre),
          ]);
          const radius = s.triple[d] * unit;
          // Pinned without the oracle: on the boundary at the radius, outside one ulp below it.
          expect(hash.queryRadius(centre, radius)).toContain(0);
          expect(hash.queryRadius(centre, nextDown(radius))).not.toContain(0);
          expect(hash.nearest(centre, 2, radius)).toContain(0);
          expect(hash.nearest(centre, 2, nextDown(radius))).not.toContain(0);
          if (kind.points) {
            expect(hash.pairs(radius)).toHaveLength(1);
            expect(hash.pairs(nextDown(radius))).toHaveLength(0);
          }
          for (const r of [radius, nextDown(radius)]) {
            checkQueryRadius(hash, model, centre, r);
            checkNearest(hash, model, centre, 2, r);
            if (kind.points) checkPairs(hash, model, r);
          }
        }),
        { seed: Number(process.env.SEED ?? seed + 100), numRuns: Number(process.env.RUNS ?? 150) },
      );
    });

    it(`${name}: the examples of decision 2`, () => {
      const at = (...xs: number[]) => xs.concat([0, 0]).slice(0, d);
      const far = fill(kind, 1, [boxOf(at(0), at(0)), boxOf(at(1e306), at(1e306))]).hash;
      expect(far.queryRadius(at(0), 1e300)).toEqual([0]);
      expect(far.nearest(at(0), 2, 1e300)).toEqual([0]);
      const near = fill(kind, 1e-200, [boxOf(at(0), at(0)), boxOf(at(1e-200), at(1e-200))]).hash;
      expect(near.queryRadius(at(0), 0)).toEqual([0]);
      expect(near.nearest(at(0), 2, 0)).toEqual([0]);
      if (kind.points) {
        expect(far.pairs(1e300)).toEqual([]);
        expect(near.pairs(0)).toEqual([]);
        expect(near.pairs(1e-200)).toHaveLength(1);
      }
    });
  },
);
