// Generated from src/templates/weld.template.ts by scripts/expand-templates.mjs (npm run build): edit the template, not this file.
// weld's near search (a tolerance above 0), written once for 2D and 3D and for both paths (scripts/
// expand-templates.mjs explains the directives): every vertex, in input order, joins the nearest representative
// within the tolerance (ties to the older one) or becomes one. Both paths test the same candidates with the same
// arithmetic, so each vertex gets the same representative on both, by construction.
//
// Per vertex: the representatives of the last few vertices first (RECENT: a triangle soup repeats a corner in
// the next triangle or two, and one within half the tolerance is the answer wherever it was found, see
// SURE_FRACTION in src/core/weld-cells.ts); then the vertex's own cell, which usually ends the search; then the
// other cells of the window its ball (shrunk to the best distance so far) covers, until one is sure. Cells are
// 2 * reach wide (reach: the tolerance plus slack), so the window is 2 cells per axis (3 after a rare rounding):
// 8 lookups in 3D (4 in 2D) against 27 (9) with tolerance-sized cells, and on sparse welding input the number of
// lookups, each a cache miss on large meshes, is the cost (Bitsquid's "Finding nearby stuff": cell size =
// search diameter, see docs/guides/welding.md).
//
// Cell coordinates are taken relative to the data's lowest corner and halved first, so nothing overflows:
// cell(v) = floor((v * 0.5 - min * 0.5) / half), half = cell side / 2. Every step is a monotone float64
// operation, so a <= r <= b gives cell(a) <= cell(r) <= cell(b): the cells cell(p - reach) .. cell(p + reach)
// hold every representative r the float64 distance test accepts (all have |r - p| <= reach per axis).
//
// The table from int32 cell keys (the cells' low 32 bits, see MAX_CELLS_PER_AXIS in src/core/weld-cells.ts) to
// cell ids is each target's own, and so are its few lines here, side by side: JavaScript keeps ids only in its
// slots (an Int32Array, 4 bytes a slot, in cache on meshes of a million vertices) and a bitmap of occupied cell
// hashes (8 bits a slot) that answers most empty neighbours with one bit test; the kernels keep the hash beside
// the id in a 64-bit slot (a probe passes other cells without reading their keys) and a filter of a bit per
// cell, blocks of cells in one 64-bit word (src/wasm/assembly/weld.ts), which answers a whole window in a load
// or two, and test the recent representatives all at once, without a branch per representative. Only the
// JavaScript path takes weldGeometry's extra test per representative (`accept`, a callback).

// weld's near search on the WebAssembly kernels (tolerance > 0), from the same template as the JavaScript path's
// (src/weld/near.ts). The caller (src/wasm/weld-kernels.ts) lays the regions out, sizes them for the worst case
// and sets the table (setWeldTable of weld.ts, which holds the table and its helpers); the table starts small
// and doubles in place, as the JavaScript path's does.

import { CELL_HASH_X, CELL_HASH_Y, CELL_HASH_Z, mix32, toInt32 } from './cell-hash';
import {
  bit2,
  bit3,
  heads,
  i32At,
  keys,
  mark,
  marked2,
  marked3,
  next,
  placeCells,
  probe,
  RECENT,
  setI32,
  slotAt,
  slotCount,
  word2,
  word3,
} from './weld';

/** REACH_SLACK of src/core/weld-cells.ts. */
const REACH_SLACK: f64 = 1 + 1.0 / 1099511627776.0;
// 1 + 2^-40
/** 2^-1073: see nearerReach in the template. */
const TINY_SQUARE: f64 = reinterpret<f64>(0x000000000000000e);
// 2^-1073

/** The squared distance from the vertex to representative r, as the search computes it. */
// @ts-ignore: decorator
@inline function distance2(r: i32, x: f64, y: f64, repCoords: usize): f64 {
  const dx = load<f64>(repCoords + (<usize>(2 * r) << 3)) - x;
  const dy = load<f64>(repCoords + (<usize>(2 * r + 1) << 3)) - y;
  return dx * dx + dy * dy;
}

/**
 * The one of the last RECENT (4) vertices' representatives within sure2 of the vertex, or -1. All four at once,
 * with no branch per representative: the one found is the same as the loop's (a representative within sure2 is
 * the only one there, see SURE_FRACTION in src/core/weld-cells.ts), and which of them it is seldom follows a
 * pattern a branch predictor learns.
 */
