/**
 * Fixed-radius search over 2D points with the peer libraries, each used the
 * way its README suggests: build the index from the points, then ask for
 * every point's neighbours within `radius` (itself included). Each function
 * does the whole job once and returns the harness fingerprint of the answer
 * (count and sum of (i + 1) * (j + 1) over every reported pair).
 *
 * @module
 */
import { quadtree } from 'd3-quadtree';
import Flatbush from 'flatbush';
import KDBush from 'kdbush';
import RBush from 'rbush';
import { fingerprint } from '../harness.js';

function buildKdbush(pos: Float64Array): KDBush {
  const n = pos.length / 2;
  const index = new KDBush(n);
  for (let i = 0; i < n; i++) index.add(pos[2 * i], pos[2 * i + 1]);
  index.finish();
  return index;
}

/** kdbush `within`, which returns a fresh array per query. */
export function kdbushWithin(pos: Float64Array, radius: number): bigint {
  const index = buildKdbush(pos);
  const n = pos.length / 2;
  let count = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const found = index.within(pos[2 * i], pos[2 * i + 1], radius);
    for (let k = 0; k < found.length; k++) sum = (sum + Math.imul(i + 1, found[k] + 1)) | 0;
    count += found.length;
  }
  return fingerprint(count, sum);
}

/** kdbush `withinInto` with one preallocated Uint32Array (no allocation per query). */
export function kdbushWithinInto(pos: Float64Array, radius: number): bigint {
  const index = buildKdbush(pos);
  const n = pos.length / 2;
  const out = new Uint32Array(n);
  let count = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const found = index.withinInto(pos[2 * i], pos[2 * i + 1], radius, out);
    for (let k = 0; k < found; k++) sum = (sum + Math.imul(i + 1, out[k] + 1)) | 0;
    count += found;
  }
  return fingerprint(count, sum);
}

/** flatbush: points as zero-size boxes, a box search per point, then the distance filter. */
export function flatbushSearch(pos: Float64Array, radius: number): bigint {
  const n = pos.length / 2;
  const index = new Flatbush(n);
  for (let i = 0; i < n; i++) index.add(pos[2 * i], pos[2 * i + 1], pos[2 * i], pos[2 * i + 1]);
  index.finish();
  const r2 = radius * radius;
  let count = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const x = pos[2 * i];
    const y = pos[2 * i + 1];
    const found = index.search(x - radius, y - radius, x + radius, y + radius);
    for (let k = 0; k < found.length; k++) {
      const j = found[k];
      const dx = pos[2 * j] - x;
      const dy = pos[2 * j + 1] - y;
      if (dx * dx + dy * dy > r2) continue;
      count++;
      sum = (sum + Math.imul(i + 1, j + 1)) | 0;
    }
  }
  return fingerprint(count, sum);
}

interface RBushPoint {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  id: number;
}

/** rbush: bulk-loaded zero-size boxes, a box search per point, then the distance filter. */
export function rbushSearch(pos: Float64Array, radius: number): bigint {
  const n = pos.length / 2;
  const items: RBushPoint[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const x = pos[2 * i];
    const y = pos[2 * i + 1];
    items[i] = { minX: x, minY: y, maxX: x, maxY: y, id: i };
  }
  const tree = new RBush<RBushPoint>();
  tree.load(items);
  const r2 = radius * radius;
  const query = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  let count = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const x = pos[2 * i];
    const y = pos[2 * i + 1];
    query.minX = x - radius;
    query.minY = y - radius;
    query.maxX = x + radius;
    query.maxY = y + radius;
    const found = tree.search(query);
    for (let k = 0; k < found.length; k++) {
      const p = found[k];
      const dx = p.minX - x;
      const dy = p.minY - y;
      if (dx * dx + dy * dy > r2) continue;
      count++;
      sum = (sum + Math.imul(i + 1, p.id + 1)) | 0;
    }
  }
  return fingerprint(count, sum);
}

/** d3-quadtree: `addAll` of point ids, then a pruned `visit` per point (d3 has no radius query of its own). */
export function d3QuadtreeVisit(pos: Float64Array, radius: number): bigint {
  const n = pos.length / 2;
  const ids = new Array<number>(n);
  for (let i = 0; i < n; i++) ids[i] = i;
  const tree = quadtree<number>()
    .x((i) => pos[2 * i])
    .y((i) => pos[2 * i + 1])
    .addAll(ids);
  const r2 = radius * radius;
  let count = 0;
  let sum = 0;
  let qi = 0;
  let qx = 0;
  let qy = 0;
  const visit = (node: unknown, x0: number, y0: number, x1: number, y1: number): boolean => {
    const quad = node as { length?: number; data: number; next?: unknown };
    if (quad.length === undefined) {
      let leaf: typeof quad | undefined = quad;
      do {
        const j = leaf.data;
        const dx = pos[2 * j] - qx;
        const dy = pos[2 * j + 1] - qy;
        if (dx * dx + dy * dy <= r2) {
          count++;
          sum = (sum + Math.imul(qi + 1, j + 1)) & 0x3fffffff; // kept a small integer: see fingerprint()
        }
        leaf = leaf.next as typeof quad | undefined;
      } while (leaf);
    }
    return x0 > qx + radius || y0 > qy + radius || x1 < qx - radius || y1 < qy - radius;
  };
  for (let i = 0; i < n; i++) {
    qi = i;
    qx = pos[2 * i];
    qy = pos[2 * i + 1];
    tree.visit(visit);
  }
  return fingerprint(count, sum);
}
