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

//#output js src/pointgrid/within-rows.ts
//#output as src/wasm/assembly/within-rows.ts

// The grid's sections: the JavaScript path's typed arrays, the kernels' byte offsets.
//#macro js coord(i) = coords[i]
//#macro as coord(i) = <f64>load<C>(coords + <usize>(i) * cs)
// Coordinate k of the point whose x is number i: in the kernels the constant is added last, so that it becomes the
// load's immediate offset (a (i + k) * size costs an add and a shift of its own at every load).
//#macro js coordAt(i, k) = coords[i + k]
//#macro as coordAt(i, k) = <f64>load<C>(coords + <usize>(i) * cs + <usize>(k) * cs)
//#macro js start(c) = cellStart[c]
//#macro as start(c) = load<i32>(cellStart + (<usize>(c) << 2))
//#macro js key(i) = keys[i]
//#macro as key(i) = load<f64>(keys + (<usize>(i) << 3))
//#macro js index(t) = sortedIndex[t]
//#macro as index(t) = load<u32>(sortedIndex + (<usize>(t) << 2))
//#macro js put(k, v) = target[k] = v
//#macro as put(k, v) = store<u32>(target + (<usize>(k) << 2), v)
// A batch's row bounds, ROW_NUMBERS a row: a Float64Array here, the kernels' scratch at address 0.
//#macro js row(k) = rows[k]
//#macro as row(k) = load<f64>(<usize>(k) << 3)
//#macro js setRow(k, v) = rows[k] = v
//#macro as setRow(k, v) = store<f64>(<usize>(k) << 3, v)
// What a search of every occupied cell reads of the grid (the JavaScript path; the kernels' are module state).
//#macro js cellArrays() = const coords = g.coords; const cellStart = g.cellStart; const keys = g.cellKeys; const cells = g.cellTotal; const n = g.points
//#macro js int(b) = +(b)
//#macro as int(b) = i32(b)
//#macro js min(a, b) = Math.min(a, b)
//#macro as min(a, b) = min(a, b)
//#macro js max(a, b) = Math.max(a, b)
//#macro as max(a, b) = max(a, b)
//#macro js2 find(x, y, z) = g.findCell(x, y)
//#macro js3 find(x, y, z) = g.findCell(x, y, z)
//#macro as2 find(x, y, z) = findCell(x, y)
//#macro as3 find(x, y, z) = findCell3(x, y, z)
// The query's coordinates after x, and their squared distances after dx's.
//#macro all2 rest() = y: f64
//#macro all3 rest() = y: f64, z: f64
//#macro all2 restArgs() = y
//#macro all3 restArgs() = y, z
//#macro all2 far(t) = dy * dy
//#macro all3 far(t) = dy * dy + dz * dz
//#macro all2 offsets(t) = const dy = @coordAt(2 * t, 1) - y
//#macro all3 offsets(t) = const dy = @coordAt(3 * t, 1) - y; const dz = @coordAt(3 * t, 2) - z
//#macro all2 box() = lx: f64, hx: f64, ly: f64, hy: f64
//#macro all3 box() = lx: f64, hx: f64, ly: f64, hy: f64, lz: f64, hz: f64
//#macro all2 boxArgs() = lx, hx, ly, hy
//#macro all3 boxArgs() = lx, hx, ly, hy, lz, hz
//#macro all2 boxCells() = (hx - lx + 1) * (hy - ly + 1)
//#macro all3 boxCells() = (hx - lx + 1) * (hy - ly + 1) * (hz - lz + 1)
// Whether the cell (kx, ky, kz) lies outside the box.
//#macro all2 outsideBox() = kx < lx || kx > hx || ky < ly || ky > hy
//#macro all3 outsideBox() = kx < lx || kx > hx || ky < ly || ky > hy || kz < lz || kz > hz
// Whether the hashed cell after `id` is in the row (cy, cz): keys are (x, y) or (x, y, z) per cell, row-major.
//#macro all2 nextInRow(id) = @key(2 * id + 3) === cy
//#macro all3 nextInRow(id) = @key(3 * id + 5) === cz && @key(3 * id + 4) === cy
// What within (VARIANT rows, writing the indices into `target`) has and countWithin (count) has not: a line of
// it, and the JavaScript path's clamp of the indices it wrote for a grid whose buffer may race (core/bounded.ts;
// the kernels' glue clamps their answer itself, src/wasm/within-kernels.ts).
//#macro all.rows writes(line)
line
//#endmacro
//#macro all.count writes(line)
//#endmacro
//#macro js.rows clampWritten(count)
if (g.clampsIndices) clampIndices(target, Math.min(count, capacity), n);
//#endmacro
//#macro all clampWritten(count)
//#endmacro

