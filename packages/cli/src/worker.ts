/**
 * The job of one `spatialhash` command, on the worker thread cli.ts starts:
 * run() with its output sent to the main thread as messages (written there
 * in order) and its progress into the shared memory the main thread draws
 * from.
 *
 * @module
 */

import { parentPort, workerData } from 'node:worker_threads';
import { run } from './run.js';

const { args, shared } = workerData as { args: string[]; shared: SharedArrayBuffer | undefined };
const port = parentPort!;
const code = await run(args, {
  stdout: { write: (text: string) => port.postMessage(['stdout', text]) },
  stderr: { isTTY: false, write: (text: string) => port.postMessage(['stderr', text]) },
  progress: shared,
});
port.postMessage(['exit', code]);
