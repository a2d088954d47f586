/**
 * The parameters of weld's cell grid and tables, computed before any loop
 * runs: the reach and cell side of a weld with a tolerance (see weld/near.ts
 * for why cells are 2 * reach wide), the distance that ends a search early,
 * and the slots each table starts with (weld/near.ts, weld/exact.ts). Shared
 * by weld's JavaScript loops (weld/near.ts, exact.ts, extreme.ts) and the
 * kernels' glue (src/wasm/weld-kernels.ts), so below both; the kernels'
 * near search (src/wasm/assembly/weld-near.ts, from
 * src/templates/weld.template.ts) keeps a copy of REACH_SLACK, which must
 * stay equal to this one (test/wasm/kernel-constants.test.ts).
 *
 * @module
 */

import { CELL_HASH_X, CELL_HASH_Y, CELL_HASH_Z, mix32, nextPowerOfTwo } from './cell-hash.js';

/**
 * Accepted pairs can be an ulp or two farther apart than the tolerance once
 * the squared distance is rounded (relative error < 2^-50), so the search
 * reaches this much further to never miss one the float64 test accepts.
 */
export const REACH_SLACK = 1 + 2 ** -40;

/**
 * Squared distances below 2^-1022 lose precision or flush to 0, so with a tiny
 * tolerance the float64 test accepts pairs up to ~2^-511 apart: the search
 * reaches at least that far.
 */
const MIN_REACH = 2 ** -510;

/**
 * Representatives are pairwise farther apart than the tolerance, so one found
 * within half the tolerance is the nearest, strictly (any other is farther
 * than tolerance - d > d away): the search stops there. Most copies of a
 * vertex in a soup land that close to their representative, usually in their
 * own cell, which is looked up first. The factor keeps the argument sound
 * under float64 rounding (relative errors ~2^-50).
 */
const SURE_FRACTION = 0.25 * (1 - 2 ** -20);

/**
 * Below this squared tolerance the rounding of squared distances is no longer
 * relative (subnormals), so the early stop is off.
 */
const SURE_MIN_TOLERANCE2 = 2 ** -1000;

/**
 * The squared distance within which a representative is surely the answer
 * (see SURE_FRACTION), or -1 when none is: with an extra test (`accept`,
 * weld/near.ts's AcceptRepresentative), representatives may sit at one place
 * (differing in what the test reads).
 */
export function sureDistance2(
  tolerance2: number,
  accept: ((vertex: number, representativeVertex: number) => boolean) | undefined,
): number {
  return accept === undefined && tolerance2 >= SURE_MIN_TOLERANCE2 ? tolerance2 * SURE_FRACTION : -1;
}

/**
 * Cells per axis at most: cells grow past 2 * reach only when the data spans
 * more than 2^50 of them, so cell coordinates stay exact consecutive integers
 * in float64. The table keys on their low 32 bits (int32, fast to hash and
 * compare): cells 2^32 apart on every axis share a list, which costs a few
 * extra distance tests on data spanning billions of tolerances and never a
 * wrong answer, since every candidate's distance is tested. Correctness does
 * not depend on the cell side or the keys, only speed.
 */
const MAX_CELLS_PER_AXIS = 2 ** 50;

/**
 * Grid parameters: [reach, 1 / half cell side, then half the data's minimum
 * per axis]. Everything the hot loops touch is a typed array or a number: an
 * optimised loop that read a plain object would be thrown away whenever the
 * garbage collector drops that object's hidden class between calls, and this
 * loop takes tens of milliseconds to optimise again.
 *
 * The cell side is 2 * reach unless `coords` (the packed coordinates) are
 * given: then {@link cellHalfSide} may choose larger cells. Any side of at
 * least 2 * reach gives the same welding (see weld/near.ts: every
 * representative within reach of a vertex lies in the cells searched, and
 * which one wins does not depend on the order they are met in), so the side
 * is a matter of speed only.
 *
 * @param min, max the data's bounds per axis (finite).
 */
export function gridParameters(
  min: Float64Array,
  max: Float64Array,
  tolerance: number,
  coords?: Float32Array | Float64Array,
): Float64Array {
  const reach = Math.max(tolerance * REACH_SLACK, MIN_REACH);
  const grid = new Float64Array(2 + min.length);
  let halfExtent = 0;
  for (let axis = 0; axis < min.length; axis++) {
    grid[2 + axis] = min[axis] * 0.5;
    halfExtent = Math.max(halfExtent, max[axis] * 0.5 - grid[2 + axis]);
  }
  let half = reach;
  if (coords !== undefined) {
    half =
      testCells.reaches > 0
        ? reach * testCells.reaches
        : cellHalfSide(coords, min.length, reach, min, max, testCells.from);
  }
  grid[0] = reach;
  grid[1] = 1 / Math.max(half, halfExtent / MAX_CELLS_PER_AXIS);
  return grid;
}

/** Vertices below which cells stay 2 * reach wide: the table of a smaller weld stays in cache anyway. */
export const LARGER_CELLS_FROM = 1 << 17;

