/**
 * What the 2D and 3D box argument lists share: the error for a wrong number of
 * coordinates and the visitor type of forEachOverlap.
 *
 * @module
 */

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
