/**
 * Checks the API site that `npm run docs` built into docs/api/ (scripts/docs.mjs
 * runs this after TypeDoc; test/docs/api-site.test.ts tests it on small cases):
 *
 * - **Markdown accidents in TSDoc.** TypeDoc reads each comment as Markdown, so
 *   a wrapped line that happens to start with `>`, `-`, `*`, `+`, `#` or `1.`
 *   becomes a blockquote, a list or a heading (`cellSize` "Required, finite,
 *   > 0." lost its "> 0" to a blockquote). Every such element in a comment of
 *   the site is matched to the comment line in src/ it came from, and that
 *   line must mean it: a list item after a blank line, a line ending with `:`
 *   or another item of its list; a heading or blockquote after a blank line.
 *   An element whose source line cannot be found is reported too.
 * - **Links.** Every local `href` and `src` of every page resolves to a file of
 *   the site, and an anchor into a page names an id there (an inherited member
 *   whose page does not exist shows up here). A comment on one class's page
 *   must not link a member of another class that this class has too, unless
 *   the link names that class: a comment inherited from a base that is not
 *   documented resolves `{@link member}` to the first class that has it.
 * - **Module names.** The modules are named as users import them:
 *   `spatialhash`, and `spatialhash/<name>` for each subpath of package.json's
 *   exports, one module each (a module comment's `@module spatialhash/<name>`).
 *
 *   npx tsx scripts/check-api-site.ts   (after npm run docs)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

type Kind = 'blockquote' | 'heading' | 'list';

function kindOf(marker: string): Kind {
  return marker === '>' ? 'blockquote' : marker.startsWith('#') ? 'heading' : 'list';
}

/** A comment line that starts with Markdown block syntax. */
export interface MarkerLine {
  /** `src/...:line`. */
  where: string;
  /** The line as written, without the comment's ` * `. */
  text: string;
  kind: Kind;
  /** Every element its markers open (`> 1.` opens a blockquote and a list in it). */
  kinds: Kind[];
  /** Whether the comment's layout says the author meant the element. */
  meant: boolean;
  /** Letters and digits of the line without its markers and of the lines after it, lower-cased: what the element shows. */
  key: string;
}

const MARKER = /^(>|#{1,6}(?=\s)|[-*+](?=\s)|\d{1,9}[.)](?=\s|$))/;

/** Letters and digits only, lower-cased: compares rendered text with its source whatever the markup. */
function letters(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** The text TSDoc shows for a source line: `{@link A | b}` as b, `{@link A}` as A. */
function shown(line: string): string {
  return line.replace(/\{@\w+\s+([^}|]*?)\s*\|\s*([^}]*)\}/g, '$2').replace(/\{@\w+\s+([^}]*)\}/g, '$1');
}

/** The line without its leading markers, and the kinds of element they open. */
function stripMarkers(line: string): { rest: string; kinds: Kind[] } {
  let rest = line.trim();
  const kinds: Kind[] = [];
  for (let match = MARKER.exec(rest); match; match = MARKER.exec(rest)) {
    kinds.push(kindOf(match[0]));
    rest = rest.slice(match[0].length).trim();
  }
  return { rest, kinds };
}

