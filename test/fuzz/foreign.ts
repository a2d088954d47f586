/**
 * Another thread that rebuilds grids in SharedArrayBuffers (the threads
 * guide: grids over one buffer see each other's rebuilds), for the stateful
 * suites: its rebuild happens on a thread whose builds this thread's kernels
 * never hear of, so their copy of the grid goes stale with no build stamp
 * here to say so. The call is synchronous (the calling thread waits on a
 * shared flag), so it is an ordinary command of a sequence.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What a foreign rebuild did: rebuilt the buffer in place, into a new buffer of its own, or threw (the message). */
export type ForeignOutcome = 'in place' | 'moved' | { error: string };

/** A worker thread that rebuilds shared grid buffers on request. */
export class ForeignBuilder {
  private worker: Worker | undefined;

  /** The worker, started on first use: tsx's loader registered, then the entry imported. */
  private start(): Worker {
    if (this.worker !== undefined) return this.worker;
    let api = 'tsx/esm/api';
    const esm = createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs');
    if (existsSync(esm)) api = new URL(`file://${esm}`).href;
    const entry = new URL('./foreign-thread.ts', import.meta.url).href;
    const code = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
    this.worker = new Worker(code, { eval: true });
    this.worker.unref();
    return this.worker;
  }

  /** Rebuilds the `d`-dimensional grid in `data` from `positions` on the other thread, and waits for it. */
  rebuild(d: 2 | 3, data: SharedArrayBuffer, positions: ArrayLike<number>): ForeignOutcome {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const message = new Uint8Array(new SharedArrayBuffer(512));
    this.start().postMessage({ d, data, positions, flag, message });
    // The first call waits for the worker to load the library too.
    if (Atomics.wait(flag, 0, 0, 60_000) === 'timed-out') throw new Error('the foreign rebuild did not answer in 60 s');
    const answer = Atomics.load(flag, 0);
    if (answer === 1) return 'in place';
    if (answer === 2) return 'moved';
    return { error: new TextDecoder().decode(message.slice()).replace(/\0+$/, '') };
  }

  /** Stops the thread. */
  close(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }
}
