/**
 * PointGrid's searches for extreme radii: a radius or maxDistance whose
 * square overflows or is below 2^-896 (see core/distance.ts, and
 * isOrdinaryRadius there). The hot searches (within-point.ts, pair-visits.ts)
 * hand such a call here once, at its start, and stay plain float64 loops.
 * These searches are plain on purpose, written once for both dimensions:
 * the cells within reach of a tiny radius, every point for a huge one, each
 * candidate tested with the scaled test of core/distance.ts. Their speed
 * matters little; their answers are the rule's, and every loop is bounded by
 * the header's numbers and clamped runs, as the hot ones are (core/bounded.ts).
 *
 * nearest() keeps its hot search for every maxDistance that is not tiny:
 * only the squared distances of its answer can be off (below 2^-896, or
 * overflowed), which its heap notes as they enter, and {@link fixNearest}
 * then settles their order, searching again only where the float64 order
 * could have picked the wrong points.
 *
 * @module
 */

import { clampIndices, everyPoint } from '../core/bounded.js';
import {
  bandScale,
  compareBanded,
  extremeScale,
  HUGE_BAND,
  HUGE_SCALE,
  hugeRadiusCovers,
  ORDINARY_BAND,
  scaledDistance2,
  scaledDistance3,
  scaledLimit,
  squareBand,
  TINY_BAND,
} from '../core/distance.js';
import { paddedRadius, stencilReach } from '../core/margins.js';
import type { Grid2D } from './grid2d.js';
import type { Grid3D } from './grid3d.js';
import type { NearestHeap } from './nearest-heap.js';
import { COUNT, type PairSink, VISIT } from './pair-sink.js';
import { highCell, lowCell } from './within-rows.js';

/** What the searches here read of a Grid2D or Grid3D: per-axis numbers as arrays, z trivial in 2D. */
export interface ExtremeGrid {
  readonly d: 2 | 3;
  readonly points: number;
  readonly coords: Float32Array | Float64Array;
  readonly sortedIndex: Uint32Array;
  readonly cellStart: Int32Array;
  readonly cellTotal: number;
  readonly dense: boolean;
  readonly width: number;
  readonly clampsIndices: boolean;
  /** Grid origin along x, y, z (0 in 2D). */
  readonly origin: readonly number[];
  /** Cells along x, y, z (1 in 2D). */
  readonly cells: readonly number[];
  /** Hashed layout: cell coordinates by id, d per cell. */
  readonly keys: Float64Array;
  /** Hashed layout: id of cell (cx, cy, cz), or -1. */
  find(cx: number, cy: number, cz: number): number;
}

/** The view of a grid (made per call: these searches are cold). */
export function extremeGrid(g: Grid2D | Grid3D): ExtremeGrid {
  return {
    d: g.dimension,
    points: g.points,
    coords: g.coords,
    sortedIndex: g.sortedIndex,
    cellStart: g.cellStart,
    cellTotal: g.cellTotal,
    dense: g.dense,
    width: g.width,
    clampsIndices: g.clampsIndices,
    // (A 2D grid's originZ is 0 and its cellsZ 1.)
    origin: [g.originX, g.originY, g.originZ],
    cells: [g.cellsX, g.cellsY, g.cellsZ],
    keys: g.cellKeys,
    find: g.dimension === 2 ? (cx, cy) => g.findCell(cx, cy) : (cx, cy, cz) => g.findCell(cx, cy, cz),
  };
}

/** Squared distance of sorted point t from q with every length scaled by `scale` (see core/distance.ts). */
function scaledTo(g: ExtremeGrid, t: number, q: readonly number[], scale: number): number {
  const c = g.coords;
  return g.d === 2
    ? scaledDistance2(c[2 * t], c[2 * t + 1], q[0], q[1], scale)
    : scaledDistance3(c[3 * t], c[3 * t + 1], c[3 * t + 2], q[0], q[1], q[2], scale);
}

/**
 * Sets lo and hi to the range of cells, per axis, that holds every point
 * within a radius that is not huge of q; false when no cell does. The range
 * is padded as the hot within() pads it (core/margins.ts).
 */
function cellBox(g: ExtremeGrid, q: readonly number[], radius: number, lo: number[], hi: number[]): boolean {
  let magnitude = 0;
  const relative = [0, 0, 0];
  for (let a = 0; a < g.d; a++) {
    relative[a] = q[a] - g.origin[a];
    // More than MAX_VALUE from the origin, the query is beyond every radius that is not huge (see within.template.ts).
    if (relative[a] - relative[a] !== 0) return false;
    magnitude = Math.max(magnitude, Math.abs(relative[a]));
  }
  const padded = paddedRadius(radius, magnitude, g.width);
  for (let a = 0; a < 3; a++) {
    if (a >= g.d) {
      lo[a] = 0;
      hi[a] = 0;
      continue;
    }
    // The hot within's cell range (within.template.ts), the same cells.
    lo[a] = lowCell(relative[a], padded, g.width);
    hi[a] = highCell(relative[a], padded, g.width, g.cells[a]);
    if (lo[a] > hi[a]) return false;
  }
  return true;
}

