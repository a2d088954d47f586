// weld's near search (a tolerance above 0), written once for 2D and 3D and for both paths (scripts/
// expand-templates.mjs explains the directives): every vertex, in input order, joins the nearest representative
// within the tolerance (ties to the older one) or becomes one. Both paths test the same candidates with the same
// arithmetic, so each vertex gets the same representative on both, by construction.
//
// Per vertex: the representatives of the last few vertices first (RECENT: a triangle soup repeats a corner in
// the next triangle or two, and one within half the tolerance is the answer wherever it was found, see
// SURE_FRACTION in src/core/weld-cells.ts); then the vertex's own cell, which usually ends the search; then the
// other cells of the window its ball (shrunk to the best distance so far) covers, until one is sure. Cells are
// 2 * reach wide (reach: the tolerance plus slack), so the window is 2 cells per axis (3 after a rare rounding):
// 8 lookups in 3D (4 in 2D) against 27 (9) with tolerance-sized cells, and on sparse welding input the number of
// lookups, each a cache miss on large meshes, is the cost (Bitsquid's "Finding nearby stuff": cell size =
// search diameter, see docs/guides/welding.md).
//
// Cell coordinates are taken relative to the data's lowest corner and halved first, so nothing overflows:
// cell(v) = floor((v * 0.5 - min * 0.5) / half), half = cell side / 2. Every step is a monotone float64
// operation, so a <= r <= b gives cell(a) <= cell(r) <= cell(b): the cells cell(p - reach) .. cell(p + reach)
// hold every representative r the float64 distance test accepts (all have |r - p| <= reach per axis).
//
// The table from int32 cell keys (the cells' low 32 bits, see MAX_CELLS_PER_AXIS in src/core/weld-cells.ts) to
// cell ids is each target's own, and so are its few lines here, side by side: JavaScript keeps ids only in its
// slots (an Int32Array, 4 bytes a slot, in cache on meshes of a million vertices) and a bitmap of occupied cell
// hashes (8 bits a slot) that answers most empty neighbours with one bit test; the kernels keep the hash beside
// the id in a 64-bit slot (a probe passes other cells without reading their keys) and a filter of a bit per
// cell, blocks of cells in one 64-bit word (src/wasm/assembly/weld.ts), which answers a whole window in a load
// or two, and test the recent representatives all at once, without a branch per representative. Only the
// JavaScript path takes weldGeometry's extra test per representative (`accept`, a callback).

//#output js src/weld/near.ts
//#output as src/wasm/assembly/weld-near.ts

