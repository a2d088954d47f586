// The grid a pair search or a query reads (set by setGrid): its sections in the kernels' memory and its numbers.
// The pair search itself is pair-search.ts, generated from src/templates/pairs.template.ts.

// @ts-nocheck: AssemblyScript, compiled by asc (see scripts/build-wasm.mjs).


// The grid searched (byte offsets), set by setGrid.
export let coords: usize = 0;
export let cellStart: usize = 0;
export let keys: usize = 0;
export let cells: i32 = 0;
export let cellsX: i32 = 0;
export let cellsY: i32 = 0;
export let cellsZ: i32 = 0;
export let dense = true;
export let originY: f64 = 0;
export let originZ: f64 = 0;
export let width: f64 = 0;
/** Number of points: runs read from cell starts are clamped to them (see bounded.ts). */
export let pointCount: i32 = 0;

export function setGrid(
  coordsAt: usize, cellStartAt: usize, keysAt: usize, cellCount: i32,
  x: i32, y: i32, z: i32, isDense: bool, oy: f64, oz: f64, cellWidth: f64, count: i32,
): void {
  pointCount = count;
  coords = coordsAt;
  cellStart = cellStartAt;
  keys = keysAt;
  cells = cellCount;
  cellsX = x;
  cellsY = y;
  cellsZ = z;
  dense = isDense;
  originY = oy;
  originZ = oz;
  width = cellWidth;
}
