/**
 * What forEachPair's visitor costs on a hashed grid (workload 2's clustered
 * set, 1e5 points by default), on the WebAssembly kernels: the search with
 * an empty visitor, then with the bench's visitor (a count and a checksum
 * per pair) while it is the only function the call site has seen, so V8
 * inlines it, and again after three other visitors have gone through that
 * site, as in `npm run bench`, where the rows take turns and the site sees
 * every row's visitor; against pairs({ out }) with the same loop written
 * inline. Medians of 21 runs on a built grid, in a fresh process (the first
 * visitors decide what V8 inlines). Not a workload of `npm run bench`: run it
 * by hand with `npx tsx bench/profile-visitor.ts [points]`.
 *
 * @module
 */
import { PointGrid2D, setKernelMode } from '../src/index.js';
import { clustered2D, radiusFor2D } from './data.js';
import { consume, median } from './harness.js';

const n = Number(process.argv[2] ?? 1e5);
const pos = clustered2D(n, 2);
const radius = radiusFor2D(20);

function time(run: () => void, reps = 21): number {
  const ms: number[] = [];
  for (let k = 0; k < reps; k++) {
    const start = performance.now();
    run();
    ms.push(performance.now() - start);
  }
  return median(ms);
}

setKernelMode('wasm');
const grid = new PointGrid2D(pos, { cellSize: radius });
let pairs = 0;
let sum = 0;
const visit = (i: number, j: number) => {
  pairs++;
  sum = (sum + 2 * Math.imul(i + 1, j + 1)) | 0;
};
const rows: [string, number][] = [];
rows.push(['forEachPair, the bench visitor, the only one seen (inlined)', time(() => grid.forEachPair(radius, visit))]);
for (let k = 0; k < 3; k++) {
  grid.forEachPair(radius, (i) => consume(i));
  grid.forEachPair(radius, (i, j) => consume(j - i));
  grid.forEachPair(radius, (i, j) => consume(i + j));
}
rows.push(['forEachPair, empty visitor (after others)', time(() => grid.forEachPair(radius, () => {}))]);
rows.push(['forEachPair, the bench visitor after others (not inlined)', time(() => grid.forEachPair(radius, visit))]);
let out = grid.pairs(radius);
rows.push([
  'pairs({ out }) and the same loop inline',
  time(() => {
    out = grid.pairs(radius, { out });
    for (let k = 0; k < out.length; k += 2) {
      pairs++;
      sum = (sum + 2 * Math.imul(out[k] + 1, out[k + 1] + 1)) | 0;
    }
  }),
]);
rows.push(['rebuild (grid reused)', time(() => grid.rebuild(pos))]);
consume(pairs + sum);
console.log(`${n} clustered points, ${out.length / 2} pairs, on a built grid (wasm):`);
for (const [name, ms] of rows) console.log(`  ${name}: ${ms.toFixed(2)} ms`);
