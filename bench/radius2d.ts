/**
 * Workloads 1 and 2: every point's neighbours within a fixed radius in 2D,
 * on uniform points (about 20 neighbours each) and on clustered points with
 * a heavy tail. Each run builds the index and queries every point; the time
 * covers both.
 *
 * @module
 */
import { PointGrid2D } from '../src/index.js';
import { clustered2D, radiusFor2D, sizeLabel, uniform2D } from './data.js';
import { type Contender, measure, timingTable } from './harness.js';
import { cFloor, writePoints } from './peers/cfloor.js';
import { d3QuadtreeVisit, flatbushSearch, kdbushWithin, kdbushWithinInto, rbushSearch } from './peers/points2d.js';
import { probeThing, thingNote } from './peers/thing.js';

const OURS = 'PointGrid2D.withinInto';

function fingerprint(count: number, sum: number): number {
  return count * 4294967296 + (sum >>> 0);
}

/** PointGrid2D `within`, reusing one output array across queries. */
function gridWithin(pos: Float64Array, radius: number): number {
  const grid = new PointGrid2D(pos, { cellSize: radius });
  const n = pos.length / 2;
  const out: number[] = [];
  let count = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    grid.within(pos[2 * i], pos[2 * i + 1], radius, out);
    for (let k = 0; k < out.length; k++) sum = (sum + Math.imul(i + 1, out[k] + 1)) | 0;
    count += out.length;
  }
  return fingerprint(count, sum);
}

/** PointGrid2D `withinInto` with one preallocated Uint32Array. */
function gridWithinInto(pos: Float64Array, radius: number): number {
  const grid = new PointGrid2D(pos, { cellSize: radius });
  const n = pos.length / 2;
  const out = new Uint32Array(n);
  let count = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const found = grid.withinInto(pos[2 * i], pos[2 * i + 1], radius, out);
    for (let k = 0; k < found; k++) sum = (sum + Math.imul(i + 1, out[k] + 1)) | 0;
    count += found;
  }
  return fingerprint(count, sum);
}

/** Runs workload 1 (`uniform`) or 2 (`clustered`) and returns its markdown section. */
export function radius2d(kind: 'uniform' | 'clustered', quick: boolean): string {
  const sizes = quick ? [1e4, 1e5] : [1e5, 1e6];
  const radius = radiusFor2D(20);
  const title =
    kind === 'uniform'
      ? '## 1. 2D fixed-radius search, uniform points'
      : '## 2. 2D fixed-radius search, clustered points (gaussian blobs + heavy tail)';
  const parts = [
    title,
    `Every point's neighbours within r = ${radius.toFixed(3)} (unit density, about 20 neighbours per point in uniform data), itself included; build + all queries per run. PointGrid2D cellSize = r.`,
  ];
  for (const n of sizes) {
    const pos = kind === 'uniform' ? uniform2D(n, 1) : clustered2D(n, 2);
    const contenders: Contender[] = [
      { name: OURS, run: () => gridWithinInto(pos, radius) },
      { name: 'PointGrid2D.within', run: () => gridWithin(pos, radius) },
      { name: 'kdbush.withinInto', run: () => kdbushWithinInto(pos, radius) },
      { name: 'kdbush.within', run: () => kdbushWithin(pos, radius) },
      { name: 'flatbush search + filter', run: () => flatbushSearch(pos, radius) },
      { name: 'rbush search + filter', run: () => rbushSearch(pos, radius) },
    ];
    if (n <= 1e5) contenders.push({ name: 'd3-quadtree visit', run: () => d3QuadtreeVisit(pos, radius) });
    const floor = cFloor('within2', writePoints(`${kind}2d-${n}`, pos), radius);
    if (floor) contenders.push(floor);
    console.log(`  ${kind} ${sizeLabel(n)}: ${contenders.length} contenders`);
    const timings = measure(`${kind} ${sizeLabel(n)}`, contenders, { reps: 5, slowMs: 1500, slowReps: 3 });
    const results = timings[0].answer / 4294967296;
    parts.push(
      `### ${sizeLabel(n)} points (${(Math.floor(results) / n).toFixed(1)} results per query on average)`,
      timingTable(timings, OURS),
    );
  }
  parts.push(
    `Not timed: ${thingNote('@thi.ng/geom-accel HashGrid2', probeThing(kind === 'uniform' ? uniform2D(2000, 1) : clustered2D(2000, 2), 2, radius, 2000))}`,
  );
  if (sizes[1] > 1e5) parts.push('d3-quadtree runs at 1e5 only.');
  return parts.join('\n\n');
}
