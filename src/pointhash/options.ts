/**
 * Options of PointHash2D and PointHash3D.
 *
 * @module
 */

/** Options shared by {@link PointHash2D} and {@link PointHash3D}. */
export interface PointHashOptions {
  /**
   * Edge length of a cell, in the units of your coordinates. Required; a finite
   * number > 0. A good start is the radius of your typical query or pair
   * search: a search then reads the 3 x 3 (3 x 3 x 3) cells around each point.
   */
  cellSize: number;
  /**
   * Number of points to make room for up front (the hash grows past it as
   * needed). The room is reserved, not written: memory is touched as points
   * arrive. Default 64.
   */
  initialCapacity?: number;
  /**
   * Keep a Map from item to id, which the item-keyed methods need (`has`,
   * `remove`, `update`, `idOf`, `setFilter`, `getPosition`) and which refuses
   * an item inserted twice. Default true. With false, the item-keyed methods
   * throw an Error and nothing stops the same item being inserted under two
   * ids: use the id returned by insert with `updateById`, `removeById`, `itemById`.
   */
  trackItems?: boolean | undefined;
}
