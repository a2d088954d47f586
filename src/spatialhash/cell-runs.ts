/**
 * The cell runs of SpatialHash2D / SpatialHash3D (see the layout in base.ts):
 * adding and dropping an item's slot, growing a run, compacting the pool,
 * bringing moved items' box copies up to date and purging empty cells. Plain
 * functions over the hash's arrays, so the 2D and 3D move loops call them
 * without a virtual dispatch.
 *
 * @module
 */

import { nextPowerOfTwo } from '../core/cell-hash.js';
import type { CellTable } from '../core/cell-table.js';
import { grownCopy } from '../core/grow.js';

/**
 * The fields of a spatial hash that the run operations read and write (the
 * hash in base.ts has them all; declared here so this module needs nothing
 * from base.ts, which calls it).
 */
export interface CellRuns {
  readonly cells: CellTable;
  readonly boxStride: number;
  boxes: Float64Array;
  itemLinks: Int32Array;
  cellStart: Int32Array;
  cellEntryCount: Int32Array;
  cellCapacity: Int32Array;
  cellListed: Uint8Array;
  occupiedCells: number;
  entryCell: Int32Array;
  entryPos: Int32Array;
  entryItemNext: Int32Array;
  entryCount: number;
  entryLimit: number;
  freeEntry: number;
  slotInfo: Int32Array;
  slotBox: Float64Array;
  poolUsed: number;
  poolLive: number;
  freeRuns: Int32Array;
  moved: Int32Array;
  movedCount: number;
  movedFlag: Uint8Array;
}

const NONE = -1;

/**
 * Least slots a cell's run gets when it first needs room. (8 saved churn some
 * run moves while a world fills up but made the broadphase frame about 8%
 * slower, measured three times each: kept at 4.)
 */
const FIRST_RUN = 4;

/** Ints per slot in `slotInfo`. */
export const SLOT = 3;
/** Offset in a slot's `slotInfo` record: the handle of its item (0, so `s * SLOT` is the handle). */
export const SLOT_HANDLE = 0;
/** Offset in a slot's `slotInfo` record: its owner, an entry (>= 0) or `~h` for the home slot of handle h. */
export const SLOT_OWNER = 1;
/** Offset in a slot's `slotInfo` record: a bit per axis on which the item's cell range starts at this cell. */
export const SLOT_STARTS = 2;

/** Ints per handle in `itemLinks`. */
export const LINKS = 4;
/**
 * Offset in a handle's `itemLinks` record: the home slot's position in its
 * cell's run (the slot is `cellStart[cell] + position`), or -1 when the item
 * is in no cell.
 */
export const HOME_POS = 0;
/** Offset in a handle's `itemLinks` record: the home slot's cell id. */
export const HOME_CELL = 1;
/** Offset in a handle's `itemLinks` record: the first entry of its other cells, or -1. */
export const FIRST_ENTRY = 2;
/** Offset in a handle's `itemLinks` record: its position in the overflow list, or -1. */
export const OVERFLOW_POS = 3;

/**
 * Tells the owner of a slot that moved within its run its new position there:
 * an entry (owner >= 0) or the home of handle `~owner`. Positions are relative
 * to the run, so a run that moves as a whole (grown or repacked) tells no one.
 */
export function setOwnerPos(hash: CellRuns, owner: number, pos: number): void {
  if (owner >= 0) hash.entryPos[owner] = pos;
  else hash.itemLinks[~owner * LINKS + HOME_POS] = pos;
}

/**
 * Empties the slot at position `pos` of cell `id`'s run: the run's last slot
 * fills the hole, so this is O(1); forEachPair's sort restores the minX
 * order. An emptied cell stays in the table, empty, until empty cells
 * outnumber the occupied ones (plus 64); then they are all purged.
 */
