/**
 * Where a pair search sends what it finds (PairSink): a batch for a visitor,
 * flat pairs, or per-point partner runs turned into CSR rows.
 *
 * @module
 */
import { isOrdinaryRadius } from '../core/distance.js';
import { type NeighborLists, reuseArray, roomView, roomyArray } from '../core/results.js';
import { checkDistance, describe } from '../core/validate.js';
import { onJavaScript, onKernels, verifying } from '../wasm/kernels.js';
import type { KernelGrid } from '../wasm/layout.js';
import { collectPairs, neighborRows } from '../wasm/pair-kernels.js';
import { verifyError, verifySame } from '../wasm/verify.js';
import {
  checkResultLength,
  type NeighborsOptions,
  type PairSearchOptions,
  type PairsOptions,
  type PointPairBatchVisitor,
  type PointPairVisitor,
  partCell,
  resolveMaxResultLength,
  resolveOut,
  resolvePairsOut,
  resolvePart,
} from './options.js';

/**
 * min(i, j) - j for two point indices, without a branch: (j + m, i - m) is
 * then (min, max). A branch on i < j costs a misprediction on every other
 * pair of shuffled points, a third of a whole pair search. Exact because
 * indices stay below {@link MAX_POINTS}, so i - j is a 32-bit integer and
 * >> 31 its sign.
 */
export function lowerMinusUpper(i: number, j: number): number {
  const difference = i - j;
  return difference & (difference >> 31);
}

/** What a {@link PairSink} does with each pair: call the visitor. */
export const VISIT = 0;
/** ... append it, as sorted positions, to `buffer` (pairs()). */
export const COLLECT = 1;
/**
 * ... append only its second sorted position to `buffer`, with `rowEnd[s]`
 * marking where the partners found for point s end (neighbors()): half the
 * memory of COLLECT, because a search handles the points in ascending sorted
 * position, so each point's partners are one run.
 */
export const ROWS = 2;
/**
 * ... only count it (`counted`), the batch emptied as in VISIT mode: how a
 * pairs() or neighbors() call whose buffer outgrew its ceiling learns the
 * size of its result before taking the memory for it.
 */
export const COUNT = 3;

const EMPTY = new Uint32Array(0);

/**
 * Numbers a pairs() or neighbors() search's buffer may hold before the call
 * stops and counts its pairs first: this many, plus {@link SCRATCH_PER_POINT}
 * per point, or a quarter more than the last search found (so a steady loop
 * of large results counts once, not every frame). Results of up to 32 pairs
 * per point (pairs()) or 64 (neighbors()) never stop; larger ones pay a
 * counting pass, and one too long to return (see checkResultLength) throws
 * after at most this much memory was taken, in O(points) rather than in
 * proportion to the pairs.
 */
const SCRATCH_BASE = 2 ** 24;
/** See {@link SCRATCH_BASE}. */
const SCRATCH_PER_POINT = 64;

/**
 * Numbers a pairs() or neighbors() search over `points` points may hold
 * before it counts its pairs first (see {@link SCRATCH_BASE}); PointGridWorkers
 * shares out the same allowance among its threads.
 */
export function searchRoom(points: number): number {
  return SCRATCH_BASE + SCRATCH_PER_POINT * points;
}

/** Thrown by {@link PairSink.reserve} past the ceiling, caught by the call that set it. */
class Outgrown extends Error {}
const OUTGROWN = new Outgrown('pair search outgrew its ceiling (internal)');

/** Whether `error` is a search stopping at its ceiling (see {@link PairSink.ceiling}) rather than a failure. */
export function isOutgrown(error: unknown): boolean {
  return error === OUTGROWN;
}

/**
 * Mode 'verify', after a COLLECT or ROWS search on the kernels appended to
 * `sink` from `base` on: runs the JavaScript search (`rerun`) in its place
 * and compares what the two appended (and, for ROWS, the partner runs' ends).
 */
export function verifyAppended(what: string, sink: PairSink, base: number, rerun: () => void): void {
  const pairs = sink.buffer.slice(base, sink.length);
  const ends = sink.step === 1 ? sink.rowEnd.slice(sink.pointFrom, sink.pointTo) : undefined;
  sink.length = base;
  onJavaScript(rerun);
  verifySame(what, 'the pairs found', pairs, sink.buffer.subarray(base, sink.length));
  if (ends !== undefined)
    verifySame(what, 'the partner runs', ends, sink.rowEnd.subarray(sink.pointFrom, sink.pointTo));
}

/** What {@link knownPairCount} reads of a grid. */
export interface CoveredGrid {
  /** Number of points. */
  readonly points: number;
  /** Whether every pair is within `radius` (Grid2D.coversEveryPair). */
  coversEveryPair(radius: number): boolean;
}

