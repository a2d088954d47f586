/**
 * The all-pairs search of a PointGrid3D over a half stencil: each pair of
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
import { extremeGrid3, pairsExtreme } from './extreme.js';
import type { Grid3D } from './grid3d.js';
import { SLACK, stencilReach } from './margins.js';
import type { PointPairVisitor } from './options.js';
import { COUNT, type lowerMinusUpper, type PairSink, VISIT, verifyAppended, visitClamped } from './pair-sink.js';

/** Hands every pair within `radius` to `sink` (already started). */
export function forEachPair3D(g: Grid3D, sink: PairSink, radius: number): void {
  if (g.points < 2) return;
  const r2 = radius * radius;
  if (g.coversEveryPair(radius)) {
    // Every pair passes the distance test (radius Infinity, or a huge one spanning the grid; see
    // core/distance.ts): the slice's points against all later ones.
    pairsFromCell(g, sink, sink.pointFrom, sink.pointTo, g.points, 0, r2);
  } else if (!isOrdinaryRadius(radius)) {
    // Any other extreme radius (its square overflows or is below 2^-896) takes the cold path.
    pairsExtreme(extremeGrid3(g), sink, radius, () => visitBatch(g, sink));
  } else {
    // On the WebAssembly kernels where they are on: the same pairs in the same order (src/wasm/grid-kernels.ts).
    if (sink.mode === VISIT) {
      if (visitPairs(g, radius, sink, sink, visitBatch)) return;
    } else if (sink.mode !== COUNT) {
      const base = sink.length;
      if (searchIntoSink(g, radius, sink)) {
        // (Mode 'verify': a PointGridWorkers thread's slices and the searches of pairs() past the kernels' room.)
        if (verifying()) verifyAppended('PointGrid3D pair search', sink, base, () => searchOrdinary(g, sink, radius));
        return;
      }
    }
    searchOrdinary(g, sink, radius);
  }
  if (sink.mode === VISIT) visitBatch(g, sink);
}

/** The JavaScript path's half-stencil search for an ordinary radius. */
function searchOrdinary(g: Grid3D, sink: PairSink, radius: number): void {
  const reach = stencilReach(radius, g.width, Math.max(g.cellsX, g.cellsY, g.cellsZ));
  if (g.dense) densePairs(g, sink, reach, radius * radius);
  else hashedPairs(g, sink, reach, radius * radius);
}

/**
 * Dense half stencil: the rest of the cell and the `reach` cells after it in
 * its row are one contiguous run of sorted points, and so is every row
 * (dy in 1..reach, same layer) and (any dy, dz in 1..reach) between
 * cx - reach and cx + reach.
 */
function densePairs(g: Grid3D, sink: PairSink, reach: number, r2: number): void {
  const cellsX = g.cellsX;
  const cellsY = g.cellsY;
  const cellsZ = g.cellsZ;
  const layer = cellsX * cellsY;
  const cellStart = g.cellStart;
  // One range per row of the stencil that the grid has (the rows above in this layer, then the rows of the
  // layers above): scratch in proportion to the grid's rows, however far the radius reaches.
  const needed = 2 * (Math.min(reach, cellsY - 1) + Math.min(reach, cellsZ - 1) * Math.min(2 * reach + 1, cellsY));
  if (g.ranges.length < needed) g.ranges = new Int32Array(grownLength(g.ranges.length, needed));
  if (g.edges.length < 2 * needed) g.edges = new Float64Array(grownLength(g.edges.length, 2 * needed));
  const ranges = g.ranges;
  const edges = g.edges;
  const width = g.width;
  // Only the slice's cells, sink.cellFrom to sink.cellTo - 1 (all of them by
  // default), walked row by row: row r is (cy, cz) = (r % cellsY, r / cellsY).
  const cellFrom = sink.cellFrom;
  const cellTo = sink.cellTo;
  const rows = cellsY * cellsZ;
  for (let r = Math.floor(cellFrom / cellsX); r < rows && r * cellsX < cellTo; r++) {
    const cz = Math.floor(r / cellsY);
    const cy = r - cz * cellsY;
    const layersAbove = Math.min(reach, cellsZ - 1 - cz);
    const row = r * cellsX;
    const rowsAbove = Math.min(reach, cellsY - 1 - cy);
    const yLow = Math.max(cy - reach, 0);
    const yHigh = Math.min(cy + reach, cellsY - 1);
    const xTo = Math.min(cellsX, cellTo - row);
    for (let cx = row < cellFrom ? cellFrom - row : 0; cx < xTo; cx++) {
      const start = cellStart[row + cx];
      const end = cellStart[row + cx + 1];
      if (start === end) continue;
      const left = cx > reach ? cx - reach : 0;
      const right = Math.min(cx + reach, cellsX - 1) + 1;
      const runEnd = cellStart[row + right];
      let count = 0;
      for (let dy = 1, other = row + cellsX; dy <= rowsAbove; dy++, other += cellsX) {
        const a = cellStart[other + left];
        const b = cellStart[other + right];
        if (a < b) {
          rangeEdges(edges, count, cy + dy, cy, 0, 0, width);
          ranges[count++] = a;
          ranges[count++] = b;
        }
      }
      for (let dz = 1; dz <= layersAbove; dz++) {
        const base = (cz + dz) * layer;
        for (let oy = yLow; oy <= yHigh; oy++) {
          const other = base + oy * cellsX;
          const a = cellStart[other + left];
          const b = cellStart[other + right];
          if (a < b) {
            rangeEdges(edges, count, oy, cy, cz + dz, cz, width);
            ranges[count++] = a;
            ranges[count++] = b;
          }
        }
      }
      pairsFromCell(g, sink, start, end, runEnd, count, r2);
    }
  }
}

