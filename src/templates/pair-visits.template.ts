// forEachPair, pairs and neighbors of a PointGrid, per dimension: which search answers (every pair, the cold path
// of extreme radii, the kernels, the JavaScript half-stencil search of pair-search.ts) and how a VISIT search's
// batches reach the visitor. The JavaScript path only (the kernels' search hands its batches back to these), so
// this template has one output; it is a template for its two dimensions, which must stay separate functions:
//
// A visitor declared with three parameters is passed a double, which V8 boxes (one allocation per pair) unless
// the visitor is inlined at its call site. V8 inlines a call only where it was frequent when the enclosing code
// was optimised, so a distance loop inlined into a shared caller that was optimised while two-index visitors ran
// keeps a cold, generic, allocating call to a later three-parameter visitor for good (bench workload 4 saw a
// dozen collections per frame). So a batch goes through one of two functions, chosen here rather than inside one
// shared function; a batch is handed over rarely per call of the search loops, so V8 compiles each of the two on
// its own, where its visitor call is the hot loop. For the same reason each dimension has its own functions: 2D
// and 3D users rarely share a visitor.

//#output js src/pointgrid/pair-visits.ts

//#macro all2 offsets() = const dx = coords[2 * t] - coords[2 * s]; const dy = coords[2 * t + 1] - coords[2 * s + 1]
//#macro all3 offsets() = const dx = coords[3 * t] - coords[3 * s]; const dy = coords[3 * t + 1] - coords[3 * s + 1]; const dz = coords[3 * t + 2] - coords[3 * s + 2]
//#macro all2 sum() = dx * dx + dy * dy
//#macro all3 sum() = dx * dx + dy * dy + dz * dz

/**
 * The all-pairs searches of PointGrid2D and PointGrid3D over a half stencil:
 * each pair of neighbouring cells is visited once, pairs within a cell once
 * (i < j), and every pair found goes to a {@link PairSink}. Internal:
 * arguments are checked by the public classes. See the template for why each
 * dimension has functions of its own.
 *
 * @module
 */
import { isOrdinaryRadius } from '../core/distance.js';
import { verifying } from '../wasm/kernels.js';
import { searchIntoSink, visitPairs } from '../wasm/pair-kernels.js';
import { extremeGrid, pairsExtreme } from './extreme.js';
import type { Grid2D } from './grid2d.js';
import type { Grid3D } from './grid3d.js';
import type { PointPairVisitor } from './options.js';
import { everyPairInto, searchPairsInto } from './pair-driver.js';
import { searchPairs2D, searchPairs3D } from './pair-search.js';
import { COUNT, type lowerMinusUpper, type PairSink, VISIT, verifyAppended, visitClamped } from './pair-sink.js';

/**
 * Hands a batch the kernels mapped to original indices (see visitPairs) whole to forEachPairBatch's visitor, and
 * empties it.
 */
function handOriginalBatch(_g: unknown, sink: PairSink): void {
  const length = sink.length;
  sink.length = 0;
  sink.batchVisitor!(sink.buffer, length >> 1);
}

//#for D of 2 3
/** Hands every pair within `radius` to `sink` (already started). */
export function forEachPair${D}D(g: Grid${D}D, sink: PairSink, radius: number): void {
  if (g.points < 2) return;
  if (g.coversEveryPair(radius)) {
    // Every pair passes the distance test (radius Infinity, or a huge one spanning the grid; see
    // core/distance.ts): the slice's points against all later ones.
    everyPairInto(g, sink, visitBatch${D});
  } else if (!isOrdinaryRadius(radius)) {
    // Any other extreme radius (its square overflows or is below 2^-896) takes the cold path.
    pairsExtreme(extremeGrid(g), sink, radius, () => visitBatch${D}(g, sink));
  } else {
    // On the WebAssembly kernels where they are on: the same pairs in the same order (src/wasm/pair-kernels.ts).
    if (sink.mode === VISIT) {
      // forEachPairBatch's batches are mapped to original indices in the kernels, and handed over whole.
      if (sink.batchVisitor !== undefined ? visitPairs(g, radius, sink, sink, handOriginalBatch, true) : visitPairs(g, radius, sink, sink, visitBatch${D})) return;
    } else if (sink.mode !== COUNT) {
      const base = sink.length;
      if (searchIntoSink(g, radius, sink)) {
        // (Mode 'verify': a PointGridWorkers thread's slices and the searches of pairs() past the kernels' room.)
        if (verifying()) {
          verifyAppended('PointGrid${D}D pair search', sink, base, () =>
            searchPairsInto(g, sink, radius, searchPairs${D}D, visitBatch${D}),
          );
        }
        return;
      }
    }
    searchPairsInto(g, sink, radius, searchPairs${D}D, visitBatch${D});
  }
  if (sink.mode === VISIT) visitBatch${D}(g, sink);
}

/** Hands the batched pairs of a VISIT search to the visitor and empties the batch (see the template for why so). */
function visitBatch${D}(g: Grid${D}D, sink: PairSink): void {
  if (sink.batchVisitor !== undefined) sink.handBatch();
  else if (sink.withDistance) visitDistanceBatch${D}(g, sink);
  else visitIndexBatch${D}(sink);
}

/** {@link visitBatch${D}} for a visitor of 0 to 2 parameters. */
function visitIndexBatch${D}(sink: PairSink): void {
  const length = sink.length;
  // Emptied first: a visitor that throws leaves no pairs behind to hand over twice.
  sink.length = 0;
  if (sink.clamps) visitClamped(sink, length, null, 0);
  else visitIndices${D}(sink.order, sink.buffer, length, sink.visitor as (i: number, j: number) => void);
}

/** {@link visitBatch${D}} for a visitor of 3 parameters, with each pair's squared distance. */
function visitDistanceBatch${D}(g: Grid${D}D, sink: PairSink): void {
  const length = sink.length;
  sink.length = 0;
  if (sink.clamps) visitClamped(sink, length, g.coords, ${D});
  else visitWithDistance${D}(g.coords, sink.order, sink.buffer, length, sink.visitor!);
}

/**
 * Calls `visit(i, j)` for the first `length / 2` pairs of sorted positions in
 * `buffer`, as original indices i < j. Which of the two is lower is a coin
 * toss for shuffled input, so it is worked out without a branch (see
 * {@link lowerMinusUpper}).
 */
function visitIndices${D}(
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
function visitWithDistance${D}(
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
    @offsets();
    const difference = i - j;
    const m = difference & (difference >> 31);
    visit(j + m, i - m, @sum());
  }
}

//#endfor