/**
 * Pairs that a search of `radius` over sorted positions from..to-1 of the
 * grid's points finds, when that is known without searching (a radius that
 * passes every pair: Infinity, or a huge one spanning the grid; each position
 * pairs with every later one); else -1.
 */
export function knownPairCount(grid: CoveredGrid, radius: number, from = 0, to = grid.points): number {
  return grid.coversEveryPair(radius) ? everyPairCount(grid.points, from, to) : -1;
}

/** What a pair search needs of a grid besides its own dimension's data. */
export interface SearchedGrid {
  /** 2 or 3. */
  readonly dimension: 2 | 3;
  /**
   * Reads the header again when another grid rebuilt the buffer (Grid2D.sync);
   * throws when the grid's buffer was transferred away.
   */
  sync(method: string): void;
  /**
   * Whether another thread may write the grid's buffer, or its body was not
   * checked (from() with check 'header'): indices handed to a visitor are
   * then clamped to the count (see core/bounded.ts).
   */
  clampsIndices: boolean;
  /** Original index of each sorted position. */
  sortedIndex: Uint32Array;
  /** Number of points. */
  points: number;
  /** Cell starts, `cellTotal + 1` of them. */
  cellStart: Int32Array;
  /** Cells indexed by cellStart. */
  cellTotal: number;
  /** Whether every pair is within `radius` (Grid2D.coversEveryPair): its count is then known without a search. */
  coversEveryPair(radius: number): boolean;
}

/** The half-stencil pair search of one grid type (forEachPair2D or forEachPair3D). */
export type PairSearch<G> = (grid: G, sink: PairSink, radius: number) => void;

/**
 * Where a pair search sends what it finds, one long-lived object per grid so
 * that a steady loop of rebuild + forEachPair allocates nothing. It also
 * guards against a pair search starting inside another one (the searches
 * share the grid's range buffer).
 */
export class PairSink {
  /** True while a search runs. */
  busy = false;
  mode = VISIT;
  visitor: PointPairVisitor | undefined = undefined;
  /**
   * Whether the visitor gets the squared distance: only one declared with three
   * parameters or more. A double passed to a call V8 does not inline is boxed,
   * an allocation per pair, while two small integers allocate nothing, so a
   * visitor of 0, 1 or 2 parameters is called with the pair only. The two
   * kinds are called from separate functions (see src/templates/pair-visits.template.ts),
   * each optimised on its own, so a distance-taking visitor is inlined into a
   * loop that only ever calls distance-taking visitors (bench workload 4
   * checks that no arity allocates).
   */
  withDistance = false;
  /**
   * forEachPairBatch's visitor, while one runs: each batch then goes to it whole, as original index pairs (mapped
   * by the kernels, or into {@link mapped} on the JavaScript path), instead of pair by pair to {@link visitor}.
   */
  batchVisitor: PointPairBatchVisitor | undefined = undefined;
  /** The JavaScript path's batches as original index pairs, for {@link batchVisitor}; kept between searches. */
  private mapped: Uint32Array = EMPTY;
  /** Original index of each sorted position (the grid's sortedIndex). */
  order: Uint32Array = EMPTY;
  /**
   * Flat pairs of sorted positions found and not yet handed over, `length`
   * numbers used: the growing result of a COLLECT search, or the batch a
   * VISIT search hands to the visitor whenever it fills up.
   */
  buffer: Uint32Array = EMPTY;
  length = 0;
  /**
   * Numbers written per pair: 2 (both sorted positions), or 1 in ROWS mode.
   * The search writes s at `length` and t at `length + step - 1`, so in ROWS
   * mode t simply overwrites s, with no branch in the loop.
   */
  step = 2;
  /** ROWS mode: end of point s's run of partners in `buffer`, per sorted position. */
  rowEnd: Uint32Array = EMPTY;
  /**
   * The VISIT batch, kept between searches so that a steady loop allocates
   * nothing. Batching is what makes the search fast: the distance test only
   * decides whether the write position advances, with no branch to
   * mispredict (about half the candidates pass), and the visitor is then
   * called from a short loop of its own that V8 can inline it into.
   */
  private batch: Uint32Array = new Uint32Array(4096);
  /** Cells the search handles: cellFrom to cellTo - 1 (a slice, see PairSearchOptions). */
  cellFrom = 0;
  cellTo = 0;
  /** The last point index of the grid searched: indices handed over are clamped to it (see core/bounded.ts). */
  top = 0;
  /**
   * Whether the visitor gets indices clamped to `top` (visitClamped): for a
   * grid whose buffer may change under the search (SearchedGrid.clampsIndices).
   */
  clamps = false;
  /** Sorted positions of the points in those cells: pointFrom to pointTo - 1. */
  pointFrom = 0;
  pointTo = 0;
  /** Pairs the next COLLECT or ROWS search makes room for first: the last one's count plus an eighth. */
  private guess = 32;
  /**
   * Numbers the buffer may grow to before {@link reserve} throws OUTGROWN
   * (see SCRATCH_BASE): set by pairs() and neighbors() for their search,
   * Infinity otherwise (a VISIT search, or the pool's threads).
   */
  ceiling = Number.POSITIVE_INFINITY;
  /** Pairs a COUNT search counted. */
  counted = 0;
  /**
   * Whether a ROWS or COLLECT search keeps its buffer (and rowEnd) for the
   * next one instead of allocating fresh arrays: for worker threads
   * (PointGridWorkers), whose results are consumed before their next search.
   * Fresh memory costs a page fault per 4 KiB on first touch, which is most
   * of a search's time on some virtual machines when threads fault at once.
   */
  retain = false;
  /** Whether the running ROWS search keeps its scratch (retain, or a neighbors() call given `out`). */
  private keeping = false;
  private keptBuffer: Uint32Array = EMPTY;
  private keptRowEnd: Uint32Array = EMPTY;
  /** neighborRows' row cursors, kept with the rest of the scratch. */
  private keptCursor: Uint32Array = EMPTY;

