/**
 * Tolerance > 0: representatives linked per grid cell in flat typed arrays,
 * "grid coordinates -> hash map -> linked list in an array" (Bitsquid's
 * "Finding nearby stuff", see docs/guides/welding.md), one lookup of the
 * neighbouring cells per vertex. A representative within half the tolerance
 * is provably the answer (SURE_FRACTION in core/weld-cells.ts, where the
 * grid's parameters are computed): those of the previous few vertices are
 * tried first (RECENT), then the vertex's own cell, which ends the search
 * for most copies of a vertex in a triangle soup with no lookup or a single
 * one.
 *
 * Cell side 2 * reach (reach: the tolerance plus slack, see gridParameters) so a vertex's
 * ball [p - reach, p + reach] spans 2 cells per axis: 8 lookups in 3D (4 in
 * 2D) against 27 (9) with tolerance-sized cells, for a searched volume of
 * 64 tolerance^3 against 27. Welding input is sparse at the tolerance scale
 * (the tolerance is well below edge lengths), so nearly every lookup is a miss
 * or a one-entry list and the number of lookups, each a cache miss on large
 * meshes, is the cost: 2 * reach is the side Bitsquid's table ("cell size =
 * search diameter") favours.
 *
 * Cell coordinates are taken relative to the data's lowest corner and halved
 * first, so nothing overflows: cell(v) = floor((v * 0.5 - min * 0.5) / half),
 * half = cell side / 2. Every step is a monotone float64 operation, so for
 * doubles a <= r <= b, cell(a) <= cell(r) <= cell(b): searching cells
 * cell(p - reach) .. cell(p + reach) finds every representative r the
 * float64 distance test accepts (those all have |r - p| <= reach per axis),
 * with no rounding case missed. The range is 2 cells per axis (3 after a
 * rare rounding), and the loops take whatever it is.
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

/**
 * How far the search must still reach once a representative at squared
 * distance `best2` (as computed) is in hand: only representatives whose
 * computed squared distance is <= best2 can still win (ties included), and
 * each axis term of that sum is <= best2, so the axis difference is at most
 * sqrt(best2 + 2^-1073) (the 2^-1073 covers squares that underflow) up to
 * rounding, which REACH_SLACK (core/weld-cells.ts) covers as it does for the
 * tolerance. Never more than `reach`. With the own cell's best close by, this ball usually fits in
 * the own cell, and no other cell is looked up.
 */
function nearerReach(reach: number, best2: number): number {
  return Math.min(reach, Math.sqrt(best2 + 2 ** -1073) * REACH_SLACK);
}

// The hot loops below compute the library's cell hash (hashCell2 / hashCell3
// of core/cell-hash.ts, bit for bit for int32 cells) inline, hoisting the per-axis
// products out of the 2x2x2 loop.