/** What tests set (see {@link weldCellsForTests}). */
let testCells: WeldCellsSetting = { from: LARGER_CELLS_FROM, reaches: 0 };

/** See {@link weldCellsForTests}. @internal */
export interface WeldCellsSetting {
  /** Vertices from which {@link cellHalfSide} looks for larger cells (default {@link LARGER_CELLS_FROM}). */
  from: number;
  /** A half side, in reaches, that {@link gridParameters} takes instead of estimating one (0: estimate). */
  reaches: number;
}

/**
 * Sets how {@link gridParameters} chooses the cells of a weld given its
 * coordinates and returns the last setting, so that tests can weld small
 * inputs with larger cells, estimated or of any side, and compare them with
 * the JavaScript weld's 2 * reach cells. Internal.
 *
 * @internal
 */
export function weldCellsForTests(setting: WeldCellsSetting): WeldCellsSetting {
  const last = testCells;
  testCells = { ...setting };
  return last;
}

/** Consecutive pairs of vertices whose distance {@link cellHalfSide} samples. */
const GAP_SAMPLES = 1024;

/** Vertices whose cells {@link cellHalfSide} counts the vertices of. */
const OCCUPANCY_SAMPLES = 512;

/**
 * Every how many vertices the counting pass reads: a prime, so no period of
 * the input's follows it, and far enough apart (204 bytes of float32
 * coordinates) that the pass reads about one cache line in three of a large
 * input, which memory, not the counting, limits.
 */
const OCCUPANCY_STRIDE = 17;

/** Slots of the table of sampled cells (load <= 1/2), and bits of its filter. */
const SAMPLE_SLOTS = 1024;
const SAMPLE_FILTER_BITS = 16384;

/**
 * Vertices a cell may hold on average, as a vertex sees it (the mean over
 * vertices of the count of their cell), for larger cells to be taken: so
 * the lists a search scans stay short, about what 2 * reach cells give a
 * soup (its 6 copies of a corner) times ten.
 */
export const MAX_MEAN_OCCUPANCY = 64;

/** Largest half side, in reaches. */
const MAX_HALF_SIDE = 128;

/** Smallest half side worth a counting pass, in reaches. */
const MIN_HALF_SIDE = 4;

/**
 * The half side of weld's cells for these coordinates (`dimension` per
 * vertex, packed): `reach`, or larger where the input is in mesh order (each
 * vertex near the one before it, as exporters write triangles and scanners
 * points) and sparse at the tolerance's scale.
 *
 * Why: with 2 * reach cells nearly every distinct position has a cell of its
 * own, so the cell table grows with the vertices and, past the cache (about
 * 1e7 vertices of a soup, 32 MB of slots), each lookup is a cache miss: the
 * weld took 15 to 30 times as long for 10 times the vertices. In cells a few
 * edges wide consecutive vertices look up the same cells, which stay in
 * cache, and the search's ball mostly fits in the vertex's own cell.
 *
 * How, in time linear in the vertices and deterministic:
 * 1. The Chebyshev distance (largest axis difference) from vertex i to
 *    i + 1 at {@link GAP_SAMPLES} places, of the pairs more than 2 * reach
 *    apart (not copies). With fewer than an eighth of the pairs that far
 *    apart, or a lower quartile above a sixteenth of the extent (input in no
 *    spatial order, whose lookups miss the cache whatever the cells):
 *    `reach`. Else twice the lower quartile is the half side tried (cells
 *    about four edges wide), at most {@link MAX_HALF_SIDE} reaches.
 * 2. One pass over every {@link OCCUPANCY_STRIDE}th vertex counts those in
 *    the cells of {@link OCCUPANCY_SAMPLES} sampled vertices: scaled back,
 *    the mean is about the mean list a vertex's lookup meets. Above
 *    {@link MAX_MEAN_OCCUPANCY} (denser parts the gaps did not show,
 *    clusters), half that side is tried, twice more, then `reach`; and a
 *    half side below {@link MIN_HALF_SIDE} reaches (dense input, whose 2 *
 *    reach cells hold few already) is not worth the pass: `reach`. So a
 *    search meets a few dozen vertices a cell on average, whatever the input.
 */
export function cellHalfSide(
  coords: Float32Array | Float64Array,
  dimension: number,
  reach: number,
  min: Float64Array,
  max: Float64Array,
  minVertices = LARGER_CELLS_FROM,
): number {
  const n = Math.floor(coords.length / dimension);
  if (n < Math.max(minVertices, 2)) return reach;
  const three = dimension === 3;
  const gaps = new Float64Array(GAP_SAMPLES);
  let kept = 0;
  for (let k = 0; k < GAP_SAMPLES; k++) {
    const j = Math.floor((k * (n - 1)) / GAP_SAMPLES) * dimension;
    let gap = Math.max(
      Math.abs(coords[j + dimension] - coords[j]),
      Math.abs(coords[j + dimension + 1] - coords[j + 1]),
    );
    if (three) gap = Math.max(gap, Math.abs(coords[j + 5] - coords[j + 2]));
    if (gap > 2 * reach) gaps[kept++] = gap;
  }
  if (kept < GAP_SAMPLES / 8) return reach;
  const apart = gaps.subarray(0, kept).sort();
  const quartile = apart[kept >> 2];
  let extent = 0;
  for (let axis = 0; axis < dimension; axis++) extent = Math.max(extent, max[axis] - min[axis]);
  if (quartile > extent / 16) return reach;
  let half = Math.min(2 * quartile, MAX_HALF_SIDE * reach);
  for (let attempt = 0; attempt < 3 && half >= MIN_HALF_SIDE * reach; attempt++, half /= 2) {
    if (meanOccupancy(coords, dimension, n, 0.5 / half, min) <= MAX_MEAN_OCCUPANCY) return half;
  }
  return reach;
}

