/**
 * Options of SpatialHash2D and SpatialHash3D and their defaults.
 *
 * @module
 */

/** Options shared by {@link SpatialHash2D} and {@link SpatialHash3D}. */
export interface SpatialHashOptions {
  /**
   * Edge length of a cell, in the units of your coordinates. Required; a finite
   * number > 0. A good start is about twice the typical item size, or about the
   * diameter of your typical query (see the README's guide).
   */
  cellSize: number;
  /**
   * An item whose box covers more cells than this is kept in an overflow list
   * that every query checks directly, so one huge box never costs millions of
   * cells. An integer >= 1. Default 256.
   */
  maxCellsPerItem?: number;
  /** Number of items to make room for up front (the hash grows past it as needed). Default 64. */
  initialCapacity?: number;
}

/** Default of {@link SpatialHashOptions.maxCellsPerItem}. */
export const DEFAULT_MAX_CELLS_PER_ITEM = 256;
