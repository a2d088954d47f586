/**
 * Runs the half-stencil pair search of the JavaScript path (pair-search.ts,
 * generated from src/templates/pairs.template.ts with the kernels' search)
 * into a {@link PairSink}: sets the search up, and whenever it stops for
 * room, empties or grows the sink's buffer by the sink's mode and calls it
 * again, as src/wasm/pair-kernels.ts does for the kernels' search.
 *
 * @module
 */
import { grownLength } from '../core/grow.js';
import { stencilReach } from '../core/margins.js';
import type { Grid2D } from './grid2d.js';
import type { Grid3D } from './grid3d.js';
import { PairSearch } from './pair-search.js';
import { COUNT, type PairSink, VISIT } from './pair-sink.js';

/** A search's state per grid: kept from call to call, one per grid so that a visitor may search another grid. */
const searches = new WeakMap<Grid2D | Grid3D, PairSearch>();

/** What to do with the sink's batch when a VISIT search stops for room (visitBatch2 / visitBatch3 of pair-visits.ts). */
export type BatchVisit<G> = (grid: G, sink: PairSink) => void;

/**
 * The half-stencil search of `radius` (ordinary, see isOrdinaryRadius) over
 * the sink's slice of `g`, by `search` (searchPairs2D or searchPairs3D),
 * every pair going to `sink` as its mode says; a VISIT search's last batch
 * is left in the sink for the caller to hand over.
 */
export function searchPairsInto<G extends Grid2D | Grid3D>(
  g: G,
  sink: PairSink,
  radius: number,
  search: (grid: G, st: PairSearch) => number,
  visit: BatchVisit<G>,
): void {
  let st = searches.get(g);
  if (st === undefined) {
    st = new PairSearch();
    searches.set(g, st);
  }
  start(g, st, sink, radius);
  for (;;) {
    const done = search(g, st) === 0;
    sink.length = st.length;
    if (done) return;
    // The next point's worst case does not fit: hand the batch over, or count it, or grow the buffer.
    if (sink.mode === VISIT) visit(g, sink);
    else if (sink.mode === COUNT) {
      sink.counted += sink.length / 2;
      sink.length = 0;
    }
    const needed = sink.length + st.needed;
    if (needed > sink.buffer.length) sink.reserve(needed, sink.length, st.point / g.points);
    st.out = sink.buffer;
    st.outCapacity = sink.buffer.length;
    st.length = sink.length;
  }
}

/**
 * Sets `st` up for a search of the sink's slice of `g`, with scratch for the
 * largest stencil a cell can gather: as startSearch of src/wasm/pair-kernels.ts sizes
 * the kernels' (one range per stencil row the grid has, or per later cell
 * when a hashed grid's stencil spans more cells than it holds).
 */
function start(g: Grid2D | Grid3D, st: PairSearch, sink: PairSink, radius: number): void {
  const three = g.dimension === 3;
  const cellsZ = three ? (g as Grid3D).cellsZ : 1;
  const reach = stencilReach(radius, g.width, Math.max(g.cellsX, g.cellsY, cellsZ));
  const side = 2 * reach + 1;
  const half = three ? reach + reach * side + reach * side * side : reach + reach * side;
  const scanAll = !g.dense && half > g.cellTotal;
  const stencilRows = three ? reach + reach * side : reach;
  const denseRows = three
    ? Math.min(reach, g.cellsY - 1) + Math.min(reach, cellsZ - 1) * Math.min(side, g.cellsY)
    : Math.min(reach, g.cellsY - 1);
  const rangeNumbers = 2 * (scanAll ? g.cellTotal : g.dense ? denseRows : stencilRows);
  if (st.ranges.length < rangeNumbers) st.ranges = new Int32Array(grownLength(st.ranges.length, rangeNumbers));
  const edgeNumbers = three ? 2 * rangeNumbers : rangeNumbers;
  if (st.edges.length < edgeNumbers) st.edges = new Float64Array(grownLength(st.edges.length, edgeNumbers));
  const cursorRows = g.dense || scanAll ? 0 : stencilRows;
  if (st.cursors.length < cursorRows) st.cursors = new Int32Array(grownLength(st.cursors.length, cursorRows));
  st.cursors.fill(sink.cellFrom + 1, 0, cursorRows);
  st.reachF = reach;
  // (Loops over the reach run only where it is below the cell count: see the kernels' startSearch.)
  st.reach = Math.min(reach, 2 ** 30);
  st.r2 = radius * radius;
  st.scanAll = scanAll;
  st.cellTo = sink.cellTo;
  st.cell = sink.cellFrom;
  st.point = 0;
  st.cellEnd = 0;
  st.runEnd = 0;
  st.rangeCount = -1;
  st.needed = 0;
  st.step = sink.step;
  st.rowEnd = sink.rowEnd;
  st.out = sink.buffer;
  st.outCapacity = sink.buffer.length;
  st.length = sink.length;
}

/**
 * Every pair of the sink's slice of `g` (sorted positions pointFrom to
 * pointTo - 1, each with every later point of the grid): a radius that passes
 * every pair (Infinity, or a huge one spanning the grid; see
 * Grid2D.coversEveryPair), whose count is known, with room made as the
 * search makes it.
 */
export function everyPairInto<G extends Grid2D | Grid3D>(g: G, sink: PairSink, visit: BatchVisit<G>): void {
  const n = g.points;
  const step = sink.step;
  for (let s = sink.pointFrom; s < sink.pointTo; s++) {
    const most = n - s - 1;
    if (sink.length + step * most > sink.buffer.length) {
      if (sink.mode === VISIT) visit(g, sink);
      else if (sink.mode === COUNT) {
        sink.counted += sink.length / 2;
        sink.length = 0;
      }
      const needed = sink.length + step * most;
      if (needed > sink.buffer.length) sink.reserve(needed, sink.length, s / n);
    }
    const buffer = sink.buffer;
    let length = sink.length;
    for (let t = s + 1; t < n; t++) {
      buffer[length] = s;
      buffer[length + step - 1] = t;
      length += step;
    }
    sink.length = length;
    if (step === 1) sink.rowEnd[s] = length;
  }
}
