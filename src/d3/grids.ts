/**
 * The grids one collision pass searches: a counting-sort grid per radius
 * class, built on the positions at the start of the pass, plus a list per
 * cell of the nodes that corrections have since moved too far to be found
 * where the build filed them.
 *
 * The pass visits the nodes in index order, and node i must meet every
 * j > i that overlaps it at the moment of its visit, when the visits before
 * it have moved j. The build files each node at its position then (its
 * bin); a node may drift up to its class's skin from its bin and still be
 * found, because a query reaches radius + largest radius + skin. A node
 * corrected past its skin is refiled: its entry is killed and a new one goes
 * into the list of the cell it is in now. So the search finds every pair that
 * overlaps at the time of the visit, whatever moved, and never one twice.
 *
 * Layout (flat typed arrays, sized once per node count):
 * - the classes' buckets are numbered one after the other (`base` per
 *   class); `cells[2b]` is where bucket b's slots start (they end where
 *   bucket b + 1's start) and `cells[2b + 1]` the head of its list of
 *   refiled nodes, so that one cache line serves both;
 * - each slot holds one node's data in `slots`: position, velocity, radius
 *   and index (STRIDE2 or STRIDE3 numbers), so that a row of cells is one run
 *   of memory. The nodes are visited in index order, which has nothing to do
 *   with where they are: read through per-node arrays instead, every
 *   candidate cost a cache miss per array (about 120 ns a pair at 1e5 random
 *   nodes on the 2-core AMD EPYC VM). A killed slot holds ~j as its index; a
 *   refiled node keeps its slot, and so its data;
 * - `bins` holds per slot where it was filed and its skin (BIN2 or BIN3
 *   numbers), read only after a correction;
 * - `listNext`, `listSlot` (-1 once killed) and `listBorn` (the visit that
 *   filed it, so that the visit that refiles a node does not meet it twice)
 *   are the refiled lists' entries;
 * - a class's grid is dense (every cell of its bins' bounding box, clamped
 *   at the borders for nodes that leave it) when that box has at most 4
 *   cells per node, else hashed: a cell goes to bucket `hashCell & mask`,
 *   buckets shared by several cells (the distance test sorts them out), and
 *   queries stamp the buckets they scanned so that none is scanned twice.
 *
 * @module
 */
import { hashCell2, hashCell3, nextPowerOfTwo } from '../core/cell-hash.js';
import { MAX_CLASSES, type RadiusClasses, SKIN } from './classes.js';

/** Numbers per slot in 2D: x, y, vx, vy, r, index. */
export const STRIDE2 = 6;
/** Numbers per slot in 3D: x, y, z, vx, vy, vz, r, index (one cache line). */
export const STRIDE3 = 8;
/** Numbers per slot in `bins`, 2D: bin x, bin y, skin. */
export const BIN2 = 3;
/** Numbers per slot in `bins`, 3D: bin x, bin y, bin z, skin. */
export const BIN3 = 4;

/** Cell coordinates of a hashed grid are clamped to +-2^31 from its origin, so every cell loop ends. */
const HASHED_CELL_LIMIT = 2 ** 31;
/** A build widens a class's cells until its bins span at most 2^30 cells along any axis. */
const MAX_SPAN_CELLS = 2 ** 30;
/**
 * Relative margin of a query's reach for rounding: the distance test, the
 * skin test and the cell coordinates each round by a few ulps of the
 * coordinates and velocities involved, all far below 2^-46 of them.
 */
export const REACH_SLACK = 2 ** -46;

/** Cell coordinates of hashed grids stay within +-2^31 of the origin. */
export function clampHashed(c: number): number {
  return c < -HASHED_CELL_LIMIT ? -HASHED_CELL_LIMIT : c > HASHED_CELL_LIMIT ? HASHED_CELL_LIMIT : c;
}

/** Every grid of one pass, and the per-node state they file. */
export class CollideGrids {
  /** 2 or 3 axes (1D runs as 2D with y = 0). */
  readonly dims: 2 | 3;
  /** Numbers per slot and per bin (STRIDE2 and BIN2, or STRIDE3 and BIN3). */
  readonly stride: number;
  readonly binStride: number;
  /** Nodes. */
  n = 0;

  // Per node: positions and velocities (read from the nodes once per tick), radius and class.
  X = new Float64Array(0);
  Y = new Float64Array(0);
  Z = new Float64Array(0);
  VX = new Float64Array(0);
  VY = new Float64Array(0);
  VZ = new Float64Array(0);
  R: Float64Array = new Float64Array(0);
  classOf: Int32Array = new Int32Array(0);
  /** The node's slot in the last build, or -1 when it was not filed (or is done with the pass). */
  slotOf = new Int32Array(0);
  /** The node's entry in the refiled lists, or -1 when it has none. */
  listOf = new Int32Array(0);
  /** Scratch of the build: each filed node's bucket (-1 when not filed). */
  private bucketOf = new Int32Array(0);

