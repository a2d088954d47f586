/**
 * The builds of PointGrid2D / PointGrid3D on the WebAssembly kernels (dense
 * and hashed), each giving byte for byte what the JavaScript build gives
 * (pointgrid/grid-base.ts, build-loops.ts). The build runs in the kernels'
 * memory, is copied out into the grid's buffer, and stays there as the
 * mirror (see mirror.ts), so the grid's next search need not copy it in.
 *
 * @module
 */
import { introDepthPerLevel, SMALL_CELL } from '../core/sort-keys.js';
import type { NumericArray } from '../core/validate.js';
import { isTrap, type Kernels, kernels } from './kernels.js';
import { align8, BUILT, copyPositions, type KernelGrid, type Layout, layoutOf, MOST } from './layout.js';

/**
 * The dense build of `g` (its bounds, cell counts and capacity already set
 * by the caller, exactly as for the JavaScript build) on the kernels, the
 * result copied into the grid's buffer. False, with nothing changed, when the
 * kernels are off or their memory cannot hold the build; the caller then
 * builds in JavaScript.
 */
export function buildDense(g: KernelGrid, positions: NumericArray): boolean {
  const k = kernels();
  if (k === undefined) return false;
  try {
    return denseOnKernels(k, g, positions);
  } catch (error) {
    // A trap, which the kernels' bounds should never let happen: the records are reset (see trapError) and the
    // caller builds in JavaScript, from the start, so the grid gets the right build all the same.
    if (isTrap(error)) return false;
    throw error;
  }
}

function denseOnKernels(k: Kernels, g: KernelGrid, positions: NumericArray): boolean {
  const d = g.dimension;
  const n = g.points;
  const float32 = g.coords instanceof Float32Array;
  const size = float32 ? 4 : 8;
  const cells = g.cellTotal;
  const layout = layoutOf(BUILT, d, n, float32, cells, true);
  const input = layout.end;
  const cellOf = input + align8(n * d * size);
  if (!k.reserve(cellOf + 4 * n)) return false;
  // From here on the build writes over the mirror's bytes, and may yet fall back to JavaScript part-way.
  k.forgetGrid();
  copyPositions(k, positions, n, d, g.stride, g.offset, float32, input);
  const e = k.exports;
  const layer = g.cellsX * g.cellsY;
  const count = float32 ? e.countDense32 : e.countDense64;
  count(input, n, d, g.originX, g.originY, g.originZ, g.width, g.cellsX, layer, cells, cellOf, layout.cellStart);
  const largest = e.prefixSums(layout.cellStart, cells, n);
  (float32 ? e.scatter32 : e.scatter64)(input, n, d, cellOf, layout.cellStart, layout.coords, layout.sortedIndex);
  if (!sortCells(k, layout, cells, d, float32, largest, cellOf + 4 * n)) return false;
  g.cellStart.set(k.sectionOf(Int32Array, layout.cellStart, cells + 1));
  g.sortedIndex.set(k.sectionOf(Uint32Array, layout.sortedIndex, n));
  if (float32) g.coords.set(k.sectionOf(Float32Array, layout.coords, d * n));
  else g.coords.set(k.sectionOf(Float64Array, layout.coords, d * n));
  // The caller publishes the build next, which counts it (g.builds + 1).
  k.holdGrid(g.data, g.builds + 1);
  return true;
}

/** Cells of each grid's last hashed build on the kernels: the size its next count's table starts from. */
const lastCells = new WeakMap<KernelGrid, number>();

/**
 * The hashed build of `g` (bounds, origin and capacity for the points already
 * set by the caller, as for the JavaScript build) on the kernels: counts the
 * occupied cells, numbers them in row-major order, then, once `reserveCells`
 * has made room for them in the grid's buffer, sorts the points into them and
 * fills the lookup; the result is copied into the grid's buffer. False, with
 * the grid's buffer untouched, when the kernels are off or out of memory.
 */
export function buildHashed(g: KernelGrid, positions: NumericArray, reserveCells: (cells: number) => void): boolean {
  const k = kernels();
  if (k === undefined) return false;
  try {
    return hashedOnKernels(k, g, positions, reserveCells);
  } catch (error) {
    // (A trap: see buildDense.)
    if (isTrap(error)) return false;
    throw error;
  }
}

