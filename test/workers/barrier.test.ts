/**
 * The barrier PointGridWorkers threads meet at between the steps of one
 * call: the last to arrive lets everyone go and the barrier is ready for the
 * next step; a thread that failed breaks it, so the others throw instead of
 * waiting for ever. (Real threads meeting at it: every pool test.)
 */
import { describe, expect, it } from 'vitest';
import {
  arriveAndWait,
  breakBarrier,
  createBarrier,
  isBrokenBarrier,
  resetBarrier,
} from '../../src/workers/barrier.js';

describe('barrier', () => {
  it('lets one party through at once, step after step', () => {
    const sync = createBarrier();
    for (let step = 1; step <= 3; step++) {
      arriveAndWait(sync, 1);
      expect([sync[0], sync[1]]).toEqual([0, step]);
    }
  });

  it('lets the last of several parties through and clears the count for the next step', () => {
    const sync = createBarrier();
    // Two other threads have arrived already: this one is the third of three.
    Atomics.store(sync, 0, 2);
    arriveAndWait(sync, 3);
    expect([sync[0], sync[1]]).toEqual([0, 1]);
  });

  it('makes a waiting thread throw once another broke it, and is whole again after a reset', () => {
    const sync = createBarrier();
    breakBarrier(sync);
    let message = '';
    try {
      arriveAndWait(sync, 2);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(isBrokenBarrier(message)).toBe(true);
    expect(isBrokenBarrier('positions[3].x must be finite')).toBe(false);
    resetBarrier(sync);
    arriveAndWait(sync, 1);
    expect([sync[0], sync[2]]).toEqual([0, 0]);
  });
});
