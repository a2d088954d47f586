/**
 * Tolerance > 0: representatives linked per grid cell in flat typed arrays,
 * "grid coordinates -> hash map -> linked list in an array" (article 004),
 * one lookup of the neighbouring cells per vertex.
 *
 * Cell side 2 * reach (reach: the tolerance plus slack, below) so a vertex's
 * ball [p - reach, p + reach] spans 2 cells per axis: 8 lookups in 3D (4 in
 * 2D) against 27 (9) with tolerance-sized cells, for a searched volume of
 * 64 tolerance^3 against 27. Welding input is sparse at the tolerance scale
 * (the tolerance is well below edge lengths), so nearly every lookup is a miss
 * or a one-entry list and the number of lookups, each a cache miss on large
 * meshes, is the cost: 2 * reach is the side the article's table ("cell size
 * = search diameter") favours.
 *
 * Cell coordinates are taken relative to the data's lowest corner and halved
 * first, so nothing overflows: cell(v) = floor((v * 0.5 - min * 0.5) / half),
 * half = cell side / 2. Every step is a monotone float64 operation, so for
 * doubles a <= r <= b, cell(a) <= cell(r) <= cell(b): searching cells
 * cell(p - reach) .. cell(p + reach) finds every representative r the
 * float64 distance test accepts (those all have |r - p| <= reach per axis),
 * with no rounding case missed. The range is 2 cells per axis, 3 on rare
 * rounding.
 *
 * @module
 */

import { nextPowerOfTwo } from '../cells.js';

/**
 * Accepted pairs can be an ulp or two farther apart than the tolerance once
 * the squared distance is rounded (relative error < 2^-50), so the search
 * reaches this much further to never miss one the float64 test accepts.
 */
const REACH_SLACK = 1 + 2 ** -40;

/**
 * Squared distances below 2^-1022 lose precision or flush to 0, so with a tiny
 * tolerance the float64 test accepts pairs up to ~2^-511 apart: the search
 * reaches at least that far.
 */
const MIN_REACH = 2 ** -510;

/**
 * Representatives are pairwise farther apart than the tolerance, so one found
 * within half the tolerance is the nearest, strictly (any other is farther
 * than tolerance - d > d away): the search stops there. Most copies of a
 * vertex in a soup land that close to their representative, usually in their
 * own cell, which is looked up first. The factor keeps the argument sound
 * under float64 rounding (relative errors ~2^-50).
 */
const SURE_FRACTION = 0.25 * (1 - 2 ** -20);

/**
 * Below this squared tolerance the rounding of squared distances is no longer
 * relative (subnormals), so the early stop is off.
 */
const SURE_MIN_TOLERANCE2 = 2 ** -1000;

/**
 * Cells per axis at most. Cells grow past 2 * reach when the data spans more
 * than 2^30 of them, so cell coordinates are always int32 (and fast to hash)
 * and far-away coordinates with a tiny tolerance still get exact, distinct
 * cells. Correctness does not depend on the cell side, only speed.
 */
const MAX_CELLS_PER_AXIS = 2 ** 30;

/** The grid: how far to search and how to turn a coordinate into a cell coordinate. */
interface Grid {
  reach: number;
  halfMin: Float64Array;
  inverseHalf: number;
}

/** @param min, max the data's bounds per axis (finite). */
function makeGrid(min: Float64Array, max: Float64Array, tolerance: number): Grid {
  const reach = Math.max(tolerance * REACH_SLACK, MIN_REACH);
  const halfMin = min.map((v) => v * 0.5);
  let halfExtent = 0;
  for (let axis = 0; axis < min.length; axis++) halfExtent = Math.max(halfExtent, max[axis] * 0.5 - halfMin[axis]);
  return { reach, halfMin, inverseHalf: 1 / Math.max(reach, halfExtent / MAX_CELLS_PER_AXIS) };
}

/**
 * The per-axis factors and the finalizer of the library's cell hash
 * (hashCell2 / hashCell3 in cells.ts, whose values these reproduce for int32
 * cells): the hot loops hoist the per-axis products out of the 2x2x2 loop.
 */
