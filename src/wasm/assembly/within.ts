// The hashed grid's cell lookup and withinMany's windows, over the grid setGrid read (grid.ts); the within
// search itself is within-rows.ts, generated from src/templates/within.template.ts.

import { cellAlong } from './build-loops';
import { hashCell2, hashCell3 } from './cell-hash';
import { cells, cellsX, cellsY, cellsZ, dense, key, originX, originY, originZ, points, slotMask, slots, width } from './grid';
import { within2, within3 } from './within-rows';

/**
 * Grid2D.findCell: the id of occupied cell (cx, cy), or -1; at most a probe
 * per slot, and an id outside the cells ends it (as there: a lookup read
 * from an unchecked buffer cannot loop for ever or index past the keys).
 */
export function findCell(cx: f64, cy: f64): i32 {
  let s = hashCell2(cx, cy) & slotMask;
  for (let probes: u32 = 0; probes <= slotMask; probes++) {
    const id = load<i32>(slots + (<usize>s << 2));
    if (!(id >= 0 && id < cells)) return -1;
    if (key(2 * id) == cx && key(2 * id + 1) == cy) return id;
    s = (s + 1) & slotMask;
  }
  return -1;
}

/** Grid3D.findCell, bounded as {@link findCell}. */
export function findCell3(cx: f64, cy: f64, cz: f64): i32 {
  let s = hashCell3(cx, cy, cz) & slotMask;
  for (let probes: u32 = 0; probes <= slotMask; probes++) {
    const id = load<i32>(slots + (<usize>s << 2));
    if (!(id >= 0 && id < cells)) return -1;
    if (key(3 * id) == cx && key(3 * id + 1) == cy && key(3 * id + 2) == cz) return id;
    s = (s + 1) & slotMask;
  }
  return -1;
}

// Many queries at once (withinMany of PointGrid2D / PointGrid3D), a window
// of consecutive queries at a time: a window's queries are taken in the
// grid's cell order, so that consecutive ones read the same cells from cache,
// each one's points written as within2 / within3 write them, and the runs
// then gathered into rows in query order. Over all the queries at once the
// cell order was faster still, but gathering a million rows from all over
// the results cost more than it saved (a random read per row).

/** Entries the window's results hold so far (see withinMany). */
export let written: i32 = 0;

/** The bucket of the query at `q` (d coordinates, f64): the id of the grid cell holding it, or `cells` when none does. */
function bucketOf(q: usize, d: i32): i32 {
  const cx = cellAlong(load<f64>(q), originX, width);
  const cy = cellAlong(load<f64>(q, 8), originY, width);
  const cz = d == 3 ? cellAlong(load<f64>(q, 16), originZ, width) : 0;
  if (!dense) {
    const id = d == 2 ? findCell(cx, cy) : findCell3(cx, cy, cz);
    return id < 0 ? cells : id;
  }
  if (!(cx >= 0 && cx < cellsX && cy >= 0 && cy < cellsY && cz >= 0 && cz < cellsZ)) return cells;
  return <i32>(cx + cellsX * (cy + cellsY * cz));
}

/**
 * Orders the queries from .. to - 1 (d f64 each at `queries`) by the cell
 * holding them (a counting sort: queries in no cell last, each bucket in
 * query order) into `order`, and starts the window's results afresh.
 * `bucket` has room for to - from entries, `counts` for cells + 2.
 */
export function sortWindow(queries: usize, d: i32, from: i32, to: i32, bucket: usize, counts: usize, order: usize): void {
  memory.fill(counts, 0, <usize>(cells + 2) << 2);
  for (let q = from; q < to; q++) {
    const b = bucketOf(queries + (<usize>(d * q) << 3), d);
    store<i32>(bucket + (<usize>(q - from) << 2), b);
    const at = counts + (<usize>(b + 1) << 2);
    store<i32>(at, load<i32>(at) + 1);
  }
  for (let b = 1; b <= cells + 1; b++) {
    const at = counts + (<usize>b << 2);
    store<i32>(at, load<i32>(at) + load<i32>(at - 4));
  }
  for (let q = from; q < to; q++) {
    const at = counts + (<usize>load<i32>(bucket + (<usize>(q - from) << 2)) << 2);
    const k = load<i32>(at);
    store<i32>(order + (<usize>k << 2), q);
    store<i32>(at, k + 1);
  }
  written = 0;
}

/**
 * Runs the window's queries order[k] .. order[end - 1], appending each one's
 * points to `results` (room for `capacity` entries, `written` used) and
 * noting where its run starts and how long it is (rowStart, rowCount, by
 * query - first). Stops before a query that might not fit (one can write up
 * to `points` entries) and returns where it stopped, `end` once all are done.
 */
export function withinMany<C>(
  queries: usize, d: i32, order: usize, k: i32, end: i32, first: i32, radius: f64,
  results: usize, capacity: i32, rowStart: usize, rowCount: usize,
): i32 {
  for (; k < end; k++) {
    if (capacity - written < points) return k;
    const q = load<i32>(order + (<usize>k << 2));
    const at = queries + (<usize>(d * q) << 3);
    const target = results + (<usize>written << 2);
    const found = d == 2
      ? within2<C>(load<f64>(at), load<f64>(at, 8), radius, target)
      : within3<C>(load<f64>(at), load<f64>(at, 8), load<f64>(at, 16), radius, target);
    store<i32>(rowStart + (<usize>(q - first) << 2), written);
    store<i32>(rowCount + (<usize>(q - first) << 2), found);
    written += found;
  }
  return end;
}

/** Copies the window's `count` runs from `results` into `rows`, in query order (room for `written` entries). */
export function gatherWindow(results: usize, rowStart: usize, rowCount: usize, count: i32, rows: usize): void {
  let to = rows;
  for (let q = 0; q < count; q++) {
    const length = <usize>load<i32>(rowCount + (<usize>q << 2)) << 2;
    memory.copy(to, results + (<usize>load<i32>(rowStart + (<usize>q << 2)) << 2), length);
    to += length;
  }
}
