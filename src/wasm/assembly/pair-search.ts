// Generated from src/templates/pairs.template.ts by scripts/expand-templates.mjs (npm run build): edit the template, not this file.
// The half-stencil pair search of a PointGrid: every pair of points within the radius once (i < j by sorted
// position), written once for 2D and 3D and for both paths (scripts/expand-templates.mjs explains the
// directives). Both paths run it as the same resumable loop: it writes pairs into an output region and stops
// before a point whose worst case would not fit, so that its driver can hand a batch to a visitor, or grow the
// output, and call it again (src/pointgrid/pair-driver.ts on the JavaScript path, src/wasm/pair-kernels.ts on
// the kernels). So the two find the same pairs in the same order, candidate for candidate.
//
// Per cell (in cell order): gather the cell's half stencil (the rest of its row to the right within reach is
// one run of sorted positions after the cell's own points; each row above, and in 3D each row of the layers
// above, between cx - reach and cx + reach is one more range, with the y (and z) edge nearest the cell). Per
// point of the cell: test the later points of the run, then each range, every scan cut to the x window that
// the range's gap leaves (cells are sorted by x, so a scan stops at the first point too far right). Every
// candidate in the window is written and the length advances only on a hit: no branch to mispredict. The
// kernels test two candidates at once where the coordinates are float64 in 2D (f64x2): the same tests lane by
// lane, so the same pairs.

// The half-stencil pair search on the WebAssembly kernels, from the same template as the JavaScript path's
// (src/pointgrid/pair-search.ts). The grid is the one setGrid read (grid.ts); the search's own state is here
// (the PairSearch object of the JavaScript path), set by startSearch (from the search record, src/wasm/records.ts)
// and setOutput. The template's cellsX, cellsY and cellsZ are a dense grid's cells as i32 here (grid.ts's denseX,
// denseY, denseZ), for the stencil's integer arithmetic; the JavaScript path's are the grid's numbers.

import * as R from '../records';
import {
  cellStart,
  cells,
  coords,
  dense,
  denseX as cellsX,
  denseY as cellsY,
  denseZ as cellsZ,
  keys,
  originY,
  originZ,
  points as pointCount,
  width,
} from './grid';
import { SLACK } from './margins';

// The search, set by startSearch. The reach as a float too: a hashed grid searched with scanAll may span more
// than 2^31 cells.
let reach: i32 = 0;
let reachF: f64 = 0;
let r2: f64 = 0;
let scanAll: bool = false;
let cellTo: i32 = 0;
/** Scratch: ranges (2 i32 per range), edges (2 f64 per range in 2D, 4 in 3D), cursors (i32 per stencil row). */
let ranges: usize = 0;
let edges: usize = 0;
let cursors: usize = 0;
/** Output: `step` u32 per pair (2: s and t; 1: t only, with rowEnd[s] marking each point's run). */
let out: usize = 0;
let outCapacity: i32 = 0;
let step: i32 = 2;
let rowEnd: usize = 0;
// Where the search stands: cell, point, that cell's end and run end, and its gathered ranges (-1: not yet).
let cell: i32 = 0;
let point: i32 = 0;
let cellEnd: i32 = 0;
let runEnd: i32 = 0;
let rangeCount: i32 = -1;
/** Output length so far (u32 entries). */
export let length: i32 = 0;
/** Entries the next point may need at worst, when the search stopped for room. */
export let needed: i32 = 0;

// @ts-ignore: decorator
@inline function searchField(at: i32): f64 {
  return load<f64>(<usize>(R.SEARCH_RECORD + 8 * at));
}

/**
 * Starts the search the search record describes (src/wasm/records.ts): cells cellFrom..cellTo-1 of the grid
 * setGrid read, with the scratch regions the caller sized (startSearch in src/wasm/pair-kernels.ts).
 */
export function startSearch(): void {
  reachF = searchField(R.SEARCH_REACH);
  // Only dense grids (fewer than 2^31 cells) and hashed ones without scanAll (a stencil smaller than the cell
  // count) loop over the reach.
  reach = <i32>min(reachF, 1073741824.0);
  r2 = searchField(R.SEARCH_RADIUS2);
  scanAll = searchField(R.SEARCH_SCAN_ALL) != 0;
  const cellFrom = <i32>searchField(R.SEARCH_CELL_FROM);
  cellTo = <i32>searchField(R.SEARCH_CELL_TO);
  ranges = <usize>searchField(R.SEARCH_RANGES);
  edges = <usize>searchField(R.SEARCH_EDGES);
  cursors = <usize>searchField(R.SEARCH_CURSORS);
  const cursorRows = <i32>searchField(R.SEARCH_CURSOR_ROWS);
  for (let k = 0; k < cursorRows; k++) store<i32>(cursors + (<usize>k << 2), cellFrom + 1);
  out = <usize>searchField(R.SEARCH_OUT);
  outCapacity = <i32>searchField(R.SEARCH_CAPACITY);
  step = <i32>searchField(R.SEARCH_STEP);
  rowEnd = <usize>searchField(R.SEARCH_ROW_END);
  cell = cellFrom;
  point = 0;
  cellEnd = 0;
  rangeCount = -1;
  length = 0;
  needed = 0;
}

