/**
 * The neighbour search of Matthias Müller's "Blazing Fast Neighbor Search
 * with Spatial Hashing" (Ten Minute Physics), reimplemented as the slides
 * describe it, as the baseline PointGrid3D must beat:
 *
 * - a dense hash table of `2 * maxNumObjects` buckets (the slides' table of
 *   about the particle count, doubled as in the talk's demo),
 * - bucket = |(xi * 92837111) ^ (yi * 689287499) ^ (zi * 283923481)| mod size,
 * - build by count, prefix sum and fill (`cellStart`, `cellEntries`),
 * - query the 27 cells around a point with spacing = search distance,
 *   collecting every entry of their buckets,
 * - then the caller filters by distance. Two of the 27 cells can share a
 *   bucket, which the slides leave to the caller; we skip a bucket already
 *   seen in the same query (a stamp per bucket) so no neighbour is reported
 *   twice.
 *
 * @module
 */

/** Counting-sort hash over 3D points, as in Müller's slides. */
export class TenMinutePhysicsHash {
  readonly spacing: number;
  readonly tableSize: number;
  /** Start of each bucket's entries in `cellEntries`; `tableSize + 1` values. */
  readonly cellStart: Int32Array;
  /** Point indices grouped by bucket. */
  readonly cellEntries: Int32Array;
  /** Candidates of the last query. */
  readonly queryIds: Int32Array;
  querySize = 0;
  private readonly bucketStamp: Int32Array;
  private stamp = 0;

  constructor(spacing: number, maxNumObjects: number) {
    this.spacing = spacing;
    this.tableSize = 2 * maxNumObjects;
    this.cellStart = new Int32Array(this.tableSize + 1);
    this.cellEntries = new Int32Array(maxNumObjects);
    // 27 buckets can hold more than maxNumObjects only if points repeat, which
    // they cannot: each point sits in one bucket and each bucket is read once.
    this.queryIds = new Int32Array(maxNumObjects);
    this.bucketStamp = new Int32Array(this.tableSize);
  }

  hashCoords(xi: number, yi: number, zi: number): number {
    const h = (xi * 92837111) ^ (yi * 689287499) ^ (zi * 283923481);
    return Math.abs(h) % this.tableSize;
  }

  intCoord(coord: number): number {
    return Math.floor(coord / this.spacing);
  }

  hashPos(pos: Float64Array, nr: number): number {
    return this.hashCoords(this.intCoord(pos[3 * nr]), this.intCoord(pos[3 * nr + 1]), this.intCoord(pos[3 * nr + 2]));
  }

  /** Count, prefix sum, fill. */
  create(pos: Float64Array): void {
    const numObjects = Math.min(pos.length / 3, this.cellEntries.length);
    const cellStart = this.cellStart;
    cellStart.fill(0);
    this.cellEntries.fill(0);
    for (let i = 0; i < numObjects; i++) cellStart[this.hashPos(pos, i)]++;
    let start = 0;
    for (let i = 0; i < this.tableSize; i++) {
      start += cellStart[i];
      cellStart[i] = start;
    }
    cellStart[this.tableSize] = start;
    for (let i = 0; i < numObjects; i++) {
      const h = this.hashPos(pos, i);
      cellStart[h]--;
      this.cellEntries[cellStart[h]] = i;
    }
  }

  /** Collects into `queryIds` every entry of the buckets of the cells within `maxDist` of point `nr`'s box. */
  query(pos: Float64Array, nr: number, maxDist: number): void {
    const x0 = this.intCoord(pos[3 * nr] - maxDist);
    const y0 = this.intCoord(pos[3 * nr + 1] - maxDist);
    const z0 = this.intCoord(pos[3 * nr + 2] - maxDist);
    const x1 = this.intCoord(pos[3 * nr] + maxDist);
    const y1 = this.intCoord(pos[3 * nr + 1] + maxDist);
    const z1 = this.intCoord(pos[3 * nr + 2] + maxDist);
    this.querySize = 0;
    const stamp = ++this.stamp;
    for (let xi = x0; xi <= x1; xi++) {
      for (let yi = y0; yi <= y1; yi++) {
        for (let zi = z0; zi <= z1; zi++) {
          const h = this.hashCoords(xi, yi, zi);
          if (this.bucketStamp[h] === stamp) continue;
          this.bucketStamp[h] = stamp;
          const start = this.cellStart[h];
          const end = this.cellStart[h + 1];
          for (let i = start; i < end; i++) this.queryIds[this.querySize++] = this.cellEntries[i];
        }
      }
    }
  }
}

/** Neighbour lists in compressed sparse rows: row i is `indices[offsets[i] .. offsets[i + 1]]`. */
export interface Csr {
  offsets: Uint32Array;
  indices: Uint32Array;
}

/**
 * Every point's neighbours within `radius` (other than itself), as CSR, the
 * way the article's simulation loop gets them: one hash built with spacing =
 * radius, one query per point, a distance filter on the candidates.
 */
export function tenMinutePhysicsNeighbors(pos: Float64Array, radius: number): Csr {
  const n = pos.length / 3;
  const hash = new TenMinutePhysicsHash(radius, n);
  hash.create(pos);
  const r2 = radius * radius;
  const offsets = new Uint32Array(n + 1);
  let indices = new Uint32Array(Math.max(16, n * 8));
  let used = 0;
  const ids = hash.queryIds;
  for (let i = 0; i < n; i++) {
    hash.query(pos, i, radius);
    const x = pos[3 * i];
    const y = pos[3 * i + 1];
    const z = pos[3 * i + 2];
    if (used + hash.querySize > indices.length) {
      const grown = new Uint32Array(Math.max(indices.length * 2, used + hash.querySize));
      grown.set(indices.subarray(0, used));
      indices = grown;
    }
    for (let k = 0; k < hash.querySize; k++) {
      const j = ids[k];
      if (j === i) continue;
      const dx = pos[3 * j] - x;
      const dy = pos[3 * j + 1] - y;
      const dz = pos[3 * j + 2] - z;
      if (dx * dx + dy * dy + dz * dz <= r2) indices[used++] = j;
    }
    offsets[i + 1] = used;
  }
  return { offsets, indices: indices.subarray(0, used) };
}

/**
 * Every pair (i < j) of points within `radius`, counted by the article's
 * method. An oracle independent of the library, used to count the pairs a
 * weld left unmerged. `visit` sees each pair once.
 */
export function tenMinutePhysicsPairs(pos: Float64Array, radius: number, visit: (i: number, j: number) => void): void {
  const n = pos.length / 3;
  const hash = new TenMinutePhysicsHash(radius, n);
  hash.create(pos);
  const r2 = radius * radius;
  const ids = hash.queryIds;
  for (let i = 0; i < n; i++) {
    hash.query(pos, i, radius);
    const x = pos[3 * i];
    const y = pos[3 * i + 1];
    const z = pos[3 * i + 2];
    for (let k = 0; k < hash.querySize; k++) {
      const j = ids[k];
      if (j <= i) continue;
      const dx = pos[3 * j] - x;
      const dy = pos[3 * j + 1] - y;
      const dz = pos[3 * j + 2] - z;
      if (dx * dx + dy * dy + dz * dz <= r2) visit(i, j);
    }
  }
}
