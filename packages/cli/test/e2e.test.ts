/**
 * The CLI as users get it: the spatialhash and spatialhash-cli tarballs
 * packed from this checkout, run through `npm exec` on files of every format
 * (the bunny written by tests' own writers), read back with independent
 * readers. The packed library is this checkout's dist/ (built by `npm ci`'s
 * prepare); the CLI is compiled here first. Its dependencies come from npm's
 * cache (--prefer-offline), where `npm ci` left them.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeIO } from '@gltf-transform/core';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bunnyMesh, glb, las, laz, obj, ply, soupOf, stlAscii, stlBinary, xyz } from './fixtures.js';
import { arrayBufferOf, distinctPoints, put } from './helpers.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const work = mkdtempSync(join(tmpdir(), 'spatialhash-cli-e2e-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let packages: string[] = [];

function pack(args: string[]): { filename: string; files: { path: string }[] } {
  const out = execFileSync(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', work, ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out)[0];
}

/** `npm exec` with both tarballs; `script` runs with their bins on the PATH. */
function npmExec(script: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(
    npm,
    [
      'exec',
      '--yes',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      ...packages.map((p) => `--package=${p}`),
      '-c',
      script,
    ],
    { cwd: work, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error' } },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'packages/cli/tsconfig.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  const library = pack([]);
  const cli = pack(['--workspace', 'spatialhash-cli']);
  // The library's tarball holds no part of the CLI, and the CLI's only its build.
  expect(
    library.files.filter((f) => !/^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/.+)$/.test(f.path)),
  ).toEqual([]);
  expect(cli.files.map((f) => f.path)).toContain('dist/cli.js');
  expect(
    cli.files.filter((f) => !/^(package\.json|README\.md|LICENSE|bin\/spatialhash\.js|dist\/.+\.js)$/.test(f.path)),
  ).toEqual([]);
  packages = [join(work, library.filename), join(work, cli.filename)];
}, 120_000);

describe('spatialhash-cli as the guide says to run it', () => {
  it('npm install of the two tarballs into an empty folder, then npx spatialhash-cli and npx spatialhash', () => {
    const project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"private": true}\n');
    // The dependencies from npm's cache, where npm ci left them: no network beyond the registry's cache.
    execFileSync(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...packages], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const input = put(project, 'soup.stl', stlBinary(soupOf(bunnyMesh(), 2e-4, 3)));
    for (const name of ['spatialhash-cli', 'spatialhash']) {
      const out = execFileSync(
        npm,
        ['exec', '--no', '--', name, 'weld', input, '-o', join(project, `${name}.stl`), '-t', '0.001', '--json'],
        {
          cwd: project,
          encoding: 'utf8',
        },
      );
      expect(JSON.parse(out)).toMatchObject({ in: 11_022, out: 1839 });
    }
  }, 120_000);

  it('npx spatialhash-cli in the checkout (after the build)', () => {
    const out = execFileSync(npm, ['exec', '--no', '--', 'spatialhash-cli', '--version'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(out).toBe('0.1.0\n');
  });
});

describe('spatialhash-cli from its tarball, through npm exec', () => {
  it('welds and dedupes every format; exit codes and messages survive npm exec', async () => {
    const mesh = bunnyMesh();
    const soup = soupOf(mesh, 2e-4, 3);
    const index = Uint32Array.from({ length: soup.length / 3 }, (_, i) => i);
    put(work, 'bunny.stl', stlBinary(soup));
    put(work, 'bunny-ascii.stl', stlAscii(soup));
    put(work, 'bunny.obj', obj({ positions: soup, triangles: index }));
    put(work, 'bunny.ply', ply(soup, index, 'binary_little_endian'));
    put(work, 'bunny-ascii.ply', ply(soup, index, 'ascii'));
    put(work, 'bunny.glb', await glb(soup, undefined));
    put(work, 'points.xyz', xyz(soup, ' ', false));
    put(work, 'points.csv', xyz(soup, ',', true));
    put(work, 'points.ply', ply(soup, [], 'binary_big_endian'));
    put(work, 'points.las', las(soup, '1.4'));
    put(work, 'points.laz', laz(soup.subarray(0, 900)));
    put(work, 'broken.ply', ply(soup, index, 'binary_little_endian').subarray(0, 5000));
    const welds = ['bunny.stl', 'bunny-ascii.stl', 'bunny.obj', 'bunny.ply', 'bunny-ascii.ply', 'bunny.glb'];
    const dedupes = ['points.xyz', 'points.csv', 'points.ply', 'points.las', 'points.laz'];
    const script = [
      'set -e',
      'spatialhash --version',
      ...welds.map((f) => `spatialhash weld ${f} -o welded-${f} --tolerance 0.001 --json`),
      ...dedupes.map((f) => `spatialhash dedupe ${f} -o deduped-${f.replace('.laz', '.las')} --radius 0.001 --json`),
      'set +e',
      'spatialhash weld broken.ply -o welded-broken.ply -t 0.001; echo "exit $?"',
      'spatialhash weld bunny.stl -o welded.ply -t 0.001; echo "exit $?"',
    ].join('\n');
    const { status, stdout, stderr } = npmExec(script);
    expect(status, stderr).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('0.1.0');
    const summaries = lines.slice(1, 1 + welds.length + dedupes.length).map((line) => JSON.parse(line));
    for (const summary of summaries.slice(0, welds.length))
      expect([summary.input, summary.out]).toEqual([summary.input, 1839]);
    expect(summaries.slice(welds.length).map((s) => s.out)).toEqual([
      1839,
      1839,
      1839,
      summaries[welds.length + 3].out,
      summaries[welds.length + 4].out,
    ]);
    expect(lines.slice(-2)).toEqual(['exit 1', 'exit 2']);
    expect(stderr).toMatch(/broken\.ply: line 4: element "vertex" announces 11,022 records of at least 12 bytes/);
    expect(stderr).toMatch(/must have the input's format \(\.stl\)/);

    // Read back independently.
    const stl = new STLLoader().parse(arrayBufferOf(join(work, 'welded-bunny.stl')));
    expect(distinctPoints(stl.getAttribute('position').array).size).toBe(1839);
    const welded = new PLYLoader().parse(arrayBufferOf(join(work, 'welded-bunny.ply')));
    expect([welded.getAttribute('position').count, welded.getIndex()?.count]).toEqual([1839, 3674 * 3]);
    const document = await new NodeIO().read(join(work, 'welded-bunny.glb'));
    expect(
      document
        .getRoot()
        .listAccessors()
        .map((a) => a.getCount()),
    ).toEqual([1839, 3674 * 3]);
    expect(readFileSync(join(work, 'welded-bunny.obj'), 'utf8').match(/^v /gm)?.length).toBe(1839);
  }, 120_000);
});
