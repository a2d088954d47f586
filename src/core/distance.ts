/**
 * The distance rule every structure of the library follows, in one place so
 * that each structure (and each kernel written for it, JavaScript or
 * WebAssembly) decides the same way at the extremes.
 *
 * **The rule.** A point p is within radius r of q when
 *
 *     dx * dx + dy * dy (+ dz * dz) <= r * r,    dx = p.x - q.x, ...
 *
 * evaluated in float64 as if its exponent range were unbounded: every
 * operation rounded to 53 significant bits, the sum taken left to right, but
 * nothing overflows to Infinity and nothing underflows to a subnormal or 0.
 * Float32 coordinates are widened exactly first. That is the mathematically
 * right answer up to ordinary rounding, wherever the numbers lie: points at 0
 * and 1e306 are not both within 1e300 of the origin, and two points 1e-200
 * apart are not within radius 0. Squared distances so evaluated order the k
 * nearest (ties by index where a structure promises an order for them).
 *
 * **Ordinary radii need nothing special.** When r * r is finite and at least
 * 2^-896 (see {@link isOrdinaryRadius}), the plain float64 test gives exactly
 * the rule's answer, for any finite coordinates:
 *
 * - A difference, a square or a sum that overflows is Infinity in float64,
 *   and without the bound it would be above Number.MAX_VALUE: beyond r * r
 *   either way.
 * - A square below 2^-1022 (the smallest normal double) may be rounded
 *   differently in float64 (to a subnormal or 0) than without the bound, but
 *   it cannot change the answer. In a sum with a square of at least 2^-968
 *   it is below half an ulp of that square and drops out either way; so the
 *   two evaluations of a 2D sum agree, or both are at most 2^-967. In 3D the
 *   third square is likewise either at least 2^-913 (and then the partial
 *   sums, both at most 2^-967, drop out of it) or the whole sum is at most
 *   2^-912 both ways. So the two sums are equal or both below 2^-912, far
 *   below r * r >= 2^-896: the answer is the same. (The margin, 2^16, is
 *   there so no one has to redo this proof for a change of a few ulps.)
 * - Differences never lose anything to underflow: a difference of two doubles
 *   that lands in the subnormal range is exact.
 *
 * The same argument shows that a float64 squared distance at or above 2^-896
 * and finite *is* the rule's value, which is what nearest searches rely on
 * (see {@link squareBand}).
 *
 * **Extreme radii take a cold path.** A radius whose square overflows (r
 * above about 1.34e154, Infinity included) or is below 2^-896 (r below about
 * 1.4e-135, 0 included) is tested with every length multiplied by a power of
 * two, {@link TINY_SCALE} or {@link HUGE_SCALE}, which brings (r * s)^2 into
 * the ordinary range: `(dx*s)^2 + (dy*s)^2 (+ (dz*s)^2) <= (r*s)^2`. Scaling
 * by a power of two is exact and commutes with rounding unless it overflows
 * or underflows, and where it does the result is decisive in the right
 * direction (a scaled difference that overflows is beyond any finite radius)
 * or negligible (one that underflows squares to below 2^-2044, against a
 * scaled radius square of at least 2^-748). So the scaled test is the rule
 * itself, and radius 0 comes out as exact equality of the coordinates: a
 * nonzero difference is at least 2^-1074, scaled at least 2^-374, squared at
 * least 2^-748 > 0. Radius Infinity passes every finite point. Each structure
 * chooses between the paths once per call ({@link isOrdinaryRadius}); the
 * ordinary hot loops stay plain float64 and pay nothing.
 *
 * Anything a search does besides the test itself (cell ranges, stencils,
 * early exits) must find every point the test accepts: margins for rounding
 * and for underflow are each structure's own (core/margins.ts for the point
 * grids and their kernels, radiusPad in spatialhash/base.ts).
 *
 * @module
 */

/** Smallest r * r of an ordinary radius (see {@link isOrdinaryRadius}): 2^-896, so r >= 2^-448 (about 1.4e-135). */
export const LOWEST_ORDINARY_SQUARE = 2 ** -896;