  /**
   * Starts a search over a grid whose sorted positions map to `order`; throws
   * when one is already running. A ROWS search reuses the scratch of the last
   * kept one when `keep` (default: {@link retain}); with `append` (after a
   * kept search in the same mode) it also keeps that one's pairs or partner
   * runs and row ends, and adds its own after them (another slice of the same
   * grid, by the same thread). A COLLECT or ROWS search that keeps nothing
   * writes into `initial` (an earlier result's room) when it is not empty.
   */
  start(
    mode: number,
    order: Uint32Array,
    owner: string,
    keep = this.retain,
    append = false,
    initial?: Uint32Array,
  ): void {
    if (this.busy) throw new Error(`${owner}: a pair search cannot start inside another pair search`);
    this.busy = true;
    this.mode = mode;
    this.order = order;
    if (append) {
      // Another slice of the same grid after the last kept search: its pairs or runs go on after that one's.
      this.step = mode === ROWS ? 1 : 2;
      this.keeping = true;
      this.buffer = this.keptBuffer;
      this.rowEnd = this.keptRowEnd;
      return;
    }
    this.length = 0;
    this.step = mode === ROWS ? 1 : 2;
    this.keeping = keep && mode !== VISIT;
    if (this.keeping) {
      this.rowEnd =
        mode !== ROWS
          ? EMPTY
          : this.keptRowEnd.length >= order.length
            ? this.keptRowEnd.fill(0)
            : new Uint32Array(order.length);
      // A kept buffer is reused whatever its size: the search grows it when a frame has more pairs (reserve), and
      // replacing it whenever the guess outgrows it would allocate on every frame whose count rose a little.
      this.buffer = this.keptBuffer.length > 0 ? this.keptBuffer : new Uint32Array(this.guess);
    } else {
      this.rowEnd = mode === ROWS ? new Uint32Array(order.length) : EMPTY;
      this.buffer =
        mode === VISIT
          ? this.batch
          : initial !== undefined && initial.length > 0
            ? initial
            : new Uint32Array(this.guess * this.step);
    }
  }

  /** Restricts the next search to slice `part` of `parts` of `grid`'s cells (0 of 1: all of them). */
  slice(grid: SearchedGrid, part: number, parts: number): void {
    this.top = grid.points - 1;
    this.clamps = grid.clampsIndices;
    const cells = grid.cellTotal;
    this.cellFrom = partCell(grid.cellStart, cells, grid.points, part, parts);
    this.cellTo = partCell(grid.cellStart, cells, grid.points, part + 1, parts);
    // (Clamped to the points, whatever a shared buffer holds: see core/bounded.ts.)
    this.pointFrom = Math.min(Math.max(grid.cellStart[this.cellFrom], 0), grid.points);
    this.pointTo = Math.min(Math.max(grid.cellStart[this.cellTo], this.pointFrom), grid.points);
  }

  /** Ends a search (also after a throw) and lets go of the caller's arrays. */
  finish(): void {
    if (this.mode === VISIT) this.batch = this.buffer;
    else this.guess = Math.max(32, Math.ceil((this.length / this.step) * 1.125));
    if (this.keeping) {
      this.keptBuffer = this.buffer;
      if (this.mode === ROWS) this.keptRowEnd = this.rowEnd;
    }
    this.keeping = false;
    this.busy = false;
    this.ceiling = Number.POSITIVE_INFINITY;
    this.visitor = undefined;
    this.batchVisitor = undefined;
    this.withDistance = false;
    this.order = EMPTY;
    this.buffer = EMPTY;
    this.rowEnd = EMPTY;
  }

