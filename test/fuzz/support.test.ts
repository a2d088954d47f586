/**
 * The fuzz runner (support.ts): a passing suite resolves, a wrong answer is
 * reported with its seed and path and the smallest failing case, and a case
 * that never returns is stopped by the watchdog and named.
 */
import { describe, expect, it } from 'vitest';
import { runSuite, SUITE_TIMEOUT } from './support.js';

const cases = new URL('./support.cases.ts', import.meta.url);

describe('fuzz runner', () => {
  it(
    'resolves when every case passes',
    async () => {
      await runSuite(cases, 'passes');
    },
    SUITE_TIMEOUT,
  );

  it(
    'rejects with the seed, the path and the smallest failing case',
    async () => {
      const error = await runSuite(cases, 'fails').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String(error)).toMatch(/"runner: a wrong claim" failed .* FUZZ_SEED=-?\d+ FUZZ_PATH=\S+\ncase: 50\n/);
    },
    SUITE_TIMEOUT,
  );

  it(
    'stops a case that never returns and names it',
    async () => {
      const error = await runSuite(cases, 'hangs', { stallSeconds: 2 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String(error)).toMatch(
        /made no progress for 2 s: hung in property "runner: a loop that never ends" case 3: /,
      );
    },
    SUITE_TIMEOUT,
  );
});