/**
 * Scale of the cold test for radii whose square is below 2^-896 (0
 * included): r * 2^700 is then below 2^252 and, unless 0, at least 2^-374,
 * so its square is ordinary. Differences are scaled after they are taken:
 * `(a - b) * TINY_SCALE` (see {@link scaledGap}).
 */
export const TINY_SCALE = 2 ** 700;

/**
 * Scale of the cold test for radii whose square overflows (Infinity
 * included): r * 2^-700 is then at least 2^-188 and below 2^324, so its
 * square is ordinary (Infinity for r = Infinity). Coordinates are scaled
 * before they are subtracted, `a * HUGE_SCALE - b * HUGE_SCALE`, so that two
 * coordinates more than Number.MAX_VALUE apart still have a finite,
 * correctly rounded difference (see {@link scaledGap}).
 */
export const HUGE_SCALE = 2 ** -700;

/**
 * Whether the plain float64 test `dx * dx + dy * dy (+ dz * dz) <= radius *
 * radius` gives the library's distance rule exactly for every finite point
 * and query: true when `radius * radius` is finite and at least 2^-896,
 * i.e. radius from about 1.4e-135 to about 1.34e154 (see the module notes for
 * why). False for 0, for smaller and larger radii, for Infinity and for NaN.
 *
 * A search calls it once per call, with the radius (or a nearest query's
 * maxDistance), and sends the extreme ones to a cold path that tests with
 * {@link scaledDistance2} / {@link scaledDistance3}. A kernel written in
 * another language (the WebAssembly ones) does the same: it runs only for
 * ordinary radii and leaves the rest to the JavaScript path.
 */
export function isOrdinaryRadius(radius: number): boolean {
  const r2 = radius * radius;
  return r2 >= LOWEST_ORDINARY_SQUARE && r2 <= Number.MAX_VALUE;
}

/**
 * The scale of the cold test for an extreme (not ordinary) radius:
 * {@link TINY_SCALE} when its square is below 2^-896 (0 included), else
 * {@link HUGE_SCALE}.
 */
export function extremeScale(radius: number): number {
  return radius * radius < LOWEST_ORDINARY_SQUARE ? TINY_SCALE : HUGE_SCALE;
}

/**
 * The right-hand side of the scaled test: `(radius * scale)^2`, ordinary for
 * an extreme radius and its {@link extremeScale} (Infinity for radius
 * Infinity, 0 for radius 0).
 */
export function scaledLimit(radius: number, scale: number): number {
  const rs = radius * scale;
  return rs * rs;
}

/**
 * `(a - b) * scale` as the rule has it (a difference rounded once, no
 * exponent bound), for scale a power of two: 1, {@link TINY_SCALE} or
 * {@link HUGE_SCALE}. Below 1 the coordinates are scaled first, which cannot
 * overflow, so a difference beyond Number.MAX_VALUE stays finite (and a
 * scaled coordinate that underflows is negligible against the other one, or
 * the difference is); above 1, the difference is taken first (exact when it
 * is tiny) and an overflow of the product is beyond every scaled radius.
 */
export function scaledGap(a: number, b: number, scale: number): number {
  return scale < 1 ? a * scale - b * scale : (a - b) * scale;
}

/** `dx^2 + dy^2` of the scaled differences (see {@link scaledGap}): the rule's squared distance times scale^2. */
export function scaledDistance2(ax: number, ay: number, bx: number, by: number, scale: number): number {
  const dx = scaledGap(ax, bx, scale);
  const dy = scaledGap(ay, by, scale);
  return dx * dx + dy * dy;
}

/** {@link scaledDistance2} in 3D. */
export function scaledDistance3(
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  scale: number,
): number {
  const dx = scaledGap(ax, bx, scale);
  const dy = scaledGap(ay, by, scale);
  const dz = scaledGap(az, bz, scale);
  return dx * dx + dy * dy + dz * dz;
}

