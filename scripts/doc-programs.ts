// Writes the program blocks of README.md and the guides (test/support/code-blocks.ts's programBlocks) into a
// folder, one module each, and prints what it wrote as JSON: what scripts/test-package.mjs typechecks against
// the packed tarball, as a user pastes each block into an app of their own.
//
// Usage: tsx scripts/doc-programs.ts <folder>. Each entry of the printed array: the module's file name, where
// the block opens (`README.md:12`), the Markdown line of the module's first line, whether it is a `browser`
// block, and the module specifiers it imports.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { programBlocks } from '../test/support/code-blocks.js';

const folder = process.argv[2];
if (folder === undefined) throw new Error('usage: tsx scripts/doc-programs.ts <folder>');
mkdirSync(folder, { recursive: true });
const written = programBlocks().map(({ file, where, module, block }) => {
  writeFileSync(join(folder, module), block.code);
  const imports = [...block.code.matchAll(/^\s*import\s[^'"]*?['"]([^'"]+)['"]/gm)].map((match) => match[1]);
  return { module, where, file, firstLine: block.line + 1, browser: block.browser, imports };
});
console.log(JSON.stringify(written));
