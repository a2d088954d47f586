/**
 * Buffer growth shared by the structures.
 *
 * @module
 */

/** Capacity to grow a buffer to: exactly what is needed the first time, then by half again. */
export function grownLength(current: number, needed: number): number {
  return current === 0 ? needed : Math.max(needed, Math.ceil(current * 1.5));
}

/** The typed arrays the structures grow. */
type GrowableArray = Uint8Array | Int32Array | Uint32Array | Float64Array;

/**
 * A new array of `old`'s type, `length` long (at least old's length), with
 * old's contents first and `fill` after them (0 by default).
 */
export function grownCopy<A extends GrowableArray>(old: A, length: number, fill = 0): A {
  const grown = new (old.constructor as new (length: number) => A)(length);
  if (fill !== 0) grown.fill(fill, old.length);
  grown.set(old as never);
  return grown;
}

/**
 * A new array of `old`'s type, `length` long, holding old's first `used`
 * elements and zeros after them. Unlike {@link grownCopy} it touches no
 * memory past `used`, so room reserved for later costs no page until written.
 */
export function grownPrefix<A extends GrowableArray>(old: A, length: number, used: number): A {
  const grown = new (old.constructor as new (length: number) => A)(length);
  grown.set(old.subarray(0, used) as never);
  return grown;
}
