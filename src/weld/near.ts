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

import { hashCell2, hashCell3, nextPowerOfTwo } from '../cells.js';

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
 * Cells per axis at most. Cells grow past 2 * reach when the data spans more
 * than 2^30 of them, so cell coordinates are always int32 (and fast to hash)
 * and far-away coordinates with a tiny tolerance still get exact, distinct
 * cells. Correctness does not depend on the cell side, only speed.
 */
const MAX_CELLS_PER_AXIS = 2 ** 30;

/**
 * Open-addressing cell table (linear probing, load <= 1/2). A slot record
 * holds the cell's int32 coordinates and the head of its representative list
 * side by side, so a lookup touches one record. Cells are never removed.
 *
 * Most of a vertex's 8 neighbouring cells are empty, and on a large mesh each
 * probe of the table is a cache miss: a bitmap of occupied cell hashes, 8 bits
 * per slot (a 1/16 false-positive rate, small enough to stay in cache), turns
 * those empty lookups into one cached bit test.
 */
class CellRecords {
  /** Per slot: `dimension` cell coordinates, then the newest representative in the cell or -1 (empty slot). */
  records: Int32Array;
  mask: number;
  /** Bit `hash & occupiedMask` is set when some cell with that hash is in the table. */
  occupied: Int32Array;
  occupiedMask: number;
  size = 0;
  readonly stride: number;

  constructor(dimension: number, expectedCells: number) {
    this.stride = dimension + 1;
    const slots = nextPowerOfTwo(Math.max(64, expectedCells * 2));
    this.records = new Int32Array(slots * this.stride).fill(-1);
    this.mask = slots - 1;
    this.occupied = new Int32Array(slots / 4);
    this.occupiedMask = slots * 8 - 1;
  }