// The vertices' coordinates (C: f32 or f64 in the kernels), the representatives' (f64, packed), and the int32
// arrays: remap and representatives, the cells' keys, heads (newest representative of a cell) and next (the
// next older representative of the same cell).
//#macro js coord(k) = coords[k]
//#macro as coord(k) = <f64>load<C>(coords + <usize>(k) * cs)
//#macro js rep(k) = repCoords[k]
//#macro as rep(k) = load<f64>(repCoords + (<usize>(k) << 3))
//#macro js setRep(k, v) = repCoords[k] = v
//#macro as setRep(k, v) = store<f64>(repCoords + (<usize>(k) << 3), v)
//#macro js remap(i) = remap[i]
//#macro as remap(i) = i32At(remap, i)
//#macro js setRemap(i, v) = remap[i] = v
//#macro as setRemap(i, v) = setI32(remap, i, v)
//#macro js setRepresentative(k, v) = representatives[k] = v
//#macro as setRepresentative(k, v) = setI32(representatives, k, v)
//#macro js head(c) = heads[c]
//#macro as head(c) = i32At(heads, c)
//#macro js setHead(c, v) = heads[c] = v
//#macro as setHead(c, v) = setI32(heads, c, v)
//#macro js next(r) = next[r]
//#macro as next(r) = i32At(next, r)
//#macro js setNext(r, v) = next[r] = v
//#macro as setNext(r, v) = setI32(next, r, v)
//#macro js setKey(k, v) = keys[k] = v
//#macro as setKey(k, v) = setI32(keys, k, v)
// Integer steps: a double's low 32 bits (ToInt32, for integral doubles below 2^63), an int32 sum wrapped, and
// Math.imul (AssemblyScript's i32 and u32 arithmetic wraps by itself).
//#macro js int32(v) = (v) | 0
//#macro as int32(v) = toInt32(v)
//#macro js wrap(v) = (v) | 0
//#macro as wrap(v) = v
//#macro js imul(a, b) = Math.imul(a, b)
//#macro as imul(a, b) = <u32>(a) * b
//#macro js min(a, b) = Math.min(a, b)
//#macro as min(a, b) = min(a, b)
// The vertex (x, y, z) and its cell (kx, ky, kz); 2D's macros leave z out.
//#macro all2 rest() = y: f64
//#macro all3 rest() = y: f64, z: f64
//#macro all2 halves() = hy: f64
//#macro all3 halves() = hy: f64, hz: f64
//#macro all2 halfArgs() = hy
//#macro all3 halfArgs() = hy, hz
//#macro all2 restArgs() = y
//#macro all3 restArgs() = y, z
//#macro all2 point(i) = const x = @coord(2 * i); const y = @coord(2 * i + 1)
//#macro all3 point(i) = const x = @coord(3 * i); const y = @coord(3 * i + 1); const z = @coord(3 * i + 2)
//#macro all2 offsets(r) = const dx = @rep(2 * r) - x; const dy = @rep(2 * r + 1) - y
//#macro all3 offsets(r) = const dx = @rep(3 * r) - x; const dy = @rep(3 * r + 1) - y; const dz = @rep(3 * r + 2) - z
//#macro all2 sum() = dx * dx + dy * dy
//#macro all3 sum() = dx * dx + dy * dy + dz * dz
//#macro all2 storePoint(c) = @setRep(2 * c, x + 0); @setRep(2 * c + 1, y + 0)
//#macro all3 storePoint(c) = @setRep(3 * c, x + 0); @setRep(3 * c + 1, y + 0); @setRep(3 * c + 2, z + 0)
//#macro all2 cellOf() = const kx = @int32(Math.floor((x * 0.5 - hx) * inv)); const ky = @int32(Math.floor((y * 0.5 - hy) * inv))
//#macro all3 cellOf() = const kx = @int32(Math.floor((x * 0.5 - hx) * inv)); const ky = @int32(Math.floor((y * 0.5 - hy) * inv)); const kz = @int32(Math.floor((z * 0.5 - hz) * inv))
//#macro all2 storeKey(c) = @setKey(2 * c, kx); @setKey(2 * c + 1, ky)
//#macro all3 storeKey(c) = @setKey(3 * c, kx); @setKey(3 * c + 1, ky); @setKey(3 * c + 2, kz)
// The cell hash (hashCell2 / hashCell3 of src/core/cell-hash.ts, bit for bit for int32 cells), a row's part
// hoisted out of the loop along x.
//#macro all2 hash() = mix32(@imul(kx, CELL_HASH_X) ^ @imul(ky, CELL_HASH_Y))
//#macro all3 hash() = mix32(@imul(kx, CELL_HASH_X) ^ @imul(ky, CELL_HASH_Y) ^ @imul(kz, CELL_HASH_Z))
//#macro all2 rowHash() = @imul(ly, CELL_HASH_Y)
//#macro all3 rowHash() = @imul(ly, CELL_HASH_Y) ^ hashZ
//#macro all2 isOwn() = lx === kx && ly === ky
//#macro all3 isOwn() = lx === kx && ly === ky && lz === kz
// The table, each target's own (see the notes at the top): whether cell (lx, ly, lz) of hash q is surely empty,
// whether the window may hold any other occupied cell, a cell's slot, and marking a new cell.
//#macro js unmarked() = (occupied[(q & occupiedMask) >>> 5] & (1 << (q & 31))) === 0
//#macro as2 unmarked() = (load<u64>(word2(lx, ly, wordMask)) & bit2(lx, ly)) == 0
//#macro as3 unmarked() = (load<u64>(word3(lx, ly, lz, wordMask)) & bit3(lx, ly, lz)) == 0
//#macro js othersMarked() = true
//#macro as2 othersMarked() = marked2(bx, bx + spanX, by, by + spanY, kx, ky, wordMask)
//#macro as3 othersMarked() = marked3(bx, bx + spanX, by, by + spanY, bz, bz + spanZ, kx, ky, kz, wordMask)
//#macro js2 keyDiffers(id, kx, ky, kz) = keys[id * 2] !== kx || keys[id * 2 + 1] !== ky
//#macro js3 keyDiffers(id, kx, ky, kz) = keys[id * 3] !== kx || keys[id * 3 + 1] !== ky || keys[id * 3 + 2] !== kz
//#macro all2 z(kz) = 0
//#macro all3 z(kz) = kz
//#macro js setSlot() = slots[s] = cells
//#macro as setSlot() = store<u64>(slotAt(s), <u64><u32>cells | (<u64>h << 32))
//#macro js mark() = occupied[(h & occupiedMask) >>> 5] |= 1 << (h & 31)
//#macro as2 mark() = mark(word2(kx, ky, wordMask), bit2(kx, ky))
//#macro as3 mark() = mark(word3(kx, ky, kz, wordMask), bit3(kx, ky, kz))
// Only the JavaScript path has an extra test per representative (weldGeometry's attribute tolerances): called
// only for representatives within the tolerance that would be the nearest so far; a plain weld pays one
// comparison per candidate.
//#macro js accepts(r) = && (accept === undefined || accept(i, representatives[r]))
//#macro as accepts(r) =

