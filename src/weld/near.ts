// Generated from src/templates/weld.template.ts by scripts/expand-templates.mjs (npm run build): edit the template, not this file.
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

/**
 * Welds 2D vertices within `tolerance` (see the template): `remap` gets
 * each vertex's representative, `representatives` each representative's
 * vertex, `repCoords` the representatives' coordinates packed in
 * representative order.
 *
 * @returns the number of representatives.
 */
export function weldNear2(
  coords: Float32Array | Float64Array,
  min: Float64Array,
  max: Float64Array,
  tolerance: number,
  remap: Uint32Array,
  representatives: Uint32Array,
  repCoords: Float64Array,
  accept: AcceptRepresentative | undefined,
): number {
  const n = coords.length / 2;
  const tolerance2 = tolerance * tolerance;
  const sure2 = sureDistance2(tolerance2, accept);
  const grid = gridParameters(min, max, tolerance);
  const reach = grid[0];
  const inv = grid[1];
  const hx = grid[2];
  const hy = grid[3];
  const next = new Int32Array(n);
  let slots = new Int32Array(initialSlots(n)).fill(-1);
  let mask = slots.length - 1;
  let keys = new Int32Array((slots.length / 2) * 2);
  let heads = new Int32Array(slots.length / 2);
  let occupied = new Int32Array(slots.length / 4);
  let occupiedMask = slots.length * 8 - 1;
  let cells = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = coords[2 * i];
    const y = coords[2 * i + 1];
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    // The representatives of the last few vertices first (see RECENT): one within sure2 is the answer.
    for (let back = sure2 > 0 ? Math.min(i, RECENT) : 0; back > 0; back--) {
      const r = remap[i - back];
      const dx = repCoords[2 * r] - x;
      const dy = repCoords[2 * r + 1] - y;
      if (dx * dx + dy * dy < sure2) {
        best = r;
        break;
      }
    }
    if (best >= 0) {
      remap[i] = best;
      continue;
    }
    // The vertex's own cell first: it usually holds the representative, close enough to stop.
    const kx = Math.floor((x * 0.5 - hx) * inv) | 0;
    const ky = Math.floor((y * 0.5 - hy) * inv) | 0;
    const h = mix32(Math.imul(kx, CELL_HASH_X) ^ Math.imul(ky, CELL_HASH_Y));
    // The slot of the own cell, or the empty one it goes in (-1: the bitmap says empty, not probed).
    let s = -1;
    let own = -1;
    if ((occupied[(h & occupiedMask) >>> 5] & (1 << (h & 31))) !== 0) {
      s = h & mask;
      own = slots[s];
      while (own >= 0 && (keys[own * 2] !== kx || keys[own * 2 + 1] !== ky)) {
        s = (s + 1) & mask;
        own = slots[s];
      }
    }
    if (own >= 0) {
      for (let r = heads[own]; r >= 0; r = next[r]) {
        const dx = repCoords[2 * r] - x;
        const dy = repCoords[2 * r + 1] - y;
        const d2 = dx * dx + dy * dy;
        if (
          d2 <= tolerance2 &&
          (d2 < bestDistance2 || (d2 === bestDistance2 && r < best)) &&
          (accept === undefined || accept(i, representatives[r]))
        ) {
          best = r;
          bestDistance2 = d2;
        }
      }
    }
    if (!(bestDistance2 < sure2)) {
      const ball = best < 0 ? reach : Math.min(reach, Math.sqrt(bestDistance2 + TINY_SQUARE) * REACH_SLACK);
      // The window's first cell and span per axis; the loops run on the int32 keys.
      const x0 = Math.floor(((x - ball) * 0.5 - hx) * inv);
      const spanX = (Math.floor(((x + ball) * 0.5 - hx) * inv) - x0) | 0;
      const bx = x0 | 0;
      const y0 = Math.floor(((y - ball) * 0.5 - hy) * inv);
      const spanY = (Math.floor(((y + ball) * 0.5 - hy) * inv) - y0) | 0;
      const by = y0 | 0;
      // A representative within sure2 is the answer wherever it is found: the search stops there.
      let searching = true;
      for (let oy = 0; oy <= spanY && searching; oy++) {
        const ly = (by + oy) | 0;
        const rowHash = Math.imul(ly, CELL_HASH_Y);
        for (let ox = 0; ox <= spanX; ox++) {
          const lx = (bx + ox) | 0;
          // The own cell, already searched (no other cell in the window shares its key).
          if (lx === kx && ly === ky) continue;
          const q = mix32(Math.imul(lx, CELL_HASH_X) ^ rowHash);
          if ((occupied[(q & occupiedMask) >>> 5] & (1 << (q & 31))) === 0) continue;
          let t = q & mask;
          let id = slots[t];
          while (id >= 0 && (keys[id * 2] !== lx || keys[id * 2 + 1] !== ly)) {
            t = (t + 1) & mask;
            id = slots[t];
          }
          if (id < 0) continue;
          for (let r = heads[id]; r >= 0; r = next[r]) {
            const dx = repCoords[2 * r] - x;
            const dy = repCoords[2 * r + 1] - y;
            const d2 = dx * dx + dy * dy;
            if (
              d2 <= tolerance2 &&
              (d2 < bestDistance2 || (d2 === bestDistance2 && r < best)) &&
              (accept === undefined || accept(i, representatives[r]))
            ) {
              best = r;
              bestDistance2 = d2;
            }
          }
          if (bestDistance2 < sure2) {
            searching = false;
            break;
          }
        }
      }
    }
    if (best < 0) {
      best = count++;
      representatives[best] = i;
      // + 0: welded positions never hold -0, whether coords are the packed copy (already +0) or the input itself.
      repCoords[2 * best] = x + 0;
      repCoords[2 * best + 1] = y + 0;
      if (own >= 0) {
        next[best] = heads[own];
        heads[own] = best;
      } else {
        // New cell. The own-cell probe was skipped (bitmap) or ended at the empty slot it goes in.
        if (s < 0) {
          s = h & mask;
          while (slots[s] >= 0) s = (s + 1) & mask;
        }
        if (cells === heads.length) {
          keys = doubled(keys);
          heads = doubled(heads);
        }
        keys[2 * cells] = kx;
        keys[2 * cells + 1] = ky;
        heads[cells] = best;
        next[best] = -1;
        slots[s] = cells;
        occupied[(h & occupiedMask) >>> 5] |= 1 << (h & 31);
        cells++;
        if (cells * 2 > slots.length) {
          slots = new Int32Array(slots.length * 2).fill(-1);
          mask = slots.length - 1;
          occupied = new Int32Array(slots.length / 4);
          occupiedMask = slots.length * 8 - 1;
          placeCells(keys, cells, 2, slots, occupied);
        }
      }
    }
    remap[i] = best;
  }
  return count;
}