// within's scan of a run whose every point fits in `target`: write every candidate and advance only on a hit, no
// hard-to-predict branch (about twice as fast as an if on cache-resident data). The kernels' 3D scan steps the
// coordinates' and the target's addresses by pointers, where the index form multiplied an index out at every
// load and store (withinMany 3D was 16% slower than the hand-written kernel before the template with it,
// bench/compare-builds.mjs at 1e6 points).
//#macro all.rows scanRun(stopLine)
for (let t = s; t < end; t++) {
  const dx = @coord(${D} * t) - x;
  const dx2 = dx * dx;
  stopLine
  @offsets(t);
  // Write every candidate and advance only on a hit (scanRun in the template says why).
  @put(found, @index(t));
  found += @int(dx2 + @far(t) <= r2);
}
//#endmacro
//#macro as3.rows scanRun(stopLine)
{
  let qAt = coords + <usize>(3 * s) * cs;
  let slotAt = target + (<usize>found << 2);
  for (let t = s; t < end; t++, qAt += 3 * cs) {
    const dx = <f64>load<C>(qAt) - x;
    const dx2 = dx * dx;
    stopLine
    const dy = <f64>load<C>(qAt + cs) - y;
    const dz = <f64>load<C>(qAt + 2 * cs) - z;
    // Write every candidate and advance only on a hit (scanRun in the template says why).
    store<u32>(slotAt, load<u32>(sortedIndex + (<usize>t << 2)));
    slotAt += <usize>(i32(dx2 + dy * dy + dz * dz <= r2)) << 2;
  }
  found = <i32>((slotAt - target) >> 2);
}
//#endmacro