// @ts-ignore: decorator
@inline function recentAtOnce2(at: usize, x: f64, y: f64, sure2: f64, repCoords: usize): i32 {
  const r4 = load<i32>(at);
  const r3 = load<i32>(at, 4);
  const r2 = load<i32>(at, 8);
  const r1 = load<i32>(at, 12);
  let best = -1;
  best = select<i32>(r1, best, distance2(r1, x, y, repCoords) < sure2);
  best = select<i32>(r2, best, distance2(r2, x, y, repCoords) < sure2);
  best = select<i32>(r3, best, distance2(r3, x, y, repCoords) < sure2);
  best = select<i32>(r4, best, distance2(r4, x, y, repCoords) < sure2);
  return best;
}

/**
 * weldNear2 of the JavaScript path over `n` packed vertices at `coords` (C: f32 or f64), writing remap,
 * representatives and repCoords (f64, packed); returns the number of representatives. `reach`, `inv` and the
 * halved minima are gridParameters' values (src/core/weld-cells.ts), `sure2` the early-stop distance (-1: none).
 */
export function weldNear2<C>(
  coords: usize, n: i32, tolerance2: f64, sure2: f64, reach: f64, inv: f64, hx: f64, hy: f64,
  remap: usize, representatives: usize, repCoords: usize,
): i32 {
  const cs = sizeof<C>();
  // The table at the size setWeldTable gave, emptied (no cell placed yet); it doubles as cells come.
  let slotTotal = slotCount;
  placeCells(0, 2, slotTotal);
  let mask = slotTotal - 1;
  let wordMask = (slotTotal >> 3) - 1;
  let cells = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = <f64>load<C>(coords + <usize>(2 * i) * cs);
    const y = <f64>load<C>(coords + <usize>(2 * i + 1) * cs);
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    // The representatives of the last few vertices first (see RECENT): one within sure2 is the answer.
    if (i >= RECENT && sure2 > 0) best = recentAtOnce2(remap + (<usize>(i - RECENT) << 2), x, y, sure2, repCoords);
    else
    for (let back = sure2 > 0 ? min(i, RECENT) : 0; back > 0; back--) {
      const r = i32At(remap, i - back);
      const dx = load<f64>(repCoords + (<usize>(2 * r) << 3)) - x;
      const dy = load<f64>(repCoords + (<usize>(2 * r + 1) << 3)) - y;
      if (dx * dx + dy * dy < sure2) {
        best = r;
        break;
      }
    }
    if (best >= 0) {
      setI32(remap, i, best);
      continue;
    }
    // The vertex's own cell first: it usually holds the representative, close enough to stop.
    const kx = toInt32(Math.floor((x * 0.5 - hx) * inv));
    const ky = toInt32(Math.floor((y * 0.5 - hy) * inv));
    const h = mix32(<u32>(kx) * CELL_HASH_X ^ <u32>(ky) * CELL_HASH_Y);
    // The own cell straight from the table (the hash in the slot skips other cells' keys).
    const s = probe(h, mask, 2, kx, ky, 0);
    const own = <i32>load<u64>(slotAt(s));
    if (own >= 0) {
      for (let r = i32At(heads, own); r >= 0; r = i32At(next, r)) {
        const dx = load<f64>(repCoords + (<usize>(2 * r) << 3)) - x;
        const dy = load<f64>(repCoords + (<usize>(2 * r + 1) << 3)) - y;
        const d2 = dx * dx + dy * dy;
        if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 === bestDistance2 && r < best))) {
          best = r;
          bestDistance2 = d2;
        }
      }
    }
    if (!(bestDistance2 < sure2)) {
      const ball = best < 0 ? reach : min(reach, Math.sqrt(bestDistance2 + TINY_SQUARE) * REACH_SLACK);
      // The window's first cell and span per axis; the loops run on the int32 keys.
      const x0 = Math.floor(((x - ball) * 0.5 - hx) * inv);
      const spanX = toInt32(Math.floor(((x + ball) * 0.5 - hx) * inv) - x0);
      const bx = toInt32(x0);
      const y0 = Math.floor(((y - ball) * 0.5 - hy) * inv);
      const spanY = toInt32(Math.floor(((y + ball) * 0.5 - hy) * inv) - y0);
      const by = toInt32(y0);
      // A representative within sure2 is the answer wherever it is found: the search stops there.
      let searching = marked2(bx, bx + spanX, by, by + spanY, kx, ky, wordMask);
        for (let oy = 0; oy <= spanY && searching; oy++) {
          const ly = by + oy;
          const rowHash = <u32>(ly) * CELL_HASH_Y;
          for (let ox = 0; ox <= spanX; ox++) {
            const lx = bx + ox;
            // The own cell, already searched (no other cell in the window shares its key).
            if (lx === kx && ly === ky) continue;
            const q = mix32(<u32>(lx) * CELL_HASH_X ^ rowHash);
            if ((load<u64>(word2(lx, ly, wordMask)) & bit2(lx, ly)) == 0) continue;
            const id = <i32>load<u64>(slotAt(probe(q, mask, 2, lx, ly, 0)));
            if (id < 0) continue;
            for (let r = i32At(heads, id); r >= 0; r = i32At(next, r)) {
              const dx = load<f64>(repCoords + (<usize>(2 * r) << 3)) - x;
              const dy = load<f64>(repCoords + (<usize>(2 * r + 1) << 3)) - y;
              const d2 = dx * dx + dy * dy;
              if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 === bestDistance2 && r < best))) {
                best = r;
                bestDistance2 = d2;
              }
            }
            if (bestDistance2 < sure2) {
              searching = false;
              break;
            }
          }
        }
    }
    if (best < 0) {
      best = count++;
      setI32(representatives, best, i);
      // + 0: welded positions never hold -0, whether coords are the packed copy (already +0) or the input itself.
      store<f64>(repCoords + (<usize>(2 * best) << 3), x + 0);
      store<f64>(repCoords + (<usize>(2 * best + 1) << 3), y + 0);
      if (own >= 0) {
        setI32(next, best, i32At(heads, own));
        setI32(heads, own, best);
      } else {
        setI32(keys, 2 * cells, kx);
        setI32(keys, 2 * cells + 1, ky);
        setI32(heads, cells, best);
        setI32(next, best, -1);
        store<u64>(slotAt(s), <u64><u32>cells | (<u64>h << 32));
        mark(word2(kx, ky, wordMask), bit2(kx, ky));
        cells++;
        if (<u32>(cells * 2) > slotTotal) {
          slotTotal *= 2;
          mask = slotTotal - 1;
          wordMask = (slotTotal >> 3) - 1;
          placeCells(cells, 2, slotTotal);
        }
      }
    }
    setI32(remap, i, best);
  }
  return count;
}

