// within2D of src/pointgrid/query2d.ts, operation for operation: the points
// of a 2D grid within a radius of (x, y), written as original indices in the
// order the JavaScript query finds them. The grid is the one setGrid read
// (grid.ts).

import { hashCell2, hashCell3 } from './cell-hash';
import {
  cells,
  cellsX,
  cellsY,
  cellsZ,
  coords,
  dense,
  key,
  originX,
  originY,
  originZ,
  points,
  slotMask,
  slots,
  sortedIndex,
  start,
  width,
} from './grid';

const SLACK: f64 = 1.0 / 281474976710656.0; // 2^-48, core/margins.ts
const UNDERFLOW: f64 = reinterpret<f64>(0x1e70000000000000); // 2^-536, core/margins.ts
/** Rows looked up before they are scanned (ROW_BATCH of query2d.ts); their bounds live at address 0. */
const ROW_BATCH: i32 = 32;

/**
 * Grid2D.findCell: the id of occupied cell (cx, cy), or -1; at most a probe
 * per slot, and an id outside the cells ends it (as there: a lookup read
 * from an unchecked buffer cannot loop for ever or index past the keys).
 */
function findCell(cx: f64, cy: f64): i32 {
  let s = hashCell2(cx, cy) & slotMask;
  for (let probes: u32 = 0; probes <= slotMask; probes++) {
    const id = load<i32>(slots + (<usize>s << 2));
    if (!(id >= 0 && id < cells)) return -1;
    if (key(2 * id) == cx && key(2 * id + 1) == cy) return id;
    s = (s + 1) & slotMask;
  }
  return -1;
}

/**
 * Writes the original indices of the points within `radius` of (x, y) to
 * `target` (room for every point) and returns how many there are.
 */
export function within2<C>(x: f64, y: f64, radius: f64, target: usize): i32 {
  if (points == 0) return 0;
  const cs = sizeof<C>();
  const rx = x - originX;
  const ry = y - originY;
  // More than Number.MAX_VALUE from the origin along an axis: beyond every radius whose square is finite.
  if (rx - rx != 0 || ry - ry != 0) return 0;
  const relative = max(Math.abs(rx), Math.abs(ry));
  const padded = radius + UNDERFLOW + (radius + relative + width) * SLACK;
  const lx = max(Math.floor((rx - padded) / width), 0);
  const hx = min(Math.floor((rx + padded) / width), cellsX - 1);
  const ly = max(Math.floor((ry - padded) / width), 0);
  const hy = min(Math.floor((ry + padded) / width), cellsY - 1);
  if (lx > hx || ly > hy) return 0;
  const r2 = radius * radius;
  if (!dense && (hx - lx + 1) * (hy - ly + 1) > <f64>cells) return withinEveryCell<C>(x, y, r2, lx, hx, ly, hy, target);
  const tiny = !(padded > 1e-150);
  const clip = hy - ly > 2 && !tiny;
  const paddedSquared = padded * padded;
  const margin = (Math.abs(ry) + width) * SLACK;
  let found = 0;
  for (let batch = ly; batch <= hy; batch += <f64>ROW_BATCH) {
    const batchEnd = min(hy, batch + <f64>(ROW_BATCH - 1));
    let used = 0;
    for (let cy = batch; cy <= batchEnd; cy++) {
      let cx0 = lx;
      let cx1 = hx;
      const below = cy * width - ry;
      const above = ry - (cy + 1) * width;
      const gap = (below > 0 ? below : max(above, 0)) - (cy + 1) * margin;
      let floor2: f64 = 0;
      if (gap > 0 && !tiny) {
        floor2 = gap * gap * (1 - SLACK);
        if (floor2 > r2) continue;
        if (clip) {
          const half = Math.sqrt(paddedSquared - gap * gap);
          if (!(half >= 0)) continue;
          const left = Math.floor((rx - half) / width);
          const right = Math.floor((rx + half) / width);
          if (left > cx0) cx0 = left;
          if (right < cx1) cx1 = right;
          // The chord misses the grid's cells (x far outside them): no run to read.
          if (cx0 > cx1) continue;
        }
      }
      const row = <usize>used << 3;
      if (dense) {
        store<f64>(row, floor2);
        store<f64>(row, cy * cellsX + cx0, 8);
        store<f64>(row, cx1 - cx0, 16);
        store<f64>(row, cx0, 24);
        used += 4;
      } else {
        let id = -1;
        for (let cx = cx0; cx <= cx1 && id < 0; cx++) id = findCell(cx, cy);
        if (id < 0) continue;
        store<f64>(row, floor2);
        store<f64>(row, <f64>id, 8);
        store<f64>(row, cx1, 16);
        store<f64>(row, cy, 24);
        used += 4;
      }
    }
    for (let k = 0; k < used; k += 4) {
      const row = <usize>k << 3;
      const floor2 = load<f64>(row);
      let first: f64;
      let last: f64;
      let s: i32;
      let end: i32;
      if (dense) {
        const cell = <i32>load<f64>(row, 8);
        const span = <i32>load<f64>(row, 16);
        s = start(cell);
        end = start(cell + span + 1);
        first = load<f64>(row, 24);
        last = first + <f64>span;
      } else {
        const id = <i32>load<f64>(row, 8);
        const cx1 = load<f64>(row, 16);
        const cy = load<f64>(row, 24);
        let lastId = id;
        while (lastId + 1 < cells && key(2 * lastId + 3) == cy && key(2 * lastId + 2) <= cx1) lastId++;
        s = start(id);
        end = start(lastId + 1);
        first = key(2 * id);
        last = key(2 * lastId);
      }
      // (A run from a buffer another thread is rewriting, or one not checked, stays inside the points and never
      // runs backwards, so that end - s cannot overflow.)
      if (s < 0) s = 0;
      if (end > points) end = points;
      if (end < s) end = s;
      if (end - s > 8) {
        const half = Math.sqrt(max(r2 - floor2, 0));
        const fraction = (rx - half - first * width) / ((last - first + 1) * width);
        if (fraction > 0) {
          let t = s + <i32>Math.floor(min(fraction, 1) * <f64>(end - s));
          for (; t < end; t++) {
            const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
            if (!(dx < 0 && dx * dx + floor2 > r2)) break;
          }
          for (; t > s; t--) {
            const dx = <f64>load<C>(coords + <usize>(2 * t - 2) * cs) - x;
            if (dx < 0 && dx * dx + floor2 > r2) break;
          }
          s = t;
        }
      }
      let q = coords + <usize>(2 * s) * cs;
      // The target has room for every point: only a grid holding garbage finds more (counted, not written).
      if (found + end - s <= points) {
        let at = target + (<usize>found << 2);
        for (let t = s; t < end; t++, q += 2 * cs) {
          const dx = <f64>load<C>(q) - x;
          const dx2 = dx * dx;
          if (dx > 0 && dx2 + floor2 > r2) break;
          const dy = <f64>load<C>(q + cs) - y;
          store<u32>(at, load<u32>(sortedIndex + (<usize>t << 2)));
          at += <usize>(i32(dx2 + dy * dy <= r2)) << 2;
        }
        found = <i32>((at - target) >> 2);
        continue;
      }
      for (let t = s; t < end; t++, q += 2 * cs) {
        const dx = <f64>load<C>(q) - x;
        const dx2 = dx * dx;
        if (dx > 0 && dx2 + floor2 > r2) break;
        const dy = <f64>load<C>(q + cs) - y;
        if (dx2 + dy * dy <= r2) {
          if (found < points) store<u32>(target + (<usize>found << 2), load<u32>(sortedIndex + (<usize>t << 2)));
          found++;
        }
      }
    }
  }
  return min(found, points);
}

