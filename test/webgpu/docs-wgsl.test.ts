/**
 * Every ```wgsl block of the docs (README.md and docs/**\/*.md, the list the
 * doc tests read: test/support/code-blocks.ts) compiles, in headless Chromium
 * on SwiftShader (see browser.ts), with `createShaderModule` and
 * `getCompilationInfo`.
 *
 * A block is compiled as one module placed after the grid's `wgsl` snippet,
 * as a user's shader includes it: it may use every `grid...` name the
 * snippet declares (bindings in group 1, `gridNeighbors`, `gridNext`,
 * `gridCellOf`, `gridBucketOf`...) and declares everything else it uses
 * itself. A block that is only statements does not compile: write it as a
 * function.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PointGrid3D } from '../../src/index.js';
import { wgsl } from '../../src/webgpu/index.js';
import { docBlocks } from '../support/code-blocks.js';
import { random } from '../support/random.js';
import { type GpuPage, openGpuPage } from './browser.js';

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
}, 120_000);
afterAll(async () => {
  await gpu?.close();
});

/**
 * The compiler's errors for a docs block whose first line is line
 * `firstLine` of `file`, each as `file:line: message`, the line in the
 * Markdown file.
 */
async function compileBlock(file: string, firstLine: number, code: string): Promise<string[]> {
  const prefix = `${wgsl}\n`;
  const errors = await gpu.call<string[]>('compileWgsl', prefix + code);
  const prefixLines = prefix.split('\n').length - 1;
  // Messages are "line:column message" in the compiled module; point them at the Markdown.
  return errors.map((error) => {
    const [, at, rest] = /^(\d+):\d+ ([\s\S]*)$/.exec(error) ?? [];
    const moduleLine = Number(at);
    const where =
      moduleLine > prefixLines
        ? `${file}:${firstLine + moduleLine - prefixLines - 1}`
        : `${file}:${firstLine} (in the grid's snippet)`;
    return `${where}: ${rest ?? error}`;
  });
}

describe('WGSL blocks of the docs', () => {
  const blocks = docBlocks().filter(({ block }) => block.lang === 'wgsl');

  it('the checker rejects a block that does not compile, and names its line', async () => {
    expect(await compileBlock('x.md', 10, 'fn ok() -> i32 { return gridCellOf(vec3<f32>(0.0)).x; }\n')).toEqual([]);
    const errors = await compileBlock('x.md', 10, 'fn ok() {}\nfn broken() -> u32 { return 1.5; }\n');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/^x\.md:11: /);
    // Statements alone are not a module; a block may not redeclare the snippet's names.
    expect(await compileBlock('x.md', 1, 'var it = gridNeighbors(vec3<f32>(0.0), 1.0);\n')).not.toEqual([]);
    expect(await compileBlock('x.md', 1, 'fn gridNext() {}\n')).not.toEqual([]);
  });

  it('the guides hold WGSL blocks, and every one compiles after the grid snippet', async () => {
    expect(blocks.length).toBeGreaterThan(0);
    const failures: string[] = [];
    for (const { file, block } of blocks) failures.push(...(await compileBlock(file, block.line + 1, block.code)));
    expect(failures).toEqual([]);
  });

  it("the GPU guide's densityAt (the gridNext short form, one invocation per sorted slot) equals PointGrid3D's pair search", async () => {
    const found = blocks.filter(({ block }) => block.code.includes('fn densityAt('));
    expect(found.map(({ file }) => file)).toEqual(['docs/guides/gpu.md']);
    const h = 0.5;
    const rand = random(33);
    // Multiples of 1/16: float32 and float64 distances agree exactly.
    const positions = Array.from({ length: 3 * 3000 }, () => Math.round(rand() * 6 * 16) / 16);
    const got = await gpu.call<number[]>('densityAt', { code: found[0].block.code, positions, h });
    const want = new Float64Array(3000).fill(h ** 6);
    new PointGrid3D(Float32Array.from(positions), { cellSize: h }).forEachPair(h, (i, j, d2) => {
      want[i] += (h * h - d2) ** 3;
      want[j] += (h * h - d2) ** 3;
    });
    let pairs = 0;
    for (let i = 0; i < 3000; i++) {
      expect(Math.abs(got[i] - want[i])).toBeLessThanOrEqual(1e-5 * want[i]);
      if (want[i] > h ** 6) pairs++;
    }
    expect(pairs).toBeGreaterThan(2000);
  });
});