const HASH_X = 0x9e3779b1;
const HASH_Y = 0x7feb352d;
const HASH_Z = 0x2c1b3c6d;

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Open-addressing table (linear probing, load <= 1/2) from int32 cell
 * coordinates to dense cell ids, with the head of each cell's representative
 * list by id. The slot array holds only ids, 4 bytes a slot, so it stays in
 * cache on meshes of a million vertices; keys and heads are in id order, which
 * follows the input's own locality (neighbouring triangles make neighbouring
 * cells). Cells are never removed.
 *
 * Most of a vertex's 8 neighbouring cells are empty: a bitmap of occupied cell
 * hashes, 8 bits per slot (a 1/16 false-positive rate), answers those with one
 * bit test and no key comparison.
 */
class WeldCells {
  slots: Int32Array;
  mask: number;
  /** `dimension` int32 coordinates per cell id. */
  keys: Int32Array;
  /** Newest representative in each cell, by id; older ones follow `next`. */
  heads: Int32Array;
  /** Bit `hash & occupiedMask` is set when some cell with that hash is in the table. */
  occupied: Int32Array;
  occupiedMask: number;
  size = 0;
  readonly dimension: number;

  constructor(dimension: number, expectedCells: number) {
    this.dimension = dimension;
    const slots = nextPowerOfTwo(Math.max(64, expectedCells * 2));
    this.slots = new Int32Array(slots).fill(-1);
    this.mask = slots - 1;
    this.keys = new Int32Array((slots / 2) * dimension);
    this.heads = new Int32Array(slots / 2);
    this.occupied = new Int32Array(slots / 4);
    this.occupiedMask = slots * 8 - 1;
  }

  /**
   * Adds a cell whose key probe ended at the empty `slot`, with `first` as its
   * only representative; the caller has written nothing yet. Grows (and
   * re-places every cell) when the load would pass 1/2.
   */
  add(slot: number, hash: number, first: number, cx: number, cy: number, cz: number): void {
    const id = this.size++;
    if (id === this.heads.length) {
      const keys = new Int32Array(this.keys.length * 2);
      keys.set(this.keys);
      this.keys = keys;
      const heads = new Int32Array(this.heads.length * 2);
      heads.set(this.heads);
      this.heads = heads;
    }
    const dimension = this.dimension;
    this.keys[id * dimension] = cx;
    this.keys[id * dimension + 1] = cy;
    if (dimension === 3) this.keys[id * 3 + 2] = cz;
    this.heads[id] = first;
    this.slots[slot] = id;
    this.occupied[(hash & this.occupiedMask) >>> 5] |= 1 << (hash & 31);
    if (this.size * 2 > this.slots.length) this.grow();
  }

  private grow(): void {
    const dimension = this.dimension;
    const keys = this.keys;
    const length = this.slots.length * 2;
    const slots = new Int32Array(length).fill(-1);
    const mask = length - 1;
    const occupied = new Int32Array(length / 4);
    const occupiedMask = length * 8 - 1;
    for (let id = 0; id < this.size; id++) {
      const k = id * dimension;
      const h =
        dimension === 3
          ? mix(Math.imul(keys[k], HASH_X) ^ Math.imul(keys[k + 1], HASH_Y) ^ Math.imul(keys[k + 2], HASH_Z))
          : mix(Math.imul(keys[k], HASH_X) ^ Math.imul(keys[k + 1], HASH_Y));
      occupied[(h & occupiedMask) >>> 5] |= 1 << (h & 31);
      let s = h & mask;
      while (slots[s] >= 0) s = (s + 1) & mask;
      slots[s] = id;
    }
    this.slots = slots;
    this.mask = mask;
    this.occupied = occupied;
    this.occupiedMask = occupiedMask;
  }
}

/**
 * Welds 3D vertices within `tolerance` (see the module notes).
 * `repCoords` receives the representatives' coordinates packed in representative order.
 *
 * @returns the number of representatives.
 */
