/**
 * The integer-keyed cell table shared by every structure: "grid coordinates
 * -> hash map -> linked list in an array" (Bitsquid's vertex-merging article).
 *
 * @module
 */
import { hashCell2, hashCell3, nextPowerOfTwo } from './cell-hash.js';

/**
 * Open-addressing table (linear probing, backward-shift deletion) from integral
 * cell coordinates to dense cell ids. Ids stay stable while the cell lives, so
 * an owner can keep per-cell data (list heads, counts, cell starts) in its own
 * arrays indexed by id, sized to {@link CellTable.capacity}; ids of removed
 * cells are reused. After {@link CellTable.clear}, ids are handed out 0, 1, 2,
 * ... in first-seen order, which is what a counting sort wants.
 *
 * Every probe stops after one pass over the slots, whatever they hold: the
 * load factor of at most 1/2 ends a probe at an empty slot long before, so
 * the bound costs a counter and never changes an answer, but overwritten
 * memory can no longer make a lookup loop forever (it answers -1, and an
 * insert or release that finds no place throws an Error).
 */
export class CellTable {
  /** 2 or 3: how many coordinates a cell key has. */
  readonly dimension: 2 | 3;
  /** Cell coordinates by id, `dimension` per cell. */
  keys: Float64Array;
  /** Hash of each cell by id, kept for growth and deletion. */
  hashes: Uint32Array;
  /** Ids one past the highest id ever handed out: live ids are below it. */
  idLimit = 0;
  /** Number of live cells. */
  size = 0;

  /** Ids the table has room for: every id it hands out is below this. Grows by doubling. */
  get capacity(): number {
    return this.hashes.length;
  }

  private slots: Int32Array;
  private mask: number;
  private freeIds: Int32Array;
  private freeCount = 0;

  /** @param capacity number of cells to make room for before growing. */
  constructor(dimension: 2 | 3, capacity = 64) {
    this.dimension = dimension;
    const cells = Math.max(16, nextPowerOfTwo(capacity));
    this.keys = new Float64Array(cells * dimension);
    this.hashes = new Uint32Array(cells);
    this.freeIds = new Int32Array(cells);
    // Load factor at most 1/2 keeps linear probes short.
    this.slots = new Int32Array(cells * 2).fill(-1);
    this.mask = cells * 2 - 1;
  }

  /** Id of cell (cx, cy), or -1 when it has no entries. At most one pass over the slots (see {@link CellTable}). */
  find2(cx: number, cy: number): number {
    const keys = this.keys;
    const slots = this.slots;
    const mask = this.mask;
    let s = hashCell2(cx, cy) & mask;
    for (let probes = 0; probes <= mask; probes++) {
      const id = slots[s];
      if (id < 0) return -1;
      if (keys[id * 2] === cx && keys[id * 2 + 1] === cy) return id;
      s = (s + 1) & mask;
    }
    return -1;
  }

  /** Id of cell (cx, cy, cz), or -1 when it has no entries. At most one pass over the slots. */
  find3(cx: number, cy: number, cz: number): number {
    const keys = this.keys;
    const slots = this.slots;
    const mask = this.mask;
    let s = hashCell3(cx, cy, cz) & mask;
    for (let probes = 0; probes <= mask; probes++) {
      const id = slots[s];
      if (id < 0) return -1;
      const k = id * 3;
      if (keys[k] === cx && keys[k + 1] === cy && keys[k + 2] === cz) return id;
      s = (s + 1) & mask;
    }
    return -1;
  }

  /** Id of cell (cx, cy), created if absent. One hash and one probe either way. */
  insert2(cx: number, cy: number): number {
    const hash = hashCell2(cx, cy);
    const keys = this.keys;
    const slots = this.slots;
    const mask = this.mask;
    let s = hash & mask;
    for (let probes = 0; ; probes++) {
      if (probes > mask) throw overwritten();
      const id = slots[s];
      if (id < 0) break;
      if (keys[id * 2] === cx && keys[id * 2 + 1] === cy) return id;
      s = (s + 1) & mask;
    }
    const id = this.allocate(hash, s);
    this.keys[id * 2] = cx;
    this.keys[id * 2 + 1] = cy;
    return id;
  }

  /** Id of cell (cx, cy, cz), created if absent. One hash and one probe either way. */
  insert3(cx: number, cy: number, cz: number): number {
    const hash = hashCell3(cx, cy, cz);
    const keys = this.keys;
    const slots = this.slots;
    const mask = this.mask;
    let s = hash & mask;
    for (let probes = 0; ; probes++) {
      if (probes > mask) throw overwritten();
      const id = slots[s];
      if (id < 0) break;
      const k = id * 3;
      if (keys[k] === cx && keys[k + 1] === cy && keys[k + 2] === cz) return id;
      s = (s + 1) & mask;
    }
    const id = this.allocate(hash, s);
    this.keys[id * 3] = cx;
    this.keys[id * 3 + 1] = cy;
    this.keys[id * 3 + 2] = cz;
    return id;
  }

