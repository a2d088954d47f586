/**
 * One collision pass in 2D (and 1D, as 2D with y = 0): d3's sequential rule
 * with the pairs found through the grids of grids.ts.
 *
 * Node i, in index order, takes x_i = x + vx once; every j > i that overlaps
 * it then (as earlier visits left j) gets d3's correction, with the same
 * arithmetic in the same order as d3-force's collide.js, so that each pair's
 * numbers come out bit for bit as d3's.
 *
 * @module
 */
import { hashCell2 } from '../core/cell-hash.js';
import { BIN2, type CollideGrids, clampHashed, REACH_SLACK, STRIDE2 } from './grids.js';

/**
 * Runs one pass over every node and returns how many candidates it tested;
 * the velocities are left in the slots (see CollideGrids.flush). `useY` is
 * false in 1D (d3-force-3d's numDimensions 1): y takes no part, as there,
 * neither jiggled nor corrected.
 *
 * Nothing runs after the loop: the loop is optimized on the stack while it
 * runs, before any code after it has run once, and code there without type
 * feedback threw the optimized loop away at the end of every pass (seen with
 * --trace-deopt: a deoptimization per pass, and each pass starting again in
 * the interpreter).
 */
export function pass2(g: CollideGrids, strength: number, random: () => number, useY: boolean): number {
  const { n, slots, slotOf, cells, largest, skin, lastIndex, inv, ox, oy, cols, rows, mask, base, buckets } = g;
  const classes = g.classes;
  // The visit's numbers go to the scans through this array: doubles passed as arguments to a call that is not
  // inlined are boxed, one allocation each (1.9 MB a pass at 20,000 nodes, measured with the heap sampler).
  const query = g.query;
  query[3] = strength;
  g.build(0);
  let tested = 0;
  for (let i = 0; i < n; i++) {
    // Too many refiled nodes: file this node and the rest again (see CollideGrids.refile for the bound).
    if (g.listUsed > n) {
      g.flush();
      g.build(i);
    }
    const si = slotOf[i];
    // Not filed: its radius is NaN or its position not finite, so it overlaps nothing.
    if (si < 0) continue;
    const oi = si * STRIDE2;
    const xi = slots[oi] + slots[oi + 2];
    const yi = slots[oi + 1] + slots[oi + 3];
    if (xi - xi !== 0 || yi - yi !== 0) continue;
    const ri = slots[oi + 4];
    query[0] = xi;
    query[1] = yi;
    query[2] = ri;
    for (let c = 0; c < classes; c++) {
      if (lastIndex[c] <= i) continue;
      const plain = ri + largest[c] + skin[c];
      const reach = plain + (g.magnitude + Math.abs(xi) + Math.abs(yi) + plain) * REACH_SLACK;
      const k = inv[c];
      let x0 = Math.floor((xi - reach - ox[c]) * k);
      let x1 = Math.floor((xi + reach - ox[c]) * k);
      let y0 = Math.floor((yi - reach - oy[c]) * k);
      let y1 = Math.floor((yi + reach - oy[c]) * k);
      const w = cols[c];
      const lists = g.listUsed > 0;
      if (w >= 0) {
        // Dense: the cells x0..x1 of a row are consecutive buckets, so their slots are one run.
        const h = rows[c];
        x0 = x0 < 0 ? 0 : x0 >= w ? w - 1 : x0;
        x1 = x1 < 0 ? 0 : x1 >= w ? w - 1 : x1;
        y0 = y0 < 0 ? 0 : y0 >= h ? h - 1 : y0;
        y1 = y1 < 0 ? 0 : y1 >= h ? h - 1 : y1;
        for (let cy = y0; cy <= y1; cy++) {
          const row = base[c] + w * cy;
          tested += scan2(g, cells[2 * (row + x0)], cells[2 * (row + x1 + 1)], i, oi, random, useY);
          if (lists) {
            for (let b = row + x0; b <= row + x1; b++) tested += scanList2(g, b, i, oi, random, useY);
          }
        }
        continue;
      }
      // Hashed: every bucket once if the range covers more cells than there are buckets, else cell by cell,
      // skipping buckets this query already scanned (cells that share one).
      x0 = clampHashed(x0);
      x1 = clampHashed(x1);
      y0 = clampHashed(y0);
      y1 = clampHashed(y1);
      const first = base[c];
      if ((x1 - x0 + 1) * (y1 - y0 + 1) >= buckets[c]) {
        const last = first + buckets[c];
        tested += scan2(g, cells[2 * first], cells[2 * last], i, oi, random, useY);
        if (lists) for (let b = first; b < last; b++) tested += scanList2(g, b, i, oi, random, useY);
        continue;
      }
      const stamp = g.nextStamp();
      const stamps = g.stamps;
      const m = mask[c];
      for (let cy = y0; cy <= y1; cy++) {
        for (let cx = x0; cx <= x1; cx++) {
          const b = first + (hashCell2(cx, cy) & m);
          if (stamps[b] === stamp) continue;
          stamps[b] = stamp;
          tested += scan2(g, cells[2 * b], cells[2 * b + 2], i, oi, random, useY);
          if (lists) tested += scanList2(g, b, i, oi, random, useY);
        }
      }
    }
  }
  return tested;
}