  /**
   * Makes room for `needed` numbers in the buffer, keeping the first `length`;
   * returns the buffer. A VISIT search hands its batch over before calling
   * this, so the batch only grows for a single point with more candidates
   * than it holds.
   */
  reserve(needed: number, length: number, done: number): Uint32Array {
    // Past the ceiling the call counts its pairs before it takes more memory (see SCRATCH_BASE).
    if (needed > this.ceiling && this.mode !== COUNT) throw OUTGROWN;
    // Once a sixty-fourth of the points is done, grow to what the search so
    // far predicts for the whole (plus an eighth), at most 4x at a time: a
    // first search over a million points then allocates and copies its buffer
    // a few times rather than twenty, and a crowded start cannot make it
    // reserve wildly more than it will use. Doubling covers the rest.
    const current = this.buffer.length;
    const predicted = done >= 1 / 64 ? Math.min(Math.ceil((length / done) * 1.125), 4 * current) : 0;
    const size = Math.max(needed, 2 * current, predicted);
    const grown = new Uint32Array(this.mode === COUNT ? size : Math.min(size, this.ceiling));
    grown.set(this.buffer.subarray(0, length));
    this.buffer = grown;
    return grown;
  }

  /**
   * forEachPair of either grid: checks the arguments and runs `search` (the
   * grid's half-stencil search) with every pair going to `visit`.
   */
  visitPairs<G extends SearchedGrid>(
    owner: string,
    grid: G,
    radius: number,
    visit: PointPairVisitor,
    search: PairSearch<G>,
    options?: PairSearchOptions,
  ): void {
    checkVisit(radius, visit);
    if (verifying()) {
      this.verifiedVisits(owner, grid, radius, visit, search, options);
      return;
    }
    this.startVisits(owner, grid, 'forEachPair', options);
    this.visitor = visit;
    this.withDistance = visit.length >= 3;
    try {
      search(grid, this, radius);
    } finally {
      this.finish();
    }
  }

  /** Starts the VISIT search of forEachPair or forEachPairBatch (`method`) over the slice `options` names. */
  private startVisits(owner: string, grid: SearchedGrid, method: string, options?: PairSearchOptions): void {
    // (Indexed, not destructured: destructuring runs an iterator, garbage on every search.)
    const slice = resolvePart(options);
    grid.sync(method);
    this.start(VISIT, grid.sortedIndex, owner);
    this.slice(grid, slice[0], slice[1]);
  }

  /**
   * forEachPairBatch of either grid: checks the arguments and runs `search` with every batch of pairs going to
   * `visit` (see {@link batchVisitor}).
   */
  visitBatches<G extends SearchedGrid>(
    owner: string,
    grid: G,
    radius: number,
    visit: PointPairBatchVisitor,
    search: PairSearch<G>,
    options?: PairSearchOptions,
  ): void {
    checkVisit(radius, visit);
    if (verifying()) {
      this.verifiedBatches(owner, grid, radius, visit, search, options);
      return;
    }
    this.startVisits(owner, grid, 'forEachPairBatch', options);
    this.batchVisitor = visit;
    try {
      search(grid, this, radius);
    } finally {
      this.finish();
    }
  }

  /**
   * Hands the JavaScript path's batch (sorted positions) to {@link batchVisitor} as original index pairs, clamped
   * to the point count as {@link visitClamped} clamps them, and empties it.
   */
  handBatch(): void {
    const length = this.length;
    // (The search ends with a hand-over, empty or not: a batch visitor is never handed none.)
    if (length === 0) return;
    // Emptied first, as visitBatch does: a visitor that throws leaves no pairs behind to hand over twice.
    this.length = 0;
    if (this.mapped.length < length) this.mapped = new Uint32Array(this.buffer.length);
    writePairs(this.order, this.buffer, length, this.mapped, 0, this.top + 1);
    this.batchVisitor!(this.mapped, length >> 1);
  }

