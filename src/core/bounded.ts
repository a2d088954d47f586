/**
 * What keeps a query's answer inside the grid whatever its buffer holds: the
 * buffer of a grid opened with `from(data, { check: 'header' })`, or one that
 * another thread rewrites during the query (a SharedArrayBuffer being rebuilt),
 * may hold anything in its sections. Loops are bounded by the header's
 * numbers, which the grid reads once per build; the runs of cell starts are
 * clamped to the points where they are read; and indices handed to the
 * caller are clamped to the count (here, in writePairs, fillRows and
 * visitClamped) for a grid that may race (Grid2D.clampsIndices: a shared
 * buffer, or a body not checked). The answers are then the caller's race
 * (possibly wrong), never a hang, and never an index past the points. A
 * grid built here, or opened from a checked ArrayBuffer, holds a permutation
 * that no other thread writes, and its visitors and within() skip the clamp.
 * Here, below both, because the point grids (src/pointgrid/) and the
 * kernels' glue (src/wasm/) clamp alike.
 *
 * @module
 */

/** Clamps the first `count` indices of `target` to at most `points - 1`. O(count), once per query. */
export function clampIndices(target: Uint32Array, count: number, points: number): void {
  const last = points - 1;
  for (let k = 0; k < count; k++) if (target[k] > last) target[k] = last;
}

/**
 * A within query whose radius passes every point (see core/distance.ts):
 * writes the indices of all `points` points into `target`, as far as it
 * fits, and returns `points` (0 for a detached buffer: see PointGrid2D.within).
 */
export function everyPoint(sortedIndex: Uint32Array, points: number, target: Uint32Array): number {
  // A view shorter than the points is a transferred (detached) buffer's: nothing found, which the caller checks.
  if (sortedIndex.length < points) return 0;
  const count = Math.min(points, target.length);
  target.set(sortedIndex.subarray(0, count));
  clampIndices(target, count, points);
  return points;
}

/**
 * Clamps the `count / 2` [start, end) runs of sorted positions in `ranges`
 * (a pair search's gathered ranges) inside the points and so that none runs
 * backwards: a pair search's bound on a point's candidates then holds.
 */
export function clampRanges(ranges: Int32Array, count: number, points: number): void {
  for (let k = 0; k < count; k += 2) {
    if (ranges[k + 1] > points) ranges[k + 1] = points;
    if (ranges[k] < 0) ranges[k] = 0;
    if (ranges[k] > ranges[k + 1]) ranges[k] = ranges[k + 1];
  }
}
