/**
 * The messages between the pool and its workers, besides the tasks
 * (tasks.ts): the greeting a worker posts once its script runs, and the reply
 * it posts for each task. Shared by worker.ts and the pool, which checks
 * every message against these shapes (a worker from createWorker may run
 * anything).
 *
 * @module
 */

/** What a worker posts first, once its script has loaded and runs: the pool then knows a later failure is not a load failure. */
export interface Hello {
  hello: typeof PROTOCOL;
}

/** Names this package's worker protocol (bumped when tasks or replies change shape). */
export const PROTOCOL = 'spatialhash-workers/2';

/**
 * What a worker posts back for each task: its result, time (ms) and which
 * kernels ran it (see activeKernels; absent: JavaScript), or the Error it threw.
 */
export type Reply =
  | { ok: true; result: unknown; ms: number; kernels?: 'wasm' | 'javascript' }
  | { ok: false; error: string; name: string };

/** Whether `message` is a worker's greeting. */
export function isHello(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as Partial<Hello>).hello === PROTOCOL;
}

/** Whether `message` has the shape of a {@link Reply} (the result itself is checked by the call that reads it). */
export function isReply(message: unknown): message is Reply {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  if (m.ok === true)
    return typeof m.ms === 'number' && 'result' in m && (m.kernels === 'wasm' || m.kernels === 'javascript');
  return m.ok === false && typeof m.error === 'string' && typeof m.name === 'string';
}