/** withinEveryCell of query2d.ts: a hashed grid's every occupied cell in the box. */
function withinEveryCell<C>(x: f64, y: f64, r2: f64, lx: f64, hx: f64, ly: f64, hy: f64, target: usize): i32 {
  const cs = sizeof<C>();
  let found = 0;
  for (let id = 0; id < cells; id++) {
    const kx = key(2 * id);
    const ky = key(2 * id + 1);
    if (kx < lx || kx > hx || ky < ly || ky > hy) continue;
    const end = min(start(id + 1), points);
    for (let t = max(start(id), 0); t < end; t++) {
      const q = coords + <usize>(2 * t) * cs;
      const dx = <f64>load<C>(q) - x;
      const dy = <f64>load<C>(q + cs) - y;
      if (dx * dx + dy * dy <= r2) {
        if (found < points) store<u32>(target + (<usize>found << 2), load<u32>(sortedIndex + (<usize>t << 2)));
        found++;
      }
    }
  }
  return min(found, points);
}

/** Grid3D.findCell, bounded as {@link findCell}. */
function findCell3(cx: f64, cy: f64, cz: f64): i32 {
  let s = hashCell3(cx, cy, cz) & slotMask;
  for (let probes: u32 = 0; probes <= slotMask; probes++) {
    const id = load<i32>(slots + (<usize>s << 2));
    if (!(id >= 0 && id < cells)) return -1;
    if (key(3 * id) == cx && key(3 * id + 1) == cy && key(3 * id + 2) == cz) return id;
    s = (s + 1) & slotMask;
  }
  return -1;
}

