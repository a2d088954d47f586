// weld's table on the kernels, its helpers, and the exact search of src/weld/exact.ts (tolerance 0), step for
// step: the same recent representatives, table and tests in the same order, so every vertex gets the
// representative the JavaScript weld gives it. The near search (tolerance > 0) is weld-near.ts, generated from
// src/templates/weld.template.ts with the JavaScript path's. The caller (src/wasm/weld-kernels.ts) lays the
// regions out and sizes them for the worst case: a table starts small and doubles in place, as the JavaScript
// path's does.

import { CELL_HASH_X, CELL_HASH_Y, CELL_HASH_Z, mix32 } from './cell-hash';

/** RECENT of src/weld/near.ts: previous vertices whose representatives are tried before any lookup. */
export const RECENT: i32 = 4;

// The table (byte offsets and sizes), set by setWeldTable: slots and the
// occupied filter (8 bits a slot) have room for their largest size; keys
// (d i32 per cell) and heads (i32 per cell) for a cell per vertex; next (i32
// per representative) links a cell's representatives. A slot of the near search
// holds a cell id (-1: empty) and the cell's hash, so a probe passes other
// cells without reading their keys; weldExact's slots hold ids only.
let slots: usize = 0;
let occupied: usize = 0;
export let keys: usize = 0;
export let heads: usize = 0;
export let next: usize = 0;
export let slotCount: u32 = 0;

export function setWeldTable(slotsAt: usize, occupiedAt: usize, keysAt: usize, headsAt: usize, nextAt: usize, initialSlots: u32): void {
  slots = slotsAt;
  occupied = occupiedAt;
  keys = keysAt;
  heads = headsAt;
  next = nextAt;
  slotCount = initialSlots;
}

// @ts-ignore: decorator
@inline export function i32At(base: usize, i: i32): i32 {
  return load<i32>(base + (<usize>i << 2));
}

// @ts-ignore: decorator
@inline export function setI32(base: usize, i: i32, value: i32): void {
  store<i32>(base + (<usize>i << 2), value);
}

// @ts-ignore: decorator
@inline function f64At(base: usize, i: i32): f64 {
  return load<f64>(base + (<usize>i << 3));
}

// The occupied filter: a bit per cell, the cells of a block (4 x 4 x 4 in 3D,
// 8 x 8 in 2D) in one 64-bit word, words picked by a hash of the block. The
// cells a vertex's ball touches mostly share one or two blocks, so testing
// them costs one or two loads where a bit per hashed cell cost one cache
// miss each. A set bit may be another block's (the search then probes the
// table and finds nothing); a clear bit means the cell holds no one.

// @ts-ignore: decorator
@inline export function word3(kx: i32, ky: i32, kz: i32, wordMask: u32): usize {
  const h = mix32(<u32>(kx >> 2) * CELL_HASH_X ^ <u32>(ky >> 2) * CELL_HASH_Y ^ <u32>(kz >> 2) * CELL_HASH_Z);
  return occupied + (<usize>(h & wordMask) << 3);
}

// @ts-ignore: decorator
@inline export function bit3(kx: i32, ky: i32, kz: i32): u64 {
  return <u64>1 << <u64>((kx & 3) | ((ky & 3) << 2) | ((kz & 3) << 4));
}

// @ts-ignore: decorator
@inline export function word2(kx: i32, ky: i32, wordMask: u32): usize {
  const h = mix32(<u32>(kx >> 3) * CELL_HASH_X ^ <u32>(ky >> 3) * CELL_HASH_Y);
  return occupied + (<usize>(h & wordMask) << 3);
}

// @ts-ignore: decorator
@inline export function bit2(kx: i32, ky: i32): u64 {
  return <u64>1 << <u64>((kx & 7) | ((ky & 7) << 3));
}

// @ts-ignore: decorator
@inline export function mark(at: usize, bit: u64): void {
  store<u64>(at, load<u64>(at) | bit);
}

// @ts-ignore: decorator
@inline export function slotAt(s: u32): usize {
  return slots + (<usize>s << 3);
}

