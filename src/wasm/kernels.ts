/**
 * The WebAssembly kernels: loading the module embedded in binary.ts, the
 * switch between them and the JavaScript path, and the one memory they work
 * in.
 *
 * The module is compiled once, on first use, synchronously where the engine
 * allows it (Node, workers; Chromium refuses synchronous compiles of more
 * than 4 KiB on a page's main thread, and there it compiles in the
 * background while the JavaScript path answers). Where it cannot be compiled
 * at all (no WebAssembly, no SIMD, or a Content Security Policy without
 * 'wasm-unsafe-eval') the JavaScript path is used for good. Either path gives
 * the same results in the same order: the kernels repeat the JavaScript
 * loops operation for operation (test/wasm checks both on every property
 * test).
 *
 * @module
 */

import { inflateEmbedded } from '../core/inflate.js';
import { describe } from '../core/validate.js';
import { KERNELS_BASE64, KERNELS_LENGTH } from './binary.js';
// The module's exports, declared from its AssemblyScript by scripts/build-wasm.mjs.
import type { KernelExports } from './exports.js';

/**
 * Which implementation the batch paths of PointGrid2D and PointGrid3D use
 * (builds of dense grids, `forEachPair`, `pairs`, `neighbors`):
 * - `'auto'` (the default): the WebAssembly kernels where the engine compiles
 *   them, the JavaScript path otherwise;
 * - `'wasm'`: the kernels, or an Error from the first grid call where they
 *   cannot be compiled;
 * - `'javascript'`: the JavaScript path only;
 * - `'verify'`: both, for a user who doubts an answer: each call the kernels
 *   answer is answered on the JavaScript path too, and the first difference
 *   throws an Error saying where (the JavaScript path's answer is the one
 *   returned, and a `forEachPair` visitor is called once per pair, from the
 *   JavaScript search). Slower than either; for tests and bug reports.
 */
export type KernelMode = 'auto' | 'wasm' | 'javascript' | 'verify';

/**
 * `globalThis.SPATIALHASH_WORKER_SCRIPT` is replaced by `true` in the pool's
 * worker script, by its bundler (scripts/worker-bundle.cjs), where load()'s
 * test of it is then constant and the embedded module drops out of the script.
 */
interface Flags {
  SPATIALHASH_WORKER_SCRIPT?: boolean;
}

const PAGE = 65536;
/** The most bytes the memory may grow to: wasm32 addresses 4 GiB (tests lower it, see kernelMemoryLimitForTests). */
let memoryLimit = 2 ** 32 - PAGE;

/**
 * Sets the most bytes the kernels may reserve (default 4 GiB less a page, the
 * most their memory may grow to) and returns the last limit, so that tests
 * can make a reservation fail part-way through a call, as one at the 4 GiB
 * limit would. A limit below the memory's size holds too (see
 * Kernels.reserve): the memory is at least 1 MiB, past any small grid's
 * needs. Internal.
 *
 * @internal
 */
export function kernelMemoryLimitForTests(bytes: number): number {
  const last = memoryLimit;
  memoryLimit = bytes;
  return last;
}
/** A typed view of the kernels' memory. */
type MemoryView = Int32Array | Uint32Array | Float32Array | Float64Array;
/** The constructor of a {@link MemoryView}. */
type MemoryViewType<T extends MemoryView> = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => T;
/**
 * Views Kernels.sectionOf keeps: more than the sections a build copies out (at most five) and forEachPair's view of
 * its batches (pair-kernels.ts), so that a frame loop makes none.
 */
const KEPT_SECTIONS = 8;

/**
 * One instance of the kernels and its memory, with typed views that follow the memory as it grows.
 *
 * @internal
 */
