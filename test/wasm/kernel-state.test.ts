/**
 * What the kernels remember between calls, and each way it went stale (one
 * test per defect class found in frame loops): the copy of a grid they hold
 * and the query state set for it must follow every rebuild, from() view,
 * fallback, trap and memory release, and queries far outside a grid, or over
 * an unchecked buffer, must stay inside it. Each answer is checked against
 * the JavaScript path and brute force. The model-based suites (stateful*.test.ts)
 * run long random sequences of all of this; these are the named cases.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import {
  activeKernels,
  PointGrid2D,
  PointGrid3D,
  type PointGridOptions,
  releaseKernelMemory,
  setKernelMode,
  weld,
  weldMesh,
} from '../../src/index.js';
import { readGrid } from '../../src/pointgrid/grid-data.js';
import { guarded, kernelMemoryLimitForTests, kernels } from '../../src/wasm/kernels.js';
import { pinGrid, unpinGrid } from '../../src/wasm/mirror.js';
import { batchPairsForTests } from '../../src/wasm/pair-kernels.js';
import { GRID_CELL_START, GRID_RECORD } from '../../src/wasm/records.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

afterEach(() => setKernelMode('auto'));

type Grid = PointGrid2D | PointGrid3D;

function make(d: 2 | 3, positions: ArrayLike<number>, options: PointGridOptions): Grid {
  const p = positions as Float64Array;
  return d === 2 ? new PointGrid2D(p, options) : new PointGrid3D(p, options);
}

/** Indices of the points of `positions` (packed, d per point) within `radius` of `q`, ascending. */
function bruteWithin(positions: ArrayLike<number>, d: number, q: number[], radius: number): number[] {
  const found: number[] = [];
  for (let i = 0; i * d < positions.length; i++) {
    let s = 0;
    for (let a = 0; a < d; a++) {
      const delta = positions[i * d + a] - q[a];
      s += delta * delta;
    }
    if (s <= radius * radius) found.push(i);
  }
  return found;
}

/** Every pair i < j within `radius`, as "i,j" strings, sorted. */
function brutePairs(positions: ArrayLike<number>, d: number, radius: number): string[] {
  const out: string[] = [];
  const n = positions.length / d;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      let s = 0;
      for (let a = 0; a < d; a++) {
        const delta = positions[i * d + a] - positions[j * d + a];
        s += delta * delta;
      }
      if (s <= radius * radius) out.push(`${i},${j}`);
    }
  return out.sort();
}

function pairStrings(pairs: Uint32Array): string[] {
  const out: string[] = [];
  for (let k = 0; k < pairs.length; k += 2) out.push(`${pairs[k]},${pairs[k + 1]}`);
  return out.sort();
}

function within(grid: Grid, q: number[], radius: number): number[] {
  const found = grid instanceof PointGrid2D ? grid.within(q[0], q[1], radius) : grid.within(q[0], q[1], q[2], radius);
  return found.sort((a, b) => a - b);
}

function withinInto(grid: Grid, q: number[], radius: number): number[] {
  const out = new Uint32Array(grid.count);
  const found =
    grid instanceof PointGrid2D
      ? grid.withinInto(q[0], q[1], radius, out)
      : grid.withinInto(q[0], q[1], q[2], radius, out);
  return [...out.subarray(0, found)].sort((a, b) => a - b);
}

function countWithin(grid: Grid, q: number[], radius: number): number {
  return grid instanceof PointGrid2D
    ? grid.countWithin(q[0], q[1], radius)
    : grid.countWithin(q[0], q[1], q[2], radius);
}

function withinManyRow(grid: Grid, q: number[], radius: number): number[] {
  const rows = grid.withinMany(q, radius);
  return [...rows.indices.subarray(rows.offsets[0], rows.offsets[1])].sort((a, b) => a - b);
}

/** `n` points in [0, side) per axis, deterministic. */
function points(n: number, d: number, side: number, seed: number): Float64Array {
  let state = seed;
  return Float64Array.from({ length: d * n }, () => {
    state = (state * 48271) % 2147483647;
    return (state / 2147483647) * side;
  });
}

const layouts: [string, PointGridOptions][] = [
  ['dense', { cellSize: 1 }],
  ['hashed', { cellSize: 1, maxDenseCells: 0 }],
];

