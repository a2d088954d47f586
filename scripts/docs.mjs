// Builds the API site (TypeDoc) into docs/api/ from the TSDoc of every package entry point that exists
// (src/index.ts and src/<subpath>/index.ts for each subpath of package.json's exports), with README.md as its
// index page and docs/guides/*.md as its documents (typedoc.json). Any TypeDoc warning fails the build. Then
// scripts/check-api-site.ts checks the site: no Markdown accident from TSDoc, no dead local link.
//
// TypeDoc needs TypeScript's JS API, which TypeScript 7 does not have: TypeDoc and TypeScript 5.9 live in
// tools/typescripts (own lock file; installed here when missing).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, 'tools/typescripts');
const started = performance.now();
if (!existsSync(join(tools, 'node_modules/typedoc'))) {
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: tools, stdio: 'inherit' });
}
const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const subpaths = Object.keys(exports).filter((key) => key.startsWith('./') && key !== './package.json');
const entryPoints = ['src/index.ts', ...subpaths.map((key) => `src/${key.slice(2)}/index.ts`)].filter((file) =>
  existsSync(join(root, file)),
);
const typedoc = join(tools, 'node_modules/typedoc/bin/typedoc');
const args = entryPoints.flatMap((file) => ['--entryPoints', file]);
try {
  execFileSync(process.execPath, [typedoc, '--options', 'typedoc.json', ...args, ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
  });
} catch (error) {
  console.error('npm run docs: TypeDoc failed (every warning is an error), see above');
  process.exit(error.status ?? 1);
}
try {
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/check-api-site.ts'], { cwd: root, stdio: 'inherit' });
} catch (error) {
  process.exit(error.status ?? 1);
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`API reference for ${entryPoints.join(', ')} in docs/api/ (${seconds} s)`);
