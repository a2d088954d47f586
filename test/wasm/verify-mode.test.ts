/**
 * setKernelMode('verify'): every call the kernels answer is answered in
 * JavaScript too, and a difference throws naming the call. Shown both ways:
 * on good kernels every operation gives the JavaScript answer, and with the
 * kernels' copy of a grid damaged by hand (as a kernel bug would leave it)
 * each query and search throws instead of returning the wrong answer.
 */
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { activeKernels, PointGrid2D, PointGrid3D, setKernelMode, weld } from '../../src/index.js';
import { kernels } from '../../src/wasm/kernels.js';
import { KERNEL_BASE } from '../../src/wasm/records.js';
import { PointGridWorkers } from '../../src/workers/index.js';

afterEach(() => setKernelMode('auto'));

const pool = new PointGridWorkers({ threads: 2 });
afterAll(() => pool.close());

type Grid = PointGrid2D | PointGrid3D;

/** Every answer of the grid to a fixed set of calls, as plain arrays. */
function answers(grid: Grid, d: 2 | 3, radius: number): unknown[] {
  const q = Array.from({ length: d }, () => 2.5);
  const visits: number[] = [];
  grid.forEachPair(radius, (i, j, d2) => visits.push(i, j, d2));
  const rows = grid.neighbors(radius);
  const many = grid.withinMany([...q, ...q.map((v) => v + 1)], radius);
  const within = grid instanceof PointGrid2D ? grid.within(q[0], q[1], radius) : grid.within(q[0], q[1], q[2], radius);
  return [
    [...grid.pairs(radius)],
    visits,
    [...rows.offsets],
    [...rows.indices],
    [...many.offsets],
    [...many.indices],
    within,
  ];
}

const cloud = (d: 2 | 3) =>
  fc.float64Array({ minLength: d * 2, maxLength: d * 300, min: -5, max: 5, noNaN: true, noDefaultInfinity: true });

describe("mode 'verify' on the kernels as they are", () => {
  for (const d of [2, 3] as const)
    it(`${d}D: every query, search, build and weld gives the JavaScript path's answer (seed 3901)`, () => {
      fc.assert(
        fc.property(cloud(d), fc.double({ min: 0.05, max: 3, noNaN: true }), fc.boolean(), (raw, radius, hashed) => {
          const positions = raw.subarray(0, raw.length - (raw.length % d));
          const options = { cellSize: 1, maxDenseCells: hashed ? 0 : undefined };
          setKernelMode('javascript');
          const reference = d === 2 ? new PointGrid2D(positions, options) : new PointGrid3D(positions, options);
          const want = answers(reference, d, radius);
          const welded = weld(positions, radius / 4, { dimension: d }).remap;
          setKernelMode('verify');
          expect(activeKernels()).toBe('wasm');
          const grid = d === 2 ? new PointGrid2D(positions, options) : new PointGrid3D(positions, options);
          expect(answers(grid, d, radius)).toEqual(want);
          grid.rebuild();
          expect(answers(grid, d, radius)).toEqual(want);
          expect(weld(positions, radius / 4, { dimension: d }).remap).toEqual(welded);
          expect(weld(positions, 0, { dimension: d }).count).toBeGreaterThan(0);
        }),
        { seed: 3901 + d, numRuns: 25 },
      );
    });

  it("the pool's threads run in mode 'verify' too, in shared and copy mode, and answer as the grid does", async () => {
    const n = 3000;
    const positions = Float64Array.from({ length: 3 * n }, (_, k) => ((k * 7919) % 1009) / 50);
    setKernelMode('javascript');
    const reference = new PointGrid3D(positions, { cellSize: 1 });
    const pairs = [...reference.pairs(1)];
    const rows = reference.neighbors(1);
    setKernelMode('verify');
    for (const shared of [true, false]) {
      const grid = new PointGrid3D(positions, { cellSize: 1, shared: shared && pool.shared });
      expect([...(await pool.pairs(grid, 1))]).toEqual(pairs);
      const got = await pool.neighbors(grid, 1);
      expect([...got.indices]).toEqual([...rows.indices]);
    }
  });
});