/** Moves the output region (after the caller grew or emptied it). */
export function setOutput(outAt: usize, capacity: i32, used: i32): void {
  out = outAt;
  outCapacity = capacity;
  length = used;
}

/** gather2 of the JavaScript path: cell c's half stencil into ranges and edges, its run end into runEnd. */
function gather2(c: i32): i32 {
  let count = 0;
  if (dense) {
    const cy = (c) / (cellsX);
    const row = cy * cellsX;
    const cx = c - row;
    const rowsAbove = min(reach, cellsY - 1 - cy);
    const left = cx > reach ? cx - reach : 0;
    const right = min(cx + reach, cellsX - 1) + 1;
    runEnd = load<i32>(cellStart + (<usize>(row + right) << 2));
    for (let dy = 1, above = row + cellsX; dy <= rowsAbove; dy++, above += cellsX) {
      const a = load<i32>(cellStart + (<usize>(above + left) << 2));
      const b = load<i32>(cellStart + (<usize>(above + right) << 2));
      if (a < b) {
        store<f64>(edges + (<usize>(count) << 3), (<f64>(<f64><f64><f64>cy + dy)) > (<f64>cy) ? (<f64>(<f64><f64><f64>cy + dy)) * width : (<f64>(<f64><f64><f64>cy + dy)) < (<f64>cy) ? ((<f64>(<f64><f64><f64>cy + dy)) + 1) * width : 0);
        store<f64>(edges + (<usize>(count + 1) << 3), (<f64>(<f64><f64><f64>cy + dy)) > (<f64>cy) ? 1.0 : (<f64>(<f64><f64><f64>cy + dy)) < (<f64>cy) ? -1.0 : 0.0);
        store<i32>(ranges + (<usize>(count) << 2), a);
        store<i32>(ranges + (<usize>(count + 1) << 2), b);
        count += 2;
      }
    }
    return count;
  }
  const kx = load<f64>(keys + (<usize>(2 * c) << 3));
  const ky = load<f64>(keys + (<usize>(2 * c + 1) << 3));
  const reachOf = reachF;
  if (scanAll) {
    runEnd = load<i32>(cellStart + (<usize>(c + 1) << 2));
    for (let other = c + 1; other < cells; other++) {
      if (
        Math.abs(load<f64>(keys + (<usize>(2 * other) << 3)) - kx) <= reachOf &&
        Math.abs(load<f64>(keys + (<usize>(2 * other + 1) << 3)) - ky) <= reachOf
      ) {
        store<f64>(edges + (<usize>(count) << 3), (load<f64>(keys + (<usize>(2 * other + 1) << 3))) > (ky) ? (load<f64>(keys + (<usize>(2 * other + 1) << 3))) * width : (load<f64>(keys + (<usize>(2 * other + 1) << 3))) < (ky) ? ((load<f64>(keys + (<usize>(2 * other + 1) << 3))) + 1) * width : 0);
        store<f64>(edges + (<usize>(count + 1) << 3), (load<f64>(keys + (<usize>(2 * other + 1) << 3))) > (ky) ? 1.0 : (load<f64>(keys + (<usize>(2 * other + 1) << 3))) < (ky) ? -1.0 : 0.0);
        store<i32>(ranges + (<usize>(count) << 2), load<i32>(cellStart + (<usize>(other) << 2)));
        store<i32>(ranges + (<usize>(count + 1) << 2), load<i32>(cellStart + (<usize>(other + 1) << 2)));
        count += 2;
      }
    }
    return count;
  }
  // The rest of the cell's row within reach: the cells right after it in row-major order.
  let next = c + 1;
  while (next < cells && load<f64>(keys + (<usize>(2 * next + 1) << 3)) === ky && load<f64>(keys + (<usize>(2 * next) << 3)) <= kx + reachOf) next++;
  runEnd = load<i32>(cellStart + (<usize>(next) << 2));
  const left = kx - reachOf;
  // A cursor per stencil row (the rows above in the cell's layer, then every row of the layers above, in 3D):
  // the first cell at or after (left, y, z) in row-major order only moves forward as the cells are visited.
  let row = 0;
  for (let dz = 0; dz <= 0; dz++) {
    
    for (let dy = dz === 0 ? 1 : -reach; dy <= reach; dy++, row++) {
      const y = ky + <f64>dy;
      let first = load<i32>(cursors + (<usize>(row) << 2));
      while (first < cells) {
        const fy = load<f64>(keys + (<usize>(2 * first + 1) << 3));
        if (fy > y || (fy === y && load<f64>(keys + (<usize>(2 * first) << 3)) >= left)) break;
        first++;
      }
      store<i32>(cursors + (<usize>(row) << 2), first);
      if (first === cells || load<f64>(keys + (<usize>(2 * first + 1) << 3)) !== y || load<f64>(keys + (<usize>(2 * first) << 3)) > kx + reachOf) continue;
      let last = first + 1;
      while (last < cells && load<f64>(keys + (<usize>(2 * last + 1) << 3)) === y && load<f64>(keys + (<usize>(2 * last) << 3)) <= kx + reachOf) last++;
      store<f64>(edges + (<usize>(count) << 3), (y) > (ky) ? (y) * width : (y) < (ky) ? ((y) + 1) * width : 0);
      store<f64>(edges + (<usize>(count + 1) << 3), (y) > (ky) ? 1.0 : (y) < (ky) ? -1.0 : 0.0);
      store<i32>(ranges + (<usize>(count) << 2), load<i32>(cellStart + (<usize>(first) << 2)));
      store<i32>(ranges + (<usize>(count + 1) << 2), load<i32>(cellStart + (<usize>(last) << 2)));
      count += 2;
    }
  }
  return count;
}