  // Per slot (see the layout above).
  slots = new Float64Array(0);
  bins = new Float64Array(0);
  /** How many slots the last build filled. */
  used = 0;

  // Per class.
  classes = 0;
  readonly largest = new Float64Array(MAX_CLASSES);
  /** Skin of the class: SKIN times its largest diameter. */
  readonly skin = new Float64Array(MAX_CLASSES);
  /** The cell width the class asks for (a build may widen it, see MAX_SPAN_CELLS). */
  private readonly wantWidth = new Float64Array(MAX_CLASSES);
  private readonly cellCap = new Float64Array(MAX_CLASSES);
  /** Filed nodes of the class in the last build, and the largest index among them (-1: none). */
  readonly filed = new Int32Array(MAX_CLASSES);
  readonly lastIndex = new Int32Array(MAX_CLASSES);
  // Geometry of the last build: origin, 1 / cell width, cells per axis (dense) or mask (hashed: cols = -1).
  readonly ox = new Float64Array(MAX_CLASSES);
  readonly oy = new Float64Array(MAX_CLASSES);
  readonly oz = new Float64Array(MAX_CLASSES);
  readonly inv = new Float64Array(MAX_CLASSES);
  readonly cols = new Int32Array(MAX_CLASSES);
  readonly rows = new Int32Array(MAX_CLASSES);
  readonly layers = new Int32Array(MAX_CLASSES);
  readonly mask = new Int32Array(MAX_CLASSES);
  readonly base = new Int32Array(MAX_CLASSES);
  readonly buckets = new Int32Array(MAX_CLASSES);
  /** Bounds of each class's bins, 3 per class. */
  private readonly lo = new Float64Array(3 * MAX_CLASSES);
  private readonly hi = new Float64Array(3 * MAX_CLASSES);

  // Buckets of every class, one after the other, and the refiled lists.
  cells = new Int32Array(2);
  listNext = new Int32Array(0);
  listSlot = new Int32Array(0);
  listBorn = new Int32Array(0);
  listUsed = 0;
  /** Bucket stamps of hashed queries, and the stamp of the current one. */
  stamps = new Uint32Array(0);
  stamp = 0;

  /**
   * An upper bound on |x| + |vx| (every axis) of every filed node, so that
   * queries can pad their reach for rounding (see REACH_SLACK). It starts as
   * a fraction: a field that first holds a small integer is stored as one, and
   * V8 then deoptimized build() at each store of a fraction there (96 times
   * in 220 passes, and a young-generation collection every two passes).
   */
  magnitude = 0.5;

  /**
   * A visit's numbers on their way to the scans and corrections (x_i, y_i,
   * (z_i,) r_i, strength, then a pair's offset and squared length): passed as
   * arguments to calls that are not inlined, doubles are boxed one by one.
   */
  readonly query = new Float64Array(12);
  /** The point {@link CollideGrids.bucketAt} files. */
  private readonly point = new Float64Array(3);

  // Counters of the current tick.
  pairs = 0;
  tested = 0;
  refiled = 0;
  builds = 0;

  constructor(dims: 2 | 3) {
    this.dims = dims;
    this.stride = dims === 3 ? STRIDE3 : STRIDE2;
    this.binStride = dims === 3 ? BIN3 : BIN2;
  }

