import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bandScale,
  compareBanded,
  extremeScale,
  isOrdinaryRadius,
  keptNeedExactOrder,
  scaledDistance2,
  scaledDistance3,
  scaledLimit,
  squareBand,
} from '../../src/core/distance.js';
import {
  compareDyadic,
  dyadic,
  exactSquare,
  exactSub,
  round53,
  ruleRadiusSquare,
  ruleSquare,
  ruleWithin,
} from '../support/exact-distance.js';
import { anyMagnitude, EDGE_RADII, extremeCoordinates, extremeRadius } from '../support/extreme-numbers.js';

const runs = { seed: 31, numRuns: 3000 };

/** The float64 test the hot loops run. */
function floatWithin(p: readonly number[], q: readonly number[], radius: number): boolean {
  let sum = 0;
  for (let i = 0; i < p.length; i++) {
    const d = p[i] - q[i];
    sum = i === 0 ? d * d : sum + d * d;
  }
  return sum <= radius * radius;
}

/** The cold test: scaled by the radius's scale. */
function scaledWithin(p: readonly number[], q: readonly number[], radius: number): boolean {
  const s = extremeScale(radius);
  const d2 =
    p.length === 2
      ? scaledDistance2(p[0], p[1], q[0], q[1], s)
      : scaledDistance3(p[0], p[1], p[2], q[0], q[1], q[2], s);
  return d2 <= scaledLimit(radius, s);
}

/** What a structure answers: the float test for ordinary radii, the scaled one otherwise. */
function libraryWithin(p: readonly number[], q: readonly number[], radius: number): boolean {
  return isOrdinaryRadius(radius) ? floatWithin(p, q, radius) : scaledWithin(p, q, radius);
}

function pairArb(dimension: number) {
  return extremeCoordinates(dimension, fc.constant(2)).map((c) => [c.slice(0, dimension), c.slice(dimension)]);
}

describe('the exact oracle', () => {
  it('reads doubles exactly and rounds as float64 does where float64 does not overflow or underflow', () => {
    fc.assert(
      fc.property(anyMagnitude(), anyMagnitude(), (a, b) => {
        const difference = a - b;
        if (Number.isFinite(difference)) {
          const rounded = round53(exactSub(dyadic(a), dyadic(b)));
          expect(compareDyadic(rounded, dyadic(difference))).toBe(0);
        }
        const product = a * b;
        if (Number.isFinite(product) && Math.abs(product) >= 2 ** -1022) {
          const rounded = round53({ n: dyadic(a).n * dyadic(b).n, e: dyadic(a).e + dyadic(b).e });
          expect(compareDyadic(rounded, dyadic(product))).toBe(0);
        }
      }),
      runs,
    );
  });
});

describe.each([2, 3])('the distance rule in %dD', (dimension) => {
  it('ordinary radii: the plain float64 test is the rule', () => {
    fc.assert(
      fc.property(pairArb(dimension), extremeRadius(), ([p, q], radius) => {
        fc.pre(isOrdinaryRadius(radius));
        expect(floatWithin(p, q, radius)).toBe(ruleWithin(p, q, radius));
      }),
      runs,
    );
  });

  it('extreme radii: the scaled test is the rule', () => {
    fc.assert(
      fc.property(pairArb(dimension), extremeRadius(), ([p, q], radius) => {
        fc.pre(!isOrdinaryRadius(radius));
        expect(scaledWithin(p, q, radius)).toBe(ruleWithin(p, q, radius));
      }),
      runs,
    );
  });

  it('what a structure answers (float or scaled by the radius) is the rule at every radius', () => {
    fc.assert(
      fc.property(pairArb(dimension), extremeRadius(), ([p, q], radius) => {
        expect(libraryWithin(p, q, radius)).toBe(ruleWithin(p, q, radius));
      }),
      runs,
    );
  });

  it('near the sphere: distances within a few ulps of the radius, with subnormal and tiny terms', () => {
    const radius = fc.oneof(
      fc.constantFrom(
        2 ** -448,
        2 ** -440,
        1e-135,
        1e-120,
        1e-200,
        1e-300,
        5e-324,
        1e150,
        1e154,
        1e200,
        Number.MAX_VALUE,
      ),
      extremeRadius().filter((r) => r > 0 && r < Number.POSITIVE_INFINITY),
    );
    fc.assert(
      fc.property(
        radius,
        fc.double({ min: 0, max: Math.PI / 2, noNaN: true }),
        fc.double({ min: 0, max: Math.PI / 2, noNaN: true }),
        fc.integer({ min: -4, max: 4 }),
        fc.constantFrom(0, 5e-324, 1e-310, 2 ** -1022, 1e-300, 1e-160),
        fc.constantFrom(0, 1, -1e300, 1e-300, 7),
        (r, a, b, ulps, tiny, centre) => {
          const scale = 1 + ulps * 2 ** -52;
          const dirs =
            dimension === 2
              ? [Math.cos(a), Math.sin(a)]
              : [Math.cos(a) * Math.cos(b), Math.sin(a) * Math.cos(b), Math.sin(b)];
          const q = dirs.map(() => centre);
          const p = dirs.map((d, i) => (i === dirs.length - 1 ? centre + tiny : centre + r * d * scale));
          if (!p.every(Number.isFinite)) return;
          expect(libraryWithin(p, q, r)).toBe(ruleWithin(p, q, r));
          const swapped = [...p].reverse();
          expect(libraryWithin(swapped, q, r)).toBe(ruleWithin(swapped, q, r));
        },
      ),
      runs,
    );
  });

  it('the rule is the mathematical answer up to rounding', () => {
    fc.assert(
      fc.property(pairArb(dimension), extremeRadius(), ([p, q], radius) => {
        fc.pre(radius !== Number.POSITIVE_INFINITY);
        const exact = exactSquare(p, q);
        const r = dyadic(radius);
        const r2 = { n: r.n * r.n, e: 2 * r.e };
        const mathematical = compareDyadic(exact, r2) <= 0;
        if (mathematical !== ruleWithin(p, q, radius)) {
          // Only where the distance is the radius to within a few roundings: |d2 - r2| <= 2^-50 r2.
          const gap = exact.n === 0n ? r2 : exactSub(exact, r2);
          const scaledGap = { n: (gap.n < 0n ? -gap.n : gap.n) << 50n, e: gap.e };
          expect(compareDyadic(scaledGap, r2)).toBeLessThanOrEqual(0);
        }
      }),
      runs,
    );
  });

  it('bands order squared distances exactly, as the rule does', () => {
    fc.assert(
      fc.property(extremeCoordinates(dimension, fc.constant(3)), (c) => {
        const q = c.slice(0, dimension);
        const a = c.slice(dimension, 2 * dimension);
        const b = c.slice(2 * dimension);
        const key = (p: number[]) => {
          const d2 =
            dimension === 2
              ? scaledDistance2(p[0], p[1], q[0], q[1], 1)
              : scaledDistance3(p[0], p[1], p[2], q[0], q[1], q[2], 1);
          const band = squareBand(d2);
          const s = bandScale(band);
          const value =
            dimension === 2
              ? scaledDistance2(p[0], p[1], q[0], q[1], s)
              : scaledDistance3(p[0], p[1], p[2], q[0], q[1], q[2], s);
          return [band, value] as const;
        };
        const [bandA, valueA] = key(a);
        const [bandB, valueB] = key(b);
        expect(Math.sign(compareBanded(bandA, valueA, bandB, valueB))).toBe(
          compareDyadic(ruleSquare(a, q), ruleSquare(b, q)),
        );
      }),
      runs,
    );
  });
});

