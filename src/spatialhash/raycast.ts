/**
 * Ray queries of SpatialHash2D / SpatialHash3D: raycast, raycastAll and
 * forEachCellOnRay, written once for both dimensions (2D is 3D with the z axis
 * never stepping).
 *
 * Parameters. The direction is first scaled by a power of two so its largest
 * component lies in [1, 2): the scaling is exact, so hits and ties are the same
 * as with the caller's direction, while huge or tiny directions can no longer
 * overflow or underflow. A ray point is `o + t * d` with that scaled `d`, and a
 * distance is `t * |d|`. Each box is tested with the slab formula
 * `t = (bound - o) / d` per axis, whose rounding is monotone in `bound`, so a
 * box and the cell borders around it are ordered along the ray consistently.
 *
 * Traversal (Amanatides and Woo). The walker crosses one cell border at a
 * time. A border is the first double of the next cell (see cellStart in ray-walker.ts),
 * and its crossing is computed with the same slab formula as the boxes, so a
 * box's slab interval always lies within the intervals of the cells it is filed
 * under. When the crossings of several axes fall on the same parameter (the ray
 * goes through a cell corner, or an edge in 3D) the walker also reports every
 * cell touched there, not only the diagonal one, so an item touching the ray at
 * exactly a corner is never missed: whatever the slab test counts as a hit, the
 * walk passes a cell of that item.
 *
 * @module
 */

import { MAX_CELL_INDEX } from '../core/cell-hash.js';
import { grownCopy } from '../core/grow.js';
import { checkDistance, checkFinite, describe } from '../core/validate.js';
import type { SpatialHashBase } from './base.js';
import { SLOT } from './cell-runs.js';
import { checkPredicate, type ItemPredicate, toBits } from './filter.js';
import { RayWalker } from './ray-walker.js';

const NONE = -1;

/** A ray hit: the item and the distance from the ray origin to where the ray enters its box (0 from inside). */
export interface RayHit<T> {
  /** The item hit. */
  item: T;
  /** Euclidean distance from the origin to the entry point, in coordinate units; 0 when the origin is inside the box. */
  distance: number;
}

/**
 * Called by `SpatialHash2D.forEachCellOnRay` for each cell, in order along the
 * ray. `cx, cy` are integer cell coordinates (`Math.floor(coordinate / cellSize)`);
 * `enter` and `exit` are the distances along the ray where it enters and leaves
 * the cell (clamped to the segment walked). Return `true` to stop.
 */
export type CellOnRayVisitor2D = (cx: number, cy: number, enter: number, exit: number) => boolean | undefined;

/** The 3D twin of {@link CellOnRayVisitor2D}. Return `true` to stop. */
export type CellOnRayVisitor3D = (
  cx: number,
  cy: number,
  cz: number,
  enter: number,
  exit: number,
) => boolean | undefined;

/** Validates a ray (2D passes oz = dz = 0); throws a RangeError naming the first bad argument. */
function checkRay(
  dim: 2 | 3,
  ox: number,
  oy: number,
  oz: number,
  dx: number,
  dy: number,
  dz: number,
  maxDistance: number,
): void {
  checkFinite('ox', ox);
  checkFinite('oy', oy);
  if (dim === 3) checkFinite('oz', oz);
  checkFinite('dx', dx);
  checkFinite('dy', dy);
  if (dim === 3) checkFinite('dz', dz);
  if (dx === 0 && dy === 0 && dz === 0) {
    const got =
      dim === 2
        ? `(dx, dy) = (${describe(dx)}, ${describe(dy)})`
        : `(dx, dy, dz) = (${describe(dx)}, ${describe(dy)}, ${describe(dz)})`;
    throw new RangeError(`the ray direction must not be zero, got ${got}`);
  }
  checkDistance('maxDistance', maxDistance);
}

/** Checks and sets up the hash's walker; a nested call (from a visitor) gets a fresh one. */
function walkerFor<T>(
  hash: SpatialHashBase<T>,
  ox: number,
  oy: number,
  oz: number,
  dx: number,
  dy: number,
  dz: number,
  maxDistance: number,
): RayWalker {
  const dim = hash.dim;
  checkRay(dim, ox, oy, oz, dx, dy, dz, maxDistance);
  let walker = hash.rayWalker;
  if (walker === undefined) {
    walker = new RayWalker();
    hash.rayWalker = walker;
  } else if (walker.busy) {
    walker = new RayWalker();
  }
  walker.setRay(dim, ox, oy, oz, dx, dy, dz);
  return walker;
}

