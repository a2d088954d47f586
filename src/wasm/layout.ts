/**
 * Where things lie in the kernels' memory: what the kernels read of a grid
 * ({@link KernelGrid}), the sections of its copy there (the mirror, from
 * KERNEL_BASE on, see {@link layoutOf}), and the grid record the glue fills
 * in before a search or a query (records.ts). Each operation's work areas
 * follow the mirror and are laid out by that operation's glue
 * (build-kernels.ts, pair-kernels.ts, within-kernels.ts, weld-kernels.ts).
 *
 * @module
 */
import type { NumericArray } from '../core/validate.js';
import type { Kernels } from './kernels.js';
import * as R from './records.js';

/**
 * What the kernels read and write of a Grid2D or Grid3D (see
 * pointgrid/grid-base.ts): a 2D grid is one layer deep (originZ 0, cellsZ 1).
 */
export interface KernelGrid {
  readonly dimension: 2 | 3;
  readonly stride: number;
  readonly offset: number;
  /** Width of the cells of the last build (see Grid2D.width). */
  width: number;
  /** Whether indices handed over are clamped to the count (see core/bounded.ts and Grid2D.clampsIndices). */
  clampsIndices: boolean;
  points: number;
  originX: number;
  originY: number;
  originZ: number;
  cellsX: number;
  cellsY: number;
  cellsZ: number;
  dense: boolean;
  cellTotal: number;
  data: ArrayBuffer | SharedArrayBuffer;
  /**
   * Builds published into `data` by any grid of any thread, as this grid last
   * read it from the header or wrote it there (see Grid2D.builds): what tells
   * a mirror of the buffer from an older one.
   */
  builds: number;
  coords: Float32Array | Float64Array;
  sortedIndex: Uint32Array;
  cellStart: Int32Array;
  keys: Float64Array;
  slots: Int32Array;
  slotMask: number;
}

/** Where the mirror's sections lie in the kernels' memory (byte offsets). */
export interface Layout {
  coords: number;
  sortedIndex: number;
  cellStart: number;
  keys: number;
  slots: number;
  /** The first byte after the mirror, where an operation's work areas start. */
  end: number;
}

/** `bytes` rounded up to a multiple of 8, so that the next section can hold float64. */
export function align8(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}

/**
 * The mirror's sections, written into `into` (one of the records below: a
 * frame loop allocates none); a hashed grid's lookup slots (`slotCount` of
 * them) only with `slotCount`.
 */
export function layoutOf(
  into: Layout,
  d: number,
  n: number,
  float32: boolean,
  cells: number,
  dense: boolean,
  slotCount = 0,
): Layout {
  into.coords = R.KERNEL_BASE;
  into.sortedIndex = into.coords + align8(n * d * (float32 ? 4 : 8));
  into.cellStart = into.sortedIndex + align8(4 * n);
  into.keys = into.cellStart + align8(4 * (cells + 1));
  into.slots = into.keys + (dense ? 0 : 8 * d * cells);
  into.end = into.slots + align8(4 * (dense ? 0 : slotCount));
  return into;
}

function newLayout(): Layout {
  return { coords: 0, sortedIndex: 0, cellStart: 0, keys: 0, slots: 0, end: 0 };
}

/** The layout of the build under way (a build calls nothing that builds). */
export const BUILT = newLayout();
/** The work areas' bound of a hashed build (see build-kernels.ts). */
export const MOST = newLayout();
/** The layout of the grid a search or query reads (see copyIn in mirror.ts). */
export const MIRRORED = newLayout();

/**
 * Writes `g`'s numbers, and where `layout` puts its sections, into the grid
 * record (records.ts), and has the kernels read it (setGrid): the kernels'
 * grid state then describes `g` as mirrored at `layout`. The caller keeps
 * mirror.ts's invariant (it sets or clears Kernels.queryGrid).
 */
export function writeGridRecord(k: Kernels, g: KernelGrid, layout: Layout): void {
  const f64 = k.f64;
  const at = R.GRID_RECORD >> 3;
  f64[at + R.GRID_COORDS] = layout.coords;
  f64[at + R.GRID_SORTED_INDEX] = layout.sortedIndex;
  f64[at + R.GRID_CELL_START] = layout.cellStart;
  f64[at + R.GRID_KEYS] = layout.keys;
  f64[at + R.GRID_SLOTS] = layout.slots;
  f64[at + R.GRID_SLOT_MASK] = g.slotMask;
  f64[at + R.GRID_CELLS] = g.cellTotal;
  f64[at + R.GRID_POINTS] = g.points;
  f64[at + R.GRID_DENSE] = g.dense ? 1 : 0;
  f64[at + R.GRID_ORIGIN_X] = g.originX;
  f64[at + R.GRID_ORIGIN_Y] = g.originY;
  f64[at + R.GRID_ORIGIN_Z] = g.originZ;
  f64[at + R.GRID_WIDTH] = g.width;
  f64[at + R.GRID_CELLS_X] = g.cellsX;
  f64[at + R.GRID_CELLS_Y] = g.cellsY;
  f64[at + R.GRID_CELLS_Z] = g.cellsZ;
  k.exports.setGrid();
}

/**
 * Copies `n` points of `positions` (dimension `d` at `offset + i * stride`),
 * packed, into the kernels' memory at byte `at`: as float32 when `float32`,
 * else float64. For the builds and weld.
 */
export function copyPositions(
  k: Kernels,
  positions: NumericArray,
  n: number,
  d: number,
  stride: number,
  offset: number,
  float32: boolean,
  at: number,
): void {
  const target = float32 ? k.f32 : k.f64;
  const base = float32 ? at >> 2 : at >> 3;
  if (stride === d && (positions instanceof Float64Array || positions instanceof Float32Array)) {
    // (The whole array as it is where it holds just the points: no view to allocate per build.)
    target.set(
      offset === 0 && positions.length === d * n ? positions : positions.subarray(offset, offset + d * n),
      base,
    );
    return;
  }
  for (let i = 0, p = offset, q = base; i < n; i++, p += stride, q += d) {
    target[q] = positions[p];
    target[q + 1] = positions[p + 1];
    if (d === 3) target[q + 2] = positions[p + 2];
  }
}