describe('examples of issue 31 and decision 2', () => {
  it('points at 0 and 1e306 are not both within 1e300 of the origin', () => {
    expect(libraryWithin([1e306, 0], [0, 0], 1e300)).toBe(false);
    expect(libraryWithin([1e306, 0], [0, 0], 1e307)).toBe(true);
    expect(floatWithin([1e306, 0], [0, 0], 1e300)).toBe(true); // what the float64 test said
  });

  it('two points 1e-200 apart are not within radius 0, and equal ones are', () => {
    expect(libraryWithin([1e-200, 0, 0], [0, 0, 0], 0)).toBe(false);
    expect(libraryWithin([5e-324, 0], [0, 0], 0)).toBe(false);
    expect(libraryWithin([1e-200, 3], [1e-200, 3], 0)).toBe(true);
    expect(libraryWithin([1e-200, 0], [0, 0], 1e-200)).toBe(true);
    expect(libraryWithin([2e-200, 0], [0, 0], 1e-200)).toBe(false);
    expect(floatWithin([1e-200, 0], [0, 0], 0)).toBe(true); // what the float64 test said
  });

  it('coordinates farther apart than MAX_VALUE are within Infinity only', () => {
    expect(libraryWithin([-Number.MAX_VALUE, 0], [Number.MAX_VALUE, 0], Number.MAX_VALUE)).toBe(false);
    expect(libraryWithin([-Number.MAX_VALUE, 0], [Number.MAX_VALUE, 0], Number.POSITIVE_INFINITY)).toBe(true);
    expect(libraryWithin([-1e308, 0], [1e308, 0], 1.5e308)).toBe(false);
    expect(ruleWithin([-1e308, 0], [1e308, 0], 1.5e308)).toBe(false);
  });

  it('isOrdinaryRadius: from 2^-448 to the largest radius whose square is finite', () => {
    const ordinary = EDGE_RADII.filter(isOrdinaryRadius);
    expect(ordinary).toEqual([2 ** -448, 1e-100, 1, 1e100, 1e154, 1.3407807929942596e154]);
    expect(isOrdinaryRadius(Number.NaN)).toBe(false);
    expect(ruleRadiusSquare(2 ** -448).e).toBe(-896 - 52);
  });
});

describe('keptNeedExactOrder: when a nearest search settles its kept entries exactly', () => {
  it('keeps one tiny entry (a query at a point: 0) on the fast path, settles two, one alone in a heap of one, or an overflow', () => {
    const tiny = 2 ** -1000;
    // Heap of 3, full: one 0 among ordinary entries stands (every other tiny candidate would have entered).
    expect(keptNeedExactOrder([2, 0, 1], 3, 3)).toBe(false);
    expect(keptNeedExactOrder([0], 1, 3)).toBe(false);
    expect(keptNeedExactOrder([2, 1, 0.5], 3, 3)).toBe(false);
    // Two tiny ones may tie or misorder in float64.
    expect(keptNeedExactOrder([2, 0, tiny], 3, 3)).toBe(true);
    expect(keptNeedExactOrder([0, 0], 2, 3)).toBe(true);
    // k = 1 holding a tiny one: another tiny candidate may be nearer under the rule.
    expect(keptNeedExactOrder([0], 1, 1)).toBe(true);
    // An overflowed square is settled wherever it sits.
    expect(keptNeedExactOrder([Number.POSITIVE_INFINITY, 1], 2, 2)).toBe(true);
    expect(keptNeedExactOrder([Number.POSITIVE_INFINITY], 1, 4)).toBe(true);
  });
});
