/**
 * The kernels' low memory and the records the glue writes there: the one
 * definition of their addresses and fields, read by the glue (layout.ts,
 * pair-kernels.ts) and by the AssemblyScript kernels, which import this file
 * too (src/wasm/assembly/grid.ts, and pair-search.ts through its template):
 * integer constants only, so
 * that asc compiles it as it is.
 *
 * - Bytes 0 to {@link SCRATCH_END}: the kernels' own scratch: bounds()
 *   writes its lanes and its result there (144 bytes, see
 *   src/wasm/assembly/build.ts; weld-kernels.ts reads the bounds back),
 *   within() its batch of 32 rows of 5 float64 (1,280 bytes, see
 *   src/templates/within.template.ts).
 * - {@link GRID_RECORD}: the grid a search or a query reads, a float64 per
 *   field (the GRID_ numbers below are the fields' places). The glue writes
 *   it (layout.ts, writeGridRecord), then setGrid() reads it into the
 *   kernels' grid state (src/wasm/assembly/grid.ts).
 * - {@link SEARCH_RECORD}: a pair search's parameters (SEARCH_), which
 *   startSearch() reads (src/wasm/assembly/pair-search.ts, from
 *   src/templates/pairs.template.ts).
 * - From {@link KERNEL_BASE} on: the mirrored grid and each operation's work
 *   areas (layout.ts).
 *
 * Every number fits a float64 exactly (addresses below 4 GiB, counts below
 * 2^31, a hashed grid's cells per axis as they are).
 *
 * @module
 */

/** The end of the kernels' scratch (see above), rounded up. */
export const SCRATCH_END = 1536;

/** Byte address of the grid record: right after the kernels' scratch. */
export const GRID_RECORD = SCRATCH_END;
/** Address of the grid's coordinates in cell order (the mirror's). */
export const GRID_COORDS = 0;
/** Address of its sorted indices. */
export const GRID_SORTED_INDEX = 1;
/** Address of its cell starts. */
export const GRID_CELL_START = 2;
/** Address of a hashed grid's cell keys (d float64 per cell). */
export const GRID_KEYS = 3;
/** Address of a hashed grid's lookup slots. */
export const GRID_SLOTS = 4;
/** The lookup's slots less one (a power of two less one). */
export const GRID_SLOT_MASK = 5;
/** Cells indexed by the cell starts (Grid2D.cellTotal). */
export const GRID_CELLS = 6;
/** Points in the grid. */
export const GRID_POINTS = 7;
/** 1 for a dense grid, 0 for a hashed one. */
export const GRID_DENSE = 8;
/** The grid's origin along x. */
export const GRID_ORIGIN_X = 9;
/** The grid's origin along y. */
export const GRID_ORIGIN_Y = 10;
/** The grid's origin along z (0 in 2D). */
export const GRID_ORIGIN_Z = 11;
/** The width of its cells. */
export const GRID_WIDTH = 12;
/** Cells spanned along x. */
export const GRID_CELLS_X = 13;
/** Cells spanned along y. */
export const GRID_CELLS_Y = 14;
/** Cells spanned along z (1 in 2D). */
export const GRID_CELLS_Z = 15;
/** Fields of the grid record. */
export const GRID_FIELDS = 16;

/** Byte address of the search record, after the grid record. */
export const SEARCH_RECORD = GRID_RECORD + 8 * GRID_FIELDS;
/** Cells each side of its own the stencil reaches (may exceed 2^31 for a hashed grid's scanAll). */
export const SEARCH_REACH = 0;
/** The squared radius. */
export const SEARCH_RADIUS2 = 1;
/** 1 when a hashed grid's search compares every later cell rather than the stencil's (see pairs2d.ts). */
export const SEARCH_SCAN_ALL = 2;
/** The first cell searched. */
export const SEARCH_CELL_FROM = 3;
/** The cell after the last searched. */
export const SEARCH_CELL_TO = 4;
/** Address of the gathered ranges (2 int32 a range). */
export const SEARCH_RANGES = 5;
/** Address of the ranges' edges (2 float64 a range in 2D, 4 in 3D). */
export const SEARCH_EDGES = 6;
/** Address of a hashed search's row cursors (an int32 per stencil row). */
export const SEARCH_CURSORS = 7;
/** Row cursors to start at `cellFrom + 1`. */
export const SEARCH_CURSOR_ROWS = 8;
/** Address of the output. */
export const SEARCH_OUT = 9;
/** Numbers the output holds. */
export const SEARCH_CAPACITY = 10;
/** Numbers written a pair: 2 (both sorted positions), or 1 (the partner, runs ended by the row ends). */
export const SEARCH_STEP = 11;
/** Address of the row ends (a uint32 per point, with step 1). */
export const SEARCH_ROW_END = 12;
/** Fields of the search record. */
export const SEARCH_FIELDS = 13;

/**
 * Bytes below this are the module's scratch and the records above; the
 * mirror starts here (see layout.ts).
 */
export const KERNEL_BASE = 2048;
