// The weld searches of src/weld/near.ts (tolerance > 0) and src/weld/exact.ts
// (tolerance 0), step for step: the same recent representatives, cells,
// table and distance tests in the same order, so every vertex gets the
// representative the JavaScript weld gives it. The caller (src/wasm/
// weld-kernels.ts) lays the regions out and sizes them for the worst case:
// the table starts small and doubles in place, as near.ts's does.

import { CELL_HASH_X, CELL_HASH_Y, CELL_HASH_Z, mix32, toInt32 } from './cell-hash';

/** RECENT of near.ts: previous vertices whose representatives are tried before any lookup. */
const RECENT: i32 = 4;
/** REACH_SLACK of src/core/weld-cells.ts. */
const REACH_SLACK: f64 = 1 + 1.0 / 1099511627776.0; // 1 + 2^-40
/** The 2^-1073 of nearerReach in near.ts. */
const TINY_SQUARE: f64 = reinterpret<f64>(0x000000000000000e); // 2^-1073

// The table (byte offsets and sizes), set by setWeldTable: slots and the
// occupied filter (8 bits a slot) have room for their largest size; keys
// (d i32 per cell) and heads (i32 per cell) for a cell per vertex; next (i32
// per representative) links a cell's representatives. A slot of weldNear
// holds a cell id (-1: empty) and the cell's hash, so a probe passes other
// cells without reading their keys; weldExact's slots hold ids only.
let slots: usize = 0;
let occupied: usize = 0;
let keys: usize = 0;
let heads: usize = 0;
let next: usize = 0;
let slotCount: u32 = 0;

export function setWeldTable(slotsAt: usize, occupiedAt: usize, keysAt: usize, headsAt: usize, nextAt: usize, initialSlots: u32): void {
  slots = slotsAt;
  occupied = occupiedAt;
  keys = keysAt;
  heads = headsAt;
  next = nextAt;
  slotCount = initialSlots;
}

// @ts-ignore: decorator
@inline function i32At(base: usize, i: i32): i32 {
  return load<i32>(base + (<usize>i << 2));
}

// @ts-ignore: decorator
@inline function setI32(base: usize, i: i32, value: i32): void {
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
@inline function word3(kx: i32, ky: i32, kz: i32, wordMask: u32): usize {
  const h = mix32(<u32>(kx >> 2) * CELL_HASH_X ^ <u32>(ky >> 2) * CELL_HASH_Y ^ <u32>(kz >> 2) * CELL_HASH_Z);
  return occupied + (<usize>(h & wordMask) << 3);
}

// @ts-ignore: decorator
@inline function bit3(kx: i32, ky: i32, kz: i32): u64 {
  return <u64>1 << <u64>((kx & 3) | ((ky & 3) << 2) | ((kz & 3) << 4));
}

// @ts-ignore: decorator
@inline function word2(kx: i32, ky: i32, wordMask: u32): usize {
  const h = mix32(<u32>(kx >> 3) * CELL_HASH_X ^ <u32>(ky >> 3) * CELL_HASH_Y);
  return occupied + (<usize>(h & wordMask) << 3);
}

// @ts-ignore: decorator
@inline function bit2(kx: i32, ky: i32): u64 {
  return <u64>1 << <u64>((kx & 7) | ((ky & 7) << 3));
}

// @ts-ignore: decorator
@inline function mark(at: usize, bit: u64): void {
  store<u64>(at, load<u64>(at) | bit);
}

// @ts-ignore: decorator
@inline function slotAt(s: u32): usize {
  return slots + (<usize>s << 3);
}

/** The slot of the cell with hash `h`, keys kx, ky (, kz): where it is, or the empty slot it would go in. */
// @ts-ignore: decorator
@inline function probe(h: u32, mask: u32, d: i32, kx: i32, ky: i32, kz: i32): u32 {
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
 * (no axis wrapping past 2^31) other than the own cell kx, ky, kz: the
 * window's cells block by block, one load and a mask each.
 */
// @ts-ignore: decorator
@inline function marked3(bx: i32, ex: i32, by: i32, ey: i32, bz: i32, ez: i32, kx: i32, ky: i32, kz: i32, wordMask: u32): bool {
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
@inline function marked2(bx: i32, ex: i32, by: i32, ey: i32, kx: i32, ky: i32, wordMask: u32): bool {
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

/** Empties the table at `slotCount` slots and places cells 0 .. cellCount - 1 (placeCells of near.ts). */
function placeCells(cellCount: i32, d: i32): void {
  memory.fill(slots, 0xff, <usize>slotCount << 3);
  memory.fill(occupied, 0, <usize>slotCount);
  const mask = slotCount - 1;
  const wordMask = (slotCount >> 3) - 1;
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

/** The squared distance from (x, y, z) to the point at `q` (3 f64), as near.ts computes it. */
// @ts-ignore: decorator
@inline function distance3(q: usize, x: f64, y: f64, z: f64): f64 {
  const dx = load<f64>(q) - x;
  const dy = load<f64>(q, 8) - y;
  const dz = load<f64>(q, 16) - z;
  return dx * dx + dy * dy + dz * dz;
}

/** {@link distance3} in 2D. */
// @ts-ignore: decorator
@inline function distance2(q: usize, x: f64, y: f64): f64 {
  const dx = load<f64>(q) - x;
  const dy = load<f64>(q, 8) - y;
  return dx * dx + dy * dy;
}

/** A cell's representatives: the nearest within the tolerance so far, updated from this cell's. */
let best: i32 = -1;
let bestDistance2: f64 = Infinity;

// @ts-ignore: decorator
@inline function scanCell3(id: i32, x: f64, y: f64, z: f64, tolerance2: f64, repCoords: usize): void {
  for (let r = i32At(heads, id); r >= 0; r = i32At(next, r)) {
    const d2 = distance3(repCoords + (<usize>(3 * r) << 3), x, y, z);
    if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 == bestDistance2 && r < best))) {
      best = r;
      bestDistance2 = d2;
    }
  }
}

// @ts-ignore: decorator
@inline function scanCell2(id: i32, x: f64, y: f64, tolerance2: f64, repCoords: usize): void {
  for (let r = i32At(heads, id); r >= 0; r = i32At(next, r)) {
    const d2 = distance2(repCoords + (<usize>(2 * r) << 3), x, y);
    if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 == bestDistance2 && r < best))) {
      best = r;
      bestDistance2 = d2;
    }
  }
}

