// spatialhash/workers under the strictest consumer settings, run from the packed tarball in Node: the pool
// must find its worker script in the installed package, and its results must equal the one-thread calls.
import { PointGrid3D } from 'spatialhash';
import { PointGridWorkers, type PointGridWorkersOptions, type PointGridWorkersTimings } from 'spatialhash/workers';

const positions = new Float64Array(3 * 500);
let state = 7;
for (let i = 0; i < positions.length; i++) {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  positions[i] = (state / 2 ** 32) * 5;
}
const grid = new PointGrid3D(positions, { cellSize: 0.5, shared: true });
const options: PointGridWorkersOptions = { threads: 2 };
const pool = new PointGridWorkers(options);
try {
  const lists = await pool.neighbors(grid, 0.5);
  const want = grid.neighbors(0.5);
  const pairs = await pool.pairs(grid, 0.5);
  const wantPairs = grid.pairs(0.5);
  const same = (a: ArrayLike<number>, b: ArrayLike<number>) =>
    a.length === b.length && Array.from(a).every((v, i) => v === b[i]);
  if (!same(lists.offsets, want.offsets) || !same(lists.indices, want.indices) || !same(pairs, wantPairs)) {
    throw new Error('workers consumer: the pool and the grid disagree');
  }
  if (wantPairs.length === 0) throw new Error('workers consumer: no pairs to compare');
  const timings: PointGridWorkersTimings | undefined = pool.lastTimings;
  if (timings?.call !== 'pairs') throw new Error('workers consumer: lastTimings');
} finally {
  pool.close();
}
console.log('workers consumer: ok');