  /**
   * forEachPairBatch in mode 'verify': the kernels' pairs collected, then the JavaScript search's batches, each
   * pair compared with the kernels' at the same place before the batch goes to the visitor.
   */
  private verifiedBatches<G extends SearchedGrid>(
    owner: string,
    grid: G,
    radius: number,
    visit: PointPairBatchVisitor,
    search: PairSearch<G>,
    options?: PairSearchOptions,
  ): void {
    const what = `${owner}.forEachPairBatch`;
    const seen: number[] = [];
    onKernels(() =>
      this.visitBatches(
        owner,
        grid,
        radius,
        (pairs, count) => {
          for (let k = 0; k < 2 * count; k++) seen.push(pairs[k]);
        },
        search,
        options,
      ),
    );
    let at = 0;
    const compare = (pairs: Uint32Array, count: number): void => {
      for (let k = 0; k < 2 * count; k += 2, at += 2) {
        if (at >= seen.length) throw verifyError(what, `the kernels find ${at / 2} pairs, JavaScript more`);
        if (seen[at] !== pairs[k] || seen[at + 1] !== pairs[k + 1]) {
          throw verifyError(
            what,
            `pair ${at / 2} is (${seen[at]}, ${seen[at + 1]}) on the kernels, (${pairs[k]}, ${pairs[k + 1]}) in JavaScript`,
          );
        }
      }
      visit(pairs, count);
    };
    onJavaScript(() => this.visitBatches(owner, grid, radius, compare, search, options));
    if (at !== seen.length) throw verifyError(what, `the kernels find ${seen.length / 2} pairs, JavaScript ${at / 2}`);
  }

  /**
   * forEachPair in mode 'verify': the kernels' visits collected (the visitor
   * is not called), then the JavaScript search's, each compared with the
   * kernels' at the same place before it goes to the visitor. A visitor of
   * three parameters has the squared distances compared too.
   */
  private verifiedVisits<G extends SearchedGrid>(
    owner: string,
    grid: G,
    radius: number,
    visit: PointPairVisitor,
    search: PairSearch<G>,
    options?: PairSearchOptions,
  ): void {
    const what = `${owner}.forEachPair`;
    const withDistance = visit.length >= 3;
    const seen: number[] = [];
    onKernels(() =>
      this.visitPairs(
        owner,
        grid,
        radius,
        withDistance
          ? (i: number, j: number, d2: number) => seen.push(i, j, d2)
          : (i: number, j: number) => seen.push(i, j),
        search,
        options,
      ),
    );
    const step = withDistance ? 3 : 2;
    let at = 0;
    const compare = (i: number, j: number, d2: number): void => {
      if (at >= seen.length) throw verifyError(what, `the kernels visit ${at / step} pairs, JavaScript more`);
      if (seen[at] !== i || seen[at + 1] !== j || (withDistance && seen[at + 2] !== d2)) {
        const kernels = seen.slice(at, at + step).join(', ');
        throw verifyError(
          what,
          `visit ${at / step} is (${kernels}) on the kernels, (${withDistance ? [i, j, d2] : [i, j]}) in JavaScript`,
        );
      }
      at += step;
      visit(i, j, d2);
    };
    onJavaScript(() =>
      this.visitPairs(
        owner,
        grid,
        radius,
        withDistance ? compare : (i: number, j: number) => compare(i, j, 0),
        search,
        options,
      ),
    );
    if (at !== seen.length)
      throw verifyError(what, `the kernels visit ${seen.length / step} pairs, JavaScript ${at / step}`);
  }

  /** pairs() of either grid: every pair within `radius`, flat, i < j in each. */
  pairs<G extends SearchedGrid>(
    owner: string,
    grid: G,
    radius: number,
    search: PairSearch<G>,
    options?: PairsOptions,
  ): Uint32Array {
    checkDistance('radius', radius);
    if (verifying()) {
      // (The kernels' answer copied first: the JavaScript one is written into options.out too.)
      const kernels = onKernels(() => this.pairs(owner, grid, radius, search, options)).slice();
      const javascript = onJavaScript(() => this.pairs(owner, grid, radius, search, options));
      verifySame(`${owner}.pairs`, 'the pairs', kernels, javascript);
      return javascript;
    }
    // (Indexed, not destructured: destructuring runs an iterator, garbage on every search.)
    const slice = resolvePart(options);
    const part = slice[0];
    const parts = slice[1];
    const limit = resolveMaxResultLength(options);
    const out = resolvePairsOut(options);
    grid.sync('pairs');
    if (out !== undefined && out.buffer === grid.sortedIndex.buffer) {
      throw new RangeError(`${owner}.pairs: out must not be a view of the grid's own buffer (data)`);
    }
    // An earlier result's buffer is where the search writes (and grows out of, when a frame has more pairs): pages
    // already touched, where fresh memory would cost a page fault per 4 KiB.
    const reuse = out === undefined ? undefined : roomView(out);
    this.start(COLLECT, grid.sortedIndex, owner, this.retain, false, reuse);
    this.slice(grid, part, parts);
    try {
      // The WebAssembly kernels where they are on: the same pairs in the same order (src/wasm/pair-kernels.ts),
      // in no more memory than the search here may take before it counts (see bounded), else the search here.
      if (isOrdinaryRadius(radius)) {
        const found = collectPairs(
          grid as unknown as KernelGrid,
          radius,
          this,
          this.guess,
          this.ceilingFor(searchRoom(grid.points), limit),
          reuse,
        );
        if (found !== undefined) {
          this.length = found.length;
          checkResultLength(`${owner}.pairs`, found.length / 2, limit);
          return found;
        }
      }
      this.bounded(`${owner}.pairs`, grid, radius, limit, () => search(grid, this, radius), search);
      return this.collected(grid.points, reuse);
    } finally {
      this.finish();
    }
  }

