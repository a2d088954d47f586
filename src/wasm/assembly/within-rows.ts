// Generated from src/templates/within.template.ts by scripts/expand-templates.mjs (npm run build): edit the template, not this file.
// within: the points of a grid within a radius of a query point, written once for 2D and 3D and for both paths
// (scripts/expand-templates.mjs explains the directives). The JavaScript path reads the grid's typed arrays,
// the kernels the same sections in their memory, through the accessors below; everything else is one text, so
// both paths find the same points in the same order, by construction.
//
// The algorithm, for an ordinary radius over a grid of at least one point: the cell range of the ball padded by
// the rounding margins (core/margins.ts), then rows of cells along x (a row is one cy in 2D, one (cy, cz) in
// 3D) in batches: each row's bounds first (its gap to the query, the chord it cuts, and for a hashed grid its
// first occupied cell), then the scans, so that the look-ups of different rows overlap their cache misses
// instead of each waiting behind the previous row's scan. A row's cells in x order are one run of sorted
// positions (dense: directly; hashed: consecutive row-major ids), sorted by x, so a scan starts at the chord's
// left end and stops at its right end. A hashed grid whose range spans more cells than it holds tests every
// occupied cell instead (withinEveryCell); a range of at most 3 cells a side (a radius up to a cell) reads and
// scans each row's run in turn, with no batch (the direct path in the function): whole, unless a hashed row is
// crowded.
//
// countWithin is the same search that only counts (VARIANT 'count'): no target, no writes.

// within on the WebAssembly kernels: PointGrid2D / PointGrid3D's within, withinMany and countWithin for an
// ordinary radius, the same points in the same order as the JavaScript path (src/pointgrid/within-rows.ts,
// from the same template). The grid is the one setGrid read (grid.ts); a result goes to `target`, with room
// for every point.

import {
  cellStart,
  cells,
  cellsX,
  cellsY,
  cellsZ,
  coords,
  dense,
  keys,
  originX,
  originY,
  originZ,
  points,
  sortedIndex,
  width,
} from './grid';
import { paddedRadius, SLACK } from './margins';
import { findCell, findCell3 } from './within';

/**
 * Rows looked up before they are scanned; their bounds live at address 0, ROW_NUMBERS f64 a row: 1,280 bytes,
 * below KERNEL_BASE (src/wasm/records.ts), where the records and then the mirror start.
 */
const ROW_BATCH: i32 = 32;
const ROW_NUMBERS: i32 = 5;

// The range of cells along an axis that holds every point within `padded` (the radius with its rounding
// margins, see paddedRadius) of a query `relative` from the grid's origin: clamped to the grid's cells, empty
// when low > high. Both paths' within and the cold path of extreme radii (extreme.ts) take it from here.
// @ts-ignore: decorator
@inline
/** The first cell of the range (see the template). */
export function lowCell(relative: f64, padded: f64, width: f64): f64 {
  return Math.max(Math.floor((relative - padded) / width), 0);
}

// @ts-ignore: decorator
@inline
/** The last cell of the range (see the template), `cells` the grid's cells along the axis. */
export function highCell(relative: f64, padded: f64, width: f64, cells: f64): f64 {
  return Math.min(Math.floor((relative + padded) / width), cells - 1);
}

