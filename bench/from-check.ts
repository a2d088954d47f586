/**
 * Workload 13: what `PointGrid2D.from(data)` / `PointGrid3D.from(data)` cost
 * against building the grid. `from` treats its buffer as untrusted and checks
 * all of it (the header, then the body in linear time: cell starts, the
 * permutation, every point in its cell, hashed keys and lookup); with
 * `{ check: 'header' }` it checks the header only. The points are the 2D
 * uniform set of workloads 1 and 6 and the 3D jittered lattice of workload 3,
 * dense (the default) and hashed (`maxDenseCells: 0`).
 *
 * @module
 */
import { PointGrid2D, PointGrid3D } from '../src/index.js';
import { jitteredLattice3D, radiusFor2D, sizeLabel, uniform2D } from './data.js';
import { type Contender, fingerprint, measure, timingTable } from './harness.js';

const BUILD = 'new PointGrid (build)';

/** The same answer from every contender: the count and the layout of the grid made. */
function answer(grid: PointGrid2D | PointGrid3D): bigint {
  return fingerprint(grid.count, grid.layout === 'dense' ? 1 : 2);
}

/** Runs workload 13 and returns its markdown section. */
export function fromCheck(quick: boolean): string {
  const sizes = quick ? [1e4, 1e5] : [1e5, 1e6];
  const parts = [
    '## 13. from(data): the check of an untrusted buffer against a build',
    'Each run opens a built grid\'s buffer with `from(data)` (the full check, the default), with `from(data, { check: "header" })`, or builds the grid from the positions. 2D: the uniform points of workload 1 (unit density), cellSize for about 8 neighbours; 3D: the jittered lattice of workload 3, cellSize 2. Hashed rows use `maxDenseCells: 0`. The full check reads every byte of the buffer once, plus a byte of scratch per point and per cell.',
  ];
  // The check's loops serve both dimensions and layouts: let V8 see all four before anything is timed, so
  // the first table does not time its compilation.
  for (let k = 0; k < 20; k++) {
    for (const maxDenseCells of [undefined, 0]) {
      PointGrid2D.from(new PointGrid2D(uniform2D(2000, k), { cellSize: radiusFor2D(8), maxDenseCells }).data);
      PointGrid3D.from(new PointGrid3D(jitteredLattice3D(2000, k), { cellSize: 2, maxDenseCells }).data);
    }
  }
  for (const d of [2, 3] as const) {
    for (const n of sizes) {
      const pos = d === 2 ? uniform2D(n, 7) : jitteredLattice3D(n, 3);
      const cellSize = d === 2 ? radiusFor2D(8) : 2;
      for (const maxDenseCells of [undefined, 0]) {
        const options = { cellSize, maxDenseCells };
        const make = () => (d === 2 ? new PointGrid2D(pos, options) : new PointGrid3D(pos, options));
        const open = (data: ArrayBuffer | SharedArrayBuffer, check: 'full' | 'header') =>
          d === 2 ? PointGrid2D.from(data, { check }) : PointGrid3D.from(data, { check });
        const built = make();
        const data = built.data;
        const contenders: Contender[] = [
          { name: BUILD, run: () => answer(make()) },
          { name: 'from(data), full check', run: () => answer(open(data, 'full')) },
          { name: 'from(data, { check: "header" })', run: () => answer(open(data, 'header')) },
        ];
        const layout = built.layout;
        const label = `${d}D ${sizeLabel(n)} ${layout}`;
        console.log(`  ${label}`);
        const timings = measure(`from-check ${label}`, contenders, { reps: 7 });
        parts.push(`### PointGrid${d}D, ${sizeLabel(n)} points, ${layout}`, timingTable(timings, BUILD));
      }
    }
  }
  return parts.join('\n\n');
}
