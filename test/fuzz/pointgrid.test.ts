/**
 * PointGrid fuzzing (pointgrid.cases.ts): extreme numbers, mutated buffers,
 * races on shared buffers and weld's extremes, each suite in a worker under
 * the runner's watchdog. `npm run fuzz` runs them longer.
 */
import { describe, it } from 'vitest';
import { runSuite, SUITE_TIMEOUT } from './support.js';

const cases = new URL('./pointgrid.cases.ts', import.meta.url);

describe('PointGrid fuzz', () => {
  for (const suite of ['extreme', 'mutated', 'races', 'weld']) {
    it(suite, () => runSuite(cases, suite), SUITE_TIMEOUT);
  }
});