  /**
   * Takes `n` nodes with these radii and classes (from initialize): sizes
   * every array for them (kept when large enough) and each class's cells.
   */
  setClasses(n: number, radii: Float64Array, classes: RadiusClasses): void {
    this.n = n;
    if (this.X.length < n) {
      const axes = this.dims;
      this.X = new Float64Array(n);
      this.Y = new Float64Array(n);
      this.Z = new Float64Array(axes === 3 ? n : 0);
      this.VX = new Float64Array(n);
      this.VY = new Float64Array(n);
      this.VZ = new Float64Array(axes === 3 ? n : 0);
      this.slotOf = new Int32Array(n);
      this.listOf = new Int32Array(n);
      this.bucketOf = new Int32Array(n);
      this.slots = new Float64Array(n * this.stride);
      this.bins = new Float64Array(n * this.binStride);
      // At most n refilings per visit, and a pass rebuilds before a visit once n are used (see refile).
      this.listNext = new Int32Array(2 * n + 1);
      this.listSlot = new Int32Array(2 * n + 1);
      this.listBorn = new Int32Array(2 * n + 1);
    }
    this.R = radii;
    this.classOf = classes.classOf;
    this.classes = classes.count;
    let totalCap = 0;
    for (let c = 0; c < classes.count; c++) {
      const largest = classes.largest[c];
      this.largest[c] = largest;
      this.skin[c] = 2 * largest * SKIN;
      // A query within the class reaches at most 2 * largest + skin (plus rounding): 3 cells per axis.
      this.wantWidth[c] = 2 * largest * (1 + SKIN) * (1 + 2 ** -20);
      // Dense when the bins' box has at most 4 cells per node (plus a few for tiny classes); hashing
      // needs at most 4 buckets per node (a power of two >= 2 per node), so either fits this room.
      this.cellCap[c] = 4 * classes.members[c] + 1024;
      totalCap += this.cellCap[c];
    }
    if (this.cells.length < 2 * (totalCap + 1)) {
      this.cells = new Int32Array(2 * (totalCap + 1));
      this.stamps = new Uint32Array(totalCap);
      this.stamp = 0;
    }
  }

  /**
   * Files every node from index `from` on at its position now (x + vx), in
   * the grid of its class, copying its data into its slot: the start of a
   * pass (from 0), or a rebuild before visiting `from` once the refiled
   * lists hold n entries (after a {@link CollideGrids.flush}).
   *
   * Each step is a function of its own with one loop: a long loop
   * is optimized on the stack while it runs, before the code after it has
   * ever run, and code there without type feedback threw that optimized code
   * away at the end of every build (--trace-deopt showed a deoptimization per
   * build, and the next loops starting again in the interpreter).
   */
  build(from: number): void {
    this.builds++;
    // Nodes before `from` are done with this pass.
    this.slotOf.fill(-1, 0, from);
    this.lo.fill(Number.POSITIVE_INFINITY);
    this.hi.fill(Number.NEGATIVE_INFINITY);
    this.filed.fill(0);
    this.lastIndex.fill(-1);
    this.magnitude = this.bound(from);
    const total = this.layout();
    this.clear(total);
    this.listUsed = 0;
    this.count(from);
    this.sum(total);
    this.scatter(from);
    this.used = this.cells[2 * total];
  }

  /**
   * The first step of a build: which nodes are filed (a class, a finite
   * position), the bounds of each class's bins, and the magnitude bound it
   * returns.
   */
  private bound(from: number): number {
    const { n, dims, X, Y, Z, VX, VY, VZ, classOf, slotOf, listOf, bucketOf, lo, hi, filed, lastIndex } = this;
    let magnitude = 0;
    for (let j = from; j < n; j++) {
      slotOf[j] = -1;
      listOf[j] = -1;
      bucketOf[j] = -1;
      const c = classOf[j];
      if (c < 0) continue;
      const x = X[j] + VX[j];
      const y = Y[j] + VY[j];
      const z = dims === 3 ? Z[j] + VZ[j] : 0;
      // A node with a coordinate that is not finite overlaps nothing (its distance to any node is Infinity
      // or NaN): it is not filed, and d3's quadtree leaves it out too.
      if (x - x !== 0 || y - y !== 0 || z - z !== 0) continue;
      const k = 3 * c;
      if (x < lo[k]) lo[k] = x;
      if (x > hi[k]) hi[k] = x;
      if (y < lo[k + 1]) lo[k + 1] = y;
      if (y > hi[k + 1]) hi[k + 1] = y;
      let m = Math.max(Math.abs(X[j]) + Math.abs(VX[j]), Math.abs(Y[j]) + Math.abs(VY[j]));
      if (dims === 3) {
        if (z < lo[k + 2]) lo[k + 2] = z;
        if (z > hi[k + 2]) hi[k + 2] = z;
        m = Math.max(m, Math.abs(Z[j]) + Math.abs(VZ[j]));
      }
      if (m > magnitude) magnitude = m;
      filed[c]++;
      lastIndex[c] = j;
      bucketOf[j] = 0;
    }
    return magnitude;
  }

