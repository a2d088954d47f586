// Tests the package as users get it: packs a tarball from the working tree (dist/ removed first, so the
// `prepare` build must make it), checks what it holds, installs it into a copy of test-consumer/ in a temp
// dir, typechecks that strict app with TypeScript 5.0, 5.9 and the build's 7 under nodenext, node16 and
// bundler resolution, and runs it from ESM, a compiled .cts file and plain require().
//
// Usage: node scripts/test-package.mjs (npm run test:package). The extra TypeScripts live in
// tools/typescripts (its own lock file, so their `tsc` never shadows the root's); this installs them
// when missing.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = performance.now();
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const quiet = ['--no-audit', '--no-fund', '--loglevel=error'];

function run(command, args, cwd) {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function step(what, action) {
  try {
    const result = action();
    console.log(`ok  ${what}`);
    return result;
  } catch (error) {
    console.error(`FAIL ${what}\n${error.stdout ?? ''}${error.stderr ?? ''}${error.stdout ? '' : error.message}`);
    process.exit(1);
  }
}

function fail(message) {
  throw new Error(message);
}

const tools = join(root, 'tools/typescripts');
if (!existsSync(join(tools, 'node_modules/typescript-5.0'))) {
  step('install tools/typescripts', () => run(npm, ['ci', ...quiet], tools));
}
const compilers = {
  'TS 5.0': join(tools, 'node_modules/typescript-5.0/bin/tsc'),
  'TS 5.9': join(tools, 'node_modules/typescript/bin/tsc'),
  'TS 7': join(root, 'node_modules/typescript/bin/tsc'),
};

// Pack from the working tree without dist/, as a fresh clone would.
const work = mkdtempSync(join(tmpdir(), 'spatialhash-package-'));
rmSync(join(root, 'dist'), { recursive: true, force: true });
const [packed] = step('npm pack builds dist/ through prepare', () =>
  JSON.parse(run(npm, ['pack', '--json', '--pack-destination', work, ...quiet], root)),
);
const tarball = join(work, packed.filename);
const files = packed.files.map((f) => f.path);

step(
  `tarball holds dist/ only (${files.length} files, ${packed.size} B packed, ${packed.unpackedSize} B unpacked)`,
  () => {
    for (const needed of ['package.json', 'README.md', 'LICENSE', 'dist/esm/index.js', 'dist/esm/index.d.ts']) {
      if (!files.includes(needed)) fail(`missing ${needed}`);
    }
    for (const needed of ['dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json']) {
      if (!files.includes(needed)) fail(`missing ${needed}`);
    }
    const stray = files.filter((f) => !/^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/.+)$/.test(f));
    if (stray.length > 0) fail(`unexpected files: ${stray.join(', ')}`);
    const maps = files.filter((f) => f.endsWith('.map'));
    if (maps.length > 0) fail(`source maps shipped without sources: ${maps.join(', ')}`);
  },
);

step('published declarations: no @internal members, no generic typed arrays (TS < 5.7)', () => {
  for (const file of files.filter((f) => f.endsWith('.d.ts'))) {
    const text = readFileSync(join(root, file), 'utf8');
    if (text.includes('@internal')) fail(`${file} still holds an @internal member (stripInternal?)`);
    const generic = /\b\w+Array<(ArrayBuffer|ArrayBufferLike|SharedArrayBuffer)>/.exec(text);
    if (generic) fail(`${file} has ${generic[0]}: TypeScript 5.0 to 5.6 report TS2315 on it`);
  }
});

// Every subpath in the exports map whose build exists (they land one by one) gets the same checks.
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const subpaths = Object.keys(manifest.exports)
  .filter((key) => key !== '.' && key !== './package.json')
  .filter((key) => files.includes(`dist/esm/${key.slice(2)}/index.js`))
  .map((key) => `spatialhash/${key.slice(2)}`);

