/**
 * The GPU guide's SPH density pass is a `ts browser` block: type-checked
 * here, but only a page with WebGPU can run it. The GPU tests run
 * test/webgpu/density.ts instead, so the guide's block must be that file's
 * text between its markers, with the import a user writes. The demo's GPU
 * page, whose text names this pass, runs that file's `sphDensity` too (the
 * e2e run checks its densities against brute force).
 */
import { describe, expect, it } from 'vitest';
import { codeBlocks } from '../support/code-blocks.js';
import { readDoc } from './markdown.js';

const START = '// GPU guide example start\n';
const END = '// GPU guide example end\n';

/** The text of `file` between its example markers, and the import line above them. */
function marked(text: string): { imports: string; example: string } {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  expect(start).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  const imports = text
    .slice(0, start)
    .split('\n')
    .filter((line) => line.startsWith('import '));
  return { imports: imports.join('\n'), example: text.slice(start + START.length, end) };
}

describe("the GPU guide's density example", () => {
  it('is test/webgpu/density.ts between its markers, importing from spatialhash/webgpu', () => {
    const { imports, example } = marked(readDoc('test/webgpu/density.ts'));
    const blocks = codeBlocks(readDoc('docs/guides/gpu.md')).filter((block) => block.code.includes('sphDensity'));
    expect(blocks).toHaveLength(1);
    const block = blocks[0]!;
    expect(block.browser).toBe(true);
    expect(imports).toBe("import { GPUPointGrid3D, wgsl } from '../../src/webgpu/index.js';");
    expect(block.code).toBe(`import { GPUPointGrid3D, wgsl } from 'spatialhash/webgpu';\n\n${example}`);
  });

  it("is what the demo's GPU page runs, as the page says", () => {
    const page = readDoc('demo/gpu.ts');
    expect(page).toContain("import { sphDensity } from '../test/webgpu/density.js';");
    expect(page).toMatch(/=\s*sphDensity\(device,/);
    expect(readDoc('demo/gpu.html')).toMatch(/the GPU guide's density\s+pass/);
  });
});
