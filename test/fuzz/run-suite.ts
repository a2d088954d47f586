/**
 * Worker entry of {@link runSuite} (support.ts): imports the cases module
 * named in workerData, runs one of its suites (awaited when it returns a
 * promise), and posts each case, then `finished` or `failed`, to the test's
 * thread.
 *
 * @module
 */

import { parentPort, workerData } from 'node:worker_threads';
import { setReporter } from './support.js';

const { module, suite } = workerData as { module: string; suite: string };
const port = parentPort!;
setReporter((message) => port.postMessage(message));

try {
  const cases = (await import(module)) as { suites?: Record<string, () => void | Promise<void>> };
  const run = cases.suites?.[suite];
  if (typeof run !== 'function') throw new Error(`${module} exports no suite "${suite}"`);
  await run();
  port.postMessage({ kind: 'finished' });
} catch (error) {
  port.postMessage({ kind: 'failed', error: error instanceof Error ? error.message : String(error) });
}
