/**
 * PointGrid3D: a uniform grid over a typed array of 3D points, built by
 * counting sort and rebuilt whenever the points move (article 002, made exact).
 * The 3D twin of pointgrid2d.ts: hot loops stay separate per dimension for
 * speed; options, margins and the nearest heap live in pointgrid/common.ts.
 *
 * @module
 */
import { hashCell3, nextPowerOfTwo } from './cells.js';
import {
  CELL_SCALE,
  denseLimit,
  grownLength,
  isFloat32,
  MAX_RING_CELL,
  NearestHeap,
  type NeighborLists,
  type PointGridLayout,
  type PointGridOptions,
  type PointPairVisitor,
  paddedRadius,
  resolveOptions,
  SLACK,
  scatterPairs,
  stencilReach,
  UNDERFLOW,
} from './pointgrid/common.js';
import {
  checkDistance,
  checkFinite,
  checkInteger,
  checkLayout,
  describe,
  type NumericArray,
  pointError,
} from './validate.js';

// What enumeratePairs does with each pair it finds.
const VISIT = 0;
const COLLECT = 1;
/** COLLECT, and count each point's row length for neighbors(). */
const LINK = 2;

const EMPTY = new Uint32Array(0);

/**
 * A uniform grid over 3D points for fixed-radius neighbour search, k-nearest
 * queries and all-pairs search: particles (SPH fluids, sand, snow), point
 * clouds, picking.
 *
 * Built by a counting sort of the points by cell: each point's cell is
 * `floor((x - minX) / width)` per axis (width = cellSize plus one part in a
 * million, so that rounding at cell borders can never hide a pair), points
 * are counted per cell, prefix-summed into `cellStart` and their indices and
 * coordinates copied in cell order, so a neighbour loop reads memory in
 * sequence. When the bounding box of the points spans at most `maxDenseCells`
 * cells every cell is indexed directly (rows of cells along x are then
 * contiguous runs of points); otherwise occupied cells are found through an
 * open-addressing hash table of integer cell coordinates. Either way results
 * are exact: each point within the radius once, no points of other cells.
 *
 * Point i is at `positions[offset + i * stride]` (x) and the next two numbers
 * (y, z). The grid keeps its own copy of the coordinates (32-bit floats for a
 * Float32Array, 64-bit otherwise): after moving the points, call
 * {@link PointGrid3D.rebuild}. Distances are Euclidean, computed as
 * `dx * dx + dy * dy + dz * dz <= radius * radius` in float64.
 *
 * Memory beyond the caller's positions: the coordinate copy, 8 bytes per point
 * (indices and build scratch), and 4 bytes per cell.
 *
 * @example
 * ```ts
 * const grid = new PointGrid3D(particles, { cellSize: h });
 * const { offsets, indices } = grid.neighbors(h); // SPH neighbour lists
 * // next frame, after the particles moved:
 * grid.rebuild();
 * ```
 */
export class PointGrid3D {
  /** Edge of a grid cell, in position units, as given to the constructor. */
  readonly cellSize: number;
  /** Numbers between the starts of two consecutive points. */
  readonly stride: number;
  /** Index of the first point's x in the positions array. */
  readonly offset: number;

  private positions: NumericArray;
  private readonly cellWidth: number;
  private readonly maxDenseCells: number | undefined;
  private points = 0;
  private originX = 0;
  private originY = 0;
  private originZ = 0;
  /** Cells spanned by the points' bounding box along x, y and z. */
  private cellsX = 0;
  private cellsY = 0;
  private cellsZ = 0;
  private dense = true;
  /** Cells indexed by `cellStart`: the whole box when dense, the occupied cells when hashed. */
  private cellTotal = 0;
  /** Coordinates in cell order, x, y and z interleaved. */
  private coords: Float32Array | Float64Array = new Float64Array(0);
  /** Original index of each point in cell order. */
  private sortedIndex = new Uint32Array(0);
  /** Point i of cell c is at `cellStart[c] + i`; `cellTotal + 1` entries. */
  private cellStart = new Int32Array(1);
  /** Cell id per point while building; result buffer of `within`; cursors of `neighbors`. */
  private scratch = new Uint32Array(0);
  // Hashed layout: slot -> cell id (-1 empty), and cell id -> cell coordinates.
  private slots = new Int32Array(0);
  private slotMask = 0;
  private cellKeys = new Float64Array(0);
  /** Sorted-order [start, end) runs a pair search tests against, gathered per cell. */
  private ranges = new Int32Array(64);
  private readonly heap = new NearestHeap();
  // State of the current pair enumeration.
  private busy = false;
  private pairMode = VISIT;
  private visitor: PointPairVisitor | undefined = undefined;
  private pairBuffer = EMPTY;
  private pairGuess = 64;
  private pairLength = 0;
  private rowOffsets = EMPTY;

