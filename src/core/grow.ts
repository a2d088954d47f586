/**
 * Buffer growth shared by the structures.
 *
 * @module
 */

/** Capacity to grow a buffer to: exactly what is needed the first time, then by half again. */
export function grownLength(current: number, needed: number): number {
  return current === 0 ? needed : Math.max(needed, Math.ceil(current * 1.5));
}
