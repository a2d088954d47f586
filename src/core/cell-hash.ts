/**
 * Cell math shared by every structure: the cell coordinate bound and the
 * integer hash of cell coordinates.
 *
 * Cell coordinates are `Math.floor(coordinate / cellSize)`, computed the same
 * way in every operation, so negative coordinates get cells as wide as positive
 * ones and a point and a query always agree on its cell. They are kept as
 * float64 integers rather than int32 so coordinates far from the origin (cell
 * indices beyond 32 bits) still get cells of their own.
 *
 * @module
 */

/**
 * Largest cell index magnitude handled by coordinate. Past 2^52 consecutive
 * cells are no longer distinct doubles (c + 1 === c), so a structure treats an
 * item there like an oversized one and checks it directly.
 */
export const MAX_CELL_INDEX = 2 ** 52;

const TWO_POW_32 = 4294967296;

/** Per-axis multipliers of the cell hash (odd, so each is a bijection on 32 bits). */
export const CELL_HASH_X = 0x9e3779b1;
export const CELL_HASH_Y = 0x7feb352d;
export const CELL_HASH_Z = 0x2c1b3c6d;

/**
 * Mixes 32 bits so neighbouring cells land far apart in the table (murmur3's
 * finalizer). Returns a signed int32, which stays a small integer in V8's hot
 * loops; callers mask it or take `>>> 0` for the unsigned value.
 */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Folds the bits of an integral cell index above 32 into the hash. Int32 cells
 * (the common case) skip the division.
 */
function high(c: number): number {
  return (c | 0) === c ? 0 : Math.floor(c / TWO_POW_32) | 0;
}

/** Hash of a 2D cell, an unsigned 32-bit integer. Exact for any integral cell index. */
export function hashCell2(cx: number, cy: number): number {
  let h = Math.imul(cx | 0, CELL_HASH_X) ^ Math.imul(cy | 0, CELL_HASH_Y);
  if ((cx | 0) !== cx || (cy | 0) !== cy) h ^= Math.imul(high(cx), 0x846ca68b) ^ Math.imul(high(cy), 0x68e31da4);
  return mix32(h) >>> 0;
}

/** Hash of a 3D cell, an unsigned 32-bit integer. Exact for any integral cell index. */
export function hashCell3(cx: number, cy: number, cz: number): number {
  let h = Math.imul(cx | 0, CELL_HASH_X) ^ Math.imul(cy | 0, CELL_HASH_Y) ^ Math.imul(cz | 0, CELL_HASH_Z);
  if ((cx | 0) !== cx || (cy | 0) !== cy || (cz | 0) !== cz) {
    h ^= Math.imul(high(cx), 0x846ca68b) ^ Math.imul(high(cy), 0x68e31da4) ^ Math.imul(high(cz), 0x297a2d39);
  }
  return mix32(h) >>> 0;
}

/** Smallest power of two >= n (and >= 1). */
export function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}
