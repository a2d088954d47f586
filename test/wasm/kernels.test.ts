/**
 * The kernel switch and the embedded module: modes, their errors, and that the
 * committed module is what the AssemblyScript sources compile to.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { activeKernels, PointGrid2D, setKernelMode } from '../../src/index.js';
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

  it('rejects anything but the three modes with a RangeError naming the value, and keeps the mode', () => {
    setKernelMode('javascript');
    for (const bad of ['WASM', 'js', '', null, undefined, 1, {}]) {
      expect(() => setKernelMode(bad as never)).toThrow(RangeError);
    }
    expect(() => setKernelMode('js' as never)).toThrow(/'auto', 'wasm' or 'javascript', got "js"/);
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

describe('the embedded module', () => {
  it('is what src/wasm/assembly compiles to (npm run build writes it)', () => {
    // Exits non-zero, naming the file, when src/wasm/binary.ts is stale.
    execFileSync(process.execPath, [join(root, 'scripts/build-wasm.mjs'), '--check'], { cwd: root, stdio: 'pipe' });
  }, 60_000);
});