  /**
   * Runs `run` (a started COLLECT or ROWS search over the slice) so that a
   * result longer than `limit` numbers (2 per pair: pairs() flat, neighbors()
   * in two rows) throws the RangeError of checkResultLength before the memory
   * for it is taken: the buffer may grow to its ceiling (see SCRATCH_BASE),
   * and past that the pairs are counted first (a COUNT search), then the
   * search runs again with room for exactly them. A radius that passes every
   * pair (Infinity, or a huge one that spans the grid) is counted without a
   * search.
   */
  private bounded<G extends SearchedGrid>(
    owner: string,
    grid: G,
    radius: number,
    limit: number,
    run: () => void,
    search: PairSearch<G>,
  ): void {
    // Buffer numbers per pair: 2 collected, 1 in partner runs.
    const step = this.step;
    let pairs = knownPairCount(grid, radius, this.pointFrom, this.pointTo);
    if (pairs < 0) {
      this.ceiling = this.ceilingFor(searchRoom(grid.points), limit);
      try {
        run();
      } catch (error) {
        if (error !== OUTGROWN) throw error;
        pairs = this.countPairs(grid, radius, search);
      }
      this.ceiling = Number.POSITIVE_INFINITY;
      if (pairs < 0) {
        checkResultLength(owner, this.length / step, limit);
        return;
      }
    }
    checkResultLength(owner, pairs, limit);
    // Room for exactly the result, then the search (again).
    this.length = 0;
    this.rowEnd.fill(0);
    if (this.buffer.length < pairs * step) this.buffer = new Uint32Array(pairs * step);
    run();
  }

  /**
   * The ceiling of the COLLECT or ROWS search just started: `room` numbers,
   * or about a quarter more than the last search of this sink found (so a steady
   * loop of large results counts once, not every frame), but never more than
   * a result of `limit` numbers needs (beyond it the result is too long anyway).
   */
  ceilingFor(room: number, limit: number): number {
    const step = this.step;
    const ceiling = Math.max(room, Math.ceil(this.guess * step * 1.125));
    return Math.min(ceiling, Math.ceil((limit * step) / 2) + step);
  }

  /**
   * Counts the pairs of slice `part` of `parts` within `radius` with a COUNT
   * search (batch memory only), as a search of its own: how a PointGridWorkers
   * thread whose buffer reached its ceiling goes on with its slices.
   */
  countSlice<G extends SearchedGrid>(
    owner: string,
    grid: G,
    radius: number,
    search: PairSearch<G>,
    part: number,
    parts: number,
  ): number {
    this.start(VISIT, grid.sortedIndex, owner);
    try {
      this.slice(grid, part, parts);
      this.mode = COUNT;
      this.counted = 0;
      search(grid, this, radius);
      return this.counted + this.length / 2;
    } finally {
      // finish() keeps the batch, grown or not, as after a VISIT search.
      this.mode = VISIT;
      this.finish();
    }
  }

  /**
   * Counts the pairs of the running COLLECT or ROWS search's slice with a
   * COUNT search (batch memory only), leaving the search's buffers as they were.
   */
  private countPairs<G extends SearchedGrid>(grid: G, radius: number, search: PairSearch<G>): number {
    const { mode, step, buffer, rowEnd } = this;
    this.mode = COUNT;
    this.step = 2;
    this.buffer = this.batch;
    this.rowEnd = EMPTY;
    this.length = 0;
    this.counted = 0;
    try {
      search(grid, this, radius);
      return this.counted + this.length / 2;
    } finally {
      this.batch = this.buffer;
      this.mode = mode;
      this.step = step;
      this.buffer = buffer;
      this.rowEnd = rowEnd;
      this.length = 0;
    }
  }