/** searchPairs2D of the JavaScript path. */
export function searchPairs2<C>(): i32 {
  const cs = sizeof<C>();
  // The coordinates' and the output's addresses in locals, not read as module globals at each access of the
  // loops below (pairs and neighbors 3 to 6% faster, bench/compare-builds.mjs).
  const coordsAt = coords;
  const outAt = out;
  const capacity = outCapacity;
  // The second sorted position of a pair goes step - 1 after the first: in ROWS mode it overwrites it.
  const last = step - 1;
  // (Locals named apart from the state: in the kernels the state is module globals of those names.)
  let c = cell;
  let p = point;
  let end = cellEnd;
  let run = runEnd;
  let count = rangeCount;
  let used = length;
  for (; c < cellTo; c++) {
    if (count < 0) {
      let first = load<i32>(cellStart + (<usize>(c) << 2));
      end = load<i32>(cellStart + (<usize>(c + 1) << 2));
      if (first === end) continue;
      count = gather2(c);
      run = runEnd;
      // Runs read from cell starts stay inside the points and never run backwards, whatever a buffer from
      // elsewhere holds (see core/bounded.ts), so that a point's candidates, what it may write, stay bounded.
      if (first < 0) first = 0;
      if (end > pointCount) end = pointCount;
      if (run > pointCount) run = pointCount;
      if (run < end) run = end;
      for (let k = 0; k < count; k += 2) {
        let a = load<i32>(ranges + (<usize>(k) << 2));
        let b = load<i32>(ranges + (<usize>(k + 1) << 2));
        if (b > pointCount) b = pointCount;
        if (a < 0) a = 0;
        if (a > b) a = b;
        store<i32>(ranges + (<usize>(k) << 2), a);
        store<i32>(ranges + (<usize>(k + 1) << 2), b);
      }
      p = first;
    }
    for (; p < end; p++) {
      const s = p;
      let most = run - s - 1;
      for (let k = 0; k < count; k += 2) most += load<i32>(ranges + (<usize>(k + 1) << 2)) - load<i32>(ranges + (<usize>(k) << 2));
      if (used + step * most > capacity) {
        cell = c;
        point = p;
        cellEnd = end;
        runEnd = run;
        rangeCount = count;
        length = used;
        needed = step * most;
        return 1;
      }
      const px = <f64>load<C>(coordsAt + <usize>(2 * s) * cs);
      const py = <f64>load<C>(coordsAt + <usize>(2 * s + 1) * cs);
      let t = s + 1;
      let open = true;
      // Two candidates a step, as the scalar loop below tests them (fastScan in the template says why).
      if (sizeof<C>() === 8) {
        const pxv = f64x2.splat(px);
        const pyv = f64x2.splat(py);
        const r2v = f64x2.splat(r2);
        const boundv = f64x2.splat(r2);
        let q = coordsAt + <usize>(2 * t) * cs;
        let at = out + (<usize>used << 2);
        const lastAt = <usize>last << 2;
        for (; t + 1 < run; t += 2, q += 32) {
          const a = v128.load(q);
          const b = v128.load(q, 16);
          const dx = f64x2.sub(v128.shuffle<f64>(a, b, 0, 2), pxv);
          const dy = f64x2.sub(v128.shuffle<f64>(a, b, 1, 3), pyv);
          const dx2 = f64x2.mul(dx, dx);
          const hit = f64x2.le(f64x2.add(dx2, f64x2.mul(dy, dy)), r2v);
          store<u32>(at, s);
          store<u32>(at + lastAt, t);
          at += <usize>(step & <i32>i64x2.extract_lane(hit, 0)) << 2;
          store<u32>(at, s);
          store<u32>(at + lastAt, t + 1);
          at += <usize>(step & <i32>i64x2.extract_lane(hit, 1)) << 2;
          if (v128.any_true(f64x2.gt(dx2, boundv))) {
            open = false;
            break;
          }
        }
        used = <i32>((at - out) >> 2);
      }
      for (; open && t < run; t++) {
        const dx = <f64>load<C>(coordsAt + <usize>(2 * t) * cs) - px;
        const dx2 = dx * dx;
        if (dx2 > r2) break;
        const dy = <f64>load<C>(coordsAt + <usize>(2 * (t) + 1) * cs) - py;
        store<u32>(outAt + (<usize>(used) << 2), s);
        store<u32>(outAt + (<usize>(used + last) << 2), t);
        used += step * i32(dx2 + dy * dy <= r2);
      }
      const relY = py - originY;
      for (let k = 0; k < count; k += 2) {
        const stop = load<i32>(ranges + (<usize>(k + 1) << 2));
        let t = load<i32>(ranges + (<usize>(k) << 2));
        while (t < stop) {
          const dx = <f64>load<C>(coordsAt + <usize>(2 * t) * cs) - px;
          if (dx >= 0 || dx * dx <= r2) break;
          t++;
        }
        store<i32>(ranges + (<usize>(k) << 2), t);
        // The x window of this range: no point of it is nearer in y (and z) than its gap, lowered by a margin
        // for the rounding of cell borders and of relY (relZ); widened by one for the distance test's own
        // rounding, so it holds every pair the test accepts. (A NaN from overflowing edges of huge cells counts
        // as no gap, never as a window of NaN.)
        const edge = load<f64>(edges + (<usize>(k) << 3));
        const below = load<f64>(edges + (<usize>(k + 1) << 3)) * (edge - relY) - (Math.abs(edge) + Math.abs(relY) + width) * SLACK;
        const gap = below > 0 ? below : 0;
        const window2 = r2 - gap * gap + r2 * SLACK;
        // (The range's start moved on by the radius alone: the window changes from point to point.)
        while (t < stop) {
          const dx = <f64>load<C>(coordsAt + <usize>(2 * t) * cs) - px;
          if (dx >= 0 || dx * dx <= window2) break;
          t++;
        }
        let inside = true;
        // Two candidates a step, as the scalar loop below tests them (fastScan in the template says why).
        if (sizeof<C>() === 8) {
          const pxv = f64x2.splat(px);
          const pyv = f64x2.splat(py);
          const r2v = f64x2.splat(r2);
          const boundv = f64x2.splat(window2);
          let q = coordsAt + <usize>(2 * t) * cs;
          let at = out + (<usize>used << 2);
          const lastAt = <usize>last << 2;
          for (; t + 1 < stop; t += 2, q += 32) {
            const a = v128.load(q);
            const b = v128.load(q, 16);
            const dx = f64x2.sub(v128.shuffle<f64>(a, b, 0, 2), pxv);
            const dy = f64x2.sub(v128.shuffle<f64>(a, b, 1, 3), pyv);
            const dx2 = f64x2.mul(dx, dx);
            const hit = f64x2.le(f64x2.add(dx2, f64x2.mul(dy, dy)), r2v);
            store<u32>(at, s);
            store<u32>(at + lastAt, t);
            at += <usize>(step & <i32>i64x2.extract_lane(hit, 0)) << 2;
            store<u32>(at, s);
            store<u32>(at + lastAt, t + 1);
            at += <usize>(step & <i32>i64x2.extract_lane(hit, 1)) << 2;
            if (v128.any_true(f64x2.gt(dx2, boundv))) {
              inside = false;
              break;
            }
          }
          used = <i32>((at - out) >> 2);
        }
        for (; inside && t < stop; t++) {
          const dx = <f64>load<C>(coordsAt + <usize>(2 * t) * cs) - px;
          const dx2 = dx * dx;
          if (dx2 > window2) break;
          const dy = <f64>load<C>(coordsAt + <usize>(2 * (t) + 1) * cs) - py;
          store<u32>(outAt + (<usize>(used) << 2), s);
          store<u32>(outAt + (<usize>(used + last) << 2), t);
          used += step * i32(dx2 + dy * dy <= r2);
        }
      }
      if (step === 1) store<u32>(rowEnd + (<usize>(s) << 2), used);
    }
    count = -1;
  }
  cell = c;
  point = p;
  rangeCount = count;
  length = used;
  return 0;
}