/**
 * Parameter where the ray enters box `b`, or -1 when it misses; the slab test,
 * with the box closed (grazing counts) and the ray starting at t = 0.
 */
function enterBox(boxes: Float64Array, b: number, dim: number, o: Float64Array, d: Float64Array): number {
  let t0 = 0;
  let t1 = Number.POSITIVE_INFINITY;
  for (let a = 0; a < dim; a++) {
    const lo = boxes[b + a];
    const hi = boxes[b + dim + a];
    const oa = o[a];
    const da = d[a];
    if (da === 0) {
      if (oa < lo || oa > hi) return NONE;
      continue;
    }
    let near = (lo - oa) / da;
    let far = (hi - oa) / da;
    if (near > far) {
      const swap = near;
      near = far;
      far = swap;
    }
    if (near > t0) t0 = near;
    if (far < t1) t1 = far;
    if (t0 > t1) return NONE;
  }
  return t0;
}

const LOW = new Float64Array(3);
const HIGH = new Float64Array(3);

/** Sets LOW/HIGH to the stored cell bounds widened by one cell (rounding margin); false when nothing is in cells. */
function storedRange<T>(hash: SpatialHashBase<T>): boolean {
  const bounds = hash.cellBounds;
  if (hash.cells.size === 0 || !(bounds[0] <= bounds[3])) return false;
  for (let a = 0; a < hash.dim; a++) {
    LOW[a] = Math.max(bounds[a] - 1, -MAX_CELL_INDEX);
    HIGH[a] = Math.min(bounds[3 + a] + 1, MAX_CELL_INDEX);
  }
  return true;
}

/** Id of the walker's reported cell, or -1. */
function findCell<T>(hash: SpatialHashBase<T>, cell: Float64Array): number {
  return hash.dim === 2 ? hash.cells.find2(cell[0], cell[1]) : hash.cells.find3(cell[0], cell[1], cell[2]);
}

// State of the cast in progress, one for every SpatialHash2D and SpatialHash3D.
// Module-level rather than a closure so a cast allocates nothing. The only user
// code a cast calls is its predicate, inside which every ray (of this hash or
// any other: see checkNotCasting) or stamped query of this hash throws, so a
// cast is never re-entered.
let castCount = 0;
let castBest = Number.POSITIVE_INFINITY;
let castBestHandle = NONE;
let castAll = false;
let castMask = -1;
let castPredicate: ItemPredicate<unknown> | undefined;

/**
 * Throws inside another cast's predicate, of any box hash: this cast would
 * overwrite that one's state (its count of hits, best hit, mask).
 */
function checkNotCasting(method: string): void {
  if (castPredicate !== undefined) {
    throw new Error(
      `${method}: a ray cast cannot run inside a ray cast's predicate (of any SpatialHash2D or SpatialHash3D)`,
    );
  }
}

/** Records handle h if the ray hits its box within maxDistance. */
function testHandle<T>(hash: SpatialHashBase<T>, walker: RayWalker, h: number, maxDistance: number): void {
  if ((hash.categories[h] & castMask) === 0) return;
  const t = enterBox(hash.boxes, h * hash.boxStride, hash.dim, walker.origin, walker.direction);
  if (t < 0 || !(t * walker.length <= maxDistance)) return;
  // Asked only for a hit that would count, so "not myself" costs one call per candidate.
  if (castPredicate !== undefined) {
    if (!castAll && !(t < castBest)) return;
    if ((castPredicate as ItemPredicate<T>)(hash.items[h] as T, h) !== true) return;
  }
  if (castAll) {
    if (castCount === hash.hitHandle.length) growHits(hash);
    hash.hitHandle[castCount] = h;
    hash.hitParameter[castCount] = t;
    castCount++;
  } else if (t < castBest) {
    castBest = t;
    castBestHandle = h;
  }
}

