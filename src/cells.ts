/**
 * Cell math and the integer-keyed cell table shared by every structure:
 * "grid coordinates -> hash map -> linked list in an array" (article 004).
 *
 * Cell coordinates are `Math.floor(coordinate / cellSize)`, computed the same
 * way in every operation, so negative coordinates get cells as wide as positive
 * ones and a point and a query always agree on its cell. They are kept as
 * float64 integers rather than int32 so coordinates far from the origin (cell
 * indices beyond 32 bits) still get cells of their own.
 *
 * @module
 */

/**
 * Largest cell index magnitude handled by coordinate. Past 2^52 consecutive
 * cells are no longer distinct doubles (c + 1 === c), so a structure treats an
 * item there like an oversized one and checks it directly.
 */
export const MAX_CELL_INDEX = 2 ** 52;

const TWO_POW_32 = 4294967296;

/** Per-axis multipliers of the cell hash (odd, so each is a bijection on 32 bits). */
export const CELL_HASH_X = 0x9e3779b1;
export const CELL_HASH_Y = 0x7feb352d;
export const CELL_HASH_Z = 0x2c1b3c6d;

/**
 * Mixes 32 bits so neighbouring cells land far apart in the table (murmur3's
 * finalizer). Returns a signed int32, which stays a small integer in V8's hot
 * loops; callers mask it or take `>>> 0` for the unsigned value.
 */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Folds the bits of an integral cell index above 32 into the hash. Int32 cells
 * (the common case) skip the division.
 */
function high(c: number): number {
  return (c | 0) === c ? 0 : Math.floor(c / TWO_POW_32) | 0;
}

/** Hash of a 2D cell, an unsigned 32-bit integer. Exact for any integral cell index. */
export function hashCell2(cx: number, cy: number): number {
  let h = Math.imul(cx | 0, CELL_HASH_X) ^ Math.imul(cy | 0, CELL_HASH_Y);
  if ((cx | 0) !== cx || (cy | 0) !== cy) h ^= Math.imul(high(cx), 0x846ca68b) ^ Math.imul(high(cy), 0x68e31da4);
  return mix32(h) >>> 0;
}

/** Hash of a 3D cell, an unsigned 32-bit integer. Exact for any integral cell index. */
export function hashCell3(cx: number, cy: number, cz: number): number {
  let h = Math.imul(cx | 0, CELL_HASH_X) ^ Math.imul(cy | 0, CELL_HASH_Y) ^ Math.imul(cz | 0, CELL_HASH_Z);
  if ((cx | 0) !== cx || (cy | 0) !== cy || (cz | 0) !== cz) {
    h ^= Math.imul(high(cx), 0x846ca68b) ^ Math.imul(high(cy), 0x68e31da4) ^ Math.imul(high(cz), 0x297a2d39);
  }
  return mix32(h) >>> 0;
}

/** Smallest power of two >= n (and >= 1). */
export function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/**
 * Open-addressing table (linear probing, backward-shift deletion) from integral
 * cell coordinates to dense cell ids. Ids stay stable while the cell lives, so
 * an owner can keep per-cell data (list heads, counts, cell starts) in its own
 * arrays indexed by id, sized to {@link CellTable.capacity}; ids of removed
 * cells are reused. After {@link CellTable.clear}, ids are handed out 0, 1, 2,
 * ... in first-seen order, which is what a counting sort wants.
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

  /** Id of cell (cx, cy), or -1 when it has no entries. */
  find2(cx: number, cy: number): number {
    const keys = this.keys;
    const slots = this.slots;
    const mask = this.mask;
    let s = hashCell2(cx, cy) & mask;
    for (;;) {
      const id = slots[s];
      if (id < 0) return -1;
      if (keys[id * 2] === cx && keys[id * 2 + 1] === cy) return id;
      s = (s + 1) & mask;
    }
  }

  /** Id of cell (cx, cy, cz), or -1 when it has no entries. */
  find3(cx: number, cy: number, cz: number): number {
    const keys = this.keys;
    const slots = this.slots;
    const mask = this.mask;
    let s = hashCell3(cx, cy, cz) & mask;
    for (;;) {
      const id = slots[s];
      if (id < 0) return -1;
      const k = id * 3;
      if (keys[k] === cx && keys[k + 1] === cy && keys[k + 2] === cz) return id;
      s = (s + 1) & mask;
    }
  }

  /** Id of cell (cx, cy), created if absent. One hash and one probe either way. */
  insert2(cx: number, cy: number): number {
    const hash = hashCell2(cx, cy);
    const keys = this.keys;
    const slots = this.slots;
    const mask = this.mask;
    let s = hash & mask;
    for (;;) {
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
    for (;;) {
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
    while (slots[s] !== id) s = (s + 1) & mask;
    // Backward-shift deletion: pull later members of the probe run into the
    // hole so lookups never need tombstones.
    let hole = s;
    let next = (s + 1) & mask;
    for (;;) {
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
    while (slots[s] >= 0) s = (s + 1) & mask;
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