  /** Removes a live cell from the table; its id may be handed out again. */
  release(id: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let s = this.hashes[id] & mask;
    for (let probes = 0; slots[s] !== id; probes++) {
      if (probes === mask)
        throw new Error(`CellTable: cell id ${id} is in no slot (the table's memory was overwritten)`);
      s = (s + 1) & mask;
    }
    // Backward-shift deletion: pull later members of the probe run into the
    // hole so lookups never need tombstones.
    let hole = s;
    let next = (s + 1) & mask;
    for (let probes = 0; probes < mask; probes++) {
      const other = slots[next];
      if (other < 0) break;
      const home = this.hashes[other] & mask;
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (!stays) {
        slots[hole] = other;
        hole = next;
      }
      next = (next + 1) & mask;
    }
    slots[hole] = -1;
    this.freeIds[this.freeCount++] = id;
    this.size--;
  }

  /**
   * Gives every cell a new id: the cell with id `id` gets `newId[id]`. Only
   * for a table filled since the last clear() without releases, whose ids
   * are 0..size-1; `newId` must map those onto 0..size-1 one to one. Keys
   * and hashes move in place, cycle by cycle (`newId` is marked while it
   * runs and restored before it returns), so nothing is allocated. O(capacity).
   */
  renumber(newId: Int32Array): void {
    const count = this.size;
    const slots = this.slots;
    for (let s = 0; s < slots.length; s++) {
      const id = slots[s];
      if (id >= 0) slots[s] = newId[id];
    }
    const keys = this.keys;
    const hashes = this.hashes;
    const d = this.dimension;
    let steps = 0;
    for (let start = 0; start < count; start++) {
      if (newId[start] < 0) continue;
      // Carry the cell at `start` to its new place, take the one found there
      // on to its own, until the cycle comes back to `start`. ~ marks done.
      let k0 = keys[start * d];
      let k1 = keys[start * d + 1];
      let k2 = d === 3 ? keys[start * d + 2] : 0;
      let hash = hashes[start];
      let at = start;
      do {
        const to = newId[at];
        // A permutation visits each id once; anything else would loop forever.
        if (!(to >= 0 && to < count) || ++steps > count) {
          throw new Error('CellTable: renumber needs a permutation of the ids 0..size-1');
        }
        newId[at] = ~to;
        const t0 = keys[to * d];
        const t1 = keys[to * d + 1];
        keys[to * d] = k0;
        keys[to * d + 1] = k1;
        k0 = t0;
        k1 = t1;
        if (d === 3) {
          const t2 = keys[to * d + 2];
          keys[to * d + 2] = k2;
          k2 = t2;
        }
        const h = hashes[to];
        hashes[to] = hash;
        hash = h;
        at = to;
      } while (at !== start);
    }
    for (let id = 0; id < count; id++) newId[id] = ~newId[id];
  }

  /** Forgets every cell; keeps the memory. */
  clear(): void {
    this.slots.fill(-1);
    this.idLimit = 0;
    this.freeCount = 0;
    this.size = 0;
  }

  /** Takes an id for a new cell whose probe ended at the empty `slot`. */
  private allocate(hash: number, slot: number): number {
    let id: number;
    if (this.freeCount > 0) {
      id = this.freeIds[--this.freeCount];
    } else {
      if (this.idLimit === this.hashes.length) this.growIds();
      id = this.idLimit++;
    }
    this.hashes[id] = hash;
    this.size++;
    if (this.size * 2 > this.slots.length) this.growSlots();
    else this.slots[slot] = id;
    return id;
  }

  private place(id: number, hash: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let s = hash & mask;
    for (let probes = 0; slots[s] >= 0; probes++) {
      if (probes === mask) throw overwritten();
      s = (s + 1) & mask;
    }
    slots[s] = id;
  }

  private growIds(): void {
    const cells = this.hashes.length * 2;
    const keys = new Float64Array(cells * this.dimension);
    keys.set(this.keys);
    this.keys = keys;
    const hashes = new Uint32Array(cells);
    hashes.set(this.hashes);
    this.hashes = hashes;
    const freeIds = new Int32Array(cells);
    freeIds.set(this.freeIds.subarray(0, this.freeCount));
    this.freeIds = freeIds;
  }

  /** Doubles the slot array and re-places every live id (the one being added included). */
  private growSlots(): void {
    this.slots = new Int32Array(this.slots.length * 2).fill(-1);
    this.mask = this.slots.length - 1;
    const free = new Uint8Array(this.idLimit);
    for (let i = 0; i < this.freeCount; i++) free[this.freeIds[i]] = 1;
    for (let id = 0; id < this.idLimit; id++) if (free[id] === 0) this.place(id, this.hashes[id]);
  }
}

/** The Error of a probe that found no empty slot in a whole pass: only overwritten memory does that. */
function overwritten(): Error {
  return new Error("CellTable: no empty slot in a whole pass over the slots (the table's memory was overwritten)");
}