/**
 * weldNear3 of near.ts over `n` packed 3D vertices at `coords` (C: f32 or
 * f64), writing remap, representatives and repCoords (f64, packed); returns
 * the number of representatives. `reach`, `inv`, `hx`, `hy`, `hz` are
 * gridParameters' values, `sure2` the early-stop distance (-1: none). The
 * same candidates are tested as in near.ts, so the same representative
 * wins; only the table differs (the filter, the hash kept in the slot).
 */
export function weldNear3<C>(
  coords: usize, n: i32, tolerance2: f64, sure2: f64, reach: f64, inv: f64, hx: f64, hy: f64, hz: f64,
  remap: usize, representatives: usize, repCoords: usize,
): i32 {
  const cs = sizeof<C>();
  memory.fill(slots, 0xff, <usize>slotCount << 3);
  memory.fill(occupied, 0, <usize>slotCount);
  let mask = slotCount - 1;
  let wordMask = (slotCount >> 3) - 1;
  let cells = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const p = coords + <usize>(3 * i) * cs;
    const x = <f64>load<C>(p);
    const y = <f64>load<C>(p + cs);
    const z = <f64>load<C>(p + 2 * cs);
    best = -1;
    bestDistance2 = Infinity;
    if (i >= RECENT && sure2 > 0) {
      // All four at once, no branch per representative: the one found is the same (a representative within
      // sure2 is the only one there, see SURE_FRACTION in src/core/weld-cells.ts), and which of them it is seldom follows a
      // pattern the branch predictor learns.
      const at = remap + (<usize>(i - RECENT) << 2);
      const r4 = load<i32>(at);
      const r3 = load<i32>(at, 4);
      const r2 = load<i32>(at, 8);
      const r1 = load<i32>(at, 12);
      const q4 = repCoords + (<usize>(3 * r4) << 3);
      const q3 = repCoords + (<usize>(3 * r3) << 3);
      const q2 = repCoords + (<usize>(3 * r2) << 3);
      const q1 = repCoords + (<usize>(3 * r1) << 3);
      const d4 = distance3(q4, x, y, z);
      const d3 = distance3(q3, x, y, z);
      const d2 = distance3(q2, x, y, z);
      const d1 = distance3(q1, x, y, z);
      best = select<i32>(r1, best, d1 < sure2);
      best = select<i32>(r2, best, d2 < sure2);
      best = select<i32>(r3, best, d3 < sure2);
      best = select<i32>(r4, best, d4 < sure2);
    } else {
      for (let back = sure2 > 0 ? min(i, RECENT) : 0; back > 0; back--) {
        const r = i32At(remap, i - back);
        if (distance3(repCoords + (<usize>(3 * r) << 3), x, y, z) < sure2) {
          best = r;
          break;
        }
      }
    }
    if (best >= 0) {
      setI32(remap, i, best);
      continue;
    }
    // The own cell first, straight from the table: it usually holds the representative.
    const kx = toInt32(Math.floor((x * 0.5 - hx) * inv));
    const ky = toInt32(Math.floor((y * 0.5 - hy) * inv));
    const kz = toInt32(Math.floor((z * 0.5 - hz) * inv));
    const h = hash3(kx, ky, kz);
    const s = probe(h, mask, 3, kx, ky, kz);
    const own = <i32>load<u64>(slotAt(s));
    if (own >= 0) scanCell3(own, x, y, z, tolerance2, repCoords);
    if (!(bestDistance2 < sure2)) {
      const ball = best < 0 ? reach : min(reach, Math.sqrt(bestDistance2 + TINY_SQUARE) * REACH_SLACK);
      const x0 = Math.floor(((x - ball) * 0.5 - hx) * inv);
      const y0 = Math.floor(((y - ball) * 0.5 - hy) * inv);
      const z0 = Math.floor(((z - ball) * 0.5 - hz) * inv);
      const spanX = toInt32(Math.floor(((x + ball) * 0.5 - hx) * inv) - x0);
      const spanY = toInt32(Math.floor(((y + ball) * 0.5 - hy) * inv) - y0);
      const spanZ = toInt32(Math.floor(((z + ball) * 0.5 - hz) * inv) - z0);
      const bx = toInt32(x0);
      const by = toInt32(y0);
      const bz = toInt32(z0);
      // Mostly nothing else in the window is marked (always, for a vertex with no representative near).
      const ex = bx + spanX;
      const ey = by + spanY;
      const ez = bz + spanZ;
      let searching = ex < bx || ey < by || ez < bz || marked3(bx, ex, by, ey, bz, ez, kx, ky, kz, wordMask);
      for (let oz = 0; oz <= spanZ && searching; oz++) {
        const lz = bz + oz;
        for (let oy = 0; oy <= spanY && searching; oy++) {
          const ly = by + oy;
          for (let ox = 0; ox <= spanX; ox++) {
            const lx = bx + ox;
            if (lx == kx && ly == ky && lz == kz) continue;
            if ((load<u64>(word3(lx, ly, lz, wordMask)) & bit3(lx, ly, lz)) == 0) continue;
            const id = <i32>load<u64>(slotAt(probe(hash3(lx, ly, lz), mask, 3, lx, ly, lz)));
            if (id < 0) continue;
            scanCell3(id, x, y, z, tolerance2, repCoords);
            if (bestDistance2 < sure2) {
              searching = false;
              break;
            }
          }
        }
      }
    }
    let chosen = best;
    if (chosen < 0) {
      chosen = count++;
      setI32(representatives, chosen, i);
      const c = repCoords + (<usize>(3 * chosen) << 3);
      store<f64>(c, x + 0);
      store<f64>(c, y + 0, 8);
      store<f64>(c, z + 0, 16);
      if (own >= 0) {
        setI32(next, chosen, i32At(heads, own));
        setI32(heads, own, chosen);
      } else {
        setI32(keys, cells * 3, kx);
        setI32(keys, cells * 3 + 1, ky);
        setI32(keys, cells * 3 + 2, kz);
        setI32(heads, cells, chosen);
        setI32(next, chosen, -1);
        store<u64>(slotAt(s), <u64><u32>cells | (<u64>h << 32));
        mark(word3(kx, ky, kz, wordMask), bit3(kx, ky, kz));
        cells++;
        if (<u32>(cells * 2) > slotCount) {
          slotCount *= 2;
          mask = slotCount - 1;
          wordMask = (slotCount >> 3) - 1;
          placeCells(cells, 3);
        }
      }
    }
    setI32(remap, i, chosen);
  }
  return count;
}