/** The slot of the cell with hash `h`, keys kx, ky (, kz): where it is, or the empty slot it would go in. */
// @ts-ignore: decorator
@inline export function probe(h: u32, mask: u32, d: i32, kx: i32, ky: i32, kz: i32): u32 {
  let s = h & mask;
  for (;;) {
    const slot = load<u64>(slotAt(s));
    const id = <i32>slot;
    if (id < 0) break;
    if (<u32>(slot >> 32) == h) {
      const k = keys + (<usize>(id * d) << 2);
      if (load<i32>(k) == kx && load<i32>(k, 4) == ky && (d == 2 || load<i32>(k, 8) == kz)) break;
    }
    s = (s + 1) & mask;
  }
  return s;
}

// @ts-ignore: decorator
@inline function hash3(kx: i32, ky: i32, kz: i32): u32 {
  return mix32(<u32>kx * CELL_HASH_X ^ <u32>ky * CELL_HASH_Y ^ <u32>kz * CELL_HASH_Z);
}

// @ts-ignore: decorator
@inline function hash2(kx: i32, ky: i32): u32 {
  return mix32(<u32>kx * CELL_HASH_X ^ <u32>ky * CELL_HASH_Y);
}

/**
 * Whether the filter marks a cell of the window bx .. ex, by .. ey, bz .. ez
 * other than the own cell kx, ky, kz: the window's cells block by block, one
 * load and a mask each. A window whose end wrapped past 2^31 on an axis is
 * taken as marked (the search then looks its cells up one by one).
 */
// @ts-ignore: decorator
@inline export function marked3(bx: i32, ex: i32, by: i32, ey: i32, bz: i32, ez: i32, kx: i32, ky: i32, kz: i32, wordMask: u32): bool {
  if (ex < bx || ey < by || ez < bz) return true;
  const ownBit = bit3(kx, ky, kz);
  for (let cz = bz >> 2; cz <= ez >> 2; cz++) {
    const zl = max(bz, cz << 2) - (cz << 2);
    const zh = min(ez, (cz << 2) + 3) - (cz << 2);
    const zm = (<u64>0x0001000100010001 >> <u64>(16 * (3 - (zh - zl)))) << <u64>(16 * zl);
    for (let cy = by >> 2; cy <= ey >> 2; cy++) {
      const yl = max(by, cy << 2) - (cy << 2);
      const yh = min(ey, (cy << 2) + 3) - (cy << 2);
      const yzm = ((<u64>0x1111 >> <u64>(4 * (3 - (yh - yl)))) << <u64>(4 * yl)) * zm;
      for (let cx = bx >> 2; cx <= ex >> 2; cx++) {
        const xl = max(bx, cx << 2) - (cx << 2);
        const xh = min(ex, (cx << 2) + 3) - (cx << 2);
        let m = ((<u64>2 << <u64>(xh - xl)) - 1) << <u64>xl;
        m *= yzm;
        if (cx == kx >> 2 && cy == ky >> 2 && cz == kz >> 2) m &= ~ownBit;
        if ((load<u64>(word3(cx << 2, cy << 2, cz << 2, wordMask)) & m) != 0) return true;
      }
    }
  }
  return false;
}

/** {@link marked3} in 2D (blocks of 8 x 8). */
// @ts-ignore: decorator
@inline export function marked2(bx: i32, ex: i32, by: i32, ey: i32, kx: i32, ky: i32, wordMask: u32): bool {
  if (ex < bx || ey < by) return true;
  const ownBit = bit2(kx, ky);
  for (let cy = by >> 3; cy <= ey >> 3; cy++) {
    const yl = max(by, cy << 3) - (cy << 3);
    const yh = min(ey, (cy << 3) + 7) - (cy << 3);
    const ym = (<u64>0x0101010101010101 >> <u64>(8 * (7 - (yh - yl)))) << <u64>(8 * yl);
    for (let cx = bx >> 3; cx <= ex >> 3; cx++) {
      const xl = max(bx, cx << 3) - (cx << 3);
      const xh = min(ex, (cx << 3) + 7) - (cx << 3);
      let m = ((<u64>2 << <u64>(xh - xl)) - 1) << <u64>xl;
      m *= ym;
      if (cx == kx >> 3 && cy == ky >> 3) m &= ~ownBit;
      if ((load<u64>(word2(cx << 3, cy << 3, wordMask)) & m) != 0) return true;
    }
  }
  return false;
}