// A cell's representatives, newest first: the nearest within the tolerance so far (ties to the older one, so
// that the order cells are searched in does not matter).
//#macro all scan(cell)
for (let r = @head(cell); r >= 0; r = @next(r)) {
  @offsets(r);
  const d2 = @sum();
  if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 === bestDistance2 && r < best))@accepts(r)) {
    best = r;
    bestDistance2 = d2;
  }
}
//#endmacro

// How far the search must still reach once a representative at squared distance best2 (as computed) is in hand:
// only representatives whose computed squared distance is <= best2 can still win (ties included), and each axis
// term of that sum is <= best2, so the axis difference is at most sqrt(best2 + 2^-1073) (TINY_SQUARE covers
// squares that underflow) up to rounding, which REACH_SLACK covers as it does for the tolerance. Never more than
// reach. With the own cell's best close by, this ball usually fits in the own cell, and no other cell is looked up.
//#macro all nearerReach(best2) = @min(reach, Math.sqrt(best2 + TINY_SQUARE) * REACH_SLACK)

//#if TARGET === 'js'
/**
 * weld's near search on the JavaScript path (tolerance > 0): see
 * src/templates/weld.template.ts, which writes it and the kernels' search
 * (src/wasm/assembly/weld-near.ts) from one text, for the algorithm and the
 * table. The grid's parameters are computed in src/core/weld-cells.ts.
 *
 * @module
 */

import { CELL_HASH_X, CELL_HASH_Y, CELL_HASH_Z, mix32 } from '../core/cell-hash.js';
import { gridParameters, initialSlots, REACH_SLACK, sureDistance2 } from '../core/weld-cells.js';

/**
 * An extra condition a vertex must meet to join a representative, beyond the
 * distance (weldGeometry's attribute tolerances): called with the vertex's and
 * the representative's input numbers, only for representatives within the
 * tolerance that would be the nearest so far. Plain welds pass `undefined` and
 * pay one comparison per candidate, no call.
 */
export type AcceptRepresentative = (vertex: number, representativeVertex: number) => boolean;

/**
 * How many of the previous vertices' representatives are tried before any
 * cell lookup. A triangle soup repeats each corner in the next triangle or
 * two, so the representative is often among them; one within half the
 * tolerance is the answer wherever it was found (SURE_FRACTION), and testing
 * a few hot ones costs less than one lookup, a cache miss on a large mesh.
 * Only where the early stop is on (sure2 > 0); else no distance qualifies.
 * exact.ts tries them too, for equal coordinates.
 */
export const RECENT = 4;