function freeSlot(hash: CellRuns, id: number, pos: number): void {
  const start = hash.cellStart[id];
  const last = --hash.cellEntryCount[id];
  if (pos !== last) {
    copySlot(hash, start + last, start + pos);
    setOwnerPos(hash, hash.slotInfo[(start + pos) * SLOT + SLOT_OWNER], pos);
  }
  hash.entryCount--;
  if (last === 0) {
    hash.occupiedCells--;
    if (hash.cells.size - hash.occupiedCells > hash.occupiedCells + 64) purgeEmptyCells(hash);
  }
}

/**
 * Takes entry `e` (one of an item's other cells) out of its cell's run and
 * onto the free list; the caller fixes the item's own chain.
 */
export function dropEntry(hash: CellRuns, e: number): void {
  freeSlot(hash, hash.entryCell[e], hash.entryPos[e]);
  hash.entryCell[e] = NONE;
  hash.entryItemNext[e] = hash.freeEntry;
  hash.freeEntry = e;
}

/**
 * Takes the home slot of handle `h` out of its cell's run. The caller gives
 * the item a new home (or drops every cell) before anyone reads it again.
 */
export function dropHome(hash: CellRuns, h: number): void {
  const l = h * LINKS;
  freeSlot(hash, hash.itemLinks[l + HOME_CELL], hash.itemLinks[l + HOME_POS]);
  hash.itemLinks[l + HOME_POS] = NONE;
}

/**
 * Makes the first of the other entries of handle `h`, which has lost its
 * home, the new home: its slot is relabelled and the entry freed. O(1).
 */
export function promoteHome(hash: CellRuns, h: number): void {
  const l = h * LINKS;
  const links = hash.itemLinks;
  const e = links[l + FIRST_ENTRY];
  const id = hash.entryCell[e];
  const pos = hash.entryPos[e];
  links[l + HOME_POS] = pos;
  links[l + HOME_CELL] = id;
  links[l + FIRST_ENTRY] = hash.entryItemNext[e];
  hash.slotInfo[(hash.cellStart[id] + pos) * SLOT + SLOT_OWNER] = ~h;
  hash.entryCell[e] = NONE;
  hash.entryItemNext[e] = hash.freeEntry;
  hash.freeEntry = e;
}

/** Takes handle `h` out of every cell it is in (home and others). */
export function dropCells(hash: CellRuns, h: number): void {
  const l = h * LINKS;
  const links = hash.itemLinks;
  dropHome(hash, h);
  let e = links[l + FIRST_ENTRY];
  for (let steps = 0; e !== NONE; steps++) {
    if (steps === hash.entryLimit) throw chainError(h);
    const following = hash.entryItemNext[e];
    dropEntry(hash, e);
    e = following;
  }
  links[l + FIRST_ENTRY] = NONE;
}

/**
 * The Error of an item's entry chain longer than every entry there is: only
 * overwritten memory makes one (a cycle). Every walk along a chain stops there
 * instead of running on forever.
 */
export function chainError(h: number): Error {
  return new Error(`the cell entries of id ${h} form a cycle (the hash's memory was overwritten)`);
}

/** Copies slot `from` over slot `to` (the caller tells the owner if its position changed). */
function copySlot(hash: CellRuns, from: number, to: number): void {
  const stride = hash.boxStride;
  const slotBox = hash.slotBox;
  const info = hash.slotInfo;
  info[to * SLOT + SLOT_HANDLE] = info[from * SLOT + SLOT_HANDLE];
  info[to * SLOT + SLOT_OWNER] = info[from * SLOT + SLOT_OWNER];
  info[to * SLOT + SLOT_STARTS] = info[from * SLOT + SLOT_STARTS];
  for (let k = 0; k < stride; k++) slotBox[to * stride + k] = slotBox[from * stride + k];
}

/**
 * Files handle `h`, whose box is written, in cell `id` (from the table's
 * insert) at the end of the cell's run: as its home when it has none (so an
 * item in one cell needs no entry at all), else as a new entry on its chain.
 * `starts` has a bit per axis on which the item's range starts at this cell.
 */
