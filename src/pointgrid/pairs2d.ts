/**
 * The all-pairs search of a PointGrid2D over a half stencil: each pair of
 * neighbouring cells is visited once, pairs within a cell once (i < j), and
 * every pair found goes to a {@link PairSink}. Internal: arguments are
 * checked by the public class.
 *
 * @module
 */
import { isOrdinaryRadius } from '../core/distance.js';
import { grownLength } from '../core/grow.js';
import { searchIntoSink, visitPairs } from '../wasm/grid-kernels.js';
import { verifying } from '../wasm/kernels.js';
import { clampRanges } from './bounded.js';
import { extremeGrid2, pairsExtreme } from './extreme.js';
import type { Grid2D } from './grid2d.js';
import { SLACK, stencilReach } from './margins.js';
import type { PointPairVisitor } from './options.js';
import { COUNT, type lowerMinusUpper, type PairSink, VISIT, verifyAppended, visitClamped } from './pair-sink.js';

/** Hands every pair within `radius` to `sink` (already started). */
export function forEachPair2D(g: Grid2D, sink: PairSink, radius: number): void {
  if (g.points < 2) return;
  const r2 = radius * radius;
  if (g.coversEveryPair(radius)) {
    // Every pair passes the distance test (radius Infinity, or a huge one spanning the grid; see
    // core/distance.ts): the slice's points against all later ones.
    pairsFromCell(g, sink, sink.pointFrom, sink.pointTo, g.points, 0, r2);
  } else if (!isOrdinaryRadius(radius)) {
    // Any other extreme radius (its square overflows or is below 2^-896) takes the cold path.
    pairsExtreme(extremeGrid2(g), sink, radius, () => visitBatch(g, sink));
  } else {
    // On the WebAssembly kernels where they are on: the same pairs in the same order (src/wasm/grid-kernels.ts).
    if (sink.mode === VISIT) {
      if (visitPairs(g, radius, sink, sink, visitBatch)) return;
    } else if (sink.mode !== COUNT) {
      const base = sink.length;
      if (searchIntoSink(g, radius, sink)) {
        // (Mode 'verify': a PointGridWorkers thread's slices and the searches of pairs() past the kernels' room.)
        if (verifying()) verifyAppended('PointGrid2D pair search', sink, base, () => searchOrdinary(g, sink, radius));
        return;
      }
    }
    searchOrdinary(g, sink, radius);
  }
  if (sink.mode === VISIT) visitBatch(g, sink);
}

/** The JavaScript path's half-stencil search for an ordinary radius. */
function searchOrdinary(g: Grid2D, sink: PairSink, radius: number): void {
  const reach = stencilReach(radius, g.width, Math.max(g.cellsX, g.cellsY));
  if (g.dense) densePairs(g, sink, reach, radius * radius);
  else hashedPairs(g, sink, reach, radius * radius);
}

/**
 * Dense half stencil: the rest of the cell and the `reach` cells to its right
 * are one contiguous run of sorted points, and so is each of the `reach` rows
 * above between cx - reach and cx + reach.
 */
function densePairs(g: Grid2D, sink: PairSink, reach: number, r2: number): void {
  const cellsX = g.cellsX;
  const cellsY = g.cellsY;
  const cellStart = g.cellStart;
  // One range per row above, at most: scratch in proportion to the rows, however far the radius reaches.
  const needed = 2 * Math.min(reach, cellsY - 1);
  if (g.ranges.length < needed) g.ranges = new Int32Array(grownLength(g.ranges.length, needed));
  if (g.edges.length < needed) g.edges = new Float64Array(grownLength(g.edges.length, needed));
  const ranges = g.ranges;
  const edges = g.edges;
  const width = g.width;
  // Only the slice's cells, sink.cellFrom to sink.cellTo - 1 (all of them by default).
  const cellFrom = sink.cellFrom;
  const cellTo = sink.cellTo;
  for (let cy = Math.floor(cellFrom / cellsX); cy < cellsY && cy * cellsX < cellTo; cy++) {
    const row = cy * cellsX;
    const rowsAbove = Math.min(reach, cellsY - 1 - cy);
    const xTo = Math.min(cellsX, cellTo - row);
    for (let cx = row < cellFrom ? cellFrom - row : 0; cx < xTo; cx++) {
      const start = cellStart[row + cx];
      const end = cellStart[row + cx + 1];
      if (start === end) continue;
      const left = cx > reach ? cx - reach : 0;
      const right = Math.min(cx + reach, cellsX - 1) + 1;
      const runEnd = cellStart[row + right];
      let count = 0;
      for (let dy = 1, above = row + cellsX; dy <= rowsAbove; dy++, above += cellsX) {
        const a = cellStart[above + left];
        const b = cellStart[above + right];
        if (a < b) {
          rangeEdge(edges, count, cy + dy, cy, width);
          ranges[count++] = a;
          ranges[count++] = b;
        }
      }
      pairsFromCell(g, sink, start, end, runEnd, count, r2);
    }
  }
}