/**
 * Welds 3D vertices within `tolerance` (see the template): `remap` gets
 * each vertex's representative, `representatives` each representative's
 * vertex, `repCoords` the representatives' coordinates packed in
 * representative order.
 *
 * @returns the number of representatives.
 */
export function weldNear3(
  coords: Float32Array | Float64Array,
  min: Float64Array,
  max: Float64Array,
  tolerance: number,
  remap: Uint32Array,
  representatives: Uint32Array,
  repCoords: Float64Array,
  accept: AcceptRepresentative | undefined,
): number {
  const n = coords.length / 3;
  const tolerance2 = tolerance * tolerance;
  const sure2 = sureDistance2(tolerance2, accept);
  const grid = gridParameters(min, max, tolerance);
  const reach = grid[0];
  const inv = grid[1];
  const hx = grid[2];
  const hy = grid[3];
  const hz = grid[4];
  const next = new Int32Array(n);
  let slots = new Int32Array(initialSlots(n)).fill(-1);
  let mask = slots.length - 1;
  let keys = new Int32Array((slots.length / 2) * 3);
  let heads = new Int32Array(slots.length / 2);
  let occupied = new Int32Array(slots.length / 4);
  let occupiedMask = slots.length * 8 - 1;
  let cells = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = coords[3 * i];
    const y = coords[3 * i + 1];
    const z = coords[3 * i + 2];
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    // The representatives of the last few vertices first (see RECENT): one within sure2 is the answer.
    for (let back = sure2 > 0 ? Math.min(i, RECENT) : 0; back > 0; back--) {
      const r = remap[i - back];
      const dx = repCoords[3 * r] - x;
      const dy = repCoords[3 * r + 1] - y;
      const dz = repCoords[3 * r + 2] - z;
      if (dx * dx + dy * dy + dz * dz < sure2) {
        best = r;
        break;
      }
    }
    if (best >= 0) {
      remap[i] = best;
      continue;
    }
    // The vertex's own cell first: it usually holds the representative, close enough to stop.
    const kx = Math.floor((x * 0.5 - hx) * inv) | 0;
    const ky = Math.floor((y * 0.5 - hy) * inv) | 0;
    const kz = Math.floor((z * 0.5 - hz) * inv) | 0;
    const h = mix32(Math.imul(kx, CELL_HASH_X) ^ Math.imul(ky, CELL_HASH_Y) ^ Math.imul(kz, CELL_HASH_Z));
    // The slot of the own cell, or the empty one it goes in (-1: the bitmap says empty, not probed).
    let s = -1;
    let own = -1;
    if ((occupied[(h & occupiedMask) >>> 5] & (1 << (h & 31))) !== 0) {
      s = h & mask;
      own = slots[s];
      while (own >= 0 && (keys[own * 3] !== kx || keys[own * 3 + 1] !== ky || keys[own * 3 + 2] !== kz)) {
        s = (s + 1) & mask;
        own = slots[s];
      }
    }
    if (own >= 0) {
      for (let r = heads[own]; r >= 0; r = next[r]) {
        const dx = repCoords[3 * r] - x;
        const dy = repCoords[3 * r + 1] - y;
        const dz = repCoords[3 * r + 2] - z;
        const d2 = dx * dx + dy * dy + dz * dz;
        if (
          d2 <= tolerance2 &&
          (d2 < bestDistance2 || (d2 === bestDistance2 && r < best)) &&
          (accept === undefined || accept(i, representatives[r]))
        ) {
          best = r;
          bestDistance2 = d2;
        }
      }
    }
    if (!(bestDistance2 < sure2)) {
      const ball = best < 0 ? reach : Math.min(reach, Math.sqrt(bestDistance2 + TINY_SQUARE) * REACH_SLACK);
      // The window's first cell and span per axis; the loops run on the int32 keys.
      const x0 = Math.floor(((x - ball) * 0.5 - hx) * inv);
      const spanX = (Math.floor(((x + ball) * 0.5 - hx) * inv) - x0) | 0;
      const bx = x0 | 0;
      const y0 = Math.floor(((y - ball) * 0.5 - hy) * inv);
      const spanY = (Math.floor(((y + ball) * 0.5 - hy) * inv) - y0) | 0;
      const by = y0 | 0;
      const z0 = Math.floor(((z - ball) * 0.5 - hz) * inv);
      const spanZ = (Math.floor(((z + ball) * 0.5 - hz) * inv) - z0) | 0;
      const bz = z0 | 0;
      // A representative within sure2 is the answer wherever it is found: the search stops there.
      let searching = true;
      for (let oz = 0; oz <= spanZ && searching; oz++) {
        const lz = (bz + oz) | 0;
        const hashZ = Math.imul(lz, CELL_HASH_Z);
        for (let oy = 0; oy <= spanY && searching; oy++) {
          const ly = (by + oy) | 0;
          const rowHash = Math.imul(ly, CELL_HASH_Y) ^ hashZ;
          for (let ox = 0; ox <= spanX; ox++) {
            const lx = (bx + ox) | 0;
            // The own cell, already searched (no other cell in the window shares its key).
            if (lx === kx && ly === ky && lz === kz) continue;
            const q = mix32(Math.imul(lx, CELL_HASH_X) ^ rowHash);
            if ((occupied[(q & occupiedMask) >>> 5] & (1 << (q & 31))) === 0) continue;
            let t = q & mask;
            let id = slots[t];
            while (id >= 0 && (keys[id * 3] !== lx || keys[id * 3 + 1] !== ly || keys[id * 3 + 2] !== lz)) {
              t = (t + 1) & mask;
              id = slots[t];
            }
            if (id < 0) continue;
            for (let r = heads[id]; r >= 0; r = next[r]) {
              const dx = repCoords[3 * r] - x;
              const dy = repCoords[3 * r + 1] - y;
              const dz = repCoords[3 * r + 2] - z;
              const d2 = dx * dx + dy * dy + dz * dz;
              if (
                d2 <= tolerance2 &&
                (d2 < bestDistance2 || (d2 === bestDistance2 && r < best)) &&
                (accept === undefined || accept(i, representatives[r]))
              ) {
                best = r;
                bestDistance2 = d2;
              }
            }
            if (bestDistance2 < sure2) {
              searching = false;
              break;
            }
          }
        }
      }
    }
    if (best < 0) {
      best = count++;
      representatives[best] = i;
      // + 0: welded positions never hold -0, whether coords are the packed copy (already +0) or the input itself.
      repCoords[3 * best] = x + 0;
      repCoords[3 * best + 1] = y + 0;
      repCoords[3 * best + 2] = z + 0;
      if (own >= 0) {
        next[best] = heads[own];
        heads[own] = best;
      } else {
        // New cell. The own-cell probe was skipped (bitmap) or ended at the empty slot it goes in.
        if (s < 0) {
          s = h & mask;
          while (slots[s] >= 0) s = (s + 1) & mask;
        }
        if (cells === heads.length) {
          keys = doubled(keys);
          heads = doubled(heads);
        }
        keys[3 * cells] = kx;
        keys[3 * cells + 1] = ky;
        keys[3 * cells + 2] = kz;
        heads[cells] = best;
        next[best] = -1;
        slots[s] = cells;
        occupied[(h & occupiedMask) >>> 5] |= 1 << (h & 31);
        cells++;
        if (cells * 2 > slots.length) {
          slots = new Int32Array(slots.length * 2).fill(-1);
          mask = slots.length - 1;
          occupied = new Int32Array(slots.length / 4);
          occupiedMask = slots.length * 8 - 1;
          placeCells(keys, cells, 3, slots, occupied);
        }
      }
    }
    remap[i] = best;
  }
  return count;
}