/**
 * Hashed half stencil. Cell ids run in row-major order (see CellOrder), so,
 * as in the dense layout, the occupied cells after this one in its row
 * within reach directly follow it, and those of each other row of the
 * stencil (the rows above in its layer, every row of the layers above)
 * between kx - reach and kx + reach have consecutive ids: one run each,
 * whose first cell a cursor per stencil row finds, moving only forward as the
 * cells are visited in order (see hashedPairs in pairs2d.ts). When the
 * stencil is larger than the number of occupied cells, every later occupied
 * cell is tested instead.
 */
function hashedPairs(g: Grid3D, sink: PairSink, reach: number, r2: number): void {
  const cells = g.cellTotal;
  const keys = g.cellKeys;
  const cellStart = g.cellStart;
  const side = 2 * reach + 1;
  const half = reach + reach * side + reach * side * side;
  const scanAll = half > cells;
  const needed = 2 * (scanAll ? cells : reach + reach * side);
  if (g.ranges.length < needed) g.ranges = new Int32Array(grownLength(g.ranges.length, needed));
  if (g.edges.length < 2 * needed) g.edges = new Float64Array(grownLength(g.edges.length, 2 * needed));
  const ranges = g.ranges;
  const edges = g.edges;
  const width = g.width;
  // A cursor per stencil row: the rows above in this layer, then every row of the layers above.
  const rows = scanAll ? 0 : reach + reach * side;
  if (g.cursors.length < rows) g.cursors = new Int32Array(grownLength(g.cursors.length, rows));
  const cursors = g.cursors;
  cursors.fill(sink.cellFrom + 1, 0, rows);
  for (let c = sink.cellFrom; c < sink.cellTo; c++) {
    const kx = keys[3 * c];
    const ky = keys[3 * c + 1];
    const kz = keys[3 * c + 2];
    let count = 0;
    let runEnd = cellStart[c + 1];
    if (scanAll) {
      for (let other = c + 1; other < cells; other++) {
        if (
          Math.abs(keys[3 * other] - kx) <= reach &&
          Math.abs(keys[3 * other + 1] - ky) <= reach &&
          Math.abs(keys[3 * other + 2] - kz) <= reach
        ) {
          rangeEdges(edges, count, keys[3 * other + 1], ky, keys[3 * other + 2], kz, width);
          ranges[count++] = cellStart[other];
          ranges[count++] = cellStart[other + 1];
        }
      }
    } else {
      let next = c + 1;
      while (next < cells && keys[3 * next + 2] === kz && keys[3 * next + 1] === ky && keys[3 * next] <= kx + reach)
        next++;
      runEnd = cellStart[next];
      const left = kx - reach;
      let row = 0;
      for (let dz = 0; dz <= reach; dz++) {
        const z = kz + dz;
        for (let dy = dz === 0 ? 1 : -reach; dy <= reach; dy++, row++) {
          const y = ky + dy;
          // The first cell at or after (left, y, z) in (z, y, x) order.
          let first = cursors[row];
          while (first < cells) {
            const fz = keys[3 * first + 2];
            const fy = keys[3 * first + 1];
            if (fz > z || (fz === z && (fy > y || (fy === y && keys[3 * first] >= left)))) break;
            first++;
          }
          cursors[row] = first;
          if (first === cells || keys[3 * first + 2] !== z || keys[3 * first + 1] !== y || keys[3 * first] > kx + reach)
            continue;
          let last = first + 1;
          while (last < cells && keys[3 * last + 2] === z && keys[3 * last + 1] === y && keys[3 * last] <= kx + reach)
            last++;
          rangeEdges(edges, count, y, ky, z, kz, width);
          ranges[count++] = cellStart[first];
          ranges[count++] = cellStart[last];
        }
      }
    }
    pairsFromCell(g, sink, cellStart[c], cellStart[c + 1], runEnd, count, r2);
  }
}

