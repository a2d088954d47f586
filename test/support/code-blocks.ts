/**
 * The fenced code blocks of a Markdown text, as the doc tests read them. One
 * extractor for every test that checks snippets (test/docs/ for TypeScript,
 * shell, file and link checks; test/webgpu/ for WGSL), so that they agree on
 * what a block is and what its info string says. `docBlocks()` gives every
 * block of the docs (README.md and docs/**\/*.md) with its file.
 *
 * The info string is the language, then space-separated words: `browser`
 * (type-check only), `file=<repo-relative path>` (the block must equal that
 * file). Fences are CommonMark's: three or more backticks or tildes, indented
 * at most three spaces beyond their list item (any indentation is accepted
 * here and removed from the content, as a list item's is); a block runs to a
 * closing fence of the same character at least as long, or to the end of the
 * text.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One fenced code block. */
export interface CodeBlock {
  /** The first word of the info string, lower-cased (`ts`, `js`, `sh`, `wgsl`...); `''` when none. */
  lang: string;
  /** The whole info string, trimmed. */
  info: string;
  /** `true` when the info string holds the word `browser`: compile, never run. */
  browser: boolean;
  /** The path after `file=`, when present. */
  file: string | undefined;
  /** The block's text, its fence's indentation removed, with a final newline when it has any line. */
  code: string;
  /** 1-based line of the opening fence in the Markdown text. */
  line: number;
}

const OPENING = /^(\s*)(`{3,}|~{3,})(.*)$/;

/** Every fenced code block of `markdown`, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPENING.exec(lines[i] as string);
    if (!open) continue;
    const indent = (open[1] as string).length;
    const fence = open[2] as string;
    const info = (open[3] as string).trim();
    // A backtick fence's info string may not hold a backtick (CommonMark): that line is inline code.
    if (fence[0] === '`' && info.includes('`')) continue;
    const closing = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !closing.test(lines[j] as string); j++) {
      const text = lines[j] as string;
      // Remove up to the fence's indentation, never text.
      let cut = 0;
      while (cut < indent && text[cut] === ' ') cut++;
      body.push(text.slice(cut));
    }
    const words = info.split(/\s+/).filter((word) => word !== '');
    const fileWord = words.find((word) => word.startsWith('file='));
    blocks.push({
      lang: words[0] === undefined || words[0].includes('=') ? '' : words[0].toLowerCase(),
      info,
      browser: words.includes('browser'),
      file: fileWord === undefined ? undefined : fileWord.slice('file='.length),
      code: body.length === 0 ? '' : `${body.join('\n')}\n`,
      line: i + 1,
    });
    i = j;
  }
  return blocks;
}

/** The repository root, without a trailing separator. */
export const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url)).replace(/[\\/]$/, '');

function markdownUnder(dir: string, skip: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skip(path) ? [] : markdownUnder(path, skip);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/**
 * The Markdown files users read, as repository-relative paths with forward
 * slashes, sorted: README.md and every .md under docs/ except the generated
 * API site (docs/api/).
 */
export function docFiles(): string[] {
  const generated = join(repositoryRoot, 'docs', 'api');
  const guides = markdownUnder(join(repositoryRoot, 'docs'), (dir) => dir === generated);
  return ['README.md', ...guides.map((file) => relative(repositoryRoot, file).split('\\').join('/'))].sort();
}

/**
 * Every code block of the docs (see {@link docFiles}), with the file it is in:
 * what the doc tests check, and what the GPU tests take their WGSL blocks from
 * (`docBlocks().filter(({ block }) => block.lang === 'wgsl')`).
 */
export function docBlocks(): { file: string; block: CodeBlock }[] {
  return docFiles().flatMap((file) =>
    codeBlocks(readFileSync(join(repositoryRoot, file), 'utf8')).map((block) => ({ file, block })),
  );
}

/** A program block of the docs: TypeScript or JavaScript, not a `file=` block. */
export interface ProgramBlock {
  /** The Markdown file, repository-relative. */
  file: string;
  /** `README.md:12`: where the block opens. */
  where: string;
  /** A module file name for it, from its file and line: `README_md_L12.ts` (`.js` for JavaScript). */
  module: string;
  block: CodeBlock;
}

const PROGRAM_EXTENSIONS: Record<string, string> = { ts: 'ts', typescript: 'ts', js: 'js', javascript: 'js' };

/**
 * The program blocks of the docs: what test/docs/snippets.test.ts compiles and
 * runs against src/, and scripts/test-package.mjs (through
 * scripts/doc-programs.ts) typechecks against the packed tarball.
 */
export function programBlocks(): ProgramBlock[] {
  return docBlocks().flatMap(({ file, block }) => {
    const extension = PROGRAM_EXTENSIONS[block.lang];
    if (extension === undefined || block.file !== undefined) return [];
    const module = `${file.replace(/[^\w]/g, '_')}_L${block.line}.${extension}`;
    return [{ file, where: `${file}:${block.line}`, module, block }];
  });
}