/**
 * Shared body of raycast and raycastAll. With `all` false it returns the count
 * 0 or 1 and leaves the nearest hit in hitHandle[0] / hitParameter[0]; with
 * `all` true it fills hitHandle / hitParameter with every hit, unsorted.
 */
function castRay<T>(
  hash: SpatialHashBase<T>,
  walker: RayWalker,
  maxDistance: number,
  all: boolean,
  mask: number,
  predicate: ItemPredicate<T> | undefined,
): number {
  castMask = mask;
  castPredicate = predicate as ItemPredicate<unknown> | undefined;
  // Taken before the predicate may run: inside it nextStamp throws.
  const s = hash.nextStamp();
  if (predicate === undefined) return castCells(hash, walker, maxDistance, all, s);
  // The predicate may read the hash but neither change it nor query it.
  hash.visiting++;
  hash.callingOut++;
  try {
    return castCells(hash, walker, maxDistance, all, s);
  } finally {
    walker.busy = false;
    castPredicate = undefined;
    hash.visiting--;
    hash.callingOut--;
  }
}

/** castRay's walk over the overflow list and the cells. */
function castCells<T>(
  hash: SpatialHashBase<T>,
  walker: RayWalker,
  maxDistance: number,
  all: boolean,
  s: number,
): number {
  castCount = 0;
  castBest = Number.POSITIVE_INFINITY;
  castBestHandle = NONE;
  castAll = all;
  for (let i = 0; i < hash.overflowCount; i++) testHandle(hash, walker, hash.overflow[i], maxDistance);
  if (storedRange(hash)) {
    // Slightly past maxDistance so rounding of t * length cannot end the walk
    // before a cell whose item is still within maxDistance.
    const tLimit = (maxDistance / walker.length) * (1 + 2 ** -40);
    const stamps = hash.stamps;
    walker.busy = true;
    if (walker.start(hash.cellSize, tLimit, LOW, HIGH)) {
      const cellStart = hash.cellStart;
      const cellEntryCount = hash.cellEntryCount;
      const info = hash.slotInfo;
      // A ray crossing many more cells than there are items (sparse data, far
      // apart) stops walking and tests the remaining items directly instead. A
      // step costs about as much as eight slab tests, hence the budget.
      let budget = 16 + (hash.size >> 3);
      while (walker.next()) {
        // An item is met at the latest in the cell the ray is in where it
        // enters the item's box, so no later cell can hold a nearer hit.
        if (walker.enter > castBest) break;
        if (--budget < 0) {
          const alive = hash.alive;
          for (let h = 0; h < hash.handleLimit; h++) {
            if (alive[h] === 1 && !hash.inOverflow(h) && stamps[h] !== s) testHandle(hash, walker, h, maxDistance);
          }
          break;
        }
        const id = findCell(hash, walker.cell);
        if (id === NONE) continue;
        const end = cellStart[id] + cellEntryCount[id];
        for (let slot = cellStart[id]; slot < end; slot++) {
          const h = info[slot * SLOT];
          if (stamps[h] === s) continue;
          stamps[h] = s;
          testHandle(hash, walker, h, maxDistance);
        }
      }
    }
    walker.busy = false;
  }
  if (!all) {
    if (castBestHandle === NONE) return 0;
    hash.hitHandle[0] = castBestHandle;
    hash.hitParameter[0] = castBest;
    return 1;
  }
  return castCount;
}

function growHits<T>(hash: SpatialHashBase<T>): void {
  const n = hash.hitHandle.length * 2;
  hash.hitHandle = grownCopy(hash.hitHandle, n);
  hash.hitParameter = grownCopy(hash.hitParameter, n);
}

/** Sorts the first `n` hits by parameter (heapsort: no recursion, no allocation, O(n log n)). */
function sortHits(t: Float64Array, handles: Int32Array, n: number): void {
  const siftDown = (root: number, end: number): void => {
    for (;;) {
      let child = root * 2 + 1;
      if (child >= end) return;
      if (child + 1 < end && t[child + 1] > t[child]) child++;
      if (!(t[child] > t[root])) return;
      const tt = t[root];
      t[root] = t[child];
      t[child] = tt;
      const hh = handles[root];
      handles[root] = handles[child];
      handles[child] = hh;
      root = child;
    }
  };
  for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(i, n);
  for (let end = n - 1; end > 0; end--) {
    const tt = t[0];
    t[0] = t[end];
    t[end] = tt;
    const hh = handles[0];
    handles[0] = handles[end];
    handles[end] = hh;
    siftDown(0, end);
  }
}

