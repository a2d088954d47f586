/**
 * The kernel switch and the embedded module: modes, their errors, and that the
 * committed module is what the AssemblyScript sources compile to.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { activeKernels, PointGrid2D, releaseKernelMemory, setKernelMode } from '../../src/index.js';
import { kernelModule } from '../../src/wasm/kernels.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

afterEach(() => setKernelMode('auto'));

describe('setKernelMode', () => {
  it('switches between the kernels and the JavaScript path', () => {
    expect(activeKernels()).toBe('wasm');
    setKernelMode('javascript');
    expect(activeKernels()).toBe('javascript');
    setKernelMode('wasm');
    expect(activeKernels()).toBe('wasm');
    expect(kernelModule()).toBeInstanceOf(WebAssembly.Module);
  });

  it('rejects anything but the four modes with a RangeError naming the value, and keeps the mode', () => {
    setKernelMode('javascript');
    for (const bad of ['WASM', 'js', '', null, undefined, 1, {}]) {
      expect(() => setKernelMode(bad as never)).toThrow(RangeError);
    }
    expect(() => setKernelMode('js' as never)).toThrow(/'auto', 'wasm', 'javascript' or 'verify', got "js"/);
    expect(activeKernels()).toBe('javascript');
  });

  it('gives the same grid either way, and a rejected build leaves it as it was', () => {
    const positions = Float64Array.from({ length: 400 }, (_, k) => ((k * 37) % 101) / 7);
    setKernelMode('wasm');
    const grid = new PointGrid2D(positions, { cellSize: 1 });
    const before = new Uint8Array(grid.data.slice(0));
    const bad = positions.slice();
    bad[77] = Number.NaN;
    expect(() => grid.rebuild(bad)).toThrow(/point 38 /);
    expect(new Uint8Array(grid.data.slice(0))).toEqual(before);
    setKernelMode('javascript');
    expect(new Uint8Array(new PointGrid2D(positions, { cellSize: 1 }).data)).toEqual(before);
  });
});

/** `n` 2D points spread over [0, side)², deterministic (a Lehmer generator). */
function scattered(n: number, side: number): Float64Array {
  let state = 12345;
  return Float64Array.from({ length: 2 * n }, () => {
    state = (state * 48271) % 2147483647;
    return (state / 2147483647) * side;
  });
}

describe('releaseKernelMemory', () => {
  it('gives the grown memory back, and every call after it answers as before', () => {
    setKernelMode('wasm');
    const positions = scattered(20_000, 100);
    const grid = new PointGrid2D(positions, { cellSize: 1 });
    const neighbors = grid.neighbors(1);
    const pairs = grid.pairs(1);
    const within = grid.within(50, 50, 3);
    const many = grid.withinMany(positions.subarray(0, 2000), 0.5);
    // The grid and the partner lists of 20,000 points took more than the 1 MiB a fresh memory has.
    expect(releaseKernelMemory()).toBeGreaterThan(1 << 20);
    expect(releaseKernelMemory()).toBe(1 << 20);
    // The grid's copy went with the memory: the next calls copy it in again.
    expect(grid.within(50, 50, 3)).toEqual(within);
    expect(grid.withinMany(positions.subarray(0, 2000), 0.5)).toEqual(many);
    expect(releaseKernelMemory()).toBeGreaterThanOrEqual(1 << 20);
    expect(grid.neighbors(1)).toEqual(neighbors);
    expect(grid.pairs(1)).toEqual(pairs);
    releaseKernelMemory();
    grid.rebuild();
    expect(grid.neighbors(1)).toEqual(neighbors);
    setKernelMode('javascript');
    expect(grid.neighbors(1)).toEqual(neighbors);
  });

  it('does nothing while a forEachPair visitor runs on the kernels, whose search then ends as it would have', () => {
    setKernelMode('wasm');
    const positions = scattered(5000, 40);
    const grid = new PointGrid2D(positions, { cellSize: 1 });
    const seen: number[] = [];
    let released = -1;
    grid.forEachPair(1, (i, j) => {
      if (released < 0) released = releaseKernelMemory();
      seen.push(i, j);
    });
    expect(released).toBe(0);
    setKernelMode('javascript');
    const expected: number[] = [];
    grid.forEachPair(1, (i, j) => expected.push(i, j));
    expect(seen).toEqual(expected);
    expect(releaseKernelMemory()).toBeGreaterThan(0);
  });
});

describe('the embedded module', () => {
  it('and the interface of its exports are what src/wasm/assembly compiles to (npm run build writes them)', () => {
    // Exits non-zero, naming the file, when src/wasm/binary.ts or src/wasm/exports.ts is stale.
    execFileSync(process.execPath, [join(root, 'scripts/build-wasm.mjs'), '--check'], { cwd: root, stdio: 'pipe' });
  }, 60_000);
});