// The instances the module exports (see src/wasm/weld-kernels.ts), by the coordinates' type; one signature for
// both dimensions (2D's take hz and ignore it), so that the glue calls them alike.
export function weldNear2d64(
  coords: usize, n: i32, tolerance2: f64, sure2: f64, reach: f64, inv: f64, hx: f64, hy: f64, hz: f64,
  remap: usize, representatives: usize, repCoords: usize,
): i32 {
  return weldNear2<f64>(coords, n, tolerance2, sure2, reach, inv, hx, hy, remap, representatives, repCoords);
}
export function weldNear2d32(
  coords: usize, n: i32, tolerance2: f64, sure2: f64, reach: f64, inv: f64, hx: f64, hy: f64, hz: f64,
  remap: usize, representatives: usize, repCoords: usize,
): i32 {
  return weldNear2<f32>(coords, n, tolerance2, sure2, reach, inv, hx, hy, remap, representatives, repCoords);
}

/** The squared distance from the vertex to representative r, as the search computes it. */
// @ts-ignore: decorator
@inline function distance3(r: i32, x: f64, y: f64, z: f64, repCoords: usize): f64 {
  const dx = load<f64>(repCoords + (<usize>(3 * r) << 3)) - x;
  const dy = load<f64>(repCoords + (<usize>(3 * r + 1) << 3)) - y;
  const dz = load<f64>(repCoords + (<usize>(3 * r + 2) << 3)) - z;
  return dx * dx + dy * dy + dz * dz;
}

/**
 * The one of the last RECENT (4) vertices' representatives within sure2 of the vertex, or -1. All four at once,
 * with no branch per representative: the one found is the same as the loop's (a representative within sure2 is
 * the only one there, see SURE_FRACTION in src/core/weld-cells.ts), and which of them it is seldom follows a
 * pattern a branch predictor learns.
 */
