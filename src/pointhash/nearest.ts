/**
 * k-nearest search of PointHash2D / PointHash3D, written once for both
 * dimensions (2D passes z = 0).
 *
 * The algorithm is SpatialHash's (src/spatialhash/nearest.ts): rings (shells
 * in 3D) of cells outward from the query's cell, clipped to the cell bounds
 * and starting at the first ring that reaches them. After ring R every point
 * not yet seen lies outside the square (cube) of cells within R, so its
 * distance is at least the gap from the query to that square's nearest open
 * side; once k points are no farther than that gap, or the gap exceeds
 * maxDistance, the search stops. When a ring would cost more lookups than
 * there are occupied cells, the search scans the occupied cells instead,
 * pruning each by its distance to the query. The k best sit in a binary
 * max-heap in scratch typed arrays on the hash.
 *
 * It is a separate copy, not shared geometry, because the two differ inside
 * the hot loops: a point lives in one cell, so there are no stamps, and the
 * occupied-cell scan instead skips the cells the rings already searched;
 * points are scored from their slots rather than from boxes. Sharing the ring
 * walk would mean calling the cell visitor through a function argument, which
 * makes that call site polymorphic and slows the box hash's nearest.
 *
 * @module
 */

import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import { LOWEST_ORDINARY_SQUARE } from '../core/distance.js';
import { checkArray, checkDistance, checkFinite, checkInteger } from '../core/validate.js';
import { rankExactly, settleHeap, Verdicts } from '../spatialhash/exact-nearest.js';
import { checkPredicate, type ItemPredicate, toBits } from '../spatialhash/filter.js';
import { cellGap2, gapOutside } from '../spatialhash/nearest-bounds.js';
import { type PointHashBase, RUN, RUN_COUNT, RUN_START } from './base.js';
import { pointSource, withinHuge } from './extreme.js';

const NONE = -1;

/**
 * @internal What the last nearest() call did, so that tests can bound its
 * cost by counts instead of by time (queries report what they visited):
 * `steps` rings and planes of the ring walk, counted or visited; `lookups`
 * cell-table lookups; `scanned` cell ids read by the occupied-cell scan;
 * `scored` slots whose item was scored. Reset by each call.
 */
export const nearestWork = { steps: 0, lookups: 0, scanned: 0, scored: 0 };

// State of the search in progress (module-level so a search allocates nothing),
// one for every PointHash2D and PointHash3D. The only user code a search calls
// is its predicate, inside which every nearest throws, of this hash (its
// callingOut) or any other (`predicate` is set: see nearestPoints), so a search
// is never re-entered.
let heapSize = 0;
let heapLimit = 0;
let radius2 = 0;
/** The search's maxDistance. */
let searchMax = 0;
let lookups = 0;
/** Cells within this Chebyshev distance of `center` (exclusive) were searched by rings. */
let searched = 0;
let mask = -1;
let predicate: ItemPredicate<unknown> | undefined;
/** The predicate's verdicts of the search in progress, for an exact end that ranks again (exact-nearest.ts). */
const verdicts = new Verdicts();
const point = new Float64Array(3);
const center = new Float64Array(3);
const low = new Float64Array(3);
const high = new Float64Array(3);

/** Offers id h at squared distance d2 to the heap of the k best. */
function offer<T>(hash: PointHashBase<T>, h: number, d2: number): void {
  const dist = hash.heapDistance;
  const handles = hash.heapHandle;
  if (heapSize < heapLimit) {
    let i = heapSize++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!(dist[parent] < d2)) break;
      dist[i] = dist[parent];
      handles[i] = handles[parent];
      i = parent;
    }
    dist[i] = d2;
    handles[i] = h;
    return;
  }
  if (!(d2 < dist[0])) return;
  siftDown(dist, handles, d2, h, heapSize);
}

/** Puts (d2, h) at the root of a max-heap of `size` and sifts it down. */
function siftDown(dist: Float64Array, handles: Int32Array, d2: number, h: number, size: number): void {
  let i = 0;
  for (;;) {
    let child = i * 2 + 1;
    if (child >= size) break;
    if (child + 1 < size && dist[child + 1] > dist[child]) child++;
    if (!(dist[child] > d2)) break;
    dist[i] = dist[child];
    handles[i] = handles[child];
    i = child;
  }
  dist[i] = d2;
  handles[i] = h;
}

/**
 * Whether id h passes the mask and the predicate. Only asked for a point that
 * would enter the heap, so the predicate runs as rarely as possible (at most
 * once per point, as each point is scored once); the k best are then the k
 * best matching points, not the k best filtered.
 */