  /** Each class's geometry from its bins' bounds (dense or hashed); returns the buckets of all classes. */
  private layout(): number {
    const { dims, lo, hi } = this;
    let total = 0;
    for (let c = 0; c < this.classes; c++) {
      this.base[c] = total;
      const count = this.filed[c];
      if (count === 0) {
        this.buckets[c] = 0;
        continue;
      }
      const k = 3 * c;
      const extent = Math.max(hi[k] - lo[k], hi[k + 1] - lo[k + 1], dims === 3 ? hi[k + 2] - lo[k + 2] : 0);
      // At least 2^-1000, so that 1 / width is finite even for subnormal radii; bins more than
      // Number.MAX_VALUE apart make the extent Infinity, and the width Number.MAX_VALUE (one cell).
      const width = Math.min(Math.max(this.wantWidth[c], extent / MAX_SPAN_CELLS, 2 ** -1000), Number.MAX_VALUE);
      const inv = 1 / width;
      this.inv[c] = inv;
      this.ox[c] = lo[k];
      this.oy[c] = lo[k + 1];
      this.oz[c] = dims === 3 ? lo[k + 2] : 0;
      // Cells per axis as the bins' own cell coordinates give them (the same rounding as every lookup).
      const cols = Math.floor((hi[k] - lo[k]) * inv) + 1;
      const rows = Math.floor((hi[k + 1] - lo[k + 1]) * inv) + 1;
      const layers = dims === 3 ? Math.floor((hi[k + 2] - lo[k + 2]) * inv) + 1 : 1;
      if (cols * rows * layers <= this.cellCap[c]) {
        this.cols[c] = cols;
        this.rows[c] = rows;
        this.layers[c] = layers;
        this.mask[c] = -1;
        this.buckets[c] = cols * rows * layers;
      } else {
        const buckets = nextPowerOfTwo(2 * count);
        this.cols[c] = -1;
        this.mask[c] = buckets - 1;
        this.buckets[c] = buckets;
      }
      total += this.buckets[c];
    }
    return total;
  }

  /** The counting sort's first half: empty lists and counts for the buckets. */
  private clear(total: number): void {
    const cells = this.cells;
    for (let b = 0; b <= total; b++) {
      cells[2 * b] = 0;
      cells[2 * b + 1] = -1;
    }
  }

  /** Counts the filed nodes per bucket, noting each one's bucket. */
  private count(from: number): void {
    const { n, dims, X, Y, Z, VX, VY, VZ, classOf, bucketOf, cells, point } = this;
    for (let j = from; j < n; j++) {
      if (bucketOf[j] < 0) continue;
      point[0] = X[j] + VX[j];
      point[1] = Y[j] + VY[j];
      point[2] = dims === 3 ? Z[j] + VZ[j] : 0;
      const b = this.bucketAt(classOf[j]);
      bucketOf[j] = b;
      cells[2 * b]++;
    }
  }

  /** Prefix sums of the counts, so that cells[2b] ends where bucket b does. */
  private sum(total: number): void {
    const cells = this.cells;
    let sum = 0;
    for (let b = 0; b <= total; b++) {
      sum += cells[2 * b];
      cells[2 * b] = sum;
    }
  }

  /**
   * The counting sort's second half: each node into its slot, in descending
   * index order, so that each bucket's slots come out in ascending index
   * order and cells[2b] ends at the bucket's start.
   */
  private scatter(from: number): void {
    const { n, dims, X, Y, Z, VX, VY, VZ, R, classOf, slotOf, bucketOf, cells, slots, bins, stride, binStride } = this;
    for (let j = n - 1; j >= from; j--) {
      const b = bucketOf[j];
      if (b < 0) continue;
      const s = --cells[2 * b];
      slotOf[j] = s;
      const o = s * stride;
      const q = s * binStride;
      const skin = this.skin[classOf[j]];
      if (dims === 3) {
        slots[o] = X[j];
        slots[o + 1] = Y[j];
        slots[o + 2] = Z[j];
        slots[o + 3] = VX[j];
        slots[o + 4] = VY[j];
        slots[o + 5] = VZ[j];
        slots[o + 6] = R[j];
        slots[o + 7] = j;
        bins[q] = X[j] + VX[j];
        bins[q + 1] = Y[j] + VY[j];
        bins[q + 2] = Z[j] + VZ[j];
        bins[q + 3] = skin;
      } else {
        slots[o] = X[j];
        slots[o + 1] = Y[j];
        slots[o + 2] = VX[j];
        slots[o + 3] = VY[j];
        slots[o + 4] = R[j];
        slots[o + 5] = j;
        bins[q] = X[j] + VX[j];
        bins[q + 1] = Y[j] + VY[j];
        bins[q + 2] = skin;
      }
    }
  }