export function addEntry(hash: CellRuns, h: number, id: number, starts: number): void {
  if (id >= hash.cellStart.length) growCellArrays(hash);
  const n = hash.cellEntryCount[id];
  if (n === 0) {
    hash.occupiedCells++;
    hash.cellListed[id] = 1;
  }
  if (n === hash.cellCapacity[id]) growRun(hash, id);
  const s = hash.cellStart[id] + n;
  hash.cellEntryCount[id] = n + 1;
  hash.entryCount++;
  const info = hash.slotInfo;
  info[s * SLOT + SLOT_HANDLE] = h;
  info[s * SLOT + SLOT_STARTS] = starts;
  const stride = hash.boxStride;
  for (let k = 0; k < stride; k++) hash.slotBox[s * stride + k] = hash.boxes[h * stride + k];
  const l = h * LINKS;
  const links = hash.itemLinks;
  if (links[l + HOME_POS] === NONE) {
    links[l + HOME_POS] = n;
    links[l + HOME_CELL] = id;
    info[s * SLOT + SLOT_OWNER] = ~h;
    return;
  }
  let e = hash.freeEntry;
  if (e !== NONE) {
    hash.freeEntry = hash.entryItemNext[e];
  } else {
    if (hash.entryLimit === hash.entryCell.length) growEntries(hash);
    e = hash.entryLimit++;
  }
  info[s * SLOT + SLOT_OWNER] = e;
  hash.entryCell[e] = id;
  hash.entryPos[e] = n;
  hash.entryItemNext[e] = links[l + FIRST_ENTRY];
  links[l + FIRST_ENTRY] = e;
}

/**
 * Capacity class of a run: runs are powers of two (FIRST_RUN or more, then
 * doubled), so `31 - clz32(capacity)` names each size once.
 */
function runClass(capacity: number): number {
  return 31 - Math.clz32(capacity);
}

/**
 * Doubles the run of cell `id` (or gives an empty cell id its first run).
 * The new run is an abandoned run of that size when one is free, else
 * taken from the end of the pool; the pool is compacted (and grown) only
 * when its end is reached. The old run goes on its class's free list, so a
 * world whose cells keep filling up reuses the runs its cells outgrew
 * instead of filling the pool with them (then repacking into fresh memory,
 * whose page faults cost more than the copying).
 */
function growRun(hash: CellRuns, id: number): void {
  const old = hash.cellCapacity[id];
  // A new run starts with room for as many slots as cells hold on average,
  // so cells filling up to the usual count do not move two or three times.
  const usual = hash.occupiedCells > 0 ? Math.ceil(hash.entryCount / hash.occupiedCells) : 0;
  const capacity = old === 0 ? Math.max(FIRST_RUN, nextPowerOfTwo(usual)) : old * 2;
  const from = hash.cellStart[id];
  const poolSize = hash.slotInfo.length / SLOT;
  if (old > 0 && from + old === hash.poolUsed && from + capacity <= poolSize) {
    // The run is the last in the pool: it grows where it is.
    hash.cellCapacity[id] = capacity;
    hash.poolUsed += capacity - old;
    hash.poolLive += capacity - old;
    return;
  }
  const free = hash.freeRuns;
  const k = runClass(capacity);
  let start = free[k];
  if (start !== NONE) {
    // A free run's first slot holds the next free run of its class.
    free[k] = hash.slotInfo[start * SLOT];
  } else if (hash.poolUsed + capacity <= poolSize) {
    start = hash.poolUsed;
    hash.poolUsed += capacity;
  } else {
    repack(hash, id, capacity);
    return;
  }
  // Positions are relative to the run: moving it is a block copy that no
  // owner needs to hear about. Plain loops: runs are short, and copyWithin
  // costs a runtime call each (a tenth of the churn benchmark's time).
  const n = hash.cellEntryCount[id];
  const stride = hash.boxStride;
  const info = hash.slotInfo;
  const box = hash.slotBox;
  for (let c = 0; c < n * SLOT; c++) info[start * SLOT + c] = info[from * SLOT + c];
  for (let c = 0; c < n * stride; c++) box[start * stride + c] = box[from * stride + c];
  if (old > 0) {
    const j = runClass(old);
    info[from * SLOT] = free[j];
    free[j] = from;
  }
  hash.cellStart[id] = start;
  hash.cellCapacity[id] = capacity;
  hash.poolLive += capacity - old;
}

