/**
 * What the box argument lists of the 2D and 3D hashes share: their checks,
 * the error for a wrong number of coordinates and the visitor type of
 * forEachOverlap (the point hashes take query boxes too).
 *
 * @module
 */

import { checkFinite, checkOrdered } from '../core/validate.js';

/** Called by `forEachOverlap` once per overlapping item; return `true` to stop. */
export type OverlapVisitor<T> = (item: T, id: number) => boolean | undefined;

/**
 * The RangeError for a box given with the wrong number of coordinates: a 2D
 * call takes a point (2 numbers) or a box (4), a 3D call 3 or 6. Without it,
 * `insert('a', 0, 0, 1, 1)` in 3D would silently read the missing max as the min.
 *
 * @internal
 */
export function countError(method: string, dim: 2 | 3, got: number): RangeError {
  const names = dim === 2 ? 'x, y or minX, minY, maxX, maxY' : 'x, y, z or minX, minY, minZ, maxX, maxY, maxZ';
  return new RangeError(
    `${method}: a ${dim}D point or box takes ${dim} or ${dim * 2} numbers (${names}), got ${got} numbers`,
  );
}

/**
 * Validates a 2D box argument list: all numbers, all finite, each min <= its
 * max. One comparison chain passes every valid box (NaN fails `<=`, and an
 * infinite bound makes a side infinite or NaN); the checks that name the bad
 * argument run only when it fails. The `typeof` tests come first because the
 * comparisons alone coerce: `null <= null` holds and `'0x10' - '0x10'` is 0,
 * so `null` would be stored at 0 and '0x10' at 16, and a bigint would pass
 * until the box is written (a TypeError). Where V8 has seen numbers only, a
 * `typeof` test of a number compiles to nothing or to one map check. Kept
 * this small so that V8 inlines it into insert, update and updateById, and
 * those into the caller's loop: called, it would box all four numbers.
 */
export function checkBox2(minX: number, minY: number, maxX: number, maxY: number): void {
  if (
    typeof minX === 'number' &&
    typeof minY === 'number' &&
    typeof maxX === 'number' &&
    typeof maxY === 'number' &&
    minX <= maxX &&
    minY <= maxY &&
    maxX - minX + (maxY - minY) < Number.POSITIVE_INFINITY
  )
    return;
  explainBox2(minX, minY, maxX, maxY);
}

/** Throws the RangeError that names the first bad argument of a 2D box (a box only too large to sum passes). */
function explainBox2(minX: number, minY: number, maxX: number, maxY: number): void {
  checkFinite('minX', minX);
  checkFinite('minY', minY);
  checkFinite('maxX', maxX);
  checkFinite('maxY', maxY);
  checkOrdered('minX', minX, 'maxX', maxX);
  checkOrdered('minY', minY, 'maxY', maxY);
}

/** Validates a 3D box argument list: all numbers, all finite, each min <= its max. */
export function checkBox3(minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number): void {
  // Type tests, then one comparison chain that passes every valid box (see checkBox2).
  if (
    typeof minX === 'number' &&
    typeof minY === 'number' &&
    typeof minZ === 'number' &&
    typeof maxX === 'number' &&
    typeof maxY === 'number' &&
    typeof maxZ === 'number' &&
    minX <= maxX &&
    minY <= maxY &&
    minZ <= maxZ &&
    maxX - minX + (maxY - minY) + (maxZ - minZ) < Number.POSITIVE_INFINITY
  )
    return;
  explainBox3(minX, minY, minZ, maxX, maxY, maxZ);
}

/** Throws the RangeError that names the first bad argument of a 3D box (a box only too large to sum passes). */
function explainBox3(minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number): void {
  checkFinite('minX', minX);
  checkFinite('minY', minY);
  checkFinite('minZ', minZ);
  checkFinite('maxX', maxX);
  checkFinite('maxY', maxY);
  checkFinite('maxZ', maxZ);
  checkOrdered('minX', minX, 'maxX', maxX);
  checkOrdered('minY', minY, 'maxY', maxY);
  checkOrdered('minZ', minZ, 'maxZ', maxZ);
}
