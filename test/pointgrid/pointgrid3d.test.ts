/**
 * PointGrid3D: seeded property tests against brute force (shared with 2D in
 * support/pointgrid-oracle.ts), plus the edge cases and bad input spelled out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PointGrid3D, setKernelMode } from '../../src/index.js';
import { type GridFactory, gridFace, PointOracle, pointGridProperties } from '../support/pointgrid-oracle.js';

const make: GridFactory = (positions, options) => gridFace(new PointGrid3D(positions, options));

// Both paths against brute force: the WebAssembly kernels and the JavaScript loops (test/wasm checks them equal).
for (const mode of ['wasm', 'javascript'] as const) {
  describe(`kernels: ${mode}`, () => {
    beforeAll(() => setKernelMode(mode));
    afterAll(() => setKernelMode('auto'));
    pointGridProperties(`PointGrid3D (${mode})`, 3, make);
  });
}

/** A jittered lattice, the particle block of an SPH scene. */
function lattice(side: number, jitter: number): number[] {
  const out: number[] = [];
  let seed = 7;
  const random = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 4294967296 - 0.5;
  };
  for (let x = 0; x < side; x++)
    for (let y = 0; y < side; y++)
      for (let z = 0; z < side; z++) out.push(x + random() * jitter, y + random() * jitter, z + random() * jitter);
  return out;
}

describe('PointGrid3D edge cases', () => {
  it('handles 0 and 1 points', () => {
    const empty = new PointGrid3D(new Float32Array(0), { cellSize: 1 });
    empty.validate();
    expect(empty.within(0, 0, 0, 10)).toEqual([]);
    expect(empty.nearest(0, 0, 0, 3)).toEqual([]);
    expect(empty.pairs(5).length).toBe(0);
    expect(empty.neighbors(5).offsets).toEqual(new Uint32Array(1));
    const one = new PointGrid3D([1, 2, 2], { cellSize: 0.5 });
    expect(one.within(0, 0, 0, 3)).toEqual([0]);
    expect(one.within(0, 0, 0, 2.999)).toEqual([]);
    expect(one.nearest(-50, 50, 9)).toEqual([0]);
  });

  it('matches brute force on a jittered particle block, dense and hashed, several radii', () => {
    const positions = new Float64Array(lattice(7, 0.5));
    const oracle = new PointOracle(
      Array.from({ length: positions.length / 3 }, (_, i) => [...positions.subarray(3 * i, 3 * i + 3)]),
    );
    for (const maxDenseCells of [undefined, 0]) {
      const grid = new PointGrid3D(positions, { cellSize: 1.2, maxDenseCells });
      grid.validate();
      for (const radius of [0.6, 1.2, 2.9]) {
        const pairs = grid.pairs(radius);
        const got: string[] = [];
        for (let k = 0; k < pairs.length; k += 2) got.push(`${pairs[k]},${pairs[k + 1]}`);
        expect(got.sort()).toEqual(oracle.pairs(radius).map((p) => p.split(',').slice(0, 2).join(',')));
        const { offsets, indices } = grid.neighbors(radius);
        expect(indices.length).toBe(pairs.length);
        expect(offsets[offsets.length - 1]).toBe(pairs.length);
        expect(grid.nearest(3.1, 2.9, 3.3, 5)).toEqual(oracle.nearest([3.1, 2.9, 3.3], 5, Number.POSITIVE_INFINITY));
      }
    }
  });

  it('tells apart points whose gaps square below the smallest double, across cell borders (decision 2)', () => {
    // (1e-170)^2 underflows to 0 in float64; under the distance rule it is 1e-340, not 0.
    const grid = new PointGrid3D([0, 0, 0, 1e-170, 0, 0, 0, 0, 5e-171, 1e-170, 0, 0], { cellSize: 0.7e-170 });
    const pairsOf = (flat: Uint32Array) =>
      Array.from({ length: flat.length / 2 }, (_, k) => `${flat[2 * k]},${flat[2 * k + 1]}`).sort();
    expect(pairsOf(grid.pairs(0))).toEqual(['1,3']);
    expect(pairsOf(grid.pairs(1e-170))).toEqual(['0,1', '0,2', '0,3', '1,3']);
    expect(grid.within(0, 0, 0, 0)).toEqual([0]);
    expect(grid.within(0, 0, 0, 1e-170).sort()).toEqual([0, 1, 2, 3]);
    expect(grid.nearest(1e-170, 0, 0, 3, 0)).toEqual([1, 3]);
    expect(grid.nearest(1e-170, 0, 0, 4)).toEqual([1, 3, 0, 2]);
    expect(grid.nearest(0, 0, 5e-171, 2)).toEqual([2, 0]);
  });

  it('grows its hash table while counting: thousands of sparse cells, then more on rebuild', () => {
    let seed = 11;
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 4294967296;
    };
    const make = (count: number) => Float64Array.from({ length: 3 * count }, () => random() * 18);
    const first = make(1500);
    const grid = new PointGrid3D(first, { cellSize: 0.5, maxDenseCells: 0 });
    expect(grid.layout).toBe('hashed');
    grid.validate();
    const check = (positions: Float64Array) => {
      const oracle = new PointOracle(
        Array.from({ length: positions.length / 3 }, (_, i) => [...positions.subarray(3 * i, 3 * i + 3)]),
      );
      expect(grid.pairs(0.5).length / 2).toBe(oracle.pairs(0.5).length);
      expect(grid.nearest(7.5, 7.5, 7.5, 3)).toEqual(oracle.nearest([7.5, 7.5, 7.5], 3, Number.POSITIVE_INFINITY));
    };
    check(first);
    const second = make(4000);
    grid.rebuild(second);
    grid.validate();
    check(second);
  });

  it('keeps far-away coordinates exact (|x| = 1e12, cellSize 1)', () => {
    const grid = new PointGrid3D([1e12, 0, -1e12, 1e12 + 1, 0, -1e12, 0, 0, 0], { cellSize: 1 });
    grid.validate();
    expect(grid.layout).toBe('hashed');
    expect([...grid.pairs(1)]).toEqual([0, 1]);
    expect(grid.nearest(1e12 + 0.75, 0, -1e12, 2)).toEqual([1, 0]);
  });

  it('reads interleaved Float32 buffers (stride 5, offset 2)', () => {
    const data = new Float32Array([9, 9, 0.1, 0.2, 0.3, 9, 9, 0.2, 0.2, 0.3, 9, 9, -4, -4, -4]);
    const grid = new PointGrid3D(data, { cellSize: 0.5, stride: 5, offset: 2 });
    grid.validate();
    expect(grid.count).toBe(3);
    expect([...grid.pairs(0.11)]).toEqual([0, 1]);
    expect(grid.nearest(-3, -3, -3)).toEqual([2]);
  });
});

