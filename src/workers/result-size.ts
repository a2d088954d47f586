/**
 * How a pool call keeps a result too long to return from taking the memory
 * for it, as the one-thread pairs() and neighbors() do (see PairSink.ceiling):
 * a radius that passes every pair is counted before any thread searches (n (n
 * - 1) / 2 pairs); otherwise each thread's search may grow its buffer to its
 * share of the one-thread allowance, and a thread that reaches it counts its
 * slices instead. The calling thread then checks the call's count, which
 * throws the RangeError of checkResultLength (naming the pairs and bytes) when
 * the result is too long, and else has the threads search again with no
 * ceiling, their memory now bounded by a result that fits.
 *
 * @module
 */
import { checkResultLength } from '../pointgrid/options.js';
import { type CoveredGrid, knownPairCount, searchRoom } from '../pointgrid/pair-sink.js';
import type { Threads } from './threads.js';

/**
 * Numbers each of `threads` threads may hold in its first search of a call
 * over the grid's points (Infinity when the result is known to fit), having
 * checked a result whose size is known without searching.
 *
 * Twice an even share of the one-thread allowance (searchRoom): the slices
 * hold about as many points each, not as many pairs, so a thread's share of
 * the pairs of a clustered cloud, or of slices taken by a faster thread, may
 * well be twice the average, and a result that one thread could collect
 * without counting should not cost the pool a count either. The threads
 * together still take at most twice the one-thread allowance, O(points).
 *
 * @throws RangeError when `radius` passes every pair and they are more than
 * `limit` numbers hold.
 */
export function threadRoom(owner: string, grid: CoveredGrid, radius: number, limit: number, threads: number): number {
  const known = knownPairCount(grid, radius);
  if (known < 0) return Math.ceil((2 * searchRoom(grid.points)) / threads);
  checkResultLength(owner, known, limit);
  return Number.POSITIVE_INFINITY;
}

/** Whether `value`, from a worker's reply, is a count: a safe integer >= 0. */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** What one round of a pool call's search found: its result, its pairs, and a thread that only counted some (else -1). */
export interface SearchRound<R> {
  found: R;
  pairs: number;
  counter: number;
}

/**
 * Runs `search(room, again)` (a pool call's search phase with each thread's
 * room; `again` for the second round) and checks its pair count against
 * `limit` (checkResultLength): when a thread only counted, once the count
 * fits, the threads search again with no ceiling. So at most two rounds: a
 * thread that counts with no ceiling sent a malformed reply.
 */
export async function searchWithin<R>(
  threads: Threads,
  owner: string,
  limit: number,
  room: number,
  what: string,
  search: (room: number, again: boolean) => Promise<SearchRound<R>>,
): Promise<R> {
  const first = await search(room, false);
  checkResultLength(owner, first.pairs, limit);
  if (first.counter < 0) return first.found;
  if (room === Number.POSITIVE_INFINITY) threads.malformed(first.counter, `${what} (counted with no ceiling)`);
  const second = await search(Number.POSITIVE_INFINITY, true);
  checkResultLength(owner, second.pairs, limit);
  if (second.counter >= 0) threads.malformed(second.counter, `${what} (counted with no ceiling)`);
  return second.found;
}
