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

//#output js src/pointgrid/pair-search.ts
//#output as src/wasm/assembly/pair-search.ts

// The search's state: a PairSearch object's fields here, module globals in the kernels (below).
//#macro js st(name) = st.name
//#macro as st(name) = name
//#macro js setSt(name, v) = st.name = v
//#macro as setSt(name, v) = name = v
//#macro js coord(i) = coords[i]
//#macro as coord(i) = <f64>load<C>(coordsAt + <usize>(i) * cs)
//#macro js start(c) = cellStart[c]
//#macro as start(c) = load<i32>(cellStart + (<usize>(c) << 2))
//#macro js key(i) = keys[i]
//#macro as key(i) = load<f64>(keys + (<usize>(i) << 3))
//#macro js range(k) = ranges[k]
//#macro as range(k) = load<i32>(ranges + (<usize>(k) << 2))
//#macro js setRange(k, v) = ranges[k] = v
//#macro as setRange(k, v) = store<i32>(ranges + (<usize>(k) << 2), v)
//#macro js edge(k) = edges[k]
//#macro as edge(k) = load<f64>(edges + (<usize>(k) << 3))
//#macro js setEdge(k, v) = edges[k] = v
//#macro as setEdge(k, v) = store<f64>(edges + (<usize>(k) << 3), v)
//#macro js cursor(k) = cursors[k]
//#macro as cursor(k) = load<i32>(cursors + (<usize>(k) << 2))
//#macro js setCursor(k, v) = cursors[k] = v
//#macro as setCursor(k, v) = store<i32>(cursors + (<usize>(k) << 2), v)
//#macro js put(k, v) = out[k] = v
//#macro as put(k, v) = store<u32>(outAt + (<usize>(k) << 2), v)
//#macro js setRowEnd(s, v) = rowEnd[s] = v
//#macro as setRowEnd(s, v) = store<u32>(rowEnd + (<usize>(s) << 2), v)
// used advances by step on a hit, by 0 on a miss (| 0 spares V8 an overflow check: it stays below 2^31).
//#macro js advance(hit) = used = (used + step * +(hit)) | 0
//#macro as advance(hit) = used += step * i32(hit)
//#macro js idiv(a, b) = Math.floor((a) / (b))
//#macro as idiv(a, b) = (a) / (b)
//#macro js min(a, b) = Math.min(a, b)
//#macro as min(a, b) = min(a, b)
//#macro js max(a, b) = Math.max(a, b)
//#macro as max(a, b) = max(a, b)
// A cell's gather: the JavaScript path passes the grid and the search's state, the kernels have them as globals.
//#macro js gather(c) = gather${D}(g, st, c)
//#macro as gather(c) = gather${D}(c)
// A range's edges: where it lies in y (and z) against the searched cell, and on which side (1 above, -1 below,
// 0 same row; the same row's edge is 0, never a product that could overflow and times 0 give NaN). 2D's take
// the z arguments and leave them out: a 2D search has no z, nor names for one.
//#macro all edgeAt(ry, cy) = (ry) > (cy) ? (ry) * width : (ry) < (cy) ? ((ry) + 1) * width : 0
//#macro all sideOf(ry, cy) = (ry) > (cy) ? 1.0 : (ry) < (cy) ? -1.0 : 0.0
//#macro all2 edges(k, ry, cy, rz, cz) = @setEdge(k, @edgeAt(ry, cy)); @setEdge(k + 1, @sideOf(ry, cy))
//#macro all3 edges(k, ry, cy, rz, cz) = @setEdge(2 * (k), @edgeAt(ry, cy)); @setEdge(2 * (k) + 1, @sideOf(ry, cy)); @setEdge(2 * (k) + 2, @edgeAt(rz, cz)); @setEdge(2 * (k) + 3, @sideOf(rz, cz))
// A range in the cell's own layer (3D): no z gap.
//#macro all2 rowEdges(k, ry, cy) = @edges(k, ry, cy, 0, 0)
//#macro all3 rowEdges(k, ry, cy) = @setEdge(2 * (k), @edgeAt(ry, cy)); @setEdge(2 * (k) + 1, @sideOf(ry, cy)); @setEdge(2 * (k) + 2, 0); @setEdge(2 * (k) + 3, 0)
// A scan's flag that only the kernels' own scan (fastScan) clears.
//#macro js flag() = const
//#macro as flag() = let
// The kernels' own scan of a run, before the scalar loop that the JavaScript path runs alone; a candidate past
// `bound` in x (the radius, or a range's window, which holds every pair the test accepts) is no hit, and neither
// is a later one: the scan then clears `flag`, and the scalar loop does nothing.
// - 2D over float64 coordinates: two candidates a step, their x and y in one vector each, the same operations as
//   the scalar loop lane by lane, so the same pairs (two float32 lanes would not be).
// - 3D: over float64 coordinates two candidates a step as in 2D (x, y and z gathered from three vectors of two
//   doubles, the sums in the scalar loop's order, so the same pairs), then, and over float32, the scalar loop's
//   test one candidate a step, the coordinates' and the output's addresses moved on by pointers: in the scalar
//   loop's form the kernels multiplied an index out at every load and store, and 3D pairs were 10 to 16% slower
//   than the hand-written kernel before the template (bench/compare-builds.mjs). The two-candidate step took the
//   search of workload 3's 1e5-point lattice from 23.3-24.6 to 22.2-22.8 ms, and of its lidar scan from 13.9-14.1
//   to 13.3-14.0 (forEachPairBatch on a built grid, medians of 15; four processes per build, in turn; AMD EPYC,
//   2026-12-04).
// The kernels' SIMD step's output: both candidates written, each kept by its lane of `hit`; past `bound` in x
// (`dx2` over `boundv` in either lane) the scan ends, the later lane being no hit then either (x only grows along
// a run or a range).
//#macro as twoCandidates(hit, dx2, boundv, flag)
store<u32>(at, s);
store<u32>(at + lastAt, t);
at += <usize>(step & <i32>i64x2.extract_lane(hit, 0)) << 2;
store<u32>(at, s);
store<u32>(at + lastAt, t + 1);
at += <usize>(step & <i32>i64x2.extract_lane(hit, 1)) << 2;
if (v128.any_true(f64x2.gt(dx2, boundv))) {
  flag = false;
  break;
}
//#endmacro
//#macro js fastScan(end, bound, flag)
//#endmacro
//#macro as2 fastScan(end, bound, flag)
// Two candidates a step, as the scalar loop below tests them (fastScan in the template says why).
if (sizeof<C>() === 8) {
  const pxv = f64x2.splat(px);
  const pyv = f64x2.splat(py);
  const r2v = f64x2.splat(r2);
  const boundv = f64x2.splat(bound);
  let q = coordsAt + <usize>(2 * t) * cs;
  let at = out + (<usize>used << 2);
  const lastAt = <usize>last << 2;
  for (; t + 1 < end; t += 2, q += 32) {
    const a = v128.load(q);
    const b = v128.load(q, 16);
    const dx = f64x2.sub(v128.shuffle<f64>(a, b, 0, 2), pxv);
    const dy = f64x2.sub(v128.shuffle<f64>(a, b, 1, 3), pyv);
    const dx2 = f64x2.mul(dx, dx);
    const hit = f64x2.le(f64x2.add(dx2, f64x2.mul(dy, dy)), r2v);
    @twoCandidates(hit, dx2, boundv, flag)
  }
  used = <i32>((at - out) >> 2);
}
//#endmacro
//#macro as3 fastScan(end, bound, flag)
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
    const boundv = f64x2.splat(bound);
    for (; t + 1 < end; t += 2, q += 48) {
      const a = v128.load(q);
      const b = v128.load(q, 16);
      const c = v128.load(q, 32);
      const dx = f64x2.sub(v128.shuffle<f64>(a, b, 0, 3), pxv);
      const dy = f64x2.sub(v128.shuffle<f64>(a, c, 1, 2), pyv);
      const dz = f64x2.sub(v128.shuffle<f64>(b, c, 0, 3), pzv);
      const dx2 = f64x2.mul(dx, dx);
      const hit = f64x2.le(f64x2.add(f64x2.add(dx2, f64x2.mul(dy, dy)), f64x2.mul(dz, dz)), r2v);
      @twoCandidates(hit, dx2, boundv, flag)
    }
  }
  for (; flag && t < end; t++, q += 3 * cs) {
    const dx = <f64>load<C>(q) - px;
    const dx2 = dx * dx;
    if (dx2 > bound) break;
    const dy = <f64>load<C>(q + cs) - py;
    const dz = <f64>load<C>(q + 2 * cs) - pz;
    store<u32>(at, s);
    store<u32>(at + lastAt, t);
    at += <usize>(step * i32(dx2 + dy * dy + dz * dz <= r2)) << 2;
  }
  used = <i32>((at - outAt) >> 2);
  flag = false;
}
//#endmacro
//#macro all2 push(k, a, b) = @setRange(k, a); @setRange(k + 1, b)
//#macro all3 push(k, a, b) = @setRange(k, a); @setRange(k + 1, b)
// The candidate's offsets from the point beyond x, and their squared sum.
//#macro all2 offsets(t) = const dy = @coord(2 * (t) + 1) - py
//#macro all3 offsets(t) = const dy = @coord(3 * (t) + 1) - py; const dz = @coord(3 * (t) + 2) - pz
// The layers of a hashed stencil above the cell's own (none in 2D), and the z of one.
//#macro all2 layers() = 0
//#macro all3 layers() = reach
//#macro all2 layer() =
//#macro all3 layer() = const z = kz + <f64>dz
//#macro all2 far() = dy * dy
//#macro all3 far() = dy * dy + dz * dz
// Whether the cell `id` of a hashed grid is in the row (y, z) (keys are (x, y) or (x, y, z) per cell, row-major),
// and whether it is not.
//#macro all2 sameRow(id, y, z) = @key(2 * id + 1) === y
//#macro all3 sameRow(id, y, z) = @key(3 * id + 2) === z && @key(3 * id + 1) === y
//#macro all2 otherRow(id, y, z) = @key(2 * id + 1) !== y
//#macro all3 otherRow(id, y, z) = @key(3 * id + 2) !== z || @key(3 * id + 1) !== y