/**
 * The mean, over {@link OCCUPANCY_SAMPLES} vertices spread through the input,
 * of how many vertices share the sampled vertex's cell, for cells of side
 * 1 / `inv`, estimated from every {@link OCCUPANCY_STRIDE}th vertex: one pass,
 * which tests a small table of the sampled cells (in cache) through a filter
 * of one bit per hashed cell.
 */
function meanOccupancy(
  coords: Float32Array | Float64Array,
  dimension: number,
  n: number,
  inv: number,
  min: Float64Array,
): number {
  const three = dimension === 3;
  const minX = min[0];
  const minY = min[1];
  const minZ = three ? min[2] : 0;
  const slots = new Int32Array(SAMPLE_SLOTS).fill(-1);
  const keys = new Int32Array(OCCUPANCY_SAMPLES * 3);
  const counts = new Int32Array(OCCUPANCY_SAMPLES);
  const filter = new Int32Array(SAMPLE_FILTER_BITS / 32);
  const sampleCell = new Int32Array(OCCUPANCY_SAMPLES);
  let cells = 0;
  for (let k = 0; k < OCCUPANCY_SAMPLES; k++) {
    const j = Math.floor((k * n) / OCCUPANCY_SAMPLES) * dimension;
    const cx = Math.floor((coords[j] - minX) * inv) | 0;
    const cy = Math.floor((coords[j + 1] - minY) * inv) | 0;
    const cz = three ? Math.floor((coords[j + 2] - minZ) * inv) | 0 : 0;
    const h = mix32(Math.imul(cx, CELL_HASH_X) ^ Math.imul(cy, CELL_HASH_Y) ^ Math.imul(cz, CELL_HASH_Z));
    let s = h & (SAMPLE_SLOTS - 1);
    let id = slots[s];
    while (id >= 0 && (keys[id * 3] !== cx || keys[id * 3 + 1] !== cy || keys[id * 3 + 2] !== cz)) {
      s = (s + 1) & (SAMPLE_SLOTS - 1);
      id = slots[s];
    }
    if (id < 0) {
      id = cells++;
      slots[s] = id;
      keys[id * 3] = cx;
      keys[id * 3 + 1] = cy;
      keys[id * 3 + 2] = cz;
      filter[(h >>> 5) & (SAMPLE_FILTER_BITS / 32 - 1)] |= 1 << (h & 31);
    }
    sampleCell[k] = id;
  }
  const step = OCCUPANCY_STRIDE * dimension;
  for (let j = 0; j < n * dimension; j += step) {
    const cx = Math.floor((coords[j] - minX) * inv) | 0;
    const cy = Math.floor((coords[j + 1] - minY) * inv) | 0;
    const cz = three ? Math.floor((coords[j + 2] - minZ) * inv) | 0 : 0;
    const h = mix32(Math.imul(cx, CELL_HASH_X) ^ Math.imul(cy, CELL_HASH_Y) ^ Math.imul(cz, CELL_HASH_Z));
    if ((filter[(h >>> 5) & (SAMPLE_FILTER_BITS / 32 - 1)] & (1 << (h & 31))) === 0) continue;
    let s = h & (SAMPLE_SLOTS - 1);
    let id = slots[s];
    while (id >= 0 && (keys[id * 3] !== cx || keys[id * 3 + 1] !== cy || keys[id * 3 + 2] !== cz)) {
      s = (s + 1) & (SAMPLE_SLOTS - 1);
      id = slots[s];
    }
    if (id >= 0) counts[id]++;
  }
  let total = 0;
  for (let k = 0; k < OCCUPANCY_SAMPLES; k++) total += counts[sampleCell[k]];
  return (total * OCCUPANCY_STRIDE) / OCCUPANCY_SAMPLES;
}

/** Slots weld/near.ts's table starts with: few, it doubles (soups hold about one distinct position per six vertices). */
export function initialSlots(n: number): number {
  return nextPowerOfTwo(Math.max(64, Math.min(n, 1024) * 2));
}

/** Slots weld/exact.ts's table starts with: few, it doubles (a table sized for the distinct positions stays in cache). */
export function initialExactSlots(n: number): number {
  return nextPowerOfTwo(Math.min(n, 1024) * 2);
}