export class Kernels {
  readonly exports: KernelExports;
  readonly memory: WebAssembly.Memory;
  /** The compiled module, which workers can instantiate without compiling again. */
  readonly module: WebAssembly.Module;
  u8!: Uint8Array;
  i32!: Int32Array;
  u32!: Uint32Array;
  f32!: Float32Array;
  f64!: Float64Array;
  /**
   * True while a kernel's state is in use across calls back into JavaScript
   * (a pair search handing batches to a visitor): a search started from
   * inside that visitor takes the JavaScript path instead.
   */
  busy = false;
  /**
   * What the memory holds: the grid buffer it holds a copy of (the mirror),
   * and after which of that buffer's builds. These records, and those below,
   * belong to the instance, so that {@link releaseKernelMemory}'s fresh one
   * holds nothing; what they promise, and who keeps them true, is the
   * invariant written in mirror.ts.
   */
  mirrorData: ArrayBuffer | SharedArrayBuffer | undefined = undefined;
  mirrorBuilds = -1;
  /** The grid the kernels' grid state was last set for by a query (see mirror.ts); undefined when none may trust it. */
  queryGrid: object | undefined = undefined;
  /** Where a query writes its result: right after the mirror of {@link queryGrid}. */
  queryTarget = 0;
  /**
   * Queries since one copied its grid into the memory: a query of another grid
   * waits for enough of them before it copies again (see within in within-kernels.ts).
   */
  queriesSinceCopy = Number.POSITIVE_INFINITY;
  /** A buffer whose copy stays valid, shared or not, while a pool thread's task runs (see pinGrid in mirror.ts). */
  pinned: ArrayBuffer | SharedArrayBuffer | undefined = undefined;

  constructor(module: WebAssembly.Module) {
    this.module = module;
    this.memory = new WebAssembly.Memory({ initial: 16 });
    const instance = new WebAssembly.Instance(module, { env: { memory: this.memory } });
    this.exports = instance.exports as unknown as KernelExports;
    this.views();
  }

  /**
   * Drops the records of what the memory holds (the mirror and the grid
   * state's query grid), before anything writes over the mirror's bytes: a
   * build, a copy-in, a weld (see mirror.ts).
   */
  forgetGrid(): void {
    this.mirrorData = undefined;
    this.mirrorBuilds = -1;
    this.queryGrid = undefined;
  }

  /** Records that the memory now holds a whole copy of `data` after its build number `builds` (see mirror.ts). */
  holdGrid(data: ArrayBuffer | SharedArrayBuffer, builds: number): void {
    this.mirrorData = data;
    this.mirrorBuilds = builds;
    this.queryGrid = undefined;
  }

  /**
   * `length` elements of the memory from byte `at` as `type`'s view: one of
   * the last few views handed out when it matches (same type, place and
   * length), else a new one, kept in their place. A frame loop copies the same
   * sections every frame (a build's result out into the grid's buffer, say),
   * so it allocates no view after its first frame, where a `subarray()` per
   * copy would leave garbage every frame. Views of a memory that has grown
   * since are never handed out (growing detaches them, and {@link views}
   * forgets them all).
   */
  sectionOf<T extends MemoryView>(type: MemoryViewType<T>, at: number, length: number): T {
    const kept = this.sections;
    for (let k = 0; k < kept.length; k++) {
      const view = kept[k];
      if (view.constructor === type && view.byteOffset === at && view.length === length) return view as T;
    }
    const view = new type(this.memory.buffer, at, length);
    if (kept.length < KEPT_SECTIONS) kept.push(view);
    else kept[this.nextSection] = view;
    this.nextSection = (this.nextSection + 1) % KEPT_SECTIONS;
    return view;
  }

  private sections: MemoryView[] = [];
  private nextSection = 0;

  private views(): void {
    this.sections = [];
    this.nextSection = 0;
    const buffer = this.memory.buffer;
    this.u8 = new Uint8Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.f32 = new Float32Array(buffer);
    this.f64 = new Float64Array(buffer);
  }

  /**
   * Makes the memory at least `bytes` long; false when it cannot grow that
   * far (wasm32 addresses 4 GiB), in which case the caller takes the
   * JavaScript path. Growing detaches the old views: callers take the views
   * afresh after calling this.
   */
  reserve(bytes: number): boolean {
    // The limit first, though the memory may hold the bytes already: tests lower it below the memory's size (see
    // kernelMemoryLimitForTests), so that a small grid's reservation fails part-way through a call as a large one's
    // does at 4 GiB. (The memory never grows past the default limit, so the order changes nothing outside tests.)
    if (!(bytes <= memoryLimit)) return false;
    const have = this.memory.buffer.byteLength;
    if (bytes <= have) return true;
    const pages = Math.ceil((bytes - have) / PAGE);
    // Grow by at least an eighth, so a result growing step by step does not regrow every call.
    const grow = Math.max(pages, Math.min(Math.ceil(have / PAGE / 8), 65535 - have / PAGE));
    try {
      this.memory.grow(grow);
    } catch {
      try {
        this.memory.grow(pages);
      } catch {
        return false;
      }
    }
    this.views();
    return true;
  }
}

