/**
 * validate() of PointHash2D / PointHash3D: every invariant of the layout in
 * base.ts, checked from scratch. O(points + cells + pool). For tests.
 *
 * @module
 */

import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import { isDefaultFilter } from '../spatialhash/filter.js';
import { FAR, FREE, type PointHashBase, RUN, RUN_CAPACITY, RUN_COUNT, RUN_LISTED, RUN_START } from './base.js';

function fail(message: string): never {
  throw new Error(`PointHash invariant broken: ${message}`);
}

/** Throws an Error naming the first broken invariant of `hash`. */
export function validatePointHash<T>(hash: PointHashBase<T>): void {
  const { dim, stride, home, cells, cellRuns: runs } = hash;
  const keys = cells.keys;
  // Ids: live ones, free ones, and nothing else below handleLimit.
  const isFree = new Uint8Array(hash.handleLimit);
  for (let i = 0; i < hash.freeHandleCount; i++) {
    const h = hash.freeHandles[i];
    if (!(h >= 0 && h < hash.handleLimit)) fail(`free id ${h} is out of range`);
    if (isFree[h] === 1) fail(`id ${h} is free twice`);
    isFree[h] = 1;
    if (home[h * 2] !== FREE) fail(`free id ${h} has a home`);
    if (hash.items[h] !== undefined) fail(`free id ${h} holds an item`);
  }
  let live = 0;
  let filtered = 0;
  let far = 0;
  const inCells = new Int32Array(cells.idLimit);
  for (let h = 0; h < hash.handleLimit; h++) {
    if (isFree[h] === 1) continue;
    live++;
    const id = home[h * 2];
    const pos = home[h * 2 + 1];
    let slots: Float64Array;
    let s: number;
    if (id === FAR) {
      far++;
      if (!(pos >= 0 && pos < hash.farCount)) fail(`id ${h} is at far position ${pos} of ${hash.farCount}`);
      slots = hash.far;
      s = pos * stride;
      let beyond = false;
      for (let a = 0; a < dim; a++) if (!(Math.abs(hash.cellOf(slots[s + a])) <= MAX_CELL_INDEX)) beyond = true;
      if (!beyond) fail(`id ${h} is on the far list but its cell is in range`);
    } else {
      if (!(id >= 0 && id < cells.idLimit)) fail(`id ${h} has cell ${id}, past the table's limit ${cells.idLimit}`);
      if (runs[id * RUN + RUN_LISTED] !== 1) fail(`id ${h} is in cell ${id}, which is not listed`);
      if (!(pos >= 0 && pos < runs[id * RUN + RUN_COUNT])) fail(`id ${h} is at position ${pos} of cell ${id}`);
      inCells[id]++;
      slots = hash.slots;
      s = (runs[id * RUN + RUN_START] + pos) * stride;
      for (let a = 0; a < dim; a++) {
        if (hash.cellOf(slots[s + a]) !== keys[id * dim + a]) fail(`id ${h}'s coordinate ${a} is not in cell ${id}`);
      }
    }
    if (slots[s + dim] !== h) fail(`the slot of id ${h} names id ${slots[s + dim]}`);
    for (let a = 0; a < dim; a++) if (!Number.isFinite(slots[s + a])) fail(`id ${h} has coordinate ${slots[s + a]}`);
    if (hash.trackItems && hash.handles.get(hash.items[h] as T) !== h) fail(`the item of id ${h} does not map to it`);
    if (hash.filters !== undefined && !isDefaultFilter(hash.filters[h * 2], hash.filters[h * 2 + 1])) filtered++;
  }
  if (live !== hash.itemCount) fail(`${live} live ids, size ${hash.itemCount}`);
  if (live + hash.freeHandleCount !== hash.handleLimit) fail('ids are neither live nor free');
  if (far !== hash.farCount) fail(`${far} ids are far, the far list holds ${hash.farCount}`);
  if (hash.trackItems && hash.handles.size !== live)
    fail(`the item index holds ${hash.handles.size} items for ${live}`);
  if (filtered !== hash.filteredCount) fail(`${filtered} filtered ids, counted ${hash.filteredCount}`);
  if (hash.filters === undefined && hash.filteredCount !== 0) fail('filtered ids without filters');
  // Cells: counts, listing, bounds, and runs that fit the pool without overlapping.
  let listed = 0;
  let occupied = 0;
  const starts: number[] = [];
  for (let id = 0; id < cells.idLimit; id++) {
    const r = id * RUN;
    const n = runs[r + RUN_COUNT];
    const capacity = runs[r + RUN_CAPACITY];
    if (n !== inCells[id]) fail(`cell ${id} counts ${n} points, ${inCells[id]} live there`);
    if (n > capacity) fail(`cell ${id} holds ${n} points in a run of ${capacity}`);
    if (capacity !== 0 && (capacity & (capacity - 1)) !== 0)
      fail(`cell ${id}'s run of ${capacity} is not a power of two`);
    if (runs[r + RUN_LISTED] === 1) {
      listed++;
      const k = id * dim;
      const found = dim === 2 ? cells.find2(keys[k], keys[k + 1]) : cells.find3(keys[k], keys[k + 1], keys[k + 2]);
      if (found !== id) fail(`listed cell ${id} is not in the table`);
    } else if (n !== 0) fail(`cell ${id} holds points but is not listed`);
    if (n > 0) {
      occupied++;
      for (let a = 0; a < dim; a++) {
        const k = keys[id * dim + a];
        if (!(k >= hash.cellBounds[a] && k <= hash.cellBounds[3 + a])) fail(`cell ${id} lies outside the cell bounds`);
      }
    }
  }
  if (listed !== cells.size) fail(`${listed} cells listed, the table holds ${cells.size}`);
  if (occupied !== hash.occupiedCells) fail(`${occupied} cells occupied, counted ${hash.occupiedCells}`);
  // Every cell id's run, listed or kept for the id's next cell, lies in the pool apart from the others.
  for (let id = 0; id < runs.length / RUN; id++) {
    const r = id * RUN;
    const capacity = runs[r + RUN_CAPACITY];
    if (capacity === 0) continue;
    if (!(runs[r + RUN_START] >= 0 && runs[r + RUN_START] + capacity <= hash.poolUsed)) {
      fail(`cell ${id}'s run [${runs[r + RUN_START]}, +${capacity}) is past the pool's ${hash.poolUsed}`);
    }
    starts.push(id);
  }
  // Free runs: each of its list's size, in the pool, and counted in the overlap check below.
  const freeRuns: number[] = [];
  for (let size = 0; size < 32; size++) {
    let guard = 0;
    for (let start = hash.freeRuns[size]; start !== -1; start = hash.slots[start * stride]) {
      if (!(start >= 0 && start + 2 ** size <= hash.poolUsed))
        fail(`free run at ${start} of size ${2 ** size} is past the pool`);
      if (++guard > hash.poolUsed) fail(`the free list of size ${2 ** size} loops`);
      freeRuns.push(start, 2 ** size);
    }
  }
  // Runs, live and free, as [start, capacity] pairs: none may overlap another.
  const all: number[][] = starts.map((id) => [runs[id * RUN + RUN_START], runs[id * RUN + RUN_CAPACITY]]);
  for (let i = 0; i < freeRuns.length; i += 2) all.push([freeRuns[i], freeRuns[i + 1]]);
  all.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < all.length; i++) {
    if (all[i - 1][0] + all[i - 1][1] > all[i][0]) fail(`the runs at ${all[i - 1][0]} and ${all[i][0]} overlap`);
  }
  if (hash.poolUsed * stride > hash.slots.length) fail('the pool is used past its end');
}