  /**
   * Builds the grid over `positions`. O(n) time.
   *
   * @param positions Float32Array, Float64Array or number[] of coordinates
   * (any numeric typed array works), e.g. a three.js BufferAttribute's array,
   * interleaved buffers included. Not modified; kept for {@link rebuild}.
   * @param options `cellSize` (required), `stride` (default 3), `offset`
   * (default 0), `maxDenseCells`: see {@link PointGridOptions}.
   * @throws RangeError for a cellSize that is not a finite number > 0, a
   * stride below 3, an offset outside the array, a length that leaves a partial
   * point, or a non-finite coordinate (the message names the point index).
   */
  constructor(positions: NumericArray, options: PointGridOptions) {
    const resolved = resolveOptions(options, 3);
    this.cellSize = resolved.cellSize;
    this.stride = resolved.stride;
    this.offset = resolved.offset;
    this.maxDenseCells = resolved.maxDenseCells;
    this.cellWidth = resolved.cellSize * CELL_SCALE;
    this.positions = positions;
    this.rebuild(positions);
  }

  /** Number of points in the grid. */
  get count(): number {
    return this.points;
  }

  /** How the cells are stored since the last build (see {@link PointGridLayout}). */
  get layout(): PointGridLayout {
    return this.dense ? 'dense' : 'hashed';
  }

  /**
   * Re-hashes every point: after the points moved, or from a new array of the
   * same layout (stride and offset), whose point count may differ. Buffers are
   * reused and grow by half again when the count outgrows them, so a steady
   * loop allocates nothing. O(n) time.
   *
   * @param positions the array to read, by default the one given last.
   * @throws RangeError as the constructor; a rejected rebuild leaves the grid
   * as it was. Error when called from inside a {@link forEachPair} visitor.
   */
  rebuild(positions: NumericArray = this.positions): void {
    if (this.busy) throw new Error('PointGrid3D.rebuild() cannot be called from inside a forEachPair visitor');
    const stride = this.stride;
    const offset = this.offset;
    const n = checkLayout(positions, 3, stride, offset);

    // Validate every point before touching anything, and find the bounds.
    let minX = Number.POSITIVE_INFINITY;
    let minY = Number.POSITIVE_INFINITY;
    let minZ = Number.POSITIVE_INFINITY;
    let maxX = Number.NEGATIVE_INFINITY;
    let maxY = Number.NEGATIVE_INFINITY;
    let maxZ = Number.NEGATIVE_INFINITY;
    for (let i = 0, p = offset; i < n; i++, p += stride) {
      const x = positions[p];
      const y = positions[p + 1];
      const z = positions[p + 2];
      if (x - x !== 0) throw pointError('positions', i, 'x', x);
      if (y - y !== 0) throw pointError('positions', i, 'y', y);
      if (z - z !== 0) throw pointError('positions', i, 'z', z);
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      if (z < minZ) minZ = z;
      if (z > maxZ) maxZ = z;
    }
    const width = this.cellWidth;
    const originX = n === 0 ? 0 : minX;
    const originY = n === 0 ? 0 : minY;
    const originZ = n === 0 ? 0 : minZ;
    const cellsX = n === 0 ? 0 : Math.floor((maxX - originX) / width) + 1;
    const cellsY = n === 0 ? 0 : Math.floor((maxY - originY) / width) + 1;
    const cellsZ = n === 0 ? 0 : Math.floor((maxZ - originZ) / width) + 1;
    const boxCells = cellsX * cellsY * cellsZ;
    const dense = boxCells <= denseLimit(this.maxDenseCells, n);

    this.reserve(n, dense ? boxCells : n, !dense, isFloat32(positions));
    this.positions = positions;
    this.points = n;
    this.originX = originX;
    this.originY = originY;
    this.originZ = originZ;
    this.cellsX = cellsX;
    this.cellsY = cellsY;
    this.cellsZ = cellsZ;
    this.dense = dense;

    const scratch = this.scratch;
    const cellStart = this.cellStart;
    let cells: number;
    if (dense) {
      cells = boxCells;
      const layer = cellsX * cellsY;
      cellStart.fill(0, 0, cells + 1);
      for (let i = 0, p = offset; i < n; i++, p += stride) {
        const c =
          Math.floor((positions[p] - originX) / width) +
          Math.floor((positions[p + 1] - originY) / width) * cellsX +
          Math.floor((positions[p + 2] - originZ) / width) * layer;
        scratch[i] = c;
        cellStart[c]++;
      }
    } else {
      cells = 0;
      const slots = this.slots;
      const mask = this.slotMask;
      const keys = this.cellKeys;
      slots.fill(-1);
      for (let i = 0, p = offset; i < n; i++, p += stride) {
        const cx = Math.floor((positions[p] - originX) / width);
        const cy = Math.floor((positions[p + 1] - originY) / width);
        const cz = Math.floor((positions[p + 2] - originZ) / width);
        let s = hashCell3(cx, cy, cz) & mask;
        let id: number;
        for (;;) {
          id = slots[s];
          if (id < 0) {
            id = cells++;
            slots[s] = id;
            keys[3 * id] = cx;
            keys[3 * id + 1] = cy;
            keys[3 * id + 2] = cz;
            cellStart[id] = 0;
            break;
          }
          if (keys[3 * id] === cx && keys[3 * id + 1] === cy && keys[3 * id + 2] === cz) break;
          s = (s + 1) & mask;
        }
        scratch[i] = id;
        cellStart[id]++;
      }
    }
    this.cellTotal = cells;

    // Inclusive prefix sums: cellStart[c] becomes the end of cell c, and the
    // fill below walks it back to the start.
    let sum = 0;
    for (let c = 0; c < cells; c++) {
      sum += cellStart[c];
      cellStart[c] = sum;
    }
    cellStart[cells] = n;
    // Filling from the last point keeps each cell in ascending index order.
    const coords = this.coords;
    const sortedIndex = this.sortedIndex;
    for (let i = n - 1, p = offset + (n - 1) * stride; i >= 0; i--, p -= stride) {
      const s = --cellStart[scratch[i]];
      sortedIndex[s] = i;
      coords[3 * s] = positions[p];
      coords[3 * s + 1] = positions[p + 1];
      coords[3 * s + 2] = positions[p + 2];
    }
  }