/*
 * The cell table, kept in local variables of each weld loop: open addressing
 * (linear probing, load <= 1/2) from int32 cell coordinates to dense cell ids.
 * `slots` holds only ids, 4 bytes a slot, so it stays in cache on meshes of a
 * million vertices; `keys` (the coordinates) and `heads` (newest
 * representative of the cell, older ones follow `next`) are in id order, which
 * follows the input's own locality. Cells are never removed.
 *
 * Most of a vertex's neighbouring cells are empty: `occupied`, a bitmap of
 * occupied cell hashes with 8 bits per slot (a 1/16 false-positive rate),
 * answers those with one bit test and no key comparison.
 */

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
 * Welds 3D vertices within `tolerance` (see the module notes).
 * `repCoords` receives the representatives' coordinates packed in representative order.
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
  // Next-older representative in the same cell: the per-cell linked lists.
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
    const x = coords[i * 3];
    const y = coords[i * 3 + 1];
    const z = coords[i * 3 + 2];
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    // The representatives of the last few vertices first (see RECENT): one within half the tolerance is the answer.
    for (let back = sure2 > 0 ? Math.min(i, RECENT) : 0; back > 0; back--) {
      const r = remap[i - back];
      const dx = repCoords[r * 3] - x;
      const dy = repCoords[r * 3 + 1] - y;
      const dz = repCoords[r * 3 + 2] - z;
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
    const cx = Math.floor((x * 0.5 - hx) * inv);
    const cy = Math.floor((y * 0.5 - hy) * inv);
    const cz = Math.floor((z * 0.5 - hz) * inv);
    // Table keys are the cells' low 32 bits (see MAX_CELLS_PER_AXIS in core/weld-cells.ts).
    const kx = cx | 0;
    const ky = cy | 0;
    const kz = cz | 0;
    const h = mix32(Math.imul(kx, CELL_HASH_X) ^ Math.imul(ky, CELL_HASH_Y) ^ Math.imul(kz, CELL_HASH_Z));
    let s = -1;
    let own = -1;
    if ((occupied[(h & occupiedMask) >>> 5] & (1 << (h & 31))) !== 0) {
      s = h & mask;
      own = slots[s];
      while (own >= 0 && (keys[own * 3] !== kx || keys[own * 3 + 1] !== ky || keys[own * 3 + 2] !== kz)) {
        s = (s + 1) & mask;
        own = slots[s];
      }
      for (let r = own < 0 ? -1 : heads[own]; r >= 0; r = next[r]) {
        const dx = repCoords[r * 3] - x;
        const dy = repCoords[r * 3 + 1] - y;
        const dz = repCoords[r * 3 + 2] - z;
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
      const ball = best < 0 ? reach : nearerReach(reach, bestDistance2);
      // Searched cells: first cell and span per axis; loops run on the int32 keys.
      const x0 = Math.floor(((x - ball) * 0.5 - hx) * inv);
      const y0 = Math.floor(((y - ball) * 0.5 - hy) * inv);
      const z0 = Math.floor(((z - ball) * 0.5 - hz) * inv);
      const spanX = (Math.floor(((x + ball) * 0.5 - hx) * inv) - x0) | 0;
      const spanY = (Math.floor(((y + ball) * 0.5 - hy) * inv) - y0) | 0;
      const spanZ = (Math.floor(((z + ball) * 0.5 - hz) * inv) - z0) | 0;
      const bx = x0 | 0;
      const by = y0 | 0;
      const bz = z0 | 0;
      // A representative within half the tolerance is the answer wherever it is found (SURE_FRACTION): stop there.
      search: for (let oz = 0; oz <= spanZ; oz++) {
        const lz = (bz + oz) | 0;
        const hashZ = Math.imul(lz, CELL_HASH_Z);
        for (let oy = 0; oy <= spanY; oy++) {
          const ly = (by + oy) | 0;
          const hashYZ = Math.imul(ly, CELL_HASH_Y) ^ hashZ;
          for (let ox = 0; ox <= spanX; ox++) {
            const lx = (bx + ox) | 0;
            // The own cell, already searched (no other cell in the span shares its key).
            if (lx === kx && ly === ky && lz === kz) continue;
            const q = mix32(Math.imul(lx, CELL_HASH_X) ^ hashYZ);
            if ((occupied[(q & occupiedMask) >>> 5] & (1 << (q & 31))) === 0) continue;
            let t = q & mask;
            let id = slots[t];
            while (id >= 0 && (keys[id * 3] !== lx || keys[id * 3 + 1] !== ly || keys[id * 3 + 2] !== lz)) {
              t = (t + 1) & mask;
              id = slots[t];
            }
            if (id < 0) continue;
            for (let r = heads[id]; r >= 0; r = next[r]) {
              const dx = repCoords[r * 3] - x;
              const dy = repCoords[r * 3 + 1] - y;
              const dz = repCoords[r * 3 + 2] - z;
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
            if (bestDistance2 < sure2) break search;
          }
        }
      }
    }
    if (best < 0) {
      best = count++;
      representatives[best] = i;
      // + 0: welded positions never hold -0, whether coords are the packed copy (already +0) or the input itself.
      repCoords[best * 3] = x + 0;
      repCoords[best * 3 + 1] = y + 0;
      repCoords[best * 3 + 2] = z + 0;
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
        keys[cells * 3] = kx;
        keys[cells * 3 + 1] = ky;
        keys[cells * 3 + 2] = kz;
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

/** Welds 2D vertices within `tolerance`: {@link weldNear3} without z. */
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
  let keys = new Int32Array(slots.length);
  let heads = new Int32Array(slots.length / 2);
  let occupied = new Int32Array(slots.length / 4);
  let occupiedMask = slots.length * 8 - 1;
  let cells = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = coords[i * 2];
    const y = coords[i * 2 + 1];
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    for (let back = sure2 > 0 ? Math.min(i, RECENT) : 0; back > 0; back--) {
      const r = remap[i - back];
      const dx = repCoords[r * 2] - x;
      const dy = repCoords[r * 2 + 1] - y;
      if (dx * dx + dy * dy < sure2) {
        best = r;
        break;
      }
    }
    if (best >= 0) {
      remap[i] = best;
      continue;
    }
    const cx = Math.floor((x * 0.5 - hx) * inv);
    const cy = Math.floor((y * 0.5 - hy) * inv);
    const kx = cx | 0;
    const ky = cy | 0;
    const h = mix32(Math.imul(kx, CELL_HASH_X) ^ Math.imul(ky, CELL_HASH_Y));
    let s = -1;
    let own = -1;
    if ((occupied[(h & occupiedMask) >>> 5] & (1 << (h & 31))) !== 0) {
      s = h & mask;
      own = slots[s];
      while (own >= 0 && (keys[own * 2] !== kx || keys[own * 2 + 1] !== ky)) {
        s = (s + 1) & mask;
        own = slots[s];
      }
      for (let r = own < 0 ? -1 : heads[own]; r >= 0; r = next[r]) {
        const dx = repCoords[r * 2] - x;
        const dy = repCoords[r * 2 + 1] - y;
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
      const ball = best < 0 ? reach : nearerReach(reach, bestDistance2);
      const x0 = Math.floor(((x - ball) * 0.5 - hx) * inv);
      const y0 = Math.floor(((y - ball) * 0.5 - hy) * inv);
      const spanX = (Math.floor(((x + ball) * 0.5 - hx) * inv) - x0) | 0;
      const spanY = (Math.floor(((y + ball) * 0.5 - hy) * inv) - y0) | 0;
      const bx = x0 | 0;
      const by = y0 | 0;
      search: for (let oy = 0; oy <= spanY; oy++) {
        const ly = (by + oy) | 0;
        const hashY = Math.imul(ly, CELL_HASH_Y);
        for (let ox = 0; ox <= spanX; ox++) {
          const lx = (bx + ox) | 0;
          if (lx === kx && ly === ky) continue;
          const q = mix32(Math.imul(lx, CELL_HASH_X) ^ hashY);
          if ((occupied[(q & occupiedMask) >>> 5] & (1 << (q & 31))) === 0) continue;
          let t = q & mask;
          let id = slots[t];
          while (id >= 0 && (keys[id * 2] !== lx || keys[id * 2 + 1] !== ly)) {
            t = (t + 1) & mask;
            id = slots[t];
          }
          if (id < 0) continue;
          for (let r = heads[id]; r >= 0; r = next[r]) {
            const dx = repCoords[r * 2] - x;
            const dy = repCoords[r * 2 + 1] - y;
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
          if (bestDistance2 < sure2) break search;
        }
      }
    }
    if (best < 0) {
      best = count++;
      representatives[best] = i;
      repCoords[best * 2] = x + 0;
      repCoords[best * 2 + 1] = y + 0;
      if (own >= 0) {
        next[best] = heads[own];
        heads[own] = best;
      } else {
        if (s < 0) {
          s = h & mask;
          while (slots[s] >= 0) s = (s + 1) & mask;
        }
        if (cells === heads.length) {
          keys = doubled(keys);
          heads = doubled(heads);
        }
        keys[cells * 2] = kx;
        keys[cells * 2 + 1] = ky;
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