// @ts-ignore: decorator
@inline function recentAtOnce3(at: usize, x: f64, y: f64, z: f64, sure2: f64, repCoords: usize): i32 {
  const r4 = load<i32>(at);
  const r3 = load<i32>(at, 4);
  const r2 = load<i32>(at, 8);
  const r1 = load<i32>(at, 12);
  let best = -1;
  best = select<i32>(r1, best, distance3(r1, x, y, z, repCoords) < sure2);
  best = select<i32>(r2, best, distance3(r2, x, y, z, repCoords) < sure2);
  best = select<i32>(r3, best, distance3(r3, x, y, z, repCoords) < sure2);
  best = select<i32>(r4, best, distance3(r4, x, y, z, repCoords) < sure2);
  return best;
}

/**
 * weldNear3 of the JavaScript path over `n` packed vertices at `coords` (C: f32 or f64), writing remap,
 * representatives and repCoords (f64, packed); returns the number of representatives. `reach`, `inv` and the
 * halved minima are gridParameters' values (src/core/weld-cells.ts), `sure2` the early-stop distance (-1: none).
 */
export function weldNear3<C>(
  coords: usize, n: i32, tolerance2: f64, sure2: f64, reach: f64, inv: f64, hx: f64, hy: f64, hz: f64,
  remap: usize, representatives: usize, repCoords: usize,
): i32 {
  const cs = sizeof<C>();
  // The table at the size setWeldTable gave, emptied (no cell placed yet); it doubles as cells come.
  let slotTotal = slotCount;
  placeCells(0, 3, slotTotal);
  let mask = slotTotal - 1;
  let wordMask = (slotTotal >> 3) - 1;
  let cells = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = <f64>load<C>(coords + <usize>(3 * i) * cs);
    const y = <f64>load<C>(coords + <usize>(3 * i + 1) * cs);
    const z = <f64>load<C>(coords + <usize>(3 * i + 2) * cs);
    let best = -1;
    let bestDistance2 = Number.POSITIVE_INFINITY;
    // The representatives of the last few vertices first (see RECENT): one within sure2 is the answer.
    if (i >= RECENT && sure2 > 0) best = recentAtOnce3(remap + (<usize>(i - RECENT) << 2), x, y, z, sure2, repCoords);
    else
    for (let back = sure2 > 0 ? min(i, RECENT) : 0; back > 0; back--) {
      const r = i32At(remap, i - back);
      const dx = load<f64>(repCoords + (<usize>(3 * r) << 3)) - x;
      const dy = load<f64>(repCoords + (<usize>(3 * r + 1) << 3)) - y;
      const dz = load<f64>(repCoords + (<usize>(3 * r + 2) << 3)) - z;
      if (dx * dx + dy * dy + dz * dz < sure2) {
        best = r;
        break;
      }
    }
    if (best >= 0) {
      setI32(remap, i, best);
      continue;
    }
    // The vertex's own cell first: it usually holds the representative, close enough to stop.
    const kx = toInt32(Math.floor((x * 0.5 - hx) * inv));
    const ky = toInt32(Math.floor((y * 0.5 - hy) * inv));
    const kz = toInt32(Math.floor((z * 0.5 - hz) * inv));
    const h = mix32(<u32>(kx) * CELL_HASH_X ^ <u32>(ky) * CELL_HASH_Y ^ <u32>(kz) * CELL_HASH_Z);
    // The own cell straight from the table (the hash in the slot skips other cells' keys).
    const s = probe(h, mask, 3, kx, ky, kz);
    const own = <i32>load<u64>(slotAt(s));
    if (own >= 0) {
      for (let r = i32At(heads, own); r >= 0; r = i32At(next, r)) {
        const dx = load<f64>(repCoords + (<usize>(3 * r) << 3)) - x;
        const dy = load<f64>(repCoords + (<usize>(3 * r + 1) << 3)) - y;
        const dz = load<f64>(repCoords + (<usize>(3 * r + 2) << 3)) - z;
        const d2 = dx * dx + dy * dy + dz * dz;
        if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 === bestDistance2 && r < best))) {
          best = r;
          bestDistance2 = d2;
        }
      }
    }
    if (!(bestDistance2 < sure2)) {
      const ball = best < 0 ? reach : min(reach, Math.sqrt(bestDistance2 + TINY_SQUARE) * REACH_SLACK);
      // The window's first cell and span per axis; the loops run on the int32 keys.
      const x0 = Math.floor(((x - ball) * 0.5 - hx) * inv);
      const spanX = toInt32(Math.floor(((x + ball) * 0.5 - hx) * inv) - x0);
      const bx = toInt32(x0);
      const y0 = Math.floor(((y - ball) * 0.5 - hy) * inv);
      const spanY = toInt32(Math.floor(((y + ball) * 0.5 - hy) * inv) - y0);
      const by = toInt32(y0);
      const z0 = Math.floor(((z - ball) * 0.5 - hz) * inv);
      const spanZ = toInt32(Math.floor(((z + ball) * 0.5 - hz) * inv) - z0);
      const bz = toInt32(z0);
      // A representative within sure2 is the answer wherever it is found: the search stops there.
      let searching = marked3(bx, bx + spanX, by, by + spanY, bz, bz + spanZ, kx, ky, kz, wordMask);
      for (let oz = 0; oz <= spanZ && searching; oz++) {
        const lz = bz + oz;
        const hashZ = <u32>(lz) * CELL_HASH_Z;
        for (let oy = 0; oy <= spanY && searching; oy++) {
          const ly = by + oy;
          const rowHash = <u32>(ly) * CELL_HASH_Y ^ hashZ;
          for (let ox = 0; ox <= spanX; ox++) {
            const lx = bx + ox;
            // The own cell, already searched (no other cell in the window shares its key).
            if (lx === kx && ly === ky && lz === kz) continue;
            const q = mix32(<u32>(lx) * CELL_HASH_X ^ rowHash);
            if ((load<u64>(word3(lx, ly, lz, wordMask)) & bit3(lx, ly, lz)) == 0) continue;
            const id = <i32>load<u64>(slotAt(probe(q, mask, 3, lx, ly, lz)));
            if (id < 0) continue;
            for (let r = i32At(heads, id); r >= 0; r = i32At(next, r)) {
              const dx = load<f64>(repCoords + (<usize>(3 * r) << 3)) - x;
              const dy = load<f64>(repCoords + (<usize>(3 * r + 1) << 3)) - y;
              const dz = load<f64>(repCoords + (<usize>(3 * r + 2) << 3)) - z;
              const d2 = dx * dx + dy * dy + dz * dz;
              if (d2 <= tolerance2 && (d2 < bestDistance2 || (d2 === bestDistance2 && r < best))) {
                best = r;
                bestDistance2 = d2;
              }
            }
            if (bestDistance2 < sure2) {
              searching = false;
              break;
            }
          }
        }
      }
    }
    if (best < 0) {
      best = count++;
      setI32(representatives, best, i);
      // + 0: welded positions never hold -0, whether coords are the packed copy (already +0) or the input itself.
      store<f64>(repCoords + (<usize>(3 * best) << 3), x + 0);
      store<f64>(repCoords + (<usize>(3 * best + 1) << 3), y + 0);
      store<f64>(repCoords + (<usize>(3 * best + 2) << 3), z + 0);
      if (own >= 0) {
        setI32(next, best, i32At(heads, own));
        setI32(heads, own, best);
      } else {
        setI32(keys, 3 * cells, kx);
        setI32(keys, 3 * cells + 1, ky);
        setI32(keys, 3 * cells + 2, kz);
        setI32(heads, cells, best);
        setI32(next, best, -1);
        store<u64>(slotAt(s), <u64><u32>cells | (<u64>h << 32));
        mark(word3(kx, ky, kz, wordMask), bit3(kx, ky, kz));
        cells++;
        if (<u32>(cells * 2) > slotTotal) {
          slotTotal *= 2;
          mask = slotTotal - 1;
          wordMask = (slotTotal >> 3) - 1;
          placeCells(cells, 3, slotTotal);
        }
      }
    }
    setI32(remap, i, best);
  }
  return count;
}

// The instances the module exports (see src/wasm/weld-kernels.ts), by the coordinates' type; one signature for
// both dimensions (2D's take hz and ignore it), so that the glue calls them alike.
export function weldNear3d64(
  coords: usize, n: i32, tolerance2: f64, sure2: f64, reach: f64, inv: f64, hx: f64, hy: f64, hz: f64,
  remap: usize, representatives: usize, repCoords: usize,
): i32 {
  return weldNear3<f64>(coords, n, tolerance2, sure2, reach, inv, hx, hy, hz, remap, representatives, repCoords);
}
export function weldNear3d32(
  coords: usize, n: i32, tolerance2: f64, sure2: f64, reach: f64, inv: f64, hx: f64, hy: f64, hz: f64,
  remap: usize, representatives: usize, repCoords: usize,
): i32 {
  return weldNear3<f32>(coords, n, tolerance2, sure2, reach, inv, hx, hy, hz, remap, representatives, repCoords);
}
