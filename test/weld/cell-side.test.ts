/**
 * weld's cell side (core/weld-cells.ts): the kernels' weld may take cells
 * wider than 2 * reach (cellHalfSide), which must change nothing but speed.
 * So: welds on the kernels with cells of any side from 2 * reach up, forced
 * through weldCellsForTests, against the JavaScript weld's 2 * reach cells,
 * element for element; then the estimate itself: larger cells for input in
 * mesh order, `reach` for input in no order, dense input and small input, and
 * cells that hold few vertices on average whatever the input, against an
 * exact count of every cell. Seeds in the names.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { cellHalfSide, MAX_MEAN_OCCUPANCY, REACH_SLACK, weldCellsForTests } from '../../src/core/weld-cells.js';
import { activeKernels, setKernelMode, weld, weldMesh } from '../../src/index.js';
import { random } from '../support/random.js';
import { torusSoup } from '../support/torus-soup.js';

const DEFAULT = weldCellsForTests({ from: 0, reaches: 0 });
weldCellsForTests(DEFAULT);

afterEach(() => {
  weldCellsForTests(DEFAULT);
  setKernelMode('auto');
});

/** weld and weldMesh of a soup under one kernel mode, as plain arrays. */
function welds(mode: 'wasm' | 'javascript', positions: Float32Array | Float64Array, tolerance: number, d: 2 | 3) {
  setKernelMode(mode);
  expect(activeKernels()).toBe(mode);
  const plain = weld(positions, tolerance, { dimension: d });
  const mesh = weldMesh(positions, undefined, tolerance, { dimension: d });
  return {
    remap: Array.from(plain.remap),
    representatives: Array.from(plain.representatives),
    count: plain.count,
    positions: Array.from(mesh.positions),
    indices: Array.from(mesh.indices),
  };
}

function bounds(coords: ArrayLike<number>, d: number): { min: Float64Array; max: Float64Array } {
  const min = new Float64Array(d).fill(Number.POSITIVE_INFINITY);
  const max = new Float64Array(d).fill(Number.NEGATIVE_INFINITY);
  for (let j = 0; j < coords.length; j++) {
    min[j % d] = Math.min(min[j % d], coords[j]);
    max[j % d] = Math.max(max[j % d], coords[j]);
  }
  return { min, max };
}