/** Empties the near search's table at `total` slots and places cells 0 .. cellCount - 1 (placeCells of near.ts). */
export function placeCells(cellCount: i32, d: i32, total: u32): void {
  memory.fill(slots, 0xff, <usize>total << 3);
  memory.fill(occupied, 0, <usize>total);
  const mask = total - 1;
  const wordMask = (total >> 3) - 1;
  for (let id = 0; id < cellCount; id++) {
    const k = id * d;
    const kx = i32At(keys, k);
    const ky = i32At(keys, k + 1);
    let h: u32;
    if (d == 3) {
      const kz = i32At(keys, k + 2);
      h = hash3(kx, ky, kz);
      mark(word3(kx, ky, kz, wordMask), bit3(kx, ky, kz));
    } else {
      h = hash2(kx, ky);
      mark(word2(kx, ky, wordMask), bit2(kx, ky));
    }
    let s = h & mask;
    while (<i32>load<u64>(slotAt(s)) >= 0) s = (s + 1) & mask;
    store<u64>(slotAt(s), <u64><u32>id | (<u64>h << 32));
  }
}

/** hashWords of exact.ts: a multiply-xorshift per 32-bit word, mix32 at the end. */
// @ts-ignore: decorator
@inline function hashWords(at: usize, words: i32): u32 {
  let h: u32 = 0;
  for (let w = 0; w < words; w++) {
    h = (h ^ load<u32>(at + (<usize>w << 2))) * CELL_HASH_X;
    h ^= h >> 15;
  }
  return mix32(h);
}

/**
 * weldExact of exact.ts over `n` packed float64 vertices of dimension `d`
 * (finite; -0 is turned into +0 here): the table (`slots`, room for its largest
 * size) maps coordinate bits to representatives. Returns their number.
 */
export function weldExact(coords: usize, n: i32, d: i32, remap: usize, representatives: usize, repCoords: usize): i32 {
  const words = d * 2;
  // -0 becomes +0, so that equal coordinates have equal bits (as packCoordinates of weld.ts does).
  for (let k = 0; k < n * d; k++) store<f64>(coords + (<usize>k << 3), f64At(coords, k) + 0);
  memory.fill(slots, 0xff, <usize>slotCount << 2);
  let mask = slotCount - 1;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const base = i * d;
    // The recent representatives first, as exact.ts: equal coordinates there are the only representative with them.
    let recent = -1;
    for (let back = min(i, RECENT); back > 0 && recent < 0; back--) {
      const r = i32At(remap, i - back);
      let axis = 0;
      while (axis < d && f64At(repCoords, r * d + axis) == f64At(coords, base + axis)) axis++;
      if (axis == d) recent = r;
    }
    if (recent >= 0) {
      setI32(remap, i, recent);
      continue;
    }
    let s = hashWords(coords + (<usize>base << 3), words) & mask;
    let found = -1;
    for (;;) {
      const r = i32At(slots, s);
      if (r < 0) break;
      const other = r * d;
      let axis = 0;
      while (axis < d && f64At(repCoords, other + axis) == f64At(coords, base + axis)) axis++;
      if (axis == d) {
        found = r;
        break;
      }
      s = (s + 1) & mask;
    }
    if (found < 0) {
      found = count++;
      setI32(representatives, found, i);
      memory.copy(repCoords + (<usize>(found * d) << 3), coords + (<usize>base << 3), <usize>d << 3);
      setI32(slots, s, found);
      if (<u32>(count * 2) > slotCount) {
        slotCount *= 2;
        mask = slotCount - 1;
        memory.fill(slots, 0xff, <usize>slotCount << 2);
        for (let r = 0; r < count; r++) {
          let t = hashWords(repCoords + (<usize>(r * d) << 3), words) & mask;
          while (i32At(slots, t) >= 0) t = (t + 1) & mask;
          setI32(slots, t, r);
        }
      }
    }
    setI32(remap, i, found);
  }
  return count;
}