function accepts<T>(hash: PointHashBase<T>, h: number, d2: number): boolean {
  const filters = hash.filters;
  // Without filters every category is 1.
  if ((filters === undefined ? 1 & mask : filters[h * 2] & mask) === 0) return false;
  if (predicate === undefined) return true;
  if (heapSize === heapLimit && !(d2 < hash.heapDistance[0])) return false;
  // Asked only about points within maxDistance: past a finite one whose square overflows, settled exactly.
  if (d2 === Number.POSITIVE_INFINITY && !withinHuge(hash, h, point, searchMax)) return false;
  const verdict = (predicate as ItemPredicate<T>)(hash.items[h] as T, h) === true;
  verdicts.add(h, verdict);
  return verdict;
}

/**
 * Offers the points in slots [from, to) of `slots`. The squared distance is
 * queryRadius's formula, summed left to right, so "within maxDistance" agrees
 * with it exactly.
 */
function scoreSlots<T>(hash: PointHashBase<T>, slots: Float64Array, from: number, to: number): void {
  nearestWork.scored += to - from;
  const x = point[0];
  const y = point[1];
  if (hash.dim === 2) {
    for (let s = from * 3, end = to * 3; s < end; s += 3) {
      const dx = slots[s] - x;
      const dy = slots[s + 1] - y;
      const d2 = dx * dx + dy * dy;
      if (!(d2 <= radius2)) continue;
      if (heapSize === heapLimit && !(d2 < hash.heapDistance[0])) continue;
      const h = slots[s + 2];
      if (accepts(hash, h, d2)) offer(hash, h, d2);
    }
    return;
  }
  const z = point[2];
  for (let s = from * 4, end = to * 4; s < end; s += 4) {
    const dx = slots[s] - x;
    const dy = slots[s + 1] - y;
    const dz = slots[s + 2] - z;
    const d2 = dx * dx + dy * dy + dz * dz;
    if (!(d2 <= radius2)) continue;
    if (heapSize === heapLimit && !(d2 < hash.heapDistance[0])) continue;
    const h = slots[s + 3];
    if (accepts(hash, h, d2)) offer(hash, h, d2);
  }
}

/** Offers the points of cell `id` (an empty listed cell has none). */
function scoreCell<T>(hash: PointHashBase<T>, id: number): void {
  const runs = hash.cellRuns;
  const n = runs[id * RUN + RUN_COUNT];
  if (n === 0) return;
  const start = runs[id * RUN + RUN_START];
  scoreSlots(hash, hash.slots, start, start + n);
}

/** Looks cell (kx, ky[, kz]) up and scores it. */
function visitCell<T>(hash: PointHashBase<T>, kx: number, ky: number, kz: number): void {
  lookups++;
  nearestWork.lookups++;
  const id = hash.dim === 2 ? hash.cells.find2(kx, ky) : hash.cells.find3(kx, ky, kz);
  if (id !== NONE) scoreCell(hash, id);
}

/**
 * Visits (or with `visit` false only counts) the cells at Chebyshev distance R
 * from `center`, clipped to [low, high]. In 2D the ring lies in the plane z = 0.
 * In 3D a shell is two faces (full squares in the planes z = center ± R) and
 * the same square ring in every plane between them, so it is counted in O(1)
 * and visited in O(its cells). (Counted plane by plane, a query 1e8 cells
 * from a thin layer of stored cells spent seconds on the planes of shells
 * whose rings were clipped away before the walk switched to the scan.)
 */
function shell<T>(hash: PointHashBase<T>, R: number, visit: boolean): number {
  if (hash.dim === 2) return ring(hash, R, 0, visit);
  const cz = center[2];
  const z0 = Math.max(cz - R, low[2]);
  const z1 = Math.min(cz + R, high[2]);
  if (z0 > z1) return 0;
  let n = 0;
  // Bottom face, the ring planes, top face: ascending z. At R = 0 the one plane is a face.
  if (cz - R === z0) n += face(hash, R, z0, visit);
  const r0 = Math.max(cz - R + 1, z0);
  const r1 = Math.min(cz + R - 1, z1);
  if (R > 0 && r0 <= r1) {
    const perPlane = ring(hash, R, r0, false);
    if (perPlane > 0) {
      n += perPlane * (r1 - r0 + 1);
      if (visit) for (let kz = r0; kz <= r1; kz++) ring(hash, R, kz, true);
    }
  }
  if (R > 0 && cz + R === z1) n += face(hash, R, z1, visit);
  return n;
}

