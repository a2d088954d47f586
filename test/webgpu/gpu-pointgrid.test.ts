/**
 * GPUPointGrid2D/3D against the CPU grid (PointGrid2D/3D on the same float32
 * points), in headless Chromium on SwiftShader (see browser.ts). Coordinates
 * are multiples of 1/16 (or of 512 far out) so every difference and square
 * is exact in float32 and float64 alike: the GPU's float32 distance test and
 * the CPU's float64 one must then agree bit for bit, borders included.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D } from '../../src/index.js';
import { random } from '../support/random.js';
import { type GpuPage, openGpuPage } from './browser.js';
import type { BuildStep, GridRequest, ScanRequest } from './page.js';

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
}, 120_000);
afterAll(async () => {
  await gpu?.close();
});

type Scenario = 'uniform' | 'clustered' | 'coincident' | 'border' | 'far' | 'beyond';

/** Points of one scenario, `dimension` numbers each, exactly representable in float32. */
function scene(scenario: Scenario, n: number, dimension: 2 | 3, seed: number): number[] {
  const rand = random(seed);
  const q = (x: number) => Math.round(x * 16) / 16;
  const out: number[] = [];
  const centers = Array.from({ length: 4 }, () => Array.from({ length: dimension }, () => q((rand() - 0.5) * 20)));
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < dimension; a++) {
      let x: number;
      if (scenario === 'uniform') x = q((rand() - 0.5) * 12);
      else if (scenario === 'clustered') x = centers[i % 4][a] + q((rand() - 0.5) * (rand() < 0.5 ? 1 : 4));
      else if (scenario === 'coincident') x = centers[i % 3][a];
      else if (scenario === 'border') x = Math.floor((rand() - 0.5) * 8) + (rand() < 0.2 ? 0.5 : 0);
      else if (scenario === 'far') x = (a === 0 ? -1e6 : 5e5) + q((rand() - 0.5) * 8);
      // Far past 2^30 cells: cells clamp there, results must stay exact.
      else x = (a === 1 ? -(2 ** 40) : 2 ** 33) + 512 * Math.floor(rand() * 4);
      out.push(x);
    }
  }
  return out;
}

/** The CPU grid's neighbour lists with each row sorted ascending. */
function cpuNeighbors(positions: number[], dimension: 2 | 3, radius: number) {
  const points = Float32Array.from(positions);
  const grid =
    dimension === 3 ? new PointGrid3D(points, { cellSize: 1 }) : new PointGrid2D(points, { cellSize: 1, stride: 2 });
  const { offsets, indices } = grid.neighbors(radius);
  for (let i = 0; i + 1 < offsets.length; i++) indices.subarray(offsets[i], offsets[i + 1]).sort();
  return { offsets: Array.from(offsets), indices: Array.from(indices) };
}

function request(dimension: 2 | 3, positions: number[], radius: number, extra: Partial<GridRequest['options']> = {}) {
  const count = positions.length / dimension;
  return {
    dimension,
    positions,
    count,
    radius,
    what: 'neighbors' as const,
    options: { cellSize: 1, maxPoints: Math.max(1, count), ...extra },
  };
}

async function expectSameAsCpu(dimension: 2 | 3, positions: number[], radius: number, extra = {}) {
  const got = await gpu.answer(request(dimension, positions, radius, extra));
  expect(got.error).toBeUndefined();
  const want = cpuNeighbors(positions, dimension, radius);
  expect(got.offsets).toEqual(want.offsets);
  expect(got.indices).toEqual(want.indices);
  return want;
}

const scenarios: Scenario[] = ['uniform', 'clustered', 'coincident', 'border', 'far', 'beyond'];