/** withinRows2D of the JavaScript path (see the module notes). */
export function within2<C>(x: f64, y: f64, radius: f64, target: usize): i32 {
  const cs = sizeof<C>();
  const n = points;
  const capacity = points;
  if (n === 0) return 0;
  const rx = x - originX;
  const ry = y - originY;
  // (See the 3D instance.)
  if (rx - rx !== 0 || ry - ry !== 0) return 0;
  const padded = paddedRadius(radius, Math.max(Math.abs(rx), Math.abs(ry)), width);
  const lz: f64 = 0;
  const hz: f64 = 0;
  const margin = (Math.abs(ry) + width) * SLACK;
  const lx = lowCell(rx, padded, width);
  const hx = highCell(rx, padded, width, <f64>cellsX);
  const ly = lowCell(ry, padded, width);
  const hy = highCell(ry, padded, width, <f64>cellsY);
  if (lx > hx || ly > hy || lz > hz) return 0;
  const r2 = radius * radius;
  // A hashed grid asked for more cells than it holds: test every occupied cell against the box instead.
  if (!dense && (hx - lx + 1) * (hy - ly + 1) > <f64>cells) return withinEveryCell2<C>(x, y, r2, lx, hx, ly, hy, target);
  // Tiny radii would square to subnormals: no clipping and no row bound then.
  const tiny = !(padded > 1e-150);
  // With 3 rows or fewer per axis (radius up to a cell) clipping the cell range saves too little to pay for itself.
  const clip = (hy - ly > 2 || hz - lz > 2) && !tiny;
  let found = 0;
  // At most 3 rows per axis (a radius up to a cell, the usual cellSize): each row's run read and scanned in
  // turn, whole (but see the hashed grid's crowded rows below), with no batch of bounds. At 3 (3D: 9) short rows
  // the batch's stores and loads of each row's numbers, its chord skip and its stop at the chord's end (a
  // mispredicted branch a row) cost more than they save: withinInto a point of 1e5 uniform 2D points at 20
  // neighbours, every point a query, took
  // 22.1-22.6 ms against 24.3 on the kernels and 25.7-26.5 against 28.8-29.2 in JavaScript, a 3D lattice at
  // 14 neighbours 34.9 against 37.6-38.1 and 42.0-42.7 against 50.3-51.5, countWithin in JavaScript 18.1-18.3
  // against 32.8 (its count now without a branch too); at 1e6, where every query waits on memory, within this
  // VM's noise (AMD EPYC, 2026-12-04, two processes per build in turn). Same rows, same runs, so the same points
  // in the same order. Its loop keeps no test but the distance (see scanRow and skipFarRow): a stop at the chord's
  // end with an infinite bound, and in 2D the row's gap, had cost 15% of withinInto in 2D on the kernels, 6% in 3D
  // and 20% of countWithin (commit 17ee494's against the next, bench/compare-builds.mjs both ways round).
  //
  // A hashed grid takes that path too, each row's first occupied cell looked up and its others taken as the ids
  // after it, as a batch does; but a crowded row (more than 16 points a cell, see @crowded) is scanned as a
  // batch scans it, from the chord's left end to its right end. Scanning crowded rows whole lost at scale: on
  // clustered points at 4e5 and 1e6, withinInto took 1.28x and 1.64x as long on the kernels (2.15x in JavaScript,
  // commit 75629c0, reverted by 1aec83f), where the skip and the stop spare most of a row's cold candidates.
  // With crowded rows scanned so, no loss was found and the gain is small: every place of the lon/lat places a
  // query at r = 0.25 deg, the fastest of 19 interleaved runs in one process (three processes, both ways round)
  // took 0.93x to 0.94x the batched path's time for withinInto and 0.85x to 0.90x for countWithin on the kernels
  // (0.91x and 0.85x in JavaScript); the clustered sets at 1e5 and 1e6 points within this VM's noise (AMD EPYC,
  // 2026-12-04, where two identical builds differed by up to 13% in median).
  //
  // The dense and the hashed grid each have a loop of their own: one loop over both, choosing per row, made
  // dense grids' withinInto 13 to 14% slower and withinMany 20 to 21% than the code before it (2e5 uniform 2D
  // points, every point a query, bench/compare-builds.mjs both ways round, AMD EPYC, 2026-12-04), though the
  // choice never changes within a query.
  if (!clip && !tiny && dense) {
    for (let cz = lz; cz <= hz; cz++) {
      for (let cy = ly; cy <= hy; cy++) {
        const cell = <i32>((cy + cz * cellsY) * cellsX + lx);
        let s = load<i32>(cellStart + (<usize>(cell) << 2));
        let end = load<i32>(cellStart + (<usize>(cell + <i32>(hx - lx) + 1) << 2));
        if (s < 0) s = 0;
        if (end > n) end = n;
        if (end < s) end = s;
        if (found + end - s <= capacity) {
          for (let t = s; t < end; t++) {
            const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
            const dx2 = dx * dx;
            // The whole run: the rows are at most three cells long.
            const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
            // Write every candidate and advance only on a hit (scanRun in the template says why).
            store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
            found += i32(dx2 + dy * dy <= r2);
          }
          continue;
        }
        for (let t = s; t < end; t++) {
          const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
          const dx2 = dx * dx;
          // The whole run: the rows are at most three cells long.
          const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
          if (dx2 + dy * dy <= r2) {
            if (found < capacity) store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
            found++;
          }
        }
      }
    }
    return min(found, n);
  }
  if (!clip && !tiny) {
    for (let cz = lz; cz <= hz; cz++) {
      for (let cy = ly; cy <= hy; cy++) {
        let id = -1;
        for (let cx = lx; cx <= hx && id < 0; cx++) id = findCell(cx, cy);
        if (id < 0) continue;
        let lastId = id;
        while (lastId + 1 < cells && load<f64>(keys + (<usize>(2 * lastId + 3) << 3)) === cy && load<f64>(keys + (<usize>(2 * lastId + 2) << 3)) <= hx) lastId++;
        let s = load<i32>(cellStart + (<usize>(id) << 2));
        let end = load<i32>(cellStart + (<usize>(lastId + 1) << 2));
        if (s < 0) s = 0;
        if (end > n) end = n;
        if (end < s) end = s;
        const first = load<f64>(keys + (<usize>(2 * id) << 3));
        const last = load<f64>(keys + (<usize>(2 * lastId) << 3));
        if (end - s > 16 * (last - first + 1)) {
          const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
          const gap = gy - (cy + 1) * margin;
          const floor2 = gap > 0 ? gap * gap * (1 - SLACK) : 0;
          const half = Math.sqrt(Math.max(r2 - floor2, 0));
          const fraction = (rx - half - first * width) / ((last - first + 1) * width);
          if (fraction > 0) {
            let t = s + <i32>Math.floor(Math.min(fraction, 1) * <f64>(end - s));
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
          if (found + end - s <= capacity) {
            for (let t = s; t < end; t++) {
              const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
              const dx2 = dx * dx;
              if (dx2 + floor2 > r2 && dx > 0) break;
              const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
              // Write every candidate and advance only on a hit (scanRun in the template says why).
              store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
              found += i32(dx2 + dy * dy <= r2);
            }
            continue;
          }
          for (let t = s; t < end; t++) {
            const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
            const dx2 = dx * dx;
            if (dx2 + floor2 > r2 && dx > 0) break;
            const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
            if (dx2 + dy * dy <= r2) {
              if (found < capacity) store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
              found++;
            }
          }
          continue;
        }
        if (found + end - s <= capacity) {
          for (let t = s; t < end; t++) {
            const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
            const dx2 = dx * dx;
            // The whole run: the rows are at most three cells long.
            const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
            // Write every candidate and advance only on a hit (scanRun in the template says why).
            store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
            found += i32(dx2 + dy * dy <= r2);
          }
          continue;
        }
        for (let t = s; t < end; t++) {
          const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
          const dx2 = dx * dx;
          // The whole run: the rows are at most three cells long.
          const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
          if (dx2 + dy * dy <= r2) {
            if (found < capacity) store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
            found++;
          }
        }
      }
    }
    return min(found, n);
  }
  const paddedSquared = padded * padded;
  const spanY = hy - ly + 1;
  const rowTotal = spanY * (hz - lz + 1);
  // The row's cells in y and z, moved on row by row (y fastest), not divided out of r: a division a row cost
  // more than the few points a row holds at small radii.
  let cy: f64 = ly;
  let cz: f64 = lz;
  for (let batch: f64 = 0; batch < rowTotal; batch += <f64>ROW_BATCH) {
    const batchEnd = Math.min(rowTotal, batch + <f64>ROW_BATCH);
    let used = 0;
    for (let r = batch; r < batchEnd; r++, cz = cy === hy ? cz + 1 : cz, cy = cy === hy ? ly : cy + 1) {
      let cx0 = lx;
      let cx1 = hx;
      // Every point of the row is at least `gap` from the query across x (rounding included, see
      // core/margins.ts), so its squared distance is at least `floor2` plus its dx squared: the x-sorted row is
      // cut to the chord by that bound, exactly.
      const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
      const gap = gy - (cy + 1) * margin;
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
      // The row's points from cx0 to cx1 are one run of sorted positions, in x order: a dense row directly, a
      // hashed one as consecutive row-major ids from its first occupied cell.
      const at = used * ROW_NUMBERS;
      if (dense) {
        store<f64>(<usize>(at) << 3, floor2);
        store<f64>(<usize>(at + 1) << 3, (cy + cz * cellsY) * cellsX + cx0);
        store<f64>(<usize>(at + 2) << 3, cx1 - cx0);
        store<f64>(<usize>(at + 3) << 3, cx0);
      } else {
        let id = -1;
        for (let cx = cx0; cx <= cx1 && id < 0; cx++) id = findCell(cx, cy);
        if (id < 0) continue;
        store<f64>(<usize>(at) << 3, floor2);
        store<f64>(<usize>(at + 1) << 3, <f64>id);
        store<f64>(<usize>(at + 2) << 3, cx1);
        store<f64>(<usize>(at + 3) << 3, cy);
        store<f64>(<usize>(at + 4) << 3, cz);
      }
      used++;
    }
    for (let k = 0; k < used; k++) {
      const at = k * ROW_NUMBERS;
      const floor2 = load<f64>(<usize>(at) << 3);
      let first: f64;
      let last: f64;
      let s: i32;
      let end: i32;
      if (dense) {
        const cell = <i32>load<f64>(<usize>(at + 1) << 3);
        const span = <i32>load<f64>(<usize>(at + 2) << 3);
        s = load<i32>(cellStart + (<usize>(cell) << 2));
        end = load<i32>(cellStart + (<usize>(cell + span + 1) << 2));
        first = load<f64>(<usize>(at + 3) << 3);
        last = first + <f64>span;
      } else {
        const id = <i32>load<f64>(<usize>(at + 1) << 3);
        const cx1 = load<f64>(<usize>(at + 2) << 3);
        const cy = load<f64>(<usize>(at + 3) << 3);
        let lastId = id;
        while (lastId + 1 < cells && load<f64>(keys + (<usize>(2 * lastId + 3) << 3)) === cy && load<f64>(keys + (<usize>(2 * lastId + 2) << 3)) <= cx1) lastId++;
        s = load<i32>(cellStart + (<usize>(id) << 2));
        end = load<i32>(cellStart + (<usize>(lastId + 1) << 2));
        first = load<f64>(keys + (<usize>(2 * id) << 3));
        last = load<f64>(keys + (<usize>(2 * lastId) << 3));
      }
      if (s < 0) s = 0;
      if (end > n) end = n;
      if (end < s) end = s;
      // The points left of the chord skipped in a crowded run (see @skipToChord).
      if (end - s > 16 * (last - first + 1)) {
        const half = Math.sqrt(Math.max(r2 - floor2, 0));
        const fraction = (rx - half - first * width) / ((last - first + 1) * width);
        if (fraction > 0) {
          let t = s + <i32>Math.floor(Math.min(fraction, 1) * <f64>(end - s));
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
      if (found + end - s <= capacity) {
        for (let t = s; t < end; t++) {
          const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
          const dx2 = dx * dx;
          if (dx2 + floor2 > r2 && dx > 0) break;
          const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
          // Write every candidate and advance only on a hit (scanRun in the template says why).
          store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
          found += i32(dx2 + dy * dy <= r2);
        }
        continue;
      }
      for (let t = s; t < end; t++) {
        const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
        const dx2 = dx * dx;
        if (dx2 + floor2 > r2 && dx > 0) break;
        const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
        if (dx2 + dy * dy <= r2) {
          if (found < capacity) store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
          found++;
        }
      }
    }
  }
  // (More than n only when the buffer holds garbage: see bounded.ts.)
  return min(found, n);
}

// The instances the module exports (see src/wasm/kernels.ts), by the coordinate copy's type.
export function within2d64(x: f64, y: f64, radius: f64, target: usize): i32 {
  return within2<f64>(x, y, radius, target);
}
export function within2d32(x: f64, y: f64, radius: f64, target: usize): i32 {
  return within2<f32>(x, y, radius, target);
}

/** withinEveryCell2D of the JavaScript path. */
function withinEveryCell2<C>(
  x: f64, y: f64, r2: f64, lx: f64, hx: f64, ly: f64, hy: f64, target: usize,
): i32 {
  const cs = sizeof<C>();
  const n = points;
  const capacity = points;
  let found = 0;
  for (let id = 0; id < cells; id++) {
    const kx = load<f64>(keys + (<usize>(2 * id) << 3));
    const ky = load<f64>(keys + (<usize>(2 * id + 1) << 3));
    if (kx < lx || kx > hx || ky < ly || ky > hy) continue;
    const end = min(load<i32>(cellStart + (<usize>(id + 1) << 2)), n);
    for (let t = max(load<i32>(cellStart + (<usize>(id) << 2)), 0); t < end; t++) {
      const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
      const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
      if (dx * dx + dy * dy <= r2) {
        if (found < capacity) store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
        found++;
      }
    }
  }
  // (More than n only when the buffer holds garbage: see bounded.ts.)
  return min(found, n);
}

/** withinRows3D of the JavaScript path (see the module notes). */
export function within3<C>(x: f64, y: f64, z: f64, radius: f64, target: usize): i32 {
  const cs = sizeof<C>();
  const n = points;
  const capacity = points;
  if (n === 0) return 0;
  const rx = x - originX;
  const ry = y - originY;
  const rz = z - originZ;
  // More than Number.MAX_VALUE from the origin along an axis, the query is over 2^918 (~1e276) from every
  // point (whose offsets from the origin are finite): beyond every radius whose square is finite.
  if (rx - rx !== 0 || ry - ry !== 0 || rz - rz !== 0) return 0;
  const padded = paddedRadius(radius, Math.max(Math.max(Math.abs(rx), Math.abs(ry)), Math.abs(rz)), width);
  const lz = lowCell(rz, padded, width);
  const hz = highCell(rz, padded, width, <f64>cellsZ);
  // Rows along x: one per (cy, cz); their margin grows with both.
  const margin = (Math.abs(ry) + Math.abs(rz) + width) * SLACK;
  const lx = lowCell(rx, padded, width);
  const hx = highCell(rx, padded, width, <f64>cellsX);
  const ly = lowCell(ry, padded, width);
  const hy = highCell(ry, padded, width, <f64>cellsY);
  if (lx > hx || ly > hy || lz > hz) return 0;
  const r2 = radius * radius;
  // A hashed grid asked for more cells than it holds: test every occupied cell against the box instead.
  if (!dense && (hx - lx + 1) * (hy - ly + 1) * (hz - lz + 1) > <f64>cells) return withinEveryCell3<C>(x, y, z, r2, lx, hx, ly, hy, lz, hz, target);
  // Tiny radii would square to subnormals: no clipping and no row bound then.
  const tiny = !(padded > 1e-150);
  // With 3 rows or fewer per axis (radius up to a cell) clipping the cell range saves too little to pay for itself.
  const clip = (hy - ly > 2 || hz - lz > 2) && !tiny;
  let found = 0;
  // At most 3 rows per axis (a radius up to a cell, the usual cellSize): each row's run read and scanned in
  // turn, whole (but see the hashed grid's crowded rows below), with no batch of bounds. At 3 (3D: 9) short rows
  // the batch's stores and loads of each row's numbers, its chord skip and its stop at the chord's end (a
  // mispredicted branch a row) cost more than they save: withinInto a point of 1e5 uniform 2D points at 20
  // neighbours, every point a query, took
  // 22.1-22.6 ms against 24.3 on the kernels and 25.7-26.5 against 28.8-29.2 in JavaScript, a 3D lattice at
  // 14 neighbours 34.9 against 37.6-38.1 and 42.0-42.7 against 50.3-51.5, countWithin in JavaScript 18.1-18.3
  // against 32.8 (its count now without a branch too); at 1e6, where every query waits on memory, within this
  // VM's noise (AMD EPYC, 2026-12-04, two processes per build in turn). Same rows, same runs, so the same points
  // in the same order. Its loop keeps no test but the distance (see scanRow and skipFarRow): a stop at the chord's
  // end with an infinite bound, and in 2D the row's gap, had cost 15% of withinInto in 2D on the kernels, 6% in 3D
  // and 20% of countWithin (commit 17ee494's against the next, bench/compare-builds.mjs both ways round).
  //
  // A hashed grid takes that path too, each row's first occupied cell looked up and its others taken as the ids
  // after it, as a batch does; but a crowded row (more than 16 points a cell, see @crowded) is scanned as a
  // batch scans it, from the chord's left end to its right end. Scanning crowded rows whole lost at scale: on
  // clustered points at 4e5 and 1e6, withinInto took 1.28x and 1.64x as long on the kernels (2.15x in JavaScript,
  // commit 75629c0, reverted by 1aec83f), where the skip and the stop spare most of a row's cold candidates.
  // With crowded rows scanned so, no loss was found and the gain is small: every place of the lon/lat places a
  // query at r = 0.25 deg, the fastest of 19 interleaved runs in one process (three processes, both ways round)
  // took 0.93x to 0.94x the batched path's time for withinInto and 0.85x to 0.90x for countWithin on the kernels
  // (0.91x and 0.85x in JavaScript); the clustered sets at 1e5 and 1e6 points within this VM's noise (AMD EPYC,
  // 2026-12-04, where two identical builds differed by up to 13% in median).
  //
  // The dense and the hashed grid each have a loop of their own: one loop over both, choosing per row, made
  // dense grids' withinInto 13 to 14% slower and withinMany 20 to 21% than the code before it (2e5 uniform 2D
  // points, every point a query, bench/compare-builds.mjs both ways round, AMD EPYC, 2026-12-04), though the
  // choice never changes within a query.
  if (!clip && !tiny && dense) {
    for (let cz = lz; cz <= hz; cz++) {
      for (let cy = ly; cy <= hy; cy++) {
        const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
        const gz = Math.max(Math.max(cz * width - rz, rz - (cz + 1) * width), 0);
        const gap = Math.sqrt(gy * gy + gz * gz) - (cy + cz + 2) * margin;
        const floor2 = gap > 0 ? gap * gap * (1 - SLACK) : 0;
        if (floor2 > r2) continue;
        const cell = <i32>((cy + cz * cellsY) * cellsX + lx);
        let s = load<i32>(cellStart + (<usize>(cell) << 2));
        let end = load<i32>(cellStart + (<usize>(cell + <i32>(hx - lx) + 1) << 2));
        if (s < 0) s = 0;
        if (end > n) end = n;
        if (end < s) end = s;
        if (found + end - s <= capacity) {
          {
            let qAt = coords + <usize>(3 * s) * cs;
            let slotAt = target + (<usize>found << 2);
            for (let t = s; t < end; t++, qAt += 3 * cs) {
              const dx = <f64>load<C>(qAt) - x;
              const dx2 = dx * dx;
              // The whole run: the rows are at most three cells long.
              const dy = <f64>load<C>(qAt + cs) - y;
              const dz = <f64>load<C>(qAt + 2 * cs) - z;
              // Write every candidate and advance only on a hit (scanRun in the template says why).
              store<u32>(slotAt, load<u32>(sortedIndex + (<usize>t << 2)));
              slotAt += <usize>(i32(dx2 + dy * dy + dz * dz <= r2)) << 2;
            }
            found = <i32>((slotAt - target) >> 2);
          }
          continue;
        }
        for (let t = s; t < end; t++) {
          const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
          const dx2 = dx * dx;
          // The whole run: the rows are at most three cells long.
          const dy = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs) - y;
          const dz = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs) - z;
          if (dx2 + dy * dy + dz * dz <= r2) {
            if (found < capacity) store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
            found++;
          }
        }
      }
    }
    return min(found, n);
  }
  if (!clip && !tiny) {
    for (let cz = lz; cz <= hz; cz++) {
      for (let cy = ly; cy <= hy; cy++) {
        const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
        const gz = Math.max(Math.max(cz * width - rz, rz - (cz + 1) * width), 0);
        const gap = Math.sqrt(gy * gy + gz * gz) - (cy + cz + 2) * margin;
        const floor2 = gap > 0 ? gap * gap * (1 - SLACK) : 0;
        if (floor2 > r2) continue;
        let id = -1;
        for (let cx = lx; cx <= hx && id < 0; cx++) id = findCell3(cx, cy, cz);
        if (id < 0) continue;
        let lastId = id;
        while (lastId + 1 < cells && load<f64>(keys + (<usize>(3 * lastId + 5) << 3)) === cz && load<f64>(keys + (<usize>(3 * lastId + 4) << 3)) === cy && load<f64>(keys + (<usize>(3 * lastId + 3) << 3)) <= hx) lastId++;
        let s = load<i32>(cellStart + (<usize>(id) << 2));
        let end = load<i32>(cellStart + (<usize>(lastId + 1) << 2));
        if (s < 0) s = 0;
        if (end > n) end = n;
        if (end < s) end = s;
        const first = load<f64>(keys + (<usize>(3 * id) << 3));
        const last = load<f64>(keys + (<usize>(3 * lastId) << 3));
        if (end - s > 16 * (last - first + 1)) {
          const half = Math.sqrt(Math.max(r2 - floor2, 0));
          const fraction = (rx - half - first * width) / ((last - first + 1) * width);
          if (fraction > 0) {
            let t = s + <i32>Math.floor(Math.min(fraction, 1) * <f64>(end - s));
            for (; t < end; t++) {
              const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
              if (!(dx < 0 && dx * dx + floor2 > r2)) break;
            }
            for (; t > s; t--) {
              const dx = <f64>load<C>(coords + <usize>(3 * t - 3) * cs) - x;
              if (dx < 0 && dx * dx + floor2 > r2) break;
            }
            s = t;
          }
          if (found + end - s <= capacity) {
            {
              let qAt = coords + <usize>(3 * s) * cs;
              let slotAt = target + (<usize>found << 2);
              for (let t = s; t < end; t++, qAt += 3 * cs) {
                const dx = <f64>load<C>(qAt) - x;
                const dx2 = dx * dx;
                if (dx2 + floor2 > r2 && dx > 0) break;
                const dy = <f64>load<C>(qAt + cs) - y;
                const dz = <f64>load<C>(qAt + 2 * cs) - z;
                // Write every candidate and advance only on a hit (scanRun in the template says why).
                store<u32>(slotAt, load<u32>(sortedIndex + (<usize>t << 2)));
                slotAt += <usize>(i32(dx2 + dy * dy + dz * dz <= r2)) << 2;
              }
              found = <i32>((slotAt - target) >> 2);
            }
            continue;
          }
          for (let t = s; t < end; t++) {
            const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
            const dx2 = dx * dx;
            if (dx2 + floor2 > r2 && dx > 0) break;
            const dy = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs) - y;
            const dz = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs) - z;
            if (dx2 + dy * dy + dz * dz <= r2) {
              if (found < capacity) store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
              found++;
            }
          }
          continue;
        }
        if (found + end - s <= capacity) {
          {
            let qAt = coords + <usize>(3 * s) * cs;
            let slotAt = target + (<usize>found << 2);
            for (let t = s; t < end; t++, qAt += 3 * cs) {
              const dx = <f64>load<C>(qAt) - x;
              const dx2 = dx * dx;
              // The whole run: the rows are at most three cells long.
              const dy = <f64>load<C>(qAt + cs) - y;
              const dz = <f64>load<C>(qAt + 2 * cs) - z;
              // Write every candidate and advance only on a hit (scanRun in the template says why).
              store<u32>(slotAt, load<u32>(sortedIndex + (<usize>t << 2)));
              slotAt += <usize>(i32(dx2 + dy * dy + dz * dz <= r2)) << 2;
            }
            found = <i32>((slotAt - target) >> 2);
          }
          continue;
        }
        for (let t = s; t < end; t++) {
          const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
          const dx2 = dx * dx;
          // The whole run: the rows are at most three cells long.
          const dy = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs) - y;
          const dz = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs) - z;
          if (dx2 + dy * dy + dz * dz <= r2) {
            if (found < capacity) store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
            found++;
          }
        }
      }
    }
    return min(found, n);
  }
  const paddedSquared = padded * padded;
  const spanY = hy - ly + 1;
  const rowTotal = spanY * (hz - lz + 1);
  // The row's cells in y and z, moved on row by row (y fastest), not divided out of r: a division a row cost
  // more than the few points a row holds at small radii.
  let cy: f64 = ly;
  let cz: f64 = lz;
  for (let batch: f64 = 0; batch < rowTotal; batch += <f64>ROW_BATCH) {
    const batchEnd = Math.min(rowTotal, batch + <f64>ROW_BATCH);
    let used = 0;
    for (let r = batch; r < batchEnd; r++, cz = cy === hy ? cz + 1 : cz, cy = cy === hy ? ly : cy + 1) {
      let cx0 = lx;
      let cx1 = hx;
      // Every point of the row is at least `gap` from the query across x (rounding included, see
      // core/margins.ts), so its squared distance is at least `floor2` plus its dx squared: the x-sorted row is
      // cut to the chord by that bound, exactly.
      const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
      const gz = Math.max(Math.max(cz * width - rz, rz - (cz + 1) * width), 0);
      const gap = Math.sqrt(gy * gy + gz * gz) - (cy + cz + 2) * margin;
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
      // The row's points from cx0 to cx1 are one run of sorted positions, in x order: a dense row directly, a
      // hashed one as consecutive row-major ids from its first occupied cell.
      const at = used * ROW_NUMBERS;
      if (dense) {
        store<f64>(<usize>(at) << 3, floor2);
        store<f64>(<usize>(at + 1) << 3, (cy + cz * cellsY) * cellsX + cx0);
        store<f64>(<usize>(at + 2) << 3, cx1 - cx0);
        store<f64>(<usize>(at + 3) << 3, cx0);
      } else {
        let id = -1;
        for (let cx = cx0; cx <= cx1 && id < 0; cx++) id = findCell3(cx, cy, cz);
        if (id < 0) continue;
        store<f64>(<usize>(at) << 3, floor2);
        store<f64>(<usize>(at + 1) << 3, <f64>id);
        store<f64>(<usize>(at + 2) << 3, cx1);
        store<f64>(<usize>(at + 3) << 3, cy);
        store<f64>(<usize>(at + 4) << 3, cz);
      }
      used++;
    }
    for (let k = 0; k < used; k++) {
      const at = k * ROW_NUMBERS;
      const floor2 = load<f64>(<usize>(at) << 3);
      let first: f64;
      let last: f64;
      let s: i32;
      let end: i32;
      if (dense) {
        const cell = <i32>load<f64>(<usize>(at + 1) << 3);
        const span = <i32>load<f64>(<usize>(at + 2) << 3);
        s = load<i32>(cellStart + (<usize>(cell) << 2));
        end = load<i32>(cellStart + (<usize>(cell + span + 1) << 2));
        first = load<f64>(<usize>(at + 3) << 3);
        last = first + <f64>span;
      } else {
        const id = <i32>load<f64>(<usize>(at + 1) << 3);
        const cx1 = load<f64>(<usize>(at + 2) << 3);
        const cy = load<f64>(<usize>(at + 3) << 3);
        const cz = load<f64>(<usize>(at + 4) << 3);
        let lastId = id;
        while (lastId + 1 < cells && load<f64>(keys + (<usize>(3 * lastId + 5) << 3)) === cz && load<f64>(keys + (<usize>(3 * lastId + 4) << 3)) === cy && load<f64>(keys + (<usize>(3 * lastId + 3) << 3)) <= cx1) lastId++;
        s = load<i32>(cellStart + (<usize>(id) << 2));
        end = load<i32>(cellStart + (<usize>(lastId + 1) << 2));
        first = load<f64>(keys + (<usize>(3 * id) << 3));
        last = load<f64>(keys + (<usize>(3 * lastId) << 3));
      }
      if (s < 0) s = 0;
      if (end > n) end = n;
      if (end < s) end = s;
      // The points left of the chord skipped in a crowded run (see @skipToChord).
      if (end - s > 16 * (last - first + 1)) {
        const half = Math.sqrt(Math.max(r2 - floor2, 0));
        const fraction = (rx - half - first * width) / ((last - first + 1) * width);
        if (fraction > 0) {
          let t = s + <i32>Math.floor(Math.min(fraction, 1) * <f64>(end - s));
          for (; t < end; t++) {
            const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
            if (!(dx < 0 && dx * dx + floor2 > r2)) break;
          }
          for (; t > s; t--) {
            const dx = <f64>load<C>(coords + <usize>(3 * t - 3) * cs) - x;
            if (dx < 0 && dx * dx + floor2 > r2) break;
          }
          s = t;
        }
      }
      if (found + end - s <= capacity) {
        {
          let qAt = coords + <usize>(3 * s) * cs;
          let slotAt = target + (<usize>found << 2);
          for (let t = s; t < end; t++, qAt += 3 * cs) {
            const dx = <f64>load<C>(qAt) - x;
            const dx2 = dx * dx;
            if (dx2 + floor2 > r2 && dx > 0) break;
            const dy = <f64>load<C>(qAt + cs) - y;
            const dz = <f64>load<C>(qAt + 2 * cs) - z;
            // Write every candidate and advance only on a hit (scanRun in the template says why).
            store<u32>(slotAt, load<u32>(sortedIndex + (<usize>t << 2)));
            slotAt += <usize>(i32(dx2 + dy * dy + dz * dz <= r2)) << 2;
          }
          found = <i32>((slotAt - target) >> 2);
        }
        continue;
      }
      for (let t = s; t < end; t++) {
        const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
        const dx2 = dx * dx;
        if (dx2 + floor2 > r2 && dx > 0) break;
        const dy = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs) - y;
        const dz = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs) - z;
        if (dx2 + dy * dy + dz * dz <= r2) {
          if (found < capacity) store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
          found++;
        }
      }
    }
  }
  // (More than n only when the buffer holds garbage: see bounded.ts.)
  return min(found, n);
}