describe('a rebuild on the kernels after a query (defect class 1: the query state kept the old grid)', () => {
  for (const d of [2, 3] as const)
    for (const [layout, options] of layouts)
      for (const float32 of [false, true]) {
        const label = `${d}D ${layout} ${float32 ? 'Float32Array' : 'Float64Array'}`;

        it(`${label}: within, withinInto and withinMany answer the new build (the smallest case, moved +10 in x)`, () => {
          const base = d === 2 ? [0, 0, 1, 0, 2, 0, 3, 0] : [0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0];
          const positions = float32 ? Float32Array.from(base) : Float64Array.from(base);
          const grid = make(d, positions, options);
          const q = d === 2 ? [1, 0] : [1, 0, 0];
          expect(within(grid, q, 1.5)).toEqual([0, 1, 2]);
          for (let i = 0; i < positions.length; i += d) positions[i] += 10;
          grid.rebuild();
          const moved = d === 2 ? [11, 0] : [11, 0, 0];
          expect(within(grid, moved, 1.5)).toEqual([0, 1, 2]);
          expect(withinInto(grid, moved, 1.5)).toEqual([0, 1, 2]);
          expect(withinManyRow(grid, moved, 1.5)).toEqual([0, 1, 2]);
          expect(countWithin(grid, moved, 1.5)).toBe(3);
        });

        it(`${label}: countWithin answers the new build when a countWithin set the query state for the old one`, () => {
          const base = d === 2 ? [0, 0, 1, 0, 2, 0, 3, 0] : [0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0];
          const positions = float32 ? Float32Array.from(base) : Float64Array.from(base);
          const grid = make(d, positions, options);
          const q = d === 2 ? [1, 0] : [1, 0, 0];
          expect(countWithin(grid, q, 1.5)).toBe(3);
          for (let i = 0; i < positions.length; i += d) positions[i] += 10;
          grid.rebuild();
          expect(countWithin(grid, q, 1.5)).toBe(0);
          expect(countWithin(grid, d === 2 ? [11, 0] : [11, 0, 0], 1.5)).toBe(3);
          // Two points dropped: a rebuild into the same buffer with another count.
          grid.rebuild(positions.subarray(0, 2 * d));
          expect(countWithin(grid, d === 2 ? [11, 0] : [11, 0, 0], 1.5)).toBe(2);
        });

        it(`${label}: a query between two rebuilds leaves the grid's pairs whole (it wrote into the new copy)`, () => {
          for (let trial = 0; trial < 20; trial++) {
            const n = 40 + trial * 7;
            const positions = points(n, d, 6, 1000 + trial);
            const grid = make(d, float32 ? Float32Array.from(positions) : positions, options);
            const q = Array.from({ length: d }, () => 3);
            within(grid, q, 2);
            const next = points(n + (trial % 3) - 1, d, 6, 5000 + trial);
            const input = float32 ? Float32Array.from(next) : next;
            grid.rebuild(input);
            expect(countWithin(grid, q, 2)).toBe(bruteWithin(input, d, q, 2).length);
            expect(within(grid, q, 2)).toEqual(bruteWithin(input, d, q, 2));
            expect(pairStrings(grid.pairs(1))).toEqual(brutePairs(input, d, 1));
          }
        });
      }

  it('still holds after releaseKernelMemory() and a mode switch and back before the rebuild', () => {
    for (const between of ['release', 'switch'] as const) {
      const positions = new Float64Array([0, 0, 1, 0, 2, 0, 3, 0]);
      const grid = new PointGrid2D(positions, { cellSize: 1 });
      grid.within(1, 0, 1.5);
      if (between === 'release') releaseKernelMemory();
      else {
        setKernelMode('javascript');
        setKernelMode('auto');
      }
      for (let i = 0; i < positions.length; i += 2) positions[i] += 10;
      grid.rebuild();
      expect(within(grid, [11, 0], 1.5)).toEqual([0, 1, 2]);
    }
  });

  it('a frame loop (move, rebuild, a within per point, a pair search every other frame) agrees with brute force', () => {
    const n = 300;
    const positions = Float32Array.from(points(n, 2, 20, 77));
    const grid = new PointGrid2D(positions, { cellSize: 1 });
    const out = new Uint32Array(n);
    for (let frame = 0; frame < 12; frame++) {
      for (let i = 0; i < positions.length; i++) positions[i] += Math.sin(i + frame) * 0.3;
      grid.rebuild();
      for (let i = 0; i < n; i += 17) {
        const q = [positions[2 * i], positions[2 * i + 1]];
        const found = grid.withinInto(q[0], q[1], 1, out);
        expect([...out.subarray(0, found)].sort((a, b) => a - b)).toEqual(bruteWithin(positions, 2, q, 1));
      }
      if (frame % 2 === 1) {
        let count = 0;
        grid.forEachPair(1, () => {
          count++;
        });
        expect(count).toBe(brutePairs(positions, 2, 1).length);
      }
    }
  });
});

