/**
 * The hash snapshot fuzz suite (hash-snapshots.cases.ts), run in a worker
 * under the fuzz runner's watchdog: mutated snapshots of both formats into
 * from(), each case an Error exactly when the data is invalid, or a hash
 * that holds what the data says.
 */
import { describe, it } from 'vitest';
import { runSuite, SUITE_TIMEOUT } from './support.js';

const cases = new URL('./hash-snapshots.cases.ts', import.meta.url);

describe('hash snapshot fuzz (issue 31)', () => {
  it(
    'from() refuses every invalid mutation with an Error and restores every valid one exactly',
    () => runSuite(cases, 'snapshots'),
    SUITE_TIMEOUT,
  );
});