/** 2^-1073: see nearerReach in the template. */
const TINY_SQUARE = 2 ** -1073;

/** A copy of `array` twice as long. */
function doubled(array: Int32Array): Int32Array<ArrayBuffer> {
  const out = new Int32Array(array.length * 2);
  out.set(array);
  return out;
}

/** Places cells 0 .. cellCount - 1 into the fresh (all -1) `slots` and sets their bits in the fresh `occupied`. */
function placeCells(
  keys: Int32Array,
  cellCount: number,
  dimension: number,
  slots: Int32Array,
  occupied: Int32Array,
): void {
  const mask = slots.length - 1;
  const occupiedMask = slots.length * 8 - 1;
  for (let id = 0; id < cellCount; id++) {
    const k = id * dimension;
    let h = Math.imul(keys[k], CELL_HASH_X) ^ Math.imul(keys[k + 1], CELL_HASH_Y);
    if (dimension === 3) h ^= Math.imul(keys[k + 2], CELL_HASH_Z);
    h = mix32(h);
    occupied[(h & occupiedMask) >>> 5] |= 1 << (h & 31);
    let s = h & mask;
    while (slots[s] >= 0) s = (s + 1) & mask;
    slots[s] = id;
  }
}
//#else
// weld's near search on the WebAssembly kernels (tolerance > 0), from the same template as the JavaScript path's
// (src/weld/near.ts). The caller (src/wasm/weld-kernels.ts) lays the regions out, sizes them for the worst case
// and sets the table (setWeldTable of weld.ts, which holds the table and its helpers); the table starts small
// and doubles in place, as the JavaScript path's does.

import { CELL_HASH_X, CELL_HASH_Y, CELL_HASH_Z, mix32, toInt32 } from './cell-hash';
import {
  bit2,
  bit3,
  heads,
  i32At,
  keys,
  mark,
  marked2,
  marked3,
  next,
  placeCells,
  probe,
  RECENT,
  setI32,
  slotAt,
  slotCount,
  word2,
  word3,
} from './weld';

/** REACH_SLACK of src/core/weld-cells.ts. */
const REACH_SLACK: f64 = 1 + 1.0 / 1099511627776.0; // 1 + 2^-40
/** 2^-1073: see nearerReach in the template. */
const TINY_SQUARE: f64 = reinterpret<f64>(0x000000000000000e); // 2^-1073
//#endif

//#for D of 2 3
//#if TARGET === 'as'
/** The squared distance from the vertex to representative r, as the search computes it. */
// @ts-ignore: decorator
@inline function distance${D}(r: i32, x: f64, @rest(), repCoords: usize): f64 {
  @offsets(r);
  return @sum();
}

/**
 * The one of the last RECENT (4) vertices' representatives within sure2 of the vertex, or -1. All four at once,
 * with no branch per representative: the one found is the same as the loop's (a representative within sure2 is
 * the only one there, see SURE_FRACTION in src/core/weld-cells.ts), and which of them it is seldom follows a
 * pattern a branch predictor learns.
 */
// @ts-ignore: decorator
@inline function recentAtOnce${D}(at: usize, x: f64, @rest(), sure2: f64, repCoords: usize): i32 {
  const r4 = load<i32>(at);
  const r3 = load<i32>(at, 4);
  const r2 = load<i32>(at, 8);
  const r1 = load<i32>(at, 12);
  let best = -1;
  best = select<i32>(r1, best, distance${D}(r1, x, @restArgs(), repCoords) < sure2);
  best = select<i32>(r2, best, distance${D}(r2, x, @restArgs(), repCoords) < sure2);
  best = select<i32>(r3, best, distance${D}(r3, x, @restArgs(), repCoords) < sure2);
  best = select<i32>(r4, best, distance${D}(r4, x, @restArgs(), repCoords) < sure2);
  return best;
}

/**
 * weldNear${D} of the JavaScript path over `n` packed vertices at `coords` (C: f32 or f64), writing remap,
 * representatives and repCoords (f64, packed); returns the number of representatives. `reach`, `inv` and the
 * halved minima are gridParameters' values (src/core/weld-cells.ts), `sure2` the early-stop distance (-1: none).
 */
