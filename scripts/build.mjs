// Builds dist/: an ES module build with declarations, and a CommonJS build of the same modules.
//
//   dist/esm/  tsc (TypeScript 7) from src/: .js + .d.ts, one file per source file
//   dist/cjs/  each dist/esm .js rewritten to CommonJS by esbuild (no bundling, same file tree), the same
//              .d.ts, and a package.json {"type": "commonjs"} so Node and TypeScript read both as CommonJS
//
// Why not a second tsc emit with module: commonjs? tsc rejects `import.meta` there (TS1343), and the workers
// entry needs `new Worker(new URL('./worker.js', import.meta.url))`, the form bundlers recognise. esbuild
// turns `import.meta.url` into the file's own URL (`pathToFileURL(__filename)`), so a CommonJS caller finds
// the sibling worker file next to the module that asks for it.
//
// Before both, scripts/build-wasm.mjs compiles the AssemblyScript kernels (src/wasm/assembly/) into the
// base64 module of src/wasm/binary.ts.
//
// Usage: node scripts/build.mjs (npm run build; prepack and prepare run it too).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const esm = join(dist, 'esm');
const cjs = join(dist, 'cjs');

/** Every file under `dir`, as absolute paths. */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

// The WebAssembly kernels first: src/wasm/binary.ts embeds them (a step of its own, see build-wasm.mjs).
execFileSync(process.execPath, [join(root, 'scripts/build-wasm.mjs')], { cwd: root, stdio: 'inherit' });

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});

// TypeScript before 5.7 has no generic typed arrays: `Float64Array<ArrayBuffer>` in a declaration is error
// TS2315 there. TS 7 writes such types for every inferred typed array, so the declarations name the plain
// types (which mean `<ArrayBufferLike>` on 5.7 and later). test:package checks the result on TS 5.0.
const typedArrayArgument =
  /\b((?:Int8|Uint8|Uint8Clamped|Int16|Uint16|Int32|Uint32|Float32|Float64|BigInt64|BigUint64)Array)<(?:ArrayBuffer|ArrayBufferLike|SharedArrayBuffer)>/g;

const importMetaUrl = '__spatialhashModuleUrl';
for (const file of walk(esm)) {
  const target = join(cjs, relative(esm, file));
  mkdirSync(dirname(target), { recursive: true });
  if (file.endsWith('.d.ts')) {
    const text = readFileSync(file, 'utf8').replace(typedArrayArgument, '$1');
    writeFileSync(file, text);
    writeFileSync(target, text);
  } else if (file.endsWith('.js')) {
    const source = readFileSync(file, 'utf8');
    const usesUrl = source.includes('import.meta.url');
    const { code, warnings } = transformSync(source, {
      format: 'cjs',
      target: 'es2022',
      sourcefile: relative(root, file),
      define: usesUrl ? { 'import.meta.url': importMetaUrl } : {},
      banner: usesUrl ? `const ${importMetaUrl} = require('node:url').pathToFileURL(__filename).href;` : '',
    });
    if (warnings.length > 0) throw new Error(`esbuild warned on ${file}: ${warnings.map((w) => w.text).join('; ')}`);
    writeFileSync(target, code);
  } else {
    cpSync(file, target);
  }
}
writeFileSync(join(cjs, 'package.json'), '{ "type": "commonjs" }\n');