describe('queries whose x lies far outside a dense grid (defect class 2: a chord past the cells)', () => {
  it('the 10x10 lattice: within(28, -7, 21) finds 9 and 19 once each, on both paths', () => {
    const lattice = Float64Array.from({ length: 200 }, (_, k) => (k % 2 === 0 ? (k / 2) % 10 : Math.floor(k / 20)));
    for (const mode of ['wasm', 'javascript'] as const) {
      setKernelMode(mode);
      const grid = new PointGrid2D(lattice, { cellSize: 1 });
      expect(within(grid, [28, -7], 21)).toEqual([9, 19]);
      expect(withinInto(grid, [28, -7], 21)).toEqual([9, 19]);
      expect(withinManyRow(grid, [28, -7], 21)).toEqual([9, 19]);
    }
  });

  for (const d of [2, 3] as const)
    it(`${d}D: queries up to 1e6 away, on both sides, agree with brute force and never trap`, () => {
      const positions = points(3000, d, 80, 99).map((v) => v - 40);
      const grid = make(d, positions, { cellSize: 1, maxDenseCells: 1e6 });
      expect(grid.layout).toBe('dense');
      for (const far of [9e5, -9e5, 41, -41, 100])
        for (const radius of [1e6, far > 0 ? far : -far, 45, 60]) {
          const q = Array.from({ length: d }, (_, a) => (a === 0 ? far : a === 1 ? -far / 3 : 0));
          const want = bruteWithin(positions, d, q, radius);
          expect(within(grid, q, radius)).toEqual(want);
          expect(withinInto(grid, q, radius)).toEqual(want);
          expect(withinManyRow(grid, q, radius)).toEqual(want);
          expect(countWithin(grid, q, radius)).toBe(want.length);
        }
    });
});

describe('a build that falls back to JavaScript part-way (defect class 3: the copy the kernels held was overwritten)', () => {
  for (const d of [2, 3] as const)
    it(`${d}D: another grid's pairs stay right after a build could not reserve its crowded-cell scratch`, () => {
      releaseKernelMemory();
      const small = points(200, d, 8, 3);
      const grid = make(d, small, { cellSize: 1 });
      const want = brutePairs(small, d, 1);
      expect(pairStrings(grid.pairs(1))).toEqual(want);
      // 100,000 coincident points but one: the count fits under the limit, the crowded cell's scratch does not.
      const n = 100000;
      const crowded = new Float64Array(d * n);
      crowded[0] = 0.5;
      const last = kernelMemoryLimitForTests(1024 + 60 * n);
      try {
        const other = make(d, crowded, { cellSize: 1 });
        expect(other.count).toBe(n);
        other.validate();
      } finally {
        kernelMemoryLimitForTests(last);
      }
      expect(pairStrings(grid.pairs(1))).toEqual(want);
      let visited = 0;
      grid.forEachPair(1, () => {
        visited++;
      });
      expect(visited).toBe(want.length);
    });
});

describe('a hashed build that falls back to JavaScript part-way (its counting table could not grow)', () => {
  for (const d of [2, 3] as const)
    it(`${d}D: another grid's queries and pairs stay right at every memory limit a hashed build meets`, () => {
      releaseKernelMemory();
      // A grid whose copy in the kernels' memory (60 KB and more) reaches past where the smaller hashed build below
      // lays out its work areas, so that build's copy of its points writes over it.
      const large = points(3000, d, d === 2 ? 100 : 20, 11);
      const grid = make(d, large, { cellSize: 1 });
      const want = brutePairs(large, d, 1);
      const q = [3, 4, 5].slice(0, d);
      const near = bruteWithin(large, d, q, 1.5);
      // 600 points in as many cells: a hashed build's first counting table (for a quarter of the points) is too
      // small, so it grows part-way, after it has copied the points in. Its first reservation is some 88 KB (2D) or
      // 112 KB (3D), the table's growth 12 KB more: the limits sweep past both.
      const many = points(600, d, d === 2 ? 400 : 60, 12);
      let fellBack = 0;
      for (let limit = 8192; limit < 160_000; limit += 1024) {
        const last = kernelMemoryLimitForTests(limit);
        try {
          make(d, many, { cellSize: 1, maxDenseCells: 0 });
          // (Only a build that wrote over the mirror and then fell back leaves the memory holding no grid.)
          if (kernels()!.mirrorData === undefined) fellBack++;
        } finally {
          kernelMemoryLimitForTests(last);
        }
        expect(within(grid, q, 1.5), `within after a build held to ${limit} bytes`).toEqual(near);
        expect(pairStrings(grid.pairs(1)), `pairs after a build held to ${limit} bytes`).toEqual(want);
      }
      expect(fellBack, 'builds that fell back between their reservations').toBeGreaterThan(0);
    });
});