/** within3D of query3d.ts, as {@link within2} is within2D's. */
export function within3<C>(x: f64, y: f64, z: f64, radius: f64, target: usize): i32 {
  if (points == 0) return 0;
  const cs = sizeof<C>();
  const rx = x - originX;
  const ry = y - originY;
  const rz = z - originZ;
  // Over 2^918 from every point along an axis (see within2): beyond every radius whose square is finite.
  if (rx - rx != 0 || ry - ry != 0 || rz - rz != 0) return 0;
  const relative = max(max(Math.abs(rx), Math.abs(ry)), Math.abs(rz));
  const padded = radius + UNDERFLOW + (radius + relative + width) * SLACK;
  const lx = max(Math.floor((rx - padded) / width), 0);
  const hx = min(Math.floor((rx + padded) / width), cellsX - 1);
  const ly = max(Math.floor((ry - padded) / width), 0);
  const hy = min(Math.floor((ry + padded) / width), cellsY - 1);
  const lz = max(Math.floor((rz - padded) / width), 0);
  const hz = min(Math.floor((rz + padded) / width), cellsZ - 1);
  if (lx > hx || ly > hy || lz > hz) return 0;
  const r2 = radius * radius;
  let at = target;
  if (dense) {
    const layer = cellsX * cellsY;
    const clip = (hy - ly > 2 || hz - lz > 2) && padded > 1e-150;
    const paddedSquared = padded * padded;
    const margin = (Math.abs(ry) + Math.abs(rz) + width) * SLACK;
    for (let cz = lz; cz <= hz; cz++) {
      for (let cy = ly; cy <= hy; cy++) {
        let cx0 = lx;
        let cx1 = hx;
        if (clip) {
          const gy = max(max(cy * width - ry, ry - (cy + 1) * width), 0);
          const gz = max(max(cz * width - rz, rz - (cz + 1) * width), 0);
          const gap = Math.sqrt(gy * gy + gz * gz) - (cy + cz + 2) * margin;
          if (gap > 0) {
            const half = Math.sqrt(paddedSquared - gap * gap);
            if (!(half >= 0)) continue;
            const left = Math.floor((rx - half) / width);
            const right = Math.floor((rx + half) / width);
            if (left > cx0) cx0 = left;
            if (right < cx1) cx1 = right;
            // The chord misses the grid's cells (x far outside them): no run to read.
            if (cx0 > cx1) continue;
          }
        }
        const row = <i32>(cy * cellsX + cz * layer);
        // (A run from a buffer another thread is rewriting, or one not checked, stays inside the points and never
        // runs backwards.)
        const first = max(start(row + <i32>cx0), 0);
        const end = max(min(start(row + <i32>cx1 + 1), points), first);
        let q = coords + <usize>(3 * first) * cs;
        let found = <i32>((at - target) >> 2);
        if (found + end - first <= points) {
          for (let t = first; t < end; t++, q += 3 * cs) {
            const dx = <f64>load<C>(q) - x;
            const dx2 = dx * dx;
            if (dx2 > r2 && dx > 0) break;
            const dy = <f64>load<C>(q + cs) - y;
            const dz = <f64>load<C>(q + 2 * cs) - z;
            store<u32>(at, load<u32>(sortedIndex + (<usize>t << 2)));
            at += <usize>(i32(dx2 + dy * dy + dz * dz <= r2)) << 2;
          }
          continue;
        }
        // Only a grid holding garbage finds more than every point: counted, not written.
        for (let t = first; t < end; t++, q += 3 * cs) {
          const dx = <f64>load<C>(q) - x;
          const dy = <f64>load<C>(q + cs) - y;
          const dz = <f64>load<C>(q + 2 * cs) - z;
          if (dx * dx + dy * dy + dz * dz <= r2) {
            if (found < points) store<u32>(target + (<usize>found << 2), load<u32>(sortedIndex + (<usize>t << 2)));
            found++;
          }
        }
        at = target + (<usize>found << 2);
      }
    }
    return min(<i32>((at - target) >> 2), points);
  }
  const scanAll = (hx - lx + 1) * (hy - ly + 1) * (hz - lz + 1) > <f64>cells;
  let found = 0;
  let c = 0;
  let cx = lx;
  let cy = ly;
  let cz = lz;
  for (;;) {
    let id: i32;
    if (scanAll) {
      if (c == cells) break;
      id = c++;
      const kx = key(3 * id);
      const ky = key(3 * id + 1);
      const kz = key(3 * id + 2);
      if (kx < lx || kx > hx || ky < ly || ky > hy || kz < lz || kz > hz) continue;
    } else {
      if (cz > hz) break;
      id = findCell3(cx, cy, cz);
      if (++cx > hx) {
        cx = lx;
        if (++cy > hy) {
          cy = ly;
          cz++;
        }
      }
      if (id < 0) continue;
    }
    const end = min(start(id + 1), points);
    for (let t = max(start(id), 0); t < end; t++) {
      const q = coords + <usize>(3 * t) * cs;
      const dx = <f64>load<C>(q) - x;
      const dy = <f64>load<C>(q + cs) - y;
      const dz = <f64>load<C>(q + 2 * cs) - z;
      if (dx * dx + dy * dy + dz * dz <= r2) {
        if (found < points) store<u32>(target + (<usize>found << 2), load<u32>(sortedIndex + (<usize>t << 2)));
        found++;
      }
    }
  }
  return min(found, points);
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
  const cx = Math.floor((load<f64>(q) - originX) / width);
  const cy = Math.floor((load<f64>(q, 8) - originY) / width);
  const cz = d == 3 ? Math.floor((load<f64>(q, 16) - originZ) / width) : 0;
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
