/**
 * The files generated from the kernel templates (src/templates/, see scripts/expand-templates.mjs) are what
 * their templates make now: an edit of a generated file, or a template edited without `npm run build`, fails
 * here. Each generated file names its template in its first line.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the build, without declarations.
import { expandAll } from '../../scripts/expand-templates.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the generated kernel files', () => {
  const outputs = expandAll() as { path: string; text: string }[];

  it('include the JavaScript path and the kernels of within', () => {
    const paths = outputs.map((o) => o.path);
    expect(paths).toContain('src/pointgrid/within-rows.ts');
    expect(paths).toContain('src/wasm/assembly/within-rows.ts');
  });

  for (const { path, text } of outputs)
    it(`${path} is what its template makes (npm run build writes it)`, () => {
      const committed = readFileSync(join(root, path), 'utf8');
      expect(committed.split('\n')[0]).toMatch(/^\/\/ Generated from src\/templates\/[\w-]+\.template\.ts/);
      expect(committed === text, `${path} differs from its template's expansion: run npm run build`).toBe(true);
    });

  it('the check mode of the expander agrees', () => {
    expect(() =>
      execFileSync(process.execPath, [join(root, 'scripts/expand-templates.mjs'), '--check'], { cwd: root }),
    ).not.toThrow();
  });
});