export function weldNear3(
  coords: Float64Array,
  min: Float64Array,
  max: Float64Array,
  tolerance: number,
  remap: Uint32Array,
  representatives: Uint32Array,
  repCoords: Float64Array,
): number {
  const n = coords.length / 3;
  const tolerance2 = tolerance * tolerance;
  const sure2 = tolerance2 >= SURE_MIN_TOLERANCE2 ? tolerance2 * SURE_FRACTION : -1;
  const { reach, halfMin, inverseHalf: inv } = makeGrid(min, max, tolerance);
  const hx = halfMin[0];
  const hy = halfMin[1];
  const hz = halfMin[2];
  // Next-older representative in the same cell: the per-cell linked lists.
  const next = new Int32Array(n);
  // Start small and double: soups hold about one distinct position per six vertices.
  const table = new WeldCells(3, Math.min(n, 1024));
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = coords[i * 3];
    const y = coords[i * 3 + 1];
    const z = coords[i * 3 + 2];
    const { slots, mask, keys, heads, occupied, occupiedMask } = table;
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    // The vertex's own cell first: it usually holds the representative, close enough to stop.
    const cx = Math.floor((x * 0.5 - hx) * inv) | 0;
    const cy = Math.floor((y * 0.5 - hy) * inv) | 0;
    const cz = Math.floor((z * 0.5 - hz) * inv) | 0;
    const h = mix(Math.imul(cx, HASH_X) ^ Math.imul(cy, HASH_Y) ^ Math.imul(cz, HASH_Z));
    let s = -1;
    let own = -1;
    if ((occupied[(h & occupiedMask) >>> 5] & (1 << (h & 31))) !== 0) {
      s = h & mask;
      own = slots[s];
      while (own >= 0 && (keys[own * 3] !== cx || keys[own * 3 + 1] !== cy || keys[own * 3 + 2] !== cz)) {
        s = (s + 1) & mask;
        own = slots[s];
      }
      for (let r = own < 0 ? -1 : heads[own]; r >= 0; r = next[r]) {
        const dx = repCoords[r * 3] - x;
        const dy = repCoords[r * 3 + 1] - y;
        const dz = repCoords[r * 3 + 2] - z;
        const d2 = dx * dx + dy * dy + dz * dz;
        if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 === bestDistance2 && r < best))) {
          best = r;
          bestDistance2 = d2;
        }
      }
    }
    if (!(bestDistance2 < sure2)) {
      const x0 = Math.floor(((x - reach) * 0.5 - hx) * inv) | 0;
      const x1 = Math.floor(((x + reach) * 0.5 - hx) * inv) | 0;
      const y0 = Math.floor(((y - reach) * 0.5 - hy) * inv) | 0;
      const y1 = Math.floor(((y + reach) * 0.5 - hy) * inv) | 0;
      const z0 = Math.floor(((z - reach) * 0.5 - hz) * inv) | 0;
      const z1 = Math.floor(((z + reach) * 0.5 - hz) * inv) | 0;
      for (let qz = z0; qz <= z1; qz++) {
        const hashZ = Math.imul(qz, HASH_Z);
        for (let qy = y0; qy <= y1; qy++) {
          const hashYZ = Math.imul(qy, HASH_Y) ^ hashZ;
          for (let qx = x0; qx <= x1; qx++) {
            if (qx === cx && qy === cy && qz === cz) continue;
            const q = mix(Math.imul(qx, HASH_X) ^ hashYZ);
            if ((occupied[(q & occupiedMask) >>> 5] & (1 << (q & 31))) === 0) continue;
            let t = q & mask;
            let id = slots[t];
            while (id >= 0 && (keys[id * 3] !== qx || keys[id * 3 + 1] !== qy || keys[id * 3 + 2] !== qz)) {
              t = (t + 1) & mask;
              id = slots[t];
            }
            if (id < 0) continue;
            for (let r = heads[id]; r >= 0; r = next[r]) {
              const dx = repCoords[r * 3] - x;
              const dy = repCoords[r * 3 + 1] - y;
              const dz = repCoords[r * 3 + 2] - z;
              const d2 = dx * dx + dy * dy + dz * dz;
              if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 === bestDistance2 && r < best))) {
                best = r;
                bestDistance2 = d2;
              }
            }
          }
        }
      }
    }
    if (best < 0) {
      best = count++;
      representatives[best] = i;
      repCoords[best * 3] = x;
      repCoords[best * 3 + 1] = y;
      repCoords[best * 3 + 2] = z;
      if (own >= 0) {
        next[best] = heads[own];
        heads[own] = best;
      } else {
        // The own-cell probe was skipped (bitmap) or ended at the empty slot the cell goes in.
        if (s < 0) {
          s = h & mask;
          while (slots[s] >= 0) s = (s + 1) & mask;
        }
        next[best] = -1;
        table.add(s, h, best, cx, cy, cz);
      }
    }
    remap[i] = best;
  }
  return count;
}