/**
 * Hashed half stencil. Cell ids run in row-major order (see CellOrder), so,
 * as in the dense layout, the occupied cells right of this one within reach
 * directly follow it, and those of each row above between kx - reach and
 * kx + reach have consecutive ids: one run each. Its first cell is found by
 * a cursor per row offset rather than by hash lookups: the first cell at or
 * after (kx - reach, ky + dy) in row-major order only moves forward as the
 * cells are visited in that order, so each cursor walks the cells once.
 * When the stencil is larger than the number of occupied cells, every later
 * occupied cell is tested instead.
 */
function hashedPairs(g: Grid2D, sink: PairSink, reach: number, r2: number): void {
  const cells = g.cellTotal;
  const keys = g.cellKeys;
  const cellStart = g.cellStart;
  const half = reach + reach * (2 * reach + 1);
  const scanAll = half > cells;
  const needed = 2 * (scanAll ? cells : reach);
  if (g.ranges.length < needed) g.ranges = new Int32Array(grownLength(g.ranges.length, needed));
  if (g.edges.length < needed) g.edges = new Float64Array(grownLength(g.edges.length, needed));
  const ranges = g.ranges;
  const edges = g.edges;
  const width = g.width;
  // (Only when !scanAll, where there are more cells than reach.)
  const rows = scanAll ? 0 : reach;
  if (g.cursors.length < rows) g.cursors = new Int32Array(grownLength(g.cursors.length, rows));
  const cursors = g.cursors;
  // Every row above starts after the slice's first cell.
  cursors.fill(sink.cellFrom + 1, 0, rows);
  for (let c = sink.cellFrom; c < sink.cellTo; c++) {
    const kx = keys[2 * c];
    const ky = keys[2 * c + 1];
    let count = 0;
    let runEnd = cellStart[c + 1];
    if (scanAll) {
      for (let other = c + 1; other < cells; other++) {
        if (Math.abs(keys[2 * other] - kx) <= reach && Math.abs(keys[2 * other + 1] - ky) <= reach) {
          rangeEdge(edges, count, keys[2 * other + 1], ky, width);
          ranges[count++] = cellStart[other];
          ranges[count++] = cellStart[other + 1];
        }
      }
    } else {
      let next = c + 1;
      while (next < cells && keys[2 * next + 1] === ky && keys[2 * next] <= kx + reach) next++;
      runEnd = cellStart[next];
      const left = kx - reach;
      for (let dy = 1; dy <= reach; dy++) {
        const y = ky + dy;
        let first = cursors[dy - 1];
        while (first < cells && (keys[2 * first + 1] < y || (keys[2 * first + 1] === y && keys[2 * first] < left)))
          first++;
        cursors[dy - 1] = first;
        if (first === cells || keys[2 * first + 1] !== y || keys[2 * first] > kx + reach) continue;
        let last = first + 1;
        while (last < cells && keys[2 * last + 1] === y && keys[2 * last] <= kx + reach) last++;
        rangeEdge(edges, count, y, ky, width);
        ranges[count++] = cellStart[first];
        ranges[count++] = cellStart[last];
      }
    }
    pairsFromCell(g, sink, cellStart[c], cellStart[c + 1], runEnd, count, r2);
  }
}

/**
 * Records where the cells of the range at `ranges[count]` lie in y relative
 * to the searched cell (row `ry` vs `cy`), for pairsFromCell to narrow its x
 * window: at `edges[count]`, the y (relative to the origin) of the range's
 * border nearest the searched cell and the side it is on (1: above, -1:
 * below, 0: same row).
 */