//#if TARGET === 'js'
/**
 * The half-stencil pair search on the JavaScript path, from the same
 * template as the kernels' (src/wasm/assembly/pair-search.ts): see
 * pair-driver.ts for who calls it and what it does with the pairs.
 *
 * @module
 */
import { SLACK } from '../core/margins.js';
import type { Grid2D } from './grid2d.js';
import type { Grid3D } from './grid3d.js';

const EMPTY = new Uint32Array(0);

/**
 * Where one search stands (the kernels keep the same numbers as module
 * globals): set up by pair-driver.ts, carried on by the search from call to
 * call. One per grid, so that a visitor may search another grid.
 */
export class PairSearch {
  /** Cells of the stencil along an axis (at most 2^30: see stencilReach), and as a double. */
  reach = 0;
  reachF = 0;
  r2 = 0;
  /** Hashed grids whose stencil holds more cells than the grid: every later cell is tested instead. */
  scanAll = false;
  cellTo = 0;
  /** A cell's gathered ranges: 2 sorted positions each. */
  ranges = new Int32Array(64);
  /** Each range's edges: 2 numbers in 2D, 4 in 3D (see the template). */
  edges = new Float64Array(128);
  /** Hashed: a cell id per stencil row, moving forward as the cells are visited. */
  cursors = new Int32Array(8);
  /** Where pairs go: `step` numbers a pair, `length` used, room for `outCapacity`. */
  out: Uint32Array = EMPTY;
  outCapacity = 0;
  step = 2;
  /** ROWS searches (step 1): each point's run end in `out`, by sorted position. */
  rowEnd: Uint32Array = EMPTY;
  /** The cell the search is in, the next point, that cell's end and run end, its ranges (-1: not gathered yet). */
  cell = 0;
  point = 0;
  cellEnd = 0;
  runEnd = 0;
  rangeCount = -1;
  length = 0;
  /** Numbers the next point may write at worst, when the search stopped for room. */
  needed = 0;
}
//#else
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
//#endif

