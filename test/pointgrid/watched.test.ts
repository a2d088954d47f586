/**
 * The PointGrid cases of issue 31 that used to hang (watched.cases.ts), each
 * run under the fuzz runner's watchdog: a case that never returns fails here
 * and is named.
 */
import { describe, it } from 'vitest';
import { runSuite, SUITE_TIMEOUT } from '../fuzz/support.js';

const cases = new URL('./watched.cases.ts', import.meta.url);

describe('PointGrid: extreme numbers and untrusted buffers, under a watchdog', () => {
  for (const suite of ['extremeNumbers', 'extremeSpans', 'detached', 'untrustedHeaders', 'corruptBodies']) {
    it(suite, () => runSuite(cases, suite, { stallSeconds: 20 }), SUITE_TIMEOUT);
  }
});
