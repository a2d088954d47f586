/**
 * The code blocks of README.md and docs/**\/*.md that are not programs
 * (those are snippets.test.ts's):
 *
 * - ` ```<lang> file=<path> `: the block's text equals that file (configs the
 *   consumer apps really use).
 * - ` ```sh ` (or `bash`, `shell`): every `npm run <x>` (and `npm test`,
 *   `npm start`) names a script of package.json, and every repository path it
 *   names exists (or lies under a build output that .gitignore lists, such as
 *   dist/ or docs/api/). A repository path is a word whose first segment is
 *   an entry of the repository's root (`e2e/run.ts`, `scripts/x.mjs`); other
 *   file names (`model.stl`, `out/`) are the user's.
 * - ` ```wgsl `: compiled by the GPU tests (test/webgpu/), not here.
 * - ` ```text ` / ` ```console `: output, not checked.
 *
 * Any other language is an error: a block must be checked or say it is output.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CodeBlock, codeBlocks } from '../support/code-blocks.js';
import { docFiles, readDoc, root } from './markdown.js';

const PROGRAMS = new Set(['ts', 'typescript', 'js', 'javascript']);
const SHELL = new Set(['sh', 'bash', 'shell']);
const UNCHECKED = new Set(['wgsl', 'text', 'console']);

const scripts = Object.keys(
  (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
);

/** Build outputs: the folders .gitignore lists (`dist/`, `docs/api/`...), which exist once built. */
const outputs = readFileSync(join(root, '.gitignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line.endsWith('/') && !line.startsWith('#'))
  .map((line) => line.replace(/^\//, ''));

/** The names at the repository's root: a shell word starting with one of them is a repository path. */
const rootEntries = new Set(readdirSync(root));

/** Problems with one shell block, each naming the Markdown line. */
function shellProblems(code: string, where: (offset: number) => string, scriptNames = scripts): string[] {
  const problems: string[] = [];
  code.split('\n').forEach((rawLine, offset) => {
    const line = rawLine.replace(/(^|\s)#.*$/, '');
    for (const command of line.split(/&&|\|\||[;|]/)) {
      const words = command.trim().split(/\s+/).filter(Boolean);
      // Leading VAR=value assignments are the environment, not the command.
      while (words[0]?.includes('=')) words.shift();
      if (words.length === 0) continue;
      const [program, sub, name] = words;
      if (program === 'npm' && (sub === 'run' || sub === 'run-script')) {
        if (name === undefined || !scriptNames.includes(name))
          problems.push(`${where(offset)}: no npm script "${name}"`);
      } else if (program === 'npm' && (sub === 'test' || sub === 't' || sub === 'start')) {
        const script = sub === 't' ? 'test' : sub;
        if (!scriptNames.includes(script)) problems.push(`${where(offset)}: no npm script "${script}"`);
      }
      // npm install / apt-get install take package names, not paths.
      const takesPackages =
        (program === 'npm' && /^(i|install|add|ci)$/.test(sub ?? '')) || /^apt(-get)?$/.test(program ?? '');
      if (takesPackages) continue;
      for (const word of words.slice(1)) {
        const path = word.replace(/^['"]|['"]$/g, '');
        const looksLikePath =
          !/^[-@$~/]/.test(path) && !path.includes('=') && !/^[a-z]+:/i.test(path) && /[/]|\.\w{1,4}$/.test(path);
        if (!looksLikePath) continue;
        const relativePath = path.replace(/^\.\//, '');
        const first = relativePath.split('/')[0] as string;
        const inRepo = rootEntries.has(first) || outputs.some((output) => output.split('/')[0] === first);
        if (!inRepo || existsSync(join(root, relativePath))) continue;
        if (outputs.some((output) => relativePath === output.slice(0, -1) || relativePath.startsWith(output))) continue;
        problems.push(`${where(offset)}: ${relativePath} does not exist`);
      }
    }
  });
  return problems;
}

/** Problems with one block that is not a program: file equality, shell commands, or an unknown language. */
function blockProblems(markdownFile: string, block: CodeBlock): string[] {
  const at = `${markdownFile}:${block.line}`;
  if (block.file !== undefined) {
    const path = join(root, block.file);
    if (!existsSync(path)) return [`${at}: file=${block.file} does not exist`];
    const file = readFileSync(path, 'utf8');
    return file.replace(/\n?$/, '\n') === block.code ? [] : [`${at}: differs from ${block.file}`];
  }
  if (PROGRAMS.has(block.lang) || UNCHECKED.has(block.lang)) return [];
  if (SHELL.has(block.lang)) return shellProblems(block.code, (offset) => `${markdownFile}:${block.line + 1 + offset}`);
  return [
    `${at}: language "${block.lang}" is not checked: use ts, js, sh, wgsl, <lang> file=<path>, or text/console for output`,
  ];
}

describe('non-program code blocks in the docs', () => {
  it.each(docFiles())('%s: file blocks equal their files, shell blocks name what exists', (markdownFile) => {
    const problems = codeBlocks(readDoc(markdownFile)).flatMap((block) => blockProblems(markdownFile, block));
    expect(problems).toEqual([]);
  });

  it('finds a missing script, a missing path, and passes real ones', () => {
    const code = [
      'npm install      # dev tools',
      'npm test && npm run docs',
      'npm run no-such-script',
      'SPATIALHASH_BENCH_THREADS=1,2 npm run bench -- parallel',
      'npx tsx e2e/run.ts grid',
      'node scripts/no-such-file.mjs',
      'npm install three @webgpu/types',
      'ls dist/esm/index.js docs/api/index.html ./src/index.ts',
      'npx spatialhash weld model.stl -o out/model.stl --tolerance 1e-5 && cat ./src/nope.ts',
    ].join('\n');
    expect(shellProblems(code, (offset) => `x:${offset + 1}`)).toEqual([
      'x:3: no npm script "no-such-script"',
      'x:6: scripts/no-such-file.mjs does not exist',
      'x:9: src/nope.ts does not exist',
    ]);
    expect(shellProblems('npm start', () => 'y', ['test'])).toEqual(['y: no npm script "start"']);
  });

  it('rejects a block in a language nobody checks, and a file block that differs', () => {
    const [json, file] = codeBlocks('```json\n{}\n```\n```json file=package.json\n{}\n```\n');
    expect(blockProblems('z.md', json as CodeBlock)).toEqual([expect.stringContaining('"json" is not checked')]);
    expect(blockProblems('z.md', file as CodeBlock)).toEqual(['z.md:4: differs from package.json']);
  });
});
