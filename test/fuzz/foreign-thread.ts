/**
 * Worker entry of {@link ForeignBuilder} (foreign.ts): rebuilds the grid in
 * a SharedArrayBuffer it is sent, through a from() grid of its own (the
 * library as this thread imports it, kernels included), and answers through
 * the shared flag the calling thread waits on: 1 rebuilt in place, 2 rebuilt
 * into a new buffer of this thread's (the shared one untouched), 3 threw.
 *
 * @module
 */

import { parentPort } from 'node:worker_threads';
import { PointGrid2D, PointGrid3D } from '../../src/index.js';

interface Job {
  d: 2 | 3;
  data: SharedArrayBuffer;
  positions: ArrayLike<number>;
  flag: Int32Array;
  message: Uint8Array;
}

parentPort?.on('message', (job: Job) => {
  let answer = 3;
  try {
    const grid =
      job.d === 2 ? PointGrid2D.from(job.data, { check: 'header' }) : PointGrid3D.from(job.data, { check: 'header' });
    grid.rebuild(job.positions as Float64Array);
    answer = grid.data === job.data ? 1 : 2;
  } catch (error) {
    const text = new TextEncoder().encode(String(error instanceof Error ? error.message : error));
    job.message.set(text.subarray(0, job.message.length));
  }
  Atomics.store(job.flag, 0, answer);
  Atomics.notify(job.flag, 0);
});