// The row (cy, cz)'s gap: every point of it is at least this far from the query across x, rounding included
// (core/margins.ts).
//#macro all2 rowGap()
const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
const gap = gy - (cy + 1) * margin;
//#endmacro
//#macro all3 rowGap()
const gy = Math.max(Math.max(cy * width - ry, ry - (cy + 1) * width), 0);
const gz = Math.max(Math.max(cz * width - rz, rz - (cz + 1) * width), 0);
const gap = Math.sqrt(gy * gy + gz * gz) - (cy + cz + 2) * margin;
//#endmacro
// The direct path's skip of a row that lies wholly beyond the radius, by the row's bound as a batch's. Only in 3D:
// there the corner rows of the 3 x 3 can (their gap is up to sqrt(2) radii). A 2D row in the padded range is at
// most the padded radius away, so the test skipped one only where its gap fell within the rounding margins (and the
// test of each point finds nothing there either way): a bound a row for almost nothing.
//#macro all2 skipFarRow()
//#endmacro
//#macro all3 skipFarRow()
@rowGap()
const floor2 = gap > 0 ? gap * gap * (1 - SLACK) : 0;
if (floor2 > r2) continue;
//#endmacro
// A hashed row's run over cells `from` to `to` along x, in the row (cy, cz): its first occupied cell `id` (-1 when
// none is), then its last, `lastId`, the ids between them being the row's other occupied cells (row-major).
//#macro all firstInRow(from, to)
let id = -1;
for (let cx = from; cx <= to && id < 0; cx++) id = @find(cx, cy, cz);
//#endmacro
//#macro all lastInRow(to)
let lastId = id;
while (lastId + 1 < cells && @nextInRow(lastId) && @key(${D} * lastId + ${D}) <= to) lastId++;
//#endmacro
// Whether the run s..end over the cells first..last along x is crowded: more than 16 points a cell. A crowded run
// is scanned from the chord's left end (@skipToChord) to its right end (@pastChord); a sparse one whole.
//#macro all crowded() = end - s > 16 * (last - first + 1)
// Skips the points of a crowded run s..end (cells first..last along x) left of the chord. Where the chord starts
// is guessed as if the run's points were spread evenly over its cells, then settled exactly by walking (the test
// is monotone along x): one cache miss and a few sequential reads, where a bisection of a cold run waits on one
// miss after another. Only in crowded runs: the run starts in the cell where the chord does (or is at most three
// cells long), so the skip saves part of a cell, and at a few points a cell its square root, division and two
// walks (a mispredicted exit each) cost more than scanning them (withinMany at 20 neighbours a point: 2D 10%, 3D
// 25% slower with the skip).
//#macro all skipToChord()
const half = Math.sqrt(Math.max(r2 - floor2, 0));
const fraction = (rx - half - first * width) / ((last - first + 1) * width);
if (fraction > 0) {
  let t = s + <i32>Math.floor(Math.min(fraction, 1) * <f64>(end - s));
  for (; t < end; t++) {
    const dx = @coord(${D} * t) - x;
    if (!(dx < 0 && dx * dx + floor2 > r2)) break;
  }
  for (; t > s; t--) {
    const dx = @coord(${D} * t - ${D}) - x;
    if (dx < 0 && dx * dx + floor2 > r2) break;
  }
  s = t;
}
//#endmacro
// The bound of a crowded row of the direct path: in 3D @skipFarRow made it; in 2D it is made here, for the few
// rows that need it.
//#macro all2 crowdedRowBound()
@rowGap()
const floor2 = gap > 0 ? gap * gap * (1 - SLACK) : 0;
//#endmacro
//#macro all3 crowdedRowBound()
//#endmacro
// A row's run s..end clamped: a run from a buffer another thread is rewriting, or one not checked, stays inside
// the points and never runs backwards, so that end - s cannot overflow.
//#macro all clampRun()
if (s < 0) s = 0;
if (end > n) end = n;
if (end < s) end = s;
//#endmacro
// Whether a candidate lies past the chord's right end, where nothing more of the row can be in: the stop of a
// batch's scans.
//#macro all pastChord() = dx2 + floor2 > r2 && dx > 0
// A row's scan (in a loop over rows: `continue` goes to the next row): within's branch-free scanRun where every
// candidate fits in `target`, else a test per candidate, writing while there is room and counting on. `stopLine`
// is the line after each candidate's dx: a batch of rows stops at the chord's right end (@pastChord), the direct
// path scans the whole run and passes a comment, so that no test is left in its loop (the stop was a
// mispredicted branch a row there, and a compare a candidate with an infinite bound: see the direct path).
//#macro all.rows scanRow(stopLine)
if (found + end - s <= capacity) {
  @scanRun(stopLine)
  continue;
}
for (let t = s; t < end; t++) {
  const dx = @coord(${D} * t) - x;
  const dx2 = dx * dx;
  stopLine
  @offsets(t);
  if (dx2 + @far(t) <= r2) {
    if (found < capacity) @put(found, @index(t));
    found++;
  }
}
//#endmacro
//#macro all.count scanRow(stopLine)
for (let t = s; t < end; t++) {
  const dx = @coord(${D} * t) - x;
  const dx2 = dx * dx;
  stopLine
  @offsets(t);
  found += @int(dx2 + @far(t) <= r2);
}
//#endmacro

