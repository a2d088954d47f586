/**
 * Every relative link in README.md, docs/**\/*.md, CHANGELOG.md,
 * bench/RESULTS.md and the CLI's README resolves: to a file (not a folder,
 * which the API site cannot carry), and an anchor (`#section`) to a heading of
 * the Markdown file it points into. Links into docs/api/ (the API
 * site, built by `npm run docs`, not committed) are skipped here: the site's
 * own links are checked after the build by scripts/check-api-site.ts.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, links, proseFiles, readDoc, root } from './markdown.js';

/** Problems with the relative links of one Markdown file, as `file:line target: why`. */
function brokenLinks(file: string, text = readDoc(file)): string[] {
  const problems: string[] = [];
  for (const { target, line } of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // absolute URL
    const [pathPart = '', anchor] = target.split('#', 2) as [string, string | undefined];
    const path = decodeURIComponent(pathPart);
    const resolved = path === '' ? join(root, file) : normalize(join(root, dirname(file), path));
    const inRepo = relative(root, resolved).split('\\').join('/');
    const where = `${file}:${line} ${target}`;
    if (inRepo.startsWith('..')) {
      problems.push(`${where}: leaves the repository`);
      continue;
    }
    if (inRepo === 'docs/api' || inRepo.startsWith('docs/api/')) continue; // checked after npm run docs
    if (!existsSync(resolved)) {
      problems.push(`${where}: ${inRepo} does not exist`);
      continue;
    }
    if (statSync(resolved).isDirectory()) {
      // TypeDoc copies a linked file into the API site, but warns on a folder (and its warnings fail the build).
      problems.push(`${where}: links a folder; link a file in it (the API site can only carry files)`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!resolved.endsWith('.md')) {
      problems.push(`${where}: an anchor into a file that is not Markdown`);
      continue;
    }
    if (!anchors(inRepo === file ? text : readDoc(inRepo)).has(anchor))
      problems.push(`${where}: no heading makes #${anchor} in ${inRepo}`);
  }
  return problems;
}

describe('relative links in the docs', () => {
  const files = proseFiles();

  it('finds the README and the guides', () => {
    expect(files).toContain('README.md');
    expect(files.filter((file) => file.startsWith('docs/guides/')).length).toBeGreaterThan(0);
  });

  it.each(files)('%s: every relative link resolves', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('reports a missing file, a missing anchor and a link out of the repository, and passes good ones', () => {
    const text = [
      '# Set up',
      '[a](no-such-file.md) [b](README.md#no-such-heading) [c](../outside.md)',
      '[d](#set-up) [e](https://example.com/x) [f](docs/guides/) `[g](not-a-link.md)`',
      '[h]: #nowhere',
    ].join('\n');
    expect(brokenLinks('README.md', text)).toEqual([
      'README.md:2 no-such-file.md: no-such-file.md does not exist',
      'README.md:2 README.md#no-such-heading: no heading makes #no-such-heading in README.md',
      'README.md:2 ../outside.md: leaves the repository',
      'README.md:3 docs/guides/: links a folder; link a file in it (the API site can only carry files)',
      'README.md:4 #nowhere: no heading makes #nowhere in README.md',
    ]);
  });
});
