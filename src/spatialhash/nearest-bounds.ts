/**
 * The lower bounds behind the k-nearest searches of both hashes (nearest.ts
 * here and in pointhash/): how near the query point can be to an item that
 * lies outside the cells the rings have searched, or inside a given cell.
 * Not hot (once per ring, once per occupied cell of a scan), so written once.
 *
 * A bound may only be too small, never too large, or the search stops early
 * and misses an item. Float rounding is covered by a margin of 2^-40 relative
 * to the numbers subtracted (the errors are a few ulps, 2^-52 each). Numbers
 * near the float limit: a gap whose subtraction overflows is at least about
 * the largest double, so every squared distance past it is Infinity, and it
 * is returned as MAX_VALUE / 2, whose square is Infinity too; a cell border
 * that itself overflows (a cell size near the largest double) gives no bound
 * at all. (Before, an overflowing gap read as "no stored cell outside", and
 * PointHash's nearest stopped with items unseen.)
 *
 * @module
 */

/** Relative margin on lower bounds so float rounding can only make them smaller. */
const BOUND_SLACK = 2 ** -40;

/** What an overflowing gap stands for: at least this, and its square is Infinity. */
const HUGE_GAP = Number.MAX_VALUE / 2;

/**
 * Lower bound on the gap `far - near` (far >= near up to rounding) between
 * the point and a cell border, both finite or the border not; -Infinity when
 * the border overflowed (no bound).
 */
function sideGap(gap: number, border: number, p: number): number {
  const size = Math.abs(border);
  if (!(size <= Number.MAX_VALUE)) return Number.NEGATIVE_INFINITY;
  if (gap === Number.POSITIVE_INFINITY) return HUGE_GAP;
  return gap - (size + Math.abs(p)) * BOUND_SLACK;
}

/**
 * Lower bound on the distance from `point` to anything in a stored cell
 * (within [low, high] per axis) outside the cells within Chebyshev distance
 * R of `center`: Infinity exactly when no such cell can exist, -Infinity when
 * there is no usable bound. Per axis with a stored cell past the cube's
 * side, the gap from the point to that side.
 *
 * @internal
 */
export function gapOutside(
  cellSize: number,
  dim: number,
  R: number,
  point: Float64Array,
  center: Float64Array,
  low: Float64Array,
  high: Float64Array,
): number {
  let gap = Number.POSITIVE_INFINITY;
  for (let a = 0; a < dim; a++) {
    const p = point[a];
    if (center[a] - R > low[a]) {
      const border = (center[a] - R) * cellSize;
      gap = Math.min(gap, sideGap(p - border, border, p));
    }
    if (center[a] + R < high[a]) {
      const border = (center[a] + R + 1) * cellSize;
      gap = Math.min(gap, sideGap(border - p, border, p));
    }
  }
  return gap;
}

/**
 * Lower bound on the squared distance from `point` to anything filed under
 * the cell whose coordinates are `keys[id * dim ...]`; 0 when nothing
 * better is known.
 *
 * @internal
 */
export function cellGap2(cellSize: number, dim: number, keys: Float64Array, id: number, point: Float64Array): number {
  let lb2 = 0;
  for (let a = 0; a < dim; a++) {
    const key = keys[id * dim + a];
    const p = point[a];
    const lo = key * cellSize;
    let d = 0;
    if (lo > p) d = sideGap(lo - p, lo, p);
    else {
      const hi = (key + 1) * cellSize;
      if (p > hi) d = sideGap(p - hi, hi, p);
    }
    if (d > 0) lb2 += d * d;
  }
  return lb2;
}
