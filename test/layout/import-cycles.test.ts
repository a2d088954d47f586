/**
 * The module graph of src/ has no cycles (type-only imports included): each
 * folder builds on core/ and on its own lower layers, never the reverse. A
 * cycle makes load order decide which module sees the other half-initialised.
 * src/wasm (the kernels and their glue) imports from core/ and itself only:
 * what it shares with a structure lives in core/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    // src/wasm/assembly is AssemblyScript, compiled on its own into src/wasm/binary.ts (imports without .js), and
    // src/templates holds the templates its hot files and the JavaScript path's are generated from.
    if (entry.isDirectory())
      return path.endsWith(join('wasm', 'assembly')) || path.endsWith('templates') ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative module specifiers of `import ... from`, `export ... from`, `import '...'` and `import('...')`. */
function relativeImports(text: string): string[] {
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  return [...text.matchAll(pattern)].map((match) => match[1] as string);
}

/** Every cycle's modules, as paths relative to src/, found by depth-first search. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles.map((cycle) => cycle.map((file) => relative(src, file)));
}

describe('src/ imports', () => {
  const files = sourceFiles(src);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = relativeImports(readFileSync(file, 'utf8')).map((specifier) =>
      resolve(dirname(file), specifier.replace(/\.js$/, '.ts')),
    );
    graph.set(file, targets);
  }

  it('resolve to files that exist', () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => !graph.has(target))
        .map((target) => `${relative(src, file)} -> ${relative(src, target)}`),
    );
    expect(missing).toEqual([]);
    expect(files.length).toBeGreaterThan(10);
  });

  it('form no cycle', () => {
    expect(findCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('from src/wasm reach only src/wasm and src/core: the kernels serve the structures, never the reverse', () => {
    const wasm = join(src, 'wasm');
    const below = [wasm, join(src, 'core')];
    const upward = [...graph]
      .filter(([file]) => file.startsWith(wasm + sep))
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => !below.some((folder) => target.startsWith(folder + sep)))
          .map((target) => `${relative(src, file)} -> ${relative(src, target)}`),
      );
    expect(upward).toEqual([]);
    expect([...graph.keys()].filter((file) => file.startsWith(wasm + sep)).length).toBeGreaterThan(3);
  });

  it('the cycle finder and the import reader see what they must (self-check)', () => {
    const text = `import { a } from './a.js';\nimport type { B } from "../b/b.js";\nexport * from './c.js';\nimport './d.js';\nconst e = import('./e.js');\nimport { f } from 'node:fs';`;
    expect(relativeImports(text)).toEqual(['./a.js', '../b/b.js', './c.js', './d.js', './e.js']);
    const cyclic = new Map([
      [join(src, 'a.ts'), [join(src, 'b.ts')]],
      [join(src, 'b.ts'), [join(src, 'c.ts')]],
      [join(src, 'c.ts'), [join(src, 'a.ts')]],
    ]);
    expect(findCycles(cyclic)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(findCycles(new Map([[join(src, 'a.ts'), [join(src, 'b.ts')]]]))).toEqual([]);
  });
});