describe.each([3, 2] as const)('GPUPointGrid%dD', (dimension) => {
  it('neighbors equal the CPU grid on every scenario (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...scenarios),
        fc.integer({ min: 0, max: 400 }),
        fc.integer(),
        fc.constantFrom(1, 0.5, 0.75, 0, 2.5),
        fc.constantFrom(undefined, 2, 16),
        async (scenario, n, seed, radius, tableSize) => {
          await expectSameAsCpu(dimension, scene(scenario, n, dimension, seed), radius, { tableSize });
        },
      ),
      { seed: 15 + dimension, numRuns: 16 },
    );
  }, 120_000);

  it('pairs are the neighbour lists folded to i < j, ascending', async () => {
    const positions = scene('clustered', 400, dimension, 7);
    const got = await gpu.answer({ ...request(dimension, positions, 1), what: 'pairs' });
    const want = cpuNeighbors(positions, dimension, 1);
    const pairs: number[] = [];
    for (let i = 0; i + 1 < want.offsets.length; i++) {
      for (let k = want.offsets[i]; k < want.offsets[i + 1]; k++)
        if (want.indices[k] > i) pairs.push(i, want.indices[k]);
    }
    expect(pairs.length).toBeGreaterThan(100);
    expect(got.pairs).toEqual(pairs);
  });

  it('every cell sharing one bucket (tableSize 1) still gives each neighbour once', async () => {
    const want = await expectSameAsCpu(dimension, scene('uniform', 300, dimension, 3), 1, { tableSize: 1 });
    expect(want.indices.length).toBeGreaterThan(100);
  });

  it('one grid built over several buffers in turn, their points rewritten between builds, equals the CPU grid after each build', async () => {
    // The grid keeps the bind groups of the buffer it was last built over (src/webgpu/grid.ts): a build over another
    // buffer must make new ones, and a build over the same buffer must read what it holds now.
    const maxPoints = 48;
    const step = fc.record({
      buffer: fc.integer({ min: 0, max: 2 }),
      rewrite: fc.option(fc.record({ scenario: fc.constantFrom(...scenarios), seed: fc.integer() }), {
        nil: undefined,
      }),
      count: fc.integer({ min: 0, max: maxPoints }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        const sent: BuildStep[] = steps.map(({ buffer, rewrite, count }) =>
          rewrite === undefined
            ? { buffer, count }
            : { buffer, count, positions: scene(rewrite.scenario, maxPoints, dimension, rewrite.seed) },
        );
        // What each buffer holds at each step (WebGPU buffers start zeroed: every point at the origin until written),
        // and the CPU grid's answer over the points of that build.
        const held = [0, 1, 2].map(() => new Array<number>(dimension * maxPoints).fill(0));
        const wants = sent.map((s) => {
          if (s.positions !== undefined) held[s.buffer] = s.positions;
          return cpuNeighbors(held[s.buffer].slice(0, dimension * s.count), dimension, 1);
        });
        const got = await gpu.call<{ offsets: number[]; indices: number[] }[]>('buildSequence', {
          dimension,
          buffers: 3,
          radius: 1,
          options: { cellSize: 1, maxPoints },
          steps: sent,
        });
        expect(got).toEqual(wants);
      }),
      { seed: 25 + dimension, numRuns: 12 },
    );
  }, 120_000);
});

it('1e5 uniform points in 3D equal the CPU grid', async () => {
  const rand = random(99);
  const positions = Array.from({ length: 3e5 }, () => Math.round(rand() * 60 * 16) / 16);
  const want = await expectSameAsCpu(3, positions, 1);
  expect(want.indices.length).toBeGreaterThan(1e5);
}, 120_000);