/**
 * Appends to `runs` the [start, end) runs of sorted positions of the cells in
 * the box lo..hi whose id is above `after` (-1: all), in ascending id order,
 * each clamped inside the points (see core/bounded.ts). Bounded by the box's rows
 * (dense) or by the occupied cells (hashed).
 */
function boxRuns(g: ExtremeGrid, lo: number[], hi: number[], after: number, runs: number[]): void {
  const [cellsX, cellsY] = g.cells;
  const cellStart = g.cellStart;
  const n = g.points;
  const push = (start: number, end: number) => {
    const from = Math.max(start, 0);
    const to = Math.min(end, n);
    if (from < to) runs.push(from, to);
  };
  if (g.dense) {
    const ownRow = after < 0 ? -1 : Math.floor(after / cellsX);
    for (let cz = lo[2]; cz <= hi[2]; cz++) {
      for (let cy = lo[1]; cy <= hi[1]; cy++) {
        const row = cz * cellsY + cy;
        if (row < ownRow) continue;
        const first = row === ownRow ? Math.max(lo[0], after - row * cellsX + 1) : lo[0];
        if (first > hi[0]) continue;
        push(cellStart[row * cellsX + first], cellStart[row * cellsX + hi[0] + 1]);
      }
    }
    return;
  }
  const cells = g.cellTotal;
  const keys = g.keys;
  const d = g.d;
  const boxCells = (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
  if (boxCells > cells - after - 1) {
    // More cells in the box than occupied ones after `after`: test those against the box instead.
    for (let id = after + 1; id < cells; id++) {
      let inside = true;
      for (let a = 0; a < d; a++) {
        const key = keys[d * id + a];
        if (!(key >= lo[a] && key <= hi[a])) inside = false;
      }
      if (inside) push(cellStart[id], cellStart[id + 1]);
    }
    return;
  }
  for (let cz = lo[2]; cz <= hi[2]; cz++) {
    for (let cy = lo[1]; cy <= hi[1]; cy++) {
      for (let cx = lo[0]; cx <= hi[0]; cx++) {
        const id = g.find(cx, cy, cz);
        if (id > after) push(cellStart[id], cellStart[id + 1]);
      }
    }
  }
}

/**
 * within() and withinInto() for an extreme radius: writes the points within
 * `radius` of q into `target` (as far as it fits) in ascending sorted
 * position, as the hot search does, and returns how many there are.
 */
export function withinExtreme(g: ExtremeGrid, q: readonly number[], radius: number, target: Uint32Array): number {
  const n = g.points;
  if (n === 0) return 0;
  if (radius === Number.POSITIVE_INFINITY) return everyPoint(g.sortedIndex, n, target);
  const scale = extremeScale(radius);
  const limit = scaledLimit(radius, scale);
  const sortedIndex = g.sortedIndex;
  const capacity = target.length;
  let found = 0;
  const test = (from: number, to: number) => {
    for (let t = from; t < to; t++) {
      if (scaledTo(g, t, q, scale) <= limit) {
        if (found < capacity) target[found] = sortedIndex[t];
        found++;
      }
    }
  };
  if (scale === HUGE_SCALE) {
    // A huge radius that reaches the cells' farthest corner from q takes every point, as Infinity does.
    const far: number[] = [];
    for (let a = 0; a < g.d; a++) {
      const low = q[a] - g.origin[a];
      far.push(Math.max(Math.abs(low), Math.abs(g.cells[a] * g.width - low)));
    }
    if (hugeRadiusCovers(radius, far)) return everyPoint(g.sortedIndex, n, target);
    // Otherwise every point is a candidate (the cell arithmetic at such radii is where overflow lives).
    test(0, n);
  } else {
    const lo = [0, 0, 0];
    const hi = [0, 0, 0];
    if (!cellBox(g, q, radius, lo, hi)) return 0;
    const runs: number[] = [];
    boxRuns(g, lo, hi, -1, runs);
    for (let k = 0; k < runs.length; k += 2) test(runs[k], runs[k + 1]);
  }
  if (g.clampsIndices) clampIndices(target, Math.min(found, capacity), n);
  return Math.min(found, n);
}

/**
 * The pair search for an extreme radius other than Infinity (which the hot
 * search serves: every pair passes), into `sink` as the hot search writes
 * (PairSink.step, rowEnd, growth, batches): each point of the slice with its
 * partners at later sorted positions, ascending, so a slice's result is the
 * same whichever thread searches it. A huge radius tests every later point;
 * a tiny one the cell's later points and the later cells within reach.
 * `handOver` gives a full VISIT batch to the visitor.
 */
export function pairsExtreme(g: ExtremeGrid, sink: PairSink, radius: number, handOver: () => void): void {
  const n = g.points;
  const scale = extremeScale(radius);
  const limit = scaledLimit(radius, scale);
  const coords = g.coords;
  const d = g.d;
  const step = sink.step;
  let buffer = sink.buffer;
  let length = sink.length;
  const q = [0, 0, 0];
  /** Makes room for `most` more pairs of point s. */
  const room = (s: number, most: number) => {
    if (length + step * most <= buffer.length) return;
    sink.length = length;
    if (sink.mode === VISIT) handOver();
    else if (sink.mode === COUNT) {
      sink.counted += length / 2;
      sink.length = 0;
    }
    const needed = sink.length + step * most;
    if (needed > sink.buffer.length) sink.reserve(needed, sink.length, s / n);
    buffer = sink.buffer;
    length = sink.length;
  };
  /** Writes the pairs of s with the points of from..to-1 that pass the test. */
  const pair = (s: number, from: number, to: number) => {
    for (let t = from; t < to; t++) {
      if (scaledTo(g, t, q, scale) <= limit) {
        buffer[length] = s;
        buffer[length + step - 1] = t;
        length += step;
      }
    }
  };
  const load = (s: number) => {
    for (let a = 0; a < d; a++) q[a] = coords[d * s + a];
  };
  try {
    if (scale === HUGE_SCALE) {
      for (let s = sink.pointFrom; s < sink.pointTo; s++) {
        room(s, n - s - 1);
        load(s);
        pair(s, s + 1, n);
        if (step === 1) sink.rowEnd[s] = length;
      }
      return;
    }
    const [cellsX, cellsY, cellsZ] = g.cells;
    const reach = stencilReach(radius, g.width, Math.max(cellsX, cellsY, cellsZ));
    const cellStart = g.cellStart;
    const own = [0, 0, 0];
    const lo = [0, 0, 0];
    const hi = [0, 0, 0];
    const runs: number[] = [];
    for (let c = sink.cellFrom; c < sink.cellTo; c++) {
      const start = Math.max(cellStart[c], 0);
      const end = Math.min(cellStart[c + 1], n);
      if (start >= end) continue;
      if (g.dense) {
        const row = Math.floor(c / cellsX);
        own[0] = c - row * cellsX;
        own[2] = Math.floor(row / cellsY);
        own[1] = row - own[2] * cellsY;
      } else {
        for (let a = 0; a < 3; a++) own[a] = a < d ? g.keys[d * c + a] : 0;
      }
      for (let a = 0; a < 3; a++) {
        lo[a] = Math.max(own[a] - reach, 0);
        hi[a] = Math.min(own[a] + reach, g.cells[a] - 1);
      }
      runs.length = 0;
      boxRuns(g, lo, hi, c, runs);
      let later = 0;
      for (let k = 0; k < runs.length; k += 2) later += runs[k + 1] - runs[k];
      for (let s = start; s < end; s++) {
        room(s, end - s - 1 + later);
        load(s);
        pair(s, s + 1, end);
        for (let k = 0; k < runs.length; k += 2) pair(s, runs[k], runs[k + 1]);
        if (step === 1) sink.rowEnd[s] = length;
      }
    }
  } finally {
    sink.length = length;
  }
}

/** Of two banded squared distances, each with a point index, whether the first comes first (ties by index). */
function before(bandA: number, valueA: number, indexA: number, bandB: number, valueB: number, indexB: number): boolean {
  const c = compareBanded(bandA, valueA, bandB, valueB);
  return c < 0 || (c === 0 && indexA < indexB);
}

/** Candidates of an exact nearest answer: parallel arrays. */
class Ranked {
  readonly band: number[] = [];
  readonly value: number[] = [];
  readonly index: number[] = [];

  add(band: number, value: number, index: number): void {
    this.band.push(band);
    this.value.push(value);
    this.index.push(index);
  }

  /** The indices of the first k, by band, value, then index. */
  first(k: number, out: number[]): number[] {
    const order = this.index.map((_, i) => i);
    order.sort((i, j) =>
      before(this.band[i], this.value[i], this.index[i], this.band[j], this.value[j], this.index[j]) ? -1 : 1,
    );
    const count = Math.min(k, order.length);
    out.length = count;
    for (let i = 0; i < count; i++) out[i] = this.index[order[i]];
    return out;
  }
}

/** The band and scaled value of maxDistance's square, to compare banded squared distances with. */
function bandedLimit(maxDistance: number): [number, number] {
  const band = squareBand(maxDistance * maxDistance);
  return [band, band === ORDINARY_BAND ? maxDistance * maxDistance : scaledLimit(maxDistance, bandScale(band))];
}

/** Ranks sorted points from..to-1 by their exact squared distance from q, those within maxDistance only. */
function rankRange(
  g: ExtremeGrid,
  q: readonly number[],
  from: number,
  to: number,
  limit: [number, number],
  ranked: Ranked,
  only = -1,
): void {
  const n = g.points;
  for (let t = from; t < to; t++) {
    const d2 = scaledTo(g, t, q, 1);
    const band = squareBand(d2);
    if (only >= 0 && band !== only) continue;
    const value = band === ORDINARY_BAND ? d2 : scaledTo(g, t, q, bandScale(band));
    if (compareBanded(band, value, limit[0], limit[1]) > 0) continue;
    ranked.add(band, value, Math.min(g.sortedIndex[t], n - 1));
  }
}

/** Ranks the points of the cells within `radius` (not huge) of q, optionally of one band only. */
function rankNear(
  g: ExtremeGrid,
  q: readonly number[],
  radius: number,
  limit: [number, number],
  ranked: Ranked,
  only = -1,
): void {
  const lo = [0, 0, 0];
  const hi = [0, 0, 0];
  if (!cellBox(g, q, radius, lo, hi)) return;
  const runs: number[] = [];
  boxRuns(g, lo, hi, -1, runs);
  for (let k = 0; k < runs.length; k += 2) rankRange(g, q, runs[k], runs[k + 1], limit, ranked, only);
}

/** nearest() for a maxDistance whose square is below 2^-896 (0 included): the cells within it, ranked exactly. */
export function nearestTiny(
  g: ExtremeGrid,
  q: readonly number[],
  k: number,
  maxDistance: number,
  out: number[],
): number[] {
  const ranked = new Ranked();
  if (g.points > 0 && k > 0) rankNear(g, q, maxDistance, bandedLimit(maxDistance), ranked);
  return ranked.first(k, out);
}

/**
 * Finishes a hot nearest search whose heap noted squared distances outside
 * the ordinary band (below 2^-896, or overflowed): their float64 values may
 * tie or misorder points the rule tells apart. Where the heap's set is still
 * right (it is not full, or its worst is ordinary: every point nearer than
 * that was offered), only the order of those entries changes, and entries
 * beyond a finite huge maxDistance go. Where its worst is tiny, the right
 * set lies within 2^-448 of q and those cells are ranked exactly (unless
 * every entry is exactly at q: then nothing is nearer and index order
 * decides); where its worst overflowed, the search had visited every point
 * (no bound stops it at an infinite worst) and all of them are ranked.
 */
export function fixNearest(
  g: ExtremeGrid,
  heap: NearestHeap,
  q: readonly number[],
  maxDistance: number,
  out: number[],
): number[] {
  // (The heap holds min(k, points) entries when full.)
  const capacity = heap.capacity;
  const position = heap.notedPositions();
  const distances: number[] = [];
  const indices: number[] = [];
  heap.drainEntries(distances, indices);
  const limit = bandedLimit(maxDistance);
  const worst = squareBand(distances[distances.length - 1]);
  if (distances.length === capacity && worst !== ORDINARY_BAND) {
    const ranked = new Ranked();
    if (worst === HUGE_BAND) {
      rankRange(g, q, 0, g.points, limit, ranked);
    } else {
      let exact = true;
      for (const index of indices) exact &&= scaledTo(g, position.get(index) ?? 0, q, bandScale(TINY_BAND)) === 0;
      if (exact) {
        out.length = indices.length;
        for (let i = 0; i < indices.length; i++) out[i] = indices[i];
        return out;
      }
      rankNear(g, q, 2 ** -448, limit, ranked, TINY_BAND);
    }
    return ranked.first(capacity, out);
  }
  const ranked = new Ranked();
  for (let i = 0; i < indices.length; i++) {
    const band = squareBand(distances[i]);
    const value =
      band === ORDINARY_BAND ? distances[i] : scaledTo(g, position.get(indices[i]) ?? 0, q, bandScale(band));
    if (compareBanded(band, value, limit[0], limit[1]) > 0) continue;
    ranked.add(band, value, indices[i]);
  }
  return ranked.first(capacity, out);
}