/** The exact mean, over vertices, of how many vertices share the vertex's cell of half side `half` (as cellHalfSide's cells). */
function meanOccupancy(coords: ArrayLike<number>, d: number, half: number, min: Float64Array): number {
  const counts = new Map<string, number>();
  const keys: string[] = [];
  for (let j = 0; j < coords.length; j += d) {
    let key = '';
    for (let axis = 0; axis < d; axis++) key += `${Math.floor((coords[j + axis] - min[axis]) * (0.5 / half))},`;
    keys.push(key);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let total = 0;
  for (const key of keys) total += counts.get(key)!;
  return total / keys.length;
}

/** The half side cellHalfSide chooses for `coords`, in reaches of `tolerance`, from `from` vertices up. */
function chosen(coords: Float32Array | Float64Array, d: number, tolerance: number, from = 0): number {
  const { min, max } = bounds(coords, d);
  const reach = tolerance * REACH_SLACK;
  return cellHalfSide(coords, d, reach, min, max, from) / reach;
}

function shuffled(flat: number[], d: number, seed: number): number[] {
  const rand = random(seed);
  const n = flat.length / d;
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order.flatMap((i) => flat.slice(i * d, i * d + d));
}

describe('weld with cells wider than 2 * reach', () => {
  it('welds as the JavaScript path with cells of any side from 2 * reach up, 2D and 3D (seed 4010)', () => {
    const scene = fc.record({
      d: fc.constantFrom<2 | 3>(2, 3),
      tolerance: fc.constantFrom(1, 0.3, 1e-3, 2.5),
      // Lattice steps per axis: dense clusters (many representatives within reach of each other) to sparse.
      span: fc.constantFrom(2, 4, 12, 81),
      // Exactly 2 * reach, just above, a few reaches, odd factors, and far wider than the data.
      reaches: fc.oneof(
        fc.constantFrom(1, 1 + 2 ** -40, 2, 3.999, 128, 1e6),
        fc.double({ min: 1, max: 300, noNaN: true }),
      ),
      cells: fc.array(fc.array(fc.integer({ min: -40, max: 40 }), { minLength: 3, maxLength: 3 }), {
        minLength: 1,
        maxLength: 150,
      }),
      // None (on the lattice: exact ties between representatives 4 steps apart) or some.
      jitter: fc.array(fc.double({ min: -0.6, max: 0.6, noNaN: true }), { maxLength: 450 }),
      copies: fc.array(fc.nat(), { maxLength: 60 }),
      float32: fc.boolean(),
    });
    fc.assert(
      fc.property(scene, ({ d, tolerance, span, reaches, cells, jitter, copies, float32 }) => {
        const step = tolerance / 3;
        const points = cells.map((c, i) =>
          c
            .slice(0, d)
            .map(
              (v, axis) =>
                -7.25 + (v % span) * step + (jitter[(3 * i + axis) % Math.max(1, jitter.length)] ?? 0) * step,
            ),
        );
        for (const c of copies) points.push(points[c % points.length].slice());
        while (points.length % 3 !== 0) points.push(points[0].slice());
        const positions = float32 ? Float32Array.from(points.flat()) : Float64Array.from(points.flat());
        const javascript = welds('javascript', positions, tolerance, d);
        weldCellsForTests({ from: 0, reaches });
        expect(welds('wasm', positions, tolerance, d)).toEqual(javascript);
      }),
      { seed: 4010, numRuns: 300 },
    );
  });

  it('welds jittered soups as the JavaScript path with the cells it estimates, 2D and 3D (seed 4011)', () => {
    weldCellsForTests({ from: 0, reaches: 0 });
    for (const d of [2, 3] as const) {
      const tolerance = 1e-3;
      // Copies jittered by up to 0.2 and 0.45 tolerances: the second leaves searches past the own cell to decide.
      for (const jitter of [0.2, 0.45]) {
        const flat = Float32Array.from(torusSoup(d, 60, 40, jitter, tolerance, 4011 + d));
        expect(chosen(flat, d, tolerance)).toBeGreaterThan(4);
        const javascript = welds('javascript', flat, tolerance, d);
        expect(welds('wasm', flat, tolerance, d)).toEqual(javascript);
      }
    }
  });

  it('takes larger cells for a 150,000-vertex soup at the default threshold, and welds it as the JavaScript path', () => {
    const tolerance = 1e-4;
    const flat = Float32Array.from(torusSoup(3, 100, 250, 0.2, tolerance, 4012));
    expect(flat.length / 3).toBe(150_000);
    expect(chosen(flat, 3, tolerance, DEFAULT.from)).toBeGreaterThan(4);
    const javascript = welds('javascript', flat, tolerance, 3);
    expect(welds('wasm', flat, tolerance, 3)).toEqual(javascript);
  });
});

describe('cellHalfSide', () => {
  const tolerance = 1e-3;

  it('keeps 2 * reach cells below its threshold of vertices, for input in no order, dense input and copies', () => {
    const ordered = Float64Array.from(torusSoup(3, 60, 40, 0.2, tolerance, 4020));
    expect(chosen(ordered, 3, tolerance)).toBeGreaterThan(4);
    expect(chosen(ordered, 3, tolerance, ordered.length / 3 + 1)).toBe(1);
    // The same vertices in no order: lookups miss the cache whatever the cells.
    expect(chosen(Float64Array.from(shuffled(Array.from(ordered), 3, 4020)), 3, tolerance)).toBe(1);
    // A lattice in scan order one tolerance apart: 2 * reach cells hold few already.
    const dense: number[] = [];
    for (let z = 0; z < 20; z++) for (let y = 0; y < 20; y++) for (let x = 0; x < 20; x++) dense.push(x, y, z);
    expect(
      chosen(
        Float64Array.from(dense, (v) => v * tolerance),
        3,
        tolerance,
      ),
    ).toBe(1);
    // Nothing but copies of one vertex.
    expect(chosen(new Float64Array(3000).fill(0.5), 3, tolerance)).toBe(1);
  });

  it('takes smaller cells, or 2 * reach ones, where a cluster would fill them (seed 4021)', () => {
    const part = fc.record({
      // A patch of a sparse lattice in scan order, or a dense cluster, or either in no order.
      kind: fc.constantFrom('sparse', 'dense', 'cluster'),
      size: fc.integer({ min: 50, max: 3000 }),
      spacing: fc.constantFrom(1.5, 4, 20, 60, 150),
      shuffle: fc.boolean(),
      at: fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 3, maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.constantFrom<2 | 3>(2, 3),
        fc.array(part, { minLength: 1, maxLength: 6 }),
        fc.nat(),
        (d, parts, seed) => {
          const rand = random(seed);
          const flat: number[] = [];
          for (const { kind, size, spacing, shuffle, at } of parts) {
            const points: number[] = [];
            const side = Math.ceil(size ** (1 / d));
            for (let k = 0; k < size; k++) {
              for (let axis = 0; axis < d; axis++) {
                const cell = Math.floor(k / side ** axis) % side;
                const origin = at[axis] * 200 * tolerance;
                if (kind === 'cluster') points.push(origin + rand() * spacing * tolerance);
                else points.push(origin + cell * (kind === 'dense' ? 1.1 : spacing) * tolerance);
              }
            }
            flat.push(...(shuffle ? shuffled(points, d, seed + flat.length) : points));
          }
          const coords = Float64Array.from(flat);
          const { min } = bounds(coords, d);
          const half = chosen(coords, d, tolerance) * tolerance * REACH_SLACK;
          if (half > tolerance * REACH_SLACK) {
            // Sampled every 17th vertex at 512 cells: within twice the bound.
            expect(meanOccupancy(coords, d, half, min)).toBeLessThanOrEqual(2 * MAX_MEAN_OCCUPANCY);
          }
        },
      ),
      { seed: 4021, numRuns: 150 },
    );
  });
});
