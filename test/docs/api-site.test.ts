/**
 * The API site checker (scripts/check-api-site.ts, run by `npm run docs` after
 * TypeDoc) on small sites made here: it must find a Markdown accident of a
 * TSDoc comment, pass what the comment meant, and find a dead link.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  brokenSiteLinks,
  markdownAccidents,
  markerLines,
  moduleNameProblems,
  strayMemberLinks,
} from '../../scripts/check-api-site.js';

const SOURCE = [
  '/**',
  ' * Edge of a cell. Required, finite,',
  ' * > 0. Queries are fastest near one cell.',
  ' *',
  ' * The steps:',
  ' * - count the points,',
  ' * - sum the counts.',
  ' * The counts then run from',
  ' * - 5 to 5 at most.',
  ' *',
  ' * ```ts',
  ' * > not Markdown: code',
  ' * ```',
  ' */',
  'export const x = 1;',
].join('\n');

const comment = (inner: string) => `<div class="tsd-comment tsd-typography">${inner}</div>`;

const dir = mkdtempSync(join(tmpdir(), 'api-site-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function site(name: string, pages: Record<string, string>): string {
  const root = join(dir, name);
  for (const [path, html] of Object.entries(pages)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), html);
  }
  return root;
}

describe('the API site checker', () => {
  it('tells meant block syntax in a comment from syntax that starts a wrapped line', () => {
    expect(markerLines('src/a.ts', SOURCE).map((line) => [line.where, line.kind, line.meant])).toEqual([
      ['src/a.ts:3', 'blockquote', false],
      ['src/a.ts:6', 'list', true],
      ['src/a.ts:7', 'list', true],
      ['src/a.ts:9', 'list', false],
    ]);
  });

  it('reports the elements that unmeant lines made, names their source line, and passes meant ones', () => {
    const src = join(dir, 'src');
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'a.ts'), SOURCE);
    const api = site('api', {
      'interfaces/A.html': comment(
        '<p>Edge of a cell. Required, finite,</p><blockquote><ol start="0"><li>Queries are fastest near one cell.</li></ol></blockquote>' +
          '<p>The steps:</p><ul><li>count the points,</li><li>sum the counts.</li></ul>' +
          '<h4 class="tsd-anchor-link" id="throws">Throws</h4><p>RangeError</p>',
      ),
      'interfaces/B.html': comment('<p>The counts then run from</p><ul><li>5 to 5 at most.</li></ul><h2>Unknown</h2>'),
      'documents/Guide.html': comment('<blockquote><p>a guide may quote</p></blockquote>'),
    });
    expect(markdownAccidents(api, src, dir)).toEqual([
      'interfaces/B.html: a heading ("unknown") whose comment line in src/ was not found',
      'src/a.ts:3: "> 0. Queries are fastest near one cell." starts a line inside a paragraph and became a blockquote (interfaces/A.html)',
      'src/a.ts:9: "- 5 to 5 at most." starts a line inside a paragraph and became a list (interfaces/B.html)',
    ]);
  });

  it('finds local links to missing pages and anchors, and inheritance that links nothing; passes good ones', () => {
    const api = site('links', {
      'index.html':
        '<a href="classes/A.html#build">ok</a> <a href="classes/A.html#gone">x</a> <a href="https://x.y">web</a>',
      'classes/A.html':
        '<h3 id="build">build</h3><a href="../interfaces/Base.html#build">inherited</a><a href="#build">self</a>' +
        '<p>Inherited from Hidden.size</p><p>Inherited from <a href="#build">A.build</a></p>',
    });
    expect(brokenSiteLinks(api).sort()).toEqual([
      'classes/A.html -> ../interfaces/Base.html#build: no such file',
      'classes/A.html: "Inherited from Hidden.size" names a member that has no page',
      'index.html -> classes/A.html#gone: no id "gone" there',
    ]);
  });

  it('names modules as users import them', () => {
    const api = site('modules', {
      'modules/spatialhash.html': '<h1>Module spatialhash</h1>',
      'modules/webgpu.html': '<h1>Module webgpu</h1>',
    });
    expect(moduleNameProblems(api, ['spatialhash', 'spatialhash/webgpu'])).toEqual([
      'module "webgpu" is not an import specifier',
      'no module page named "spatialhash/webgpu"',
    ]);
  });

  it("finds a comment linking another class's copy of a member this class has too", () => {
    const api = site('stray', {
      'classes/A3.html':
        '<h3 id="build">build</h3>' +
        comment(
          '<a href="A2.html#build">build</a> <a href="A2.html#build">A2.build</a> <a href="B.html#only">B.only</a>',
        ),
      'classes/A2.html': `<h3 id="build">build</h3>${comment('<a href="#build">build</a>')}`,
    });
    expect(strayMemberLinks(api)).toEqual([
      'classes/A3.html: a comment links "build" to A2.html#build, another class\'s build',
    ]);
  });
});