  /** Counts one more cell, doubling the table first when the load would pass 1/2. */
  add(): void {
    this.size++;
    if (this.size * 2 <= this.mask + 1) return;
    const stride = this.stride;
    const old = this.records;
    const slots = (this.mask + 1) * 2;
    const records = new Int32Array(slots * stride).fill(-1);
    const mask = slots - 1;
    const occupied = new Int32Array(slots / 4);
    const occupiedMask = slots * 8 - 1;
    for (let k = 0; k < old.length; k += stride) {
      if (old[k + stride - 1] < 0) continue;
      const hash = stride === 4 ? hashCell3(old[k], old[k + 1], old[k + 2]) : hashCell2(old[k], old[k + 1]);
      occupied[(hash & occupiedMask) >>> 5] |= 1 << (hash & 31);
      let s = hash & mask;
      while (records[s * stride + stride - 1] >= 0) s = (s + 1) & mask;
      for (let field = 0; field < stride; field++) records[s * stride + field] = old[k + field];
    }
    this.records = records;
    this.mask = mask;
    this.occupied = occupied;
    this.occupiedMask = occupiedMask;
  }
}

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
  const { reach, halfMin, inverseHalf: inv } = makeGrid(min, max, tolerance);
  const hx = halfMin[0];
  const hy = halfMin[1];
  const hz = halfMin[2];
  // Next-older representative in the same cell: the per-cell linked lists.
  const next = new Int32Array(n);
  // Start small and double: soups hold about one distinct position per six vertices.
  const table = new CellRecords(3, Math.min(n, 1024));
  let records = table.records;
  let mask = table.mask;
  let occupied = table.occupied;
  let occupiedMask = table.occupiedMask;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = coords[i * 3];
    const y = coords[i * 3 + 1];
    const z = coords[i * 3 + 2];
    const x0 = Math.floor(((x - reach) * 0.5 - hx) * inv) | 0;
    const x1 = Math.floor(((x + reach) * 0.5 - hx) * inv) | 0;
    const y0 = Math.floor(((y - reach) * 0.5 - hy) * inv) | 0;
    const y1 = Math.floor(((y + reach) * 0.5 - hy) * inv) | 0;
    const z0 = Math.floor(((z - reach) * 0.5 - hz) * inv) | 0;
    const z1 = Math.floor(((z + reach) * 0.5 - hz) * inv) | 0;
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    for (let cz = z0; cz <= z1; cz++) {
      for (let cy = y0; cy <= y1; cy++) {
        for (let cx = x0; cx <= x1; cx++) {
          const hash = hashCell3(cx, cy, cz);
          if ((occupied[(hash & occupiedMask) >>> 5] & (1 << (hash & 31))) === 0) continue;
          let k = (hash & mask) * 4;
          let r = records[k + 3];
          while (r >= 0 && (records[k] !== cx || records[k + 1] !== cy || records[k + 2] !== cz)) {
            k = k + 4 > mask * 4 ? 0 : k + 4;
            r = records[k + 3];
          }
          for (; r >= 0; r = next[r]) {
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
    if (best < 0) {
      best = count++;
      representatives[best] = i;
      repCoords[best * 3] = x;
      repCoords[best * 3 + 1] = y;
      repCoords[best * 3 + 2] = z;
      const cx = Math.floor((x * 0.5 - hx) * inv) | 0;
      const cy = Math.floor((y * 0.5 - hy) * inv) | 0;
      const cz = Math.floor((z * 0.5 - hz) * inv) | 0;
      const hash = hashCell3(cx, cy, cz);
      let k = (hash & mask) * 4;
      while (records[k + 3] >= 0 && (records[k] !== cx || records[k + 1] !== cy || records[k + 2] !== cz)) {
        k = k + 4 > mask * 4 ? 0 : k + 4;
      }
      next[best] = records[k + 3];
      if (records[k + 3] < 0) {
        records[k] = cx;
        records[k + 1] = cy;
        records[k + 2] = cz;
        records[k + 3] = best;
        occupied[(hash & occupiedMask) >>> 5] |= 1 << (hash & 31);
        table.add();
        records = table.records;
        mask = table.mask;
        occupied = table.occupied;
        occupiedMask = table.occupiedMask;
      } else records[k + 3] = best;
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
  const { reach, halfMin, inverseHalf: inv } = makeGrid(min, max, tolerance);
  const hx = halfMin[0];
  const hy = halfMin[1];
  const next = new Int32Array(n);
  const table = new CellRecords(2, Math.min(n, 1024));
  let records = table.records;
  let mask = table.mask;
  let occupied = table.occupied;
  let occupiedMask = table.occupiedMask;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = coords[i * 2];
    const y = coords[i * 2 + 1];
    const x0 = Math.floor(((x - reach) * 0.5 - hx) * inv) | 0;
    const x1 = Math.floor(((x + reach) * 0.5 - hx) * inv) | 0;
    const y0 = Math.floor(((y - reach) * 0.5 - hy) * inv) | 0;
    const y1 = Math.floor(((y + reach) * 0.5 - hy) * inv) | 0;
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    for (let cy = y0; cy <= y1; cy++) {
      for (let cx = x0; cx <= x1; cx++) {
        const hash = hashCell2(cx, cy);
        if ((occupied[(hash & occupiedMask) >>> 5] & (1 << (hash & 31))) === 0) continue;
        let k = (hash & mask) * 3;
        let r = records[k + 2];
        while (r >= 0 && (records[k] !== cx || records[k + 1] !== cy)) {
          k = k + 3 > mask * 3 ? 0 : k + 3;
          r = records[k + 2];
        }
        for (; r >= 0; r = next[r]) {
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
    if (best < 0) {
      best = count++;
      representatives[best] = i;
      repCoords[best * 2] = x;
      repCoords[best * 2 + 1] = y;
      const cx = Math.floor((x * 0.5 - hx) * inv) | 0;
      const cy = Math.floor((y * 0.5 - hy) * inv) | 0;
      const hash = hashCell2(cx, cy);
      let k = (hash & mask) * 3;
      while (records[k + 2] >= 0 && (records[k] !== cx || records[k + 1] !== cy)) {
        k = k + 3 > mask * 3 ? 0 : k + 3;
      }
      next[best] = records[k + 2];
      if (records[k + 2] < 0) {
        records[k] = cx;
        records[k + 1] = cy;
        records[k + 2] = best;
        occupied[(hash & occupiedMask) >>> 5] |= 1 << (hash & 31);
        table.add();
        records = table.records;
        mask = table.mask;
        occupied = table.occupied;
        occupiedMask = table.occupiedMask;
      } else records[k + 2] = best;
    }
    remap[i] = best;
  }
  return count;
}
