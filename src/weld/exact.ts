/**
 * Tolerance 0: exact duplicates only, no cell division so no rounding can
 * split equal values. Coordinates arrive with -0 already turned into +0, so
 * equal coordinates have equal bits and the table hashes the bits.
 *
 * @module
 */

import { CELL_HASH_X, mix32 } from '../core/cell-hash.js';
import { initialExactSlots } from '../core/weld-cells.js';
import { type AcceptRepresentative, RECENT } from './near.js';

/** Hash of `words` 32-bit words starting at `start`: a multiply-xorshift per word, murmur3's finalizer at the end. */
function hashWords(bits: Uint32Array, start: number, words: number): number {
  let h = 0;
  for (let w = start, end = start + words; w < end; w++) {
    h = Math.imul(h ^ bits[w], CELL_HASH_X);
    h ^= h >>> 15;
  }
  return mix32(h) >>> 0;
}

/**
 * Welds exact duplicates: open-addressing table (linear probing, load <= 1/2)
 * from coordinate bits to representative number. Representatives' coordinates
 * are compared in `repCoords`, packed in representative order, so a probe
 * touches the slot and one contiguous record. The table starts small and
 * doubles: soups hold about one distinct position per six vertices, and a
 * table sized for the distinct positions stays in cache.
 *
 * With `accept`, several representatives can share a position: the probe
 * passes the ones `accept` rejects and a new one goes to the empty slot after
 * them, so equal positions lie along the probe sequence in representative
 * order (rebuilding places them in that order too) and the first accepted is
 * the lowest-numbered, as the definition's tie rule asks.
 *
 * @returns the number of representatives.
 */
export function weldExact(
  coords: Float64Array,
  dimension: number,
  remap: Uint32Array,
  representatives: Uint32Array,
  repCoords: Float64Array,
  accept: AcceptRepresentative | undefined,
): number {
  const n = coords.length / dimension;
  const bits = new Uint32Array(coords.buffer, coords.byteOffset, coords.length * 2);
  const repBits = new Uint32Array(repCoords.buffer, repCoords.byteOffset, repCoords.length * 2);
  const words = dimension * 2;
  let slots = new Int32Array(initialExactSlots(n)).fill(-1);
  let mask = slots.length - 1;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const base = i * dimension;
    // A soup repeats each corner within a triangle or two: the representative of one of the last few vertices
    // with these very coordinates is the answer, with no hashing or probing. Without `accept` at most one
    // representative holds a position, so it is the one the table would find (with it, the lowest accepted
    // one is asked for: the table's order decides).
    if (accept === undefined) {
      let recent = -1;
      for (let back = Math.min(i, RECENT); back > 0 && recent < 0; back--) {
        const r = remap[i - back];
        let axis = 0;
        while (axis < dimension && repCoords[r * dimension + axis] === coords[base + axis]) axis++;
        if (axis === dimension) recent = r;
      }
      if (recent >= 0) {
        remap[i] = recent;
        continue;
      }
    }
    let s = hashWords(bits, i * words, words) & mask;
    let found = -1;
    for (;;) {
      const r = slots[s];
      if (r < 0) break;
      const other = r * dimension;
      let axis = 0;
      while (axis < dimension && repCoords[other + axis] === coords[base + axis]) axis++;
      if (axis === dimension && (accept === undefined || accept(i, representatives[r]))) {
        found = r;
        break;
      }
      s = (s + 1) & mask;
    }
    if (found < 0) {
      found = count++;
      representatives[found] = i;
      for (let axis = 0; axis < dimension; axis++) repCoords[found * dimension + axis] = coords[base + axis];
      slots[s] = found;
      if (count * 2 > slots.length) {
        slots = new Int32Array(slots.length * 2).fill(-1);
        mask = slots.length - 1;
        for (let r = 0; r < count; r++) {
          let t = hashWords(repBits, r * words, words) & mask;
          while (slots[t] >= 0) t = (t + 1) & mask;
          slots[t] = r;
        }
      }
    }
    remap[i] = found;
  }
  return count;
}