  /**
   * Indices of the points at distance <= `radius` from (x, y, z), each once, in
   * no particular order. O(points in the cells the ball touches).
   *
   * @param out array to fill (emptied first); a new one by default.
   * @returns `out`.
   * @throws RangeError for a non-finite x, y or z, or a radius < 0 or NaN (Infinity finds every point).
   */
  within(x: number, y: number, z: number, radius: number, out: number[] = []): number[] {
    checkFinite('x', x);
    checkFinite('y', y);
    checkFinite('z', z);
    checkDistance('radius', radius);
    const found = this.collect(x, y, z, radius, this.scratch);
    const scratch = this.scratch;
    out.length = found;
    for (let k = 0; k < found; k++) out[k] = scratch[k];
    return out;
  }

  /**
   * Allocation-free {@link within}: writes the indices of the points at
   * distance <= `radius` into `out` and returns how many there are. When
   * there are more than `out.length`, only the first `out.length` are written
   * (which ones is unspecified) and the full count is still returned, so a
   * result larger than `out.length` means "grow out and ask again". An `out`
   * of length {@link count} always suffices.
   *
   * @throws RangeError for a non-finite x, y or z, a radius < 0 or NaN, or an out that is not a Uint32Array.
   */
  withinInto(x: number, y: number, z: number, radius: number, out: Uint32Array): number {
    // Inline checks: this is called once per point per frame.
    if (x - x !== 0) checkFinite('x', x);
    if (y - y !== 0) checkFinite('y', y);
    if (z - z !== 0) checkFinite('z', z);
    if (!(radius >= 0)) checkDistance('radius', radius);
    if (!(out instanceof Uint32Array)) throw new RangeError(`out must be a Uint32Array, got ${describe(out)}`);
    return this.collect(x, y, z, radius, out);
  }