function rangeEdge(edges: Float64Array, count: number, ry: number, cy: number, width: number): void {
  // (The same row's edge is unused: 0, never a product that could overflow and times 0 give NaN.)
  edges[count] = ry > cy ? ry * width : ry < cy ? (ry + 1) * width : 0;
  edges[count + 1] = ry > cy ? 1 : ry < cy ? -1 : 0;
}

/**
 * Tests each point of sorted run start..end-1 against the later points up to
 * runEnd and against every gathered range, appending each pair within the
 * radius to the sink's buffer as sorted positions (see PairSink.step for what
 * is written). Runs and ranges are in x order (see
 * sortCellsByX), so each scan stops at the first point whose x alone is past
 * the radius, and each range's start moves right past the points left of the
 * radius as the point itself moves right. The x test compares the same
 * dx * dx that the distance sums, so nothing within reach is skipped.
 *
 * Every candidate in the x window is written and the length advances only
 * on a hit, with no branch to mispredict (`| 0` spares V8's overflow check:
 * the length stays far below 2^31). Room for the point's worst case is
 * made first: a VISIT search hands its batch to the visitor, the others grow
 * their buffer.
 */
function pairsFromCell(
  g: Grid2D,
  sink: PairSink,
  start: number,
  end: number,
  runEnd: number,
  rangeCount: number,
  r2: number,
): void {
  const coords = g.coords;
  const ranges = g.ranges;
  const edges = g.edges;
  const originY = g.originY;
  const width = g.width;
  const slack = SLACK;
  const step = sink.step;
  const rowEnd = sink.rowEnd;
  let buffer: Uint32Array = sink.buffer;
  let length = sink.length;
  // Runs read from cell starts stay inside the points and never run backwards, whatever a shared buffer
  // holds (see bounded.ts), so that `most` below bounds what a point writes.
  const n = g.points;
  if (start < 0) start = 0;
  if (end > n) end = n;
  if (runEnd > n) runEnd = n;
  if (runEnd < end) runEnd = end;
  clampRanges(ranges, rangeCount, n);
  for (let s = start; s < end; s++) {
    let most = runEnd - s - 1;
    for (let k = 0; k < rangeCount; k += 2) most += ranges[k + 1] - ranges[k];
    if (length + step * most > buffer.length) {
      sink.length = length;
      if (sink.mode === VISIT) {
        // Separate calls, not visitBatch: see there.
        if (sink.withDistance) visitDistanceBatch(g, sink);
        else visitIndexBatch(sink);
      } else if (sink.mode === COUNT) {
        sink.counted += length / 2;
        sink.length = 0;
      }
      const needed = sink.length + step * most;
      if (needed > sink.buffer.length) sink.reserve(needed, sink.length, s / g.points);
      buffer = sink.buffer;
      length = sink.length;
    }
    const px = coords[2 * s];
    const py = coords[2 * s + 1];
    for (let t = s + 1; t < runEnd; t++) {
      const dx = coords[2 * t] - px;
      const dx2 = dx * dx;
      if (dx2 > r2) break;
      const dy = coords[2 * t + 1] - py;
      buffer[length] = s;
      buffer[length + step - 1] = t;
      length = (length + step * +(dx2 + dy * dy <= r2)) | 0;
    }
    const relY = py - originY;
    for (let k = 0; k < rangeCount; k += 2) {
      const stop = ranges[k + 1];
      let t = ranges[k];
      while (t < stop) {
        const dx = coords[2 * t] - px;
        if (dx >= 0 || dx * dx <= r2) break;
        t++;
      }
      ranges[k] = t;
      // The x window of this range: no point of it is nearer in y than gap,
      // lowered by a margin for the rounding of cell borders and of relY; the
      // window is widened by one for the distance test's own rounding, so it
      // holds every pair the test accepts.
      const edge = edges[k];
      // (Written so that a NaN from overflowing edges of huge cells counts as no gap, never as a window of NaN.)
      const below = edges[k + 1] * (edge - relY) - (Math.abs(edge) + Math.abs(relY) + width) * slack;
      const gap = below > 0 ? below : 0;
      const window2 = r2 - gap * gap + r2 * slack;
      // (ranges[k] moves on by the radius alone: the window changes from point to point.)
      while (t < stop) {
        const dx = coords[2 * t] - px;
        if (dx >= 0 || dx * dx <= window2) break;
        t++;
      }
      for (; t < stop; t++) {
        const dx = coords[2 * t] - px;
        const dx2 = dx * dx;
        if (dx2 > window2) break;
        const dy = coords[2 * t + 1] - py;
        buffer[length] = s;
        buffer[length + step - 1] = t;
        length = (length + step * +(dx2 + dy * dy <= r2)) | 0;
      }
    }
    if (step === 1) rowEnd[s] = length;
  }
  sink.length = length;
}

