/**
 * fast-check generators of the numbers where float64 runs out, for the
 * distance rule's property tests: coordinates from 5e-324 to ±MAX_VALUE,
 * clusters whose differences are tiny (1e-200) or subnormal, mixes of huge
 * and tiny, and radii from 0 and 5e-324 to Infinity, including the edges of
 * the ordinary range (src/core/distance.ts).
 *
 * @module
 */
import fc from 'fast-check';

/** Radii at and around the edges of the ordinary range and beyond it. */
export const EDGE_RADII = [
  0,
  5e-324,
  1e-320,
  2 ** -1022,
  1e-300,
  1e-200,
  1e-162,
  1e-154,
  2 ** -448 * (1 - 2 ** -53),
  2 ** -448,
  1e-135,
  1e-100,
  1,
  1e100,
  1e154,
  1.3407807929942596e154,
  1.3407807929942597e154,
  1e200,
  1e300,
  1e306,
  Number.MAX_VALUE,
  Number.POSITIVE_INFINITY,
] as const;

/** A double of any magnitude from 5e-324 to MAX_VALUE, either sign, or 0. */
export function anyMagnitude(): fc.Arbitrary<number> {
  return fc.oneof(
    fc.constantFrom(0, -0, 5e-324, -5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 1, -1),
    fc
      .tuple(fc.double({ min: 1, max: 2, noNaN: true }), fc.integer({ min: -1074, max: 1023 }), fc.boolean())
      .map(([m, e, negative]) => {
        const v = m * 2 ** e;
        const clamped = Number.isFinite(v) ? v : Number.MAX_VALUE;
        return negative ? -clamped : clamped;
      }),
  );
}

/** A radius: the edges above, or any magnitude >= 0. */
export function extremeRadius(): fc.Arbitrary<number> {
  return fc.oneof(
    fc.constantFrom(...EDGE_RADII),
    anyMagnitude().map(Math.abs),
    // Near a power of two that matters: 2^-448 (the ordinary edge), 2^512 (overflow of the square).
    fc
      .tuple(fc.constantFrom(-448, -537, 511, 512), fc.double({ min: 0.5, max: 2, noNaN: true }))
      .map(([e, m]) => m * 2 ** e),
  );
}

/**
 * Coordinates of `count` points of `dimension` axes (flat), drawn from a
 * scene: any magnitudes; a cluster around a centre with offsets at one tiny
 * scale (its differences underflow when squared); a huge and a tiny cluster
 * far apart; or points spread at a huge scale.
 */
export function extremeCoordinates(dimension: number, count: fc.Arbitrary<number>): fc.Arbitrary<number[]> {
  const scene = fc.oneof(
    fc.constant({ kind: 'any' as const, centre: 0, scale: 0 }),
    fc.record({
      kind: fc.constant('cluster' as const),
      centre: fc.oneof(fc.constantFrom(0, 1, -1e300, 1e-300, 12345.678), anyMagnitude()),
      scale: fc.oneof(fc.constantFrom(1e-200, 5e-324, 1e-320, 1e-160, 1e-140, 2 ** -448), anyMagnitude().map(Math.abs)),
    }),
    fc.record({
      kind: fc.constant('mixed' as const),
      centre: fc.constantFrom(1e300, 1e200, Number.MAX_VALUE, 1e155),
      scale: fc.constantFrom(1e-200, 1e-300, 5e-324, 1),
    }),
  );
  return fc.tuple(scene, count).chain(([s, n]) => {
    const one =
      s.kind === 'any'
        ? anyMagnitude()
        : s.kind === 'cluster'
          ? fc.integer({ min: -4, max: 4 }).map((k) => {
              const v = s.centre + k * s.scale;
              return Number.isFinite(v) ? v : s.centre;
            })
          : fc.oneof(
              fc.integer({ min: -3, max: 3 }).map((k) => k * s.scale),
              fc
                .integer({ min: -3, max: 3 })
                .map((k) => (k === 0 ? s.centre : s.centre * (k > 0 ? 1 : -1) * (1 - Math.abs(k) * 2 ** -40))),
            );
    return fc.array(one, { minLength: n * dimension, maxLength: n * dimension });
  });
}

/**
 * Integer legs and hypotenuse whose squares add up exactly (2D: a, b, c; 3D:
 * a, b, c, d): legs times 2^e from a centre made of small multiples of 2^e
 * put a point exactly on the boundary at radius hypotenuse * 2^e, at any
 * scale from 2^-1074 up (every difference and square exact, no rounding).
 */
export const BOUNDARY_TRIPLES: Readonly<Record<2 | 3, readonly (readonly number[])[]>> = {
  2: [
    [3, 4, 5],
    [5, 12, 13],
    [8, 15, 17],
    [1, 0, 1],
    [0, 1, 1],
  ],
  3: [
    [2, 3, 6, 7],
    [1, 4, 8, 9],
    [2, 6, 9, 11],
    [0, 0, 1, 1],
    [1, 0, 0, 1],
  ],
};
