/**
 * Stateful fuzz of several dynamic hashes at once (hash-stateful.cases.ts),
 * in a worker under the runner's watchdog. `npm run fuzz` runs it longer.
 */
import { describe, it } from 'vitest';
import { runSuite, SUITE_TIMEOUT } from './support.js';

const cases = new URL('./hash-stateful.cases.ts', import.meta.url);

describe('hash stateful fuzz', () => {
  it('sequences', () => runSuite(cases, 'sequences'), SUITE_TIMEOUT);
});