/** Implements `raycast` of both hashes (2D passes oz = dz = 0). */
export function raycast<T>(
  hash: SpatialHashBase<T>,
  ox: number,
  oy: number,
  oz: number,
  dx: number,
  dy: number,
  dz: number,
  maxDistance: number,
  mask: number,
  predicate: ItemPredicate<T> | undefined,
): RayHit<T> | undefined {
  const walker = walkerFor(hash, ox, oy, oz, dx, dy, dz, maxDistance);
  const m = toBits('mask', mask);
  checkPredicate(predicate);
  hash.checkNotCallingOut('raycast');
  checkNotCasting('raycast');
  if (hash.size === 0 || castRay(hash, walker, maxDistance, false, m, predicate) === 0) return undefined;
  return { item: hash.items[hash.hitHandle[0]] as T, distance: hash.hitParameter[0] * walker.length };
}

/** Implements `raycastAll` of both hashes. */
export function raycastAll<T>(
  hash: SpatialHashBase<T>,
  ox: number,
  oy: number,
  oz: number,
  dx: number,
  dy: number,
  dz: number,
  maxDistance: number,
  out: RayHit<T>[],
  mask: number,
  predicate: ItemPredicate<T> | undefined,
): RayHit<T>[] {
  const walker = walkerFor(hash, ox, oy, oz, dx, dy, dz, maxDistance);
  const m = toBits('mask', mask);
  checkPredicate(predicate);
  hash.checkNotCallingOut('raycastAll');
  checkNotCasting('raycastAll');
  const n = hash.size === 0 ? 0 : castRay(hash, walker, maxDistance, true, m, predicate);
  sortHits(hash.hitParameter, hash.hitHandle, n);
  const items = hash.items;
  for (let i = 0; i < n; i++) {
    const item = items[hash.hitHandle[i]] as T;
    const distance = hash.hitParameter[i] * walker.length;
    const hit = out[i];
    if (hit !== undefined && hit !== null && typeof hit === 'object') {
      hit.item = item;
      hit.distance = distance;
    } else {
      out[i] = { item, distance };
    }
  }
  out.length = n;
  return out;
}

/**
 * Implements `forEachCellOnRay` of both hashes. A finite maxDistance walks
 * the whole segment (cells within ±MAX_CELL_INDEX); an infinite one stops
 * where the ray leaves the cells that hold items.
 */
export function forEachCellOnRay<T>(
  hash: SpatialHashBase<T>,
  ox: number,
  oy: number,
  oz: number,
  dx: number,
  dy: number,
  dz: number,
  maxDistance: number,
  visit: CellOnRayVisitor2D | CellOnRayVisitor3D,
): void {
  if (typeof visit !== 'function') throw new RangeError(`visit must be a function, got ${describe(visit)}`);
  const walker = walkerFor(hash, ox, oy, oz, dx, dy, dz, maxDistance);
  const length = walker.length;
  if (maxDistance === Number.POSITIVE_INFINITY) {
    if (!storedRange(hash)) return;
  } else {
    for (let a = 0; a < 3; a++) {
      LOW[a] = -MAX_CELL_INDEX;
      HIGH[a] = MAX_CELL_INDEX;
    }
  }
  walker.busy = true;
  try {
    if (!walker.start(hash.cellSize, maxDistance / length, LOW, HIGH)) return;
    const cell = walker.cell;
    if (hash.dim === 2) {
      const visit2 = visit as CellOnRayVisitor2D;
      while (walker.next()) {
        if (visit2(cell[0], cell[1], walker.enter * length, walker.exit * length) === true) return;
      }
    } else {
      const visit3 = visit as CellOnRayVisitor3D;
      while (walker.next()) {
        if (visit3(cell[0], cell[1], cell[2], walker.enter * length, walker.exit * length) === true) return;
      }
    }
  } finally {
    walker.busy = false;
  }
}
