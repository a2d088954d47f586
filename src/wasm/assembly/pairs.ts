// The half-stencil pair search of src/pointgrid/pairs2d.ts and pairs3d.ts,
// candidate for candidate: the same cells, ranges, windows and distance
// tests in the same order, so the pairs come out in exactly the order the
// JavaScript search finds them. It writes into an output region and stops
// before a point whose worst case would not fit, so the caller can hand a
// batch to a visitor, or grow the region, and resume (see searchPairs).

import { cells, coords, dense, denseX, denseY, denseZ, key, originY, originZ, points, start, width } from './grid';
import * as R from '../records';

/** Relative rounding margin of core/margins.ts (SLACK). */
const SLACK: f64 = 1.0 / 281474976710656.0; // 2^-48

// The search, set by startSearch. The reach as a float too: a hashed grid
// searched with scanAll may span more than 2^31 cells.
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

// Where the search stands: cell, point, and that cell's gathered ranges.
let cell: i32 = 0;
let point: i32 = 0;
let cellEnd: i32 = 0;
let runEnd: i32 = 0;
let rangeCount: i32 = 0;
/** Output length so far (u32 entries). */
export let length: i32 = 0;
/** Entries the next point may need at worst, when searchPairs stopped for room. */
export let needed: i32 = 0;

// @ts-ignore: decorator
@inline function searchField(at: i32): f64 {
  return load<f64>(<usize>(R.SEARCH_RECORD + 8 * at));
}

/**
 * Starts the search the search record describes (src/wasm/records.ts): cells
 * cellFrom..cellTo-1 of the grid setGrid read, with the scratch regions the
 * caller sized (see src/wasm/pair-kernels.ts).
 */