/** The full square of cells within R of the center in plane z = kz, clipped. */
function face<T>(hash: PointHashBase<T>, R: number, kz: number, visit: boolean): number {
  nearestWork.steps++;
  const x0 = Math.max(center[0] - R, low[0]);
  const x1 = Math.min(center[0] + R, high[0]);
  const y0 = Math.max(center[1] - R, low[1]);
  const y1 = Math.min(center[1] + R, high[1]);
  if (x0 > x1 || y0 > y1) return 0;
  if (visit) {
    for (let kx = x0; kx <= x1; kx++) for (let ky = y0; ky <= y1; ky++) visitCell(hash, kx, ky, kz);
  }
  return (x1 - x0 + 1) * (y1 - y0 + 1);
}

/** The square ring of cells at distance exactly R from the center in plane z = kz, clipped. */
function ring<T>(hash: PointHashBase<T>, R: number, kz: number, visit: boolean): number {
  nearestWork.steps++;
  const cx = center[0];
  const cy = center[1];
  if (R === 0) {
    if (cx < low[0] || cx > high[0] || cy < low[1] || cy > high[1]) return 0;
    if (visit) visitCell(hash, cx, cy, kz);
    return 1;
  }
  let n = 0;
  const x0 = Math.max(cx - R, low[0]);
  const x1 = Math.min(cx + R, high[0]);
  if (x0 <= x1) {
    for (let side = -1; side <= 1; side += 2) {
      const ky = cy + side * R;
      if (ky < low[1] || ky > high[1]) continue;
      n += x1 - x0 + 1;
      if (visit) for (let kx = x0; kx <= x1; kx++) visitCell(hash, kx, ky, kz);
    }
  }
  const y0 = Math.max(cy - R + 1, low[1]);
  const y1 = Math.min(cy + R - 1, high[1]);
  if (y0 <= y1) {
    for (let side = -1; side <= 1; side += 2) {
      const kx = cx + side * R;
      if (kx < low[0] || kx > high[0]) continue;
      n += y1 - y0 + 1;
      if (visit) for (let ky = y0; ky <= y1; ky++) visitCell(hash, kx, ky, kz);
    }
  }
  return n;
}

/**
 * Scans every occupied cell the rings did not search, skipping those that
 * cannot hold anything nearer than the heap's worst or within the radius.
 */
function scanOccupied<T>(hash: PointHashBase<T>): void {
  const cells = hash.cells;
  const keys = cells.keys;
  const runs = hash.cellRuns;
  const dim = hash.dim;
  const cs = hash.cellSize;
  nearestWork.scanned += cells.idLimit;
  for (let id = 0; id < cells.idLimit; id++) {
    if (runs[id * RUN + RUN_COUNT] === 0) continue;
    let chebyshev = 0;
    for (let a = 0; a < dim; a++) chebyshev = Math.max(chebyshev, Math.abs(keys[id * dim + a] - center[a]));
    // Each point lives in one cell: scoring a ring's cell again would report it twice.
    if (chebyshev < searched) continue;
    const lb2 = cellGap2(cs, dim, keys, id, point);
    if (lb2 > radius2) continue;
    if (heapSize === heapLimit && lb2 >= hash.heapDistance[0]) continue;
    scoreCell(hash, id);
  }
}

/** Searches the cells (not the far list) for the k best. */
function searchCells<T>(hash: PointHashBase<T>): void {
  const dim = hash.dim;
  const bounds = hash.cellBounds;
  const occupied = hash.occupiedCells;
  let far = false;
  let R = 0;
  for (let a = 0; a < dim; a++) {
    low[a] = bounds[a];
    high[a] = bounds[3 + a];
    center[a] = hash.cellOf(point[a]);
    if (!(Math.abs(center[a]) <= MAX_CELL_INDEX)) far = true;
    // Rings nearer than this lie wholly outside the stored cells.
    R = Math.max(R, low[a] - center[a], center[a] - high[a]);
  }
  for (let a = dim; a < 3; a++) {
    low[a] = 0;
    high[a] = 0;
    center[a] = 0;
  }
  // Rings below R hold no stored cell, so none counts as searched yet; a far
  // query searches no ring (its cell index is not exact) and scans them all.
  searched = 0;
  if (!far) {
    lookups = 0;
    for (;;) {
      const n = shell(hash, R, false);
      // Once rings would cost more lookups than there are occupied cells, scan those instead.
      if (lookups + n > occupied) break;
      shell(hash, R, true);
      searched = R + 1;
      // A ring that lies outside the stored cells still counts, so the loop always ends.
      if (n === 0) lookups++;
      const gap = gapOutside(hash.cellSize, dim, R, point, center, low, high);
      if (gap === Number.POSITIVE_INFINITY) return;
      // Decided in squares, as the points are: an unseen point's |dx| on some
      // axis is at least the gap, and rounding is monotonic, so its d2 is at
      // least gap * gap. Comparing maxDistance itself instead would stop early
      // where r2 overflows (every point is within) or d2 underflows to 0.
      if (gap > 0) {
        const gap2 = gap * gap;
        if (gap2 > radius2) return;
        if (heapSize === heapLimit && hash.heapDistance[0] <= gap2) return;
      }
      R++;
    }
  }
  scanOccupied(hash);
}

