/**
 * The cell walk under every ray query of SpatialHash2D / SpatialHash3D
 * (Amanatides and Woo), with cell borders taken as the first double of each
 * cell so that a box's slab interval always lies within the intervals of the
 * cells it is filed under. See raycast.ts for the queries built on it.
 *
 * @module
 */

/** Non-empty subsets of the axes {x: 1, y: 2, z: 4}, fewest axes first; a subset comes after its own subsets. */
const SUBSETS = [1, 2, 4, 3, 5, 6, 7];

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
const LOW_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;

/** The largest double below x (finite x). */
function nextDown(x: number): number {
  if (x === 0) return -Number.MIN_VALUE;
  bits[0] = x;
  const lo = LOW_WORD;
  const hi = 1 - LOW_WORD;
  // The bit pattern of a double is ordered like its magnitude.
  if (x > 0) {
    if (words[lo] === 0) words[hi]--;
    words[lo]--;
  } else {
    words[lo]++;
    if (words[lo] === 0) words[hi]++;
  }
  return bits[0];
}

/**
 * The first double in cell k: the smallest x with Math.floor(x / cellSize) >= k.
 * Borders taken this way order exactly like the cells the hash files items
 * under, so the slab times of a box and of the borders around it never disagree
 * (k * cellSize alone can be off by an ulp for a cell size like 0.1).
 */
export function cellStart(k: number, cellSize: number): number {
  let x = k * cellSize;
  for (let i = 0; i < 8 && Math.floor(x / cellSize) < k; i++) x = -nextDown(-x);
  for (let i = 0; i < 8; i++) {
    const below = nextDown(x);
    if (Math.floor(below / cellSize) < k) break;
    x = below;
  }
  return x;
}

/**
 * Walks the cells along a ray segment in order. One instance lives on each hash
 * and is reused, so walking allocates nothing. Usage: `start(...)`, then
 * `while (next())` read `cell`, `enter`, `exit`.
 *
 * @internal
 */
export class RayWalker {
  /** Scaled ray: origin and direction per axis (z = 0 in 2D). */
  readonly origin = new Float64Array(3);
  readonly direction = new Float64Array(3);
  /** Length of the scaled direction: a parameter t is at distance t * length. */
  length = 1;
  /** Current cell, and the cell reported by the last `next()`. */
  readonly current = new Float64Array(3);
  readonly cell = new Float64Array(3);
  /** Parameter interval of the reported cell. */
  enter = 0;
  exit = 0;
  /** True while a traversal is in progress (guards against re-entrant use from a visitor). */
  busy = false;

  private dim = 2;
  private cellSize = 1;
  private readonly step = new Float64Array(3);
  private readonly nextCross = new Float64Array(3);
  private readonly lowCell = new Float64Array(3);
  private readonly highCell = new Float64Array(3);
  private tEnd = 0;
  private first = false;
  private done = true;
  private groupMask = 0;
  private groupIndex = 0;
  private groupEnter = 0;
  private groupExit = 0;

  /**
   * Sets up the ray: direction scaled to [1, 2), distances measured along it.
   * Arguments must already be validated (finite, direction not zero).
   */
  setRay(dim: 2 | 3, ox: number, oy: number, oz: number, dx: number, dy: number, dz: number): void {
    this.dim = dim;
    this.origin[0] = ox;
    this.origin[1] = oy;
    this.origin[2] = oz;
    const m = Math.max(Math.abs(dx), Math.abs(dy), Math.abs(dz));
    // 2^-e in two factors so neither overflows for a subnormal m.
    const e = Math.floor(Math.log2(m));
    const f1 = 2 ** Math.trunc(-e / 2);
    const f2 = 2 ** (-e - Math.trunc(-e / 2));
    let f3 = 1;
    const scaled = m * f1 * f2;
    if (scaled >= 2) f3 = 0.5;
    else if (scaled < 1) f3 = 2;
    this.direction[0] = dx * f1 * f2 * f3;
    this.direction[1] = dy * f1 * f2 * f3;
    this.direction[2] = dz * f1 * f2 * f3;
    this.length = Math.hypot(this.direction[0], this.direction[1], this.direction[2]);
  }

