/**
 * Suites that exercise the fuzz runner itself (support.test.ts): one that
 * passes, one with a wrong answer, one whose third case never returns.
 *
 * @module
 */

import fc from 'fast-check';
import { expect } from 'vitest';
import { fuzz } from './support.js';

export const suites = {
  passes(): void {
    fuzz('runner: addition commutes', fc.tuple(fc.integer(), fc.integer()), ([a, b]) => expect(a + b).toBe(b + a), 20);
  },
  fails(): void {
    fuzz('runner: a wrong claim', fc.integer({ min: 0, max: 100 }), (a) => expect(a).toBeLessThan(50), 200);
  },
  hangs(): void {
    let calls = 0;
    fuzz(
      'runner: a loop that never ends',
      fc.integer(),
      () => {
        calls++;
        // The hang under test: the third case never returns.
        while (calls === 3) {}
      },
      10,
    );
  },
};