/**
 * Implements `nearest` of both point hashes (2D passes z = 0): up to k items
 * by ascending distance from (x, y[, z]) to their points, within maxDistance,
 * among those whose category meets `queryMask` and that `filter` accepts.
 * `out` is emptied, filled nearest first and returned. Throws a RangeError on
 * a bad argument and an Error inside another nearest's predicate.
 */
export function nearestPoints<T>(
  hash: PointHashBase<T>,
  x: number,
  y: number,
  z: number,
  k: number,
  maxDistance: number,
  out: T[],
  queryMask: number,
  filter: ItemPredicate<T> | undefined,
): T[] {
  checkFinite('x', x);
  checkFinite('y', y);
  if (hash.dim === 3) checkFinite('z', z);
  checkInteger('k', k, 0, Number.MAX_SAFE_INTEGER);
  checkDistance('maxDistance', maxDistance);
  const m = toBits('mask', queryMask);
  checkArray('out', out);
  checkPredicate(filter);
  hash.checkNotCallingOut('nearest');
  // Inside another point hash's nearest predicate: this search would overwrite that one's state (its heap size,
  // query point, radius and verdicts), which then answered wrong items (found by test/fuzz/hash-stateful).
  if (predicate !== undefined) {
    throw new Error('nearest: nearest cannot run inside a nearest predicate (of any PointHash2D or PointHash3D)');
  }
  nearestWork.steps = 0;
  nearestWork.lookups = 0;
  nearestWork.scanned = 0;
  nearestWork.scored = 0;
  const limit = Math.min(k, hash.size);
  // out is emptied only here and sized once at the end: emptying it first
  // would drop its storage (see SpatialHash2D's collect). Without filters
  // every category is 1, so a mask without bit 0 matches nothing.
  if (limit === 0 || (hash.filters === undefined && (m & 1) === 0)) {
    out.length = 0;
    return out;
  }
  if (hash.heapHandle.length < limit) {
    const n = Math.max(limit, hash.heapHandle.length * 2);
    hash.heapHandle = new Int32Array(n);
    hash.heapDistance = new Float64Array(n);
  }
  heapSize = 0;
  heapLimit = limit;
  radius2 = maxDistance * maxDistance;
  searchMax = maxDistance;
  point[0] = x;
  point[1] = y;
  point[2] = hash.dim === 3 ? z : 0;
  mask = m;
  predicate = filter as ItemPredicate<unknown> | undefined;
  // The predicate may read the hash and run box or radius queries, but
  // neither change it nor start another nearest.
  if (filter !== undefined) {
    hash.visiting++;
    hash.callingOut++;
  }
  verdicts.clear();
  let answer: number[] | undefined;
  try {
    const ask = (h: number) =>
      predicate === undefined || verdicts.ask(h, () => (filter as ItemPredicate<T>)(hash.items[h] as T, h) === true);
    if (radius2 < LOWEST_ORDINARY_SQUARE) {
      // A maxDistance whose square is below 2^-896 (0 included): the points near the query, ranked exactly.
      answer = rankExactly(pointSource(hash, point, m, ask), limit, maxDistance);
    } else {
      if (hash.farCount > 0) scoreSlots(hash, hash.far, 0, hash.farCount);
      if (hash.occupiedCells > 0) searchCells(hash);
      // Squared distances below 2^-896 or past MAX_VALUE in the heap: settled exactly (core/distance.ts).
      answer = settleHeap(
        () => pointSource(hash, point, m, ask),
        hash.heapDistance,
        hash.heapHandle,
        heapSize,
        limit,
        maxDistance,
      );
    }
  } catch (error) {
    heapSize = 0;
    out.length = 0;
    throw error;
  } finally {
    predicate = undefined;
    if (filter !== undefined) {
      hash.visiting--;
      hash.callingOut--;
    }
  }
  if (answer !== undefined) {
    heapSize = 0;
    out.length = answer.length;
    for (let i = 0; i < answer.length; i++) out[i] = hash.items[answer[i]] as T;
    return out;
  }
  const dist = hash.heapDistance;
  const handles = hash.heapHandle;
  const n = heapSize;
  out.length = n;
  for (let i = n - 1; i >= 0; i--) {
    out[i] = hash.items[handles[0]] as T;
    if (i > 0) siftDown(dist, handles, dist[i], handles[i], i);
  }
  heapSize = 0;
  return out;
}
