/**
 * weld's searches (src/weld/near.ts for a tolerance > 0, exact.ts for 0) on
 * the WebAssembly kernels: the vertices are copied into the kernels' memory,
 * checked and bounded there, welded step for step as the JavaScript loops
 * do, and the remap, representatives and their coordinates copied out.
 * Welds with an extra test per representative (weldGeometry's and
 * weldByDistance's attribute tolerances, a JavaScript callback) and
 * tolerances whose square overflows stay in JavaScript.
 *
 * A weld uses the kernels' memory from its start, so whatever grid they held
 * a copy of is copied in again by its next search (see mirror.ts).
 *
 * @module
 */
import { isOrdinaryRadius } from '../core/distance.js';
import type { NumericArray } from '../core/validate.js';
import { gridParameters, initialExactSlots, initialSlots, sureDistance2 } from '../core/weld-cells.js';
import { kernels } from './kernels.js';
import { align8, copyPositions } from './layout.js';
import { KERNEL_BASE } from './records.js';

/**
 * A weld's result (see Welding in src/weld/weld.ts), arrays exactly `count` representatives long; repCoords
 * empty when they were not asked for.
 */
export interface KernelWelding {
  remap: Uint32Array;
  representatives: Uint32Array;
  repCoords: Float64Array;
  count: number;
}

/**
 * Welds `n` vertices of `positions` (dimension `d` at `offset + i *
 * stride`, the layout already checked) by weld's definition, on the kernels.
 * Returns the welding; or the number of the first vertex with a coordinate
 * that is not finite (the caller throws the error naming it); or undefined
 * when the kernels are off or out of memory, or the tolerance is neither 0
 * nor ordinary (see isOrdinaryRadius; the caller welds in JavaScript).
 * The representatives' coordinates are copied out only with `coordinates`
 * (weldMesh returns them, weld does not: 40 MB at 1e7 vertices of a soup).
 */
export function weldOnKernels(
  positions: NumericArray,
  d: 2 | 3,
  stride: number,
  offset: number,
  n: number,
  tolerance: number,
  coordinates = true,
): KernelWelding | number | undefined {
  // Tolerance 0 welds equal coordinates (weld/exact.ts); any other must be ordinary (see isOrdinaryRadius in
  // core/distance.ts: weld/extreme.ts welds the others, in JavaScript; weld.ts sends only those of near.ts here).
  if (tolerance !== 0 && !isOrdinaryRadius(tolerance)) return undefined;
  const tolerance2 = tolerance * tolerance;
  const k = kernels();
  if (k === undefined) return undefined;
  const exact = tolerance === 0;
  // Float32 input is welded as float32 (widened exactly as it is read); the exact path hashes float64 bits.
  const float32 = !exact && positions instanceof Float32Array;
  const size = float32 ? 4 : 8;
  const first = exact ? initialExactSlots(n) : initialSlots(n);
  // The table starts at `first` slots and doubles until it holds a cell per vertex at load 1/2.
  let maxSlots = first;
  while (maxSlots < 2 * n) maxSlots *= 2;
  // Below KERNEL_BASE: the module's scratch (see records.ts).
  const bounds = 0;
  const coords = KERNEL_BASE;
  const remap = coords + align8(n * d * size);
  const representatives = remap + align8(4 * n);
  const repCoords = representatives + align8(4 * n);
  const next = repCoords + 8 * d * n;
  const keys = next + align8(4 * n);
  const heads = keys + align8(4 * d * n);
  const slots = heads + align8(4 * n);
  const occupied = slots + 8 * maxSlots;
  if (!k.reserve(occupied + maxSlots)) return undefined;
  // The weld writes over whatever grid the memory held.
  k.forgetGrid();
  copyPositions(k, positions, n, d, stride, offset, float32, coords);
  const e = k.exports;
  const bad = (float32 ? e.bounds32 : e.bounds64)(coords, n, d, bounds);
  if (bad >= 0) return bad;
  e.setWeldTable(slots, occupied, keys, heads, next, first);
  let count: number;
  if (exact) count = e.weldExact(coords, n, d, remap, representatives, repCoords);
  else {
    const min = new Float64Array(d);
    const max = new Float64Array(d);
    for (let axis = 0; axis < d; axis++) {
      // + 0: weld's bounds never hold -0.
      min[axis] = k.f64[(bounds >> 3) + axis] + 0;
      max[axis] = k.f64[(bounds >> 3) + d + axis] + 0;
    }
    // The packed coordinates as the kernels hold them: gridParameters may choose larger cells for them.
    const view = float32
      ? k.f32.subarray(coords >> 2, (coords >> 2) + n * d)
      : k.f64.subarray(coords >> 3, (coords >> 3) + n * d);
    const grid = gridParameters(min, max, tolerance, view);
    const sure2 = sureDistance2(tolerance2, undefined);
    const near = d === 3 ? (float32 ? e.weldNear3d32 : e.weldNear3d64) : float32 ? e.weldNear2d32 : e.weldNear2d64;
    // (2D's instances take hz and ignore it.)
    const hz = d === 3 ? grid[4] : 0;
    count = near(
      coords,
      n,
      tolerance2,
      sure2,
      grid[0],
      grid[1],
      grid[2],
      grid[3],
      hz,
      remap,
      representatives,
      repCoords,
    );
  }
  return {
    remap: k.u32.slice(remap >> 2, (remap >> 2) + n),
    representatives: k.u32.slice(representatives >> 2, (representatives >> 2) + count),
    repCoords: coordinates ? k.f64.slice(repCoords >> 3, (repCoords >> 3) + count * d) : new Float64Array(0),
    count,
  };
}