  /**
   * The (at most) k points nearest to (x, y, z) within `maxDistance`, ascending
   * by distance, ties by ascending index. Searches shells of cells outward and
   * stops once no unvisited cell can hold a closer point; about
   * O(k + points in the cells up to the k-th distance).
   *
   * @param k how many, an integer >= 0 (default 1); fewer come back when the grid holds fewer.
   * @param maxDistance largest distance accepted (inclusive), default Infinity.
   * @returns a new array of point indices.
   * @throws RangeError for a non-finite x, y or z, a k that is not an integer >= 0, or a maxDistance < 0 or NaN.
   */
  nearest(x: number, y: number, z: number, k = 1, maxDistance = Number.POSITIVE_INFINITY): number[] {
    checkFinite('x', x);
    checkFinite('y', y);
    checkFinite('z', z);
    checkInteger('k', k, 0);
    checkDistance('maxDistance', maxDistance);
    const n = this.points;
    const heap = this.heap;
    heap.reset(Math.min(k, n));
    if (heap.capacity === 0) return [];
    const maxSquared = maxDistance * maxDistance;
    const width = this.cellWidth;
    const cellsX = this.cellsX;
    const cellsY = this.cellsY;
    const cellsZ = this.cellsZ;
    const rx = x - this.originX;
    const ry = y - this.originY;
    const rz = z - this.originZ;
    const qx = Math.floor(rx / width);
    const qy = Math.floor(ry / width);
    const qz = Math.floor(rz / width);
    if (Math.abs(qx) > MAX_RING_CELL || Math.abs(qy) > MAX_RING_CELL || Math.abs(qz) > MAX_RING_CELL) {
      this.offerRange(0, n, x, y, z, maxSquared);
      return heap.drain();
    }
    // Shells up to kFirst - 1 miss the grid's box entirely.
    const kFirst = Math.max(0, qx - (cellsX - 1), -qx, qy - (cellsY - 1), -qy, qz - (cellsZ - 1), -qz);
    // Hashed grids may span far more cells than they hold: past this budget of
    // cell look-ups, testing every point is cheaper.
    let budget = this.dense ? Number.POSITIVE_INFINITY : 2 * this.cellTotal + 64;
    for (let k = kFirst; ; k++) {
      const x0 = qx - k;
      const x1 = qx + k;
      const y0 = qy - k;
      const y1 = qy + k;
      const z0 = qz - k;
      const z1 = qz + k;
      const cx0 = Math.max(x0, 0);
      const cx1 = Math.min(x1, cellsX - 1);
      const cy0 = Math.max(y0, 0);
      const cy1 = Math.min(y1, cellsY - 1);
      const cz0 = Math.max(z0, 0);
      const cz1 = Math.min(z1, cellsZ - 1);
      if (!this.dense && cx0 <= cx1 && cy0 <= cy1 && cz0 <= cz1) {
        // Upper bound of the shell's cells inside the box.
        const sx = cx1 - cx0 + 1;
        const sy = cy1 - cy0 + 1;
        const sz = cz1 - cz0 + 1;
        budget -= 2 * (sx * sy + sy * sz + sx * sz);
        if (budget < 0) {
          heap.reset(heap.capacity);
          this.offerRange(0, n, x, y, z, maxSquared);
          return heap.drain();
        }
      }
      if (cx0 <= cx1) {
        for (let cz = cz0; cz <= cz1; cz++) {
          const zFace = cz === z0 || cz === z1;
          for (let cy = cy0; cy <= cy1; cy++) {
            if (zFace || cy === y0 || cy === y1) {
              this.offerRow(cy, cz, cx0, cx1, x, y, z, maxSquared);
            } else {
              if (x0 >= 0) this.offerRow(cy, cz, x0, x0, x, y, z, maxSquared);
              if (k > 0 && x1 < cellsX) this.offerRow(cy, cz, x1, x1, x, y, z, maxSquared);
            }
          }
        }
      }
      // Every unvisited cell lies beyond one face of the shell's box; its points
      // are at least as far as that face.
      let bound = Number.POSITIVE_INFINITY;
      if (x1 + 1 <= cellsX - 1) bound = Math.min(bound, (x1 + 1) * width - rx);
      if (x0 - 1 >= 0) bound = Math.min(bound, rx - x0 * width);
      if (y1 + 1 <= cellsY - 1) bound = Math.min(bound, (y1 + 1) * width - ry);
      if (y0 - 1 >= 0) bound = Math.min(bound, ry - y0 * width);
      if (z1 + 1 <= cellsZ - 1) bound = Math.min(bound, (z1 + 1) * width - rz);
      if (z0 - 1 >= 0) bound = Math.min(bound, rz - z0 * width);
      if (bound === Number.POSITIVE_INFINITY) break;
      bound -=
        (Math.abs(rx) +
          Math.abs(ry) +
          Math.abs(rz) +
          (Math.abs(qx) + Math.abs(qy) + Math.abs(qz) + 2 * k + 2) * width) *
          SLACK +
        UNDERFLOW;
      if (bound > 0) {
        const boundSquared = bound * bound * (1 - SLACK);
        if (boundSquared > maxSquared || heap.worst() < boundSquared) break;
      }
    }
    return heap.drain();
  }

  /**
   * Calls `visit(i, j, distanceSquared)` once for every unordered pair of
   * points at distance <= `radius`, with original indices i < j, in no
   * particular order. Each pair of neighbouring cells is visited once (half
   * stencil), and nothing is allocated after the first call. O(n + pairs
   * tested); with radius about cellSize each point is tested against about
   * 13.5 cells' worth of points.
   *
   * `visit` may call {@link within}, {@link withinInto} and {@link nearest},
   * but not {@link rebuild} or another pair search.
   *
   * @throws RangeError for a radius < 0 or NaN (Infinity pairs every point);
   * Error when called from inside another pair search's visitor.
   */
  forEachPair(radius: number, visit: PointPairVisitor): void {
    checkDistance('radius', radius);
    if (typeof visit !== 'function') throw new RangeError('visit must be a function');
    this.visitor = visit;
    try {
      this.enumeratePairs(radius, VISIT);
    } finally {
      this.visitor = undefined;
    }
  }