describe('an in-place rebuild the kernels did not make (the mirror is told from the buffer by its build count)', () => {
  for (const d of [2, 3] as const)
    for (const [layout, options] of layouts)
      it(`${d}D ${layout}: a JavaScript rebuild into the mirrored buffer, then every query on the kernels again`, () => {
        const first = points(300, d, 8, 31);
        const grid = make(d, first, options);
        const q = Array.from({ length: d }, () => 4);
        // The kernels built the grid and hold it; a pair search and a query read that copy.
        expect(pairStrings(grid.pairs(1))).toEqual(brutePairs(first, d, 1));
        expect(within(grid, q, 2)).toEqual(bruteWithin(first, d, q, 2));
        expect(countWithin(grid, q, 2.5)).toBe(bruteWithin(first, d, q, 2.5).length);
        // The same points in reverse order (the same cells, other indices): the build goes in place, while the
        // kernels' memory still holds the first build of that very buffer.
        const second = new Float64Array(first.length);
        for (let i = 0, n = first.length / d; i < n; i++)
          for (let a = 0; a < d; a++) second[(n - 1 - i) * d + a] = first[i * d + a];
        const data = grid.data;
        setKernelMode('javascript');
        grid.rebuild(second);
        setKernelMode('auto');
        expect(grid.data).toBe(data);
        // A query first, with no other kernel call between: the query state was set for this very buffer.
        expect(countWithin(grid, q, 2.5)).toBe(bruteWithin(second, d, q, 2.5).length);
        expect(withinInto(grid, q, 2)).toEqual(bruteWithin(second, d, q, 2));
        expect(pairStrings(grid.pairs(1))).toEqual(brutePairs(second, d, 1));
        expect(within(grid, q, 2)).toEqual(bruteWithin(second, d, q, 2));
        expect(withinManyRow(grid, q, 2)).toEqual(bruteWithin(second, d, q, 2));
      });
});

describe('each guard of the records on its own (mirror.ts: guards that overlap, so no answer shows one missing)', () => {
  it('forgetGrid, holdGrid and a pair search each drop the query record, whoever calls them', () => {
    // Every caller of holdGrid calls forgetGrid first, and a query checks the mirror's build count too: with either
    // clear left out the answers stay right, so the records themselves are held here.
    const positions = points(60, 2, 5, 51);
    const grid = make(2, positions, { cellSize: 1 });
    const k = kernels()!;
    expect(within(grid, [2, 2], 1)).toEqual(bruteWithin(positions, 2, [2, 2], 1));
    expect(k.queryGrid).toBeDefined();
    k.holdGrid(k.mirrorData!, k.mirrorBuilds);
    expect(k.queryGrid, 'after holdGrid').toBeUndefined();
    expect(within(grid, [2, 2], 1)).toEqual(bruteWithin(positions, 2, [2, 2], 1));
    expect(k.queryGrid).toBeDefined();
    // A pair search writes the grid record for its own grid (the one a query of that grid would write) and drops
    // the query record.
    expect(pairStrings(grid.pairs(1))).toEqual(brutePairs(positions, 2, 1));
    expect(k.queryGrid, 'after a pair search').toBeUndefined();
    expect(within(grid, [2, 2], 1)).toEqual(bruteWithin(positions, 2, [2, 2], 1));
    expect(k.queryGrid).toBeDefined();
    k.forgetGrid();
    expect(k.queryGrid, 'after forgetGrid').toBeUndefined();
    expect(within(grid, [2, 2], 1)).toEqual(bruteWithin(positions, 2, [2, 2], 1));
  });

  for (const d of [2, 3] as const)
    it(`${d}D: a SharedArrayBuffer written since the kernels copied it, its build count unchanged, is copied in again`, () => {
      // What the calling thread sees while a PointGridWorkers rebuild writes the buffer in place (the count is
      // published at its end) or another thread's build runs: the buffer holds what the kernels' copy does not, under
      // the same count. Simulated by relabelling two points in the buffer's sorted indices, which leaves a whole grid.
      const positions = points(300, d, 6, 61);
      const grid = make(d, positions, { cellSize: 1, shared: true });
      const before = pairStrings(grid.pairs(1));
      expect(before).toEqual(brutePairs(positions, d, 1));
      expect(kernels()!.mirrorData).toBe(grid.data);
      const { sortedIndex } = readGrid(`PointGrid${d}D`, grid.data, d);
      for (let i = 0; i < sortedIndex.length; i++) {
        if (sortedIndex[i] === 0) sortedIndex[i] = 1;
        else if (sortedIndex[i] === 1) sortedIndex[i] = 0;
      }
      setKernelMode('javascript');
      const want = pairStrings(grid.pairs(1));
      const wantRow = withinManyRow(grid, [...positions.slice(0, d)], 1.5);
      setKernelMode('auto');
      expect(want, 'the write changed the answer').not.toEqual(before);
      expect(pairStrings(grid.pairs(1))).toEqual(want);
      expect(withinManyRow(grid, [...positions.slice(0, d)], 1.5)).toEqual(wantRow);
    });
});

