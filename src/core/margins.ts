/**
 * Rounding margins that keep cell stencils exact: how much wider a cell is
 * than `cellSize`, and how far a query or pair search must reach beyond the
 * radius so float rounding can never hide a point the distance test accepts.
 * The point grids' (src/pointgrid/) and their kernels' glue's (src/wasm/):
 * the AssemblyScript kernels hold copies of SLACK and UNDERFLOW
 * (generated into src/wasm/assembly/within-rows.ts and pair-search.ts from
 * src/templates/), which must stay equal to these.
 *
 * @module
 */

/**
 * Cells are this much wider than `cellSize` (one part in a million). Rounding
 * in `floor((x - origin) / width)` makes cell borders wobble by a few ulps, so
 * with cells exactly `cellSize` wide two points at distance exactly `cellSize`
 * could sit two cells apart; the tiny surplus keeps radius == cellSize inside
 * the 3^d stencil with a proof instead of luck.
 */
export const CELL_SCALE = 1 + 2 ** -20;

/**
 * Relative margin (32 ulps) added to radii and distance bounds so that float
 * rounding in cell coordinates, subtractions and squares can never hide a
 * point that the distance test accepts.
 */
export const SLACK = 2 ** -48;

/**
 * Absolute margin for underflow: a gap below about 1.6e-162 squares to 0 (or
 * to a subnormal), so the distance test passes it even at radius 0.
 */
export const UNDERFLOW = 2 ** -536;

/** Beyond this many cells from the grid a nearest query scans every point instead of ring by ring. */
export const MAX_RING_CELL = 2 ** 30;

/**
 * How many cells each side of its own a pair search must look at so that no
 * pair within `radius` is missed: ceil(radius / width) plus a margin for
 * rounding that grows with the grid's extent (in cells). Clamped to the
 * extent, which already covers every cell.
 */
export function stencilReach(radius: number, cellWidth: number, extent: number): number {
  // No shortcut for radius 0: a gap that squares to 0 may straddle a cell border.
  const q = (radius + UNDERFLOW) / cellWidth;
  const reach = Math.ceil(q + (q + extent + 2) * SLACK);
  return Math.min(reach, extent);
}

/**
 * The radius a query pads its cell range with: rounding in `x - origin`, in the
 * subtraction of the radius and in the squared-distance test all stay inside it.
 * `relative` is the query coordinate minus the grid origin.
 */
export function paddedRadius(radius: number, relative: number, cellWidth: number): number {
  return radius + UNDERFLOW + (radius + Math.abs(relative) + cellWidth) * SLACK;
}