  /**
   * Every unordered pair of points at distance <= `radius`, flat
   * `[i0, j0, i1, j1, ...]` with i < j in each pair, in no particular order.
   * Allocates the returned array (and a growing buffer while searching).
   *
   * @throws RangeError for a radius < 0 or NaN.
   */
  pairs(radius: number): Uint32Array {
    checkDistance('radius', radius);
    this.pairBuffer = new Uint32Array(this.pairGuess);
    this.pairLength = 0;
    try {
      this.enumeratePairs(radius, COLLECT);
      const buffer = this.pairBuffer;
      const length = this.pairLength;
      // The next call starts from this size, so a repeated search grows its buffer at most once.
      this.pairGuess = Math.max(64, length + (length >> 3));
      return buffer.length === length ? buffer : buffer.slice(0, length);
    } finally {
      this.pairBuffer = EMPTY;
    }
  }

  /**
   * Every point's neighbours within `radius` (itself excluded) in compressed
   * sparse row form, what an SPH solver consumes. Row i lists its neighbours
   * in no particular order. One pass over the half stencil collects the
   * pairs and row lengths, a second pass over the pairs scatters them into
   * rows; allocates the two returned arrays and a transient pair buffer (8
   * bytes per pair).
   *
   * @throws RangeError for a radius < 0 or NaN.
   */
  neighbors(radius: number): NeighborLists {
    checkDistance('radius', radius);
    const offsets = new Uint32Array(this.points + 1);
    this.rowOffsets = offsets;
    this.pairBuffer = new Uint32Array(this.pairGuess);
    this.pairLength = 0;
    try {
      this.enumeratePairs(radius, LINK);
      const length = this.pairLength;
      this.pairGuess = Math.max(64, length + (length >> 3));
      return scatterPairs(this.pairBuffer, length, offsets, this.scratch);
    } finally {
      this.rowOffsets = EMPTY;
      this.pairBuffer = EMPTY;
    }
  }

  /**
   * Checks every internal invariant against the positions array the grid was
   * built from: cell starts ascending from 0 to count, every point once in
   * cell order, each copy equal to its source and inside its cell, hashed
   * cells distinct, occupied and findable. For tests and debugging; O(n + cells).
   *
   * @throws Error naming the first broken invariant.
   */
  validate(): void {
    const n = this.points;
    const cells = this.cellTotal;
    const cellStart = this.cellStart;
    const fail = (what: string): never => {
      throw new Error(`PointGrid3D invariant broken: ${what}`);
    };
    if (n !== checkLayout(this.positions, 3, this.stride, this.offset)) fail('count differs from the positions');
    if (this.dense && cells !== this.cellsX * this.cellsY * this.cellsZ) fail('dense cell total is not the box size');
    if (cellStart[0] !== 0 || cellStart[cells] !== n) fail('cellStart does not run from 0 to count');
    const seen = new Uint8Array(n);
    const width = this.cellWidth;
    const layer = this.cellsX * this.cellsY;
    for (let c = 0; c < cells; c++) {
      const start = cellStart[c];
      const end = cellStart[c + 1];
      if (end < start) fail(`cellStart decreases at cell ${c}`);
      if (!this.dense && end === start) fail(`hashed cell ${c} is empty`);
      let cx: number;
      let cy: number;
      let cz: number;
      if (this.dense) {
        cx = c % this.cellsX;
        cy = Math.floor(c / this.cellsX) % this.cellsY;
        cz = Math.floor(c / layer);
      } else {
        cx = this.cellKeys[3 * c];
        cy = this.cellKeys[3 * c + 1];
        cz = this.cellKeys[3 * c + 2];
        if (this.findCell(cx, cy, cz) !== c) fail(`hashed cell ${c} (${cx}, ${cy}, ${cz}) is not found by its key`);
      }
      for (let s = start; s < end; s++) {
        const i = this.sortedIndex[s];
        if (i >= n || seen[i] === 1) fail(`point ${i} is missing or listed twice`);
        seen[i] = 1;
        if (s > start && this.sortedIndex[s - 1] > i) fail(`cell ${c} is not in ascending index order`);
        const p = this.offset + i * this.stride;
        const x = this.coords[3 * s];
        const y = this.coords[3 * s + 1];
        const z = this.coords[3 * s + 2];
        if (x !== this.positions[p] || y !== this.positions[p + 1] || z !== this.positions[p + 2]) {
          fail(`copy of point ${i} differs from positions`);
        }
        if (
          Math.floor((x - this.originX) / width) !== cx ||
          Math.floor((y - this.originY) / width) !== cy ||
          Math.floor((z - this.originZ) / width) !== cz
        ) {
          fail(`point ${i} is not in its cell ${c}`);
        }
      }
    }
  }

