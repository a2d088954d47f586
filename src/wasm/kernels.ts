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
import { describe } from '../core/validate.js';
import { KERNELS_BASE64 } from './binary.js';

/**
 * Which implementation the batch paths of PointGrid2D and PointGrid3D use
 * (builds of dense grids, `forEachPair`, `pairs`, `neighbors`):
 * - `'auto'` (the default): the WebAssembly kernels where the engine compiles
 *   them, the JavaScript path otherwise;
 * - `'wasm'`: the kernels, or an Error from the first grid call where they
 *   cannot be compiled;
 * - `'javascript'`: the JavaScript path only.
 */
export type KernelMode = 'auto' | 'wasm' | 'javascript';

/**
 * The functions the module exports (see src/wasm/assembly/index.ts).
 *
 * @internal
 */
export interface KernelExports {
  bounds64(pos: number, n: number, d: number, out: number): number;
  bounds32(pos: number, n: number, d: number, out: number): number;
  countDense64(...args: number[]): void;
  countDense32(...args: number[]): void;
  /** Returns the largest cell's count. */
  prefixSums(cellStart: number, cells: number, n: number): number;
  scatter64(...args: number[]): void;
  scatter32(...args: number[]): void;
  sortCells64(...args: number[]): void;
  sortCells32(...args: number[]): void;
  setGrid(...args: number[]): void;
  startSearch(...args: number[]): void;
  setOutput(at: number, capacity: number, used: number): void;
  searchPairs2d64(): number;
  searchPairs2d32(): number;
  searchPairs3d64(): number;
  searchPairs3d32(): number;
  originalPairs(order: number, pairs: number, length: number, points: number): void;
  rowStarts(order: number, partners: number, rowEnd: number, offsets: number, cursor: number, count: number): void;
  fillRows(
    order: number,
    partners: number,
    rowEnd: number,
    cursor: number,
    indices: number,
    count: number,
    total: number,
  ): void;
  setQueryGrid(...args: number[]): void;
  within2d64(x: number, y: number, radius: number, target: number): number;
  within2d32(x: number, y: number, radius: number, target: number): number;
  countHashed64(...args: number[]): number;
  countHashed32(...args: number[]): number;
  orderCells(...args: number[]): void;
  fillLookup(slots: number, mask: number, keys: number, cells: number, d: number): void;
  within3d64(x: number, y: number, z: number, radius: number, target: number): number;
  within3d32(x: number, y: number, z: number, radius: number, target: number): number;
  setWeldTable(slots: number, occupied: number, keys: number, heads: number, next: number, initialSlots: number): void;
  weldNear3d64(...args: number[]): number;
  weldNear3d32(...args: number[]): number;
  weldNear2d64(...args: number[]): number;
  weldNear2d32(...args: number[]): number;
  weldExact(coords: number, n: number, d: number, remap: number, representatives: number, repCoords: number): number;
  sortWindow(queries: number, d: number, from: number, to: number, bucket: number, counts: number, order: number): void;
  gatherWindow(results: number, rowStart: number, rowCount: number, count: number, rows: number): void;
  withinMany64(...args: number[]): number;
  withinMany32(...args: number[]): number;
  written: WebAssembly.Global;
  length: WebAssembly.Global;
  needed: WebAssembly.Global;
}

/**
 * `globalThis.SPATIALHASH_WORKER_SCRIPT` is replaced by `true` in the pool's
 * worker script, by its bundler (scripts/worker-bundle.cjs), where load()'s
 * test of it is then constant and the embedded module drops out of the script.
 */
interface Flags {
  SPATIALHASH_WORKER_SCRIPT?: boolean;
}

const PAGE = 65536;
/**
 * Bytes below this are left to the module (it has no data; the bounds scratch lives at 0).
 *
 * @internal
 */
export const KERNEL_BASE = 1024;

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
   * What grid the memory holds a copy of after a build or search (see
   * grid-kernels.ts): its buffer and how many builds it had seen; undefined when none.
   */
  mirrorData: ArrayBuffer | SharedArrayBuffer | undefined = undefined;
  mirrorStamp = -1;
  /** A buffer whose copy stays valid, shared or not, while a pool thread's task runs (see pinGrid in grid-kernels.ts). */
  pinned: ArrayBuffer | SharedArrayBuffer | undefined = undefined;

  constructor(module: WebAssembly.Module) {
    this.module = module;
    this.memory = new WebAssembly.Memory({ initial: 16 });
    const instance = new WebAssembly.Instance(module, { env: { memory: this.memory } });
    this.exports = instance.exports as unknown as KernelExports;
    this.views();
  }

  /** Drops the record of the grid the memory holds, before a job (a weld) writes over it. */
  forgetGrid(): void {
    this.mirrorData = undefined;
    this.mirrorStamp = -1;
  }

  private views(): void {
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
    const have = this.memory.buffer.byteLength;
    if (bytes <= have) return true;
    if (!(bytes <= 2 ** 32 - PAGE)) return false;
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
 * for every grid of this module instance (and its thread): see
 * {@link KernelMode}. Both give the same results in the same order; the
 * switch is for tests, benchmarks and pages that must not compile
 * WebAssembly.
 *
 * @throws RangeError for a mode other than 'auto', 'wasm' or 'javascript'.
 */
export function setKernelMode(value: KernelMode): void {
  if (value !== 'auto' && value !== 'wasm' && value !== 'javascript') {
    throw new RangeError(`kernel mode must be 'auto', 'wasm' or 'javascript', got ${describe(value)}`);
  }
  mode = value;
}

/**
 * The implementation the batch paths use now: `'wasm'` when the kernels are
 * compiled and chosen, else `'javascript'` (also while a page's main thread
 * is still compiling them in the background).
 */
export function activeKernels(): 'wasm' | 'javascript' {
  return mode !== 'javascript' && load() !== undefined ? 'wasm' : 'javascript';
}

function decode(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let k = 0; k < text.length; k++) bytes[k] = text.charCodeAt(k);
  return bytes;
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
  const base64 = (globalThis as Flags).SPATIALHASH_WORKER_SCRIPT ? '' : KERNELS_BASE64;
  if (base64 === '') {
    compileError = new Error('the calling thread posted no compiled module to this PointGridWorkers thread');
    return undefined;
  }
  const bytes = decode(base64);
  try {
    instance = new Kernels(new WebAssembly.Module(bytes));
  } catch (error) {
    // Chromium's main thread refuses to compile modules over 4 KiB synchronously (a RangeError): compile in the
    // background. Anything else (no SIMD, a CSP without 'wasm-unsafe-eval') is final.
    if (error instanceof RangeError && typeof WebAssembly.compile === 'function') {
      pending = WebAssembly.compile(bytes).then(
        (module) => {
          instance = new Kernels(module);
        },
        (reason) => {
          instance = null;
          compileError = reason;
        },
      );
      return undefined;
    }
    instance = null;
    compileError = error;
  }
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
  try {
    instance = new Kernels(module);
  } catch (error) {
    instance = null;
    compileError = error;
  }
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
  instance = new Kernels(k.module);
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
 * A trap of the WebAssembly machine (an access past the kernels' memory,
 * which their own bounds should never let happen) as an Error naming the
 * call `what`; any other error as it is.
 *
 * @internal
 */
export function trapError(what: string, error: unknown): unknown {
  if (typeof WebAssembly === 'object' && error instanceof WebAssembly.RuntimeError) {
    return new Error(`spatialhash: ${what} stopped in the WebAssembly kernels (${error.message})`, { cause: error });
  }
  return error;
}