export function weldNear${D}<C>(
  coords: usize, n: i32, tolerance2: f64, sure2: f64, reach: f64, inv: f64, hx: f64, @halves(),
  remap: usize, representatives: usize, repCoords: usize,
): i32 {
  const cs = sizeof<C>();
  // The table at the size setWeldTable gave, emptied (no cell placed yet); it doubles as cells come.
  let slotTotal = slotCount;
  placeCells(0, ${D}, slotTotal);
  let mask = slotTotal - 1;
  let wordMask = (slotTotal >> 3) - 1;
//#else
/**
 * Welds ${D}D vertices within `tolerance` (see the template): `remap` gets
 * each vertex's representative, `representatives` each representative's
 * vertex, `repCoords` the representatives' coordinates packed in
 * representative order.
 *
 * @returns the number of representatives.
 */
export function weldNear${D}(
  coords: Float32Array | Float64Array,
  min: Float64Array,
  max: Float64Array,
  tolerance: number,
  remap: Uint32Array,
  representatives: Uint32Array,
  repCoords: Float64Array,
  accept: AcceptRepresentative | undefined,
): number {
  const n = coords.length / ${D};
  const tolerance2 = tolerance * tolerance;
  const sure2 = sureDistance2(tolerance2, accept);
  const grid = gridParameters(min, max, tolerance);
  const reach = grid[0];
  const inv = grid[1];
  const hx = grid[2];
  const hy = grid[3];
  @in3D(const hz = grid[4];)
  const next = new Int32Array(n);
  let slots = new Int32Array(initialSlots(n)).fill(-1);
  let mask = slots.length - 1;
  let keys = new Int32Array((slots.length / 2) * ${D});
  let heads = new Int32Array(slots.length / 2);
  let occupied = new Int32Array(slots.length / 4);
  let occupiedMask = slots.length * 8 - 1;
//#endif
  let cells = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    @point(i);
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    // The representatives of the last few vertices first (see RECENT): one within sure2 is the answer.
//#if TARGET === 'as'
    if (i >= RECENT && sure2 > 0) best = recentAtOnce${D}(remap + (<usize>(i - RECENT) << 2), x, @restArgs(), sure2, repCoords);
    else
//#endif
    for (let back = sure2 > 0 ? @min(i, RECENT) : 0; back > 0; back--) {
      const r = @remap(i - back);
      @offsets(r);
      if (@sum() < sure2) {
        best = r;
        break;
      }
    }
    if (best >= 0) {
      @setRemap(i, best);
      continue;
    }
    // The vertex's own cell first: it usually holds the representative, close enough to stop.
    @cellOf();
    const h = @hash();
//#if TARGET === 'js'
    // The slot of the own cell, or the empty one it goes in (-1: the bitmap says empty, not probed).
    let s = -1;
    let own = -1;
    if ((occupied[(h & occupiedMask) >>> 5] & (1 << (h & 31))) !== 0) {
      s = h & mask;
      own = slots[s];
      while (own >= 0 && (@keyDiffers(own, kx, ky, kz))) {
        s = (s + 1) & mask;
        own = slots[s];
      }
    }
//#else
    // The own cell straight from the table (the hash in the slot skips other cells' keys).
    const s = probe(h, mask, ${D}, kx, ky, @z(kz));
    const own = <i32>load<u64>(slotAt(s));
//#endif
    if (own >= 0) {
      @scan(own)
    }
    if (!(bestDistance2 < sure2)) {
      const ball = best < 0 ? reach : @nearerReach(bestDistance2);
      // The window's first cell and span per axis; the loops run on the int32 keys.
      const x0 = Math.floor(((x - ball) * 0.5 - hx) * inv);
      const spanX = @int32(Math.floor(((x + ball) * 0.5 - hx) * inv) - x0);
      const bx = @int32(x0);
      const y0 = Math.floor(((y - ball) * 0.5 - hy) * inv);
      const spanY = @int32(Math.floor(((y + ball) * 0.5 - hy) * inv) - y0);
      const by = @int32(y0);
//#if D === 3
      const z0 = Math.floor(((z - ball) * 0.5 - hz) * inv);
      const spanZ = @int32(Math.floor(((z + ball) * 0.5 - hz) * inv) - z0);
      const bz = @int32(z0);
//#endif
      // A representative within sure2 is the answer wherever it is found: the search stops there.
      let searching = @othersMarked();
//#if D === 3
      for (let oz = 0; oz <= spanZ && searching; oz++) {
        const lz = @wrap(bz + oz);
        const hashZ = @imul(lz, CELL_HASH_Z);
//#endif
        for (let oy = 0; oy <= spanY && searching; oy++) {
          const ly = @wrap(by + oy);
          const rowHash = @rowHash();
          for (let ox = 0; ox <= spanX; ox++) {
            const lx = @wrap(bx + ox);
            // The own cell, already searched (no other cell in the window shares its key).
            if (@isOwn()) continue;
            const q = mix32(@imul(lx, CELL_HASH_X) ^ rowHash);
            if (@unmarked()) continue;
//#if TARGET === 'js'
            let t = q & mask;
            let id = slots[t];
            while (id >= 0 && (@keyDiffers(id, lx, ly, lz))) {
              t = (t + 1) & mask;
              id = slots[t];
            }
//#else
            const id = <i32>load<u64>(slotAt(probe(q, mask, ${D}, lx, ly, @z(lz))));
//#endif
            if (id < 0) continue;
            @scan(id)
            if (bestDistance2 < sure2) {
              searching = false;
              break;
            }
          }
        }
//#if D === 3
      }
//#endif
    }
    if (best < 0) {
      best = count++;
      @setRepresentative(best, i);
      // + 0: welded positions never hold -0, whether coords are the packed copy (already +0) or the input itself.
      @storePoint(best);
      if (own >= 0) {
        @setNext(best, @head(own));
        @setHead(own, best);
      } else {
//#if TARGET === 'js'
        // New cell. The own-cell probe was skipped (bitmap) or ended at the empty slot it goes in.
        if (s < 0) {
          s = h & mask;
          while (slots[s] >= 0) s = (s + 1) & mask;
        }
        if (cells === heads.length) {
          keys = doubled(keys);
          heads = doubled(heads);
        }
//#endif
        @storeKey(cells);
        @setHead(cells, best);
        @setNext(best, -1);
        @setSlot();
        @mark();
        cells++;
//#if TARGET === 'js'
        if (cells * 2 > slots.length) {
          slots = new Int32Array(slots.length * 2).fill(-1);
          mask = slots.length - 1;
          occupied = new Int32Array(slots.length / 4);
          occupiedMask = slots.length * 8 - 1;
          placeCells(keys, cells, ${D}, slots, occupied);
        }
//#else
        if (<u32>(cells * 2) > slotTotal) {
          slotTotal *= 2;
          mask = slotTotal - 1;
          wordMask = (slotTotal >> 3) - 1;
          placeCells(cells, ${D}, slotTotal);
        }
//#endif
      }
    }
    @setRemap(i, best);
  }
  return count;
}

//#if TARGET === 'as'
// The instances the module exports (see src/wasm/weld-kernels.ts), by the coordinates' type; one signature for
// both dimensions (2D's take hz and ignore it), so that the glue calls them alike.
export function weldNear${D}d64(
  coords: usize, n: i32, tolerance2: f64, sure2: f64, reach: f64, inv: f64, hx: f64, hy: f64, hz: f64,
  remap: usize, representatives: usize, repCoords: usize,
): i32 {
  return weldNear${D}<f64>(coords, n, tolerance2, sure2, reach, inv, hx, @halfArgs(), remap, representatives, repCoords);
}
export function weldNear${D}d32(
  coords: usize, n: i32, tolerance2: f64, sure2: f64, reach: f64, inv: f64, hx: f64, hy: f64, hz: f64,
  remap: usize, representatives: usize, repCoords: usize,
): i32 {
  return weldNear${D}<f32>(coords, n, tolerance2, sure2, reach, inv, hx, @halfArgs(), remap, representatives, repCoords);
}
//#endif

//#endfor
