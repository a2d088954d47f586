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
   * diameter of your typical query (see the guide "Choosing the cell size",
   * docs/guides/cell-size.md).
   */
  cellSize: number;
  /**
   * An item whose box covers more cells than this is kept in an overflow list
   * that every query checks directly, so one huge box never costs millions of
   * cells. An integer from 1 to {@link MAX_CELLS_PER_ITEM_LIMIT} (4096).
   * Default 256.
   */
  maxCellsPerItem?: number;
  /**
   * Number of items to make room for up front (the hash grows past it as
   * needed), so a world that stays within it never copies its per-item
   * arrays to grow (the cells' slot pool may still be compacted). The room
   * is reserved, not written: memory is touched as items arrive.
   * Default 64.
   */
  initialCapacity?: number;
  /**
   * Keep a Map from item to id, which the item-keyed methods need (`has`,
   * `remove`, `update`, `idOf`, `setFilter`, `getBox`) and which refuses an
   * item inserted twice. Default true. With false, every insert skips that
   * Map (a third of a churn-heavy workload), the item-keyed methods throw an
   * Error, and nothing stops the same item being inserted under two ids: use
   * the id returned by insert with `updateById`, `removeById`, `itemById`.
   */
  trackItems?: boolean | undefined;
}

/** Default of {@link SpatialHashOptions.maxCellsPerItem}. */
export const DEFAULT_MAX_CELLS_PER_ITEM = 256;

/**
 * Largest {@link SpatialHashOptions.maxCellsPerItem} a hash accepts, from its
 * constructor or from a snapshot: 4096 cells (64 x 64 in 2D, 16 x 16 x 16 in
 * 3D). It bounds what one item can cost: an insert or a move that changes
 * cells writes each of them, and each covered cell holds up to about 400
 * bytes in 2D and 600 in 3D, so one item in cells never takes more than
 * about 2.5 MB, and `from()` builds no more than that per stored item,
 * whatever the snapshot says. Items needing more cells go to the overflow
 * list, which every query checks directly.
 */
export const MAX_CELLS_PER_ITEM_LIMIT = 4096;