//#if TARGET === 'js'
/**
 * within on the JavaScript path (PointGrid2D / PointGrid3D's within,
 * withinInto, withinMany and countWithin for an ordinary radius, see
 * within-point.ts): the same points in the same order as the
 * kernels (src/wasm/assembly/within-rows.ts, from the same template).
 *
 * Every loop is bounded by the header's numbers (read once per build),
 * whatever the buffer's sections hold: cell runs are clamped to the points
 * and indices to the count, so a buffer that another thread rewrites
 * mid-query gives a wrong answer at worst, never a hang.
 *
 * @module
 */
import { clampIndices } from '../core/bounded.js';
import { paddedRadius, SLACK } from '../core/margins.js';
import type { Grid2D } from './grid2d.js';
import type { Grid3D } from './grid3d.js';

/** Rows a query looks up before scanning them. */
const ROW_BATCH = 32;
/** Numbers per row in a batch: the row's squared gap, then where its run starts and ends (see the template). */
const ROW_NUMBERS = 5;
/** Per-row bounds of a batch (a query calls nothing while it uses them). */
const ROWS = new Float64Array(ROW_NUMBERS * ROW_BATCH);
//#else
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
//#endif

// The range of cells along an axis that holds every point within `padded` (the radius with its rounding
// margins, see paddedRadius) of a query `relative` from the grid's origin: clamped to the grid's cells, empty
// when low > high. Both paths' within and the cold path of extreme radii (extreme.ts) take it from here.
@inlined()
/** The first cell of the range (see the template). */
export function lowCell(relative: f64, padded: f64, width: f64): f64 {
  return Math.max(Math.floor((relative - padded) / width), 0);
}

@inlined()
/** The last cell of the range (see the template), `cells` the grid's cells along the axis. */
export function highCell(relative: f64, padded: f64, width: f64, cells: f64): f64 {
  return Math.min(Math.floor((relative + padded) / width), cells - 1);
}

//#for VARIANT of rows count
//#for D of 2 3
//#if TARGET === 'js' && VARIANT === 'rows'
/**
 * The points of `g` within `radius` of the query, written into `target` as
 * far as it fits; returns how many there are (for a grid of at least one
 * point and an ordinary radius).
 */