describe("searches from inside a forEachPair visitor (the kernels' search waits on the visitor: Kernels.busy)", () => {
  for (const d of [2, 3] as const)
    it(`${d}D: another grid's pairs, withinMany and within from the visitor leave the outer search whole`, () => {
      // More pairs than a fresh memory holds at once, so that the outer search hands them over batch by batch and
      // resumes after each visit: a search of another grid on the kernels meanwhile would overwrite its state.
      releaseKernelMemory();
      const outer = points(d === 2 ? 1500 : 2500, d, 3, 91);
      const inner = points(300, d, 6, 92);
      const a = make(d, outer, { cellSize: 1 });
      const b = make(d, inner, { cellSize: 1 });
      const wantA = brutePairs(outer, d, 1);
      const wantB = brutePairs(inner, d, 1);
      const q = Array.from({ length: d }, () => 3);
      let count = 0;
      let sum = 0;
      a.forEachPair(1, (i, j) => {
        if (count % 50000 === 0) {
          expect(pairStrings(b.pairs(1))).toEqual(wantB);
          expect(withinManyRow(b, q, 1.5)).toEqual(bruteWithin(inner, d, q, 1.5));
          expect(within(b, q, 1.5)).toEqual(bruteWithin(inner, d, q, 1.5));
        }
        count++;
        sum += Math.min(i, j) * 4096 + Math.max(i, j);
      });
      expect(count).toBe(wantA.length);
      expect(count, 'more pairs than one batch of a fresh memory holds').toBeGreaterThan(150000);
      let wantSum = 0;
      for (const pair of wantA) {
        const [i, j] = pair.split(',').map(Number) as [number, number];
        wantSum += i * 4096 + j;
      }
      expect(sum).toBe(wantSum);
    });
});

describe('a weld between two searches of a grid (the weld writes its table over the copy the kernels held)', () => {
  for (const tolerance of [0, 0.01])
    it(`tolerance ${tolerance}: the grid's pairs and queries after the weld are its own`, () => {
      const positions = points(400, 3, 6, 81);
      const grid = make(3, positions, { cellSize: 1 });
      const q = [3, 3, 3];
      const want = brutePairs(positions, 3, 1);
      expect(pairStrings(grid.pairs(1))).toEqual(want);
      expect(within(grid, q, 1.5)).toEqual(bruteWithin(positions, 3, q, 1.5));
      expect(kernels()!.mirrorData).toBe(grid.data);
      // A soup larger than the grid, so that its coordinates and table cover the copy's bytes.
      const soup = points(3000, 3, 50, 82);
      expect(weld(soup, tolerance).count).toBeGreaterThan(0);
      expect(pairStrings(grid.pairs(1))).toEqual(want);
      expect(within(grid, q, 1.5)).toEqual(bruteWithin(positions, 3, q, 1.5));
    });
});

describe('pinGrid, as a pool thread runs a task (each task gets its buffer as a new object, so no pool test can tell)', () => {
  it('a pin starts from a fresh copy of the buffer, whatever the kernels copied of it before, and ends with unpinGrid', () => {
    const positions = points(300, 2, 6, 71);
    const grid = make(2, positions, { cellSize: 1, shared: true });
    const pinned = () => {
      pinGrid(grid.data);
      try {
        return pairStrings(grid.pairs(1));
      } finally {
        unpinGrid();
      }
    };
    const before = pinned();
    expect(before).toEqual(brutePairs(positions, 2, 1));
    expect(kernels()!.mirrorData).toBe(grid.data);
    // Another thread's rebuild between two tasks, as the relabelling above shows it.
    const { sortedIndex } = readGrid('PointGrid2D', grid.data, 2);
    for (let i = 0; i < sortedIndex.length; i++) {
      if (sortedIndex[i] === 0) sortedIndex[i] = 1;
      else if (sortedIndex[i] === 1) sortedIndex[i] = 0;
    }
    setKernelMode('javascript');
    const want = pairStrings(grid.pairs(1));
    setKernelMode('auto');
    expect(want).not.toEqual(before);
    expect(pinned()).toEqual(want);
    // And once unpinned, a shared buffer is copied in at every search again (the relabelling undone).
    for (let i = 0; i < sortedIndex.length; i++) {
      if (sortedIndex[i] === 0) sortedIndex[i] = 1;
      else if (sortedIndex[i] === 1) sortedIndex[i] = 0;
    }
    expect(pairStrings(grid.pairs(1))).toEqual(before);
  });
});

