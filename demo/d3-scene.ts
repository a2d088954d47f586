/**
 * The d3 page's scene, shared by the page and its two simulation workers: a
 * seeded beeswarm (each node pulled to x = its value, y = the middle) and the
 * count of overlapping pairs that the page shows and the e2e test compares,
 * by a grid and, to check the grid, by brute force.
 */
import { seededRandom } from './common.js';

/** A beeswarm node as d3's simulation holds it. */
export interface SwarmNode {
  x: number;
  y: number;
  vx: number;
  vy: number;
  r: number;
  /** Where forceX pulls it. */
  tx: number;
  index?: number;
}

/** The scene's size in its own units (the canvases scale it to fit). */
export const WIDTH = 1000;
export const HEIGHT = 600;

/**
 * `n` nodes, the same for the same `n` and `seed`: values normal around the
 * middle, radii mostly small with a tail of larger bubbles, scaled so that the
 * discs' area is a fixed share of the scene, and starting scattered over a
 * band around their targets, where about half of them overlap another.
 */
export function beeswarm(n: number, seed = 1): SwarmNode[] {
  const random = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const raw = Array.from({ length: n }, () => Math.min(6, (1 - random()) ** -0.35));
  const area = raw.reduce((sum, r) => sum + Math.PI * r * r, 0);
  // The discs would cover 12% of the scene: a band about a fifth of its height once packed.
  const scale = Math.sqrt((0.12 * WIDTH * HEIGHT) / area);
  return raw.map((r) => {
    const tx = WIDTH / 2 + normal() * WIDTH * 0.14;
    return {
      x: tx + normal() * 3 * scale,
      y: HEIGHT / 2 + normal() * HEIGHT * 0.16,
      vx: 0,
      vy: 0,
      r: r * scale,
      tx,
    };
  });
}

/** Pairs closer than the sum of their radii, found through a grid of cells twice the largest radius wide. */
export function countOverlaps(x: Float64Array, y: Float64Array, r: Float64Array): number {
  const n = r.length;
  let largest = 0;
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    largest = Math.max(largest, r[i]);
    minX = Math.min(minX, x[i]);
    maxX = Math.max(maxX, x[i]);
    minY = Math.min(minY, y[i]);
    maxY = Math.max(maxY, y[i]);
  }
  if (n === 0 || !(largest > 0)) return 0;
  const cell = 2 * largest;
  const cols = Math.floor((maxX - minX) / cell) + 1;
  const rows = Math.floor((maxY - minY) / cell) + 1;
  const cellOf = (i: number) => Math.floor((x[i] - minX) / cell) + cols * Math.floor((y[i] - minY) / cell);
  // Counting sort of the nodes by cell.
  const start = new Int32Array(cols * rows + 1);
  for (let i = 0; i < n; i++) start[cellOf(i) + 1]++;
  for (let c = 0; c < cols * rows; c++) start[c + 1] += start[c];
  const fill = start.slice();
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[fill[cellOf(i)]++] = i;
  let pairs = 0;
  for (let i = 0; i < n; i++) {
    const cx = Math.floor((x[i] - minX) / cell);
    const cy = Math.floor((y[i] - minY) / cell);
    for (let gy = Math.max(0, cy - 1); gy <= Math.min(rows - 1, cy + 1); gy++) {
      for (let gx = Math.max(0, cx - 1); gx <= Math.min(cols - 1, cx + 1); gx++) {
        const c = gx + cols * gy;
        for (let k = start[c]; k < start[c + 1]; k++) {
          const j = order[k];
          if (j <= i) continue;
          const dx = x[i] - x[j];
          const dy = y[i] - y[j];
          const reach = r[i] + r[j];
          if (dx * dx + dy * dy < reach * reach) pairs++;
        }
      }
    }
  }
  return pairs;
}

/** The same count by testing every pair: the check of {@link countOverlaps}. */
export function countOverlapsBruteForce(x: Float64Array, y: Float64Array, r: Float64Array): number {
  let pairs = 0;
  for (let i = 0; i < r.length; i++) {
    for (let j = i + 1; j < r.length; j++) {
      const dx = x[i] - x[j];
      const dy = y[i] - y[j];
      const reach = r[i] + r[j];
      if (dx * dx + dy * dy < reach * reach) pairs++;
    }
  }
  return pairs;
}