/** Welds 2D vertices within `tolerance`: {@link weldNear3} without z. */
export function weldNear2(
  coords: Float64Array,
  min: Float64Array,
  max: Float64Array,
  tolerance: number,
  remap: Uint32Array,
  representatives: Uint32Array,
  repCoords: Float64Array,
): number {
  const n = coords.length / 2;
  const tolerance2 = tolerance * tolerance;
  const sure2 = tolerance2 >= SURE_MIN_TOLERANCE2 ? tolerance2 * SURE_FRACTION : -1;
  const { reach, halfMin, inverseHalf: inv } = makeGrid(min, max, tolerance);
  const hx = halfMin[0];
  const hy = halfMin[1];
  const next = new Int32Array(n);
  const table = new WeldCells(2, Math.min(n, 1024));
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = coords[i * 2];
    const y = coords[i * 2 + 1];
    const { slots, mask, keys, heads, occupied, occupiedMask } = table;
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    const cx = Math.floor((x * 0.5 - hx) * inv) | 0;
    const cy = Math.floor((y * 0.5 - hy) * inv) | 0;
    const h = mix(Math.imul(cx, HASH_X) ^ Math.imul(cy, HASH_Y));
    let s = -1;
    let own = -1;
    if ((occupied[(h & occupiedMask) >>> 5] & (1 << (h & 31))) !== 0) {
      s = h & mask;
      own = slots[s];
      while (own >= 0 && (keys[own * 2] !== cx || keys[own * 2 + 1] !== cy)) {
        s = (s + 1) & mask;
        own = slots[s];
      }
      for (let r = own < 0 ? -1 : heads[own]; r >= 0; r = next[r]) {
        const dx = repCoords[r * 2] - x;
        const dy = repCoords[r * 2 + 1] - y;
        const d2 = dx * dx + dy * dy;
        if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 === bestDistance2 && r < best))) {
          best = r;
          bestDistance2 = d2;
        }
      }
    }
    if (!(bestDistance2 < sure2)) {
      const x0 = Math.floor(((x - reach) * 0.5 - hx) * inv) | 0;
      const x1 = Math.floor(((x + reach) * 0.5 - hx) * inv) | 0;
      const y0 = Math.floor(((y - reach) * 0.5 - hy) * inv) | 0;
      const y1 = Math.floor(((y + reach) * 0.5 - hy) * inv) | 0;
      for (let qy = y0; qy <= y1; qy++) {
        const hashY = Math.imul(qy, HASH_Y);
        for (let qx = x0; qx <= x1; qx++) {
          if (qx === cx && qy === cy) continue;
          const q = mix(Math.imul(qx, HASH_X) ^ hashY);
          if ((occupied[(q & occupiedMask) >>> 5] & (1 << (q & 31))) === 0) continue;
          let t = q & mask;
          let id = slots[t];
          while (id >= 0 && (keys[id * 2] !== qx || keys[id * 2 + 1] !== qy)) {
            t = (t + 1) & mask;
            id = slots[t];
          }
          if (id < 0) continue;
          for (let r = heads[id]; r >= 0; r = next[r]) {
            const dx = repCoords[r * 2] - x;
            const dy = repCoords[r * 2 + 1] - y;
            const d2 = dx * dx + dy * dy;
            if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 === bestDistance2 && r < best))) {
              best = r;
              bestDistance2 = d2;
            }
          }
        }
      }
    }
    if (best < 0) {
      best = count++;
      representatives[best] = i;
      repCoords[best * 2] = x;
      repCoords[best * 2 + 1] = y;
      if (own >= 0) {
        next[best] = heads[own];
        heads[own] = best;
      } else {
        if (s < 0) {
          s = h & mask;
          while (slots[s] >= 0) s = (s + 1) & mask;
        }
        next[best] = -1;
        table.add(s, h, best, cx, cy, 0);
      }
    }
    remap[i] = best;
  }
  return count;
}
