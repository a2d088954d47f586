// Tests the package as users get it: packs a tarball from the working tree (dist/ removed first, so the
// pack's own build must make it), checks what it holds (no install scripts in its package.json), installs it
// into a copy of test-consumer/ in a temp dir (with no install-script warning), typechecks that strict app with
// TypeScript 5.0, 5.9 and the build's 7, every entry on every version claimed for it (CLAIMS), typechecks every
// program block of the README and the guides in that app the same way (scripts/doc-programs.ts writes them), checks
// what the README says of moduleResolution node and of require('spatialhash/three'), and runs the app
// from ESM, a compiled .cts file and plain require(). Then installs the package from git, as
// `npm install git+file://...` of a commit of the working tree, which must build dist/ through `prepare`.
//
// Each step prints its time, and the summary line how many of the seconds went to the docs' program blocks (their
// share of CI's time). Usage: node scripts/test-package.mjs (npm run test:package). The extra TypeScripts live in
// tools/typescripts (its own lock file, so their `tsc` never shadows the root's); this installs them
// when missing. Both installs run offline, from the npm cache that `npm ci` filled.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INSTALL_SCRIPTS } from './pack.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = performance.now();
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const quiet = ['--no-audit', '--no-fund', '--loglevel=error'];

function run(command, args, cwd) {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs an npm install and returns what it printed (warnings included), throwing when it fails. */
function install(args, cwd) {
  const result = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--loglevel=warn', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw Object.assign(new Error(`npm install ${args.join(' ')} failed`), result);
  return result.stdout + result.stderr;
}

/** Seconds spent in the steps that check the docs' program blocks: their share of this script's time. */
let docsSeconds = 0;

function step(what, action) {
  const start = performance.now();
  try {
    const result = action();
    const seconds = (performance.now() - start) / 1000;
    if (/\bdocs\b/.test(what)) docsSeconds += seconds;
    console.log(`ok  ${what} (${seconds.toFixed(1)} s)`);
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

// The TypeScript versions each subpath is claimed to typecheck on (with skipLibCheck: false), and the
// consumer file that uses it in a browser app. spatialhash/three: those @types/three supports (its
// typeScriptVersion, 5.6 for 0.187), of which 5.9 and 7 are tested. Every subpath of the exports map
// must be listed: a new one fails here until its claim is written down.
const CLAIMS = {
  'spatialhash/workers': { versions: ['TS 5.0', 'TS 5.9', 'TS 7'], file: 'workers.ts' },
  'spatialhash/webgpu': { versions: ['TS 5.0', 'TS 5.9', 'TS 7'], file: 'webgpu-plain.ts' },
  'spatialhash/three': { versions: ['TS 5.9', 'TS 7'], file: 'three.ts' },
  // spatialhash/d3 declares its node and force shapes itself; the app checks them against @types/d3-force
  // (typeScriptVersion 4.7) and runs them in d3-force's simulation.
  'spatialhash/d3': { versions: ['TS 5.0', 'TS 5.9', 'TS 7'], file: 'd3.ts' },
  // @gltf-transform/core's own types need TypeScript 5.8 or later and ESNext.Float16 in the lib: checked on
  // its own (tsconfig.gltf-transform.json) rather than in the shared browser app.
  'spatialhash/gltf-transform': { versions: ['TS 5.9', 'TS 7'], own: 'tsconfig.gltf-transform.json' },
};

// Pack from the working tree without dist/, as a fresh clone would.
const work = mkdtempSync(join(tmpdir(), 'spatialhash-package-'));
const manifestBefore = readFileSync(join(root, 'package.json'), 'utf8');
rmSync(join(root, 'dist'), { recursive: true, force: true });
const [packed] = step('npm pack builds dist/ (prepack) and leaves package.json as it was', () => {
  const result = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', work, ...quiet], root));
  if (readFileSync(join(root, 'package.json'), 'utf8') !== manifestBefore) fail('package.json differs after the pack');
  if (existsSync(join(root, '.package.json.packing'))) fail('postpack left .package.json.packing behind');
  return result;
});
const tarball = join(work, packed.filename);
const files = packed.files.map((f) => f.path);
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
const size = `${files.length} files, ${kB(packed.size)} packed, ${kB(packed.unpackedSize)} unpacked`;

step(`tarball holds dist/ only (${size})`, () => {
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
});

step('the packed package.json has no install scripts', () => {
  const manifest = JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json'], work));
  const kept = INSTALL_SCRIPTS.filter((name) => manifest.scripts?.[name] !== undefined);
  if (kept.length > 0) fail(`it keeps ${kept.join(', ')}`);
  if (manifest.scripts?.build === undefined) fail('the other scripts are gone too (only install scripts should be)');
});

step('published declarations: no @internal members, no generic typed arrays (TS < 5.7)', () => {
  for (const file of files.filter((f) => f.endsWith('.d.ts'))) {
    const text = readFileSync(join(root, file), 'utf8');
    if (text.includes('@internal')) fail(`${file} still holds an @internal member (stripInternal?)`);
    const generic = /\b\w+Array<(ArrayBuffer|ArrayBufferLike|SharedArrayBuffer)>/.exec(text);
    if (generic) fail(`${file} has ${generic[0]}: TypeScript 5.0 to 5.6 report TS2315 on it`);
  }
});

// Every subpath in the exports map whose build exists (they land one by one) gets the same checks.
const manifest = JSON.parse(manifestBefore);
const subpaths = Object.keys(manifest.exports)
  .filter((key) => key !== '.' && key !== './package.json')
  .filter((key) => files.includes(`dist/esm/${key.slice(2)}/index.js`))
  .map((key) => `spatialhash/${key.slice(2)}`);
step('every subpath claims the TypeScript versions it supports', () => {
  const unclaimed = subpaths.filter((subpath) => CLAIMS[subpath] === undefined);
  if (unclaimed.length > 0) fail(`add ${unclaimed.join(', ')} to CLAIMS in scripts/test-package.mjs`);
});

const app = join(work, 'app');
// The bundler apps have their own test (scripts/test-bundlers.mjs).
cpSync(join(root, 'test-consumer'), app, { recursive: true, filter: (path) => !path.includes('/bundlers') });
step('install the tarball into the consumer app, with no install-script warning', () => {
  const printed = install(['--no-save', '--no-package-lock', '--offline', tarball], app);
  if (/install.?scripts|allowScripts/i.test(printed)) fail(`npm warned:\n${printed}`);
});
// Peers that subpaths need (three; WebGPU's types; glTF-Transform; d3-force and its types, d3-force-3d, which has
// none: the d3 guide's block imports it from JavaScript) come from this repository's dev dependencies.
const peers = ['three', '@types/three', '@webgpu/types', '@gltf-transform/core', 'd3-force', '@types/d3-force'];
for (const peer of [...peers, 'd3-force-3d']) {
  const source = join(root, 'node_modules', peer);
  const target = join(app, 'node_modules', peer);
  if (existsSync(source) && !existsSync(target)) {
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(source, target, 'dir');
  }
}

/** Writes a tsconfig over tsconfig.base.json and returns its name. */
function config(name, compilerOptions, configFiles) {
  const file = `tsconfig.${name}.json`;
  writeFileSync(
    join(app, file),
    JSON.stringify({ extends: './tsconfig.base.json', compilerOptions, files: configFiles }),
  );
  return file;
}
const browserLib = ['ES2022', 'DOM', 'DOM.Iterable'];
const resolutions = {
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
};

for (const [version, tsc] of Object.entries(compilers)) {
  const typecheck = (what, file) =>
    step(`${version} typechecks ${what}`, () => run(process.execPath, [tsc, '-p', file], app));
  // The root entry, the pool and the GPU grid without any WebGPU or DOM types: a Node app.
  for (const config of ['nodenext', 'node16', 'bundler']) typecheck(`the app (${config})`, `tsconfig.${config}.json`);

  // A browser app (DOM library) importing every subpath claimed for this version; on TypeScript 7 the DOM
  // library holds WebGPU, so the grid's outputs must go into its own calls.
  const claimed = subpaths.filter((s) => CLAIMS[s]?.versions.includes(version) && CLAIMS[s].own === undefined);
  const lines = claimed.map((s, i) => `import * as entry${i} from '${s}';\nexport { entry${i} };`);
  writeFileSync(join(app, `subpaths-${version.replace(/\W/g, '')}.ts`), `${lines.join('\n')}\n`);
  const browserFiles = [
    `subpaths-${version.replace(/\W/g, '')}.ts`,
    ...claimed.map((subpath) => CLAIMS[subpath].file),
    ...(version === 'TS 7' && claimed.includes('spatialhash/webgpu') ? ['webgpu-typed.ts'] : []),
  ];
  for (const [name, options] of Object.entries(resolutions)) {
    const file = config(`browser-${name}`, { ...options, lib: browserLib }, browserFiles);
    typecheck(`${claimed.join(', ')} in a browser app (${name})`, file);
  }

  // With @webgpu/types, as browsers' WebGPU users on TypeScript 5.x add it. On 5.0 (no VideoFrame in its DOM
  // library) and on 7 (which declares WebGPU itself: 182 duplicates) @webgpu/types fails its own check, so
  // those setups need skipLibCheck; with it, the grid's outputs must still be the consumer's branded types.
  if (claimed.includes('spatialhash/webgpu')) {
    const skipLibCheck = version !== 'TS 5.9';
    const options = { ...resolutions.bundler, lib: browserLib, types: ['@webgpu/types'], skipLibCheck };
    const file = config('webgpu-types', options, ['webgpu-typed.ts']);
    typecheck(`spatialhash/webgpu with @webgpu/types${skipLibCheck ? ' (skipLibCheck)' : ''}`, file);
  }

  // Subpaths with a setup of their own; TypeScript 7 also emits spatialhash/gltf-transform's app, run below.
  for (const subpath of subpaths.filter((s) => CLAIMS[s]?.own !== undefined && CLAIMS[s].versions.includes(version))) {
    const emit = version === 'TS 7' ? [] : ['--noEmit'];
    step(`${version} typechecks ${subpath} (${CLAIMS[subpath].own})`, () =>
      run(process.execPath, [tsc, '-p', CLAIMS[subpath].own, ...emit], app),
    );
  }
}

// The program blocks of README.md and the guides, as a user pastes each into a strict app built on the tarball
// (tsconfig.base.json: strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, skipLibCheck false): on
// every TypeScript version claimed for all the entries a block imports. Blocks that run in Node get @types/node,
// with nodenext and bundler resolution; `browser` blocks the DOM library and bundler resolution, with
// @webgpu/types (which needs skipLibCheck on 5.0 and 7, as the README says) and on TypeScript 7 also without it,
// where the WebGPU flag constants come from webgpu-flags.d.ts, the file the threads guide shows.
const programs = step('write the docs program blocks into the app (scripts/doc-programs.ts)', () =>
  JSON.parse(
    run(
      process.execPath,
      [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'scripts/doc-programs.ts'), join(app, 'docs')],
      root,
    ),
  ),
);
// @types/node for the Node blocks: the root's (26) for TypeScript 5.9 and 7; on 5.0, which fails 26's own
// check, tools/typescripts' 20.14, as a project on TypeScript 5.0 would pin.
const nodeTypes = (version) => join(version === 'TS 5.0' ? tools : root, 'node_modules/@types');
/** The entries a block imports: `spatialhash` and its subpaths. */
const entriesOf = (program) => program.imports.filter((m) => m === 'spatialhash' || m.startsWith('spatialhash/'));
const claimedOn = (version, entry) => entry === 'spatialhash' || CLAIMS[entry]?.versions.includes(version) === true;
step('every docs block imports only entries of the exports map', () => {
  const unknown = programs.flatMap((program) =>
    entriesOf(program)
      .filter((entry) => entry !== 'spatialhash' && !subpaths.includes(entry))
      .map((entry) => `${program.where} imports ${entry}`),
  );
  if (unknown.length > 0) fail(unknown.join('\n'));
});
/** tsc's errors in the docs modules, reported at their Markdown lines (`README.md:70:12 error TS2304: ...`). */
function atMarkdownLines(output) {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const located = /^docs\/([^(]+)\((\d+),(\d+)\): (.*)$/.exec(line);
      const program = located && programs.find((p) => p.module === located[1]);
      return program
        ? `${program.file}:${program.firstLine + Number(located[2]) - 1}:${located[3]} ${located[4]}`
        : line;
    })
    .join('\n');
}
for (const [version, tsc] of Object.entries(compilers)) {
  const claimed = programs.filter((program) => entriesOf(program).every((entry) => claimedOn(version, entry)));
  // @types/three's declarations need the DOM library, in Node too: the blocks importing three get it, on one
  // resolution only (@types/three makes a program several times slower to check; the app above checks
  // spatialhash/three on both browser resolutions).
  const modules = (browser, dom = browser) =>
    claimed
      .filter((p) => p.browser === browser && (browser || p.imports.includes('three') === dom))
      .map((p) => `docs/${p.module}`);
  const float16 = version === 'TS 5.0' ? [] : ['ESNext.Float16']; // spatialhash/gltf-transform's blocks (5.8+)
  const node = (name, dom) => ({
    name: `Node${dom ? ' + DOM' : ''}, ${name}`,
    options: {
      ...resolutions[name],
      lib: ['ES2022', ...float16, ...(dom ? ['DOM'] : [])],
      types: ['node'],
      typeRoots: [nodeTypes(version)],
    },
    // d3-force-3d has no declarations: the d3 guide's block of it compiles with the file the guide shows.
    files: modules(false, dom).length > 0 ? ['d3-force-3d.d.ts', ...modules(false, dom)] : [],
  });
  // Node blocks with a Node app's resolution and a bundler's (node16 resolves the exports map as nodenext does: the
  // app above checks it); browser blocks with a bundler's. Each tsc run of TypeScript 5.x costs seconds.
  const setups = [
    ...['nodenext', 'bundler'].map((name) => node(name, false)),
    node('nodenext', true),
    {
      name: `browser, bundler, @webgpu/types${version === 'TS 5.9' ? '' : ' (skipLibCheck)'}`,
      options: {
        ...resolutions.bundler,
        lib: browserLib,
        types: ['@webgpu/types'],
        skipLibCheck: version !== 'TS 5.9',
      },
      files: modules(true),
    },
    ...(version === 'TS 7'
      ? [
          {
            name: 'browser, bundler, webgpu-flags.d.ts',
            options: { ...resolutions.bundler, lib: browserLib },
            files: ['webgpu-flags.d.ts', ...modules(true)],
          },
        ]
      : []),
  ];
  for (const setup of setups.filter((setup) => setup.files.length > 0)) {
    const file = config(
      `docs-${setup.name.replace(/\W+/g, '-')}`,
      { ...setup.options, moduleDetection: 'force', allowJs: true, checkJs: true },
      setup.files,
    );
    const blocks = setup.files.filter((f) => f.startsWith('docs/')).length;
    step(`${version} typechecks the docs' ${blocks} ${setup.name} blocks`, () => {
      try {
        run(process.execPath, [tsc, '-p', file, '--pretty', 'false'], app);
      } catch (error) {
        throw Object.assign(new Error('tsc failed'), {
          stdout: atMarkdownLines(`${error.stdout ?? ''}${error.stderr ?? ''}`),
          stderr: '',
        });
      }
    });
  }
}

// What the README says of moduleResolution node (node10): TypeScript 5.x finds the root entry through `types`
// but no subpath, which only the exports map names. A fix of the package (typesVersions) fails this, and the
// README's sentence must go.
step('TS 5.9 with moduleResolution node finds spatialhash but not its subpaths, as the README says', () => {
  writeFileSync(join(app, 'node10.ts'), "export * from 'spatialhash';\nexport * from 'spatialhash/workers';\n");
  const file = config('node10', { module: 'commonjs', moduleResolution: 'node' }, ['console.d.ts', 'node10.ts']);
  const result = spawnSync(process.execPath, [compilers['TS 5.9'], '-p', file, '--pretty', 'false'], {
    cwd: app,
    encoding: 'utf8',
  });
  const errors = result.stdout.split('\n').filter((line) => /error TS/.test(line));
  if (errors.length !== 1 || !/node10\.ts\(2,\d+\): error TS2307: .*'spatialhash\/workers'/.test(errors[0])) {
    fail(`expected only TS2307 on spatialhash/workers, got:\n${result.stdout}${result.stderr}`);
  }
});

step('TS 7 emits the app', () => run(process.execPath, [compilers['TS 7'], '-p', 'tsconfig.emit.json'], app));
step('runs as ES module (import)', () => run(process.execPath, ['out/main.js'], app));
step('runs the compiled .cts (require)', () => run(process.execPath, ['out/require.cjs'], app));
step('runs test.cjs (require, the pool included)', () => run(process.execPath, ['test.cjs'], app));
step('runs the pool from the installed package (import)', () => run(process.execPath, ['out/workers.js'], app));
step("runs spatialhash/d3 in d3-force's simulation (import)", () => run(process.execPath, ['out/d3.js'], app));
step('runs spatialhash/d3 (require)', () => {
  const script = `const { forceCollide } = require('spatialhash/d3'); const nodes = [{ x: 0, y: 0, vx: 0, vy: 0 }, { x: 1, y: 0, vx: 0, vy: 0 }]; const force = forceCollide(1); force.initialize(nodes, () => 0.5); force(1); if (!(nodes[0].vx === -0.5 && nodes[1].vx === 0.5)) throw new Error('forceCollide: ' + JSON.stringify(nodes));`;
  run(process.execPath, ['-e', script], app);
});
if (subpaths.includes('spatialhash/gltf-transform')) {
  step('runs spatialhash/gltf-transform (import)', () =>
    run(process.execPath, ['out-gltf-transform/gltf-transform.js'], app),
  );
  step('runs spatialhash/gltf-transform (require)', () => {
    const script = `const { Document } = require('@gltf-transform/core'); const { weldByDistance } = require('spatialhash/gltf-transform'); const d = new Document(); const p = d.createPrimitive().setAttribute('POSITION', d.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 0, 0, 0, 1, 0, 0]))); d.createMesh().addPrimitive(p); weldByDistance({ tolerance: 0, removeDegenerate: false })(d); if (p.getAttribute('POSITION').getCount() !== 2) throw new Error('weldByDistance');`;
    run(process.execPath, ['-e', script], app);
  });
}
// The welding guide: require('spatialhash/three') loads three through require('three'), for which three prints
// its own deprecation warning; import loads its ES module and prints nothing.
step("require('spatialhash/three') prints three's THREE_CJS_DEPRECATED warning, import prints nothing", () => {
  const required = spawnSync(process.execPath, ['-e', "require('spatialhash/three')"], { cwd: app, encoding: 'utf8' });
  if (required.status !== 0 || !required.stderr.includes('[THREE_CJS_DEPRECATED]')) {
    fail(`require printed:\n${required.stderr}`);
  }
  const script = "await import('spatialhash/three')";
  const imported = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
  if (imported.status !== 0 || imported.stderr !== '') fail(`import printed:\n${imported.stderr}`);
});
for (const subpath of subpaths) {
  step(`${subpath} resolves for import and require`, () => {
    const script = `const r = require.resolve(${JSON.stringify(subpath)}); if (!r.includes('/dist/cjs/')) throw new Error(r);`;
    run(process.execPath, ['-e', script], app);
    const esm = `const r = import.meta.resolve(${JSON.stringify(subpath)}); if (!r.includes('/dist/esm/')) throw new Error(r);`;
    run(process.execPath, ['--input-type=module', '-e', esm], app);
  });
}

// From git: a commit of the working tree as it is (tracked files and new ones git does not ignore), installed
// by npm, which clones it, installs its devDependencies and runs `prepare`: dist/ must come out of that.
step('a git install builds dist/ through prepare and works', () => {
  const repo = join(work, 'repo');
  const listed = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root).split('\0');
  for (const file of listed.filter((f) => f !== '' && existsSync(join(root, f)))) {
    mkdirSync(dirname(join(repo, file)), { recursive: true });
    cpSync(join(root, file), join(repo, file));
  }
  const git = (...args) => run('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], repo);
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '--no-verify', '-m', 'working tree');
  const gitApp = join(work, 'git-app');
  mkdirSync(gitApp);
  writeFileSync(join(gitApp, 'package.json'), '{ "name": "git-consumer", "private": true }\n');
  install(['--offline', `git+file://${repo}`], gitApp);
  if (!existsSync(join(gitApp, 'node_modules/spatialhash/dist/esm/index.js'))) fail('no dist/ in the git install');
  const use = 'new m.PointGrid2D([0, 0, 0.5, 0], { cellSize: 1 }).within(0, 0, 1).length === 2 || process.exit(1)';
  run(process.execPath, ['--input-type=module', '-e', `const m = await import('spatialhash'); ${use}`], gitApp);
  run(process.execPath, ['-e', `const m = require('spatialhash'); ${use}`], gitApp);
});

rmSync(work, { recursive: true, force: true });
console.log(
  `package test passed in ${((performance.now() - started) / 1000).toFixed(1)} s, ${docsSeconds.toFixed(1)} s of it on the docs' program blocks`,
);
// Alone on the last lines, so that these figures are never quoted from anywhere but here: the package, and the
// worker script that spatialhash/workers carries (the threads guide cites this line rather than a number).
const worker = packed.files.find((f) => f.path === 'dist/esm/workers/worker.js');
if (worker === undefined) fail('the tarball has no dist/esm/workers/worker.js');
console.log(`package size (${packed.filename}): ${size}`);
console.log(`worker script (dist/esm/workers/worker.js): ${kB(worker.size)}`);