  /** Makes every buffer big enough for n points and `cells` cells. Allocates before changing any state. */
  private reserve(n: number, cells: number, hashed: boolean, float32: boolean): void {
    const coordsFit = this.coords.length >= 3 * n && this.coords instanceof Float32Array === float32;
    if (!coordsFit) {
      const length = grownLength(this.coords instanceof Float32Array === float32 ? this.coords.length : 0, 3 * n);
      this.coords = float32 ? new Float32Array(length) : new Float64Array(length);
    }
    if (this.sortedIndex.length < n) {
      const length = grownLength(this.sortedIndex.length, n);
      this.sortedIndex = new Uint32Array(length);
      this.scratch = new Uint32Array(length);
    }
    if (this.cellStart.length < cells + 1)
      this.cellStart = new Int32Array(grownLength(this.cellStart.length, cells + 1));
    if (hashed) {
      if (this.cellKeys.length < 3 * n) this.cellKeys = new Float64Array(grownLength(this.cellKeys.length, 3 * n));
      // Load factor at most 1/2 with every point in its own cell.
      const slotCount = nextPowerOfTwo(Math.max(16, 2 * n));
      if (this.slots.length < slotCount) {
        this.slots = new Int32Array(slotCount);
        this.slotMask = slotCount - 1;
      }
    }
  }

  /** Id of the occupied hashed cell (cx, cy, cz), or -1. */
  private findCell(cx: number, cy: number, cz: number): number {
    const keys = this.cellKeys;
    const slots = this.slots;
    const mask = this.slotMask;
    let s = hashCell3(cx, cy, cz) & mask;
    for (;;) {
      const id = slots[s];
      if (id < 0) return -1;
      if (keys[3 * id] === cx && keys[3 * id + 1] === cy && keys[3 * id + 2] === cz) return id;
      s = (s + 1) & mask;
    }
  }

  /** Writes the points within radius into target (as far as it fits) and returns how many there are. */
  private collect(x: number, y: number, z: number, radius: number, target: Uint32Array): number {
    if (this.points === 0) return 0;
    const width = this.cellWidth;
    const rx = x - this.originX;
    const ry = y - this.originY;
    const rz = z - this.originZ;
    const padded = paddedRadius(radius, Math.max(Math.abs(rx), Math.abs(ry), Math.abs(rz)), width);
    const lx = Math.max(Math.floor((rx - padded) / width), 0);
    const hx = Math.min(Math.floor((rx + padded) / width), this.cellsX - 1);
    const ly = Math.max(Math.floor((ry - padded) / width), 0);
    const hy = Math.min(Math.floor((ry + padded) / width), this.cellsY - 1);
    const lz = Math.max(Math.floor((rz - padded) / width), 0);
    const hz = Math.min(Math.floor((rz + padded) / width), this.cellsZ - 1);
    if (lx > hx || ly > hy || lz > hz) return 0;
    const r2 = radius * radius;
    const coords = this.coords;
    const sortedIndex = this.sortedIndex;
    const cellStart = this.cellStart;
    const capacity = target.length;
    let found = 0;
    if (this.dense) {
      const cellsX = this.cellsX;
      const layer = cellsX * this.cellsY;
      // With 3 rows or fewer per axis (radius up to a cell) clipping saves too little to pay for itself;
      // tiny radii would square to subnormals, so they are not clipped either.
      const clip = (hy - ly > 2 || hz - lz > 2) && padded > 1e-150;
      const paddedSquared = padded * padded;
      const margin = (Math.abs(ry) + Math.abs(rz) + width) * SLACK;
      for (let cz = lz; cz <= hz; cz++) {
        for (let cy = ly; cy <= hy; cy++) {
          let cx0 = lx;
          let cx1 = hx;
          if (clip) {
            // Only the cells under the chord at the row's edge nearest to (y, z).
            const belowY = cy * width - ry;
            const aboveY = ry - (cy + 1) * width;
            const belowZ = cz * width - rz;
            const aboveZ = rz - (cz + 1) * width;
            const gy = Math.max(belowY, aboveY, 0);
            const gz = Math.max(belowZ, aboveZ, 0);
            const gapSquared = gy * gy + gz * gz;
            const gap = Math.sqrt(gapSquared) - (cy + cz + 2) * margin;
            if (gap > 0) {
              const half = Math.sqrt(paddedSquared - gap * gap);
              if (!(half >= 0)) continue;
              const left = Math.floor((rx - half) / width);
              const right = Math.floor((rx + half) / width);
              if (left > cx0) cx0 = left;
              if (right < cx1) cx1 = right;
            }
          }
          const row = cy * cellsX + cz * layer;
          const start = cellStart[row + cx0];
          const end = cellStart[row + cx1 + 1];
          if (found + end - start <= capacity) {
            for (let t = start; t < end; t++) {
              const dx = coords[3 * t] - x;
              const dy = coords[3 * t + 1] - y;
              const dz = coords[3 * t + 2] - z;
              if (dx * dx + dy * dy + dz * dz <= r2) target[found++] = sortedIndex[t];
            }
            continue;
          }
          for (let t = start; t < end; t++) {
            const dx = coords[3 * t] - x;
            const dy = coords[3 * t + 1] - y;
            const dz = coords[3 * t + 2] - z;
            if (dx * dx + dy * dy + dz * dz <= r2) {
              if (found < capacity) target[found] = sortedIndex[t];
              found++;
            }
          }
        }
      }
      return found;
    }
    const cells = this.cellTotal;
    const keys = this.cellKeys;
    const scanAll = (hx - lx + 1) * (hy - ly + 1) * (hz - lz + 1) > cells;
    for (let c = 0, cx = lx, cy = ly, cz = lz; ; ) {
      // Either every stencil cell in turn (looked up) or every occupied cell (tested against the box).
      let id: number;
      if (scanAll) {
        if (c === cells) break;
        id = c++;
        const kx = keys[3 * id];
        const ky = keys[3 * id + 1];
        const kz = keys[3 * id + 2];
        if (kx < lx || kx > hx || ky < ly || ky > hy || kz < lz || kz > hz) continue;
      } else {
        if (cz > hz) break;
        id = this.findCell(cx, cy, cz);
        if (++cx > hx) {
          cx = lx;
          if (++cy > hy) {
            cy = ly;
            cz++;
          }
        }
        if (id < 0) continue;
      }
      const end = cellStart[id + 1];
      for (let t = cellStart[id]; t < end; t++) {
        const dx = coords[3 * t] - x;
        const dy = coords[3 * t + 1] - y;
        const dz = coords[3 * t + 2] - z;
        if (dx * dx + dy * dy + dz * dz <= r2) {
          if (found < capacity) target[found] = sortedIndex[t];
          found++;
        }
      }
    }
    return found;
  }

