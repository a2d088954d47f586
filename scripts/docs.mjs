// Builds the API reference (TypeDoc) into docs/api/ from the TSDoc of every package entry point that exists:
// src/index.ts, and src/three, src/workers, src/webgpu as they land. Any TypeDoc warning fails the build.
//
// TypeDoc needs TypeScript's JS API, which TypeScript 7 does not have: TypeDoc and TypeScript 5.9 live in
// tools/typescripts (own lock file; installed here when missing).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, 'tools/typescripts');
const started = performance.now();
if (!existsSync(join(tools, 'node_modules/typedoc'))) {
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: tools, stdio: 'inherit' });
}
const entryPoints = ['src/index.ts', 'src/three/index.ts', 'src/workers/index.ts', 'src/webgpu/index.ts'].filter(
  (file) => existsSync(join(root, file)),
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
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`API reference for ${entryPoints.join(', ')} in docs/api/ (${seconds} s)`);
