/**
 * The hash extreme-number fuzz suite (hash-extremes.cases.ts), run in a
 * worker under the fuzz runner's watchdog: command sequences with far
 * coordinates, huge and tiny cell sizes and extreme radii and rays, every
 * answer against brute force.
 */
import { describe, it } from 'vitest';
import { runSuite, SUITE_TIMEOUT } from './support.js';

const cases = new URL('./hash-extremes.cases.ts', import.meta.url);

describe('hash extreme-number fuzz (issue 31)', () => {
  it(
    'every query of every hash agrees with brute force, whatever the numbers',
    () => runSuite(cases, 'extremes'),
    SUITE_TIMEOUT,
  );
});
