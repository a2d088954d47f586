// The grid that the pair search (pair-search.ts) and the within queries
// (within-rows.ts, within.ts) read: its sections' addresses in the kernels' memory and its numbers, the
// one definition of the kernels' grid state. The glue writes them into the
// grid record (src/wasm/records.ts, layout.ts's writeGridRecord) and calls
// setGrid, which reads them here; what they must describe, and when, is the
// invariant of src/wasm/mirror.ts.

import * as R from '../records';

/** Coordinates in cell order (C per number), sorted indices (u32), cell starts (i32). */
export let coords: usize = 0;
export let sortedIndex: usize = 0;
export let cellStart: usize = 0;
/** Hashed grids: cell keys (d f64 per cell) and the lookup (an i32 cell id per slot, slotMask + 1 slots). */
export let keys: usize = 0;
export let slots: usize = 0;
export let slotMask: u32 = 0;
/** Cells indexed by the cell starts. */
export let cells: i32 = 0;
/** Number of points: runs read from cell starts are clamped to them (see src/core/bounded.ts). */
export let points: i32 = 0;
export let dense: bool = true;
export let originX: f64 = 0;
export let originY: f64 = 0;
/** 0 in 2D. */
export let originZ: f64 = 0;
export let width: f64 = 0;
/** Cells spanned along each axis (cellsZ 1 in 2D), as doubles: a hashed grid may span more than 2^31. */
export let cellsX: f64 = 0;
export let cellsY: f64 = 0;
export let cellsZ: f64 = 0;
/** The same as i32 for a dense grid (fewer than 2^31 cells in all), for the pair search's cell arithmetic; 0 when hashed. */
export let denseX: i32 = 0;
export let denseY: i32 = 0;
export let denseZ: i32 = 0;

// @ts-ignore: decorator
@inline function field(at: i32): f64 {
  return load<f64>(<usize>(R.GRID_RECORD + 8 * at));
}

/** Reads the grid record into the state above. */
export function setGrid(): void {
  coords = <usize>field(R.GRID_COORDS);
  sortedIndex = <usize>field(R.GRID_SORTED_INDEX);
  cellStart = <usize>field(R.GRID_CELL_START);
  keys = <usize>field(R.GRID_KEYS);
  slots = <usize>field(R.GRID_SLOTS);
  slotMask = <u32>field(R.GRID_SLOT_MASK);
  cells = <i32>field(R.GRID_CELLS);
  points = <i32>field(R.GRID_POINTS);
  dense = field(R.GRID_DENSE) != 0;
  originX = field(R.GRID_ORIGIN_X);
  originY = field(R.GRID_ORIGIN_Y);
  originZ = field(R.GRID_ORIGIN_Z);
  width = field(R.GRID_WIDTH);
  cellsX = field(R.GRID_CELLS_X);
  cellsY = field(R.GRID_CELLS_Y);
  cellsZ = field(R.GRID_CELLS_Z);
  denseX = dense ? <i32>cellsX : 0;
  denseY = dense ? <i32>cellsY : 0;
  denseZ = dense ? <i32>cellsZ : 0;
}

/** Cell c's first point in sorted order. */
// @ts-ignore: decorator
@inline export function start(c: i32): i32 {
  return load<i32>(cellStart + (<usize>c << 2));
}

/** Number i of the hashed cells' keys. */
// @ts-ignore: decorator
@inline export function key(i: i32): f64 {
  return load<f64>(keys + (<usize>i << 3));
}