/** weldNear2 of near.ts: {@link weldNear3} without z. */
export function weldNear2<C>(
  coords: usize, n: i32, tolerance2: f64, sure2: f64, reach: f64, inv: f64, hx: f64, hy: f64,
  remap: usize, representatives: usize, repCoords: usize,
): i32 {
  const cs = sizeof<C>();
  memory.fill(slots, 0xff, <usize>slotCount << 3);
  memory.fill(occupied, 0, <usize>slotCount);
  let mask = slotCount - 1;
  let wordMask = (slotCount >> 3) - 1;
  let cells = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const p = coords + <usize>(2 * i) * cs;
    const x = <f64>load<C>(p);
    const y = <f64>load<C>(p + cs);
    best = -1;
    bestDistance2 = Infinity;
    if (i >= RECENT && sure2 > 0) {
      // See weldNear3.
      const at = remap + (<usize>(i - RECENT) << 2);
      const r4 = load<i32>(at);
      const r3 = load<i32>(at, 4);
      const r2 = load<i32>(at, 8);
      const r1 = load<i32>(at, 12);
      const d4 = distance2(repCoords + (<usize>(2 * r4) << 3), x, y);
      const d3 = distance2(repCoords + (<usize>(2 * r3) << 3), x, y);
      const d2 = distance2(repCoords + (<usize>(2 * r2) << 3), x, y);
      const d1 = distance2(repCoords + (<usize>(2 * r1) << 3), x, y);
      best = select<i32>(r1, best, d1 < sure2);
      best = select<i32>(r2, best, d2 < sure2);
      best = select<i32>(r3, best, d3 < sure2);
      best = select<i32>(r4, best, d4 < sure2);
    } else {
      for (let back = sure2 > 0 ? min(i, RECENT) : 0; back > 0; back--) {
        const r = i32At(remap, i - back);
        if (distance2(repCoords + (<usize>(2 * r) << 3), x, y) < sure2) {
          best = r;
          break;
        }
      }
    }
    if (best >= 0) {
      setI32(remap, i, best);
      continue;
    }
    const kx = toInt32(Math.floor((x * 0.5 - hx) * inv));
    const ky = toInt32(Math.floor((y * 0.5 - hy) * inv));
    const h = hash2(kx, ky);
    const s = probe(h, mask, 2, kx, ky, 0);
    const own = <i32>load<u64>(slotAt(s));
    if (own >= 0) scanCell2(own, x, y, tolerance2, repCoords);
    if (!(bestDistance2 < sure2)) {
      const ball = best < 0 ? reach : min(reach, Math.sqrt(bestDistance2 + TINY_SQUARE) * REACH_SLACK);
      const x0 = Math.floor(((x - ball) * 0.5 - hx) * inv);
      const y0 = Math.floor(((y - ball) * 0.5 - hy) * inv);
      const spanX = toInt32(Math.floor(((x + ball) * 0.5 - hx) * inv) - x0);
      const spanY = toInt32(Math.floor(((y + ball) * 0.5 - hy) * inv) - y0);
      const bx = toInt32(x0);
      const by = toInt32(y0);
      const ex = bx + spanX;
      const ey = by + spanY;
      let searching = ex < bx || ey < by || marked2(bx, ex, by, ey, kx, ky, wordMask);
      for (let oy = 0; oy <= spanY && searching; oy++) {
        const ly = by + oy;
        for (let ox = 0; ox <= spanX && searching; ox++) {
          const lx = bx + ox;
          if (lx == kx && ly == ky) continue;
          if ((load<u64>(word2(lx, ly, wordMask)) & bit2(lx, ly)) == 0) continue;
          const id = <i32>load<u64>(slotAt(probe(hash2(lx, ly), mask, 2, lx, ly, 0)));
          if (id < 0) continue;
          scanCell2(id, x, y, tolerance2, repCoords);
          if (bestDistance2 < sure2) {
            searching = false;
            break;
          }
        }
      }
    }
    let chosen = best;
    if (chosen < 0) {
      chosen = count++;
      setI32(representatives, chosen, i);
      const c = repCoords + (<usize>(2 * chosen) << 3);
      store<f64>(c, x + 0);
      store<f64>(c, y + 0, 8);
      if (own >= 0) {
        setI32(next, chosen, i32At(heads, own));
        setI32(heads, own, chosen);
      } else {
        setI32(keys, cells * 2, kx);
        setI32(keys, cells * 2 + 1, ky);
        setI32(heads, cells, chosen);
        setI32(next, chosen, -1);
        store<u64>(slotAt(s), <u64><u32>cells | (<u64>h << 32));
        mark(word2(kx, ky, wordMask), bit2(kx, ky));
        cells++;
        if (<u32>(cells * 2) > slotCount) {
          slotCount *= 2;
          mask = slotCount - 1;
          wordMask = (slotCount >> 3) - 1;
          placeCells(cells, 2);
        }
      }
    }
    setI32(remap, i, chosen);
  }
  return count;
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