describe('what the kernels keep to save copies (the answers never depend on it: these hold the savings)', () => {
  it('a build on the kernels leaves its grid as their copy, for the next search of it', () => {
    releaseKernelMemory();
    const positions = points(300, 2, 8, 41);
    const grid = make(2, positions, { cellSize: 1 });
    const k = kernels()!;
    expect(k.mirrorData).toBe(grid.data);
    grid.rebuild();
    expect(k.mirrorData).toBe(grid.data);
    // Shared or not, a search then reads that copy (a shared buffer's only while pinned: copied in again).
    expect(pairStrings(grid.pairs(1))).toEqual(brutePairs(positions, 2, 1));
    expect(k.mirrorData).toBe(grid.data);
  });

  it('queries that alternate between two grids copy one in at most once in 64 queries (the copy throttle)', () => {
    releaseKernelMemory();
    const a = make(2, points(300, 2, 8, 42), { cellSize: 1 });
    const ofB = points(300, 2, 8, 43);
    const b = make(2, ofB, { cellSize: 1 });
    const k = kernels()!;
    // b's build left b in the memory; a's first query copies a in, and b's next 63 queries run in JavaScript.
    expect(k.mirrorData).toBe(b.data);
    within(a, [4, 4], 2);
    expect(k.mirrorData).toBe(a.data);
    for (let i = 0; i < 63; i++) {
      expect(within(b, [i % 8, 4], 2)).toEqual(bruteWithin(ofB, 2, [i % 8, 4], 2));
      expect(k.mirrorData, `after b's query ${i}`).toBe(a.data);
    }
    within(b, [4, 4], 2);
    expect(k.mirrorData).toBe(b.data);
  });
});

describe('forEachPair on the kernels hands each batch over where they wrote it (a view of their memory)', () => {
  /** Every pair forEachPair visits, as "i,j" strings, sorted. */
  function visited(grid: Grid, radius: number): string[] {
    const out: string[] = [];
    grid.forEachPair(radius, (i, j) => out.push(`${i},${j}`));
    return out.sort();
  }

  for (const d of [2, 3] as const)
    for (const [name, options] of layouts)
      it(`gives the grid its own batch back, so that a JavaScript search never writes into their memory (${d}D, ${name})`, () => {
        const ofBig = points(3000, d, 12, 47 + d);
        const big = make(d, ofBig, options);
        const positions = points(200, d, 5, 44 + d);
        const small = make(d, positions, options);
        const pairs = brutePairs(positions, d, 1);
        const last = batchPairsForTests(5);
        try {
          // On the kernels: the batches lie past the small grid's copy, where the big grid's copy goes next.
          expect(visited(small, 1)).toEqual(pairs);
          big.rebuild();
          // In JavaScript through the same batch. Had it stayed a view of the kernels' memory, this search wrote
          // its pairs over the big grid's copy there (the memory did not grow: the big grid was built first).
          setKernelMode('javascript');
          expect(visited(small, 1)).toEqual(pairs);
          setKernelMode('auto');
          expect(kernels()!.mirrorData).toBe(big.data);
          expect(pairStrings(big.pairs(1))).toEqual(brutePairs(ofBig, d, 1));
          const q = Array.from({ length: d }, () => 6);
          expect(within(big, q, 1.5)).toEqual(bruteWithin(ofBig, d, q, 1.5));
          expect(visited(small, 1)).toEqual(pairs);
        } finally {
          batchPairsForTests(last);
        }
      });

  it('a visitor that throws part-way, or queries the grid, leaves it answering as before', () => {
    const positions = points(400, 2, 6, 46);
    const grid = make(2, positions, { cellSize: 1 });
    const pairs = brutePairs(positions, 2, 1);
    const last = batchPairsForTests(5);
    try {
      let seen = 0;
      expect(() =>
        grid.forEachPair(1, () => {
          if (++seen === 12) throw new Error('stop');
        }),
      ).toThrow('stop');
      setKernelMode('javascript');
      expect(visited(grid, 1)).toEqual(pairs);
      setKernelMode('auto');
      // Queries from inside the visitor run in JavaScript (the kernels are busy) and the batch stays whole.
      const inside: string[] = [];
      grid.forEachPair(1, (i, j) => {
        inside.push(`${i},${j}`);
        expect(within(grid, [positions[2 * i], positions[2 * i + 1]], 0)).toContain(i);
      });
      expect(inside.sort()).toEqual(pairs);
      expect(pairStrings(grid.pairs(1))).toEqual(pairs);
    } finally {
      batchPairsForTests(last);
    }
  });
});

