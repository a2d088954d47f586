/**
 * The threads of one PointGridWorkers pool: starts them, replaces the ones
 * that died, runs each phase of a call on all of them and waits for every
 * one, so that every call settles whatever happens to a worker and no thread
 * still works on a call that has settled. The calls themselves
 * (shared-calls.ts, copy-calls.ts) say what each phase sends.
 *
 * @module
 */

import { kernelMode, kernelModule } from '../wasm/kernels.js';
import { breakBarrier, isBrokenBarrier, resetBarrier } from './barrier.js';
import { Channel, type ChannelOwner, type WorkerLike } from './channel.js';
import { CUSTOM_ORIGIN, defaultWorker } from './host.js';
import type { Reply } from './protocol.js';
import { clock, type StepTimes, type Task } from './tasks.js';

// The package compiles against ES2022 alone (no DOM or Node types): declared for this module.
declare const performance: { now(): number };

/** Where the time of the last pool call went: per phase, the wall time and each thread's own. */
export interface PointGridWorkersTimings {
  /** 'rebuild', 'neighbors' or 'pairs'. */
  call: string;
  /** The parallel phases in the order they ran. */
  phases: PointGridWorkersPhase[];
  /**
   * Wall time outside the phases: the calling thread (sizing the grid or the
   * result, merging; in copy mode also copying the grid and filling the
   * rows) and the messages, ms.
   */
  mainMs: number;
  /** Wall time of the whole call, ms. */
  totalMs: number;
}

/** One parallel phase of a pool call (e.g. 'histogram', 'scatter', 'count'). */
export interface PointGridWorkersPhase {
  /** What the threads did in this phase. */
  name: string;
  /**
   * Wall time, ms: from sending the tasks to the last reply; for a step of a
   * call run in one message per thread, from the end of the step before it
   * (or the sending) until the last thread finished it.
   */
  wallMs: number;
  /** Each thread's own time on its task, ms, by thread. */
  threadMs: number[];
  /**
   * Which implementation each thread's batch paths were on when it ran its
   * task (its activeKernels()), by thread: the WebAssembly kernels, which
   * the calling thread compiles once and posts to every worker, or the
   * JavaScript path (the calling thread's mode is 'javascript' or it has no
   * kernels, or the worker could not instantiate the module). A build's
   * steps run in JavaScript whatever this says; its searches follow it.
   */
  threadKernels: ('wasm' | 'javascript')[];
}

/**
 * `task` with this thread's kernel choice (see KernelSetting in tasks.ts):
 * the mode always, the compiled module once per worker, so that every
 * thread runs the kernels this one runs (or the JavaScript path where this
 * one does), compiled once, here.
 */
function withKernels(task: Task, channel: Channel): Task {
  const mode = kernelMode();
  // In mode 'javascript' nothing is compiled here (a page may have chosen it because it must not compile).
  const module = channel.kernelsSent || mode === 'javascript' ? undefined : kernelModule();
  if (module !== undefined) channel.kernelsSent = true;
  return { ...task, kernels: module === undefined ? { mode } : { mode, module } };
}

/** The workers of a pool and the call they run. */
export class Threads implements ChannelOwner {
  private readonly channels: Channel[] = [];
  private closed = false;
  /** The Error of a worker that failed to load: every later call fails with it. */
  private broken: Error | undefined = undefined;
  /** The call running now (for Errors) and its timings so far. */
  call: string | undefined = undefined;
  timings: PointGridWorkersTimings | undefined = undefined;
  /** Which kernels each thread's reply of the last phase said it ran. */
  private lastKernels: ('wasm' | 'javascript')[] = [];