  /** Copies the velocities of every slot of the last build back to its node's arrays (VX, VY, VZ). */
  flush(): void {
    const { slots, stride, VX, VY, VZ } = this;
    const used = this.used;
    for (let s = 0; s < used; s++) {
      const o = s * stride;
      if (this.dims === 3) {
        // A killed slot (~j) still holds its node: the node was refiled, its data stayed.
        const e = slots[o + 7];
        const j = e >= 0 ? e : ~e;
        VX[j] = slots[o + 3];
        VY[j] = slots[o + 4];
        VZ[j] = slots[o + 5];
      } else {
        const e = slots[o + 5];
        const j = e >= 0 ? e : ~e;
        VX[j] = slots[o + 2];
        VY[j] = slots[o + 3];
      }
    }
  }

  /**
   * The bucket (over all classes) of a point of class `c` whose coordinates
   * are in `this.point`: its cell, clamped, dense or hashed. (Through an
   * array: a call's double arguments are boxed when it is not inlined, 0.9 MB
   * a 3D build at 20,000 nodes.)
   */
  bucketAt(c: number): number {
    const point = this.point;
    const x = point[0];
    const y = point[1];
    const z = point[2];
    const inv = this.inv[c];
    let cx = Math.floor((x - this.ox[c]) * inv);
    let cy = Math.floor((y - this.oy[c]) * inv);
    let cz = this.dims === 3 ? Math.floor((z - this.oz[c]) * inv) : 0;
    const cols = this.cols[c];
    if (cols >= 0) {
      const rows = this.rows[c];
      cx = cx < 0 ? 0 : cx >= cols ? cols - 1 : cx;
      cy = cy < 0 ? 0 : cy >= rows ? rows - 1 : cy;
      if (this.dims === 3) {
        const layers = this.layers[c];
        cz = cz < 0 ? 0 : cz >= layers ? layers - 1 : cz;
      }
      return this.base[c] + cx + cols * (cy + rows * cz);
    }
    cx = clampHashed(cx);
    cy = clampHashed(cy);
    const h = this.dims === 3 ? hashCell3(cx, cy, clampHashed(cz)) : hashCell2(cx, cy);
    return this.base[c] + (h & this.mask[c]);
  }

  /**
   * Files node j (in slot s) again where it is now, called by a pass right
   * after a correction moved it past its skin, during the visit of
   * `visitor`: kills its entry and puts a new one at the head of its cell's
   * list, born in this visit so that the rest of the visit does not meet it
   * again. A node whose position is no longer finite is not filed again: it
   * overlaps nothing now, and NaN or Infinity stay so under further
   * corrections.
   */
  refile(j: number, s: number, visitor: number): void {
    this.refiled++;
    const { slots, bins } = this;
    const o = s * this.stride;
    const q = s * this.binStride;
    const listed = this.listOf[j];
    if (listed >= 0) this.listSlot[listed] = -1;
    // The index is a slot's last number.
    else slots[o + this.stride - 1] = ~j;
    this.listOf[j] = -1;
    let x: number;
    let y: number;
    let z = 0;
    let m: number;
    if (this.dims === 3) {
      x = slots[o] + slots[o + 3];
      y = slots[o + 1] + slots[o + 4];
      z = slots[o + 2] + slots[o + 5];
      m = Math.max(
        Math.abs(slots[o]) + Math.abs(slots[o + 3]),
        Math.abs(slots[o + 1]) + Math.abs(slots[o + 4]),
        Math.abs(slots[o + 2]) + Math.abs(slots[o + 5]),
      );
    } else {
      x = slots[o] + slots[o + 2];
      y = slots[o + 1] + slots[o + 3];
      m = Math.max(Math.abs(slots[o]) + Math.abs(slots[o + 2]), Math.abs(slots[o + 1]) + Math.abs(slots[o + 3]));
    }
    if (x - x !== 0 || y - y !== 0 || z - z !== 0) return;
    bins[q] = x;
    bins[q + 1] = y;
    if (this.dims === 3) bins[q + 2] = z;
    if (m > this.magnitude) this.magnitude = m;
    this.point[0] = x;
    this.point[1] = y;
    this.point[2] = z;
    const b = this.bucketAt(this.classOf[j]);
    const e = this.listUsed++;
    this.listSlot[e] = s;
    this.listBorn[e] = visitor;
    this.listNext[e] = this.cells[2 * b + 1];
    this.cells[2 * b + 1] = e;
    this.listOf[j] = e;
  }

  /** How many classes the last build hashed (see {@link CollideGrids}). */
  hashedClasses(): number {
    let hashed = 0;
    for (let c = 0; c < this.classes; c++) if (this.filed[c] > 0 && this.cols[c] < 0) hashed++;
    return hashed;
  }

  /** A new stamp for a hashed query (restarting the stamps when the counter wraps). */
  nextStamp(): number {
    if (this.stamp === 0xffffffff) {
      this.stamps.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }
}