// The instances the module exports (see src/wasm/kernels.ts), by the coordinate copy's type.
export function within3d64(x: f64, y: f64, z: f64, radius: f64, target: usize): i32 {
  return within3<f64>(x, y, z, radius, target);
}
export function within3d32(x: f64, y: f64, z: f64, radius: f64, target: usize): i32 {
  return within3<f32>(x, y, z, radius, target);
}

/** withinEveryCell3D of the JavaScript path. */
function withinEveryCell3<C>(
  x: f64, y: f64, z: f64, r2: f64, lx: f64, hx: f64, ly: f64, hy: f64, lz: f64, hz: f64, target: usize,
): i32 {
  const cs = sizeof<C>();
  const n = points;
  const capacity = points;
  let found = 0;
  for (let id = 0; id < cells; id++) {
    const kx = load<f64>(keys + (<usize>(3 * id) << 3));
    const ky = load<f64>(keys + (<usize>(3 * id + 1) << 3));
    const kz = load<f64>(keys + (<usize>(3 * id + 2) << 3));
    if (kx < lx || kx > hx || ky < ly || ky > hy || kz < lz || kz > hz) continue;
    const end = min(load<i32>(cellStart + (<usize>(id + 1) << 2)), n);
    for (let t = max(load<i32>(cellStart + (<usize>(id) << 2)), 0); t < end; t++) {
      const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
      const dy = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs) - y;
      const dz = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs) - z;
      if (dx * dx + dy * dy + dz * dz <= r2) {
        if (found < capacity) store<u32>(target + (<usize>(found) << 2), load<u32>(sortedIndex + (<usize>(t) << 2)));
        found++;
      }
    }
  }
  // (More than n only when the buffer holds garbage: see bounded.ts.)
  return min(found, n);
}

