/**
 * One worker of a PointGridWorkers pool and the task it runs: what makes
 * every call settle whatever happens to the worker. A worker's script greets
 * the pool first (protocol.ts), so a failure before the greeting is a load
 * failure and one after it a death; either, and a message outside the
 * protocol, ends the worker: its running task is rejected with an Error
 * saying what happened, and the pool is told (it breaks the call's barrier,
 * so the other threads stop waiting, and replaces the worker before the next
 * call; see pool.ts).
 *
 * In Node the worker does not keep the process alive while idle: it is
 * unref'd except while it runs a task.
 *
 * @module
 */
import { describe } from '../core/validate.js';
import { isHello, isReply, type Reply } from './protocol.js';
import type { Task } from './tasks.js';

/**
 * The part of a Worker (browsers) or a `worker_threads` Worker (Node) the
 * pool uses. A worker from `createWorker` needs `postMessage`, `terminate`
 * and one of `on` (Node) or `addEventListener` (browsers); `ref` and `unref`
 * are used when present.
 */
export interface WorkerLike {
  /** Sends one task to the worker (structured clone; `transfer` lists buffers to move rather than copy). */
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  /** Stops the worker: by {@link PointGridWorkers.close}, and when the worker failed. */
  terminate(): unknown;
  /** Node: the `message` (its data), `error`, `messageerror` and `exit` (its code) events. */
  on?(event: string, listener: (value: unknown) => void): unknown;
  /** Browsers: the `message` (`event.data`), `error` and `messageerror` events. */
  addEventListener?(type: string, listener: (event: unknown) => void): void;
  /** Node: keeps the process alive while the worker runs (called when a task is sent). */
  ref?(): void;
  /** Node: lets the process exit while the worker idles (called when its task settles). */
  unref?(): void;
}

/** Where the pool's docs for threads live: named by errors that need the user to act. */
export const THREADS_GUIDE = 'https://github.com/spatialhash/spatialhash/blob/main/docs/guides/threads.md';

/** Where a worker's script came from and what to do when it fails to load: for that Error. */
export interface WorkerOrigin {
  /** E.g. 'the script bundled into spatialhash/workers, from blob:...'. */
  what: string;
  /** What the user can do about it: a sentence. */
  hint: string;
}

/** What a pool needs to hear from its channels. */
export interface ChannelOwner {
  /** The channel's worker failed (it is terminated already, its task rejected). */
  failed(channel: Channel): void;
}

/** One worker and the task it runs (the pool sends one task per worker at a time). */
export class Channel {
  /** Why the worker takes no more tasks: it failed, or the pool closed it. Undefined while it works. */
  failure: Error | undefined = undefined;
  /** Whether the worker's script greeted the pool (it loaded and runs). */
  loaded = false;
  /** Whether the worker was sent the calling thread's compiled kernels (see withKernels in threads.ts). */
  kernelsSent = false;
  private pending: { resolve: (reply: Reply) => void; reject: (error: Error) => void; call: string } | undefined;

  constructor(
    readonly worker: WorkerLike,
    readonly index: number,
    private readonly origin: WorkerOrigin,
    private readonly owner: ChannelOwner,
  ) {
    // (null and undefined as well as objects: a plain-JavaScript createWorker may return anything.)
    const w = Object(worker) as {
      on?: (event: string, listener: (value: unknown) => void) => unknown;
      addEventListener?: (type: string, listener: (event: { data?: unknown; message?: unknown }) => void) => void;
    };
    if (typeof w.on === 'function') {
      w.on('message', (message) => this.receive(message));
      w.on('error', (error) => this.failWith(this.describeError(error)));
      w.on('messageerror', (error) => this.failWith(`a message from it could not be read (${this.detail(error)})`));
      w.on('exit', (code) => this.failWith(`it exited with code ${describe(code)}`));
    } else if (typeof w.addEventListener === 'function') {
      w.addEventListener('message', (event) => this.receive(event.data));
      w.addEventListener('error', (event) => this.failWith(this.describeError(event)));
      w.addEventListener('messageerror', () => this.failWith('a message from it could not be read (messageerror)'));
    } else {
      throw new RangeError(
        `createWorker must return a Worker (with on() in Node or addEventListener() in browsers), got ${describe(worker)}`,
      );
    }
    // Idle until it gets a task: it does not keep a Node process alive.
    worker.unref?.();
  }

  /** Sends `task` (for the pool call `call`) and settles with the worker's reply, or rejects when it fails first. */
  run(task: Task, transfer: ArrayBuffer[], call: string): Promise<Reply> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject, call };
      this.worker.ref?.();
      try {
        this.worker.postMessage(task, transfer);
      } catch (error) {
        this.failWith(`it could not be sent its task (${this.detail(error)})`);
      }
    });
  }

  /** Ends the worker with `error`: terminates it, rejects its task. Does nothing once it has failed. */
  fail(error: Error): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    const pending = this.pending;
    this.settled();
    try {
      this.worker.terminate();
    } catch {
      // A worker that cannot even be terminated is gone as far as the pool is concerned.
    }
    pending?.reject(error);
    this.owner.failed(this);
  }

  private receive(message: unknown): void {
    if (this.failure !== undefined) return;
    if (!this.loaded && isHello(message)) {
      this.loaded = true;
      return;
    }
    const pending = this.pending;
    if (this.loaded && pending !== undefined && isReply(message)) {
      this.settled();
      pending.resolve(message);
      return;
    }
    this.failWith(
      `it posted ${describe(message)}, which is no reply of this package's worker protocol (does createWorker start this package's worker script?)`,
    );
  }

  /** The worker's task is over: it may idle (unref'd) again. */
  private settled(): void {
    this.pending = undefined;
    this.worker.unref?.();
  }

  private failWith(what: string): void {
    if (this.failure !== undefined) return;
    if (!this.loaded) {
      this.fail(
        new Error(
          `PointGridWorkers: a worker failed to load (${this.origin.what}): ${what}. ${this.origin.hint}; see ${THREADS_GUIDE}`,
        ),
      );
      return;
    }
    const during = this.pending === undefined ? 'while idle' : `during ${this.pending.call}()`;
    this.fail(new Error(`PointGridWorkers: worker ${this.index} failed ${during}: ${what}`));
  }

  /** An `error` event's cause: a Node Error, or a browser ErrorEvent's message (a load failure has none). */
  private describeError(error: unknown): string {
    const message = (error as { message?: unknown } | null)?.message;
    if (typeof message === 'string' && message !== '') {
      const name = (error as { name?: unknown }).name;
      const code = (error as { code?: unknown }).code;
      return `${typeof name === 'string' && name !== 'Error' ? `${name}: ` : ''}${message}${typeof code === 'string' ? ` (${code})` : ''}`;
    }
    return this.loaded
      ? 'an error event without a message'
      : 'the browser gives no reason; the usual ones are a 404, a wrong MIME type, or a Content-Security-Policy that does not allow the worker';
  }

  private detail(error: unknown): string {
    const message = (error as { message?: unknown } | null)?.message;
    return typeof message === 'string' ? message : describe(error);
  }
}