// The instances the module exports (see src/wasm/kernels.ts), by the coordinate copy's type.
export function searchPairs2d64(): i32 {
  return searchPairs2<f64>();
}
export function searchPairs2d32(): i32 {
  return searchPairs2<f32>();
}

/** gather3 of the JavaScript path: cell c's half stencil into ranges and edges, its run end into runEnd. */
function gather3(c: i32): i32 {
  let count = 0;
  if (dense) {
    const layer = cellsX * cellsY;
    const r = (c) / (cellsX);
    const cz = (r) / (cellsY);
    const cy = r - cz * cellsY;
    const row = r * cellsX;
    const layersAbove = min(reach, cellsZ - 1 - cz);
    const yLow = max(cy - reach, 0);
    const yHigh = min(cy + reach, cellsY - 1);
    const cx = c - row;
    const rowsAbove = min(reach, cellsY - 1 - cy);
    const left = cx > reach ? cx - reach : 0;
    const right = min(cx + reach, cellsX - 1) + 1;
    runEnd = load<i32>(cellStart + (<usize>(row + right) << 2));
    for (let dy = 1, above = row + cellsX; dy <= rowsAbove; dy++, above += cellsX) {
      const a = load<i32>(cellStart + (<usize>(above + left) << 2));
      const b = load<i32>(cellStart + (<usize>(above + right) << 2));
      if (a < b) {
        store<f64>(edges + (<usize>(2 * (count)) << 3), (<f64>(<f64><f64>cy + dy)) > (<f64>cy) ? (<f64>(<f64><f64>cy + dy)) * width : (<f64>(<f64><f64>cy + dy)) < (<f64>cy) ? ((<f64>(<f64><f64>cy + dy)) + 1) * width : 0);
        store<f64>(edges + (<usize>(2 * (count) + 1) << 3), (<f64>(<f64><f64>cy + dy)) > (<f64>cy) ? 1.0 : (<f64>(<f64><f64>cy + dy)) < (<f64>cy) ? -1.0 : 0.0);
        store<f64>(edges + (<usize>(2 * (count) + 2) << 3), 0);
        store<f64>(edges + (<usize>(2 * (count) + 3) << 3), 0);
        store<i32>(ranges + (<usize>(count) << 2), a);
        store<i32>(ranges + (<usize>(count + 1) << 2), b);
        count += 2;
      }
    }
    for (let dz = 1; dz <= layersAbove; dz++) {
      const base = (cz + dz) * layer;
      for (let oy = yLow; oy <= yHigh; oy++) {
        const other = base + oy * cellsX;
        const a = load<i32>(cellStart + (<usize>(other + left) << 2));
        const b = load<i32>(cellStart + (<usize>(other + right) << 2));
        if (a < b) {
          store<f64>(edges + (<usize>(2 * (count)) << 3), (<f64>oy) > (<f64>cy) ? (<f64>oy) * width : (<f64>oy) < (<f64>cy) ? ((<f64>oy) + 1) * width : 0);
          store<f64>(edges + (<usize>(2 * (count) + 1) << 3), (<f64>oy) > (<f64>cy) ? 1.0 : (<f64>oy) < (<f64>cy) ? -1.0 : 0.0);
          store<f64>(edges + (<usize>(2 * (count) + 2) << 3), (<f64>(<f64>cz + dz)) > (<f64>cz) ? (<f64>(<f64>cz + dz)) * width : (<f64>(<f64>cz + dz)) < (<f64>cz) ? ((<f64>(<f64>cz + dz)) + 1) * width : 0);
          store<f64>(edges + (<usize>(2 * (count) + 3) << 3), (<f64>(<f64>cz + dz)) > (<f64>cz) ? 1.0 : (<f64>(<f64>cz + dz)) < (<f64>cz) ? -1.0 : 0.0);
          store<i32>(ranges + (<usize>(count) << 2), a);
          store<i32>(ranges + (<usize>(count + 1) << 2), b);
          count += 2;
        }
      }
    }
    return count;
  }
  const kx = load<f64>(keys + (<usize>(3 * c) << 3));
  const ky = load<f64>(keys + (<usize>(3 * c + 1) << 3));
  const kz = load<f64>(keys + (<usize>(3 * c + 2) << 3));
  const reachOf = reachF;
  if (scanAll) {
    runEnd = load<i32>(cellStart + (<usize>(c + 1) << 2));
    for (let other = c + 1; other < cells; other++) {
      if (
        Math.abs(load<f64>(keys + (<usize>(3 * other) << 3)) - kx) <= reachOf &&
        Math.abs(load<f64>(keys + (<usize>(3 * other + 2) << 3)) - kz) <= reachOf &&
        Math.abs(load<f64>(keys + (<usize>(3 * other + 1) << 3)) - ky) <= reachOf
      ) {
        store<f64>(edges + (<usize>(2 * (count)) << 3), (load<f64>(keys + (<usize>(3 * other + 1) << 3))) > (ky) ? (load<f64>(keys + (<usize>(3 * other + 1) << 3))) * width : (load<f64>(keys + (<usize>(3 * other + 1) << 3))) < (ky) ? ((load<f64>(keys + (<usize>(3 * other + 1) << 3))) + 1) * width : 0);
        store<f64>(edges + (<usize>(2 * (count) + 1) << 3), (load<f64>(keys + (<usize>(3 * other + 1) << 3))) > (ky) ? 1.0 : (load<f64>(keys + (<usize>(3 * other + 1) << 3))) < (ky) ? -1.0 : 0.0);
        store<f64>(edges + (<usize>(2 * (count) + 2) << 3), (load<f64>(keys + (<usize>(3 * other + 2) << 3))) > (kz) ? (load<f64>(keys + (<usize>(3 * other + 2) << 3))) * width : (load<f64>(keys + (<usize>(3 * other + 2) << 3))) < (kz) ? ((load<f64>(keys + (<usize>(3 * other + 2) << 3))) + 1) * width : 0);
        store<f64>(edges + (<usize>(2 * (count) + 3) << 3), (load<f64>(keys + (<usize>(3 * other + 2) << 3))) > (kz) ? 1.0 : (load<f64>(keys + (<usize>(3 * other + 2) << 3))) < (kz) ? -1.0 : 0.0);
        store<i32>(ranges + (<usize>(count) << 2), load<i32>(cellStart + (<usize>(other) << 2)));
        store<i32>(ranges + (<usize>(count + 1) << 2), load<i32>(cellStart + (<usize>(other + 1) << 2)));
        count += 2;
      }
    }
    return count;
  }
  // The rest of the cell's row within reach: the cells right after it in row-major order.
  let next = c + 1;
  while (next < cells && load<f64>(keys + (<usize>(3 * next + 2) << 3)) === kz && load<f64>(keys + (<usize>(3 * next + 1) << 3)) === ky && load<f64>(keys + (<usize>(3 * next) << 3)) <= kx + reachOf) next++;
  runEnd = load<i32>(cellStart + (<usize>(next) << 2));
  const left = kx - reachOf;
  // A cursor per stencil row (the rows above in the cell's layer, then every row of the layers above, in 3D):
  // the first cell at or after (left, y, z) in row-major order only moves forward as the cells are visited.
  let row = 0;
  for (let dz = 0; dz <= reach; dz++) {
    const z = kz + <f64>dz
    for (let dy = dz === 0 ? 1 : -reach; dy <= reach; dy++, row++) {
      const y = ky + <f64>dy;
      let first = load<i32>(cursors + (<usize>(row) << 2));
      while (first < cells) {
        const fz = load<f64>(keys + (<usize>(3 * first + 2) << 3));
        const fy = load<f64>(keys + (<usize>(3 * first + 1) << 3));
        if (fz > z || (fz === z && (fy > y || (fy === y && load<f64>(keys + (<usize>(3 * first) << 3)) >= left)))) break;
        first++;
      }
      store<i32>(cursors + (<usize>(row) << 2), first);
      if (first === cells || load<f64>(keys + (<usize>(3 * first + 2) << 3)) !== z || load<f64>(keys + (<usize>(3 * first + 1) << 3)) !== y || load<f64>(keys + (<usize>(3 * first) << 3)) > kx + reachOf) continue;
      let last = first + 1;
      while (last < cells && load<f64>(keys + (<usize>(3 * last + 2) << 3)) === z && load<f64>(keys + (<usize>(3 * last + 1) << 3)) === y && load<f64>(keys + (<usize>(3 * last) << 3)) <= kx + reachOf) last++;
      store<f64>(edges + (<usize>(2 * (count)) << 3), (y) > (ky) ? (y) * width : (y) < (ky) ? ((y) + 1) * width : 0);
      store<f64>(edges + (<usize>(2 * (count) + 1) << 3), (y) > (ky) ? 1.0 : (y) < (ky) ? -1.0 : 0.0);
      store<f64>(edges + (<usize>(2 * (count) + 2) << 3), (z) > (kz) ? (z) * width : (z) < (kz) ? ((z) + 1) * width : 0);
      store<f64>(edges + (<usize>(2 * (count) + 3) << 3), (z) > (kz) ? 1.0 : (z) < (kz) ? -1.0 : 0.0);
      store<i32>(ranges + (<usize>(count) << 2), load<i32>(cellStart + (<usize>(first) << 2)));
      store<i32>(ranges + (<usize>(count + 1) << 2), load<i32>(cellStart + (<usize>(last) << 2)));
      count += 2;
    }
  }
  return count;
}

