/**
 * The README stays one that a newcomer reads in minutes (issue 33: at most
 * 300 lines and 25 KB; depth goes into docs/guides/), and every guide can be
 * reached from it and from the guides' index, in one reading order that the
 * API site's sidebar follows too (TypeDoc lists project documents in the
 * order typedoc.json names them; a glob would sort them by file name).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D } from '../../src/index.js';
import { links, readDoc, root } from './markdown.js';

/** The methods of a class and its bases, getters and constructors left out. */
function methodsOf(type: { prototype: object }): string[] {
  const names = new Set<string>();
  for (let proto = type.prototype; proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (name !== 'constructor' && typeof descriptor?.value === 'function') names.add(name);
    }
  }
  return [...names].sort();
}

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

  it("names every PointGrid query in the particles guide's table, as it says", () => {
    expect(readme).toMatch(
      /Every query is in the\s+\[Particle simulations\]\(docs\/guides\/particles\.md#queries\) table/,
    );
    const table = /^## Queries\n([\s\S]*?)(?=^## )/m.exec(readDoc('docs/guides/particles.md'))?.[1] ?? '';
    const listed = [...table.matchAll(/^\| `(\w+)\(/gm)].map((match) => match[1]);
    // What is not a query: the build and the invariant check.
    const notQueries = ['rebuild', 'validate'];
    for (const type of [PointGrid2D, PointGrid3D]) {
      const queries = methodsOf(type).filter((name) => !notQueries.includes(name));
      expect(queries.length).toBeGreaterThan(5);
      expect([...listed].sort(), `${type.name}'s queries`).toEqual(queries);
    }
  });

  it("lists the guides in the index's order, which the API site's sidebar follows", () => {
    const firstLinks = (targets: string[]) => targets.filter((target, i) => targets.indexOf(target) === i);
    const indexOrder = firstLinks(
      links(readDoc('docs/guides/README.md'))
        .map((link) => link.target)
        .filter((target) => guides.includes(target)),
    );
    const section = /^## Guides and API\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
    const readmeOrder = firstLinks(
      links(section)
        .map((link) => link.target.replace(/#.*$/, ''))
        .filter((target) => target.startsWith('docs/guides/'))
        .map((target) => target.slice('docs/guides/'.length)),
    );
    expect(indexOrder).toHaveLength(guides.length);
    const typedoc = JSON.parse(readDoc('typedoc.json')) as { projectDocuments: string[] };
    expect(typedoc.projectDocuments).toEqual(['docs/guides/README.md', ...indexOrder.map((g) => `docs/guides/${g}`)]);
    expect(readmeOrder).toEqual(indexOrder);
  });
});
