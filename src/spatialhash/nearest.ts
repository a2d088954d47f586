/**
 * k-nearest search of SpatialHash2D / SpatialHash3D, written once for both
 * dimensions (2D ignores z).
 *
 * Rings (shells in 3D) of cells are searched outward from the query's cell.
 * After ring R, every item not yet seen lies wholly outside the square (cube)
 * of cells within R, so its distance is at least the gap from the point to that
 * square's nearest open side; once k items are no farther than that gap, or the
 * gap's square exceeds maxDistance's (squares, as the range test compares), the
 * search stops. Rings are clipped to the cell bounds of what is stored and
 * start at the first ring that reaches them, and when a ring would hold more
 * cells than are occupied the search scans the occupied cells instead, pruning
 * each by its distance to the point. So a nearest item thousands of cells away
 * costs O(occupied cells), never O(empty rings).
 *
 * The k best so far sit in a binary max-heap in scratch typed arrays on the hash.
 *
 * @module
 */

import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import { LOWEST_ORDINARY_SQUARE } from '../core/distance.js';
import { checkArray, checkDistance, checkFinite, checkInteger } from '../core/validate.js';
import type { SpatialHashBase } from './base.js';
import { SLOT } from './cell-runs.js';
import { rankExactly, settleHeap, Verdicts } from './exact-nearest.js';
import { boxSource, withinHuge } from './extreme.js';
import { checkPredicate, type ItemPredicate, toBits } from './filter.js';
import { cellGap2, gapOutside } from './nearest-bounds.js';

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
// one for every SpatialHash2D and SpatialHash3D. The only user code a search
// calls is its predicate, inside which every nearest (of this hash or any other:
// `predicate` is set, see nearest) or stamped query of this hash throws, so a
// search is never re-entered.
let heapSize = 0;
let heapLimit = 0;
let stamp = 0;
let radius2 = 0;
/** The search's maxDistance. */
let searchMax = 0;
let lookups = 0;
let mask = -1;
let predicate: ItemPredicate<unknown> | undefined;
/** The predicate's verdicts of the search in progress, for an exact end that ranks again (exact-nearest.ts). */
const verdicts = new Verdicts();
const point = new Float64Array(3);
const center = new Float64Array(3);
const low = new Float64Array(3);
const high = new Float64Array(3);

/** Squared distance from `point` to box `b`: the exact float formula of queryRadius (sum left to right). */
function boxDistance2(boxes: Float64Array, b: number, dim: number): number {
  if (dim === 2) {
    const x = point[0];
    const y = point[1];
    const dx = boxes[b] > x ? boxes[b] - x : x > boxes[b + 2] ? x - boxes[b + 2] : 0;
    const dy = boxes[b + 1] > y ? boxes[b + 1] - y : y > boxes[b + 3] ? y - boxes[b + 3] : 0;
    return dx * dx + dy * dy;
  }
  const x = point[0];
  const y = point[1];
  const z = point[2];
  const dx = boxes[b] > x ? boxes[b] - x : x > boxes[b + 3] ? x - boxes[b + 3] : 0;
  const dy = boxes[b + 1] > y ? boxes[b + 1] - y : y > boxes[b + 4] ? y - boxes[b + 4] : 0;
  const dz = boxes[b + 2] > z ? boxes[b + 2] - z : z > boxes[b + 5] ? z - boxes[b + 5] : 0;
  return dx * dx + dy * dy + dz * dz;
}

