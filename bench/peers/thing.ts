/**
 * @thi.ng/geom-accel's HashGrid2 / HashGrid3 (the counting-sort hash of
 * Müller's "Blazing Fast Neighbor Search", see ten-minute-physics.ts, as
 * that package says). In the installed version `hashPos` passes two or three
 * numbers to `hash2` / `hash3`, which read `v[0]`, `v[1]` of their single
 * vector argument: every point hashes to bucket 0, every query scans all
 * points once per cell it covers, so answers hold duplicates and cost O(n)
 * per query. It cannot be timed on the workloads (O(n^2), wrong answers);
 * this probe shows the defect on a small sample so the tables can say why.
 *
 * @module
 */
import { HashGrid2, HashGrid3 } from '@thi.ng/geom-accel';

/** Result of comparing thi.ng's answers with brute force on a sample. */
export interface ThingProbe {
  sample: number;
  expected: number;
  reported: number;
  bucketsUsed: number;
}

/**
 * Indexes the first `sample` points of `pos` (dimension 2 or 3) in a thi.ng
 * hash grid with cell size `radius`, asks every point for its neighbours
 * within `radius` and counts what comes back against brute force.
 */
export function probeThing(pos: Float64Array, dimension: 2 | 3, radius: number, sample: number): ThingProbe {
  const n = Math.min(sample, pos.length / dimension);
  const points: number[][] = [];
  for (let i = 0; i < n; i++) points.push(Array.from(pos.subarray(i * dimension, (i + 1) * dimension)));
  const grid =
    dimension === 2
      ? new HashGrid2<number[]>((p) => p, radius, n, points)
      : new HashGrid3<number[]>((p) => p, radius, n, points);
  const r2 = radius * radius;
  const distance2 = (a: ArrayLike<number>, b: ArrayLike<number>) => {
    let d = 0;
    for (let k = 0; k < dimension; k++) d += (a[k] - b[k]) ** 2;
    return d;
  };
  let reported = 0;
  let expected = 0;
  for (let i = 0; i < n; i++) {
    const target = points[i];
    // A minimal INeighborhood: thi.ng calls consider() for each candidate.
    const hood = {
      target,
      radius,
      consider(p: ArrayLike<number>) {
        const d = distance2(target, p);
        if (d <= r2) reported++;
        return d;
      },
      includesPosition: (p: ArrayLike<number>) => distance2(target, p) <= r2,
    };
    grid.queryNeighborhood(hood as never);
    for (let j = 0; j < n; j++) if (distance2(target, points[j]) <= r2) expected++;
  }
  let bucketsUsed = 0;
  for (let b = 0; b < grid.tableSize; b++) if (grid.indices[b + 1] > grid.indices[b]) bucketsUsed++;
  return { sample: n, expected, reported, bucketsUsed };
}

/** One line for a workload's notes. */
export function thingNote(name: string, probe: ThingProbe): string {
  return `${name}: not timed. On the first ${probe.sample} points it reports ${probe.reported} neighbours where brute force finds ${probe.expected}, and all points share ${probe.bucketsUsed} of its buckets (hashPos passes scalars to hash2/hash3, so every point lands in bucket 0): answers hold duplicates and each query scans every point.`;
}