function hashedOnKernels(
  k: Kernels,
  g: KernelGrid,
  positions: NumericArray,
  reserveCells: (cells: number) => void,
): boolean {
  const d = g.dimension;
  const n = g.points;
  const float32 = g.coords instanceof Float32Array;
  const size = float32 ? 4 : 8;
  // The counting table: sized for the cells of the last hashed build of this grid (or a quarter of the points),
  // load at most 1/2, grown when the count outgrows it. Sized by the points it would be ten times larger than
  // clustered data needs, and every cache miss into it costs.
  const expected = Math.max(64, lastCells.get(g) ?? n >> 2);
  let tableSlots = 16;
  while (tableSlots < 4 * expected) tableSlots *= 2;
  // Work areas past the largest mirror this build can make: at most n cells, and the lookup the grid's
  // buffer may grow to (see slotsFor in pointgrid/grid-data.ts).
  const most = layoutOf(MOST, d, n, float32, n, false, Math.max(g.slotMask + 1, 8 * n + 16));
  const input = most.end;
  const cellOf = input + align8(n * d * size);
  const firstKeys = cellOf + align8(4 * n);
  const counts = firstKeys + 8 * d * n;
  const ids = counts + align8(4 * n);
  const rank = ids + align8(4 * n);
  const sortKeys = rank + align8(4 * n);
  const table = sortKeys + 8 * d * n;
  if (!k.reserve(table + 4 * tableSlots)) return false;
  // From here on the build writes over the mirror's bytes (see buildDense).
  k.forgetGrid();
  copyPositions(k, positions, n, d, g.stride, g.offset, float32, input);
  const e = k.exports;
  const count = float32 ? e.countHashed32 : e.countHashed64;
  let cells = -1;
  for (; cells < 0; tableSlots *= 4) {
    if (!k.reserve(table + 4 * tableSlots)) return false;
    const mask = tableSlots - 1;
    cells = count(input, n, d, g.originX, g.originY, g.originZ, g.width, cellOf, table, mask, firstKeys, counts);
  }
  lastCells.set(g, cells);
  // Room in the grid's buffer for the cells (this may replace it), before anything of the grid is written.
  reserveCells(cells);
  const layout = layoutOf(BUILT, d, n, float32, cells, false, g.slotMask + 1);
  e.orderCells(firstKeys, counts, cells, d, n, cellOf, ids, rank, layout.keys, layout.cellStart, sortKeys);
  const largest = e.prefixSums(layout.cellStart, cells, n);
  (float32 ? e.scatter32 : e.scatter64)(input, n, d, cellOf, layout.cellStart, layout.coords, layout.sortedIndex);
  // The count's work areas from firstKeys on are free now, and hold the crowded cells' scratch (at most
  // (16 + 8d) bytes a point, against their 16d + 12): no growing, so this cannot fail after reserveCells.
  sortCells(k, layout, cells, d, float32, largest, firstKeys);
  e.fillLookup(layout.slots, g.slotMask, layout.keys, cells, d);
  g.cellTotal = cells;
  g.cellStart.set(k.sectionOf(Int32Array, layout.cellStart, cells + 1));
  g.keys.set(k.sectionOf(Float64Array, layout.keys, d * cells));
  g.slots.set(k.sectionOf(Int32Array, layout.slots, g.slotMask + 1));
  g.sortedIndex.set(k.sectionOf(Uint32Array, layout.sortedIndex, n));
  if (float32) g.coords.set(k.sectionOf(Float32Array, layout.coords, d * n));
  else g.coords.set(k.sectionOf(Float64Array, layout.coords, d * n));
  // The caller publishes the build next, which counts it (g.builds + 1).
  k.holdGrid(g.data, g.builds + 1);
  return true;
}

/**
 * Sorts every cell of a build by (x, index): crowded cells (more than
 * SMALL_CELL points, the largest `largest`) through the kernels' records,
 * their scratch from `end` on (rounded up to 16 bytes). False when the
 * memory cannot grow for it (the caller then builds in JavaScript, the
 * grid's buffer untouched).
 */
function sortCells(
  k: Kernels,
  layout: Layout,
  cells: number,
  d: number,
  float32: boolean,
  largest: number,
  end: number,
): boolean {
  const scratch = Math.ceil(end / 16) * 16;
  if (largest > SMALL_CELL && !k.reserve(scratch + largest * (16 + d * (float32 ? 4 : 8)))) return false;
  (float32 ? k.exports.sortCells32 : k.exports.sortCells64)(
    layout.coords,
    layout.sortedIndex,
    layout.cellStart,
    cells,
    d,
    scratch,
    introDepthPerLevel(),
  );
  return true;
}