describe('grids over one buffer see each other rebuilds (defect class 4: a from() view kept its header)', () => {
  for (const d of [2, 3] as const)
    for (const shared of [true, false])
      for (const check of ['full', 'header'] as const)
        it(`${d}D ${shared ? 'SharedArrayBuffer' : 'ArrayBuffer'}, check '${check}': the view answers the owner's in-place rebuild, and the owner the view's`, () => {
          const n = 500;
          const first = points(n, d, 12, 11);
          const owner = make(d, first, { cellSize: 1, shared });
          const view = (d === 2 ? PointGrid2D : PointGrid3D).from(owner.data, { check });
          const q = Array.from({ length: d }, () => 6);
          expect(within(view, q, 2)).toEqual(bruteWithin(first, d, q, 2));
          // Fewer points that fit in the same buffer: an in-place rebuild, with other bounds and counts.
          const second = points(n - 100, d, 9, 12).map((v) => v + 1);
          owner.rebuild(second);
          expect(owner.data).toBe(view.data);
          expect(view.count).toBe(n - 100);
          expect(within(view, q, 2)).toEqual(bruteWithin(second, d, q, 2));
          expect(withinInto(view, q, 2)).toEqual(bruteWithin(second, d, q, 2));
          expect(countWithin(view, q, 2)).toBe(bruteWithin(second, d, q, 2).length);
          expect(withinManyRow(view, q, 2)).toEqual(bruteWithin(second, d, q, 2));
          expect(pairStrings(view.pairs(1))).toEqual(brutePairs(second, d, 1));
          view.validate();
          // And the other way round: the view rebuilds the buffer from positions of its own.
          const third = points(n - 200, d, 10, 13);
          view.rebuild(third);
          expect(view.data).toBe(owner.data);
          expect(within(owner, q, 2)).toEqual(bruteWithin(third, d, q, 2));
          expect(countWithin(owner, q, 2)).toBe(bruteWithin(third, d, q, 2).length);
          expect(pairStrings(owner.pairs(1))).toEqual(brutePairs(third, d, 1));
          owner.validate();
        });
});

describe("from(data, { check: 'header' }) over a body it did not check (defect class 5)", () => {
  for (const d of [2, 3] as const)
    it(`${d}D: cell starts of -2^31 and 2^31 - 1 after ordinary ones give indices below the count, and no trap`, () => {
      for (const layout of ['dense', 'hashed'] as const) {
        const positions = points(400, d, 10, 21);
        const grid = make(d, positions, { cellSize: 1, maxDenseCells: layout === 'dense' ? undefined : 0 });
        const data = grid.data.slice(0);
        const { cellStart } = readGrid(`PointGrid${d}D`, data, d);
        const cells = new Float64Array(data, 0, 32)[5];
        for (let c = 1; c <= cells; c += 3) cellStart[c] = c % 2 === 0 ? -(2 ** 31) : 2 ** 31 - 1;
        const opened = (d === 2 ? PointGrid2D : PointGrid3D).from(data, { check: 'header' });
        for (const radius of [0.5, 3, 30]) {
          const q = Array.from({ length: d }, () => 5);
          for (const found of [
            within(opened, q, radius),
            withinInto(opened, q, radius),
            withinManyRow(opened, q, radius),
          ])
            for (const i of found) expect(i).toBeLessThan(400);
          expect(countWithin(opened, q, radius)).toBeLessThanOrEqual(400);
          // (Pairs only at small radii: over cell starts like these every cell's run is every point, so a pair search
          // finds a multiple of all n^2 pairs, bounded but slow at a large radius.)
          if (radius < 10) for (const i of opened.pairs(radius)) expect(i).toBeLessThan(400);
        }
      }
    });
});

