/**
 * The AssemblyScript kernels cannot import the TypeScript constants of
 * src/core/, so they hold copies of a few (the rounding margins, weld's reach
 * slack, the builds' small-cell bound, the cell hash's multipliers): each
 * copy, read from the kernels' source, must equal its original, or the two
 * paths would drift apart where tests rarely look (the margins decide only
 * points at the edge of rounding).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CELL_HASH_X, CELL_HASH_Y, CELL_HASH_Z } from '../../src/core/cell-hash.js';
import { SLACK, UNDERFLOW } from '../../src/core/margins.js';
import { SMALL_CELL } from '../../src/core/sort-keys.js';
import { REACH_SLACK } from '../../src/core/weld-cells.js';

const assembly = join(dirname(fileURLToPath(import.meta.url)), '../../src/wasm/assembly');

/**
 * The value of `const NAME: type = initializer;` in `file`: arithmetic of
 * number literals, or `reinterpret<f64>(0x...)` (the float64 of those bits).
 */
function kernelConstant(file: string, name: string): number {
  const text = readFileSync(join(assembly, file), 'utf8');
  const match = new RegExp(`const ${name}: \\w+ = ([^;]+);`).exec(text);
  if (match === null) throw new Error(`${file} defines no ${name}`);
  const initializer = match[1].trim();
  const bits = /^reinterpret<f64>\((0x[0-9a-f]+)\)$/i.exec(initializer);
  if (bits !== null) {
    const view = new DataView(new ArrayBuffer(8));
    view.setBigUint64(0, BigInt(bits[1]));
    return view.getFloat64(0);
  }
  if (!/^[\d.x+\-*/() a-f]+$/i.test(initializer)) throw new Error(`${file}: ${name} = ${initializer} is not a literal`);
  return Function(`return ${initializer};`)() as number;
}

describe("the kernels' copies of core's constants", () => {
  it('equal the originals', () => {
    expect(kernelConstant('margins.ts', 'SLACK')).toBe(SLACK);
    expect(kernelConstant('margins.ts', 'UNDERFLOW')).toBe(UNDERFLOW);
    expect(kernelConstant('weld-near.ts', 'REACH_SLACK')).toBe(REACH_SLACK);
    expect(kernelConstant('build-loops.ts', 'SMALL_CELL')).toBe(SMALL_CELL);
    expect(kernelConstant('cell-hash.ts', 'CELL_HASH_X')).toBe(CELL_HASH_X);
    expect(kernelConstant('cell-hash.ts', 'CELL_HASH_Y')).toBe(CELL_HASH_Y);
    expect(kernelConstant('cell-hash.ts', 'CELL_HASH_Z')).toBe(CELL_HASH_Z);
  });

  it('are read as the kernels define them (self-check)', () => {
    expect(kernelConstant('margins.ts', 'SLACK')).toBe(2 ** -48);
    expect(kernelConstant('margins.ts', 'UNDERFLOW')).toBe(2 ** -536);
    expect(() => kernelConstant('margins.ts', 'NO_SUCH_CONSTANT')).toThrow(/defines no NO_SUCH_CONSTANT/);
  });
});