/** Damages the kernels' copy of the grid they hold (its coordinates, from KERNEL_BASE), as a kernel bug might. */
function damageMirror(points: number): void {
  const k = kernels();
  if (k === undefined) throw new Error('the kernels are off');
  k.f64.fill(1e6, KERNEL_BASE / 8, KERNEL_BASE / 8 + points);
}

describe("mode 'verify' finds a wrong answer of the kernels and throws instead of returning it", () => {
  let state = 4242;
  const positions = Float64Array.from({ length: 2 * 400 }, () => {
    state = (state * 48271) % 2147483647;
    return (state / 2147483647) * 10;
  });

  const calls: [string, (grid: PointGrid2D) => unknown][] = [
    ['within', (grid) => grid.within(5, 5, 2)],
    ['withinInto', (grid) => grid.withinInto(5, 5, 2, new Uint32Array(400))],
    ['countWithin', (grid) => grid.countWithin(5, 5, 2)],
    ['withinMany', (grid) => grid.withinMany([5, 5, 3, 3], 2)],
    ['pairs', (grid) => grid.pairs(1)],
    ['neighbors', (grid) => grid.neighbors(1)],
    ['forEachPair', (grid) => grid.forEachPair(1, () => {})],
  ];
  for (const [name, call] of calls)
    it(`${name}: an Error naming the call and where the answers part, and the JavaScript answer without the mode`, () => {
      setKernelMode('verify');
      const grid = new PointGrid2D(positions, { cellSize: 1 });
      // Sets the kernels' query state up for this grid, its copy in their memory (a query copies a grid in once
      // enough queries came since the last copy: see within in src/wasm/within-kernels.ts).
      for (let k = 0; k < 100; k++) call(grid);
      damageMirror(400);
      expect(() => call(grid)).toThrow(
        /kernel mode 'verify': .* differs between the WebAssembly kernels and the JavaScript path/,
      );
      // In 'auto' the damaged copy would be answered from; the JavaScript path is right.
      setKernelMode('javascript');
      expect(() => call(grid)).not.toThrow();
    });
});

describe("mode 'verify' finds a wrong build of the kernels", () => {
  for (const [layout, maxDenseCells] of [
    ['dense', undefined],
    ['hashed', 0],
  ] as const)
    it(`${layout}: a build whose indices the kernels got wrong throws, naming the build`, () => {
      const k = kernels();
      if (k === undefined) throw new Error('the kernels are off');
      let state = 99;
      const positions = Float64Array.from({ length: 2 * 300 }, () => {
        state = (state * 48271) % 2147483647;
        return (state / 2147483647) * 10;
      });
      // The kernels' scatter, then one sorted index changed: a kernel build that differs from the JavaScript one.
      const exports = k.exports;
      const scatter = exports.scatter64;
      (k as { exports: typeof exports }).exports = {
        ...exports,
        scatter64: (...args: Parameters<typeof scatter>) => {
          scatter(...args);
          const at = args[6] >> 2;
          k.u32[at] = (k.u32[at] + 1) % args[1];
        },
      };
      try {
        setKernelMode('verify');
        expect(() => new PointGrid2D(positions, { cellSize: 1, maxDenseCells })).toThrow(
          /kernel mode 'verify': PointGrid2D build differs between the WebAssembly kernels and the JavaScript path/,
        );
        // Without the mode, the wrong build is what the grid gets (which is why the mode is there).
        setKernelMode('auto');
        expect(() => new PointGrid2D(positions, { cellSize: 1, maxDenseCells }).validate()).toThrow(/invariant/);
      } finally {
        (k as { exports: typeof exports }).exports = exports;
      }
      expect(() => new PointGrid2D(positions, { cellSize: 1, maxDenseCells }).validate()).not.toThrow();
    });
});
