/**
 * The kernels' rows of two builds of the library in one process: `node bench/compare-builds.mjs <dist A> <dist B>
 * [points]`, each dist a built `dist/esm` folder (for example of an older commit checked out with `git worktree add`
 * and built with `npm run build`). Each row runs on A and B in turn, the order swapped every round, 9 rounds, the
 * first dropped, medians; the table gives B / A. For "no speed lost" checks, on a quiet machine: a loaded one moves
 * these ratios by a third either way from run to run. Where Linux tells a thread's own CPU time
 * (/proc/thread-self/schedstat), that is what is timed, not the wall clock: a round the scheduler gives to another
 * job then costs nothing, which keeps the ratios of A against itself within about 5% at a load of 5 on 2 cores
 * (the wall clock: 20 to 35%). The cache and memory bandwidth other jobs take still count: the build and withinMany
 * rows, which stream memory, moved by up to 10% between runs of two byte-identical kernels at a load of 4 to 5 (2-core
 * AMD EPYC VM, 2026-12-02), and the row run second was not always the one favoured. Run it both ways round (A B, then
 * B A) and more than once before calling a difference real.
 *
 * The rows are in bench/compare-rows.mjs (one instance per build, as it explains), among them withinInto and
 * countWithin per place on the 135,233 places as lon/lat (a hashed grid).
 *
 * Environment: ROWS, a regular expression picking rows by name; ROUNDS (default 9); JS=1 times the JavaScript path
 * (setKernelMode('javascript') on both builds); CLOCK=wall times the wall clock even where the thread's CPU time is
 * told (on this VM that count moves in steps of 4 ms: too coarse for rows of tens of milliseconds).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [distA, distB] = process.argv.slice(2, 4);
if (distA === undefined || distB === undefined) {
  console.error('usage: node bench/compare-builds.mjs <dist/esm of A> <dist/esm of B> [points]');
  process.exit(2);
}
/** Milliseconds of CPU time this thread has run, or the wall clock where the system does not say. */
const clock = (() => {
  if (process.env.CLOCK === 'wall') return { now: () => performance.now(), what: 'wall clock' };
  try {
    const read = () => Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6;
    if (Number.isFinite(read())) return { now: read, what: 'CPU time of the main thread' };
  } catch {}
  return { now: () => performance.now(), what: 'wall clock' };
})();
const load = (dir) => import(pathToFileURL(resolve(dir, 'index.js')).href);
const old = await load(distA);
const now = await load(distB);
function rand(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}
const n = Number(process.argv[4] ?? 2e5);
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const r2 = rand(1);
const pos2 = new Float64Array(2 * n);
const side = Math.sqrt(n);
for (let i = 0; i < 2 * n; i++) pos2[i] = r2() * side;
const r3 = rand(2);
const pos3 = new Float64Array(3 * n);
const side3 = Math.cbrt(n);
for (let i = 0; i < 3 * n; i++) pos3[i] = r3() * side3;
const rad2 = Math.sqrt(20 / Math.PI),
  rad3 = Math.cbrt((3 * 20) / (4 * Math.PI));
if (process.env.JS) {
  old.setKernelMode('javascript');
  now.setKernelMode('javascript');
}
// Each build's rows from its own instance of compare-rows.mjs (that file says why).
const rowsOf = (build) => import(`./compare-rows.mjs?build=${build}`);
const rowsA = await rowsOf('A');
const rowsB = await rowsOf('B');
const data = { n, pos2, pos3, rad2, rad3 };
const A = rowsA.rows(old, data),
  B = rowsB.rows(now, data);
const names = Object.keys(A).filter((k) => process.env.ROWS === undefined || new RegExp(process.env.ROWS).test(k));
const ta = {},
  tb = {};
for (const k of names) {
  ta[k] = [];
  tb[k] = [];
}
const med = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s[s.length >> 1];
};
for (let round = 0; round < ROUNDS; round++)
  for (const k of names) {
    for (const [rowset, t] of round % 2
      ? [
          [A, ta],
          [B, tb],
        ]
      : [
          [B, tb],
          [A, ta],
        ]) {
      const s = clock.now();
      rowset[k]();
      if (round > 0) t[k].push(clock.now() - s);
    }
  }
console.log(
  `| row (${n} points, ${process.env.JS ? 'JavaScript path' : 'kernels'}; ${clock.what}) | A ms | B ms | B / A |`,
);
console.log('| --- | --- | --- | --- |');
for (const k of names)
  console.log(
    `| ${k} | ${med(ta[k]).toFixed(2)} | ${med(tb[k]).toFixed(2)} | ${(med(tb[k]) / med(ta[k])).toFixed(2)} |`,
  );
console.log('sink', rowsA.sink + rowsB.sink);
