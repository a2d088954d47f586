/**
 * The kernels at the distance rule's extremes (decision 2): a radius or weld
 * tolerance that is not ordinary (src/core/distance.ts: its square
 * overflows or is below 2^-896, 0 and Infinity included) must take the
 * JavaScript path's cold search, since the kernels test in plain float64.
 * Under mode 'wasm' every batch path and query answers exactly what mode
 * 'javascript' answers, at extreme coordinates and radii, and what the exact
 * oracle says; the decision's own examples are spelled out, each of which a
 * kernel without that check answers wrongly (0 and 1e306 within 1e300,
 * points 1e-200 apart within radius 0).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D, setKernelMode, weld } from '../../src/index.js';
import { ruleWithin } from '../support/exact-distance.js';
import { EDGE_RADII, extremeCoordinates, extremeRadius } from '../support/extreme-numbers.js';

afterEach(() => setKernelMode('auto'));

type Grid = PointGrid2D | PointGrid3D;

function build(d: 2 | 3, positions: Float64Array, cellSize: number, maxDenseCells?: number): Grid {
  return d === 2
    ? new PointGrid2D(positions, { cellSize, maxDenseCells })
    : new PointGrid3D(positions, { cellSize, maxDenseCells });
}

/** Every answer of the batch paths and queries at `radius`, in order, under `mode`. */
function answers(mode: 'wasm' | 'javascript', grid: Grid, radius: number, queries: number[][]) {
  setKernelMode(mode);
  const visits: number[] = [];
  grid.forEachPair(radius, (i, j) => visits.push(i, j));
  const rows = grid.neighbors(radius);
  const within = queries.map((q) =>
    grid instanceof PointGrid2D ? grid.within(q[0], q[1], radius) : grid.within(q[0], q[1], q[2], radius),
  );
  const flat = Float64Array.from(queries.flat());
  const many = grid.withinMany(flat, radius);
  return {
    pairs: Array.from(grid.pairs(radius)),
    halves: [0, 1].map((part) => Array.from(grid.pairs(radius, { part, parts: 2 }))),
    visits,
    rows: [Array.from(rows.offsets), Array.from(rows.indices)],
    within,
    many: [Array.from(many.offsets), Array.from(many.indices)],
  };
}

/** The points as stored, or undefined where an axis's extent overflows (the grid refuses those). */
function points(flat: number[], d: number): number[][] | undefined {
  const p = Array.from({ length: flat.length / d }, (_, i) => flat.slice(i * d, i * d + d));
  for (let a = 0; a < d; a++) {
    const axis = p.map((q) => q[a]);
    if (axis.length > 0 && Math.max(...axis) - Math.min(...axis) === Number.POSITIVE_INFINITY) return undefined;
  }
  return p;
}

for (const d of [2, 3] as const) {
  const seed = 3270 + d;
  describe(`PointGrid${d}D at extreme radii: the kernels leave them to the JavaScript path`, () => {
    it(`answers as the JavaScript path and the exact rule under mode 'wasm' (seed ${seed})`, () => {
      const scene = fc.record({
        flat: extremeCoordinates(d, fc.integer({ min: 0, max: 10 })),
        cellSize: fc.constantFrom(1e-300, 1e-150, 1, 0.3, 1e200),
        radius: fc.oneof(extremeRadius(), fc.constantFrom(...EDGE_RADII)),
        hashed: fc.boolean(),
        queries: extremeCoordinates(d, fc.integer({ min: 1, max: 3 })),
      });
      fc.assert(
        fc.property(scene, (s) => {
          const p = points(s.flat, d);
          if (p === undefined) return;
          const grid = build(d, Float64Array.from(s.flat), s.cellSize, s.hashed ? 0 : undefined);
          const queries = Array.from({ length: s.queries.length / d }, (_, i) => s.queries.slice(i * d, i * d + d));
          const wasm = answers('wasm', grid, s.radius, queries);
          expect(wasm).toEqual(answers('javascript', grid, s.radius, queries));
          // And the rule itself, pair by pair (the oracle is exact: BigInt where float64 is not the rule).
          const expected: number[] = [];
          for (let i = 0; i < p.length; i++)
            for (let j = i + 1; j < p.length; j++) if (ruleWithin(p[i], p[j], s.radius)) expected.push(i, j);
          const got: number[][] = [];
          for (let k = 0; k < wasm.pairs.length; k += 2) got.push([wasm.pairs[k], wasm.pairs[k + 1]]);
          got.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
          expect(got.flat()).toEqual(expected);
        }),
        { seed, numRuns: 150 },
      );
    });
  });
}

describe("decision 2's examples under mode 'wasm'", () => {
  it('0 and 1e306 are not within 1e300 of the origin; points 1e-200 apart are not within radius 0', () => {
    setKernelMode('wasm');
    const far = new PointGrid2D(Float64Array.of(0, 0, 1e306, 0), { cellSize: 1e300 });
    expect(far.within(0, 0, 1e300)).toEqual([0]);
    expect(Array.from(far.pairs(1e300))).toEqual([]);
    expect(Array.from(far.withinMany(Float64Array.of(0, 0), 1e300).indices)).toEqual([0]);
    const near = new PointGrid3D(Float64Array.of(1, 1, 1, 1 + 2 ** -52, 1, 1, 0, 0, 0, 1e-200, 0, 0), {
      cellSize: 1,
    });
    expect(Array.from(near.pairs(0))).toEqual([]);
    expect(near.neighbors(0).indices.length).toBe(0);
    expect(near.within(0, 0, 0, 0)).toEqual([2]);
    expect(Array.from(near.withinMany(Float64Array.of(0, 0, 0), 0).indices)).toEqual([2]);
    // At an ordinary radius the kernels run, and agree.
    expect(Array.from(near.pairs(1e-100))).toEqual([2, 3]);
  });

  it('weld: tolerances too small for float64 squares weld by the rule, as the JavaScript path does', () => {
    // 1e-165 apart: float64 squares that to 0, as it does a tolerance of 1e-170; the rule keeps them apart.
    const positions = Float64Array.of(0, 0, 0, 1e-165, 0, 0, 5, 5, 5, 5, 5, 5 + 1e-175);
    for (const tolerance of [1e-170, 1e-160, 0, 1e-300, 1e300, 2 ** -440, 1e-135]) {
      setKernelMode('wasm');
      const wasm = weld(positions, tolerance);
      setKernelMode('javascript');
      const js = weld(positions, tolerance);
      expect(Array.from(wasm.remap)).toEqual(Array.from(js.remap));
      expect(wasm.count).toBe(js.count);
    }
    setKernelMode('wasm');
    expect(Array.from(weld(positions, 1e-170).remap)).toEqual([0, 1, 2, 2]);
  });
});