export function startSearch(): void {
  reachF = searchField(R.SEARCH_REACH);
  // Only dense grids (fewer than 2^31 cells) and hashed ones without scanAll
  // (a stencil smaller than the cell count) loop over the reach.
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

// @ts-ignore: decorator
@inline function pushRange(a: i32, b: i32): void {
  store<i32>(ranges + (<usize>rangeCount << 2), a);
  store<i32>(ranges + (<usize>rangeCount << 2), b, 4);
  rangeCount += 2;
}

/** rangeEdge of pairs2d.ts, at edges[rangeCount]. */
// @ts-ignore: decorator
@inline function edge2(ry: f64, cy: f64): void {
  const e = edges + (<usize>rangeCount << 3);
  // (The same row's edge is unused: 0, never a product that could overflow and times 0 give NaN.)
  store<f64>(e, ry > cy ? ry * width : ry < cy ? (ry + 1) * width : 0);
  store<f64>(e, ry > cy ? 1.0 : ry < cy ? -1.0 : 0.0, 8);
}

/** rangeEdges of pairs3d.ts, at edges[2 * rangeCount]. */
// @ts-ignore: decorator
@inline function edge3(ry: f64, cy: f64, rz: f64, cz: f64): void {
  const e = edges + (<usize>rangeCount << 4);
  // (An axis's edge on the same row or layer is unused: 0, as in pairs3d.ts.)
  store<f64>(e, ry > cy ? ry * width : ry < cy ? (ry + 1) * width : 0);
  store<f64>(e, ry > cy ? 1.0 : ry < cy ? -1.0 : 0.0, 8);
  store<f64>(e, rz > cz ? rz * width : rz < cz ? (rz + 1) * width : 0, 16);
  store<f64>(e, rz > cz ? 1.0 : rz < cz ? -1.0 : 0.0, 24);
}

/** Gathers cell c's run end and ranges (densePairs / hashedPairs of pairs2d.ts). */
function gather2(c: i32): void {
  rangeCount = 0;
  if (dense) {
    const cy = c / denseX;
    const row = cy * denseX;
    const cx = c - row;
    const rowsAbove = min(reach, denseY - 1 - cy);
    const left = cx > reach ? cx - reach : 0;
    const right = min(cx + reach, denseX - 1) + 1;
    runEnd = start(row + right);
    for (let dy = 1, above = row + denseX; dy <= rowsAbove; dy++, above += denseX) {
      const a = start(above + left);
      const b = start(above + right);
      if (a < b) {
        edge2(<f64>(cy + dy), <f64>cy);
        pushRange(a, b);
      }
    }
    return;
  }
  const kx = key(2 * c);
  const ky = key(2 * c + 1);
  const r = reachF;
  if (scanAll) {
    runEnd = start(c + 1);
    for (let other = c + 1; other < cells; other++) {
      if (Math.abs(key(2 * other) - kx) <= r && Math.abs(key(2 * other + 1) - ky) <= r) {
        edge2(key(2 * other + 1), ky);
        pushRange(start(other), start(other + 1));
      }
    }
    return;
  }
  let next = c + 1;
  while (next < cells && key(2 * next + 1) == ky && key(2 * next) <= kx + r) next++;
  runEnd = start(next);
  const left = kx - r;
  for (let dy = 1; dy <= reach; dy++) {
    const y = ky + <f64>dy;
    const cursor = cursors + (<usize>(dy - 1) << 2);
    let first = load<i32>(cursor);
    while (first < cells && (key(2 * first + 1) < y || (key(2 * first + 1) == y && key(2 * first) < left))) first++;
    store<i32>(cursor, first);
    if (first == cells || key(2 * first + 1) != y || key(2 * first) > kx + r) continue;
    let last = first + 1;
    while (last < cells && key(2 * last + 1) == y && key(2 * last) <= kx + r) last++;
    edge2(y, ky);
    pushRange(start(first), start(last));
  }
}

/** Gathers cell c's run end and ranges (densePairs / hashedPairs of pairs3d.ts). */
function gather3(c: i32): void {
  rangeCount = 0;
  if (dense) {
    const layer = denseX * denseY;
    const r = c / denseX;
    const cz = r / denseY;
    const cy = r - cz * denseY;
    const row = r * denseX;
    const cx = c - row;
    const layersAbove = min(reach, denseZ - 1 - cz);
    const rowsAbove = min(reach, denseY - 1 - cy);
    const yLow = max(cy - reach, 0);
    const yHigh = min(cy + reach, denseY - 1);
    const left = cx > reach ? cx - reach : 0;
    const right = min(cx + reach, denseX - 1) + 1;
    runEnd = start(row + right);
    for (let dy = 1, other = row + denseX; dy <= rowsAbove; dy++, other += denseX) {
      const a = start(other + left);
      const b = start(other + right);
      if (a < b) {
        edge3(<f64>(cy + dy), <f64>cy, 0, 0);
        pushRange(a, b);
      }
    }
    for (let dz = 1; dz <= layersAbove; dz++) {
      const base = (cz + dz) * layer;
      for (let oy = yLow; oy <= yHigh; oy++) {
        const other = base + oy * denseX;
        const a = start(other + left);
        const b = start(other + right);
        if (a < b) {
          edge3(<f64>oy, <f64>cy, <f64>(cz + dz), <f64>cz);
          pushRange(a, b);
        }
      }
    }
    return;
  }
  const kx = key(3 * c);
  const ky = key(3 * c + 1);
  const kz = key(3 * c + 2);
  const r = reachF;
  if (scanAll) {
    runEnd = start(c + 1);
    for (let other = c + 1; other < cells; other++) {
      if (
        Math.abs(key(3 * other) - kx) <= r &&
        Math.abs(key(3 * other + 1) - ky) <= r &&
        Math.abs(key(3 * other + 2) - kz) <= r
      ) {
        edge3(key(3 * other + 1), ky, key(3 * other + 2), kz);
        pushRange(start(other), start(other + 1));
      }
    }
    return;
  }
  let next = c + 1;
  while (next < cells && key(3 * next + 2) == kz && key(3 * next + 1) == ky && key(3 * next) <= kx + r) next++;
  runEnd = start(next);
  const left = kx - r;
  let row = 0;
  for (let dz = 0; dz <= reach; dz++) {
    const z = kz + <f64>dz;
    for (let dy = dz == 0 ? 1 : -reach; dy <= reach; dy++, row++) {
      const y = ky + <f64>dy;
      const cursor = cursors + (<usize>row << 2);
      let first = load<i32>(cursor);
      while (first < cells) {
        const fz = key(3 * first + 2);
        const fy = key(3 * first + 1);
        if (fz > z || (fz == z && (fy > y || (fy == y && key(3 * first) >= left)))) break;
        first++;
      }
      store<i32>(cursor, first);
      if (first == cells || key(3 * first + 2) != z || key(3 * first + 1) != y || key(3 * first) > kx + r) continue;
      let last = first + 1;
      while (last < cells && key(3 * last + 2) == z && key(3 * last + 1) == y && key(3 * last) <= kx + r) last++;
      edge3(y, ky, z, kz);
      pushRange(start(first), start(last));
    }
  }
}

/**
 * Clamps the runs of the cell just gathered inside the points, none running
 * backwards (pairsFromCell and clampRanges of the JavaScript search, see
 * core/bounded.ts): whatever a grid's cell starts hold, a point's candidates
 * (what it may write) stay bounded and every read inside the coordinates.
 * Returns the cell's first point, clamped; cellEnd is clamped too.
 */
function clampRuns(first: i32): i32 {
  const n = points;
  if (first < 0) first = 0;
  if (cellEnd > n) cellEnd = n;
  if (runEnd > n) runEnd = n;
  if (runEnd < cellEnd) runEnd = cellEnd;
  for (let k = 0; k < rangeCount; k += 2) {
    const rk = ranges + (<usize>k << 2);
    let a = load<i32>(rk);
    let b = load<i32>(rk, 4);
    if (b > n) b = n;
    if (a < 0) a = 0;
    if (a > b) a = b;
    store<i32>(rk, a);
    store<i32>(rk, b, 4);
  }
  return first;
}

/**
 * Runs the search on until it is done (returns 0) or the next point's worst
 * case does not fit the output (returns 1, with `needed` set): the caller
 * then empties or grows the output (setOutput) and calls again.
 */
export function searchPairs2<C>(): i32 {
  const cs = sizeof<C>();
  for (; cell < cellTo; cell++) {
    if (rangeCount < 0) {
      const s0 = start(cell);
      cellEnd = start(cell + 1);
      if (s0 == cellEnd) continue;
      gather2(cell);
      point = clampRuns(s0);
    }
    for (; point < cellEnd; point++) {
      const s = point;
      let most = runEnd - s - 1;
      for (let k = 0; k < rangeCount; k += 2) most += load<i32>(ranges + (<usize>k << 2), 4) - load<i32>(ranges + (<usize>k << 2));
      if (length + step * most > outCapacity) {
        needed = step * most;
        return 1;
      }
      let at = out + (<usize>length << 2);
      const last = <usize>(step - 1) << 2;
      const sp = coords + <usize>(2 * s) * cs;
      const px = <f64>load<C>(sp);
      const py = <f64>load<C>(sp + cs);
      let q = sp + 2 * cs;
      let t = s + 1;
      let open = true;
      if (sizeof<C>() == 8) {
        // Two candidates a step: their x and y in one vector each, the same
        // operations as the scalar loop lane by lane, so the same pairs.
        const pxv = f64x2.splat(px);
        const pyv = f64x2.splat(py);
        const r2v = f64x2.splat(r2);
        for (; t + 1 < runEnd; t += 2, q += 32) {
          const a = v128.load(q);
          const b = v128.load(q, 16);
          const dx = f64x2.sub(v128.shuffle<f64>(a, b, 0, 2), pxv);
          const dy = f64x2.sub(v128.shuffle<f64>(a, b, 1, 3), pyv);
          const dx2 = f64x2.mul(dx, dx);
          const hit = f64x2.le(f64x2.add(dx2, f64x2.mul(dy, dy)), r2v);
          store<u32>(at, s);
          store<u32>(at + last, t);
          at += <usize>(step & <i32>i64x2.extract_lane(hit, 0)) << 2;
          store<u32>(at, s);
          store<u32>(at + last, t + 1);
          at += <usize>(step & <i32>i64x2.extract_lane(hit, 1)) << 2;
          // Past the radius in x: no later candidate is a hit (nor was a past one written as one).
          if (v128.any_true(f64x2.gt(dx2, r2v))) {
            open = false;
            break;
          }
        }
      }
      for (; open && t < runEnd; t++, q += 2 * cs) {
        const dx = <f64>load<C>(q) - px;
        const dx2 = dx * dx;
        if (dx2 > r2) break;
        const dy = <f64>load<C>(q + cs) - py;
        store<u32>(at, s);
        store<u32>(at + last, t);
        at += <usize>(step * i32(dx2 + dy * dy <= r2)) << 2;
      }
      const relY = py - originY;
      for (let k = 0; k < rangeCount; k += 2) {
        const rk = ranges + (<usize>k << 2);
        const stop = load<i32>(rk, 4);
        let t = load<i32>(rk);
        q = coords + <usize>(2 * t) * cs;
        while (t < stop) {
          const dx = <f64>load<C>(q) - px;
          if (dx >= 0 || dx * dx <= r2) break;
          t++;
          q += 2 * cs;
        }
        store<i32>(rk, t);
        const ek = edges + (<usize>k << 3);
        const edge = load<f64>(ek);
        // (A NaN from overflowing edges of huge cells counts as no gap, as in pairs2d.ts.)
        const below = load<f64>(ek, 8) * (edge - relY) - (Math.abs(edge) + Math.abs(relY) + width) * SLACK;
        const gap = below > 0 ? below : 0;
        const window2 = r2 - gap * gap + r2 * SLACK;
        while (t < stop) {
          const dx = <f64>load<C>(q) - px;
          if (dx >= 0 || dx * dx <= window2) break;
          t++;
          q += 2 * cs;
        }
        let inside = true;
        if (sizeof<C>() == 8) {
          const pxv = f64x2.splat(px);
          const pyv = f64x2.splat(py);
          const r2v = f64x2.splat(r2);
          const windowv = f64x2.splat(window2);
          for (; t + 1 < stop; t += 2, q += 32) {
            const a = v128.load(q);
            const b = v128.load(q, 16);
            const dx = f64x2.sub(v128.shuffle<f64>(a, b, 0, 2), pxv);
            const dy = f64x2.sub(v128.shuffle<f64>(a, b, 1, 3), pyv);
            const dx2 = f64x2.mul(dx, dx);
            // A candidate past the window is no hit (the window holds every pair the test accepts).
            const hit = f64x2.le(f64x2.add(dx2, f64x2.mul(dy, dy)), r2v);
            store<u32>(at, s);
            store<u32>(at + last, t);
            at += <usize>(step & <i32>i64x2.extract_lane(hit, 0)) << 2;
            store<u32>(at, s);
            store<u32>(at + last, t + 1);
            at += <usize>(step & <i32>i64x2.extract_lane(hit, 1)) << 2;
            if (v128.any_true(f64x2.gt(dx2, windowv))) {
              inside = false;
              break;
            }
          }
        }
        for (; inside && t < stop; t++, q += 2 * cs) {
          const dx = <f64>load<C>(q) - px;
          const dx2 = dx * dx;
          if (dx2 > window2) break;
          const dy = <f64>load<C>(q + cs) - py;
          store<u32>(at, s);
          store<u32>(at + last, t);
          at += <usize>(step * i32(dx2 + dy * dy <= r2)) << 2;
        }
      }
      length = <i32>((at - out) >> 2);
      if (step == 1) store<u32>(rowEnd + (<usize>s << 2), length);
    }
    rangeCount = -1;
  }
  return 0;
}

/** {@link searchPairs2} in 3D. */
export function searchPairs3<C>(): i32 {
  const cs = sizeof<C>();
  for (; cell < cellTo; cell++) {
    if (rangeCount < 0) {
      const s0 = start(cell);
      cellEnd = start(cell + 1);
      if (s0 == cellEnd) continue;
      gather3(cell);
      point = clampRuns(s0);
    }
    for (; point < cellEnd; point++) {
      const s = point;
      let most = runEnd - s - 1;
      for (let k = 0; k < rangeCount; k += 2) most += load<i32>(ranges + (<usize>k << 2), 4) - load<i32>(ranges + (<usize>k << 2));
      if (length + step * most > outCapacity) {
        needed = step * most;
        return 1;
      }
      let at = out + (<usize>length << 2);
      const last = <usize>(step - 1) << 2;
      const sp = coords + <usize>(3 * s) * cs;
      const px = <f64>load<C>(sp);
      const py = <f64>load<C>(sp + cs);
      const pz = <f64>load<C>(sp + 2 * cs);
      let q = sp + 3 * cs;
      for (let t = s + 1; t < runEnd; t++, q += 3 * cs) {
        const dx = <f64>load<C>(q) - px;
        const dx2 = dx * dx;
        if (dx2 > r2) break;
        const dy = <f64>load<C>(q + cs) - py;
        const dz = <f64>load<C>(q + 2 * cs) - pz;
        store<u32>(at, s);
        store<u32>(at + last, t);
        at += <usize>(step * i32(dx2 + dy * dy + dz * dz <= r2)) << 2;
      }
      const relY = py - originY;
      const relZ = pz - originZ;
      for (let k = 0; k < rangeCount; k += 2) {
        const rk = ranges + (<usize>k << 2);
        const stop = load<i32>(rk, 4);
        let t = load<i32>(rk);
        q = coords + <usize>(3 * t) * cs;
        while (t < stop) {
          const dx = <f64>load<C>(q) - px;
          if (dx >= 0 || dx * dx <= r2) break;
          t++;
          q += 3 * cs;
        }
        store<i32>(rk, t);
        const ek = edges + (<usize>k << 4);
        const edgeY = load<f64>(ek);
        const edgeZ = load<f64>(ek, 16);
        const belowY = load<f64>(ek, 8) * (edgeY - relY) - (Math.abs(edgeY) + Math.abs(relY) + width) * SLACK;
        const belowZ = load<f64>(ek, 24) * (edgeZ - relZ) - (Math.abs(edgeZ) + Math.abs(relZ) + width) * SLACK;
        const gapY = belowY > 0 ? belowY : 0;
        const gapZ = belowZ > 0 ? belowZ : 0;
        const window2 = r2 - gapY * gapY - gapZ * gapZ + r2 * SLACK;
        while (t < stop) {
          const dx = <f64>load<C>(q) - px;
          if (dx >= 0 || dx * dx <= window2) break;
          t++;
          q += 3 * cs;
        }
        for (; t < stop; t++, q += 3 * cs) {
          const dx = <f64>load<C>(q) - px;
          const dx2 = dx * dx;
          if (dx2 > window2) break;
          const dy = <f64>load<C>(q + cs) - py;
          const dz = <f64>load<C>(q + 2 * cs) - pz;
          store<u32>(at, s);
          store<u32>(at + last, t);
          at += <usize>(step * i32(dx2 + dy * dy + dz * dz <= r2)) << 2;
        }
      }
      length = <i32>((at - out) >> 2);
      if (step == 1) store<u32>(rowEnd + (<usize>s << 2), length);
    }
    rangeCount = -1;
  }
  return 0;
}
