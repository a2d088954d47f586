/**
 * One collision pass in 3D: d3-force-3d's sequential rule with the pairs
 * found through the grids of grids.ts. Kept parallel to pass2d.ts.
 *
 * Node i, in index order, takes x_i = x + vx once; every j > i that overlaps
 * it then (as earlier visits left j) gets d3's correction, with the same
 * arithmetic in the same order as d3-force-3d's collide.js, so that each pair's
 * numbers come out bit for bit as d3-force-3d's.
 *
 * @module
 */
import { hashCell3 } from '../core/cell-hash.js';
import { BIN3, type CollideGrids, clampHashed, REACH_SLACK, STRIDE3 } from './grids.js';

/** Runs one pass over every node and returns how many candidates it tested (see pass2d.ts: nothing after the loop). */
export function pass3(g: CollideGrids, strength: number, random: () => number): number {
  const { n, slots, slotOf, cells, largest, skin, lastIndex, inv, ox, oy, oz, cols, rows, layers } = g;
  const { mask, base, buckets } = g;
  const classes = g.classes;
  // The visit's numbers go to the scans through this array (see pass2d.ts).
  const query = g.query;
  query[4] = strength;
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
    const oi = si * STRIDE3;
    const xi = slots[oi] + slots[oi + 3];
    const yi = slots[oi + 1] + slots[oi + 4];
    const zi = slots[oi + 2] + slots[oi + 5];
    if (xi - xi !== 0 || yi - yi !== 0 || zi - zi !== 0) continue;
    const ri = slots[oi + 6];
    query[0] = xi;
    query[1] = yi;
    query[2] = zi;
    query[3] = ri;
    for (let c = 0; c < classes; c++) {
      if (lastIndex[c] <= i) continue;
      const plain = ri + largest[c] + skin[c];
      const reach = plain + (g.magnitude + Math.abs(xi) + Math.abs(yi) + Math.abs(zi) + plain) * REACH_SLACK;
      const k = inv[c];
      let x0 = Math.floor((xi - reach - ox[c]) * k);
      let x1 = Math.floor((xi + reach - ox[c]) * k);
      let y0 = Math.floor((yi - reach - oy[c]) * k);
      let y1 = Math.floor((yi + reach - oy[c]) * k);
      let z0 = Math.floor((zi - reach - oz[c]) * k);
      let z1 = Math.floor((zi + reach - oz[c]) * k);
      const w = cols[c];
      const lists = g.listUsed > 0;
      if (w >= 0) {
        // Dense: the cells x0..x1 of a row are consecutive buckets, so their slots are one run.
        const h = rows[c];
        const d = layers[c];
        x0 = x0 < 0 ? 0 : x0 >= w ? w - 1 : x0;
        x1 = x1 < 0 ? 0 : x1 >= w ? w - 1 : x1;
        y0 = y0 < 0 ? 0 : y0 >= h ? h - 1 : y0;
        y1 = y1 < 0 ? 0 : y1 >= h ? h - 1 : y1;
        z0 = z0 < 0 ? 0 : z0 >= d ? d - 1 : z0;
        z1 = z1 < 0 ? 0 : z1 >= d ? d - 1 : z1;
        for (let cz = z0; cz <= z1; cz++) {
          for (let cy = y0; cy <= y1; cy++) {
            const row = base[c] + w * (cy + h * cz);
            tested += scan3(g, cells[2 * (row + x0)], cells[2 * (row + x1 + 1)], i, oi, random);
            if (lists) {
              for (let b = row + x0; b <= row + x1; b++) tested += scanList3(g, b, i, oi, random);
            }
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
      z0 = clampHashed(z0);
      z1 = clampHashed(z1);
      const first = base[c];
      if ((x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1) >= buckets[c]) {
        const last = first + buckets[c];
        tested += scan3(g, cells[2 * first], cells[2 * last], i, oi, random);
        if (lists) for (let b = first; b < last; b++) tested += scanList3(g, b, i, oi, random);
        continue;
      }
      const stamp = g.nextStamp();
      const stamps = g.stamps;
      const m = mask[c];
      for (let cz = z0; cz <= z1; cz++) {
        for (let cy = y0; cy <= y1; cy++) {
          for (let cx = x0; cx <= x1; cx++) {
            const b = first + (hashCell3(cx, cy, cz) & m);
            if (stamps[b] === stamp) continue;
            stamps[b] = stamp;
            tested += scan3(g, cells[2 * b], cells[2 * b + 2], i, oi, random);
            if (lists) tested += scanList3(g, b, i, oi, random);
          }
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
function scan3(g: CollideGrids, start: number, end: number, i: number, oi: number, random: () => number): number {
  const { slots, query } = g;
  const xi = query[0];
  const yi = query[1];
  const zi = query[2];
  const ri = query[3];
  let tested = 0;
  for (let s = start; s < end; s++) {
    const o = s * STRIDE3;
    const j = slots[o + 7];
    if (j <= i) continue;
    tested++;
    const r = ri + slots[o + 6];
    const x = xi - slots[o] - slots[o + 3];
    const y = yi - slots[o + 1] - slots[o + 4];
    const z = zi - slots[o + 2] - slots[o + 5];
    const l = x * x + y * y + z * z;
    if (l < r * r) {
      query[5] = x;
      query[6] = y;
      query[7] = z;
      query[8] = l;
      correct3(g, i, j, oi, s, random);
    }
  }
  return tested;
}

/** As {@link scan3}, for the refiled nodes listed in bucket b (a refiled node's slot holds ~j). */
function scanList3(g: CollideGrids, b: number, i: number, oi: number, random: () => number): number {
  const { slots, listNext, listSlot, listBorn, query } = g;
  const xi = query[0];
  const yi = query[1];
  const zi = query[2];
  const ri = query[3];
  let tested = 0;
  for (let e = g.cells[2 * b + 1]; e >= 0; e = listNext[e]) {
    const s = listSlot[e];
    if (s < 0) continue;
    const o = s * STRIDE3;
    const j = ~slots[o + 7];
    if (j <= i || listBorn[e] === i) continue;
    tested++;
    const r = ri + slots[o + 6];
    const x = xi - slots[o] - slots[o + 3];
    const y = yi - slots[o + 1] - slots[o + 4];
    const z = zi - slots[o + 2] - slots[o + 5];
    const l = x * x + y * y + z * z;
    if (l < r * r) {
      query[5] = x;
      query[6] = y;
      query[7] = z;
      query[8] = l;
      correct3(g, i, j, oi, s, random);
    }
  }
  return tested;
}

/**
 * d3-force-3d's correction of an overlapping pair (i, j), i's data at `oi`,
 * j's in slot s, their offset (x, y, z) and its squared length `l` as the
 * scan computed them (in `g.query`); then j refiled if it left its skin.
 */
function correct3(g: CollideGrids, i: number, j: number, oi: number, s: number, random: () => number): void {
  const query = g.query;
  let x = query[5];
  let y = query[6];
  let z = query[7];
  let l = query[8];
  const ri = query[3];
  const strength = query[4];
  const D = g.slots;
  const o = s * STRIDE3;
  let rj = D[o + 6];
  let r = ri + rj;
  // From here on, d3-force-3d's collide.js expression by expression.
  if (x === 0) {
    x = (random() - 0.5) * 1e-6;
    l += x * x;
  }
  if (y === 0) {
    y = (random() - 0.5) * 1e-6;
    l += y * y;
  }
  if (z === 0) {
    z = (random() - 0.5) * 1e-6;
    l += z * z;
  }
  l = Math.sqrt(l);
  l = ((r - l) / l) * strength;
  x *= l;
  rj *= rj;
  r = rj / (ri * ri + rj);
  D[oi + 3] += x * r;
  y *= l;
  D[oi + 4] += y * r;
  z *= l;
  D[oi + 5] += z * r;
  r = 1 - r;
  D[o + 3] -= x * r;
  D[o + 4] -= y * r;
  D[o + 5] -= z * r;
  g.pairs++;
  const bins = g.bins;
  const q = s * BIN3;
  const reach = bins[q + 3];
  if (
    !(
      Math.abs(D[o] + D[o + 3] - bins[q]) <= reach &&
      Math.abs(D[o + 1] + D[o + 4] - bins[q + 1]) <= reach &&
      Math.abs(D[o + 2] + D[o + 5] - bins[q + 2]) <= reach
    )
  ) {
    g.refile(j, s, i);
  }
}