it('float32 rounding: on arbitrary floats only pairs at the radius (within rounding) may differ', async () => {
  const rand = random(5);
  const positions = Array.from({ length: 3 * 3000 }, () => Math.fround((rand() - 0.5) * 30 + 1000));
  const got = await gpu.answer(request(3, positions, 1));
  const want = cpuNeighbors(positions, 3, 1);
  const row = (o: number[], x: number[], i: number) => new Set(x.slice(o[i], o[i + 1]));
  let differing = 0;
  for (let i = 0; i < 3000; i++) {
    const a = row(got.offsets!, got.indices!, i);
    const b = row(want.offsets, want.indices, i);
    for (const j of new Set([...a, ...b])) {
      if (a.has(j) === b.has(j)) continue;
      differing++;
      const d = Math.hypot(
        positions[3 * i] - positions[3 * j],
        positions[3 * i + 1] - positions[3 * j + 1],
        positions[3 * i + 2] - positions[3 * j + 2],
      );
      expect(Math.abs(d - 1)).toBeLessThan(1e-4);
    }
  }
  expect(differing).toBeLessThan(10);
});

describe('exclusive scan (reduce-then-scan over blocks of 1,024 counters)', () => {
  type ScanResult = { mismatches: number; first: string[]; total: number };
  const check = async (request: ScanRequest) => {
    const got = await gpu.call<ScanResult>('scanCheck', request);
    expect(got.first).toEqual([]);
    expect(got.mismatches).toBe(0);
    return got;
  };

  // One block (0 to 1,024), two levels (up to 1,024^2), three (above): each
  // size at and around a block and a workgroup (256) edge.
  const sizes = [0, 1, 2, 255, 256, 257, 1023, 1024, 1025, 2047, 2049, 5000, 1024 * 1024, 1024 * 1024 + 1, 3_000_017];
  it.each(sizes)('equals a serial scan over %d counters', async (n) => {
    const got = await check({ n, seed: n + 1, bound: 8 });
    if (n > 100) expect(got.total).toBeGreaterThan(n);
  });

  it('wraps modulo 2^32 as a serial u32 scan does, across levels', async () => {
    await check({ n: 1024 * 1024 + 3, seed: 7, bound: 2 ** 32 });
    await check({ n: 1500, seed: 8, bound: 2 ** 32 });
  });

  it('a workgroup loops over several blocks when a level has more blocks than a dispatch may have', async () => {
    for (const maxWorkgroups of [1, 3]) {
      await check({ n: 5000, seed: 9, bound: 100, maxWorkgroups });
      await check({ n: 1024 * 1024 * 2 + 77, seed: 10, bound: 8, maxWorkgroups });
    }
  }, 120_000);

  it('a grid whose table takes three scan levels (2^20 + 1 counters) equals the CPU grid', async () => {
    await expectSameAsCpu(3, scene('clustered', 3000, 3, 12), 1, { tableSize: 2 ** 20 });
    await expectSameAsCpu(2, scene('uniform', 3000, 2, 13), 1.5, { tableSize: 2 ** 20 });
  }, 120_000);
});