let mode: KernelMode = 'auto';
/** The compiled instance; null once compiling failed; undefined before the first try. */
let instance: Kernels | null | undefined;
let compileError: unknown;
let pending: Promise<unknown> | undefined;

/**
 * Chooses the implementation of PointGrid2D's and PointGrid3D's batch paths
 * and of weld for every grid of this module instance (and its thread): see
 * {@link KernelMode}. Both give the same results in the same order; the
 * switch is for tests, benchmarks, pages that must not compile WebAssembly,
 * and (`'verify'`) for checking that claim on your own data. A
 * PointGridWorkers pool's threads follow the mode of the thread that calls
 * the pool.
 *
 * @throws RangeError for a mode other than 'auto', 'wasm', 'javascript' or 'verify'.
 */
export function setKernelMode(value: KernelMode): void {
  if (value !== 'auto' && value !== 'wasm' && value !== 'javascript' && value !== 'verify') {
    throw new RangeError(`kernel mode must be 'auto', 'wasm', 'javascript' or 'verify', got ${describe(value)}`);
  }
  mode = value;
}

/**
 * The implementation the batch paths use now: `'wasm'` when the kernels are
 * compiled and chosen (mode 'verify' included, which runs the JavaScript path
 * too), else `'javascript'` (also while a page's main thread is still
 * compiling them in the background, and where they cannot run at all).
 */
export function activeKernels(): 'wasm' | 'javascript' {
  return mode !== 'javascript' && load() !== undefined ? 'wasm' : 'javascript';
}

/**
 * Whether mode 'verify' is on: each call answered on the kernels is answered
 * on the JavaScript path too, and a difference throws (see {@link verifyError}).
 *
 * @internal
 */
export function verifying(): boolean {
  return mode === 'verify';
}

/**
 * Runs `work` on the JavaScript path (mode 'javascript' for its duration):
 * how mode 'verify' gets the answer it compares the kernels' with. The
 * kernels' memory and records are not touched by the switch.
 *
 * @internal
 */
export function onJavaScript<T>(work: () => T): T {
  return inMode('javascript', work);
}

/**
 * Runs `work` as mode 'auto' would (the kernels where they run): how mode
 * 'verify' gets the kernels' answer to a call it then repeats in JavaScript.
 *
 * @internal
 */
export function onKernels<T>(work: () => T): T {
  return inMode('auto', work);
}

function inMode<T>(value: KernelMode, work: () => T): T {
  const last = mode;
  mode = value;
  try {
    return work();
  } finally {
    mode = last;
  }
}

/**
 * Instantiates `module` into {@link instance}, or, where that fails (a
 * WebAssembly.Memory the engine cannot allocate, under a low address-space
 * limit say), leaves the JavaScript path on for good and keeps the reason.
 */
function instantiate(module: WebAssembly.Module): void {
  try {
    instance = new Kernels(module);
  } catch (error) {
    instance = null;
    compileError = error;
  }
}

/** The instance, compiling it on first call; undefined where it cannot be (or is not yet). */
function load(): Kernels | undefined {
  if (instance !== undefined) return instance ?? undefined;
  if (pending !== undefined) return undefined;
  if (typeof WebAssembly !== 'object') {
    instance = null;
    compileError = new Error('this engine has no WebAssembly');
    return undefined;
  }
  // The pool's worker script carries no module of its own: its first task brings the caller's (useKernelModule).
  // (Folded at bundle time, so that the worker carries neither the module nor the inflater.)
  const bytes = (globalThis as Flags).SPATIALHASH_WORKER_SCRIPT
    ? undefined
    : inflateEmbedded(KERNELS_BASE64, KERNELS_LENGTH);
  if (bytes === undefined) {
    compileError = new Error('the calling thread posted no compiled module to this PointGridWorkers thread');
    return undefined;
  }
  let module: WebAssembly.Module;
  try {
    module = new WebAssembly.Module(bytes);
  } catch (error) {
    // Chromium's main thread refuses to compile modules over 4 KiB synchronously (a RangeError): compile in the
    // background. Anything else (no SIMD, a CSP without 'wasm-unsafe-eval') is final. Only the compile is in
    // this try: a RangeError of the instance's memory (see instantiate) is not that refusal.
    if (error instanceof RangeError && typeof WebAssembly.compile === 'function') {
      // Every outcome is handled here, so this promise never rejects.
      pending = WebAssembly.compile(bytes).then(instantiate, (reason: unknown) => {
        instance = null;
        compileError = reason;
      });
      return undefined;
    }
    instance = null;
    compileError = error;
    return undefined;
  }
  instantiate(module);
  return instance ?? undefined;
}