/** The lines of each `/** ... *\/` comment of a source file, with their line numbers, outside fenced code. */
function commentBodies(source: string): { line: number; text: string }[][] {
  const comments: { line: number; text: string }[][] = [];
  const lines = source.split('\n');
  let current: { line: number; text: string }[] | undefined;
  let fenced = false;
  lines.forEach((raw, index) => {
    let text = raw;
    if (current === undefined) {
      const start = text.indexOf('/**');
      if (start < 0) return;
      current = [];
      fenced = false;
      text = text.slice(start + 3);
    } else {
      text = text.replace(/^\s*\*(?!\/)\s?/, '');
    }
    const end = text.indexOf('*/');
    const body = (end >= 0 ? text.slice(0, end) : text).replace(/\s+$/, '');
    if (/^\s*(```|~~~)/.test(body)) fenced = !fenced;
    else if (!fenced) current.push({ line: index + 1, text: body });
    if (end >= 0) {
      comments.push(current);
      current = undefined;
    }
  });
  return comments;
}

/** Every comment line of `source` that starts with Markdown block syntax, and whether its layout means it. */
export function markerLines(file: string, source: string): MarkerLine[] {
  const found: MarkerLine[] = [];
  for (const comment of commentBodies(source)) {
    let listOpen = false;
    comment.forEach(({ line, text }, i) => {
      const trimmed = text.trim();
      const previous = i === 0 ? '' : (comment[i - 1]?.text.trim() ?? '');
      const afterBreak = previous === '' || /^@\w+$/.test(previous);
      const marker = MARKER.exec(trimmed);
      // A list goes on through its items and their indented continuation lines; a blank or unindented line ends it.
      if (!marker && (trimmed === '' || !/^\s/.test(text))) listOpen = false;
      if (!marker) return;
      const kind = kindOf(marker[0]);
      const meant = kind === 'list' ? afterBreak || previous.endsWith(':') || listOpen : afterBreak;
      if (kind === 'list') listOpen = meant;
      const following = comment
        .slice(i + 1, i + 4)
        .map((next) => next.text)
        .join(' ');
      const { rest, kinds } = stripMarkers(trimmed);
      found.push({
        where: `${file}:${line}`,
        text: trimmed,
        kind,
        kinds,
        meant,
        key: letters(shown(`${rest} ${following}`)),
      });
    });
  }
  return found;
}

/** The inner HTML of every TSDoc comment on a TypeDoc page (`<div class="tsd-comment tsd-typography">`). */
export function commentBlocks(html: string): string[] {
  const blocks: string[] = [];
  const open = '<div class="tsd-comment tsd-typography">';
  for (let start = html.indexOf(open); start >= 0; start = html.indexOf(open, start + 1)) {
    const tags = /<\/?div\b[^>]*>/g;
    tags.lastIndex = start + open.length;
    let depth = 1;
    let end = html.length;
    for (let tag = tags.exec(html); tag; tag = tags.exec(html)) {
      depth += tag[0].startsWith('</') ? -1 : 1;
      if (depth === 0) {
        end = tag.index;
        break;
      }
    }
    blocks.push(html.slice(start + open.length, end));
  }
  return blocks;
}

function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Headings TypeDoc writes itself for block tags (`@throws` as "Throws"...), not from Markdown. */
const TAG_HEADINGS = new Set(['throws', 'example', 'remarks', 'returns', 'see', 'deprecated', 'since', 'defaultvalue']);

/**
 * The blockquotes, lists and headings in one comment block: their kind and
 * the text of their first paragraph, item or heading (up to 40 letters).
 */
export function blockElements(block: string): { kind: Kind; key: string }[] {
  const elements: { kind: Kind; key: string }[] = [];
  for (const match of block.matchAll(/<(blockquote|ul|ol|h[1-6])\b[^>]*>/g)) {
    const tag = match[1] as string;
    const after = block.slice((match.index ?? 0) + match[0].length);
    const first = after.split(/<\/(?:li|p|h[1-6]|blockquote|ul|ol)>/)[0] as string;
    const key = letters(textOf(first)).slice(0, 40);
    if (tag.startsWith('h') && TAG_HEADINGS.has(key)) continue;
    elements.push({ kind: tag.startsWith('h') ? 'heading' : tag === 'blockquote' ? 'blockquote' : 'list', key });
  }
  return elements;
}

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, suffix);
    return entry.name.endsWith(suffix) ? [path] : [];
  });
}

/**
 * Markdown accidents: the blockquotes, lists and headings in the site's
 * comments whose source line does not mean them, or whose source line
 * cannot be found. Guides (documents/) and the index page are Markdown
 * files, whose elements are meant: they are not scanned.
 */
export function markdownAccidents(site: string, src: string, root = resolve(src, '..')): string[] {
  const sources = filesUnder(src, '.ts').flatMap((file) =>
    markerLines(relative(root, file).split('\\').join('/'), readFileSync(file, 'utf8')),
  );
  const problems = new Set<string>();
  for (const page of filesUnder(site, '.html')) {
    const name = relative(site, page).split('\\').join('/');
    if (name.startsWith('documents/') || name === 'index.html') continue;
    for (const block of commentBlocks(readFileSync(page, 'utf8'))) {
      for (const element of blockElements(block)) {
        if (element.key === '') continue;
        const origins = sources.filter((line) => line.kinds.includes(element.kind) && line.key.startsWith(element.key));
        if (origins.length === 0) {
          problems.add(`${name}: a ${element.kind} ("${element.key}") whose comment line in src/ was not found`);
        } else if (origins.every((line) => !line.meant)) {
          for (const line of origins) {
            problems.add(
              `${line.where}: "${line.text}" starts a line inside a paragraph and became a ${line.kind} (${name})`,
            );
          }
        }
      }
    }
  }
  return [...problems].sort();
}

/**
 * Local links of the site that lead nowhere: a missing file, an anchor that
 * names no id of its page, or an "Inherited from X.m" that links nothing.
 */
export function brokenSiteLinks(site: string): string[] {
  const ids = new Map<string, Set<string>>();
  const idsOf = (page: string): Set<string> => {
    let found = ids.get(page);
    if (found === undefined) {
      found = new Set([...readFileSync(page, 'utf8').matchAll(/\sid="([^"]+)"/g)].map((m) => m[1] as string));
      ids.set(page, found);
    }
    return found;
  };
  const problems: string[] = [];
  for (const page of filesUnder(site, '.html')) {
    const html = readFileSync(page, 'utf8');
    for (const match of html.matchAll(/<p>((?:Inherited from|Overrides|Implementation of) [^<]+)<\/p>/g)) {
      problems.push(`${relative(site, page)}: "${match[1]}" names a member that has no page`);
    }
    for (const match of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
      const target = (match[1] as string).replace(/&amp;/g, '&');
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
      const file = path === '' ? page : resolve(dirname(page), decodeURIComponent(path));
      const name = `${relative(site, page)} -> ${target}`;
      if (!existsSync(file)) problems.push(`${name}: no such file`);
      else if (
        anchor !== undefined &&
        anchor !== '' &&
        file.endsWith('.html') &&
        !idsOf(file).has(decodeURIComponent(anchor))
      ) {
        problems.push(`${name}: no id "${anchor}" there`);
      }
    }
  }
  return problems;
}

/** Module pages whose name is not an import specifier of the package, and specifiers with no module page. */
export function moduleNameProblems(site: string, specifiers: string[]): string[] {
  const dir = join(site, 'modules');
  const names = (existsSync(dir) ? filesUnder(dir, '.html') : []).map((page) => {
    const title = /<h1>Module ([^<]+)<\/h1>/.exec(readFileSync(page, 'utf8'))?.[1];
    return title ?? `(no "Module ..." title in ${relative(site, page)})`;
  });
  return [
    ...names.filter((name) => !specifiers.includes(name)).map((name) => `module "${name}" is not an import specifier`),
    ...specifiers.filter((name) => !names.includes(name)).map((name) => `no module page named "${name}"`),
  ];
}

/** `spatialhash` and `spatialhash/<name>` for each subpath of package.json's exports whose source exists. */
function specifiers(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, unknown>;
  };
  return Object.keys(manifest.exports)
    .filter(
      (key) => key === '.' || (key !== './package.json' && existsSync(join(root, 'src', key.slice(2), 'index.ts'))),
    )
    .map((key) => (key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`));
}

/**
 * Links in a class's comments to the same member of another class (`bindGroup`
 * on GPUPointGrid3D's page leading to GPUPointGrid2D's), unless the link text
 * names that other class.
 */
export function strayMemberLinks(site: string): string[] {
  const dir = join(site, 'classes');
  if (!existsSync(dir)) return [];
  const problems: string[] = [];
  for (const page of filesUnder(dir, '.html')) {
    const html = readFileSync(page, 'utf8');
    const own = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1] as string));
    const self = relative(dir, page);
    for (const block of commentBlocks(html)) {
      for (const link of block.matchAll(/<a href="([^"#]+\.html)#([^"]+)"[^>]*>([^<]*)<\/a>/g)) {
        const [, target = '', anchor = '', text = ''] = link;
        const other = target.replace(/^.*\//, '');
        const otherClass = other.replace(/\.html$/, '').replace(/^.*\./, '');
        if (other === self || !own.has(anchor) || text.includes(otherClass)) continue;
        problems.push(`classes/${self}: a comment links "${text}" to ${target}#${anchor}, another class's ${anchor}`);
      }
    }
  }
  return [...new Set(problems)];
}

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const site = join(root, 'docs/api');
  if (!existsSync(join(site, 'index.html'))) {
    console.error('check-api-site: docs/api/index.html is missing: run npm run docs first');
    process.exit(1);
  }
  const problems = [
    ...markdownAccidents(site, join(root, 'src'), root),
    ...brokenSiteLinks(site),
    ...strayMemberLinks(site),
    ...moduleNameProblems(site, specifiers(root)),
  ];
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`check-api-site: ${problems.length} problem(s) in docs/api (see above)`);
    process.exit(1);
  }
  console.log('check-api-site: no Markdown accident from TSDoc, every local link resolves, modules named as imported');
}
