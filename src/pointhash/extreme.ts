/**
 * PointHash2D/3D's queries for extreme radii: a radius whose square
 * overflows or is below 2^-896 (see core/distance.ts and isOrdinaryRadius
 * there). queryRadius and forEachPair hand such a call here once, at its
 * start, and keep their float64 loops for every other radius; nearest()
 * settles its extremes through spatialhash/exact-nearest.ts with the
 * {@link pointSource} of this file. Written once for both dimensions, plain
 * on purpose: the cells around the query for a tiny radius, every point for a
 * huge one, each tested with the scaled test. Their speed matters little.
 *
 * @module
 */
import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import {
  bandScale,
  extremeScale,
  HUGE_SCALE,
  ORDINARY_BAND,
  scaledDistance2,
  scaledDistance3,
  scaledLimit,
  squareBand,
} from '../core/distance.js';
import { radiusPad } from '../spatialhash/base.js';
import type { ExactSource } from '../spatialhash/exact-nearest.js';
import type { PairVisitor } from '../spatialhash/pairs.js';
import { accept, type PointHashBase, RUN, RUN_COUNT, RUN_START } from './base.js';

const NONE = -1;

/** Squared distance of the point in slot `s` of `slots` from q, every length scaled by `scale`. */
function scaledTo(dim: number, slots: Float64Array, s: number, q: ArrayLike<number>, scale: number): number {
  return dim === 2
    ? scaledDistance2(slots[s], slots[s + 1], q[0], q[1], scale)
    : scaledDistance3(slots[s], slots[s + 1], slots[s + 2], q[0], q[1], q[2], scale);
}

/** Squared distance of the points in slots s of `a` and t of `b`, every length scaled by `scale`. */
function scaledBetween(dim: number, a: Float64Array, s: number, b: Float64Array, t: number, scale: number): number {
  return dim === 2
    ? scaledDistance2(a[s], a[s + 1], b[t], b[t + 1], scale)
    : scaledDistance3(a[s], a[s + 1], a[s + 2], b[t], b[t + 1], b[t + 2], scale);
}

/** Looks up cell (k[0], k[1][, k[2]]). */
function find<T>(hash: PointHashBase<T>, k: ArrayLike<number>): number {
  return hash.dim === 2 ? hash.cells.find2(k[0], k[1]) : hash.cells.find3(k[0], k[1], k[2]);
}

/**
 * Calls `visit(id)` for each occupied cell in the range `lo..hi` whose id is
 * above `after`: looked up one by one, or, when the range spans more cells
 * than the table holds, found by testing every occupied cell against it.
 */
function cellsInBox<T>(
  hash: PointHashBase<T>,
  lo: number[],
  hi: number[],
  after: number,
  visit: (id: number) => void,
): void {
  const dim = hash.dim;
  const cells = hash.cells;
  const runs = hash.cellRuns;
  let count = 1;
  for (let a = 0; a < dim; a++) {
    if (lo[a] > hi[a]) return;
    count *= hi[a] - lo[a] + 1;
  }
  if (count > cells.size) {
    const keys = cells.keys;
    for (let id = after + 1; id < cells.idLimit; id++) {
      if (runs[id * RUN + RUN_COUNT] === 0) continue;
      let inside = true;
      for (let a = 0; a < dim; a++) {
        const key = keys[id * dim + a];
        if (key < lo[a] || key > hi[a]) inside = false;
      }
      if (inside) visit(id);
    }
    return;
  }
  const k = [lo[0], lo[1], dim === 3 ? lo[2] : 0];
  const top = dim === 3 ? hi[2] : 0;
  for (k[2] = dim === 3 ? lo[2] : 0; k[2] <= top; k[2]++) {
    for (k[1] = lo[1]; k[1] <= hi[1]; k[1]++) {
      for (k[0] = lo[0]; k[0] <= hi[0]; k[0]++) {
        const id = find(hash, k);
        if (id !== NONE && id > after && runs[id * RUN + RUN_COUNT] > 0) visit(id);
      }
    }
  }
}

/**
 * Calls `visit(slots, s)` for every stored point that may lie within
 * `radius` of q: for a radius whose square is not huge, those in the cells
 * of the padded range around q; otherwise all of them. Far points always.
 */
function pointsNear<T>(
  hash: PointHashBase<T>,
  q: ArrayLike<number>,
  radius: number,
  visit: (slots: Float64Array, s: number) => void,
): void {
  const dim = hash.dim;
  const stride = hash.stride;
  const runs = hash.cellRuns;
  const slots = hash.slots;
  const run = (id: number) => {
    const start = runs[id * RUN + RUN_START];
    for (let s = start * stride, end = (start + runs[id * RUN + RUN_COUNT]) * stride; s < end; s += stride) {
      visit(slots, s);
    }
  };
  if (hash.occupiedCells > 0) {
    if (radius * radius > Number.MAX_VALUE) {
      for (let id = 0; id < hash.cells.idLimit; id++) run(id);
    } else {
      let magnitude = 0;
      for (let a = 0; a < dim; a++) magnitude += Math.abs(q[a]);
      const pad = radiusPad(radius, magnitude);
      const lo: number[] = [];
      const hi: number[] = [];
      for (let a = 0; a < dim; a++) {
        lo[a] = Math.max(hash.cellOf(q[a] - pad), -MAX_CELL_INDEX);
        hi[a] = Math.min(hash.cellOf(q[a] + pad), MAX_CELL_INDEX);
      }
      cellsInBox(hash, lo, hi, -1, run);
    }
  }
  for (let s = 0; s < hash.farCount * stride; s += stride) visit(hash.far, s);
}

/**
 * queryRadius for an extreme radius: writes the items of the points within
 * it that pass mask `m` into `out` from its start and returns their count.
 */
