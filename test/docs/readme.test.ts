/**
 * The README stays one that a newcomer reads in minutes (issue 33: at most
 * 300 lines and 25 KB; depth goes into docs/guides/), and every guide can be
 * reached from it and from the guides' index.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { links, readDoc, root } from './markdown.js';

describe('README.md', () => {
  const readme = readDoc('README.md');

  it('is at most 300 lines and 25 KB', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(25 * 1024);
  });

  const guides = readdirSync(join(root, 'docs/guides')).filter((name) => name.endsWith('.md') && name !== 'README.md');

  it.each(guides)('links docs/guides/%s, as does the guides index', (guide) => {
    expect(links(readme).map((link) => link.target)).toContain(`docs/guides/${guide}`);
    expect(links(readDoc('docs/guides/README.md')).map((link) => link.target)).toContain(guide);
  });
});
