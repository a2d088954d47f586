/**
 * Where the time of `rebuild()` + `pairs({ out })` goes, phase by phase, on
 * the sets of workload 1 (1e5 and 1e6 uniform 2D points, about 20
 * neighbours each) and the places as [lon, lat] of workload 2. Not a
 * workload of `npm run bench`: run it by hand, `npx tsx
 * bench/profile-pairs.ts [rounds]`, on a quiet machine, and name the CPU
 * (`lscpu`) with its figures.
 *
 * The phases, each timed on its own on the kernels (the default path), in
 * interleaved rounds, medians:
 * - build: `rebuild()`;
 * - search: the kernels' half-stencil search into a batch that stays in
 *   cache (forEachPair's, drained without a visitor): sorted positions;
 * - pairs({ out }) on the built grid: the same search writing every pair
 *   into the kernels' memory, turned into original indices there
 *   (originalPairs), then copied into `out`;
 * - its two passes alone, over the same numbers: originalPairs on the sorted
 *   positions, and the copy into a kept array (`set`) of that length;
 * - the bench's fingerprint of the result (a loop over every number);
 * - pairs() into a fresh array, where `out` is not given.
 * And beside them the C floor that collects the pairs as pairs() does
 * (collect2: build, original indices written as found, and the same
 * fingerprint), built and run as workload 1 runs it.
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

/** workload 1's fingerprint loop (bench/radius2d.ts pairsFingerprint), without the BigInt at its end. */
function fingerprint(pairs: Uint32Array, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) sum = (sum + Math.imul(i + 1, i + 1)) | 0;
  for (let k = 0; k < pairs.length; k += 2) sum = (sum + 2 * Math.imul(pairs[k] + 1, pairs[k + 1] + 1)) | 0;
  return sum;
}

let sink = 0;

function profile(name: string, pos: Float64Array, radius: number): void {
  setKernelMode('auto');
  const grid = new PointGrid2D(pos, { cellSize: radius });
  const g = (grid as unknown as { grid: Grid2D }).grid;
  const k = kernels();
  if (k === undefined) throw new Error('the kernels are off: nothing to profile');
  const n = g.points;
  const slice = { cellFrom: 0, cellTo: g.cellTotal, pointFrom: 0, pointTo: n };
  const batch = { buffer: new Uint32Array(0), length: 0 };
  // The sorted positions of every pair, in the search's order, for originalPairs' own timing (not timed).
  const sorted: number[] = [];
  visitPairs(g, radius, slice, batch, (_g: Grid2D, b: { buffer: Uint32Array; length: number }) => {
    for (let q = 0; q < b.length; q++) sorted.push(b.buffer[q]);
    b.length = 0;
  });
  // (Typed once: set() from a typed array is a copy, from a plain one a conversion per element, every round.)
  const sortedPositions = Uint32Array.from(sorted);
  const length = sortedPositions.length;
  const drain = (_g: Grid2D, b: { length: number }) => {
    sink += b.length;
    b.length = 0;
  };
  let out = grid.pairs(radius);
  const kept = new Uint32Array(length);
  const phases: Record<string, number[]> = {
    build: [],
    search: [],
    'pairs out': [],
    original: [],
    copy: [],
    fingerprint: [],
    'pairs fresh': [],
    'rebuild + pairs out': [],
  };
  for (let round = -1; round < rounds; round++) {
    const t: Record<string, number> = {};
    t.build = time(() => grid.rebuild());
    t.search = time(() => visitPairs(g, radius, slice, batch, drain));
    t['pairs out'] = time(() => {
      out = grid.pairs(radius, { out });
    });
    // originalPairs over the sorted positions, written past everything else in the kernels' memory.
    const layout = copyIn(k, g);
    if (layout === undefined) throw new Error('the kernels hold no copy of the grid');
    const at = Math.ceil(k.memory.buffer.byteLength / 8) * 8;
    if (!k.reserve(at + 4 * length)) throw new Error('the kernels cannot grow');
    k.u32.set(sortedPositions, at >> 2);
    t.original = time(() => k.exports.originalPairs(layout.sortedIndex, at, length, n));
    t.copy = time(() => kept.set(k.u32.subarray(at >> 2, (at >> 2) + length)));
    t.fingerprint = time(() => {
      sink += fingerprint(out, n);
    });
    t['pairs fresh'] = time(() => {
      out = grid.pairs(radius);
    });
    t['rebuild + pairs out'] = time(() => {
      grid.rebuild();
      out = grid.pairs(radius, { out });
      sink += fingerprint(out, n);
    });
    if (round >= 0) for (const key of Object.keys(phases)) phases[key].push(t[key]);
  }
  const m = Object.fromEntries(Object.entries(phases).map(([key, v]) => [key, median(v)]));
  const file = writePoints(`pairs-${name.replace(/\W+/g, '-')}`, pos);
  const collect = median(floor('collect2', file, radius, rounds));
  console.log(`\n### ${name}: ${n} points, r = ${radius}, ${length / 2} pairs`);
  console.log('| phase | median ms | ns per pair |');
  console.log('| --- | --- | --- |');
  const row = (label: string, ms: number) =>
    console.log(`| ${label} | ${ms.toFixed(1)} | ${((ms * 2e6) / length).toFixed(2)} |`);
  row('build (kernels)', m.build);
  row('search into a batch in cache, sorted positions', m.search);
  row('pairs({ out }) on the built grid', m['pairs out']);
  row('  of which originalPairs, alone', m.original);
  row('  of which the copy into out, alone', m.copy);
  row(
    '  rest: the search writing every pair to memory (pairs out less search, originalPairs, copy)',
    m['pairs out'] - m.search - m.original - m.copy,
  );
  row('pairs() into a fresh array on the built grid', m['pairs fresh']);
  row('fingerprint of the result', m.fingerprint);
  row('rebuild + pairs({ out }) + fingerprint (as workload 1 times it)', m['rebuild + pairs out']);
  if (Number.isFinite(collect)) row('C floor, build + pairs collected + fingerprint (collect2)', collect);
  console.log(`(sink ${sink})`);
}

const which = process.argv[3] ?? 'all';
if (which === 'all' || which === '1e5') profile('1e5 uniform', uniform2D(1e5, 1), radiusFor2D(20));
if (which === 'all' || which === '1e6') profile('1e6 uniform', uniform2D(1e6, 1), radiusFor2D(20));
if (which === 'all' || which === 'places') profile('places lon/lat', citiesLonLat(), 0.25);
