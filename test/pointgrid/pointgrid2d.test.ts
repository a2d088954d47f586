/**
 * PointGrid2D: seeded property tests against brute force (shared with 3D in
 * support/pointgrid-oracle.ts), plus the edge cases and bad input spelled out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PointGrid2D, setKernelMode } from '../../src/index.js';
import { type GridFactory, gridFace, PointOracle, pointGridProperties } from '../support/pointgrid-oracle.js';

const make: GridFactory = (positions, options) => gridFace(new PointGrid2D(positions, options));

// Both paths against brute force: the WebAssembly kernels and the JavaScript loops (test/wasm checks them equal).
for (const mode of ['wasm', 'javascript'] as const) {
  describe(`kernels: ${mode}`, () => {
    beforeAll(() => setKernelMode(mode));
    afterAll(() => setKernelMode('auto'));
    pointGridProperties(`PointGrid2D (${mode})`, 2, make);
  });
}

describe('PointGrid2D edge cases', () => {
  it('a hashed rebuild on the JavaScript path keeps a lookup of its own cells only (validate after each)', () => {
    // The lookup's slots are emptied before each hashed build fills them: left as they were, the last build's
    // ids stay in it (validate: a cell held twice, or more cells than the grid has). Points far apart: hashed.
    setKernelMode('javascript');
    try {
      const n = 50;
      const positions = new Float64Array(2 * n);
      for (let i = 0; i < n; i++) positions.set([i * 1000, -i * 777], 2 * i);
      const grid = new PointGrid2D(positions, { cellSize: 1 });
      for (let round = 1; round <= 6; round++) {
        for (let i = 0; i < n; i++) positions.set([(round * n + i) * 1000 + 0.5, -(round * n + i) * 777 - 0.5], 2 * i);
        grid.rebuild();
        grid.validate();
        expect(grid.within(positions[14], positions[15], 0.25)).toEqual([7]);
      }
    } finally {
      setKernelMode('auto');
    }
  });

  it('handles 0 and 1 points', () => {
    const empty = new PointGrid2D(new Float64Array(0), { cellSize: 1 });
    empty.validate();
    expect(empty.count).toBe(0);
    expect(empty.within(0, 0, 10)).toEqual([]);
    expect(empty.withinInto(0, 0, 10, new Uint32Array(1))).toBe(0);
    expect(empty.nearest(0, 0, 3)).toEqual([]);
    expect(empty.pairs(5)).toEqual(new Uint32Array(0));
    expect(empty.neighbors(5).offsets).toEqual(new Uint32Array(1));
    const one = new PointGrid2D([3, -4], { cellSize: 2 });
    one.validate();
    expect(one.within(0, 0, 5)).toEqual([0]);
    expect(one.within(0, 0, 4.999)).toEqual([]);
    expect(one.nearest(100, 100)).toEqual([0]);
    expect(one.nearest(100, 100, 1, 10)).toEqual([]);
    expect(one.pairs(100).length).toBe(0);
    expect(one.neighbors(100)).toEqual({ offsets: new Uint32Array([0, 0]), indices: new Uint32Array(0) });
  });

  it('reports coincident points once each, at distance 0, for radius 0', () => {
    const grid = new PointGrid2D([1, 1, 1, 1, 1, 1, 2, 2], { cellSize: 1 });
    expect(grid.within(1, 1, 0).sort()).toEqual([0, 1, 2]);
    const seen: number[][] = [];
    grid.forEachPair(0, (i, j, d2) => seen.push([i, j, d2]));
    expect(seen.sort()).toEqual([
      [0, 1, 0],
      [0, 2, 0],
      [1, 2, 0],
    ]);
    expect(grid.nearest(1.1, 1.1, 4)).toEqual([0, 1, 2, 3]);
  });

  it('finds pairs exactly one cell size apart across cell borders, negatives included', () => {
    const points: number[] = [];
    for (let x = -3; x <= 3; x++) for (let y = -3; y <= 3; y++) points.push(x * 0.1, y * 0.1);
    const grid = new PointGrid2D(points, { cellSize: 0.1 });
    const oracle = new PointOracle(
      Array.from({ length: points.length / 2 }, (_, i) => [points[2 * i], points[2 * i + 1]]),
    );
    for (const radius of [0.1, 0.2, Math.SQRT2 * 0.1]) {
      expect(grid.pairs(radius).length / 2).toBe(oracle.pairs(radius).length);
    }
  });

  it('tells apart points whose gaps square below the smallest double, across cell borders (decision 2)', () => {
    // (1e-170)^2 underflows to 0 in float64; under the distance rule it is 1e-340, not 0.
    const grid = new PointGrid2D([0, 0, 1e-170, 0, 0, 5e-171, 1e-170, 0], { cellSize: 0.7e-170 });
    const pairsOf = (flat: Uint32Array) =>
      Array.from({ length: flat.length / 2 }, (_, k) => `${flat[2 * k]},${flat[2 * k + 1]}`).sort();
    expect(pairsOf(grid.pairs(0))).toEqual(['1,3']);
    expect(pairsOf(grid.pairs(1e-170))).toEqual(['0,1', '0,2', '0,3', '1,3']);
    expect(grid.within(0, 0, 0)).toEqual([0]);
    expect(grid.within(0, 0, 1e-170).sort()).toEqual([0, 1, 2, 3]);
    expect(grid.within(1e-170, 0, 5e-171).sort()).toEqual([1, 3]);
    expect(grid.nearest(1e-170, 0, 3, 0)).toEqual([1, 3]);
    // Squared distances 0, 0, 1e-340 and 1.25e-340: all 0 in float64, which ordered them by index.
    expect(grid.nearest(1e-170, 0, 4)).toEqual([1, 3, 0, 2]);
    expect(grid.nearest(1e-170, 0, 3)).toEqual([1, 3, 0]);
    expect(grid.nearest(0, 5e-171, 2)).toEqual([2, 0]);
  });

  it('grows its hash table while counting: thousands of sparse cells, then more on rebuild', () => {
    let seed = 11;
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 4294967296;
    };
    const make = (count: number) => Float64Array.from({ length: 2 * count }, () => random() * 60);
    const first = make(1500);
    const grid = new PointGrid2D(first, { cellSize: 0.5, maxDenseCells: 0 });
    expect(grid.layout).toBe('hashed');
    grid.validate();
    const check = (positions: Float64Array) => {
      const oracle = new PointOracle(
        Array.from({ length: positions.length / 2 }, (_, i) => [...positions.subarray(2 * i, 2 * i + 2)]),
      );
      expect(grid.pairs(0.5).length / 2).toBe(oracle.pairs(0.5).length);
      expect(grid.nearest(7.5, 7.5, 3)).toEqual(oracle.nearest([7.5, 7.5], 3, Number.POSITIVE_INFINITY));
    };
    check(first);
    const second = make(4000);
    grid.rebuild(second);
    grid.validate();
    check(second);
  });

  it('keeps far-away coordinates exact (|x| = 1e12, cellSize 1)', () => {
    const points = [1e12, 1e12, 1e12 + 1, 1e12, -1e12, 5, -1e12 + 0.5, 5.5, 0, 0];
    const grid = new PointGrid2D(points, { cellSize: 1 });
    grid.validate();
    expect(grid.layout).toBe('hashed');
    // pairs() comes in no particular order: compare the set of pairs.
    const flat = grid.pairs(1);
    expect(flat.length).toBe(4);
    expect([`${flat[0]},${flat[1]}`, `${flat[2]},${flat[3]}`].sort()).toEqual(['0,1', '2,3']);
    expect(grid.within(1e12 + 0.5, 1e12, 0.5).sort()).toEqual([0, 1]);
    expect(grid.nearest(-1e12, 5, 2)).toEqual([2, 3]);
    expect(grid.nearest(0, 1e12, 1)).toEqual([0]);
  });

  it('orders hashed cells by row even when the rows number more than 2^53', () => {
    // 1e17 cells apart on y: the row-major box index is no longer exact.
    const points = [0, 1e17, 3, 0, 0.5, 1e17, 0, 0, 3.5, 0, 2e17, 5, -1e16, 1e17];
    const grid = new PointGrid2D(points, { cellSize: 1 });
    expect(grid.layout).toBe('hashed');
    grid.validate();
    const flat = grid.pairs(1);
    const found: string[] = [];
    for (let k = 0; k < flat.length; k += 2) found.push(`${flat[k]},${flat[k + 1]}`);
    expect(found.sort()).toEqual(['0,2', '1,4']);
    expect(grid.neighbors(1).indices.length).toBe(4);
  });

  it('reads interleaved Float32 buffers (stride 5, offset 2) like a three.js attribute', () => {
    // Records [u, v, x, y, w]: the point is at offset 2.
    const data = new Float32Array([9, 9, 0.1, 0.2, 9, 9, 9, 0.35, 0.2, 9, 9, 9, -5, -5]);
    const grid = new PointGrid2D(data, { cellSize: 0.25, stride: 5, offset: 2 });
    grid.validate();
    expect(grid.count).toBe(3);
    const r = Math.fround(0.35) - Math.fround(0.1);
    expect([...grid.pairs(r)]).toEqual([0, 1]);
    expect(grid.nearest(-4, -4)).toEqual([2]);
  });

  it('uses the dense layout for compact points and hashes when told to', () => {
    const points = Array.from({ length: 200 }, (_, i) => (i * 7919) % 101);
    expect(new PointGrid2D(points, { cellSize: 5 }).layout).toBe('dense');
    const hashed = new PointGrid2D(points, { cellSize: 5, maxDenseCells: 0 });
    expect(hashed.layout).toBe('hashed');
    hashed.validate();
  });

  it('returns neighbour rows as CSR excluding the point itself', () => {
    const grid = new PointGrid2D([0, 0, 1, 0, 0, 1, 5, 5], { cellSize: 1 });
    const { offsets, indices } = grid.neighbors(1);
    expect([...offsets]).toEqual([0, 2, 3, 4, 4]);
    expect([...indices.subarray(0, 2)].sort()).toEqual([1, 2]);
    expect([...indices.subarray(2)]).toEqual([0, 0]);
  });

  it('lets the visitor query but not rebuild or nest pair searches', () => {
    const grid = new PointGrid2D([0, 0, 1, 0], { cellSize: 1 });
    const found: number[][] = [];
    grid.forEachPair(1, (i) => found.push(grid.within(0, 0, 1).sort(), [i]));
    expect(found).toEqual([[0, 1], [0]]);
    expect(() => grid.forEachPair(1, () => grid.rebuild())).toThrow(/rebuild/);
    expect(() => grid.forEachPair(1, () => grid.pairs(1))).toThrow(/pair search/);
    // Still usable afterwards.
    expect([...grid.pairs(1)]).toEqual([0, 1]);
  });
});

describe('PointGrid2D bad input', () => {
  it('rejects bad options and layouts with RangeErrors naming the value', () => {
    const pos = new Float64Array([0, 0, 1, 1]);
    expect(() => new PointGrid2D(pos, { cellSize: 0 })).toThrow(/cellSize.*0/);
    expect(() => new PointGrid2D(pos, { cellSize: -1 })).toThrow(RangeError);
    expect(() => new PointGrid2D(pos, { cellSize: Number.NaN })).toThrow(/cellSize.*NaN/);
    expect(() => new PointGrid2D(pos, { cellSize: Number.POSITIVE_INFINITY })).toThrow(/cellSize.*Infinity/);
    expect(() => new PointGrid2D(pos, { cellSize: 1, stride: 1 })).toThrow(/stride.*1/);
    expect(() => new PointGrid2D(pos, { cellSize: 1, offset: 5 })).toThrow(/offset/);
    expect(() => new PointGrid2D(pos, { cellSize: 1, offset: 1.5 })).toThrow(/offset.*1\.5/);
    expect(() => new PointGrid2D([0, 0, 1], { cellSize: 1 })).toThrow(/partial point/);
    expect(() => new PointGrid2D(pos, { cellSize: 1, maxDenseCells: -1 })).toThrow(/maxDenseCells.*-1/);
    expect(() => new PointGrid2D(pos, undefined as never)).toThrow(RangeError);
  });

  it('names the point index of a non-finite coordinate', () => {
    expect(() => new PointGrid2D([0, 0, 1, Number.NaN], { cellSize: 1 })).toThrow(/point 1 .*y.*NaN/);
    expect(() => new PointGrid2D([0, 0, 0, 0, Number.POSITIVE_INFINITY, 0], { cellSize: 1 })).toThrow(
      /point 2 .*x.*Infinity/,
    );
    expect(() => new PointGrid2D([0, 0, 0, 0, Number.POSITIVE_INFINITY, 0], { cellSize: 1 })).toThrow(RangeError);
    // The first bad coordinate of the first bad point, counted in points whatever the stride and offset.
    const strided = [9, 0, 0, 9, 1, 1, 9, Number.NaN, Number.NEGATIVE_INFINITY, 9, Number.NaN, 0];
    expect(() => new PointGrid2D(strided, { cellSize: 1, stride: 3, offset: 1 })).toThrow(/point 2 .*x.*NaN/);
    strided[7] = 2;
    expect(() => new PointGrid2D(strided, { cellSize: 1, stride: 3, offset: 1 })).toThrow(/point 2 .*y.*-Infinity/);
  });

  it('rejects more points than 32-bit indices with room for a difference can name', () => {
    // Only an array-like can be this long; the count is checked before any number is read.
    const huge = { length: 2 ** 32 } as unknown as number[];
    expect(() => new PointGrid2D(huge, { cellSize: 1 })).toThrow(/at most 2147483647 points, got 2147483648/);
    const grid = new PointGrid2D([0, 0, 1, 1], { cellSize: 2 });
    expect(() => grid.rebuild(huge)).toThrow(RangeError);
    expect([...grid.pairs(2)]).toEqual([0, 1]);
  });

  it('rejects strings, null and booleans as coordinates, naming the point, and keeps the grid', () => {
    for (const bad of ['1', null, true, false, undefined, {}]) {
      const positions = [0, 0, 1, bad, 2, 2] as unknown as number[];
      expect(() => new PointGrid2D(positions, { cellSize: 1 })).toThrow(RangeError);
      expect(() => new PointGrid2D(positions, { cellSize: 1 })).toThrow(/point 1 has a non-number y coordinate/);
    }
    expect(() => new PointGrid2D(['1', 0] as unknown as number[], { cellSize: 1 })).toThrow(
      /point 0 has a non-number x coordinate \("1" at index 0\)/,
    );
    // Interleaved: only coordinates are checked; other attributes may hold anything.
    const interleaved = [0, 0, 'uv', 1, 1, 'uv'] as unknown as number[];
    expect(new PointGrid2D(interleaved, { cellSize: 1, stride: 3 }).count).toBe(2);
    const grid = new PointGrid2D([0, 0, 1, 0], { cellSize: 1 });
    expect(() => grid.rebuild([0, 0, null, 0] as unknown as number[])).toThrow(
      /point 1 has a non-number x coordinate .*null/,
    );
    expect(grid.count).toBe(2);
    expect([...grid.pairs(1)]).toEqual([0, 1]);
    for (const bad of ['0', null, true]) {
      const b = bad as unknown as number;
      expect(() => grid.within(b, 0, 1)).toThrow(/x must be a finite number/);
      expect(() => grid.withinInto(0, b, 1, new Uint32Array(2))).toThrow(/y must be a finite number/);
      expect(() => grid.withinInto(0, 0, b, new Uint32Array(2))).toThrow(/radius must be a number >= 0/);
      expect(() => grid.nearest(b, 0)).toThrow(/x must be a finite number/);
    }
  });

  it('rejects bad query arguments', () => {
    const grid = new PointGrid2D([0, 0, 1, 1], { cellSize: 1 });
    expect(() => grid.within(Number.NaN, 0, 1)).toThrow(/x.*NaN/);
    expect(() => grid.within(0, Number.POSITIVE_INFINITY, 1)).toThrow(/y.*Infinity/);
    expect(() => grid.within(0, 0, -1)).toThrow(/radius.*-1/);
    expect(() => grid.withinInto(0, 0, Number.NaN, new Uint32Array(2))).toThrow(/radius.*NaN/);
    expect(() => grid.withinInto(0, 0, 1, [] as never)).toThrow(/out/);
    expect(() => grid.nearest(0, 0, -1)).toThrow(/k.*-1/);
    expect(() => grid.nearest(0, 0, 1.5)).toThrow(/k.*1\.5/);
    expect(() => grid.nearest(0, 0, 1, -2)).toThrow(/maxDistance.*-2/);
    expect(() => grid.forEachPair(-1, () => {})).toThrow(/radius.*-1/);
    expect(() => grid.pairs(Number.NaN)).toThrow(/radius.*NaN/);
    expect(() => grid.neighbors(-0.5)).toThrow(/radius.*-0\.5/);
    expect(() => grid.forEachPair(1, 5 as never)).toThrow(/visit/);
    expect(grid.within(0, 0, Number.POSITIVE_INFINITY).sort()).toEqual([0, 1]);
  });

  it('leaves the grid usable after a failed rebuild', () => {
    const pos = new Float64Array([0, 0, 1, 0, 5, 5]);
    const grid = new PointGrid2D(pos, { cellSize: 1 });
    const before = [...grid.pairs(1)];
    expect(() => grid.rebuild(new Float64Array([0, 0, 0, 0, 0, 0, 0, Number.NaN]))).toThrow(/point 3/);
    expect(() => grid.rebuild(new Float64Array([0, 0, 1]))).toThrow(/partial/);
    pos[2] = Number.NaN;
    expect(() => grid.rebuild()).toThrow(/point 1/);
    expect(grid.count).toBe(3);
    expect([...grid.pairs(1)]).toEqual(before);
    expect(grid.within(5, 5, 0)).toEqual([2]);
    pos[2] = 1;
    grid.rebuild();
    grid.validate();
    expect([...grid.pairs(1)]).toEqual(before);
  });
});