/**
 * Hands the batched pairs of a VISIT search to the visitor and empties the batch, through one of two
 * functions chosen here rather than inside one shared function.
 *
 * Why two: a visitor declared with three parameters is passed a double, which
 * V8 boxes (one allocation per pair) unless the visitor is inlined at its
 * call site. V8 inlines a call only where it was frequent when the enclosing
 * code was optimised, so a distance loop inlined into a shared caller that
 * was optimised while two-index visitors ran keeps a cold, generic,
 * allocating call to a later three-parameter visitor for good (bench
 * workload 4 saw a dozen collections per frame). A batch is handed over
 * rarely per call of the search loops, so V8 compiles each of the two on its
 * own, where its visitor call is the hot loop. For the same reason the loops
 * are kept in each dimension's file: 2D and 3D users rarely share a visitor.
 */
function visitBatch(g: Grid2D, sink: PairSink): void {
  if (sink.withDistance) visitDistanceBatch(g, sink);
  else visitIndexBatch(sink);
}

/** {@link visitBatch} for a visitor of 0 to 2 parameters. */
function visitIndexBatch(sink: PairSink): void {
  const length = sink.length;
  // Emptied first: a visitor that throws leaves no pairs behind to hand over twice.
  sink.length = 0;
  if (sink.clamps) visitClamped(sink, length, null, 0);
  else visitIndices(sink.order, sink.buffer, length, sink.visitor as (i: number, j: number) => void);
}

/** {@link visitBatch} for a visitor of 3 parameters, with each pair's squared distance. */
function visitDistanceBatch(g: Grid2D, sink: PairSink): void {
  const length = sink.length;
  sink.length = 0;
  if (sink.clamps) visitClamped(sink, length, g.coords, 2);
  else visitWithDistance(g.coords, sink.order, sink.buffer, length, sink.visitor!);
}

/**
 * Calls `visit(i, j)` for the first `length / 2` pairs of sorted positions in
 * `buffer`, as original indices i < j. Which of the two is lower is a coin
 * toss for shuffled input, so it is worked out without a branch (see
 * {@link lowerMinusUpper}).
 */
function visitIndices(
  order: Uint32Array,
  buffer: Uint32Array,
  length: number,
  visit: (i: number, j: number) => void,
): void {
  for (let k = 0; k < length; k += 2) {
    const i = order[buffer[k]];
    const j = order[buffer[k + 1]];
    // lowerMinusUpper(i, j), written out: an imported function is looked up
    // and checked on every pair of this loop.
    const difference = i - j;
    const m = difference & (difference >> 31);
    visit(j + m, i - m);
  }
}

/**
 * Calls `visit(i, j, distanceSquared)` for the first `length / 2` pairs of
 * sorted positions in `buffer`, the distance recomputed exactly as the search
 * computed it.
 */
function visitWithDistance(
  coords: Float64Array | Float32Array,
  order: Uint32Array,
  buffer: Uint32Array,
  length: number,
  visit: PointPairVisitor,
): void {
  for (let k = 0; k < length; k += 2) {
    const s = buffer[k];
    const t = buffer[k + 1];
    const i = order[s];
    const j = order[t];
    const dx = coords[2 * t] - coords[2 * s];
    const dy = coords[2 * t + 1] - coords[2 * s + 1];
    const difference = i - j;
    const m = difference & (difference >> 31);
    visit(j + m, i - m, dx * dx + dy * dy);
  }
}