/** searchPairs3D of the JavaScript path. */
export function searchPairs3<C>(): i32 {
  const cs = sizeof<C>();
  // The coordinates' and the output's addresses in locals, not read as module globals at each access of the
  // loops below (pairs and neighbors 3 to 6% faster, bench/compare-builds.mjs).
  const coordsAt = coords;
  const outAt = out;
  const capacity = outCapacity;
  // The second sorted position of a pair goes step - 1 after the first: in ROWS mode it overwrites it.
  const last = step - 1;
  // (Locals named apart from the state: in the kernels the state is module globals of those names.)
  let c = cell;
  let p = point;
  let end = cellEnd;
  let run = runEnd;
  let count = rangeCount;
  let used = length;
  for (; c < cellTo; c++) {
    if (count < 0) {
      let first = load<i32>(cellStart + (<usize>(c) << 2));
      end = load<i32>(cellStart + (<usize>(c + 1) << 2));
      if (first === end) continue;
      count = gather3(c);
      run = runEnd;
      // Runs read from cell starts stay inside the points and never run backwards, whatever a buffer from
      // elsewhere holds (see core/bounded.ts), so that a point's candidates, what it may write, stay bounded.
      if (first < 0) first = 0;
      if (end > pointCount) end = pointCount;
      if (run > pointCount) run = pointCount;
      if (run < end) run = end;
      for (let k = 0; k < count; k += 2) {
        let a = load<i32>(ranges + (<usize>(k) << 2));
        let b = load<i32>(ranges + (<usize>(k + 1) << 2));
        if (b > pointCount) b = pointCount;
        if (a < 0) a = 0;
        if (a > b) a = b;
        store<i32>(ranges + (<usize>(k) << 2), a);
        store<i32>(ranges + (<usize>(k + 1) << 2), b);
      }
      p = first;
    }
    for (; p < end; p++) {
      const s = p;
      let most = run - s - 1;
      for (let k = 0; k < count; k += 2) most += load<i32>(ranges + (<usize>(k + 1) << 2)) - load<i32>(ranges + (<usize>(k) << 2));
      if (used + step * most > capacity) {
        cell = c;
        point = p;
        cellEnd = end;
        runEnd = run;
        rangeCount = count;
        length = used;
        needed = step * most;
        return 1;
      }
      const px = <f64>load<C>(coordsAt + <usize>(3 * s) * cs);
      const py = <f64>load<C>(coordsAt + <usize>(3 * s + 1) * cs);
      const pz = <f64>load<C>(coordsAt + <usize>(3 * s + 2) * cs);
      let t = s + 1;
      let open = true;
      // Two candidates a step where the coordinates are float64, then one a step by pointers, as the scalar loop below
      // tests them (fastScan in the template says why).
      {
        let q = coordsAt + <usize>(3 * t) * cs;
        let at = outAt + (<usize>used << 2);
        const lastAt = <usize>last << 2;
        if (sizeof<C>() === 8) {
          const pxv = f64x2.splat(px);
          const pyv = f64x2.splat(py);
          const pzv = f64x2.splat(pz);
          const r2v = f64x2.splat(r2);
          const boundv = f64x2.splat(r2);
          for (; t + 1 < run; t += 2, q += 48) {
            const a = v128.load(q);
            const b = v128.load(q, 16);
            const c = v128.load(q, 32);
            const dx = f64x2.sub(v128.shuffle<f64>(a, b, 0, 3), pxv);
            const dy = f64x2.sub(v128.shuffle<f64>(a, c, 1, 2), pyv);
            const dz = f64x2.sub(v128.shuffle<f64>(b, c, 0, 3), pzv);
            const dx2 = f64x2.mul(dx, dx);
            const hit = f64x2.le(f64x2.add(f64x2.add(dx2, f64x2.mul(dy, dy)), f64x2.mul(dz, dz)), r2v);
            store<u32>(at, s);
            store<u32>(at + lastAt, t);
            at += <usize>(step & <i32>i64x2.extract_lane(hit, 0)) << 2;
            store<u32>(at, s);
            store<u32>(at + lastAt, t + 1);
            at += <usize>(step & <i32>i64x2.extract_lane(hit, 1)) << 2;
            if (v128.any_true(f64x2.gt(dx2, boundv))) {
              open = false;
              break;
            }
          }
        }
        for (; open && t < run; t++, q += 3 * cs) {
          const dx = <f64>load<C>(q) - px;
          const dx2 = dx * dx;
          if (dx2 > r2) break;
          const dy = <f64>load<C>(q + cs) - py;
          const dz = <f64>load<C>(q + 2 * cs) - pz;
          store<u32>(at, s);
          store<u32>(at + lastAt, t);
          at += <usize>(step * i32(dx2 + dy * dy + dz * dz <= r2)) << 2;
        }
        used = <i32>((at - outAt) >> 2);
        open = false;
      }
      for (; open && t < run; t++) {
        const dx = <f64>load<C>(coordsAt + <usize>(3 * t) * cs) - px;
        const dx2 = dx * dx;
        if (dx2 > r2) break;
        const dy = <f64>load<C>(coordsAt + <usize>(3 * (t) + 1) * cs) - py;
        const dz = <f64>load<C>(coordsAt + <usize>(3 * (t) + 2) * cs) - pz;
        store<u32>(outAt + (<usize>(used) << 2), s);
        store<u32>(outAt + (<usize>(used + last) << 2), t);
        used += step * i32(dx2 + dy * dy + dz * dz <= r2);
      }
      const relY = py - originY;
      const relZ = pz - originZ;
      for (let k = 0; k < count; k += 2) {
        const stop = load<i32>(ranges + (<usize>(k + 1) << 2));
        let t = load<i32>(ranges + (<usize>(k) << 2));
        while (t < stop) {
          const dx = <f64>load<C>(coordsAt + <usize>(3 * t) * cs) - px;
          if (dx >= 0 || dx * dx <= r2) break;
          t++;
        }
        store<i32>(ranges + (<usize>(k) << 2), t);
        // The x window of this range: no point of it is nearer in y (and z) than its gap, lowered by a margin
        // for the rounding of cell borders and of relY (relZ); widened by one for the distance test's own
        // rounding, so it holds every pair the test accepts. (A NaN from overflowing edges of huge cells counts
        // as no gap, never as a window of NaN.)
        const edgeY = load<f64>(edges + (<usize>(2 * k) << 3));
        const edgeZ = load<f64>(edges + (<usize>(2 * k + 2) << 3));
        const belowY = load<f64>(edges + (<usize>(2 * k + 1) << 3)) * (edgeY - relY) - (Math.abs(edgeY) + Math.abs(relY) + width) * SLACK;
        const belowZ = load<f64>(edges + (<usize>(2 * k + 3) << 3)) * (edgeZ - relZ) - (Math.abs(edgeZ) + Math.abs(relZ) + width) * SLACK;
        const gapY = belowY > 0 ? belowY : 0;
        const gapZ = belowZ > 0 ? belowZ : 0;
        const window2 = r2 - gapY * gapY - gapZ * gapZ + r2 * SLACK;
        // (The range's start moved on by the radius alone: the window changes from point to point.)
        while (t < stop) {
          const dx = <f64>load<C>(coordsAt + <usize>(3 * t) * cs) - px;
          if (dx >= 0 || dx * dx <= window2) break;
          t++;
        }
        let inside = true;
        // Two candidates a step where the coordinates are float64, then one a step by pointers, as the scalar loop below
        // tests them (fastScan in the template says why).
        {
          let q = coordsAt + <usize>(3 * t) * cs;
          let at = outAt + (<usize>used << 2);
          const lastAt = <usize>last << 2;
          if (sizeof<C>() === 8) {
            const pxv = f64x2.splat(px);
            const pyv = f64x2.splat(py);
            const pzv = f64x2.splat(pz);
            const r2v = f64x2.splat(r2);
            const boundv = f64x2.splat(window2);
            for (; t + 1 < stop; t += 2, q += 48) {
              const a = v128.load(q);
              const b = v128.load(q, 16);
              const c = v128.load(q, 32);
              const dx = f64x2.sub(v128.shuffle<f64>(a, b, 0, 3), pxv);
              const dy = f64x2.sub(v128.shuffle<f64>(a, c, 1, 2), pyv);
              const dz = f64x2.sub(v128.shuffle<f64>(b, c, 0, 3), pzv);
              const dx2 = f64x2.mul(dx, dx);
              const hit = f64x2.le(f64x2.add(f64x2.add(dx2, f64x2.mul(dy, dy)), f64x2.mul(dz, dz)), r2v);
              store<u32>(at, s);
              store<u32>(at + lastAt, t);
              at += <usize>(step & <i32>i64x2.extract_lane(hit, 0)) << 2;
              store<u32>(at, s);
              store<u32>(at + lastAt, t + 1);
              at += <usize>(step & <i32>i64x2.extract_lane(hit, 1)) << 2;
              if (v128.any_true(f64x2.gt(dx2, boundv))) {
                inside = false;
                break;
              }
            }
          }
          for (; inside && t < stop; t++, q += 3 * cs) {
            const dx = <f64>load<C>(q) - px;
            const dx2 = dx * dx;
            if (dx2 > window2) break;
            const dy = <f64>load<C>(q + cs) - py;
            const dz = <f64>load<C>(q + 2 * cs) - pz;
            store<u32>(at, s);
            store<u32>(at + lastAt, t);
            at += <usize>(step * i32(dx2 + dy * dy + dz * dz <= r2)) << 2;
          }
          used = <i32>((at - outAt) >> 2);
          inside = false;
        }
        for (; inside && t < stop; t++) {
          const dx = <f64>load<C>(coordsAt + <usize>(3 * t) * cs) - px;
          const dx2 = dx * dx;
          if (dx2 > window2) break;
          const dy = <f64>load<C>(coordsAt + <usize>(3 * (t) + 1) * cs) - py;
          const dz = <f64>load<C>(coordsAt + <usize>(3 * (t) + 2) * cs) - pz;
          store<u32>(outAt + (<usize>(used) << 2), s);
          store<u32>(outAt + (<usize>(used + last) << 2), t);
          used += step * i32(dx2 + dy * dy + dz * dz <= r2);
        }
      }
      if (step === 1) store<u32>(rowEnd + (<usize>(s) << 2), used);
    }
    count = -1;
  }
  cell = c;
  point = p;
  rangeCount = count;
  length = used;
  return 0;
}

// The instances the module exports (see src/wasm/kernels.ts), by the coordinate copy's type.
export function searchPairs3d64(): i32 {
  return searchPairs3<f64>();
}
export function searchPairs3d32(): i32 {
  return searchPairs3<f32>();
}
