/**
 * What the doc tests read: the Markdown files users see (README.md and every
 * .md under docs/, except the generated API site; for references and links
 * also the CHANGELOG, the CLI's README and bench/RESULTS.md), their links and
 * the anchors their headings make on GitHub.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docFiles, repositoryRoot } from '../support/code-blocks.js';

export { docFiles };

/**
 * Every Markdown file whose references a reader follows: the docs (README.md
 * and docs/), the CHANGELOG (it ships in the tarball), the CLI package's
 * README and the bench results the docs quote.
 */
export function proseFiles(): string[] {
  return [...docFiles(), 'CHANGELOG.md', 'bench/RESULTS.md', 'packages/cli/README.md'].sort();
}

/** The repository root. */
export const root = repositoryRoot;

/** The text of a repository-relative file. */
export function readDoc(file: string): string {
  return readFileSync(join(root, file), 'utf8');
}

/** `markdown` with every fenced code block's lines blanked, line numbers kept; everything else as it was. */
export function blankFences(markdown: string): string {
  const lines = markdown.split('\n');
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === undefined && open) {
      fence = open[1] as string;
      lines[i] = '';
    } else if (fence !== undefined) {
      if (new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(line)) fence = undefined;
      lines[i] = '';
    }
  }
  return lines.join('\n');
}

/**
 * `markdown` with every fenced code block's lines blanked (line numbers kept);
 * inline code is removed, or with `keepInlineCode` kept without its backticks
 * (a heading's `code` counts in its anchor).
 */
export function proseOnly(markdown: string, keepInlineCode = false): string {
  return blankFences(markdown)
    .split('\n')
    .map((line) => line.replace(/(`+)((?:(?!\1)[\s\S])*?)\1/g, keepInlineCode ? '$2' : ''))
    .join('\n');
}

/** One link of a Markdown text. */
export interface Link {
  target: string;
  line: number;
}

/** Inline links and images `[text](target)`, reference definitions `[x]: target` and HTML `href`/`src`, outside code. */
export function links(markdown: string): Link[] {
  const found: Link[] = [];
  proseOnly(markdown)
    .split('\n')
    .forEach((line, index) => {
      const patterns = [
        /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
        /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g,
        /\s(?:href|src)="([^"]+)"/g,
      ];
      for (const pattern of patterns) {
        for (const match of line.matchAll(pattern)) found.push({ target: match[1] as string, line: index + 1 });
      }
    });
  return found;
}

/** GitHub's anchor for a heading text: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown text's headings make, numbered as GitHub does when a heading repeats (`x`, `x-1`). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of proseOnly(markdown, true).split('\n')) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}