/**
 * Records where the cells of the range at `ranges[count]` lie in y and z
 * relative to the searched cell (rows `ry` vs `cy`, layers `rz` vs `cz`), for
 * pairsFromCell to narrow its x window: at `edges[2 * count]`, per axis, the
 * coordinate (relative to the origin) of the range's border nearest the
 * searched cell and the side it is on (1: above, -1: below, 0: same).
 */
function rangeEdges(edges: Float64Array, count: number, ry: number, cy: number, rz: number, cz: number, width: number) {
  const e = 2 * count;
  // (An axis's edge on the same row or layer is unused: 0, never a product that could overflow and times 0 give NaN.)
  edges[e] = ry > cy ? ry * width : ry < cy ? (ry + 1) * width : 0;
  edges[e + 1] = ry > cy ? 1 : ry < cy ? -1 : 0;
  edges[e + 2] = rz > cz ? rz * width : rz < cz ? (rz + 1) * width : 0;
  edges[e + 3] = rz > cz ? 1 : rz < cz ? -1 : 0;
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
  g: Grid3D,
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
  const originZ = g.originZ;
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
    const px = coords[3 * s];
    const py = coords[3 * s + 1];
    const pz = coords[3 * s + 2];
    for (let t = s + 1; t < runEnd; t++) {
      const dx = coords[3 * t] - px;
      const dx2 = dx * dx;
      if (dx2 > r2) break;
      const dy = coords[3 * t + 1] - py;
      const dz = coords[3 * t + 2] - pz;
      buffer[length] = s;
      buffer[length + step - 1] = t;
      length = (length + step * +(dx2 + dy * dy + dz * dz <= r2)) | 0;
    }
    const relY = py - originY;
    const relZ = pz - originZ;
    for (let k = 0; k < rangeCount; k += 2) {
      const stop = ranges[k + 1];
      let t = ranges[k];
      while (t < stop) {
        const dx = coords[3 * t] - px;
        if (dx >= 0 || dx * dx <= r2) break;
        t++;
      }
      ranges[k] = t;
      // The x window of this range: no point of it is nearer in y than gapY
      // nor in z than gapZ, each bound lowered by a margin for the rounding of
      // cell borders and of relY, relZ; the window is widened by one for the
      // distance test's own rounding, so it holds every pair the test accepts.
      const e = 2 * k;
      const edgeY = edges[e];
      const edgeZ = edges[e + 2];
      // (Written so that a NaN from overflowing edges of huge cells counts as no gap, never as a window of NaN.)
      const belowY = edges[e + 1] * (edgeY - relY) - (Math.abs(edgeY) + Math.abs(relY) + width) * slack;
      const belowZ = edges[e + 3] * (edgeZ - relZ) - (Math.abs(edgeZ) + Math.abs(relZ) + width) * slack;
      const gapY = belowY > 0 ? belowY : 0;
      const gapZ = belowZ > 0 ? belowZ : 0;
      const window2 = r2 - gapY * gapY - gapZ * gapZ + r2 * slack;
      // (ranges[k] moves on by the radius alone: the window changes from point to point.)
      while (t < stop) {
        const dx = coords[3 * t] - px;
        if (dx >= 0 || dx * dx <= window2) break;
        t++;
      }
      for (; t < stop; t++) {
        const dx = coords[3 * t] - px;
        const dx2 = dx * dx;
        if (dx2 > window2) break;
        const dy = coords[3 * t + 1] - py;
        const dz = coords[3 * t + 2] - pz;
        buffer[length] = s;
        buffer[length + step - 1] = t;
        length = (length + step * +(dx2 + dy * dy + dz * dz <= r2)) | 0;
      }
    }
    if (step === 1) rowEnd[s] = length;
  }
  sink.length = length;
}

/**
 * Hands the batched pairs of a VISIT search to the visitor and empties the batch, through one of two
 * functions chosen here rather than inside one shared function: see
 * visitBatch in pairs2d.ts for why. The loops are kept in each dimension's
 * file: 2D and 3D users rarely share a visitor.
 */
function visitBatch(g: Grid3D, sink: PairSink): void {
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
function visitDistanceBatch(g: Grid3D, sink: PairSink): void {
  const length = sink.length;
  sink.length = 0;
  if (sink.clamps) visitClamped(sink, length, g.coords, 3);
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
    const dx = coords[3 * t] - coords[3 * s];
    const dy = coords[3 * t + 1] - coords[3 * s + 1];
    const dz = coords[3 * t + 2] - coords[3 * s + 2];
    const difference = i - j;
    const m = difference & (difference >> 31);
    visit(j + m, i - m, dx * dx + dy * dy + dz * dz);
  }
}
