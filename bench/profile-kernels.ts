/**
 * Where the time of the hashed layout goes at 1e5 clustered points (workload
 * 2's set), on the WebAssembly kernels, phase by phase: the build, then each
 * search on the built grid, against kdbush's within. Medians of 15 runs in
 * one process. Not a workload of `npm run bench`: run it by hand with
 * `npx tsx bench/profile-kernels.ts [points]` to see what dominates.
 *
 * @module
 */
import { PointGrid2D, setKernelMode } from '../src/index.js';
import { cities2D, clustered2D, radiusFor2D, uniform2D } from './data.js';
import { consume, median } from './harness.js';
import { kdbushWithin, kdbushWithinInto } from './peers/points2d.js';

const n = Number(process.argv[2] ?? 1e5);
const pos = clustered2D(n, 2);
const radius = radiusFor2D(20);

function time(run: () => unknown, reps = 15): number {
  const ms: number[] = [];
  for (let k = 0; k < reps; k++) {
    const start = performance.now();
    const result = run();
    consume(typeof result === 'number' ? result : 0);
    ms.push(performance.now() - start);
  }
  return median(ms);
}

for (const path of ['wasm', 'javascript'] as const) {
  setKernelMode(path);
  const grid = new PointGrid2D(pos, { cellSize: radius });
  const rows: [string, number][] = [
    ['new PointGrid2D (hashed build)', time(() => new PointGrid2D(pos, { cellSize: radius }))],
    ['rebuild (grid reused)', time(() => grid.rebuild(pos))],
    ['pairs on the built grid', time(() => grid.pairs(radius))],
    ['neighbors on the built grid', time(() => grid.neighbors(radius))],
    ['forEachPair on the built grid', time(() => grid.forEachPair(radius, () => {}))],
    ['withinMany on the built grid', time(() => grid.withinMany(pos, radius))],
  ];
  console.log(`${path}: cells ${(grid.data.byteLength / 1e6).toFixed(1)} MB grid`);
  for (const [name, ms] of rows) console.log(`  ${name}: ${ms.toFixed(2)} ms`);
}
setKernelMode('auto');
console.log(`kdbush.within: ${time(() => kdbushWithin(pos, radius), 7).toFixed(1)} ms`);
console.log(`kdbush.withinInto: ${time(() => kdbushWithinInto(pos, radius), 7).toFixed(1)} ms`);

// pairs() at 1e6 uniform points (workload 1's set): the search against the fresh memory its result takes.
{
  const m = 1e6;
  const uniform = uniform2D(m, 1);
  setKernelMode('wasm');
  const grid = new PointGrid2D(uniform, { cellSize: radius });
  const length = grid.pairs(radius).length;
  const reused = new Uint32Array(length);
  const source = new Uint32Array(length).fill(7);
  console.log(`uniform ${m}: ${length / 2} pairs`);
  console.log(`  rebuild (grid reused): ${time(() => grid.rebuild(uniform), 9).toFixed(1)} ms`);
  console.log(`  pairs on the built grid: ${time(() => grid.pairs(radius).length, 9).toFixed(1)} ms`);
  console.log(
    `  a fresh Uint32Array of that length, written: ${time(() => new Uint32Array(length).fill(1).length, 9).toFixed(1)} ms`,
  );
  console.log(
    `  copying it into a reused array: ${time(() => {
      reused.set(source);
      return reused[0];
    }, 9).toFixed(1)} ms`,
  );
  setKernelMode('auto');
}

// Where the data lives: a search of the grid the kernels' memory holds against one copied in first (two grids
// searched in turn, so every call copies its grid in), at 1e6 uniform points; and within, per query, on one grid
// against two grids queried in turn (each query then copies a grid in: the worst case of a copy per call).
{
  const m = 1e6;
  setKernelMode('wasm');
  const a = new PointGrid2D(uniform2D(m, 1), { cellSize: radius });
  const b = new PointGrid2D(uniform2D(m, 3), { cellSize: radius });
  const oneGrid = time(() => a.neighbors(radius).indices.length, 9);
  let turn = 0;
  const inTurn = time(() => (turn++ % 2 === 0 ? a : b).neighbors(radius).indices.length, 9);
  console.log(
    `neighbors at ${m}: grid in kernel memory ${oneGrid.toFixed(1)} ms, copied in per call ${inTurn.toFixed(1)} ms`,
  );
  const small = 1e5;
  const c = new PointGrid2D(uniform2D(small, 1), { cellSize: radius });
  const d = new PointGrid2D(uniform2D(small, 3), { cellSize: radius });
  const out = new Uint32Array(small);
  const queries = 1000;
  const one = time(() => {
    let found = 0;
    for (let q = 0; q < queries; q++) found += c.withinInto(q % 300, q % 300, radius, out);
    return found;
  }, 9);
  const two = time(() => {
    let found = 0;
    for (let q = 0; q < queries; q++) found += (q % 2 === 0 ? c : d).withinInto(q % 300, q % 300, radius, out);
    return found;
  }, 9);
  console.log(
    `${queries} withinInto at ${small}: one grid ${one.toFixed(2)} ms, two grids in turn ${two.toFixed(2)} ms`,
  );
  setKernelMode('auto');
}

// The hashed layout against the dense one on the same points (maxDenseCells 0 forces hashed; a dense grid needs a
// bounding box of at most 2^30 cells, which the clustered set's heavy tail exceeds): what a better hashed layout
// (two levels, or cells along a space-filling curve) could gain at most, since the dense layout reads a stencil row
// of cells as one run with no lookup at all. Build (rebuild of a reused grid), pairs() written over its last result,
// and forEachPair with an empty visitor, on the kernels.
{
  setKernelMode('wasm');
  const sets: [string, Float64Array, number][] = [
    ['uniform 1e5', uniform2D(1e5, 1), radius],
    ['real places', cities2D(), 30],
    ['uniform 1e6', uniform2D(1e6, 1), radius],
  ];
  for (const [name, points, r] of sets) {
    const row: string[] = [];
    for (const layout of ['dense', 'hashed'] as const) {
      const grid = new PointGrid2D(points, { cellSize: r, maxDenseCells: layout === 'dense' ? 2 ** 30 : 0 });
      let out = grid.pairs(r);
      const build = time(() => grid.rebuild(points), 9);
      const pairs = time(() => {
        out = grid.pairs(r, { out });
        return out.length;
      }, 9);
      const visit = time(() => grid.forEachPair(r, () => {}), 9);
      row.push(
        `${grid.layout}: rebuild ${build.toFixed(1)}, pairs ${pairs.toFixed(1)}, forEachPair ${visit.toFixed(1)} ms`,
      );
    }
    console.log(`layout, ${name}: ${row.join('; ')}`);
  }
  setKernelMode('auto');
}