  /**
   * neighbors() of either grid: every point's neighbours within `radius` as
   * CSR rows, written into `options.out` when it has room (see
   * NeighborsOptions), in which case the scratch is kept for the next call.
   */
  neighbors<G extends SearchedGrid>(
    owner: string,
    grid: G,
    radius: number,
    search: PairSearch<G>,
    options?: NeighborsOptions,
  ): NeighborLists {
    checkDistance('radius', radius);
    if (verifying()) {
      const rows = onKernels(() => this.neighbors(owner, grid, radius, search, options));
      const offsets = rows.offsets.slice();
      const indices = rows.indices.slice();
      const javascript = onJavaScript(() => this.neighbors(owner, grid, radius, search, options));
      verifySame(`${owner}.neighbors`, 'offsets', offsets, javascript.offsets);
      verifySame(`${owner}.neighbors`, 'indices', indices, javascript.indices);
      return javascript;
    }
    // (Indexed, not destructured: destructuring runs an iterator, garbage on every search.)
    const slice = resolvePart(options);
    const part = slice[0];
    const parts = slice[1];
    const out = resolveOut(options);
    const limit = resolveMaxResultLength(options);
    grid.sync('neighbors');
    const keep = out !== undefined || this.retain;
    this.start(ROWS, grid.sortedIndex, owner, keep);
    this.slice(grid, part, parts);
    try {
      if (isOrdinaryRadius(radius)) {
        const rows = neighborRows(
          grid as unknown as KernelGrid,
          radius,
          this,
          this.guess,
          out,
          this.ceilingFor(searchRoom(grid.points), limit),
        );
        if (rows !== undefined) {
          this.length = rows.indices.length >>> 1;
          checkResultLength(`${owner}.neighbors`, this.length, limit);
          return rows;
        }
      }
      this.bounded(`${owner}.neighbors`, grid, radius, limit, () => this.rows(grid, radius, search), search);
      const n = grid.points;
      const offsets = reuseArray(out?.offsets, n + 1) ?? roomyArray(n + 1, false);
      offsets[0] = 0;
      let cursor = this.keptCursor;
      if (cursor.length < n) cursor = new Uint32Array(n);
      if (keep) this.keptCursor = cursor;
      rowStarts(this.order, this.buffer, this.rowEnd, offsets, cursor);
      const indices = reuseArray(out?.indices, offsets[n]) ?? roomyArray(offsets[n], false);
      fillRows(0, n, this.order, this.buffer, 0, this.rowEnd, cursor, indices, n - 1);
      return { offsets, indices };
    } finally {
      this.finish();
    }
  }

  /**
   * Runs a started ROWS search over the slice, and marks the points after the
   * slice as having no partner runs, so rowEnd reads as one run per point.
   */
  rows<G extends SearchedGrid>(grid: G, radius: number, search: PairSearch<G>): void {
    search(grid, this, radius);
    this.rowEnd.fill(this.length, this.pointTo, grid.points);
  }

  /**
   * The collected pairs as original indices, i < j in each, in an array of
   * their own: the search's buffer itself when it is at most an eighth
   * longer (as it is when sized by the last search's count), handed over as
   * a view rather than copied into fresh memory, whose first touch alone
   * (a page fault per 4 KiB) would cost as much as the search. Always a
   * view when the buffer is `reuse`, an earlier result given as `out`.
   */
  collected(points: number, reuse?: Uint32Array): Uint32Array {
    if (reuse !== undefined && this.buffer !== reuse && reuse.length >= this.length) {
      // The search outgrew `reuse` while reserving ahead (a crowded cell, the cold path of extreme radii), yet the
      // pairs fit: they go there, as out's contract says.
      const target = reuse.subarray(0, this.length);
      writePairs(this.order, this.buffer, this.length, target, 0, points);
      return target;
    }
    const spare = this.buffer.length - this.length;
    const pairs =
      spare <= (this.length >>> 3) + 64 || this.buffer === reuse
        ? this.buffer.subarray(0, this.length)
        : this.buffer.slice(0, this.length);
    writePairs(this.order, pairs, pairs.length, pairs, 0, points);
    return pairs;
  }
}

/** Pairs among the points of sorted positions from..to-1 and all later ones, of `points`: what a radius passing every pair finds. */
function everyPairCount(points: number, from: number, to: number): number {
  // Sum of points - 1 - s over s in [from, to).
  const first = points - 1 - from;
  const last = points - to;
  return to > from ? ((first + last) * (first - last + 1)) / 2 : 0;
}

/**
 * Hands the first `length / 2` pairs of the batch to the visitor as the
 * dimension files' visit loops do (with the squared distance when `coords`
 * is given, `d` numbers per point), but with each index clamped to the last
 * point: the loop for a grid whose buffer another thread may be writing (see
 * core/bounded.ts). Kept apart so that the common loops spend nothing on it.
 */
