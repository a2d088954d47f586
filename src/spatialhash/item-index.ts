/**
 * The item -> id index of SpatialHash2D / SpatialHash3D (option trackItems).
 * Items that are 32-bit integers (entity ids, indices: the common case when a
 * hash mirrors an ECS or a typed-array world) go into an open-addressing table
 * of key / id pairs in one Int32Array, so a lookup is a multiply, a shift and
 * usually one cache line; every other item (objects, strings, other numbers)
 * goes into a Map. Which of the two holds an item depends only on the item,
 * so equal items (SameValueZero: 0 and -0 are one key) always meet.
 *
 * @module
 */

const NONE = -1;

/** Fewest key / id pairs the integer table has. */
const MIN_PAIRS = 16;

/** Whether `item` is kept in the integer table: a number equal to its own int32 conversion (-0 included). */
function isInt32(item: unknown): item is number {
  return typeof item === 'number' && (item | 0) === item;
}

/** @internal A Map-like index from items to ids (ids >= 0); absent items read as -1. */
export class ItemIndex<T> {
  private readonly map = new Map<T, number>();
  /** Key / id pairs; an id of -1 marks an empty pair. */
  private table = new Int32Array(MIN_PAIRS * 2).fill(NONE);
  /** 32 minus log2 of the number of pairs: a key's home pair is the top bits of its product. */
  private shift = 32 - Math.log2(MIN_PAIRS);
  private intCount = 0;

  /** Number of items indexed. */
  get size(): number {
    return this.intCount + this.map.size;
  }

  /** The id of `item`, or -1. */
  get(item: T): number {
    if (isInt32(item)) return this.findInt(item | 0);
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
    if ((this.intCount + 1) * 4 > (this.table.length >> 1) * 3) this.grow();
    const key = item | 0;
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    let i = this.home(key);
    while (table[i * 2 + 1] !== NONE) i = (i + 1) & mask;
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
    const mask = (table.length >> 1) - 1;
    let hole = this.home(key);
    for (;;) {
      if (table[hole * 2 + 1] === NONE) return;
      if (table[hole * 2] === key) break;
      hole = (hole + 1) & mask;
    }
    // Backward-shift deletion: later pairs of the probe run whose home is not
    // between the hole and them move into the hole, so no tombstones are needed.
    let next = (hole + 1) & mask;
    while (table[next * 2 + 1] !== NONE) {
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
    this.table.fill(NONE);
    this.intCount = 0;
  }

  private findInt(key: number): number {
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    let i = this.home(key);
    for (;;) {
      const id = table[i * 2 + 1];
      if (id === NONE || table[i * 2] === key) return id;
      i = (i + 1) & mask;
    }
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
      if (old[i + 1] !== NONE) this.set(old[i] as T, old[i + 1]);
    }
  }
}