export function radiusExtreme<T>(
  hash: PointHashBase<T>,
  q: ArrayLike<number>,
  radius: number,
  m: number,
  out: T[],
): number {
  // Without filters every category is 1.
  if (hash.filters === undefined && (m & 1) === 0) return 0;
  const scale = extremeScale(radius);
  const limit = scaledLimit(radius, scale);
  const dim = hash.dim;
  const filters = hash.filters;
  const items = hash.items;
  let found = 0;
  pointsNear(hash, q, radius, (slots, s) => {
    if (!(scaledTo(dim, slots, s, q, scale) <= limit)) return;
    const h = slots[s + dim];
    if (filters !== undefined && (filters[h * 2] & m) === 0) return;
    out[found++] = items[h] as T;
  });
  return found;
}

/**
 * forEachPair for an extreme radius: every pair of points within it whose
 * filters accept each other, once. A huge radius tests every pair; a tiny
 * one each cell's points with each other and with the cells of higher id in
 * reach (the range of its points grown by the padded radius, as the hot
 * search has it), so a pair is met once, from its lower cell. Far points
 * are tested against everything.
 */
export function pairsExtreme<T>(hash: PointHashBase<T>, radius: number, visit: PairVisitor<T>): void {
  if (hash.itemCount < 2) return;
  const scale = extremeScale(radius);
  const limit = scaledLimit(radius, scale);
  const dim = hash.dim;
  const stride = hash.stride;
  const runs = hash.cellRuns;
  const slots = hash.slots;
  const far = hash.far;
  const filters = hash.filters;
  const items = hash.items;
  /** Points in slots from..to-1 of `a` against those of to2..end of `b` (or, with b = a and from2 = -1, i < j). */
  const test = (a: Float64Array, from: number, to: number, b: Float64Array, from2: number, to2: number) => {
    for (let s = from * stride; s < to * stride; s += stride) {
      const first = from2 < 0 ? s + stride : from2 * stride;
      for (let t = first; t < to2 * stride; t += stride) {
        if (!(scaledBetween(dim, a, s, b, t, scale) <= limit)) continue;
        const i = a[s + dim];
        const j = b[t + dim];
        if (accept(filters, i, j)) visit(items[i] as T, items[j] as T);
      }
    }
  };
  const huge = scale === HUGE_SCALE;
  const lo: number[] = [];
  const hi: number[] = [];
  for (let id = 0; id < hash.cells.idLimit; id++) {
    const n = runs[id * RUN + RUN_COUNT];
    if (n === 0) continue;
    const start = runs[id * RUN + RUN_START];
    const end = start + n;
    test(slots, start, end, slots, -1, end);
    const later = (other: number) => {
      const from = runs[other * RUN + RUN_START];
      test(slots, start, end, slots, from, from + runs[other * RUN + RUN_COUNT]);
    };
    if (huge) {
      for (let other = id + 1; other < hash.cells.idLimit; other++) later(other);
      continue;
    }
    // The cells this one's points can reach.
    let magnitude = 0;
    for (let a = 0; a < dim; a++) {
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (let s = start * stride; s < end * stride; s += stride) {
        min = Math.min(min, slots[s + a]);
        max = Math.max(max, slots[s + a]);
      }
      lo[a] = min;
      hi[a] = max;
      magnitude += Math.max(-min, max);
    }
    const pad = radiusPad(radius, magnitude);
    for (let a = 0; a < dim; a++) {
      lo[a] = Math.max(hash.cellOf(lo[a] - pad), -MAX_CELL_INDEX);
      hi[a] = Math.min(hash.cellOf(hi[a] + pad), MAX_CELL_INDEX);
    }
    cellsInBox(hash, lo, hi, id, later);
  }
  const farCount = hash.farCount;
  if (farCount > 0) {
    test(far, 0, farCount, far, -1, farCount);
    for (let id = 0; id < hash.cells.idLimit; id++) {
      const from = runs[id * RUN + RUN_START];
      test(far, 0, farCount, slots, from, from + runs[id * RUN + RUN_COUNT]);
    }
  }
}

/**
 * Whether live handle h's point lies within `radius` of q under the rule,
 * for a radius whose square overflows: what a nearest search checks before
 * it asks its predicate about a point whose float64 squared distance
 * overflowed (the predicate is asked only about points within maxDistance).
 */
export function withinHuge<T>(hash: PointHashBase<T>, h: number, q: ArrayLike<number>, radius: number): boolean {
  return scaledTo(hash.dim, hash.slotArray(h), hash.slotOf(h), q, HUGE_SCALE) <= scaledLimit(radius, HUGE_SCALE);
}

/**
 * The {@link ExactSource} of a nearest query at q over `hash`, mask `m`,
 * with `ask` for the predicate's (remembered) verdicts.
 */
export function pointSource<T>(
  hash: PointHashBase<T>,
  q: ArrayLike<number>,
  m: number,
  ask: (h: number) => boolean,
): ExactSource {
  const dim = hash.dim;
  return {
    key(h, key) {
      const slots = hash.slotArray(h);
      const s = hash.slotOf(h);
      const d2 = scaledTo(dim, slots, s, q, 1);
      const band = squareBand(d2);
      key[0] = band;
      key[1] = band === ORDINARY_BAND ? d2 : scaledTo(dim, slots, s, q, bandScale(band));
    },
    masked: (h) => (hash.filters === undefined ? 1 & m : hash.filters[h * 2] & m) !== 0,
    candidates(radius) {
      const handles: number[] = [];
      pointsNear(hash, q, radius, (slots, s) => {
        handles.push(slots[s + dim]);
      });
      return handles;
    },
    ask,
  };
}