  /**
   * Starts `count` workers (from `createWorker`, or the host's default).
   * `sync` is the barrier of shared-mode calls, broken when a worker fails.
   *
   * @throws what starting a worker throws, having stopped the ones started.
   */
  constructor(
    readonly count: number,
    private readonly createWorker: (() => WorkerLike) | undefined,
    private readonly sync: Int32Array | undefined,
  ) {
    try {
      for (let k = 0; k < count; k++) this.channels.push(this.start(k));
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /**
   * Before a call: throws when the pool is closed or broken, replaces the
   * workers that died since the last call, and starts the call's timings.
   */
  begin(call: string): void {
    if (this.closed) throw new Error(`PointGridWorkers.${call}(): the pool is closed`);
    if (this.broken !== undefined) {
      throw new Error(`PointGridWorkers.${call}(): the pool cannot work: ${this.broken.message}`, {
        cause: this.broken,
      });
    }
    for (let k = 0; k < this.channels.length; k++) {
      if (this.channels[k].failure !== undefined) this.channels[k] = this.start(k);
    }
    this.call = call;
    this.timings = { call, phases: [], mainMs: 0, totalMs: 0 };
  }

  /** After a call, settled either way. */
  end(): void {
    this.call = undefined;
  }

  /** Stops every worker; the running call's phase rejects. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const during = this.call === undefined ? '' : ` during ${this.call}()`;
    const error = new Error(`PointGridWorkers: the pool was closed${during}`);
    for (const channel of this.channels) channel.fail(error);
  }

  /** A worker failed: the call's other threads must not wait for it at a barrier; one that never loaded breaks the pool. */
  failed(channel: Channel): void {
    if (!channel.loaded && !this.closed) this.broken ??= channel.failure;
    if (this.sync !== undefined) breakBarrier(this.sync);
  }

  /**
   * Sends task(k) to each thread k (moving the buffers that transfer(k)
   * lists) and waits for every reply; rethrows the first failure, once every
   * thread has settled. Records the phase's times under `name` (unless '').
   */
  async phase<R>(name: string, task: (k: number) => Task, transfer?: (k: number) => ArrayBuffer[]): Promise<R[]> {
    const started = performance.now();
    const call = this.call ?? 'a call';
    // Every task is made before any is sent, so that a throw here leaves no thread busy.
    const tasks = this.channels.map((channel, k) => withKernels(task(k), channel));
    const moved = this.channels.map((_, k) => transfer?.(k) ?? []);
    // Waits for every thread, even after one failed: none is still working on this call when it settles.
    const settled = await Promise.allSettled(this.channels.map((channel, k) => channel.run(tasks[k], moved[k], call)));
    const wallMs = performance.now() - started;
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
    const replies = settled.map((s) => (s as PromiseFulfilledResult<Reply>).value);
    // A thread that failed broke the barrier, and the others then failed for that: report the first cause.
    const failed = replies.find((r) => !r.ok && !isBrokenBarrier(r.error)) ?? replies.find((r) => !r.ok);
    if (failed !== undefined && !failed.ok) {
      throw failed.name === 'RangeError' ? new RangeError(failed.error) : new Error(failed.error);
    }
    const results: R[] = [];
    const threadMs: number[] = [];
    const threadKernels: ('wasm' | 'javascript')[] = [];
    for (const reply of replies) {
      if (!reply.ok) continue;
      results.push(reply.result as R);
      threadMs.push(reply.ms);
      threadKernels.push(reply.kernels ?? 'javascript');
    }
    this.lastKernels = threadKernels;
    if (name !== '') this.timings?.phases.push({ name, wallMs, threadMs, threadKernels });
    return results;
  }

  /**
   * Sends task(k) to each thread k, which runs `steps` with a barrier
   * between them; records each step as a phase: its wall time (up to the
   * last thread's arrival at the barrier after it) and each thread's own.
   * True when a thread stopped before the steps (see the build task).
   */
  async steps(steps: string[], task: (k: number) => Task): Promise<boolean> {
    resetBarrier(this.sync!);
    // The threads' clock: comparable between threads, unlike performance.now().
    const sent = clock();
    const times = await this.phase<StepTimes & { stopped?: boolean }>('', task);
    times.forEach((t, k) => {
      const valid =
        typeof t === 'object' &&
        t !== null &&
        Array.isArray(t.work) &&
        Array.isArray(t.done) &&
        t.work.length <= steps.length + 1 &&
        t.done.length === t.work.length;
      if (!valid) this.malformed(k, 'step times');
    });
    // A step ends when its last thread finishes it; the next starts then (a late waker's delay counts in it).
    let start = sent;
    const ran = Math.min(steps.length, ...times.map((t) => t.done.length));
    for (let j = 0; j < ran; j++) {
      const end = Math.max(...times.map((t) => t.done[j]));
      this.timings?.phases.push({
        name: steps[j],
        wallMs: end - start,
        threadMs: times.map((t) => t.work[j]),
        threadKernels: this.lastKernels,
      });
      start = end;
    }
    return times.some((t) => t.stopped === true);
  }

  /** Ends thread k, whose reply is not what its task returns (`what`), and throws the Error saying so. */
  malformed(k: number, what: string): never {
    const error = new Error(
      `PointGridWorkers: worker ${k} sent a malformed ${what} during ${this.call}() (does createWorker start this package's worker script?)`,
    );
    this.channels[k].fail(error);
    throw error;
  }

  /** Starts worker k. */
  private start(index: number): Channel {
    const { worker, origin } =
      this.createWorker === undefined ? defaultWorker() : { worker: this.createWorker(), origin: CUSTOM_ORIGIN };
    try {
      return new Channel(worker, index, origin, this);
    } catch (error) {
      (worker as Partial<WorkerLike> | null)?.terminate?.();
      throw error;
    }
  }
}