/**
 * Meets node i (its data at `oi`) with every node j > i in the slots
 * [start, end) (killed slots hold ~j < 0). Returns how many it tested.
 */
function scan2(
  g: CollideGrids,
  start: number,
  end: number,
  i: number,
  oi: number,
  random: () => number,
  useY: boolean,
): number {
  const { slots, query } = g;
  const xi = query[0];
  const yi = query[1];
  const ri = query[2];
  let tested = 0;
  for (let s = start; s < end; s++) {
    const o = s * STRIDE2;
    const j = slots[o + 5];
    if (j <= i) continue;
    tested++;
    const r = ri + slots[o + 4];
    const x = xi - slots[o] - slots[o + 2];
    const y = yi - slots[o + 1] - slots[o + 3];
    const l = x * x + y * y;
    if (l < r * r) {
      query[4] = x;
      query[5] = y;
      query[6] = l;
      correct2(g, i, j, oi, s, random, useY);
    }
  }
  return tested;
}

/** As {@link scan2}, for the refiled nodes listed in bucket b (a refiled node's slot holds ~j). */
function scanList2(g: CollideGrids, b: number, i: number, oi: number, random: () => number, useY: boolean): number {
  const { slots, listNext, listSlot, listBorn, query } = g;
  const xi = query[0];
  const yi = query[1];
  const ri = query[2];
  let tested = 0;
  for (let e = g.cells[2 * b + 1]; e >= 0; e = listNext[e]) {
    const s = listSlot[e];
    if (s < 0) continue;
    const o = s * STRIDE2;
    const j = ~slots[o + 5];
    if (j <= i || listBorn[e] === i) continue;
    tested++;
    const r = ri + slots[o + 4];
    const x = xi - slots[o] - slots[o + 2];
    const y = yi - slots[o + 1] - slots[o + 3];
    const l = x * x + y * y;
    if (l < r * r) {
      query[4] = x;
      query[5] = y;
      query[6] = l;
      correct2(g, i, j, oi, s, random, useY);
    }
  }
  return tested;
}

/**
 * d3's correction of an overlapping pair (i, j), i's data at `oi`, j's in
 * slot s, their offset (x, y) and its squared length `l` as the scan
 * computed them (in `g.query`); then j refiled if it left its skin.
 */
function correct2(
  g: CollideGrids,
  i: number,
  j: number,
  oi: number,
  s: number,
  random: () => number,
  useY: boolean,
): void {
  const query = g.query;
  let x = query[4];
  let y = query[5];
  let l = query[6];
  const ri = query[2];
  const strength = query[3];
  const D = g.slots;
  const o = s * STRIDE2;
  let rj = D[o + 4];
  let r = ri + rj;
  // From here on, d3-force's collide.js expression by expression.
  if (x === 0) {
    x = (random() - 0.5) * 1e-6;
    l += x * x;
  }
  if (useY && y === 0) {
    y = (random() - 0.5) * 1e-6;
    l += y * y;
  }
  l = Math.sqrt(l);
  l = ((r - l) / l) * strength;
  x *= l;
  rj *= rj;
  r = rj / (ri * ri + rj);
  D[oi + 2] += x * r;
  if (useY) {
    y *= l;
    D[oi + 3] += y * r;
  }
  r = 1 - r;
  D[o + 2] -= x * r;
  if (useY) D[o + 3] -= y * r;
  g.pairs++;
  const bins = g.bins;
  const q = s * BIN2;
  const reach = bins[q + 2];
  if (!(Math.abs(D[o] + D[o + 2] - bins[q]) <= reach && Math.abs(D[o + 1] + D[o + 3] - bins[q + 1]) <= reach)) {
    g.refile(j, s, i);
  }
}