/** Band of a squared distance below 2^-896: the float64 value may be off (subnormal or 0); see {@link squareBand}. */
export const TINY_BAND = 0;
/** Band of a finite squared distance of at least 2^-896: the float64 value is the rule's. */
export const ORDINARY_BAND = 1;
/** Band of a squared distance that overflowed float64 (Infinity). */
export const HUGE_BAND = 2;

/**
 * Which band a float64 squared distance `d2` (computed as the hot loops do,
 * `dx * dx + dy * dy (+ dz * dz)`) falls in, and so whether it can be
 * trusted for ordering: {@link ORDINARY_BAND} values are the rule's own
 * (see the module notes), so they compare exactly; {@link TINY_BAND} and
 * {@link HUGE_BAND} values are below, respectively above, every ordinary one
 * under the rule too, but within their band they must be compared by
 * {@link bandValue}. The band of the float64 value is the band of the rule's
 * value.
 */
export function squareBand(d2: number): number {
  return d2 < LOWEST_ORDINARY_SQUARE ? TINY_BAND : d2 <= Number.MAX_VALUE ? ORDINARY_BAND : HUGE_BAND;
}

/** The scale whose squared distances compare exactly within band `band`: TINY_SCALE, 1 or HUGE_SCALE. */
export function bandScale(band: number): number {
  return band === TINY_BAND ? TINY_SCALE : band === HUGE_BAND ? HUGE_SCALE : 1;
}

/**
 * Exact comparison of two squared distances under the rule, each given as
 * its band and its value scaled by that band's scale squared (for example
 * `scaledDistance2(..., bandScale(band))`): negative, zero or positive as
 * the first is nearer, as near or farther.
 */
export function compareBanded(bandA: number, valueA: number, bandB: number, valueB: number): number {
  if (bandA !== bandB) return bandA - bandB;
  return valueA < valueB ? -1 : valueA > valueB ? 1 : 0;
}

/**
 * Whether the k entries a float64 nearest search kept (their squared
 * distances, `size` of them, room for `capacity`) may be the wrong ones or in
 * the wrong order under the rule, so that the search must settle them
 * exactly: when one overflowed (Infinity), or when two or more are below
 * 2^-896 (their float64 values may tie or misorder), or when the only entry
 * of a full heap of one is. A single tiny entry among ordinary ones (or in a
 * heap with room left) is right as it stands: it is nearer than every
 * ordinary one under the rule too, and any other tiny candidate would have
 * entered before an ordinary one. This keeps the common query at a point's
 * own position (squared distance 0) on the fast path.
 */
export function keptNeedExactOrder(distances: ArrayLike<number>, size: number, capacity: number): boolean {
  let tiny = 0;
  for (let i = 0; i < size; i++) {
    const d2 = distances[i];
    if (d2 === Number.POSITIVE_INFINITY) return true;
    if (d2 < LOWEST_ORDINARY_SQUARE) tiny++;
  }
  return tiny > 1 || (tiny === 1 && size === 1 && capacity === 1);
}

/**
 * Whether every two points of a box with these side lengths lie within
 * `radius` of each other under the rule, for radius Infinity or one whose
 * square overflows (false for any other radius: ordinary and tiny ones need
 * no such shortcut). The box's diagonal, scaled by HUGE_SCALE and with a
 * margin far above rounding, must be at most the scaled radius; a side of
 * Infinity (an extent that overflowed) never passes. Lets a search at a huge
 * radius over data that it covers return everything, as at Infinity, instead
 * of testing every pair.
 */
export function hugeRadiusCovers(radius: number, sides: readonly number[]): boolean {
  if (radius === Number.POSITIVE_INFINITY) return true;
  if (!(radius * radius > Number.MAX_VALUE)) return false;
  let sum = 0;
  for (const side of sides) {
    const scaled = side * HUGE_SCALE;
    sum += scaled * scaled;
  }
  return sum * (1 + 2 ** -40) <= scaledLimit(radius, HUGE_SCALE);
}