/** countWithin2D of the JavaScript path. */
export function countWithin2<C>(x: f64, y: f64, radius: f64): i32 {
  const cs = sizeof<C>();
  const n = points;
  if (n === 0) return 0;
  const rx = x - originX;
  const ry = y - originY;
  // (See the 3D instance.)
  if (rx - rx !== 0 || ry - ry !== 0) return 0;
  const padded = paddedRadius(radius, Math.max(Math.abs(rx), Math.abs(ry)), width);
  const lz: f64 = 0;
  const hz: f64 = 0;
  const margin = (Math.abs(ry) + width) * SLACK;
  const lx = lowCell(rx, padded, width);
  const hx = highCell(rx, padded, width, <f64>cellsX);
  const ly = lowCell(ry, padded, width);
  const hy = highCell(ry, padded, width, <f64>cellsY);
  if (lx > hx || ly > hy || lz > hz) return 0;
  const r2 = radius * radius;
  // A hashed grid asked for more cells than it holds: test every occupied cell against the box instead.
  if (!dense && (hx - lx + 1) * (hy - ly + 1) > <f64>cells) return countEveryCell2<C>(x, y, r2, lx, hx, ly, hy);
  // Tiny radii would square to subnormals: no clipping and no row bound then.
  const tiny = !(padded > 1e-150);
  // With 3 rows or fewer per axis (radius up to a cell) clipping the cell range saves too little to pay for itself.
  const clip = (hy - ly > 2 || hz - lz > 2) && !tiny;
  let found = 0;
  // At most 3 rows per axis (a radius up to a cell, the usual cellSize): each row's run read and scanned in
  // turn, whole (but see the hashed grid's crowded rows below), with no batch of bounds. At 3 (3D: 9) short rows
  // the batch's stores and loads of each row's numbers, its chord skip and its stop at the chord's end (a
  // mispredicted branch a row) cost more than they save: withinInto a point of 1e5 uniform 2D points at 20
  // neighbours, every point a query, took
  // 22.1-22.6 ms against 24.3 on the kernels and 25.7-26.5 against 28.8-29.2 in JavaScript, a 3D lattice at
  // 14 neighbours 34.9 against 37.6-38.1 and 42.0-42.7 against 50.3-51.5, countWithin in JavaScript 18.1-18.3
  // against 32.8 (its count now without a branch too); at 1e6, where every query waits on memory, within this
  // VM's noise (AMD EPYC, 2026-12-04, two processes per build in turn). Same rows, same runs, so the same points
  // in the same order. Its loop keeps no test but the distance (see scanRow and skipFarRow): a stop at the chord's
  // end with an infinite bound, and in 2D the row's gap, had cost 15% of withinInto in 2D on the kernels, 6% in 3D
  // and 20% of countWithin (commit 17ee494's against the next, bench/compare-builds.mjs both ways round).
  //
  // A hashed grid takes that path too, each row's first occupied cell looked up and its others taken as the ids
  // after it, as a batch does; but a crowded row (more than 16 points a cell, see @crowded) is scanned as a
  // batch scans it, from the chord's left end to its right end. Scanning crowded rows whole lost at scale: on
  // clustered points at 4e5 and 1e6, withinInto took 1.28x and 1.64x as long on the kernels (2.15x in JavaScript,
  // commit 75629c0, reverted by 1aec83f), where the skip and the stop spare most of a row's cold candidates.
  // With crowded rows scanned so, no loss was found and the gain is small: every place of the lon/lat places a
  // query at r = 0.25 deg, the fastest of 19 interleaved runs in one process (three processes, both ways round)
  // took 0.93x to 0.94x the batched path's time for withinInto and 0.85x to 0.90x for countWithin on the kernels
  // (0.91x and 0.85x in JavaScript); the clustered sets at 1e5 and 1e6 points within this VM's noise (AMD EPYC,
  // 2026-12-04, where two identical builds differed by up to 13% in median).
  //
  // The dense and the hashed grid each have a loop of their own: one loop over both, choosing per row, made
  // dense grids' withinInto 13 to 14% slower and withinMany 20 to 21% than the code before it (2e5 uniform 2D
  // points, every point a query, bench/compare-builds.mjs both ways round, AMD EPYC, 2026-12-04), though the
  // choice never changes within a query.
  if (!clip && !tiny && dense) {
    for (let cz = lz; cz <= hz; cz++) {
      for (let cy = ly; cy <= hy; cy++) {
        const cell = <i32>((cy + cz * cellsY) * cellsX + lx);
        let s = load<i32>(cellStart + (<usize>(cell) << 2));
        let end = load<i32>(cellStart + (<usize>(cell + <i32>(hx - lx) + 1) << 2));
        if (s < 0) s = 0;
        if (end > n) end = n;
        if (end < s) end = s;
        for (let t = s; t < end; t++) {
          const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
          const dx2 = dx * dx;
          // The whole run: the rows are at most three cells long.
          const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
          found += i32(dx2 + dy * dy <= r2);
        }
      }
    }
    return min(found, n);
  }
  if (!clip && !tiny) {
    for (let cz = lz; cz <= hz; cz++) {
      for (let cy = ly; cy <= hy; cy++) {
        let id = -1;
        for (let cx = lx; cx <= hx && id < 0; cx++) id = findCell(cx, cy);
        if (id < 0) continue;
        let lastId = id;
        while (lastId + 1 < cells && load<f64>(keys + (<usize>(2 * lastId + 3) << 3)) === cy && load<f64>(keys + (<usize>(2 * lastId + 2) << 3)) <= hx) lastId++;
        let s = load<i32>(cellStart + (<usize>(id) << 2));
        let end = load<i32>(cellStart + (<usize>(lastId + 1) << 2));
        if (s < 0) s = 0;
        if (end > n) end = n;
        if (end < s) end = s;
        const first = load<f64>(keys + (<usize>(2 * id) << 3));
        const last = load<f64>(keys + (<usize>(2 * lastId) << 3));
        if (end - s > 16 * (last - first + 1)) {
          const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
          const gap = gy - (cy + 1) * margin;
          const floor2 = gap > 0 ? gap * gap * (1 - SLACK) : 0;
          const half = Math.sqrt(Math.max(r2 - floor2, 0));
          const fraction = (rx - half - first * width) / ((last - first + 1) * width);
          if (fraction > 0) {
            let t = s + <i32>Math.floor(Math.min(fraction, 1) * <f64>(end - s));
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
          for (let t = s; t < end; t++) {
            const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
            const dx2 = dx * dx;
            if (dx2 + floor2 > r2 && dx > 0) break;
            const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
            found += i32(dx2 + dy * dy <= r2);
          }
          continue;
        }
        for (let t = s; t < end; t++) {
          const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
          const dx2 = dx * dx;
          // The whole run: the rows are at most three cells long.
          const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
          found += i32(dx2 + dy * dy <= r2);
        }
      }
    }
    return min(found, n);
  }
  const paddedSquared = padded * padded;
  const spanY = hy - ly + 1;
  const rowTotal = spanY * (hz - lz + 1);
  // The row's cells in y and z, moved on row by row (y fastest), not divided out of r: a division a row cost
  // more than the few points a row holds at small radii.
  let cy: f64 = ly;
  let cz: f64 = lz;
  for (let batch: f64 = 0; batch < rowTotal; batch += <f64>ROW_BATCH) {
    const batchEnd = Math.min(rowTotal, batch + <f64>ROW_BATCH);
    let used = 0;
    for (let r = batch; r < batchEnd; r++, cz = cy === hy ? cz + 1 : cz, cy = cy === hy ? ly : cy + 1) {
      let cx0 = lx;
      let cx1 = hx;
      // Every point of the row is at least `gap` from the query across x (rounding included, see
      // core/margins.ts), so its squared distance is at least `floor2` plus its dx squared: the x-sorted row is
      // cut to the chord by that bound, exactly.
      const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
      const gap = gy - (cy + 1) * margin;
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
      // The row's points from cx0 to cx1 are one run of sorted positions, in x order: a dense row directly, a
      // hashed one as consecutive row-major ids from its first occupied cell.
      const at = used * ROW_NUMBERS;
      if (dense) {
        store<f64>(<usize>(at) << 3, floor2);
        store<f64>(<usize>(at + 1) << 3, (cy + cz * cellsY) * cellsX + cx0);
        store<f64>(<usize>(at + 2) << 3, cx1 - cx0);
        store<f64>(<usize>(at + 3) << 3, cx0);
      } else {
        let id = -1;
        for (let cx = cx0; cx <= cx1 && id < 0; cx++) id = findCell(cx, cy);
        if (id < 0) continue;
        store<f64>(<usize>(at) << 3, floor2);
        store<f64>(<usize>(at + 1) << 3, <f64>id);
        store<f64>(<usize>(at + 2) << 3, cx1);
        store<f64>(<usize>(at + 3) << 3, cy);
        store<f64>(<usize>(at + 4) << 3, cz);
      }
      used++;
    }
    for (let k = 0; k < used; k++) {
      const at = k * ROW_NUMBERS;
      const floor2 = load<f64>(<usize>(at) << 3);
      let first: f64;
      let last: f64;
      let s: i32;
      let end: i32;
      if (dense) {
        const cell = <i32>load<f64>(<usize>(at + 1) << 3);
        const span = <i32>load<f64>(<usize>(at + 2) << 3);
        s = load<i32>(cellStart + (<usize>(cell) << 2));
        end = load<i32>(cellStart + (<usize>(cell + span + 1) << 2));
        first = load<f64>(<usize>(at + 3) << 3);
        last = first + <f64>span;
      } else {
        const id = <i32>load<f64>(<usize>(at + 1) << 3);
        const cx1 = load<f64>(<usize>(at + 2) << 3);
        const cy = load<f64>(<usize>(at + 3) << 3);
        let lastId = id;
        while (lastId + 1 < cells && load<f64>(keys + (<usize>(2 * lastId + 3) << 3)) === cy && load<f64>(keys + (<usize>(2 * lastId + 2) << 3)) <= cx1) lastId++;
        s = load<i32>(cellStart + (<usize>(id) << 2));
        end = load<i32>(cellStart + (<usize>(lastId + 1) << 2));
        first = load<f64>(keys + (<usize>(2 * id) << 3));
        last = load<f64>(keys + (<usize>(2 * lastId) << 3));
      }
      if (s < 0) s = 0;
      if (end > n) end = n;
      if (end < s) end = s;
      // The points left of the chord skipped in a crowded run (see @skipToChord).
      if (end - s > 16 * (last - first + 1)) {
        const half = Math.sqrt(Math.max(r2 - floor2, 0));
        const fraction = (rx - half - first * width) / ((last - first + 1) * width);
        if (fraction > 0) {
          let t = s + <i32>Math.floor(Math.min(fraction, 1) * <f64>(end - s));
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
      for (let t = s; t < end; t++) {
        const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
        const dx2 = dx * dx;
        if (dx2 + floor2 > r2 && dx > 0) break;
        const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
        found += i32(dx2 + dy * dy <= r2);
      }
    }
  }
  // (More than n only when the buffer holds garbage: see bounded.ts.)
  return min(found, n);
}

export function countWithin2d64(x: f64, y: f64, radius: f64): i32 {
  return countWithin2<f64>(x, y, radius);
}
export function countWithin2d32(x: f64, y: f64, radius: f64): i32 {
  return countWithin2<f32>(x, y, radius);
}

/** countEveryCell2D of the JavaScript path. */
function countEveryCell2<C>(x: f64, y: f64, r2: f64, lx: f64, hx: f64, ly: f64, hy: f64): i32 {
  const cs = sizeof<C>();
  const n = points;
  let found = 0;
  for (let id = 0; id < cells; id++) {
    const kx = load<f64>(keys + (<usize>(2 * id) << 3));
    const ky = load<f64>(keys + (<usize>(2 * id + 1) << 3));
    if (kx < lx || kx > hx || ky < ly || ky > hy) continue;
    const end = min(load<i32>(cellStart + (<usize>(id + 1) << 2)), n);
    for (let t = max(load<i32>(cellStart + (<usize>(id) << 2)), 0); t < end; t++) {
      const dx = <f64>load<C>(coords + <usize>(2 * t) * cs) - x;
      const dy = <f64>load<C>(coords + <usize>(2 * t) * cs + <usize>(1) * cs) - y;
      if (dx * dx + dy * dy <= r2) {
        found++;
      }
    }
  }
  // (More than n only when the buffer holds garbage: see bounded.ts.)
  return min(found, n);
}

/** countWithin3D of the JavaScript path. */
export function countWithin3<C>(x: f64, y: f64, z: f64, radius: f64): i32 {
  const cs = sizeof<C>();
  const n = points;
  if (n === 0) return 0;
  const rx = x - originX;
  const ry = y - originY;
  const rz = z - originZ;
  // More than Number.MAX_VALUE from the origin along an axis, the query is over 2^918 (~1e276) from every
  // point (whose offsets from the origin are finite): beyond every radius whose square is finite.
  if (rx - rx !== 0 || ry - ry !== 0 || rz - rz !== 0) return 0;
  const padded = paddedRadius(radius, Math.max(Math.max(Math.abs(rx), Math.abs(ry)), Math.abs(rz)), width);
  const lz = lowCell(rz, padded, width);
  const hz = highCell(rz, padded, width, <f64>cellsZ);
  // Rows along x: one per (cy, cz); their margin grows with both.
  const margin = (Math.abs(ry) + Math.abs(rz) + width) * SLACK;
  const lx = lowCell(rx, padded, width);
  const hx = highCell(rx, padded, width, <f64>cellsX);
  const ly = lowCell(ry, padded, width);
  const hy = highCell(ry, padded, width, <f64>cellsY);
  if (lx > hx || ly > hy || lz > hz) return 0;
  const r2 = radius * radius;
  // A hashed grid asked for more cells than it holds: test every occupied cell against the box instead.
  if (!dense && (hx - lx + 1) * (hy - ly + 1) * (hz - lz + 1) > <f64>cells) return countEveryCell3<C>(x, y, z, r2, lx, hx, ly, hy, lz, hz);
  // Tiny radii would square to subnormals: no clipping and no row bound then.
  const tiny = !(padded > 1e-150);
  // With 3 rows or fewer per axis (radius up to a cell) clipping the cell range saves too little to pay for itself.
  const clip = (hy - ly > 2 || hz - lz > 2) && !tiny;
  let found = 0;
  // At most 3 rows per axis (a radius up to a cell, the usual cellSize): each row's run read and scanned in
  // turn, whole (but see the hashed grid's crowded rows below), with no batch of bounds. At 3 (3D: 9) short rows
  // the batch's stores and loads of each row's numbers, its chord skip and its stop at the chord's end (a
  // mispredicted branch a row) cost more than they save: withinInto a point of 1e5 uniform 2D points at 20
  // neighbours, every point a query, took
  // 22.1-22.6 ms against 24.3 on the kernels and 25.7-26.5 against 28.8-29.2 in JavaScript, a 3D lattice at
  // 14 neighbours 34.9 against 37.6-38.1 and 42.0-42.7 against 50.3-51.5, countWithin in JavaScript 18.1-18.3
  // against 32.8 (its count now without a branch too); at 1e6, where every query waits on memory, within this
  // VM's noise (AMD EPYC, 2026-12-04, two processes per build in turn). Same rows, same runs, so the same points
  // in the same order. Its loop keeps no test but the distance (see scanRow and skipFarRow): a stop at the chord's
  // end with an infinite bound, and in 2D the row's gap, had cost 15% of withinInto in 2D on the kernels, 6% in 3D
  // and 20% of countWithin (commit 17ee494's against the next, bench/compare-builds.mjs both ways round).
  //
  // A hashed grid takes that path too, each row's first occupied cell looked up and its others taken as the ids
  // after it, as a batch does; but a crowded row (more than 16 points a cell, see @crowded) is scanned as a
  // batch scans it, from the chord's left end to its right end. Scanning crowded rows whole lost at scale: on
  // clustered points at 4e5 and 1e6, withinInto took 1.28x and 1.64x as long on the kernels (2.15x in JavaScript,
  // commit 75629c0, reverted by 1aec83f), where the skip and the stop spare most of a row's cold candidates.
  // With crowded rows scanned so, no loss was found and the gain is small: every place of the lon/lat places a
  // query at r = 0.25 deg, the fastest of 19 interleaved runs in one process (three processes, both ways round)
  // took 0.93x to 0.94x the batched path's time for withinInto and 0.85x to 0.90x for countWithin on the kernels
  // (0.91x and 0.85x in JavaScript); the clustered sets at 1e5 and 1e6 points within this VM's noise (AMD EPYC,
  // 2026-12-04, where two identical builds differed by up to 13% in median).
  //
  // The dense and the hashed grid each have a loop of their own: one loop over both, choosing per row, made
  // dense grids' withinInto 13 to 14% slower and withinMany 20 to 21% than the code before it (2e5 uniform 2D
  // points, every point a query, bench/compare-builds.mjs both ways round, AMD EPYC, 2026-12-04), though the
  // choice never changes within a query.
  if (!clip && !tiny && dense) {
    for (let cz = lz; cz <= hz; cz++) {
      for (let cy = ly; cy <= hy; cy++) {
        const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
        const gz = Math.max(Math.max(cz * width - rz, rz - (cz + 1) * width), 0);
        const gap = Math.sqrt(gy * gy + gz * gz) - (cy + cz + 2) * margin;
        const floor2 = gap > 0 ? gap * gap * (1 - SLACK) : 0;
        if (floor2 > r2) continue;
        const cell = <i32>((cy + cz * cellsY) * cellsX + lx);
        let s = load<i32>(cellStart + (<usize>(cell) << 2));
        let end = load<i32>(cellStart + (<usize>(cell + <i32>(hx - lx) + 1) << 2));
        if (s < 0) s = 0;
        if (end > n) end = n;
        if (end < s) end = s;
        for (let t = s; t < end; t++) {
          const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
          const dx2 = dx * dx;
          // The whole run: the rows are at most three cells long.
          const dy = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs) - y;
          const dz = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs) - z;
          found += i32(dx2 + dy * dy + dz * dz <= r2);
        }
      }
    }
    return min(found, n);
  }
  if (!clip && !tiny) {
    for (let cz = lz; cz <= hz; cz++) {
      for (let cy = ly; cy <= hy; cy++) {
        const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
        const gz = Math.max(Math.max(cz * width - rz, rz - (cz + 1) * width), 0);
        const gap = Math.sqrt(gy * gy + gz * gz) - (cy + cz + 2) * margin;
        const floor2 = gap > 0 ? gap * gap * (1 - SLACK) : 0;
        if (floor2 > r2) continue;
        let id = -1;
        for (let cx = lx; cx <= hx && id < 0; cx++) id = findCell3(cx, cy, cz);
        if (id < 0) continue;
        let lastId = id;
        while (lastId + 1 < cells && load<f64>(keys + (<usize>(3 * lastId + 5) << 3)) === cz && load<f64>(keys + (<usize>(3 * lastId + 4) << 3)) === cy && load<f64>(keys + (<usize>(3 * lastId + 3) << 3)) <= hx) lastId++;
        let s = load<i32>(cellStart + (<usize>(id) << 2));
        let end = load<i32>(cellStart + (<usize>(lastId + 1) << 2));
        if (s < 0) s = 0;
        if (end > n) end = n;
        if (end < s) end = s;
        const first = load<f64>(keys + (<usize>(3 * id) << 3));
        const last = load<f64>(keys + (<usize>(3 * lastId) << 3));
        if (end - s > 16 * (last - first + 1)) {
          const half = Math.sqrt(Math.max(r2 - floor2, 0));
          const fraction = (rx - half - first * width) / ((last - first + 1) * width);
          if (fraction > 0) {
            let t = s + <i32>Math.floor(Math.min(fraction, 1) * <f64>(end - s));
            for (; t < end; t++) {
              const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
              if (!(dx < 0 && dx * dx + floor2 > r2)) break;
            }
            for (; t > s; t--) {
              const dx = <f64>load<C>(coords + <usize>(3 * t - 3) * cs) - x;
              if (dx < 0 && dx * dx + floor2 > r2) break;
            }
            s = t;
          }
          for (let t = s; t < end; t++) {
            const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
            const dx2 = dx * dx;
            if (dx2 + floor2 > r2 && dx > 0) break;
            const dy = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs) - y;
            const dz = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs) - z;
            found += i32(dx2 + dy * dy + dz * dz <= r2);
          }
          continue;
        }
        for (let t = s; t < end; t++) {
          const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
          const dx2 = dx * dx;
          // The whole run: the rows are at most three cells long.
          const dy = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs) - y;
          const dz = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs) - z;
          found += i32(dx2 + dy * dy + dz * dz <= r2);
        }
      }
    }
    return min(found, n);
  }
  const paddedSquared = padded * padded;
  const spanY = hy - ly + 1;
  const rowTotal = spanY * (hz - lz + 1);
  // The row's cells in y and z, moved on row by row (y fastest), not divided out of r: a division a row cost
  // more than the few points a row holds at small radii.
  let cy: f64 = ly;
  let cz: f64 = lz;
  for (let batch: f64 = 0; batch < rowTotal; batch += <f64>ROW_BATCH) {
    const batchEnd = Math.min(rowTotal, batch + <f64>ROW_BATCH);
    let used = 0;
    for (let r = batch; r < batchEnd; r++, cz = cy === hy ? cz + 1 : cz, cy = cy === hy ? ly : cy + 1) {
      let cx0 = lx;
      let cx1 = hx;
      // Every point of the row is at least `gap` from the query across x (rounding included, see
      // core/margins.ts), so its squared distance is at least `floor2` plus its dx squared: the x-sorted row is
      // cut to the chord by that bound, exactly.
      const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
      const gz = Math.max(Math.max(cz * width - rz, rz - (cz + 1) * width), 0);
      const gap = Math.sqrt(gy * gy + gz * gz) - (cy + cz + 2) * margin;
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
      // The row's points from cx0 to cx1 are one run of sorted positions, in x order: a dense row directly, a
      // hashed one as consecutive row-major ids from its first occupied cell.
      const at = used * ROW_NUMBERS;
      if (dense) {
        store<f64>(<usize>(at) << 3, floor2);
        store<f64>(<usize>(at + 1) << 3, (cy + cz * cellsY) * cellsX + cx0);
        store<f64>(<usize>(at + 2) << 3, cx1 - cx0);
        store<f64>(<usize>(at + 3) << 3, cx0);
      } else {
        let id = -1;
        for (let cx = cx0; cx <= cx1 && id < 0; cx++) id = findCell3(cx, cy, cz);
        if (id < 0) continue;
        store<f64>(<usize>(at) << 3, floor2);
        store<f64>(<usize>(at + 1) << 3, <f64>id);
        store<f64>(<usize>(at + 2) << 3, cx1);
        store<f64>(<usize>(at + 3) << 3, cy);
        store<f64>(<usize>(at + 4) << 3, cz);
      }
      used++;
    }
    for (let k = 0; k < used; k++) {
      const at = k * ROW_NUMBERS;
      const floor2 = load<f64>(<usize>(at) << 3);
      let first: f64;
      let last: f64;
      let s: i32;
      let end: i32;
      if (dense) {
        const cell = <i32>load<f64>(<usize>(at + 1) << 3);
        const span = <i32>load<f64>(<usize>(at + 2) << 3);
        s = load<i32>(cellStart + (<usize>(cell) << 2));
        end = load<i32>(cellStart + (<usize>(cell + span + 1) << 2));
        first = load<f64>(<usize>(at + 3) << 3);
        last = first + <f64>span;
      } else {
        const id = <i32>load<f64>(<usize>(at + 1) << 3);
        const cx1 = load<f64>(<usize>(at + 2) << 3);
        const cy = load<f64>(<usize>(at + 3) << 3);
        const cz = load<f64>(<usize>(at + 4) << 3);
        let lastId = id;
        while (lastId + 1 < cells && load<f64>(keys + (<usize>(3 * lastId + 5) << 3)) === cz && load<f64>(keys + (<usize>(3 * lastId + 4) << 3)) === cy && load<f64>(keys + (<usize>(3 * lastId + 3) << 3)) <= cx1) lastId++;
        s = load<i32>(cellStart + (<usize>(id) << 2));
        end = load<i32>(cellStart + (<usize>(lastId + 1) << 2));
        first = load<f64>(keys + (<usize>(3 * id) << 3));
        last = load<f64>(keys + (<usize>(3 * lastId) << 3));
      }
      if (s < 0) s = 0;
      if (end > n) end = n;
      if (end < s) end = s;
      // The points left of the chord skipped in a crowded run (see @skipToChord).
      if (end - s > 16 * (last - first + 1)) {
        const half = Math.sqrt(Math.max(r2 - floor2, 0));
        const fraction = (rx - half - first * width) / ((last - first + 1) * width);
        if (fraction > 0) {
          let t = s + <i32>Math.floor(Math.min(fraction, 1) * <f64>(end - s));
          for (; t < end; t++) {
            const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
            if (!(dx < 0 && dx * dx + floor2 > r2)) break;
          }
          for (; t > s; t--) {
            const dx = <f64>load<C>(coords + <usize>(3 * t - 3) * cs) - x;
            if (dx < 0 && dx * dx + floor2 > r2) break;
          }
          s = t;
        }
      }
      for (let t = s; t < end; t++) {
        const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
        const dx2 = dx * dx;
        if (dx2 + floor2 > r2 && dx > 0) break;
        const dy = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs) - y;
        const dz = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs) - z;
        found += i32(dx2 + dy * dy + dz * dz <= r2);
      }
    }
  }
  // (More than n only when the buffer holds garbage: see bounded.ts.)
  return min(found, n);
}