/** Offers handle h at squared distance d2 to the heap of the k best. */
function offer<T>(hash: SpatialHashBase<T>, h: number, d2: number): void {
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

/** Offers every not yet seen item of cell `id`. */
function scoreCell<T>(hash: SpatialHashBase<T>, id: number): void {
  const stamps = hash.stamps;
  const info = hash.slotInfo;
  const boxes = hash.boxes;
  const stride = hash.boxStride;
  const dim = hash.dim;
  const end = hash.cellStart[id] + hash.cellEntryCount[id];
  nearestWork.scored += hash.cellEntryCount[id];
  for (let s = hash.cellStart[id]; s < end; s++) {
    const h = info[s * SLOT];
    if (stamps[h] === stamp) continue;
    stamps[h] = stamp;
    const d2 = boxDistance2(boxes, h * stride, dim);
    if (d2 <= radius2 && accepts(hash, h, d2)) offer(hash, h, d2);
  }
}

/**
 * Whether handle h passes the mask and the predicate. Only asked for an item
 * that would enter the heap, so the predicate runs as rarely as possible; the
 * k best are then the k best matching items, not the k best filtered.
 */
function accepts<T>(hash: SpatialHashBase<T>, h: number, d2: number): boolean {
  if ((hash.categories[h] & mask) === 0) return false;
  if (predicate === undefined) return true;
  if (heapSize === heapLimit && !(d2 < hash.heapDistance[0])) return false;
  // Asked only about items within maxDistance: past a finite one whose square overflows, settled exactly.
  if (d2 === Number.POSITIVE_INFINITY && !withinHuge(hash, h, point, searchMax)) return false;
  const verdict = (predicate as ItemPredicate<T>)(hash.items[h] as T, h) === true;
  verdicts.add(h, verdict);
  return verdict;
}

/** Looks cell (kx, ky[, kz]) up and scores it. */
function visitCell<T>(hash: SpatialHashBase<T>, kx: number, ky: number, kz: number): void {
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
function shell<T>(hash: SpatialHashBase<T>, R: number, visit: boolean): number {
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
function face<T>(hash: SpatialHashBase<T>, R: number, kz: number, visit: boolean): number {
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
function ring<T>(hash: SpatialHashBase<T>, R: number, kz: number, visit: boolean): number {
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

/** Scans every occupied cell, skipping those that cannot hold anything nearer than the heap's worst. */
function scanOccupied<T>(hash: SpatialHashBase<T>): void {
  const cells = hash.cells;
  const keys = cells.keys;
  const count = hash.cellEntryCount;
  const dim = hash.dim;
  const cs = hash.cellSize;
  nearestWork.scanned += cells.idLimit;
  for (let id = 0; id < cells.idLimit; id++) {
    if (count[id] === 0) continue;
    const lb2 = cellGap2(cs, dim, keys, id, point);
    if (lb2 > radius2) continue;
    if (heapSize === heapLimit && lb2 >= hash.heapDistance[0]) continue;
    scoreCell(hash, id);
  }
}

/** Searches the cells (not the overflow list) for the k best. */
function searchCells<T>(hash: SpatialHashBase<T>): void {
  const dim = hash.dim;
  const bounds = hash.cellBounds;
  const occupied = hash.cells.size;
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
  if (!far) {
    lookups = 0;
    for (;;) {
      const n = shell(hash, R, false);
      // Once rings would cost more lookups than there are occupied cells, scan those instead.
      if (lookups + n > occupied) break;
      shell(hash, R, true);
      // A ring that lies outside the stored cells still counts, so the loop always ends.
      if (n === 0) lookups++;
      const gap = gapOutside(hash.cellSize, dim, R, point, center, low, high);
      if (gap === Number.POSITIVE_INFINITY) return;
      // Compared in squares, as d2 <= radius2 is: when radius2 overflows to
      // Infinity, so does every far item's d2, and those items are in range.
      // (gap already carries the rounding margin.)
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
 * Implements `nearest` of both hashes (2D passes z = 0): up to k items by
 * ascending distance from the point to their boxes, within maxDistance.
 */
export function nearest<T>(
  hash: SpatialHashBase<T>,
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
  // Inside another box hash's nearest predicate: this search would overwrite that one's state (its heap size,
  // stamp, query point and verdicts), which then answered wrong items.
  if (predicate !== undefined) {
    throw new Error('nearest: nearest cannot run inside a nearest predicate (of any SpatialHash2D or SpatialHash3D)');
  }
  nearestWork.steps = 0;
  nearestWork.lookups = 0;
  nearestWork.scanned = 0;
  nearestWork.scored = 0;
  const limit = Math.min(k, hash.size);
  // out is emptied only here and sized once at the end: emptying it first
  // would drop its storage (see SpatialHash2D's collect).
  if (limit === 0) {
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
  point[2] = z;
  mask = m;
  predicate = filter as ItemPredicate<unknown> | undefined;
  const boxes = hash.boxes;
  const stride = hash.boxStride;
  if (hash.cells.size > 0) stamp = hash.nextStamp();
  // The predicate may read the hash but neither change it nor query it.
  if (filter !== undefined) {
    hash.visiting++;
    hash.callingOut++;
  }
  verdicts.clear();
  let answer: number[] | undefined;
  try {
    const ask = (h: number) => filter === undefined || verdicts.ask(h, () => filter(hash.items[h] as T, h) === true);
    if (radius2 < LOWEST_ORDINARY_SQUARE) {
      // A maxDistance whose square is below 2^-896 (0 included): the items near the point, ranked exactly.
      answer = rankExactly(boxSource(hash, point, m, ask), limit, maxDistance);
    } else {
      nearestWork.scored += hash.overflowCount;
      for (let i = 0; i < hash.overflowCount; i++) {
        const h = hash.overflow[i];
        const d2 = boxDistance2(boxes, h * stride, hash.dim);
        if (d2 <= radius2 && accepts(hash, h, d2)) offer(hash, h, d2);
      }
      if (hash.cells.size > 0) searchCells(hash);
      // Squared distances below 2^-896 or past MAX_VALUE in the heap: settled exactly (core/distance.ts).
      answer = settleHeap(
        () => boxSource(hash, point, m, ask),
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
    const size = i;
    if (size > 0) siftDown(dist, handles, dist[size], handles[size], size);
  }
  heapSize = 0;
  return out;
}
