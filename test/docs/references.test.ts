/**
 * Every reference in README.md, docs/**\/*.md, CHANGELOG.md, bench/RESULTS.md
 * and the CLI's README can be followed by a reader of the repository or of the
 * package:
 *
 * - **Commits.** A hash in the prose (7 to 40 hex digits with a letter and a
 *   digit, or any 7 to 40 hex digits after the word "commit") names a commit
 *   that is an ancestor of HEAD: not one lost to a rebase, not one of another
 *   branch. A shallow clone cannot tell, and fails saying so.
 * - **Symbols.** Inline code that cites a name as API (a symbol-like span,
 *   a call `name(...)`, a member `a.b` or `new Name`) names something the
 *   package exports: a name an entry of its exports map reaches in its
 *   declarations (built from src/ here, as tsconfig.build.json builds them,
 *   @internal members stripped) or a name of the `wgsl` snippet users paste.
 *   A name declared only inside the repository (a test helper, an internal
 *   function, a bench script's) is a wrong citation unless the same paragraph
 *   names a file of the repository that holds it (`isOrdinaryRadius` in
 *   `src/core/distance.ts`). Names of the platforms and libraries the docs
 *   speak of (the TypeScript libraries, Node, three.js, WebGPU,
 *   glTF-Transform) pass.
 * - **Paths.** A repository path in the prose (its first segment an entry of
 *   the root: `src/core/distance.ts`, bench/profile-kernels.ts) exists, or
 *   lies under a build output that .gitignore lists (dist/, docs/api/). A
 *   command's paths are its app's, and the shell-block check has the rest. A
 *   source file named in inline code by the end of its path, as a table of a
 *   folder's files does (`pool.ts`, `assembly/grid.ts`, `grid.d.ts` for its
 *   `grid.ts`), is a file of the repository.
 * - **Process.** No sentence speaks of how the team worked ("this session",
 *   "this branch", a rebase, "issue 32", "the issue's target", "decision 2",
 *   "the heavy-job lock"): a reader has none of those. An issue of another
 *   project is a link.
 * - **Printed figures.** The package's and the worker script's sizes are
 *   printed by `npm run test:package`; a sentence that gives one as a number
 *   goes stale with the next build, so it cites that line instead.
 *
 * Each problem is reported as `file:line reference: why`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wgsl } from '../../src/webgpu/index.js';
import { blankFences, proseFiles, readDoc, root } from './markdown.js';

/** A piece of a Markdown file's prose: inline code or a word, with its line and its paragraph's text. */
interface Found {
  text: string;
  line: number;
  paragraph: string;
}

const IDENTIFIER = /[A-Za-z_$][\w$]*/g;

/** Offsets of line starts, for turning an offset into a 1-based line. */
function lineOf(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
}

/** The paragraph (run of non-blank lines) around `offset`. */
function paragraphAt(text: string, offset: number): string {
  const before = text.lastIndexOf('\n\n', offset);
  const after = text.indexOf('\n\n', offset);
  return text.slice(before < 0 ? 0 : before, after < 0 ? text.length : after);
}