describe('bad input', () => {
  it('neighbors() and pairs() before build() or after destroy(), and build() after destroy(), throw an Error', async () => {
    const errors = await gpu.call<string[]>('lifecycleErrors');
    expect(errors).toEqual([
      'Error: GPUPointGrid3D.neighbors: call build() first (the grid holds no points yet)',
      'Error: GPUPointGrid3D.pairs: call build() first (the grid holds no points yet)',
      'no error',
      'Error: GPUPointGrid3D.neighbors: the grid was destroyed',
      'Error: GPUPointGrid3D.pairs: the grid was destroyed',
      'Error: GPUPointGrid3D.build: the grid was destroyed',
    ]);
  });

  it('options out of range throw a RangeError naming the option', async () => {
    const cases: [Partial<GridRequest['options']>, RegExp][] = [
      [{ cellSize: Number.NaN }, /cellSize must be a finite number > 0, got NaN/],
      [{ cellSize: Number.POSITIVE_INFINITY }, /cellSize must be a finite number > 0, got Infinity/],
      [{ cellSize: 0 }, /cellSize/],
      [{ cellSize: 1e-300 }, /cellSize must have a finite nonzero float32 inverse/],
      [{ maxPoints: 0 }, /maxPoints must be an integer/],
      [{ stride: 2 }, /stride must be an integer >= 3, got 2/],
      [{ tableSize: 3 }, /tableSize must be a power of two, got 3/],
    ];
    for (const [options, message] of cases) {
      const got = await gpu.answer(request(3, [0, 0, 0], 1, options));
      expect(got.errorName).toBe('RangeError');
      expect(got.error).toMatch(message);
    }
    const flat = await gpu.answer(request(2, [0, 0], 1, { stride: 1 }));
    expect(flat.error).toMatch(/stride must be an integer >= 2, got 1/);
  });

  it('bad radius throws', async () => {
    for (const [radius, message] of [
      [-1, /radius must be a finite number >= 0, got -1/],
      [Number.NaN, /radius must be a finite number >= 0, got NaN/],
      [4.5, /radius must be at most 4 cell sizes/],
    ] as const) {
      const got = await gpu.answer(request(3, [0, 0, 0], radius));
      expect(got.error).toMatch(message);
    }
  });

  it('build rejects a buffer without STORAGE, count > maxPoints, a non-integer count or a non-buffer, and the grid stays as it was', async () => {
    const positions = scene('uniform', 300, 3, 11);
    const result = await gpu.page.evaluate(
      (r) =>
        (
          globalThis as unknown as {
            rejectedBuildKeepsGrid(r: unknown): Promise<{ errors: string[]; before: number[]; after: number[] }>;
          }
        ).rejectedBuildKeepsGrid(r),
      request(3, positions, 1),
    );
    expect(result.errors[0]).toMatch(/^Error: GPUPointGrid3D.build: positions must have GPUBufferUsage.STORAGE/);
    expect(result.errors[1]).toMatch(/^RangeError: count must be an integer in \[0, 300\], got 301/);
    expect(result.errors[2]).toMatch(/^RangeError: count must be an integer in \[0, 300\], got 1.5/);
    expect(result.errors[3]).toMatch(/^Error: GPUPointGrid3D.build: positions must be a GPUBuffer/);
    expect(result.before.length).toBeGreaterThan(0);
    expect(result.after).toEqual(result.before);
  });

  it('a buffer too small for count points is a RangeError', async () => {
    const got = await gpu.answer({
      ...request(3, [0, 0, 0, 1, 1, 1], 1),
      count: 3,
      options: { cellSize: 1, maxPoints: 8 },
    });
    expect(got.error).toMatch(/positions holds 24 bytes, but 3 points of stride 3 need 36 bytes/);
  });
});

it("the GPU guide's SPH density pass (own bindings in group 0, the grid's in group 1, nested loops per sorted slot) matches the CPU grid", async () => {
  const h = 0.5;
  const mass = 2;
  const rand = random(21);
  const positions = Array.from({ length: 3 * 2000 }, () => Math.round(rand() * 5 * 16) / 16);
  const got = await gpu.page.evaluate(
    ([p, hh, m]) =>
      (globalThis as unknown as { density(p: number[], h: number, m: number): Promise<number[]> }).density(p, hh, m),
    [positions, h, mass] as [number[], number, number],
  );
  const grid = new PointGrid3D(Float32Array.from(positions), { cellSize: h });
  const { offsets, indices } = grid.neighbors(h);
  const poly6 = 315 / (64 * Math.PI * h ** 9);
  for (let i = 0; i < 2000; i++) {
    let rho = mass * poly6 * h ** 6; // itself
    for (let k = offsets[i]; k < offsets[i + 1]; k++) {
      const j = indices[k];
      const d2 =
        (positions[3 * i] - positions[3 * j]) ** 2 +
        (positions[3 * i + 1] - positions[3 * j + 1]) ** 2 +
        (positions[3 * i + 2] - positions[3 * j + 2]) ** 2;
      rho += mass * poly6 * (h * h - d2) ** 3;
    }
    expect(Math.abs(got[i] - rho)).toBeLessThanOrEqual(1e-4 * rho);
  }
});
