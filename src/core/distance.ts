/**
 * The distance rule every structure of the library follows, in one place so
 * that each structure (and each kernel written for it, JavaScript or
 * WebAssembly) decides the same way at the extremes.
 *
 * **The rule.** A point p is within radius r of q when
 *
 *     dx * dx + dy * dy (+ dz * dz) <= r * r,    dx = p.x - q.x, ...
 *
 * with every operation rounded to float64 and the sum taken left to right.
 * Float32 coordinates are widened exactly first. Squared distances order the
 * k nearest (ties by index). What that means where float64 runs out, kept as
 * the rule says rather than patched case by case:
 *
 * - A radius whose square overflows (r > ~1.34e154, and r = Infinity) has
 *   `r * r === Infinity`: every point is within it, however far, since no sum
 *   of squares exceeds Infinity. See {@link coversEverything}.
 * - A squared distance that overflows (a gap above ~1.34e154 on an axis, or
 *   two coordinates more than Number.MAX_VALUE apart, whose difference is
 *   Infinity) is Infinity: beyond every radius whose square is finite, and
 *   tied with every other such distance in nearest (index order decides).
 * - Gaps whose squares underflow (below ~1.5e-162 on every axis) sum to 0 or
 *   a subnormal: within radius 0, and tied with each other in nearest.
 *
 * Anything a search does besides the test itself (cell ranges, stencils,
 * early exits) must find every point the test accepts: margins for rounding
 * and for underflow sit next to each structure's search (pointgrid/margins.ts,
 * radiusPad in spatialhash/base.ts); a search whose radius
 * {@link coversEverything} may skip geometry altogether.
 *
 * @module
 */

/**
 * The right-hand side of the distance test for `radius`: `radius * radius`
 * in float64 (Infinity when it overflows; see the module notes).
 */
export function radiusSquared(radius: number): number {
  return radius * radius;
}

/**
 * True when the distance test passes every pair of finite points at this
 * squared radius: `r2` is Infinity (a radius above ~1.34e154, or Infinity).
 * A search may then return every point (pair) without looking at cells, and
 * must: its cell arithmetic at such radii is where rounding and overflow live.
 */
export function coversEverything(r2: number): boolean {
  return r2 === Number.POSITIVE_INFINITY;
}