export function withinRows${D}D(g: Grid${D}D, x: f64, @rest(), radius: f64, target: Uint32Array): i32 {
//#elif TARGET === 'js'
/** How many points of `g` lie within `radius` of the query (for a grid of at least one point and an ordinary radius). */
export function countWithin${D}D(g: Grid${D}D, x: f64, @rest(), radius: f64): i32 {
//#elif VARIANT === 'rows'
/** withinRows${D}D of the JavaScript path (see the module notes). */
export function within${D}<C>(x: f64, @rest(), radius: f64, target: usize): i32 {
//#else
/** countWithin${D}D of the JavaScript path. */
export function countWithin${D}<C>(x: f64, @rest(), radius: f64): i32 {
//#endif
//#if TARGET === 'js'
  const n = g.points;
  const width = g.width;
  const coords = g.coords;
  @writes(const sortedIndex = g.sortedIndex;)
  const cellStart = g.cellStart;
  const keys = g.cellKeys;
  const cells = g.cellTotal;
  const cellsX = g.cellsX;
  const cellsY = g.cellsY;
  const dense = g.dense;
  const rows = ROWS;
  const originX = g.originX;
  const originY = g.originY;
  @in3D(const cellsZ = g.cellsZ;)
  @in3D(const originZ = g.originZ;)
  @writes(const capacity = target.length;)
//#else
  const cs = sizeof<C>();
  const n = points;
  @writes(const capacity = points;)
//#endif
  if (n === 0) return 0;
  const rx = x - originX;
  const ry = y - originY;
//#if D === 3
  const rz = z - originZ;
  // More than Number.MAX_VALUE from the origin along an axis, the query is over 2^918 (~1e276) from every
  // point (whose offsets from the origin are finite): beyond every radius whose square is finite.
  if (rx - rx !== 0 || ry - ry !== 0 || rz - rz !== 0) return 0;
  const padded = paddedRadius(radius, Math.max(Math.max(Math.abs(rx), Math.abs(ry)), Math.abs(rz)), width);
  const lz = lowCell(rz, padded, width);
  const hz = highCell(rz, padded, width, <f64>cellsZ);
  // Rows along x: one per (cy, cz); their margin grows with both.
  const margin = (Math.abs(ry) + Math.abs(rz) + width) * SLACK;
//#else
  // (See the 3D instance.)
  if (rx - rx !== 0 || ry - ry !== 0) return 0;
  const padded = paddedRadius(radius, Math.max(Math.abs(rx), Math.abs(ry)), width);
  const lz: f64 = 0;
  const hz: f64 = 0;
  const margin = (Math.abs(ry) + width) * SLACK;
//#endif
  const lx = lowCell(rx, padded, width);
  const hx = highCell(rx, padded, width, <f64>cellsX);
  const ly = lowCell(ry, padded, width);
  const hy = highCell(ry, padded, width, <f64>cellsY);
  if (lx > hx || ly > hy || lz > hz) return 0;
  const r2 = radius * radius;
  // A hashed grid asked for more cells than it holds: test every occupied cell against the box instead.
//#if VARIANT === 'rows' && TARGET === 'js'
  if (!dense && @boxCells() > <f64>cells) {
    const everyCell = withinEveryCell${D}D(g, x, @restArgs(), r2, @boxArgs(), target);
    @clampWritten(everyCell)
    return everyCell;
  }
//#elif VARIANT === 'rows'
  if (!dense && @boxCells() > <f64>cells) return withinEveryCell${D}<C>(x, @restArgs(), r2, @boxArgs(), target);
//#elif TARGET === 'js'
  if (!dense && @boxCells() > <f64>cells) return countEveryCell${D}D(g, x, @restArgs(), r2, @boxArgs());
//#else
  if (!dense && @boxCells() > <f64>cells) return countEveryCell${D}<C>(x, @restArgs(), r2, @boxArgs());
//#endif
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
        @skipFarRow()
        const cell = <i32>((cy + cz * cellsY) * cellsX + lx);
        let s = @start(cell);
        let end = @start(cell + <i32>(hx - lx) + 1);
        @clampRun()
        @scanRow(// The whole run: the rows are at most three cells long.)
      }
    }
    @clampWritten(found)
    return @min(found, n);
  }
  if (!clip && !tiny) {
    for (let cz = lz; cz <= hz; cz++) {
      for (let cy = ly; cy <= hy; cy++) {
        @skipFarRow()
        @firstInRow(lx, hx)
        if (id < 0) continue;
        @lastInRow(hx)
        let s = @start(id);
        let end = @start(lastId + 1);
        @clampRun()
        const first = @key(${D} * id);
        const last = @key(${D} * lastId);
        if (@crowded()) {
          @crowdedRowBound()
          @skipToChord()
          @scanRow(if (@pastChord()) break;)
          continue;
        }
        @scanRow(// The whole run: the rows are at most three cells long.)
      }
    }
    @clampWritten(found)
    return @min(found, n);
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
      @rowGap()
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
        @setRow(at, floor2);
        @setRow(at + 1, (cy + cz * cellsY) * cellsX + cx0);
        @setRow(at + 2, cx1 - cx0);
        @setRow(at + 3, cx0);
      } else {
        @firstInRow(cx0, cx1)
        if (id < 0) continue;
        @setRow(at, floor2);
        @setRow(at + 1, <f64>id);
        @setRow(at + 2, cx1);
        @setRow(at + 3, cy);
        @setRow(at + 4, cz);
      }
      used++;
    }
    for (let k = 0; k < used; k++) {
      const at = k * ROW_NUMBERS;
      const floor2 = @row(at);
      let first: f64;
      let last: f64;
      let s: i32;
      let end: i32;
      if (dense) {
        const cell = <i32>@row(at + 1);
        const span = <i32>@row(at + 2);
        s = @start(cell);
        end = @start(cell + span + 1);
        first = @row(at + 3);
        last = first + <f64>span;
      } else {
        const id = <i32>@row(at + 1);
        const cx1 = @row(at + 2);
        const cy = @row(at + 3);
        @in3D(const cz = @row(at + 4);)
        @lastInRow(cx1)
        s = @start(id);
        end = @start(lastId + 1);
        first = @key(${D} * id);
        last = @key(${D} * lastId);
      }
      @clampRun()
      // The points left of the chord skipped in a crowded run (see @skipToChord).
      if (@crowded()) {
        @skipToChord()
      }
      @scanRow(if (@pastChord()) break;)
    }
  }
  @clampWritten(found)
  // (More than n only when the buffer holds garbage: see bounded.ts.)
  return @min(found, n);
}