describe('PointGrid3D bad input', () => {
  it('rejects bad options, layouts and coordinates with RangeErrors', () => {
    const pos = new Float64Array([0, 0, 0, 1, 1, 1]);
    expect(() => new PointGrid3D(pos, { cellSize: 0 })).toThrow(/cellSize.*0/);
    expect(() => new PointGrid3D(pos, { cellSize: 1, stride: 2 })).toThrow(/stride.*2/);
    expect(() => new PointGrid3D(pos, { cellSize: 1, offset: 7 })).toThrow(/offset/);
    expect(() => new PointGrid3D([0, 0, 0, 1], { cellSize: 1 })).toThrow(/partial point/);
    expect(() => new PointGrid3D([0, 0, 0, 1, 1, Number.NaN], { cellSize: 1 })).toThrow(/point 1 .*z.*NaN/);
    expect(() => new PointGrid3D([0, 0, 0, 1, Number.NaN, Number.NaN], { cellSize: 1 })).toThrow(/point 1 .*y.*NaN/);
    const huge = { length: 3 * 2 ** 31 } as unknown as number[];
    expect(() => new PointGrid3D(huge, { cellSize: 1 })).toThrow(/at most 2147483647 points, got 2147483648/);
  });

  it('rejects bad query arguments', () => {
    const grid = new PointGrid3D([0, 0, 0, 1, 1, 1], { cellSize: 1 });
    expect(() => grid.within(0, 0, Number.NaN, 1)).toThrow(/z.*NaN/);
    expect(() => grid.withinInto(0, 0, 0, -1, new Uint32Array(2))).toThrow(/radius.*-1/);
    expect(() => grid.nearest(0, 0, 0, 2.5)).toThrow(/k.*2\.5/);
    expect(() => grid.nearest(0, 0, 0, 1, Number.NaN)).toThrow(/maxDistance.*NaN/);
    expect(() => grid.pairs(-1)).toThrow(/radius.*-1/);
    expect(() => grid.neighbors(Number.NaN)).toThrow(/radius.*NaN/);
  });

  it('leaves the grid usable after a failed rebuild', () => {
    const grid = new PointGrid3D([0, 0, 0, 0.5, 0, 0], { cellSize: 1 });
    expect(() => grid.rebuild([0, 0, 0, 0, Number.POSITIVE_INFINITY, 0])).toThrow(/point 1 .*y/);
    grid.validate();
    expect([...grid.pairs(1)]).toEqual([0, 1]);
    grid.rebuild([5, 5, 5]);
    grid.validate();
    expect(grid.count).toBe(1);
  });
});
