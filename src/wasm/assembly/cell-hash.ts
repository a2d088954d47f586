// The cell hash of src/core/cell-hash.ts, bit for bit (hashCell2 / hashCell3
// for the grids' lookups, the multipliers and mix32 for weld's table).

/** Per-axis multipliers of the cell hash (CELL_HASH_X, _Y, _Z of core/cell-hash.ts). */
export const CELL_HASH_X: u32 = 0x9e3779b1;
export const CELL_HASH_Y: u32 = 0x7feb352d;
export const CELL_HASH_Z: u32 = 0x2c1b3c6d;

// @ts-ignore: decorator
@inline export function toInt32(c: f64): i32 {
  // ToInt32 of an integral double below 2^63: its low 32 bits, as `c | 0`.
  return <i32><i64>c;
}

export function mix32(h: u32): u32 {
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  return h ^ (h >> 16);
}

/** hashCell2 of core/cell-hash.ts, bit for bit. */
export function hashCell2(cx: f64, cy: f64): u32 {
  const ix = toInt32(cx);
  const iy = toInt32(cy);
  let h: u32 = <u32>ix * CELL_HASH_X ^ <u32>iy * CELL_HASH_Y;
  if (<f64>ix != cx || <f64>iy != cy) {
    const hx: u32 = <f64>ix == cx ? 0 : <u32>toInt32(Math.floor(cx / 4294967296.0));
    const hy: u32 = <f64>iy == cy ? 0 : <u32>toInt32(Math.floor(cy / 4294967296.0));
    h ^= hx * 0x846ca68b ^ hy * 0x68e31da4;
  }
  return mix32(h);
}

/** hashCell3 of core/cell-hash.ts, bit for bit. */
export function hashCell3(cx: f64, cy: f64, cz: f64): u32 {
  const ix = toInt32(cx);
  const iy = toInt32(cy);
  const iz = toInt32(cz);
  let h: u32 = <u32>ix * CELL_HASH_X ^ <u32>iy * CELL_HASH_Y ^ <u32>iz * CELL_HASH_Z;
  if (<f64>ix != cx || <f64>iy != cy || <f64>iz != cz) {
    const hx: u32 = <f64>ix == cx ? 0 : <u32>toInt32(Math.floor(cx / 4294967296.0));
    const hy: u32 = <f64>iy == cy ? 0 : <u32>toInt32(Math.floor(cy / 4294967296.0));
    const hz: u32 = <f64>iz == cz ? 0 : <u32>toInt32(Math.floor(cz / 4294967296.0));
    h ^= hx * 0x846ca68b ^ hy * 0x68e31da4 ^ hz * 0x297a2d39;
  }
  return mix32(h);
}