export function countWithin3d64(x: f64, y: f64, z: f64, radius: f64): i32 {
  return countWithin3<f64>(x, y, z, radius);
}
export function countWithin3d32(x: f64, y: f64, z: f64, radius: f64): i32 {
  return countWithin3<f32>(x, y, z, radius);
}

/** countEveryCell3D of the JavaScript path. */
function countEveryCell3<C>(x: f64, y: f64, z: f64, r2: f64, lx: f64, hx: f64, ly: f64, hy: f64, lz: f64, hz: f64): i32 {
  const cs = sizeof<C>();
  const n = points;
  let found = 0;
  for (let id = 0; id < cells; id++) {
    const kx = load<f64>(keys + (<usize>(3 * id) << 3));
    const ky = load<f64>(keys + (<usize>(3 * id + 1) << 3));
    const kz = load<f64>(keys + (<usize>(3 * id + 2) << 3));
    if (kx < lx || kx > hx || ky < ly || ky > hy || kz < lz || kz > hz) continue;
    const end = min(load<i32>(cellStart + (<usize>(id + 1) << 2)), n);
    for (let t = max(load<i32>(cellStart + (<usize>(id) << 2)), 0); t < end; t++) {
      const dx = <f64>load<C>(coords + <usize>(3 * t) * cs) - x;
      const dy = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(1) * cs) - y;
      const dz = <f64>load<C>(coords + <usize>(3 * t) * cs + <usize>(2) * cs) - z;
      if (dx * dx + dy * dy + dz * dz <= r2) {
        found++;
      }
    }
  }
  // (More than n only when the buffer holds garbage: see bounded.ts.)
  return min(found, n);
}