/** The inline code spans of a Markdown text's prose (fenced blocks left out), which may wrap across lines. */
function inlineCode(markdown: string): Found[] {
  const prose = blankFences(markdown);
  const line = lineOf(prose);
  const spans: Found[] = [];
  for (const match of prose.matchAll(/(`+)([^`][\s\S]*?)\1(?!`)/g)) {
    const code = (match[2] as string).replace(/\s+/g, ' ').trim();
    spans.push({ text: code, line: line(match.index ?? 0), paragraph: paragraphAt(prose, match.index ?? 0) });
  }
  return spans;
}

/** Commit hashes in a Markdown text's prose: hex words with a letter and a digit, or any hex word after "commit". */
function commitHashes(markdown: string): Found[] {
  const prose = blankFences(markdown);
  const line = lineOf(prose);
  const found: Found[] = [];
  const pattern = /\b(commits?\b[\s`(]*)?((?:[0-9a-f]{7,40}\b[`)]?(?:,?\s+(?:and\s+)?|,\s*)?)+)/gi;
  for (const match of prose.matchAll(pattern)) {
    const afterCommit = match[1] !== undefined;
    let offset = (match.index ?? 0) + (match[1]?.length ?? 0);
    for (const word of (match[2] as string).split(/[^0-9a-fA-F]+/)) {
      const at = prose.indexOf(word, offset);
      offset = at + word.length;
      if (!/^[0-9a-f]{7,40}$/.test(word)) continue;
      const looksLikeHash = /[a-f]/.test(word) && /[0-9]/.test(word);
      if (looksLikeHash || afterCommit) found.push({ text: word, line: line(at), paragraph: paragraphAt(prose, at) });
    }
  }
  return found;
}

/** A span that is a shell command. */
const COMMAND = /^(?:npm|npx|node|tsx|git|apt-get|gcc|esbuild|vite|webpack|rollup|next)\b/;

/** Build outputs (.gitignore's folders: dist/, docs/api/...), which exist once built: paths into them pass. */
const BUILD_OUTPUTS = readFileSync(join(root, '.gitignore'), 'utf8')
  .split('\n')
  .map((entry) => entry.trim().replace(/^\//, ''))
  .filter((entry) => entry.endsWith('/') && !entry.startsWith('#'));

/**
 * Repository paths named in the prose, in inline code or not: a path whose first
 * segment is an entry of the repository's root (`src/core/distance.ts`,
 * bench/profile-kernels.ts). Patterns (`docs/**\/*.md`, `<tool>`) are not paths.
 */
function repositoryPaths(markdown: string): Found[] {
  // A command's paths are its app's (`esbuild src/main.js --bundle`): the shell-block check has the repository's.
  const prose = blankFences(markdown).replace(/`[^`]*`/g, (span) =>
    COMMAND.test(span.slice(1, -1)) ? span.replace(/[^\n]/g, ' ') : span,
  );
  const line = lineOf(prose);
  const roots = readdirSync(root).filter((name) => !name.startsWith('.'));
  const found: Found[] = [];
  for (const match of prose.matchAll(/(?<![\w./-])((?:[\w.-]+\/)+[\w.-]*[\w/])(?![\w*<>{}])/g)) {
    const path = (match[1] as string).replace(/[.]$/, '');
    const first = path.split('/')[0] as string;
    if (!roots.includes(first) || /[*<>{}]/.test(prose.slice(match.index ?? 0, (match.index ?? 0) + path.length + 2)))
      continue;
    found.push({ text: path, line: line(match.index ?? 0), paragraph: '' });
  }
  return found;
}

/** A source file's name or the end of its path, in inline code (`pool.ts`, `assembly/grid.ts`, `tsconfig.json`). */
const SOURCE_NAME = /^(?:[\w.-]+\/)*[\w.-]+\.(?:d\.ts|[cm]?ts|[cm]js|json|c)$/;

/** Every file of the checkout (dependencies, builds and test outputs left out), repository-relative. */
function repositoryFiles(dir = root): string[] {
  const skip = new Set(['node_modules', '.git', 'dist', 'demo-dist', 'test-results', 'api', '.snippets']);
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skip.has(entry.name)) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? repositoryFiles(path) : [relative(root, path).split('\\').join('/')];
  });
}

/** What a commit reference is wrong about, or undefined when it names an ancestor of HEAD. */
function commitProblem(hash: string): string | undefined {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const resolved = git('rev-parse', '--verify', '--quiet', `${hash}^{commit}`);
  if (resolved.status !== 0)
    return 'no commit of this repository has this hash (history rewritten? cite its commit now)';
  if (git('merge-base', '--is-ancestor', hash, 'HEAD').status !== 0) return 'not an ancestor of HEAD';
  return undefined;
}

/** Whether a bare word reads as a code symbol (camelCase, PascalCase, an underscore), not a word (`dedupe`, `pairs2`). */
const symbolLike = (name: string) => /^[A-Z]|[a-z][A-Z]|[_$]/.test(name);

/**
 * Names a span cites as API: the whole span when it is a symbol-like name (with
 * or without a call), a call `name(...)`, the parts of a member chain `a.b`, and
 * `new Name`. Commands, paths, file names and HTML cite other things (the
 * link and block checks have those).
 */
function citedNames(span: string): string[] {
  if (COMMAND.test(span)) return [];
  if (/^[<.]|:\/\/|\s--?\w/.test(span)) return [];
  if (/^[\w.-]+(\/[\w.-]+)*\.(d\.ts|[cm]?[jt]s|json|md|html|css|wgsl|c|png)$/.test(span)) return [];
  if (/^[\w.-]+(\/[\w.-]+)+\/?$/.test(span) && !span.startsWith('spatialhash/')) return [];
  const whole = /^(?:new\s+)?([A-Za-z_$][\w$]*)(\(.*\))?$/.exec(span);
  if (whole) return whole[2] !== undefined || symbolLike(whole[1] as string) ? [whole[1] as string] : [];
  const names = new Set<string>();
  for (const match of span.matchAll(/([A-Za-z_$][\w$]*)\s*(?=\()/g)) names.add(match[1] as string);
  for (const match of span.matchAll(/[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)+/g)) {
    for (const part of match[0].split('.')) names.add(part.trim());
  }
  for (const match of span.matchAll(/\bnew\s+([A-Za-z_$][\w$]*)/g)) names.add(match[1] as string);
  return [...names];
}

/** Source files of the repository that may declare names (not dependencies, builds or generated code). */
function sourceFiles(dir = root): string[] {
  const skip = new Set(['node_modules', 'dist', 'demo-dist', 'docs', 'test-results', '.git', '.snippets', 'build']);
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || skip.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    if (!/\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) || entry.name === 'binary.ts') return [];
    return [relative(root, path).split('\\').join('/')];
  });
}

const TOP_LEVEL =
  /^(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|interface|type|enum|const|let|var|namespace)\s+([A-Za-z_$][\w$]*)/gm;

/** The names each repository file declares at its top level. */
function declaredNames(text: string): Set<string> {
  return new Set([...text.matchAll(TOP_LEVEL)].map((match) => match[1] as string));
}

/**
 * The names a user of the package can reach: every name an entry of the
 * exports map exports, and the tokens of each one's declaration (members,
 * parameters, option fields), following the types those declarations name
 * (a base class's members, an options interface) through `declarations`, the
 * emitted .d.ts tree. Comments are left out; modules no entry reaches are not
 * read.
 */
function publicSurface(declarations: string, entries: string[]): Set<string> {
  const texts = new Map<string, string>();
  const read = (file: string) => {
    let text = texts.get(file);
    if (text === undefined) {
      text = readFileSync(join(declarations, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/.*$/gm, '');
      texts.set(file, text);
    }
    return text;
  };
  const target = (from: string, specifier: string) =>
    join(dirname(from), specifier.replace(/\.js$/, '.d.ts')).split('\\').join('/');
  /** `{ a, type b, c as d }` of an import or export clause, as [local or exported name, original name]. */
  const clause = (list: string) =>
    list
      .split(',')
      .map((part) => part.trim().replace(/^type\s+/, ''))
      .filter((part) => part !== '')
      .map((part) => {
        const [original, alias] = part.split(/\s+as\s+/) as [string, string | undefined];
        return [alias ?? original, original] as const;
      });
  /** Where `name` of `file` comes from: another module's name, or its declaration's text here. */
  const resolve = (file: string, name: string): { file: string; name: string } | string | undefined => {
    const text = read(file);
    for (const match of text.matchAll(/(?:export|import)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g)) {
      for (const [local, original] of clause(match[1] as string)) {
        if (local !== name) continue;
        // Another package's type (three, glTF-Transform): its own names, not this package's to follow.
        return (match[2] as string).startsWith('.')
          ? { file: target(file, match[2] as string), name: original }
          : undefined;
      }
    }
    const declaration = new RegExp(
      `(?:export\\s+)?(?:declare\\s+)?(?:abstract\\s+)?(?:class|interface|type|function|const|let|var|enum|namespace)\\s+${name.replace('$', '\\$')}\\b`,
      'g',
    );
    const pieces = [...text.matchAll(declaration)].map((match) => declarationAt(text, match.index ?? 0));
    if (pieces.length > 0) return pieces.join('\n');
    for (const match of text.matchAll(/export\s+\*\s+from\s*['"]([^'"]+)['"]/g)) {
      const found = resolve(target(file, match[1] as string), name);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const names = new Set<string>();
  const seen = new Set<string>();
  const queue: { file: string; name: string }[] = [];
  for (const entry of entries) {
    for (const match of read(entry).matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
      for (const [exported, original] of clause(match[1] as string)) {
        names.add(exported);
        queue.push({ file: entry, name: original });
      }
    }
  }
  while (queue.length > 0) {
    let next = queue.pop() as { file: string; name: string } | string | undefined;
    while (next !== undefined && typeof next !== 'string') {
      const key = `${next.file}#${next.name}`;
      if (seen.has(key)) break;
      seen.add(key);
      const { file } = next;
      const found = resolve(file, next.name);
      if (typeof found === 'string') {
        for (const token of found.match(IDENTIFIER) ?? []) {
          names.add(token);
          // A type or base class it names, declared or imported in the same module: its members are reachable too.
          if (resolve(file, token) !== undefined) queue.push({ file, name: token });
        }
        break;
      }
      next = found;
    }
  }
  return names;
}

/** The text of the declaration starting at `start`: to its body's closing brace, or its closing semicolon. */
function declarationAt(text: string, start: number): string {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') {
      depth--;
      if (depth === 0 && c === '}' && /^\s*(?:export|declare|import|interface|type|$)/.test(text.slice(i + 1, i + 40)))
        return text.slice(start, i + 1);
    } else if (c === ';' && depth === 0) return text.slice(start, i + 1);
  }
  return text.slice(start);
}

/** Team-process phrases a reader cannot follow, and what to write instead. */
const PROCESS: [RegExp, string][] = [
  [/\b(?:this|a|no|every|another|that) session\b|\bsessions\b/i, 'name the commit, script or run'],
  [/\b(?:this|the|our|that) branch(?:'s)?\b|\brebased?\b/i, 'name the commit'],
  [/\bmain's\b/i, 'name the commit'],
  [/\bheavy[- ](?:job )?lock\b|\bunder the lock\b/i, 'say what else ran on the machine'],
  [/\bdecision \d+\b/i, 'state the rule itself'],
  [/\bhelper [A-Z]\d?\b|\bthe (?:docs|lead) helper\b/i, 'name the commit'],
  [/\b(?:the|this|that|our)\s+issue(?:'s)?\b/i, 'state what it asked, or link it'],
];

/** A size in bytes (`72.8 kB`, `44 KB`, `1.2 MiB`). */
const SIZE = /\b\d[\d,.]*\s?(?:[kKMG]i?B|bytes)\b/;

/** A sentence about a size that `npm run test:package` prints: the package's (the tarball's) or the worker script's. */
const PRINTED = (sentence: string) =>
  /\bworker/i.test(sentence)
    ? /\bscript\b|\bworker\.js\b/i.test(sentence)
    : /\btarball\b|\bpackage(?:'s)? size\b/i.test(sentence);

/** Problems with a Markdown file's references, as `file:line reference: why`. */
function referenceProblems(
  file: string,
  markdown: string,
  known: {
    publicNames: Set<string>;
    externalNames: Set<string>;
    declaredIn: Map<string, string[]>;
    files: string[];
  },
  checkCommit: (hash: string) => string | undefined = commitProblem,
): string[] {
  const problems: string[] = [];
  for (const { text, line } of commitHashes(markdown)) {
    const why = checkCommit(text);
    if (why !== undefined) problems.push(`${file}:${line} commit ${text}: ${why}`);
  }
  for (const { text, line, paragraph } of inlineCode(markdown)) {
    for (const name of citedNames(text)) {
      const files = known.declaredIn.get(name);
      if (files === undefined || known.publicNames.has(name) || known.externalNames.has(name)) continue;
      // Followable when the paragraph names a file of the repository that holds the name.
      const named = [...paragraph.matchAll(/(?:[\w.-]+\/)+[\w.-]+\.\w+/g)].filter((path) =>
        [join(root, path[0]), join(root, dirname(file), path[0])].some(
          (candidate) => existsSync(candidate) && new RegExp(`\\b${name}\\b`).test(readFileSync(candidate, 'utf8')),
        ),
      );
      if (named.length > 0) continue;
      problems.push(
        `${file}:${line} \`${text}\`: ${name} is not exported by the package (declared in ${files.join(', ')}): ` +
          'cite the API, or name the file beside it',
      );
    }
  }
  const prose = blankFences(markdown);
  const line = lineOf(prose);
  for (const { text, line: at } of repositoryPaths(markdown)) {
    if (!existsSync(join(root, text)) && !BUILD_OUTPUTS.some((output) => text.startsWith(output)))
      problems.push(`${file}:${at} ${text}: no such file or folder in the repository`);
  }
  const roots = readdirSync(root);
  for (const { text, line: at } of inlineCode(markdown)) {
    // A path from the root is the check above's.
    if (!SOURCE_NAME.test(text) || roots.includes(text.split('/')[0] as string)) continue;
    const wanted = text.replace(/\.d\.ts$/, '.ts');
    if (!known.files.some((path) => path === wanted || path.endsWith(`/${wanted}`)))
      problems.push(`${file}:${at} \`${text}\`: no file of the repository has this name`);
  }
  for (const [pattern, instead] of PROCESS) {
    for (const match of prose.matchAll(new RegExp(pattern.source, 'gi'))) {
      problems.push(
        `${file}:${line(match.index ?? 0)} "${match[0].replace(/\s+/g, ' ')}": team-process language; ${instead}`,
      );
    }
  }
  // A size that test:package prints, given as a number: stale with the next build.
  for (const match of prose.matchAll(/[\s\S]+?(?:\.(?=\s|$)|$)/g)) {
    // Inline code is no figure, but a file name in it says what the sentence is about.
    const sentence = match[0].replace(/`[^`]*`/g, (span) => (/\.js`$/.test(span) ? span : ''));
    const size = SIZE.exec(sentence)?.[0];
    if (size !== undefined && PRINTED(sentence)) {
      const at = line((match.index ?? 0) + match[0].indexOf(size));
      problems.push(`${file}:${at} "${size}": a size that npm run test:package prints; cite its line instead`);
    }
  }
  // An issue number is followable only as a link to it ("three.js issue [#24621](https://...)").
  for (const match of prose.matchAll(/\bissues? #?\d+\b(?![^[\]]*\]\()/gi)) {
    problems.push(
      `${file}:${line(match.index ?? 0)} "${match[0]}": an issue a reader cannot open; link it or state what it says`,
    );
  }
  return problems.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

describe('references in the docs', () => {
  let publicNames = new Set<string>();
  let externalNames = new Set<string>();
  const declaredIn = new Map<string, string[]>();
  const files = repositoryFiles();
  let declarations = '';

  beforeAll(() => {
    // The package's declarations as tsconfig.build.json makes them (stripInternal), comments left out.
    declarations = mkdtempSync(join(tmpdir(), 'spatialhash-references-'));
    execFileSync(
      process.execPath,
      [
        'node_modules/typescript/bin/tsc',
        '-p',
        'tsconfig.build.json',
        '--emitDeclarationOnly',
        '--outDir',
        declarations,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.d.ts') ? [join(dir, entry.name)] : [],
      );
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const entries = Object.keys(manifest.exports)
      .filter((key) => key.startsWith('.') && key !== './package.json')
      .map((key) => (key === '.' ? 'index.d.ts' : `${key.slice(2)}/index.d.ts`));
    publicNames = new Set([...publicSurface(declarations, entries), ...(wgsl.match(IDENTIFIER) ?? [])]);
    // Names of the platforms and the libraries the docs speak of (a repository file may declare one of its own).
    const typings = [
      ...readdirSync(join(root, 'node_modules/@typescript'), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .flatMap((entry) => walk(join(root, 'node_modules/@typescript', entry.name, 'lib'))),
      ...['@types/node', '@types/three', '@webgpu/types', '@gltf-transform/core', '@gltf-transform/functions'].flatMap(
        (name) => walk(join(root, 'node_modules', name)),
      ),
    ];
    externalNames = new Set(typings.flatMap((path) => readFileSync(path, 'utf8').match(IDENTIFIER) ?? []));
    for (const path of sourceFiles()) {
      for (const name of declaredNames(readFileSync(join(root, path), 'utf8'))) {
        declaredIn.set(name, [...(declaredIn.get(name) ?? []), path]);
      }
    }
  }, 60_000);

  afterAll(() => {
    if (declarations !== '') rmSync(declarations, { recursive: true, force: true });
  });

  it('reads the package and the repository: the checks below have something to compare with', () => {
    expect(publicNames.has('PointGrid2D') && publicNames.has('withinMany') && publicNames.has('gridNext')).toBe(true);
    expect(publicNames.has('Grid2D')).toBe(false); // internal: not in the declarations
    expect(declaredIn.get('retainedBytes')).toEqual(['test/spatialhash/memory.ts']);
    // A shallow clone has no history to check commits against.
    const shallow = spawnSync('git', ['rev-parse', '--is-shallow-repository'], { cwd: root, encoding: 'utf8' });
    expect(shallow.status, 'the docs cite commits: run the tests in a git checkout').toBe(0);
    expect(shallow.stdout.trim(), 'a shallow clone: fetch the whole history (git fetch --unshallow)').toBe('false');
  });

  it.each(proseFiles())('%s: every commit, symbol and reference can be followed', (file) => {
    expect(referenceProblems(file, readDoc(file), { publicNames, externalNames, declaredIn, files })).toEqual([]);
  });

  it('finds a lost commit, a test helper cited as API, a missing file, team-process language, an unlinked issue and a printed size', () => {
    const text = [
      '# A guide',
      '',
      'Measured at commit 2503214 and at fa7b9a9, then `retainedBytes` said 100 bytes (this session).',
      '',
      '`isOrdinaryRadius` in `src/core/distance.ts` is followable; `PointGrid2D.from(data)`, `gridNext` and',
      "three's `mergeVertices()` pass; see issue 12, not three.js issue [#24621](https://example.com).",
      'Paths: bench/profile-gone.ts is missing; `src/core/distance.ts`, dist/esm/index.js (built), `docs/**/*.md`',
      "and `esbuild src/main.js --bundle` (its app's) pass.",
      "The issue's target was met; the worker script is 72.8 kB, the tarball 618.4 kB; a bundle is 216 KiB.",
      '`dist/esm/workers/worker.js` has the size that npm run test:package prints last. `pool.ts`, `assembly/grid.ts`',
      'and `grid.d.ts` are files; `gone.ts` and `assembly/pool.ts` are not.',
      '',
      '```ts',
      "retainedBytes(hash); // code blocks are the snippet tests' business",
      '```',
    ].join('\n');
    const known = {
      publicNames: new Set(['PointGrid2D', 'from', 'data', 'gridNext']),
      externalNames: new Set(['mergeVertices']),
      declaredIn: new Map([
        ['retainedBytes', ['test/spatialhash/memory.ts']],
        ['mergeVertices', ['bench/weld.ts']],
        ['isOrdinaryRadius', ['src/core/distance.ts']],
      ]),
      files: ['src/workers/pool.ts', 'src/wasm/assembly/grid.ts', 'src/webgpu/grid.ts'],
    };
    const commits = (hash: string) => (hash === 'fa7b9a9' ? undefined : 'not an ancestor of HEAD');
    expect(referenceProblems('docs/guides/x.md', text, known, commits)).toEqual([
      'docs/guides/x.md:3 "this session": team-process language; name the commit, script or run',
      'docs/guides/x.md:3 `retainedBytes`: retainedBytes is not exported by the package (declared in test/spatialhash/memory.ts): cite the API, or name the file beside it',
      'docs/guides/x.md:3 commit 2503214: not an ancestor of HEAD',
      'docs/guides/x.md:6 "issue 12": an issue a reader cannot open; link it or state what it says',
      'docs/guides/x.md:7 bench/profile-gone.ts: no such file or folder in the repository',
      'docs/guides/x.md:9 "72.8 kB": a size that npm run test:package prints; cite its line instead',
      'docs/guides/x.md:9 "The issue\'s": team-process language; state what it asked, or link it',
      'docs/guides/x.md:11 `assembly/pool.ts`: no file of the repository has this name',
      'docs/guides/x.md:11 `gone.ts`: no file of the repository has this name',
    ]);
  });

  it('reads commit lists, wrapped inline code and calls', () => {
    expect(
      commitHashes('commits 0abebbc and eb4f6cd, commit `4364b9a` (bench), commit 9009165 (2026)').map((f) => f.text),
    ).toEqual(['0abebbc', 'eb4f6cd', '4364b9a', '9009165']);
    expect(commitHashes('1799970000 pairs, 0x0080, and fa7b9a9').map((f) => f.text)).toEqual(['fa7b9a9']);
    expect(inlineCode('a `{ part,\nparts }` b\n\n```ts\nx\n```\n`c`').map((f) => [f.text, f.line])).toEqual([
      ['{ part, parts }', 1],
      ['c', 7],
    ]);
    expect(citedNames('grid.neighbors(1, { out })')).toEqual(['neighbors', 'grid']);
    expect(citedNames('new PointGrid3D(positions, { cellSize })')).toEqual(['PointGrid3D']);
    expect(citedNames('npm run bench -- from')).toEqual([]);
    expect(citedNames('src/core/distance.ts')).toEqual([]);
    expect(citedNames("{ check: 'header' }")).toEqual([]);
    expect(citedNames('dedupe')).toEqual([]); // a word: a command, an option value
    expect(citedNames('dedupe()')).toEqual(['dedupe']);
    expect(citedNames('next.config.mjs')).toEqual([]);
    expect(citedNames('esbuild src/main.js --bundle --format=esm')).toEqual([]);
  });
});
