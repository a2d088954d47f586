#!/usr/bin/env node
/**
 * The `spatialhash` command (see run.ts). The job runs on a worker thread
 * (worker.ts) while this thread stays free for what must happen at any
 * moment: drawing the progress bar from shared memory while the job is
 * inside a long synchronous call, and, on SIGINT, SIGTERM or SIGHUP,
 * stopping the job at once, removing its temporary files and ending by the
 * same signal. A job on this thread would hold a signal until its
 * synchronous work was done (Node runs signal handlers from its event loop),
 * and then the output would be written anyway.
 *
 * It sets the exit code rather than calling process.exit, so stdout and
 * stderr are flushed when piped.
 *
 * @module
 */

import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { parseCommandLine } from './args.js';
import { outputTarget, removeTemporaries } from './files.js';
import { PROGRESS_BYTES, ProgressTicker } from './progress.js';

const args = process.argv.slice(2);
const shared = new SharedArrayBuffer(PROGRESS_BYTES);
const ticker = new ProgressTicker(shared, process.stderr);
const worker = startWorker({ args, shared: process.stderr.isTTY === true ? shared : undefined });

/**
 * The job's thread. Built (dist/, the tarball), its script is worker.js beside
 * this file. From the sources under tsx (`node --import tsx
 * packages/cli/src/cli.ts`, as the file fuzz's memory check runs it), this
 * file is cli.ts and the script worker.ts; Node 20 does not carry tsx's
 * loader into a worker thread, so a two-line bootstrap loads worker.ts
 * through tsx's own tsImport. tsx is a dev dependency: the built command
 * never takes that branch.
 */
function startWorker(workerData: { args: string[]; shared: SharedArrayBuffer | undefined }): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url), { workerData });
  const script = JSON.stringify(new URL('./worker.ts', import.meta.url).href);
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
    .then((tsx) => tsx.tsImport(${script}, ${script}));`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** The folders the job's temporary files go in: the output's, and its target's when it is a symbolic link. */
function temporaryFolders(): string[] {
  try {
    const output = parseCommandLine(args).values.output;
    return output === undefined ? [] : [...new Set([dirname(output), dirname(outputTarget(output))])];
  } catch {
    // A command line the job refuses writes nothing.
    return [];
  }
}

let code: number | undefined;
worker.on('message', (message: [kind: 'stdout' | 'stderr', text: string] | [kind: 'exit', code: number]) => {
  if (message[0] === 'exit') {
    code = message[1];
    return;
  }
  // The bar's line is cleared first: text then starts on a clean line (the bar comes back at the next tick).
  ticker.clear();
  if (message[0] === 'stdout') process.stdout.write(message[1]);
  else process.stderr.write(message[1]);
});
worker.on('error', (error: Error) => {
  // Past run()'s own handling: a crash of the worker itself, e.g. out of memory (ERR_WORKER_OUT_OF_MEMORY).
  ticker.clear();
  process.stderr.write(`spatialhash: error: ${error.message.split('\n')[0]}\n`);
  code = 1;
});
worker.on('exit', () => {
  ticker.stop();
  if (code !== 0) for (const folder of temporaryFolders()) removeTemporaries(folder, process.pid);
  process.exitCode = code ?? 1;
});

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    ticker.stop();
    void worker.terminate().then(() => {
      for (const folder of temporaryFolders()) removeTemporaries(folder, process.pid);
      // Ended by the signal itself, as the shell expects of an interrupted command.
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    });
  });
}
