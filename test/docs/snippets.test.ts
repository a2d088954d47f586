/**
 * Every TypeScript and JavaScript block of README.md and docs/**\/*.md is a
 * complete program that compiles and, unless marked `browser`, runs:
 *
 * - ` ```ts ` / ` ```js `: type-checked with TypeScript 7 under the repository's
 *   strict settings plus `exactOptionalPropertyTypes` (users paste the blocks
 *   into strict configs), then imported here (in Node), so it runs top to bottom.
 *   It imports what it uses (`spatialhash`, `spatialhash/workers`, ...: these
 *   resolve to src/, see vitest.config.ts and the paths below), asserts what
 *   it shows (throws on a wrong answer) and finishes in well under a second.
 * - ` ```ts browser ` / ` ```js browser `: type-checked only (the DOM types are
 *   there), for code that only a page can run (WebGPU, Web Workers).
 * - A block with `file=<path>` is checked against that file instead
 *   (blocks.test.ts), as are the other languages.
 *
 * Each block becomes a module in test/docs/.snippets/ (git-ignored, removed
 * afterwards), named after its file and line; a compile error is reported at
 * the Markdown file's line.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeBlock, programBlocks } from '../support/code-blocks.js';
import { root } from './markdown.js';

const SNIPPETS = 'test/docs/.snippets';

interface Snippet {
  /** `README.md:12`: where the block opens. */
  where: string;
  /** Repository-relative path of the module written for it. */
  module: string;
  block: CodeBlock;
  markdownFile: string;
}

/** A deliberate type error, checked with the blocks. */
const CANARY: Snippet = {
  where: 'canary:1',
  module: `${SNIPPETS}/canary.ts`,
  block: { lang: 'ts', info: 'ts', browser: true, file: undefined, code: "const wrong: number = 'text';\n", line: 0 },
  markdownFile: 'canary',
};

function collect(): Snippet[] {
  return programBlocks().map(({ file, where, module, block }) => ({
    where,
    module: `${SNIPPETS}/${module}`,
    block,
    markdownFile: file,
  }));
}

/** tsc's diagnostics (`--pretty false` lines) per snippet module; config errors under ''. */
function typeCheck(snippets: Snippet[]): Map<string, string[]> {
  const dir = join(root, SNIPPETS);
  const up = '../../..';
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify(
      {
        extends: `${up}/tsconfig.json`,
        compilerOptions: {
          noEmit: true,
          allowJs: true,
          checkJs: true,
          moduleDetection: 'force',
          // What users of strict configs paste the blocks into (the repository's own code is checked without them).
          exactOptionalPropertyTypes: true,
          paths: { spatialhash: [`${up}/src/index.ts`], 'spatialhash/*': [`${up}/src/*/index.ts`] },
        },
        include: [],
        // The declarations of the untyped peers that blocks may import too (d3-force-3d in the d3 guide).
        files: [`${up}/bench/types.d.ts`, ...snippets.map((snippet) => `${up}/${snippet.module}`)],
      },
      null,
      2,
    ),
  );
  let output = '';
  try {
    execFileSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', `${SNIPPETS}/tsconfig.json`, '--pretty', 'false'],
      {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
  } catch (error) {
    output =
      String((error as { stdout?: unknown }).stdout ?? '') + String((error as { stderr?: unknown }).stderr ?? '');
  }
  const byModule = new Map<string, string[]>();
  let current = '';
  for (const line of output.split('\n')) {
    if (line.trim() === '') continue;
    const located = /^(.*?)\((\d+),(\d+)\): (error .*)$/.exec(line);
    if (located) {
      current = (located[1] as string).split('\\').join('/');
      const snippet = snippets.find((s) => s.module === current);
      // Report at the Markdown line: the block's text starts the line after its fence.
      const text = snippet
        ? `${snippet.markdownFile}:${snippet.block.line + Number(located[2])}:${located[3]} ${located[4]}`
        : line;
      if (!snippet) current = '';
      byModule.set(current, [...(byModule.get(current) ?? []), text]);
    } else {
      // A continuation line of the last diagnostic, or a message with no location (a config error).
      byModule.set(current, [...(byModule.get(current) ?? []), line]);
    }
  }
  return byModule;
}

describe('code blocks in the docs', () => {
  const snippets = collect();
  let diagnostics = new Map<string, string[]>();

  beforeAll(() => {
    rmSync(join(root, SNIPPETS), { recursive: true, force: true });
    mkdirSync(join(root, SNIPPETS), { recursive: true });
    for (const snippet of snippets) writeFileSync(join(root, snippet.module), snippet.block.code);
    // A block that must fail to compile, so a check that reports nothing proves something.
    writeFileSync(join(root, CANARY.module), CANARY.block.code);
    diagnostics = typeCheck([...snippets, CANARY]);
  }, 120_000);

  afterAll(() => {
    rmSync(join(root, SNIPPETS), { recursive: true, force: true });
  });

  it('the type check ran, with no error outside the blocks (in src/ or the config)', () => {
    expect(snippets.length).toBeGreaterThan(0);
    // Errors in src/ under these settings, or a config error, would say nothing about the blocks.
    expect(diagnostics.get('') ?? []).toEqual([]);
    expect(diagnostics.get(CANARY.module)).toEqual([expect.stringMatching(/^canary:1:7 error TS2322: /)]);
  });

  it.each(snippets.map((snippet) => [snippet.where, snippet] as const))(
    '%s compiles, and runs unless marked browser',
    async (_where, snippet) => {
      expect(diagnostics.get(snippet.module) ?? []).toEqual([]);
      if (!snippet.block.browser) await import(/* @vite-ignore */ join(root, snippet.module));
    },
    20_000,
  );
});