/**
 * Lays every run out again, back to back in a fresh pool with room for as
 * much again, giving cell `grown` a run of `capacity`; the abandoned runs
 * are dropped. O(pool), amortised by the doubling.
 */
function repack(hash: CellRuns, grown: number, capacity: number): void {
  const idLimit = hash.cells.idLimit;
  const count = hash.cellEntryCount;
  const runs = hash.cellCapacity;
  runs[grown] = capacity;
  // Ids at or past the limit (released together by clear()) lose their runs
  // with the old pool; the table hands them out again with none.
  runs.fill(0, idLimit);
  // Released ids keep their runs: the cell table hands them out again first.
  let needed = 0;
  for (let id = 0; id < idLimit; id++) needed += runs[id];
  // Never smaller than before: a pool that churn keeps filling with
  // abandoned runs is then repacked less and less often.
  const size = Math.max(64, needed * 2, hash.slotInfo.length / SLOT);
  const stride = hash.boxStride;
  const oldInfo = hash.slotInfo;
  const oldBox = hash.slotBox;
  hash.slotInfo = new Int32Array(size * SLOT);
  hash.slotBox = new Float64Array(size * stride);
  const info = hash.slotInfo;
  const box = hash.slotBox;
  let at = 0;
  for (let id = 0; id < idLimit; id++) {
    const from = hash.cellStart[id];
    const n = count[id];
    // Plain loops: runs are short, and a subarray per run would allocate.
    // Owners keep their positions, which are relative to the run.
    for (let c = 0; c < n * SLOT; c++) info[at * SLOT + c] = oldInfo[from * SLOT + c];
    for (let c = 0; c < n * stride; c++) box[at * stride + c] = oldBox[from * stride + c];
    hash.cellStart[id] = at;
    at += runs[id];
  }
  hash.poolUsed = at;
  hash.poolLive = at;
  // Every abandoned run was dropped with the old pool.
  hash.freeRuns.fill(NONE);
}

/**
 * Notes that handle `h` moved within its cells: its box is
 * written, its slots' copies are not yet. O(1).
 */
export function markMoved(hash: CellRuns, h: number): void {
  if (hash.movedFlag[h] === 1) return;
  hash.movedFlag[h] = 1;
  hash.moved[hash.movedCount++] = h;
}

/**
 * Brings the box copies in the slots of every moved handle up to
 * date; called by everything that reads slot boxes before it reads them.
 * A handle freed or refiled since it moved has no stale slots: rewriting
 * whatever slots it has now is harmless. O(moved handles x their cells), or
 * O(cells + slots) when many moved (see {@link copyEverySlotBox}).
 */
export function syncSlots(hash: CellRuns): void {
  const moved = hash.moved;
  const flag = hash.movedFlag;
  const count = hash.movedCount;
  if (count === 0) return;
  hash.movedCount = 0;
  if (count * BULK_SYNC >= hash.entryCount) {
    for (let i = 0; i < count; i++) flag[moved[i]] = 0;
    copyEverySlotBox(hash);
    return;
  }
  for (let i = 0; i < count; i++) {
    const h = moved[i];
    flag[h] = 0;
    writeSlotBoxes(hash, h);
  }
}

/**
 * Past one moved handle per this many slots, {@link syncSlots} rewrites every
 * slot instead. Finding one handle's slots is a chain of three dependent
 * cache misses (its links, its cell's start, the slot) when handles moved in
 * random order, while the pass over every run reads the slots in order and
 * each box independently of the last, so the processor overlaps the misses:
 * after 450,000 random-order moves of 150,000 points, 8 ms against 22 ms.
 * (Handles moved in id order, as in the demo's loop over every ball, have
 * their links in order too; there the pass is about 25% slower, 3.8 against
 * 3.0 ms for 100,000 balls: a small loss for a large gain.)
 */
