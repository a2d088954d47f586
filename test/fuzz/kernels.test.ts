/**
 * The stateful differential suites of the WebAssembly kernels
 * (kernels.cases.ts), each in a worker under the runner's watchdog.
 * `npm run fuzz` runs them longer.
 */
import { describe, it } from 'vitest';
import { runSuite, SUITE_TIMEOUT } from './support.js';

const cases = new URL('./kernels.cases.ts', import.meta.url);

describe('kernels stateful fuzz', () => {
  for (const suite of ['grids2d', 'grids3d', 'mixed', 'transfers', 'pool', 'weld']) {
    it(suite, () => runSuite(cases, suite), SUITE_TIMEOUT);
  }
});
