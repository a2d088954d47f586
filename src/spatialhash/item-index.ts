/**
 * The item -> id index of SpatialHash2D / SpatialHash3D (option trackItems).
 * Items that are 32-bit integers (entity ids, indices: the common case when a
 * hash mirrors an ECS or a typed-array world) go into one Int32Array; every
 * other item (objects, strings, other numbers) goes into a Map. Which of the
 * two holds an item depends only on the item, so equal items (SameValueZero:
 * 0 and -0 are one key) always meet.
 *
 * The integer array starts dense, indexed by the key itself: while every key
 * is >= 0 and below a few times the number of keys (ids handed out 0, 1, 2,
 * ...), a lookup is one read, with no hashing and no probing. The first key
 * that does not fit turns it, for good (until clear), into an open-addressing
 * table of key / id pairs, where a lookup is a multiply, a shift and usually
 * one cache line.
 *
 * Probes stop after one pass over the table whatever it holds (at most 3/4
 * full, a probe ends at an empty pair long before): overwritten memory can
 * make a lookup miss, never loop forever.
 *
 * @module
 */

import { grownCopy } from '../core/grow.js';

const NONE = -1;

/** Fewest key / id pairs the integer table has. */
const MIN_PAIRS = 16;

/** Length of the dense array at first and after clear. */
const MIN_DENSE = 64;

/**
 * The dense array may grow to this many slots per indexed integer (plus
 * MIN_DENSE): a key past that turns the index into the hashed table, so
 * sparse keys cannot make the array huge.
 */
const DENSE_SPREAD = 8;

/** Whether `item` is kept in the integer table: a number equal to its own int32 conversion (-0 included). */
function isInt32(item: unknown): item is number {
  return typeof item === 'number' && (item | 0) === item;
}

/** @internal A Map-like index from items to ids (ids >= 0); absent items read as -1. */
export class ItemIndex<T> {
  private readonly map = new Map<T, number>();
  /** Dense mode: the id of each key by key (-1: absent). Hashed mode: key / id pairs, an id of -1 marking an empty pair. */
  private table = new Int32Array(MIN_DENSE).fill(NONE);
  /** Whether {@link table} is the dense array. */
  private dense = true;
  /** 32 minus log2 of the number of pairs: a key's home pair is the top bits of its product. */
  private shift = 32 - Math.log2(MIN_PAIRS);
  private intCount = 0;

  /** Number of items indexed. */
  get size(): number {
    return this.intCount + this.map.size;
  }

  /** The id of `item`, or -1. */
  get(item: T): number {
    if (isInt32(item)) {
      const key = item | 0;
      if (!this.dense) return this.findInt(key);
      const table = this.table;
      return key >= 0 && key < table.length ? table[key] : NONE;
    }
    return this.map.get(item) ?? NONE;
  }

  /** Whether `item` is indexed. */
  has(item: T): boolean {
    return this.get(item) !== NONE;
  }

  /** Indexes `item`, which must be absent, under `id` (>= 0). */
  set(item: T, id: number): void {
    if (!isInt32(item)) {
      this.map.set(item, id);
      return;
    }
    const key = item | 0;
    if (this.dense) {
      if (key >= 0 && (key < this.table.length || this.growDense(key))) {
        this.table[key] = id;
        this.intCount++;
        return;
      }
      this.toHashed();
    }
    this.setHashed(key, id);
  }

  /** Puts an absent integer `key` into the hashed table (growing it first if it would pass 3/4 full). */
  private setHashed(key: number, id: number): void {
    if ((this.intCount + 1) * 4 > (this.table.length >> 1) * 3) this.grow();
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    let i = this.home(key);
    for (let probes = 0; table[i * 2 + 1] !== NONE; probes++) {
      if (probes === mask) throw overwritten();
      i = (i + 1) & mask;
    }
    table[i * 2] = key;
    table[i * 2 + 1] = id;
    this.intCount++;
  }

  /** Removes `item` if it is indexed. */
  delete(item: T): void {
    if (!isInt32(item)) {
      this.map.delete(item);
      return;
    }
    const key = item | 0;
    const table = this.table;
    if (this.dense) {
      if (key >= 0 && key < table.length && table[key] !== NONE) {
        table[key] = NONE;
        this.intCount--;
      }
      return;
    }
    const mask = (table.length >> 1) - 1;
    let hole = this.home(key);
    for (let probes = 0; ; probes++) {
      if (probes > mask || table[hole * 2 + 1] === NONE) return;
      if (table[hole * 2] === key) break;
      hole = (hole + 1) & mask;
    }
    // Backward-shift deletion: later pairs of the probe run whose home is not
    // between the hole and them move into the hole, so no tombstones are needed.
    let next = (hole + 1) & mask;
    for (let probes = 0; probes < mask && table[next * 2 + 1] !== NONE; probes++) {
      const home = this.home(table[next * 2]);
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (!stays) {
        table[hole * 2] = table[next * 2];
        table[hole * 2 + 1] = table[next * 2 + 1];
        hole = next;
      }
      next = (next + 1) & mask;
    }
    table[hole * 2 + 1] = NONE;
    this.intCount--;
  }

  /** Removes every item; keeps the table's memory. */
  clear(): void {
    this.map.clear();
    if (this.dense) this.table.fill(NONE);
    else {
      // Back to dense: the next items may well be 0, 1, 2, ... again.
      this.table = new Int32Array(MIN_DENSE).fill(NONE);
      this.dense = true;
      this.shift = 32 - Math.log2(MIN_PAIRS);
    }
    this.intCount = 0;
  }

  /**
   * Makes the dense array long enough for `key` (>= 0) if that keeps it within
   * DENSE_SPREAD slots per integer; false (nothing changed) otherwise.
   */
  private growDense(key: number): boolean {
    if (key >= (this.intCount + 1) * DENSE_SPREAD + MIN_DENSE) return false;
    let length = this.table.length * 2;
    while (length <= key) length *= 2;
    this.table = grownCopy(this.table, length, NONE);
    return true;
  }

  /** Moves every integer of the dense array into a hashed table. */
  private toHashed(): void {
    const old = this.table;
    this.dense = false;
    this.table = new Int32Array(MIN_PAIRS * 2).fill(NONE);
    this.shift = 32 - Math.log2(MIN_PAIRS);
    this.intCount = 0;
    for (let key = 0; key < old.length; key++) {
      if (old[key] !== NONE) this.setHashed(key, old[key]);
    }
  }

  private findInt(key: number): number {
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    let i = this.home(key);
    for (let probes = 0; probes <= mask; probes++) {
      const id = table[i * 2 + 1];
      if (id === NONE || table[i * 2] === key) return id;
      i = (i + 1) & mask;
    }
    return NONE;
  }

  /** Home pair of `key`: Fibonacci hashing, so consecutive keys spread over the table. */
  private home(key: number): number {
    return Math.imul(key, 0x9e3779b1) >>> this.shift;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2).fill(NONE);
    this.shift--;
    this.intCount = 0;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i + 1] !== NONE) this.setHashed(old[i], old[i + 1]);
    }
  }
}

/** The Error of a probe that found no empty pair in a whole pass: only overwritten memory does that. */
function overwritten(): Error {
  return new Error('ItemIndex: no empty pair in a whole pass over the table (its memory was overwritten)');
}