const BULK_SYNC = 8;

/** Copies every item's box into each of its slots: one pass over the runs, cell by cell. */
function copyEverySlotBox(hash: CellRuns): void {
  const boxes = hash.boxes;
  const slotBox = hash.slotBox;
  const info = hash.slotInfo;
  const cellStart = hash.cellStart;
  const cellEntryCount = hash.cellEntryCount;
  const idLimit = hash.cells.idLimit;
  // One loop per dimension with the copies written out: with a loop over the
  // stride fewer gathers overlapped (1.8x slower in a replica).
  if (hash.boxStride === 4) {
    for (let id = 0; id < idLimit; id++) {
      const end = cellStart[id] + cellEntryCount[id];
      for (let s = cellStart[id]; s < end; s++) {
        const b = info[s * SLOT + SLOT_HANDLE] * 4;
        const to = s * 4;
        slotBox[to] = boxes[b];
        slotBox[to + 1] = boxes[b + 1];
        slotBox[to + 2] = boxes[b + 2];
        slotBox[to + 3] = boxes[b + 3];
      }
    }
    return;
  }
  for (let id = 0; id < idLimit; id++) {
    const end = cellStart[id] + cellEntryCount[id];
    for (let s = cellStart[id]; s < end; s++) {
      const b = info[s * SLOT + SLOT_HANDLE] * 6;
      const to = s * 6;
      slotBox[to] = boxes[b];
      slotBox[to + 1] = boxes[b + 1];
      slotBox[to + 2] = boxes[b + 2];
      slotBox[to + 3] = boxes[b + 3];
      slotBox[to + 4] = boxes[b + 4];
      slotBox[to + 5] = boxes[b + 5];
    }
  }
}

/** Copies the box of handle `h` into each of its slots. */
export function writeSlotBoxes(hash: CellRuns, h: number): void {
  const stride = hash.boxStride;
  const boxes = hash.boxes;
  const slotBox = hash.slotBox;
  const b = h * stride;
  const l = h * LINKS;
  const pos = hash.itemLinks[l + HOME_POS];
  if (pos === NONE) return;
  const home = (hash.cellStart[hash.itemLinks[l + HOME_CELL]] + pos) * stride;
  for (let k = 0; k < stride; k++) slotBox[home + k] = boxes[b + k];
  let steps = 0;
  for (let e = hash.itemLinks[l + FIRST_ENTRY]; e !== NONE; e = hash.entryItemNext[e]) {
    if (steps++ === hash.entryLimit) throw chainError(h);
    const s = (hash.cellStart[hash.entryCell[e]] + hash.entryPos[e]) * stride;
    for (let k = 0; k < stride; k++) slotBox[s + k] = boxes[b + k];
  }
}

/** Takes every empty cell out of the table (their ids keep their runs for reuse). O(cell ids). */
export function purgeEmptyCells(hash: CellRuns): void {
  const listed = hash.cellListed;
  const count = hash.cellEntryCount;
  for (let id = 0; id < hash.cells.idLimit; id++) {
    if (listed[id] === 1 && count[id] === 0) {
      hash.cells.release(id);
      listed[id] = 0;
    }
  }
}

/** Sizes the per-cell arrays to the cell table's capacity after it grew. */
function growCellArrays(hash: CellRuns): void {
  const n = hash.cells.capacity;
  hash.cellStart = grownCopy(hash.cellStart, n);
  hash.cellEntryCount = grownCopy(hash.cellEntryCount, n);
  hash.cellCapacity = grownCopy(hash.cellCapacity, n);
  hash.cellListed = grownCopy(hash.cellListed, n);
}

function growEntries(hash: CellRuns): void {
  const n = hash.entryCell.length * 2;
  hash.entryCell = grownCopy(hash.entryCell, n);
  hash.entryPos = grownCopy(hash.entryPos, n);
  hash.entryItemNext = grownCopy(hash.entryItemNext, n);
}