export function visitClamped(
  sink: PairSink,
  length: number,
  coords: Float32Array | Float64Array | null,
  d: number,
): void {
  const { order, buffer, top } = sink;
  const visit = sink.visitor!;
  sink.length = 0;
  for (let k = 0; k < length; k += 2) {
    const s = buffer[k];
    const t = buffer[k + 1];
    const a = Math.min(order[s], top);
    const b = Math.min(order[t], top);
    const i = Math.min(a, b);
    const j = Math.max(a, b);
    if (coords === null) {
      (visit as (i: number, j: number) => void)(i, j);
    } else {
      let d2 = 0;
      for (let axis = 0; axis < d; axis++) {
        const delta = coords[d * t + axis] - coords[d * s + axis];
        d2 += delta * delta;
      }
      visit(i, j, d2);
    }
  }
}

/** The checks of a visiting search's arguments: forEachPair's and forEachPairBatch's. */
function checkVisit(radius: number, visit: unknown): void {
  checkDistance('radius', radius);
  if (typeof visit !== 'function') throw new RangeError(`visit must be a function, got ${describe(visit)}`);
}

/**
 * Writes the first `length` numbers of `found` (flat pairs of sorted
 * positions, as a COLLECT search leaves them) into `target` from `at` on, as
 * original indices with i < j in each pair. `target` may be `found` itself.
 * Indices are clamped to `points - 1` (see core/bounded.ts).
 */
export function writePairs(
  order: Uint32Array,
  found: Uint32Array,
  length: number,
  target: Uint32Array,
  at: number,
  points = order.length,
): void {
  const top = points - 1;
  for (let k = 0; k < length; k += 2) {
    const i = Math.min(order[found[k]], top);
    const j = Math.min(order[found[k + 1]], top);
    const m = lowerMinusUpper(i, j);
    target[at + k] = j + m;
    target[at + k + 1] = i - m;
  }
}

/**
 * CSR rows in original index order from the partner runs of a ROWS search
 * over `offsets.length - 1` points (see {@link ROWS}), first step:
 * `partners[rowEnd[s - 1]..rowEnd[s]]` are the sorted positions paired with
 * sorted position s, each pair once. Row lengths are counted by sorted
 * position, where a pair's two points are close, so the counts stay in
 * cache; then `offsets` (whose first entry is 0) gets the row starts, and
 * `cursor[s]` the start of sorted position s's row.
 * Takes only typed arrays so its optimised code depends on no object shape
 * (a shape that dies in a GC throws the code away).
 */
export function rowStarts(
  order: Uint32Array,
  partners: Uint32Array,
  rowEnd: Uint32Array,
  offsets: Uint32Array,
  cursor: Uint32Array,
): void {
  const count = offsets.length - 1;
  cursor.fill(0, 0, count);
  for (let s = 0, from = 0; s < count; s++) {
    const to = rowEnd[s];
    cursor[s] += to - from;
    for (let k = from; k < to; k++) cursor[partners[k]]++;
    from = to;
  }
  // (Indices clamped to the count, see core/bounded.ts: a racing writer makes wrong rows, never writes past them.)
  for (let s = 0; s < count; s++) offsets[Math.min(order[s], count - 1) + 1] = cursor[s];
  for (let i = 0; i < count; i++) offsets[i + 1] += offsets[i];
  for (let s = 0; s < count; s++) cursor[s] = offsets[Math.min(order[s], count - 1)];
}

/**
 * Second step: writes each pair of the partner runs of sorted positions
 * `from` to `to - 1` (runs that start at partners[0]) into both rows, at
 * `cursor[s - from]` for the row of sorted position s; partners are later
 * positions than the point that found them, so a point's own run goes
 * after every entry earlier points wrote into its row. The rows being
 * filled at any moment belong to the points near the search's current
 * position, so their writes hit a small, cached set of lines even though
 * rows sit in original index order. Also the fill of PointGridWorkers'
 * threads, each over its slice. Indices are clamped to `top` (default: the
 * last of `order`; see core/bounded.ts).
 */
export function fillRows(
  from: number,
  to: number,
  order: Uint32Array,
  partners: Uint32Array,
  first: number,
  rowEnd: Uint32Array,
  cursor: Uint32Array,
  indices: Uint32Array,
  top = order.length - 1,
): void {
  for (let s = from, k = first; s < to; s++) {
    // (Indices clamped to `top`, the last point: see core/bounded.ts.)
    const i = Math.min(order[s], top);
    const end = rowEnd[s];
    // t is never s (no point pairs with itself), so s's cursor can wait in a local.
    let own = cursor[s - from];
    for (; k < end; k++) {
      const t = partners[k];
      indices[own++] = Math.min(order[t], top);
      indices[cursor[t - from]++] = i;
    }
    cursor[s - from] = own;
  }
}