/**
 * The kernels when a batch path should use them now, else undefined (mode
 * 'javascript', not compilable, still compiling, or busy with a search that
 * called back into JavaScript).
 *
 * @throws Error in mode 'wasm' when the module cannot be compiled.
 *
 * @internal
 */
export function kernels(): Kernels | undefined {
  if (mode === 'javascript') return undefined;
  const k = load();
  if (k === undefined && mode === 'wasm' && pending === undefined) {
    throw new Error(
      `spatialhash: kernel mode 'wasm', but the WebAssembly kernels cannot be compiled here: ${compileError}`,
    );
  }
  if (k === undefined || k.busy) return undefined;
  return k;
}

/**
 * The compiled module, for handing to workers (undefined where it cannot be compiled, or not yet).
 *
 * @internal
 */
export function kernelModule(): WebAssembly.Module | undefined {
  return load()?.module;
}

/**
 * The mode {@link setKernelMode} set last on this thread (forwarded to the pool's threads with each task).
 *
 * @internal
 */
export function kernelMode(): KernelMode {
  return mode;
}

/**
 * Runs the kernels from `module` (compiled by another thread and posted
 * here), unless this thread has them already: how a PointGridWorkers thread
 * gets them without compiling, or carrying, a module of its own. Where the
 * module cannot be instantiated the JavaScript path stays.
 *
 * @internal
 */
export function useKernelModule(module: WebAssembly.Module): void {
  if (instance !== undefined && instance !== null) return;
  instantiate(module);
}

/**
 * Gives the kernels' WebAssembly memory on this thread back to the engine,
 * for a program that has finished its large calls: the memory grows to the
 * largest job done so far (a grid's copy, a search's partner lists and
 * scratch; 123 MiB after neighbour lists of a million 3D points, 14.6 million
 * partners) and a WebAssembly memory cannot shrink, so it is replaced by a
 * fresh instance of
 * the same compiled module with 1 MiB. Results do not change: the next call
 * copies its grid in again (a memcpy, about 4 ms a million 2D points) and
 * grows the new memory as it needs. Each PointGridWorkers thread has kernels
 * of its own, which `close()` frees. Does nothing while a `forEachPair`
 * visitor runs on the kernels (their search is waiting on it).
 *
 * @returns The bytes of the memory given back (0 when the kernels were never
 *   used on this thread, cannot run here, or are waiting on a visitor).
 */
export function releaseKernelMemory(): number {
  const k = instance;
  if (k === undefined || k === null || k.busy) return 0;
  const bytes = k.memory.buffer.byteLength;
  // (Where even the fresh memory cannot be allocated, the JavaScript path stays on: see instantiate.)
  instantiate(k.module);
  return bytes;
}

/**
 * Runs `work` (calls into the kernels for `what`), turning a trap of the
 * WebAssembly machine into an Error that names the call (see {@link trapError}).
 *
 * @internal
 */
export function guarded<T>(what: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw trapError(what, error);
  }
}

/**
 * Whether `error` is a trap of the WebAssembly machine; if so the kernels'
 * records are reset, as {@link trapError} does.
 *
 * @internal
 */
export function isTrap(error: unknown): boolean {
  return trapError('', error) !== error;
}

/**
 * A trap of the WebAssembly machine (an access past the kernels' memory,
 * which their own bounds should never let happen) as an Error naming the
 * call `what`; any other error as it is. After a trap the kernels' records
 * are reset (see mirror.ts): the call stopped part-way, so what the
 * memory holds is no one's grid, and the next call copies its grid in afresh.
 *
 * @internal
 */
export function trapError(what: string, error: unknown): unknown {
  if (typeof WebAssembly === 'object' && error instanceof WebAssembly.RuntimeError) {
    if (instance) {
      instance.forgetGrid();
      instance.busy = false;
    }
    return new Error(`spatialhash: ${what} stopped in the WebAssembly kernels (${error.message})`, { cause: error });
  }
  return error;
}
