/**
 * Collision filtering of SpatialHash2D / SpatialHash3D, as in Box2D: every item
 * carries a 32-bit `category` (the layers it belongs to) and a `mask` (the
 * layers it collides with).
 *
 * @module
 */

import { describe } from '../core/validate.js';

/** Category and mask of an item, given at insert. Omitted fields keep their defaults. */
export interface ItemFilter {
  /** Bits of the layers the item belongs to: an integer in [-2^31, 2^32 - 1], read as 32 bits. Default 1. */
  category?: number;
  /** Bits of the layers the item collides with, same range. Default 0xFFFFFFFF (everything). */
  mask?: number;
}

/**
 * Decides whether `nearest` / `raycast` / `raycastAll` may report an item; it is
 * called at most once per item and query, only for items that pass the geometry
 * and the mask. It may read the hash (`itemById`, `getBox`...) but must not
 * change it or start another query: both throw an Error.
 */
export type ItemPredicate<T> = (item: T, id: number) => boolean;

/** Default category of an item: bit 0, as in Box2D. */
export const DEFAULT_CATEGORY = 1;
/** Default mask of an item and of a query: every bit (-1 is 0xFFFFFFFF read as a signed 32-bit integer). */
export const ALL_BITS = -1;

/** Whether a category and mask are the default filter, which every item has unless given another. */
export function isDefaultFilter(category: number, mask: number): boolean {
  return category === DEFAULT_CATEGORY && mask === ALL_BITS;
}

/**
 * A 32-bit mask or category as the signed integer the typed arrays store;
 * throws a RangeError naming `name` unless `value` is an integer in
 * [-2^31, 2^32 - 1] (signed or unsigned 32-bit spelling of the same bits).
 *
 * @internal
 */
export function toBits(name: string, value: number): number {
  if (typeof value === 'number' && ((value | 0) === value || value >>> 0 === value)) return value | 0;
  throw new RangeError(`${name} must be a 32-bit integer in [-2^31, 2^32 - 1], got ${describe(value)}`);
}

/**
 * Reads an {@link ItemFilter} argument into [category, mask] or throws a RangeError naming the field.
 * `pointInsert` is the call of a point hash's insert, such as `PointHash2D.insert(item, x, y, filter?)`:
 * a number where its filter goes is a box's corner, and the message sends it to `boxHash`, which takes boxes.
 * @internal
 */
export function readFilter(filter: unknown, out: Int32Array, pointInsert?: string, boxHash?: string): void {
  if (filter === undefined) {
    out[0] = DEFAULT_CATEGORY;
    out[1] = ALL_BITS;
    return;
  }
  if (pointInsert !== undefined && typeof filter === 'number') {
    throw new RangeError(
      `${pointInsert} takes a point, got a number (${describe(filter)}) where the filter goes: for a box, use ${boxHash}.insert`,
    );
  }
  if (filter === null || typeof filter !== 'object') {
    throw new RangeError(`filter must be an object { category?, mask? }, got ${describe(filter)}`);
  }
  const { category, mask } = filter as ItemFilter;
  out[0] = category === undefined ? DEFAULT_CATEGORY : toBits('category', category);
  out[1] = mask === undefined ? ALL_BITS : toBits('mask', mask);
}

/** Throws a RangeError unless `predicate` is undefined or a function. @internal */
export function checkPredicate(predicate: unknown): void {
  if (predicate !== undefined && typeof predicate !== 'function') {
    throw new RangeError(`predicate must be a function, got ${describe(predicate)}`);
  }
}
