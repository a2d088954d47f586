/**
 * The kernels' cache of one grid: their memory holds a copy of one grid's
 * buffer (the mirror), which a build on the kernels leaves there and any
 * search or query of that grid reads; any other grid is copied in first
 * (about 4 ms a million 2D points, against a search of 100 ms or more). A
 * grid's buffer (`grid.data`) stays an ordinary ArrayBuffer or
 * SharedArrayBuffer, so `data`, `from()`, transfers and the format do not
 * depend on the kernels. The kernels' memory keeps its largest size
 * (WebAssembly memory cannot shrink).
 *
 * The records of what the memory holds are fields of the Kernels instance
 * (kernels.ts), so that releaseKernelMemory()'s fresh instance holds
 * nothing; this module and the operations' glue keep them true. The
 * invariant, which every file of src/wasm keeps:
 *
 * - The mirror: from KERNEL_BASE on, a copy of the grid buffer
 *   `Kernels.mirrorData` as it was after its build number
 *   `Kernels.mirrorBuilds` (the count of builds published into that buffer,
 *   see KernelGrid.builds); undefined when the memory holds no grid. A grid
 *   may search the mirror only while its buffer is `mirrorData` and has seen
 *   no build since ({@link current}); a SharedArrayBuffer only while pinned
 *   ({@link pinGrid}: another thread may build into it at any other time).
 * - The kernels' grid state (setGrid, from the grid record, see layout.ts's
 *   writeGridRecord) describes the mirror as `Kernels.queryGrid` reads it,
 *   with a query's result area at `Kernels.queryTarget`, right after the
 *   mirror; `queryGrid` is undefined when that state describes nothing a
 *   query may trust.
 *
 * Whatever writes into the mirror's bytes (a build, a copy-in, a weld) first
 * calls Kernels.forgetGrid, which clears both records, and sets the mirror
 * record again (Kernels.holdGrid) only once the copy is whole; a pair search
 * sets the grid state for its own grid and clears `queryGrid`. A trap clears
 * both (see trapError in kernels.ts). The tests that fail when one of these
 * steps is left out: test/wasm/kernel-state.test.ts.
 *
 * @module
 */
import { type Kernels, kernels } from './kernels.js';
import { type KernelGrid, type Layout, layoutOf, MIRRORED } from './layout.js';

/** Whether `data` is a SharedArrayBuffer (which another thread may rebuild at any time). */
export function isShared(data: ArrayBuffer | SharedArrayBuffer): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && data instanceof SharedArrayBuffer;
}

/** Whether the kernels' memory holds `g` as it is now (see the invariant above). */
export function current(k: Kernels, g: KernelGrid): boolean {
  if (k.mirrorData !== g.data) return false;
  // A shared buffer only while pinned (see pinGrid): another thread may rebuild it at any other time.
  return k.pinned === g.data || (!isShared(g.data) && k.mirrorBuilds === g.builds);
}

/**
 * Lets the kernels keep their copy of the grid in `data` (a
 * SharedArrayBuffer too) until {@link unpinGrid}, from a fresh copy made by
 * the next search: for a PointGridWorkers thread, whose task searches
 * several slices of a grid that no thread rebuilds meanwhile. Does nothing
 * where the kernels are off.
 */
export function pinGrid(data: ArrayBuffer | SharedArrayBuffer): void {
  const k = kernels();
  if (k === undefined) return;
  k.forgetGrid();
  k.pinned = data;
}

/** Ends {@link pinGrid}: a shared buffer is copied in afresh by every search again. */
export function unpinGrid(): void {
  const k = kernels();
  if (k !== undefined) k.pinned = undefined;
}

/**
 * Makes the kernels' memory hold `g`, copying it in unless it is there
 * already; returns its layout (the {@link MIRRORED} record), or undefined
 * when the memory cannot grow that far.
 */
export function copyIn(k: Kernels, g: KernelGrid): Layout | undefined {
  const d = g.dimension;
  const n = g.points;
  const cells = g.cellTotal;
  const float32 = g.coords instanceof Float32Array;
  const layout = layoutOf(MIRRORED, d, n, float32, cells, g.dense, g.slotMask + 1);
  if (current(k, g)) return layout;
  if (!k.reserve(layout.end)) return undefined;
  k.forgetGrid();
  if (!g.dense) k.i32.set(g.slots.subarray(0, g.slotMask + 1), layout.slots >> 2);
  if (float32) k.f32.set(g.coords.subarray(0, d * n), layout.coords >> 2);
  else k.f64.set(g.coords.subarray(0, d * n), layout.coords >> 3);
  k.u32.set(g.sortedIndex.subarray(0, n), layout.sortedIndex >> 2);
  k.i32.set(g.cellStart.subarray(0, cells + 1), layout.cellStart >> 2);
  if (!g.dense) k.f64.set(g.keys.subarray(0, d * cells), layout.keys >> 3);
  k.holdGrid(g.data, g.builds);
  return layout;
}