//#for D of 2 3
//#if TARGET === 'js'
/**
 * Gathers cell c's half stencil into st.ranges and st.edges and its run end
 * into st.runEnd; returns the number of range entries (2 a range).
 */
function gather${D}(g: Grid${D}D, st: PairSearch, c: number): number {
  const cellStart = g.cellStart;
  const keys = g.cellKeys;
  const cells = g.cellTotal;
  const cellsX = g.cellsX;
  const cellsY = g.cellsY;
  @in3D(const cellsZ = g.cellsZ;)
  const dense = g.dense;
  const width = g.width;
  const ranges = st.ranges;
  const edges = st.edges;
  const cursors = st.cursors;
  const reach = st.reach;
  const reachF = st.reachF;
  const scanAll = st.scanAll;
//#else
/** gather${D} of the JavaScript path: cell c's half stencil into ranges and edges, its run end into runEnd. */
function gather${D}(c: i32): i32 {
//#endif
  let count = 0;
  if (dense) {
//#if D === 3
    const layer = cellsX * cellsY;
    const r = @idiv(c, cellsX);
    const cz = @idiv(r, cellsY);
    const cy = r - cz * cellsY;
    const row = r * cellsX;
    const layersAbove = @min(reach, cellsZ - 1 - cz);
    const yLow = @max(cy - reach, 0);
    const yHigh = @min(cy + reach, cellsY - 1);
//#else
    const cy = @idiv(c, cellsX);
    const row = cy * cellsX;
//#endif
    const cx = c - row;
    const rowsAbove = @min(reach, cellsY - 1 - cy);
    const left = cx > reach ? cx - reach : 0;
    const right = @min(cx + reach, cellsX - 1) + 1;
    @setSt(runEnd, @start(row + right));
    for (let dy = 1, above = row + cellsX; dy <= rowsAbove; dy++, above += cellsX) {
      const a = @start(above + left);
      const b = @start(above + right);
      if (a < b) {
        @rowEdges(count, <f64>(cy + dy), <f64>cy);
        @push(count, a, b);
        count += 2;
      }
    }
//#if D === 3
    for (let dz = 1; dz <= layersAbove; dz++) {
      const base = (cz + dz) * layer;
      for (let oy = yLow; oy <= yHigh; oy++) {
        const other = base + oy * cellsX;
        const a = @start(other + left);
        const b = @start(other + right);
        if (a < b) {
          @edges(count, <f64>oy, <f64>cy, <f64>(cz + dz), <f64>cz);
          @push(count, a, b);
          count += 2;
        }
      }
    }
//#endif
    return count;
  }
  const kx = @key(${D} * c);
  const ky = @key(${D} * c + 1);
  @in3D(const kz = @key(3 * c + 2);)
  const reachOf = reachF;
  if (scanAll) {
    @setSt(runEnd, @start(c + 1));
    for (let other = c + 1; other < cells; other++) {
      if (
        Math.abs(@key(${D} * other) - kx) <= reachOf &&
        @in3D(Math.abs(@key(3 * other + 2) - kz) <= reachOf &&)
        Math.abs(@key(${D} * other + 1) - ky) <= reachOf
      ) {
        @edges(count, @key(${D} * other + 1), ky, @key(${D} * other + 2), kz);
        @push(count, @start(other), @start(other + 1));
        count += 2;
      }
    }
    return count;
  }
  // The rest of the cell's row within reach: the cells right after it in row-major order.
  let next = c + 1;
  while (next < cells && @sameRow(next, ky, kz) && @key(${D} * next) <= kx + reachOf) next++;
  @setSt(runEnd, @start(next));
  const left = kx - reachOf;
  // A cursor per stencil row (the rows above in the cell's layer, then every row of the layers above, in 3D):
  // the first cell at or after (left, y, z) in row-major order only moves forward as the cells are visited.
  let row = 0;
  for (let dz = 0; dz <= @layers(); dz++) {
    @layer()
    for (let dy = dz === 0 ? 1 : -reach; dy <= reach; dy++, row++) {
      const y = ky + <f64>dy;
      let first = @cursor(row);
      while (first < cells) {
//#if D === 3
        const fz = @key(3 * first + 2);
        const fy = @key(3 * first + 1);
        if (fz > z || (fz === z && (fy > y || (fy === y && @key(3 * first) >= left)))) break;
//#else
        const fy = @key(2 * first + 1);
        if (fy > y || (fy === y && @key(2 * first) >= left)) break;
//#endif
        first++;
      }
      @setCursor(row, first);
      if (first === cells || @otherRow(first, y, z) || @key(${D} * first) > kx + reachOf) continue;
      let last = first + 1;
      while (last < cells && @sameRow(last, y, z) && @key(${D} * last) <= kx + reachOf) last++;
      @edges(count, y, ky, z, kz);
      @push(count, @start(first), @start(last));
      count += 2;
    }
  }
  return count;
}

//#if TARGET === 'js'
/**
 * Runs `st`'s search of `g` on until it is done (returns 0) or the next
 * point's worst case does not fit the output (returns 1, with st.needed
 * set): the caller then empties or grows the output and calls again.
 */
export function searchPairs${D}D(g: Grid${D}D, st: PairSearch): number {
  const coords = g.coords;
  const cellStart = g.cellStart;
  const originY = g.originY;
  @in3D(const originZ = g.originZ;)
  const width = g.width;
  const pointCount = g.points;
  const ranges = st.ranges;
  const edges = st.edges;
  const out = st.out;
  const rowEnd = st.rowEnd;
  const r2 = st.r2;
  const step = st.step;
  const cellTo = st.cellTo;
//#else
/** searchPairs${D}D of the JavaScript path. */
export function searchPairs${D}<C>(): i32 {
  const cs = sizeof<C>();
  // The coordinates' and the output's addresses in locals, not read as module globals at each access of the
  // loops below (pairs and neighbors 3 to 6% faster, bench/compare-builds.mjs).
  const coordsAt = coords;
  const outAt = out;
//#endif
  const capacity = @st(outCapacity);
  // The second sorted position of a pair goes step - 1 after the first: in ROWS mode it overwrites it.
  const last = step - 1;
  // (Locals named apart from the state: in the kernels the state is module globals of those names.)
  let c = @st(cell);
  let p = @st(point);
  let end = @st(cellEnd);
  let run = @st(runEnd);
  let count = @st(rangeCount);
  let used = @st(length);
  for (; c < cellTo; c++) {
    if (count < 0) {
      let first = @start(c);
      end = @start(c + 1);
      if (first === end) continue;
      count = @gather(c);
      run = @st(runEnd);
      // Runs read from cell starts stay inside the points and never run backwards, whatever a buffer from
      // elsewhere holds (see core/bounded.ts), so that a point's candidates, what it may write, stay bounded.
      if (first < 0) first = 0;
      if (end > pointCount) end = pointCount;
      if (run > pointCount) run = pointCount;
      if (run < end) run = end;
      for (let k = 0; k < count; k += 2) {
        let a = @range(k);
        let b = @range(k + 1);
        if (b > pointCount) b = pointCount;
        if (a < 0) a = 0;
        if (a > b) a = b;
        @setRange(k, a);
        @setRange(k + 1, b);
      }
      p = first;
    }
    for (; p < end; p++) {
      const s = p;
      let most = run - s - 1;
      for (let k = 0; k < count; k += 2) most += @range(k + 1) - @range(k);
      if (used + step * most > capacity) {
        @setSt(cell, c);
        @setSt(point, p);
        @setSt(cellEnd, end);
        @setSt(runEnd, run);
        @setSt(rangeCount, count);
        @setSt(length, used);
        @setSt(needed, step * most);
        return 1;
      }
      const px = @coord(${D} * s);
      const py = @coord(${D} * s + 1);
      @in3D(const pz = @coord(3 * s + 2);)
      let t = s + 1;
      @flag() open = true;
      @fastScan(run, r2, open)
      for (; open && t < run; t++) {
        const dx = @coord(${D} * t) - px;
        const dx2 = dx * dx;
        if (dx2 > r2) break;
        @offsets(t);
        @put(used, s);
        @put(used + last, t);
        @advance(dx2 + @far() <= r2);
      }
      const relY = py - originY;
      @in3D(const relZ = pz - originZ;)
      for (let k = 0; k < count; k += 2) {
        const stop = @range(k + 1);
        let t = @range(k);
        while (t < stop) {
          const dx = @coord(${D} * t) - px;
          if (dx >= 0 || dx * dx <= r2) break;
          t++;
        }
        @setRange(k, t);
        // The x window of this range: no point of it is nearer in y (and z) than its gap, lowered by a margin
        // for the rounding of cell borders and of relY (relZ); widened by one for the distance test's own
        // rounding, so it holds every pair the test accepts. (A NaN from overflowing edges of huge cells counts
        // as no gap, never as a window of NaN.)
//#if D === 3
        const edgeY = @edge(2 * k);
        const edgeZ = @edge(2 * k + 2);
        const belowY = @edge(2 * k + 1) * (edgeY - relY) - (Math.abs(edgeY) + Math.abs(relY) + width) * SLACK;
        const belowZ = @edge(2 * k + 3) * (edgeZ - relZ) - (Math.abs(edgeZ) + Math.abs(relZ) + width) * SLACK;
        const gapY = belowY > 0 ? belowY : 0;
        const gapZ = belowZ > 0 ? belowZ : 0;
        const window2 = r2 - gapY * gapY - gapZ * gapZ + r2 * SLACK;
//#else
        const edge = @edge(k);
        const below = @edge(k + 1) * (edge - relY) - (Math.abs(edge) + Math.abs(relY) + width) * SLACK;
        const gap = below > 0 ? below : 0;
        const window2 = r2 - gap * gap + r2 * SLACK;
//#endif
        // (The range's start moved on by the radius alone: the window changes from point to point.)
        while (t < stop) {
          const dx = @coord(${D} * t) - px;
          if (dx >= 0 || dx * dx <= window2) break;
          t++;
        }
        @flag() inside = true;
        @fastScan(stop, window2, inside)
        for (; inside && t < stop; t++) {
          const dx = @coord(${D} * t) - px;
          const dx2 = dx * dx;
          if (dx2 > window2) break;
          @offsets(t);
          @put(used, s);
          @put(used + last, t);
          @advance(dx2 + @far() <= r2);
        }
      }
      if (step === 1) @setRowEnd(s, used);
    }
    count = -1;
  }
  @setSt(cell, c);
  @setSt(point, p);
  @setSt(rangeCount, count);
  @setSt(length, used);
  return 0;
}

//#if TARGET === 'as'
// The instances the module exports (see src/wasm/kernels.ts), by the coordinate copy's type.
export function searchPairs${D}d64(): i32 {
  return searchPairs${D}<f64>();
}
export function searchPairs${D}d32(): i32 {
  return searchPairs${D}<f32>();
}
//#endif

//#endfor