const app = join(work, 'app');
cpSync(join(root, 'test-consumer'), app, { recursive: true });
step('install the tarball into the consumer app', () =>
  run(npm, ['install', '--no-save', '--no-package-lock', '--offline', ...quiet, tarball], app),
);
// Peers that subpaths need (three; WebGPU's types; glTF-Transform) come from this repository's dev dependencies.
for (const peer of ['three', '@types/three', '@webgpu/types', '@gltf-transform/core']) {
  const source = join(root, 'node_modules', peer);
  const target = join(app, 'node_modules', peer);
  if (existsSync(source) && !existsSync(target)) {
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(source, target, 'dir');
  }
}
// spatialhash/gltf-transform's types are @gltf-transform/core's, which need ESNext.Float16: its own check below.
const gltfTransform = subpaths.includes('spatialhash/gltf-transform');
const generic = subpaths.filter((s) => s !== 'spatialhash/gltf-transform');
if (generic.length > 0) {
  const lines = generic.map((s, i) => `import * as entry${i} from '${s}';\nexport { entry${i} };`);
  writeFileSync(join(app, 'subpaths.ts'), `${lines.join('\n')}\n`);
  for (const config of ['nodenext', 'bundler']) {
    const file = join(app, `tsconfig.${config}.json`);
    const json = JSON.parse(readFileSync(file, 'utf8'));
    // Subpaths may name browser types (Worker, URL, GPU objects): their consumers have the DOM library.
    const compilerOptions = { ...json.compilerOptions, lib: ['ES2022', 'DOM', 'DOM.Iterable'] };
    const subpathConfig = { ...json, compilerOptions, files: ['subpaths.ts'] };
    writeFileSync(join(app, `tsconfig.${config}-subpaths.json`), JSON.stringify(subpathConfig));
    // TypeScript before 7 has no WebGPU in its DOM library: such consumers add @webgpu/types (the README says so).
    const withGpuTypes = { ...subpathConfig, compilerOptions: { ...compilerOptions, types: ['@webgpu/types'] } };
    writeFileSync(join(app, `tsconfig.${config}-subpaths-gputypes.json`), JSON.stringify(withGpuTypes));
  }
}

for (const [version, tsc] of Object.entries(compilers)) {
  for (const config of ['nodenext', 'node16', 'bundler']) {
    step(`${version} typechecks the app (${config})`, () =>
      run(process.execPath, [tsc, '-p', `tsconfig.${config}.json`], app),
    );
  }
  // Subpaths pull in their peers' types (three's need a recent TypeScript): checked with 5.9 and 7.
  if (generic.length > 0 && version !== 'TS 5.0') {
    for (const config of ['nodenext', 'bundler']) {
      step(`${version} typechecks ${generic.join(', ')} (${config})`, () =>
        run(
          process.execPath,
          [tsc, '-p', `tsconfig.${config}-subpaths${version === 'TS 7' ? '' : '-gputypes'}.json`],
          app,
        ),
      );
    }
  }
}

// @gltf-transform/core's types need TypeScript 5.8 or later: 5.9 and 7 check the subpath, 7 emits it.
if (gltfTransform) {
  for (const version of ['TS 5.9', 'TS 7']) {
    step(
      `${version} typechecks and ${version === 'TS 7' ? 'emits' : 'checks'} spatialhash/gltf-transform with @gltf-transform/core`,
      () =>
        run(
          process.execPath,
          [compilers[version], '-p', 'tsconfig.gltf-transform.json', ...(version === 'TS 7' ? [] : ['--noEmit'])],
          app,
        ),
    );
  }
  step('runs spatialhash/gltf-transform (import)', () =>
    run(process.execPath, ['out-gltf-transform/gltf-transform.js'], app),
  );
  step('runs spatialhash/gltf-transform (require)', () => {
    const script = `const { Document } = require('@gltf-transform/core'); const { weldByDistance } = require('spatialhash/gltf-transform'); const d = new Document(); const p = d.createPrimitive().setAttribute('POSITION', d.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 0, 0, 0, 1, 0, 0]))); d.createMesh().addPrimitive(p); weldByDistance({ tolerance: 0, removeDegenerate: false })(d); if (p.getAttribute('POSITION').getCount() !== 2) throw new Error('weldByDistance');`;
    run(process.execPath, ['-e', script], app);
  });
}

step('TS 7 emits the app', () => run(process.execPath, [compilers['TS 7'], '-p', 'tsconfig.emit.json'], app));
step('runs as ES module (import)', () => run(process.execPath, ['out/main.js'], app));
step('runs the compiled .cts (require)', () => run(process.execPath, ['out/require.cjs'], app));
step('runs test.cjs (require)', () => run(process.execPath, ['test.cjs'], app));
for (const subpath of subpaths) {
  step(`${subpath} resolves for import and require`, () => {
    const script = `const r = require.resolve(${JSON.stringify(subpath)}); if (!r.includes('/dist/cjs/')) throw new Error(r);`;
    run(process.execPath, ['-e', script], app);
    const esm = `const r = import.meta.resolve(${JSON.stringify(subpath)}); if (!r.includes('/dist/esm/')) throw new Error(r);`;
    run(process.execPath, ['--input-type=module', '-e', esm], app);
  });
}

rmSync(work, { recursive: true, force: true });
const listed = readdirSync(join(root, 'dist')).join(', ');
console.log(`package test passed in ${((performance.now() - started) / 1000).toFixed(1)} s (dist/: ${listed})`);
