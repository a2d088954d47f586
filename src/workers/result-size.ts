/**
 * The size check of a pool call's result: a result longer than a search
 * returns throws a RangeError naming its pair count and the bytes it needs,
 * as the one-thread calls do. Where the radius passes every pair the count
 * is known before any thread searches (n (n - 1) / 2); otherwise the pool
 * checks the threads' counts before it allocates the result.
 *
 * @module
 */

/** Most numbers a pairs() or neighbors() result holds (2 per pair), as for the one-thread calls. */
export const MAX_RESULT_LENGTH = 2 ** 31 - 1;

/** Throws the RangeError of a result of `pairs` pairs too long to return (2 numbers of 4 bytes per pair). */
export function checkResultPairs(owner: string, pairs: number): void {
  const numbers = 2 * pairs;
  if (numbers <= MAX_RESULT_LENGTH) return;
  throw new RangeError(
    `${owner}: ${pairs} pairs need ${numbers} numbers (${4 * numbers} bytes), more than the longest result a search returns (${MAX_RESULT_LENGTH} numbers)`,
  );
}

/**
 * Before the threads search: where the radius passes every pair of the
 * grid's points (Infinity, or a huge radius that spans the grid: see
 * Grid2D.coversEveryPair) the result's size is known, and a result too long
 * throws before any memory is spent on it.
 */
export function checkEveryPair(
  owner: string,
  grid: { points: number; coversEveryPair(radius: number): boolean },
  radius: number,
): void {
  const points = grid.points;
  if (grid.coversEveryPair(radius)) checkResultPairs(owner, (points * (points - 1)) / 2);
}
