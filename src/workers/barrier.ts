/**
 * A reusable barrier for the threads of one PointGridWorkers call, on three
 * words of shared memory, so that the steps of a rebuild or a neighbour fill
 * run in one message per thread instead of a round trip through the calling
 * thread per step (a message wakes an idle thread in about half a
 * millisecond; a barrier between busy threads costs microseconds).
 *
 * Only for worker threads: browsers forbid `Atomics.wait` on the main thread.
 *
 * @module
 */

/** Word 0: threads arrived at the current barrier; word 1: barriers passed; word 2: non-zero once a thread failed. */
const ARRIVED = 0;
const GENERATION = 1;
const FAILED = 2;

// The package compiles against ES2022 alone (no DOM or Node types): declared for this module.
declare const performance: { now(): number };

/**
 * Milliseconds a thread spins before it sleeps. Waking a sleeping thread
 * costs 1 to 3 ms on the 2-core VMs this was tuned on (the virtual CPU went
 * idle), more than the usual skew between threads at a step's end; a thread
 * that waits longer than this sleeps, so a pool with more threads than cores
 * loses at most this much of another thread's time per step.
 */
const SPIN_MS = 2;

/** Milliseconds a sleeping thread waits before it looks at the failure word again. */
const NAP_MS = 50;

const BROKEN = 'PointGridWorkers: another thread of this call failed';

/** Shared words of a fresh barrier. */
export function createBarrier(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
}

/** Clears a barrier between calls, once every thread of the last one has replied. */
export function resetBarrier(sync: Int32Array): void {
  Atomics.store(sync, ARRIVED, 0);
  Atomics.store(sync, FAILED, 0);
}

/**
 * Waits until `parties` threads have called this on `sync` since the last
 * time they all had; the last to arrive lets them all go on.
 *
 * @throws Error when another thread failed (see {@link breakBarrier}):
 * without it this thread would wait for ever.
 */
export function arriveAndWait(sync: Int32Array, parties: number): void {
  const generation = Atomics.load(sync, GENERATION);
  if (Atomics.add(sync, ARRIVED, 1) === parties - 1) {
    // No thread can arrive again before the generation moves on, so clearing the count first is safe.
    Atomics.store(sync, ARRIVED, 0);
    Atomics.add(sync, GENERATION, 1);
    Atomics.notify(sync, GENERATION);
    return;
  }
  const sleepAt = performance.now() + SPIN_MS;
  for (let spin = 0; Atomics.load(sync, GENERATION) === generation; spin++) {
    if (Atomics.load(sync, FAILED) !== 0) throw new Error(BROKEN);
    // The clock is read every 64 turns only; past the spin time, sleep until woken (or the nap ends).
    if ((spin & 63) === 63 && performance.now() > sleepAt) Atomics.wait(sync, GENERATION, generation, NAP_MS);
  }
}

/** Marks the call failed and wakes every waiting thread, which then throws. */
export function breakBarrier(sync: Int32Array): void {
  Atomics.store(sync, FAILED, 1);
  Atomics.notify(sync, GENERATION);
}

/** The message of the Error a thread throws when another broke the barrier: the pool reports the other's. */
export function isBrokenBarrier(message: string): boolean {
  return message === BROKEN;
}