  /**
   * Starts a walk over the parameter interval [0, tLimit], clipped to the cell
   * range [low, high] per axis (inclusive, integral, within ±MAX_CELL_INDEX).
   * @returns false when the segment misses that range (nothing to walk).
   */
  start(cellSize: number, tLimit: number, low: ArrayLike<number>, high: ArrayLike<number>): boolean {
    const dim = this.dim;
    const o = this.origin;
    const d = this.direction;
    this.cellSize = cellSize;
    this.done = true;
    this.first = false;
    this.groupMask = 0;
    let tStart = 0;
    let tEnd = tLimit;
    for (let a = 0; a < dim; a++) {
      this.lowCell[a] = low[a];
      this.highCell[a] = high[a];
      const lo = low[a] * cellSize;
      const hi = (high[a] + 1) * cellSize;
      if (d[a] === 0) {
        if (o[a] < lo || o[a] > hi) return false;
        continue;
      }
      let t0 = (lo - o[a]) / d[a];
      let t1 = (hi - o[a]) / d[a];
      if (t0 > t1) {
        const swap = t0;
        t0 = t1;
        t1 = swap;
      }
      if (t0 > tStart) tStart = t0;
      if (t1 < tEnd) tEnd = t1;
    }
    if (!(tStart <= tEnd)) return false;
    for (let a = 0; a < dim; a++) {
      const oa = o[a];
      const da = d[a];
      let c = Math.floor((tStart === 0 ? oa : oa + tStart * da) / cellSize);
      if (c < low[a]) c = low[a];
      if (c > high[a]) c = high[a];
      this.step[a] = da > 0 ? 1 : da < 0 ? -1 : 0;
      if (tStart > 0 && da !== 0) {
        // The clipped start point was rounded (badly, for an origin far away):
        // back up while the cell is not entered before tStart, so no cell the
        // ray reaches at tStart is skipped.
        for (let i = 0; i < 64 && (da > 0 ? c > low[a] : c < high[a]); i++) {
          const entry = da > 0 ? cellStart(c, cellSize) : cellStart(c + 1, cellSize);
          if ((entry - oa) / da < tStart) break;
          c -= this.step[a];
        }
      }
      this.current[a] = c;
      this.updateCrossing(a);
    }
    for (let a = dim; a < 3; a++) {
      this.current[a] = 0;
      this.step[a] = 0;
      this.nextCross[a] = Number.POSITIVE_INFINITY;
    }
    this.tEnd = tEnd;
    this.enter = tStart;
    this.first = true;
    this.done = false;
    return true;
  }

  /** Advances to the next cell; false when the walk is over. */
  next(): boolean {
    const dim = this.dim;
    const cell = this.cell;
    const current = this.current;
    const step = this.step;
    if (this.first) {
      this.first = false;
      for (let a = 0; a < 3; a++) cell[a] = current[a];
      this.exit = Math.max(this.enter, Math.min(this.nextCross[0], this.nextCross[1], this.nextCross[2], this.tEnd));
      return true;
    }
    for (;;) {
      if (this.groupMask !== 0) {
        const mask = this.groupMask;
        while (this.groupIndex < SUBSETS.length) {
          const sub = SUBSETS[this.groupIndex++];
          if ((sub & ~mask) !== 0) continue;
          if (sub === mask) {
            // The full step: the ray is now in the diagonal cell.
            this.groupMask = 0;
            for (let a = 0; a < dim; a++) {
              if ((mask & (1 << a)) === 0) continue;
              current[a] += step[a];
              if (current[a] < this.lowCell[a] || current[a] > this.highCell[a]) {
                this.done = true;
                return false;
              }
              this.updateCrossing(a);
            }
            for (let a = 0; a < 3; a++) cell[a] = current[a];
            this.enter = this.groupEnter;
            const nextCross = Math.min(this.nextCross[0], this.nextCross[1], this.nextCross[2], this.tEnd);
            this.exit = Math.max(this.enter, nextCross);
            return true;
          }
          // A cell the ray only touches at the corner or edge it crosses.
          let inside = true;
          for (let a = 0; a < 3; a++) {
            cell[a] = (sub & (1 << a)) !== 0 ? current[a] + step[a] : current[a];
            if (a < dim && (cell[a] < this.lowCell[a] || cell[a] > this.highCell[a])) inside = false;
          }
          if (!inside) continue;
          this.enter = this.groupEnter;
          this.exit = this.groupExit;
          return true;
        }
        this.groupMask = 0;
      }
      if (this.done) return false;
      const cross = this.nextCross;
      let m = cross[0];
      for (let a = 1; a < dim; a++) if (cross[a] < m) m = cross[a];
      if (!(m <= this.tEnd)) {
        this.done = true;
        return false;
      }
      // Every axis crossing at that same parameter: a corner (or an edge in 3D).
      let mask = 0;
      for (let a = 0; a < dim; a++) if (cross[a] === m) mask |= 1 << a;
      this.groupMask = mask;
      this.groupIndex = 0;
      this.groupEnter = Math.max(m, this.enter);
      this.groupExit = this.groupEnter;
    }
  }

  /** Parameter where axis `a` next crosses into a neighbouring cell. */
  private updateCrossing(a: number): void {
    const da = this.direction[a];
    if (da === 0) {
      this.nextCross[a] = Number.POSITIVE_INFINITY;
      return;
    }
    const c = this.current[a];
    // Leaving upward at the first double of cell c + 1; downward once below the first of cell c.
    const border = da > 0 ? cellStart(c + 1, this.cellSize) : cellStart(c, this.cellSize);
    this.nextCross[a] = (border - this.origin[a]) / da;
  }
}