//#if TARGET === 'as' && VARIANT === 'rows'
// The instances the module exports (see src/wasm/kernels.ts), by the coordinate copy's type.
export function within${D}d64(x: f64, @rest(), radius: f64, target: usize): i32 {
  return within${D}<f64>(x, @restArgs(), radius, target);
}
export function within${D}d32(x: f64, @rest(), radius: f64, target: usize): i32 {
  return within${D}<f32>(x, @restArgs(), radius, target);
}
//#elif TARGET === 'as'
export function countWithin${D}d64(x: f64, @rest(), radius: f64): i32 {
  return countWithin${D}<f64>(x, @restArgs(), radius);
}
export function countWithin${D}d32(x: f64, @rest(), radius: f64): i32 {
  return countWithin${D}<f32>(x, @restArgs(), radius);
}
//#endif

//#if TARGET === 'js' && VARIANT === 'rows'
/** {@link withinRows${D}D} of a hashed grid whose cell range spans more cells than it holds: every occupied cell in the box. */
function withinEveryCell${D}D(
  g: Grid${D}D, x: f64, @rest(), r2: f64, @box(), target: Uint32Array,
): i32 {
  @cellArrays();
  const sortedIndex = g.sortedIndex;
  const capacity = target.length;
//#elif TARGET === 'js'
/** {@link countWithin${D}D} over every occupied cell in the box (see withinEveryCell${D}D). */
function countEveryCell${D}D(
  g: Grid${D}D, x: f64, @rest(), r2: f64, @box(),
): i32 {
  @cellArrays();
//#elif VARIANT === 'rows'
/** withinEveryCell${D}D of the JavaScript path. */
function withinEveryCell${D}<C>(
  x: f64, @rest(), r2: f64, @box(), target: usize,
): i32 {
  const cs = sizeof<C>();
  const n = points;
  const capacity = points;
//#else
/** countEveryCell${D}D of the JavaScript path. */
function countEveryCell${D}<C>(x: f64, @rest(), r2: f64, @box()): i32 {
  const cs = sizeof<C>();
  const n = points;
//#endif
  let found = 0;
  for (let id = 0; id < cells; id++) {
    const kx = @key(${D} * id);
    const ky = @key(${D} * id + 1);
    @in3D(const kz = @key(3 * id + 2);)
    if (@outsideBox()) continue;
    const end = @min(@start(id + 1), n);
    for (let t = @max(@start(id), 0); t < end; t++) {
      const dx = @coord(${D} * t) - x;
      @offsets(t);
      if (dx * dx + @far(t) <= r2) {
        @writes(if (found < capacity) @put(found, @index(t));)
        found++;
      }
    }
  }
  // (More than n only when the buffer holds garbage: see bounded.ts.)
  return @min(found, n);
}

//#endfor
//#endfor
