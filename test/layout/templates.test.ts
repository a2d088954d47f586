/**
 * The files generated from the kernel templates (src/templates/, see scripts/expand-templates.mjs) are what
 * their templates make now: an edit of a generated file, or a template edited without `npm run build`, fails
 * here. Each generated file names its template in its first line.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

describe('the expander (scripts/expand-templates.mjs)', () => {
  // @ts-expect-error: a plain ES module of the build, without declarations.
  const load = () => import('../../scripts/expand-templates.mjs');

  /** The outputs of a template of these lines, written to a temporary file. */
  async function expand(lines: string[]): Promise<{ path: string; text: string }[]> {
    const { expandTemplate } = (await load()) as {
      expandTemplate: (file: string) => { path: string; text: string }[];
    };
    const dir = mkdtempSync(join(tmpdir(), 'spatialhash-template-'));
    try {
      const file = join(dir, 'probe.template.ts');
      writeFileSync(file, `${lines.join('\n')}\n`);
      return expandTemplate(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('expands block macros indented as their call, drops the comments of macros, and splits statements for AssemblyScript', async () => {
    const [as] = await expand([
      '//#output as src/probe.ts',
      '// About the macro: stays in the template.',
      '//#macro as swap(a, b)',
      'const t = a;',
      'a = b;',
      'b = t;',
      '//#endmacro',
      '//#macro all both() = let x = 1; let y = 2',
      'export function f(): i32 {',
      '  @both();',
      '  for (let i = 0; i < 2; i++) {',
      '    @swap(x, y)',
      '  }',
      "  // A comment; not split, nor 'this; string'.",
      '  return x;',
      '}',
    ]);
    const body = as.text.split('\n').slice(2).join('\n');
    expect(body).not.toContain('About the macro');
    expect(body).toContain('  let x = 1;\n  let y = 2;\n');
    expect(body).toContain('    const t = x;\n    x = y;\n    y = t;\n');
    expect(body).toContain('  for (let i = 0; i < 2; i++) {');
    expect(body).toContain("  // A comment; not split, nor 'this; string'.");
  });

  it("has the shared macros (src/templates/shared-macros.ts): @in3D's line in 3D only, no blank line in 2D", async () => {
    const [as] = await expand([
      '//#output as src/probe.ts',
      '//#macro all three() = 3',
      '//#for D of 2 3',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the expander's ${D}, not a template literal's.
      'export function f${D}(): i32 {',
      '  let s = 0;',
      '  @in3D(s += @three();)',
      '  return s;',
      '}',
      '//#endfor',
    ]);
    const body = as.text;
    expect(body).toContain('export function f2(): i32 {\n  let s = 0;\n  return s;\n}');
    expect(body).toContain('export function f3(): i32 {\n  let s = 0;\n  s += 3;\n  return s;\n}');
  });

  it("picks a variant's macro (all.count, js2.rows) over a dimension's and a target's", async () => {
    const [as] = await expand([
      '//#output as src/probe.ts',
      '//#macro all name() = plain',
      '//#macro as3 name() = three',
      '//#macro all.count name() = counted',
      '//#macro as3.count name() = counted3',
      '//#for VARIANT of rows count',
      '//#for D of 2 3',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the expander's names, not a template literal's.
      'let ${VARIANT}${D} = @name();',
      '//#endfor',
      '//#endfor',
    ]);
    expect(as.text).toContain(
      'let rows2 = plain;\nlet rows3 = three;\nlet count2 = counted;\nlet count3 = counted3;\n',
    );
  });

  it('refuses a block macro called with the wrong number of arguments, and a shared macro redefined', async () => {
    await expect(
      expand(['//#output as src/probe.ts', '//#for D of 3', '  @in3D(let a = 1, b = 2;)', '//#endfor']),
    ).rejects.toThrow(/@in3D takes 1 arguments, got 2/);
    await expect(expand(['//#output as src/probe.ts', '//#macro all in3D(x) = x'])).rejects.toThrow(
      /@in3D is a macro of every template/,
    );
  });

  it('refuses a block macro called inside a line, and a block macro left open', async () => {
    await expect(
      expand(['//#output as src/probe.ts', '//#macro as m()', 'x();', '//#endmacro', 'y = @m();']),
    ).rejects.toThrow(/block macro @m called within a line/);
    await expect(expand(['//#output as src/probe.ts', '//#macro as m()', 'x();'])).rejects.toThrow(
      /block macro without its \/\/#endmacro/,
    );
  });
});