describe('detached positions (defect class 6)', () => {
  function detached(values: number[]): Float64Array {
    const array = Float64Array.from(values);
    structuredClone(array.buffer, { transfer: [array.buffer] });
    return array;
  }

  for (const mode of ['auto', 'javascript'] as const)
    it(`${mode}: rebuild(), new PointGrid2D/3D, weld and weldMesh refuse a detached array with an Error naming it, changing nothing`, () => {
      setKernelMode(mode);
      const positions = Float64Array.from([0, 0, 0, 1, 1, 1, 2, 2, 2]);
      const grid = new PointGrid3D(positions, { cellSize: 1 });
      const before = new Uint8Array(grid.data.slice(0));
      structuredClone(positions.buffer, { transfer: [positions.buffer] });
      expect(() => grid.rebuild()).toThrow(/positions is a Float64Array whose buffer was transferred/);
      expect(new Uint8Array(grid.data.slice(0))).toEqual(before);
      expect(grid.count).toBe(3);
      expect(grid.within(1, 1, 1, 0.1)).toEqual([1]);
      expect(() => new PointGrid2D(detached([0, 0]), { cellSize: 1 })).toThrow(
        /positions is a Float64Array whose buffer/,
      );
      expect(() => weld(detached([0, 0, 0]), 0.1)).toThrow(/positions is a Float64Array whose buffer/);
      expect(() => weldMesh(detached([0, 0, 0]), undefined, 0.1)).toThrow(/positions is a Float64Array whose buffer/);
      // An array that is simply empty is still an empty grid.
      expect(new PointGrid2D(new Float64Array(0), { cellSize: 1 }).count).toBe(0);
    });
});

describe('the kernels cannot allocate their memory at start-up (defect class 7)', () => {
  it('under an address-space limit, a program using the library runs on the JavaScript path and exits 0', () => {
    // The library bundled from src/ by esbuild here (tsx itself compiles WebAssembly, which the limit refuses).
    const dir = mkdtempSync(join(tmpdir(), 'spatialhash-ulimit-'));
    try {
      const bundle = join(dir, 'library.mjs');
      buildSync({
        entryPoints: [join(root, 'src/index.ts')],
        bundle: true,
        format: 'esm',
        outfile: bundle,
        logLevel: 'silent',
      });
      const program = join(dir, 'program.mjs');
      writeFileSync(
        program,
        [
          "import * as M from './library.mjs';",
          'const grid = new M.PointGrid2D(new Float64Array([0, 0, 1, 0, 2, 0]), { cellSize: 1 });',
          'const welded = M.weld(new Float64Array([0, 0, 0, 0, 0, 0.01]), 0.1).count;',
          'console.log(JSON.stringify([M.activeKernels(), grid.within(0, 0, 1.5), welded]));',
        ].join('\n'),
      );
      const run = spawnSync('bash', ['-c', 'ulimit -v 8000000 && exec "$0" "$1"', process.execPath, program], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.stderr).not.toMatch(/could not allocate|Unhandled|RangeError/);
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout.trim())).toEqual(['javascript', [0, 1], 1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a trap of the WebAssembly machine (which the kernels' own bounds should never let happen)", () => {
  for (const d of [2, 3] as const)
    it(`${d}D: is an Error naming the call, and the grid whose copy it wrote over is copied in afresh`, () => {
      const positions = points(300, d, 8, 7);
      const grid = make(d, positions, { cellSize: 1 });
      const want = brutePairs(positions, d, 1);
      expect(pairStrings(grid.pairs(1))).toEqual(want);
      const q = [2, 3, 4].slice(0, d);
      expect(within(grid, q, 1.5)).toEqual(bruteWithin(positions, d, q, 1.5));
      const k = kernels()!;
      expect(k.mirrorData).toBe(grid.data);
      // A kernel that runs past the memory's end after writing over the mirror (prefix sums from the mirror's cell
      // starts on): what the memory holds is then no one's grid, and trapError must say so (mirror.ts).
      const cellStart = k.f64[(GRID_RECORD >> 3) + GRID_CELL_START];
      const past = (k.memory.buffer.byteLength - cellStart) / 4 + 16;
      expect(() => guarded('a test kernel', () => k.exports.prefixSums(cellStart, past, 0))).toThrow(
        /a test kernel stopped in the WebAssembly kernels/,
      );
      expect(k.mirrorData).toBeUndefined();
      expect(k.queryGrid).toBeUndefined();
      expect(within(grid, q, 1.5)).toEqual(bruteWithin(positions, d, q, 1.5));
      expect(pairStrings(grid.pairs(1))).toEqual(want);
    });
});

it('activeKernels() is wasm in this test process (the tests above ran on the kernels)', () => {
  expect(activeKernels()).toBe('wasm');
});