  /** Offers the points of cells cx0..cx1 of row (cy, cz) to the nearest heap. */
  private offerRow(
    cy: number,
    cz: number,
    cx0: number,
    cx1: number,
    x: number,
    y: number,
    z: number,
    maxSquared: number,
  ): void {
    const cellStart = this.cellStart;
    if (this.dense) {
      const row = cy * this.cellsX + cz * this.cellsX * this.cellsY;
      this.offerRange(cellStart[row + cx0], cellStart[row + cx1 + 1], x, y, z, maxSquared);
      return;
    }
    for (let cx = cx0; cx <= cx1; cx++) {
      const id = this.findCell(cx, cy, cz);
      if (id >= 0) this.offerRange(cellStart[id], cellStart[id + 1], x, y, z, maxSquared);
    }
  }

  /** Offers sorted points start..end-1 to the nearest heap. */
  private offerRange(start: number, end: number, x: number, y: number, z: number, maxSquared: number): void {
    const coords = this.coords;
    const sortedIndex = this.sortedIndex;
    const heap = this.heap;
    for (let t = start; t < end; t++) {
      const dx = coords[3 * t] - x;
      const dy = coords[3 * t + 1] - y;
      const dz = coords[3 * t + 2] - z;
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 <= maxSquared) heap.offer(d2, sortedIndex[t]);
    }
  }

  /** Runs the half-stencil pair search, handing each pair to `emit` in the given mode. */
  private enumeratePairs(radius: number, mode: number): void {
    if (this.busy) throw new Error('PointGrid3D: a pair search cannot start inside another pair search');
    this.busy = true;
    this.pairMode = mode;
    try {
      if (this.points < 2) return;
      const reach = stencilReach(radius, this.cellWidth, Math.max(this.cellsX, this.cellsY, this.cellsZ));
      const r2 = radius * radius;
      if (this.dense) this.densePairs(reach, r2);
      else this.hashedPairs(reach, r2);
    } finally {
      this.busy = false;
    }
  }

  /**
   * Dense half stencil: the rest of the cell and the `reach` cells after it in
   * its row are one contiguous run of sorted points, and so is every row
   * (dy in 1..reach, same layer) and (any dy, dz in 1..reach) between
   * cx - reach and cx + reach.
   */
  private densePairs(reach: number, r2: number): void {
    const cellsX = this.cellsX;
    const cellsY = this.cellsY;
    const cellsZ = this.cellsZ;
    const layer = cellsX * cellsY;
    const cellStart = this.cellStart;
    const needed = 2 * (reach + reach * (2 * reach + 1));
    if (this.ranges.length < needed) this.ranges = new Int32Array(grownLength(this.ranges.length, needed));
    const ranges = this.ranges;
    for (let cz = 0; cz < cellsZ; cz++) {
      const layersAbove = Math.min(reach, cellsZ - 1 - cz);
      for (let cy = 0; cy < cellsY; cy++) {
        const row = cy * cellsX + cz * layer;
        const rowsAbove = Math.min(reach, cellsY - 1 - cy);
        const yLow = Math.max(cy - reach, 0);
        const yHigh = Math.min(cy + reach, cellsY - 1);
        for (let cx = 0; cx < cellsX; cx++) {
          const start = cellStart[row + cx];
          const end = cellStart[row + cx + 1];
          if (start === end) continue;
          const left = cx > reach ? cx - reach : 0;
          const right = Math.min(cx + reach, cellsX - 1) + 1;
          const runEnd = cellStart[row + right];
          let count = 0;
          for (let dy = 1, other = row + cellsX; dy <= rowsAbove; dy++, other += cellsX) {
            const a = cellStart[other + left];
            const b = cellStart[other + right];
            if (a < b) {
              ranges[count++] = a;
              ranges[count++] = b;
            }
          }
          for (let dz = 1; dz <= layersAbove; dz++) {
            const base = (cz + dz) * layer;
            for (let oy = yLow; oy <= yHigh; oy++) {
              const other = base + oy * cellsX;
              const a = cellStart[other + left];
              const b = cellStart[other + right];
              if (a < b) {
                ranges[count++] = a;
                ranges[count++] = b;
              }
            }
          }
          this.pairsFromCell(start, end, runEnd, count, r2);
        }
      }
    }
  }

  /**
   * Hashed half stencil: the cells after this one in its row, the rows above in
   * its layer and the layers above, looked up one by one; when that stencil is
   * larger than the number of occupied cells, every later occupied cell is
   * tested instead.
   */
  private hashedPairs(reach: number, r2: number): void {
    const cells = this.cellTotal;
    const keys = this.cellKeys;
    const cellStart = this.cellStart;
    const side = 2 * reach + 1;
    const half = reach + reach * side + reach * side * side;
    const scanAll = half > cells;
    const needed = 2 * (scanAll ? cells : half);
    if (this.ranges.length < needed) this.ranges = new Int32Array(grownLength(this.ranges.length, needed));
    const ranges = this.ranges;
    for (let c = 0; c < cells; c++) {
      const kx = keys[3 * c];
      const ky = keys[3 * c + 1];
      const kz = keys[3 * c + 2];
      let count = 0;
      if (scanAll) {
        for (let other = c + 1; other < cells; other++) {
          if (
            Math.abs(keys[3 * other] - kx) <= reach &&
            Math.abs(keys[3 * other + 1] - ky) <= reach &&
            Math.abs(keys[3 * other + 2] - kz) <= reach
          ) {
            ranges[count++] = cellStart[other];
            ranges[count++] = cellStart[other + 1];
          }
        }
      } else {
        for (let dz = 0; dz <= reach; dz++) {
          for (let dy = dz === 0 ? 0 : -reach; dy <= reach; dy++) {
            for (let dx = dz === 0 && dy === 0 ? 1 : -reach; dx <= reach; dx++) {
              const id = this.findCell(kx + dx, ky + dy, kz + dz);
              if (id >= 0) {
                ranges[count++] = cellStart[id];
                ranges[count++] = cellStart[id + 1];
              }
            }
          }
        }
      }
      this.pairsFromCell(cellStart[c], cellStart[c + 1], cellStart[c + 1], count, r2);
    }
  }

  /**
   * Tests each point of sorted run start..end-1 against the later points up to
   * runEnd and against every gathered range.
   */
  private pairsFromCell(start: number, end: number, runEnd: number, rangeCount: number, r2: number): void {
    const coords = this.coords;
    const ranges = this.ranges;
    for (let s = start; s < end; s++) {
      const px = coords[3 * s];
      const py = coords[3 * s + 1];
      const pz = coords[3 * s + 2];
      for (let t = s + 1; t < runEnd; t++) {
        const dx = coords[3 * t] - px;
        const dy = coords[3 * t + 1] - py;
        const dz = coords[3 * t + 2] - pz;
        const d2 = dx * dx + dy * dy + dz * dz;
        if (d2 <= r2) this.emit(s, t, d2);
      }
      for (let k = 0; k < rangeCount; k += 2) {
        const stop = ranges[k + 1];
        for (let t = ranges[k]; t < stop; t++) {
          const dx = coords[3 * t] - px;
          const dy = coords[3 * t + 1] - py;
          const dz = coords[3 * t + 2] - pz;
          const d2 = dx * dx + dy * dy + dz * dz;
          if (d2 <= r2) this.emit(s, t, d2);
        }
      }
    }
  }

  /** Hands one found pair (sorted positions s and t) to the current pair search. */
  private emit(s: number, t: number, d2: number): void {
    let i = this.sortedIndex[s];
    let j = this.sortedIndex[t];
    if (i > j) {
      const swap = i;
      i = j;
      j = swap;
    }
    switch (this.pairMode) {
      case VISIT:
        this.visitor!(i, j, d2);
        break;
      default: {
        let buffer = this.pairBuffer;
        const length = this.pairLength;
        if (length + 2 > buffer.length) {
          const grown = new Uint32Array(buffer.length * 2);
          grown.set(buffer);
          this.pairBuffer = buffer = grown;
        }
        buffer[length] = i;
        buffer[length + 1] = j;
        this.pairLength = length + 2;
        if (this.pairMode === LINK) {
          const offsets = this.rowOffsets;
          offsets[i + 1]++;
          offsets[j + 1]++;
        }
      }
    }
  }
}
