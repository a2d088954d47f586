/**
 * Workload 11: the command-line tool, measured as users run it: child
 * processes, wall time, and peak memory (max RSS, recorded by a preloaded
 * script as each process exits).
 *
 * Peak memory is the child's VmHWM (Linux): getrusage's maxRSS would start
 * from the bench process's own size, which the child inherits through fork.
 *
 * - spatialhash weld against glTF-Transform's CLI `weld` on the same GLB
 *   (a torus soup of 1,002,000 vertices with bit-identical copies, tolerance
 *   0: both must leave the same vertex count), and on its jittered twin; then
 *   the weld step alone (weldByDistance against glTF-Transform's weld(), each
 *   once in a fresh process on the document NodeIO read).
 * - The library's weld() on 1e6 and 1e7 vertices of the same soup shape.
 * - The file-format readers the CLI could have used, on the same mesh or
 *   cloud (1e6 triangles, 1e6 points): three's STLLoader, PLYLoader and
 *   OBJLoader, loaders.gl's PLY, OBJ and LAS loaders, each just parsing, against
 *   the CLI's whole run (read, weld, write) with its own readers.
 * - The format rows (cli-formats.ts): binary PLY reading and writing against
 *   Open3D and a copy floor, the ASCII readers against three's loaders, and a
 *   LAS dedupe's time and memory.
 * - With SPATIALHASH_BENCH_SCALE=1: a 1e7-triangle binary STL (30 million
 *   vertices, 500 MB, written to the temp folder) welded by the CLI, and the
 *   format rows at 1e7 vertices and points.
 *
 * glTF-Transform's CLI and loaders.gl live in tools/bench-peers (installed
 * there when missing), apart from the root's dependencies.
 *
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { NodeIO } from '@gltf-transform/core';
import { glb, las, obj, ply, stlBinary } from '../packages/cli/test/fixtures.js';
import { weld } from '../src/index.js';
import { formatBench } from './cli-formats.js';
import { median, ms, table } from './harness.js';
import { torusMesh, torusSoup } from './torus.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const peers = join(root, 'tools/bench-peers');
const cli = join(root, 'packages/cli/dist/cli.js');

/** What one child process cost. */
interface Cost {
  ms: number;
  /** Max RSS in MB. */
  rssMB: number;
  stdout: string;
}

/** Runs `node args` with a preload that writes the process's max RSS when it exits. */
function measured(args: string[], peakFile: string, preload: string): Cost {
  rmSync(peakFile, { force: true });
  const start = performance.now();
  const result = spawnSync(process.execPath, ['--require', preload, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, SPATIALHASH_PEAK_FILE: peakFile },
    maxBuffer: 1 << 26,
  });
  const elapsed = performance.now() - start;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed (${result.status}):\n${result.stderr}`);
  // VmHWM is in kilobytes (KiB).
  return { ms: elapsed, rssMB: Number(readFileSync(peakFile, 'utf8')) / 1024, stdout: result.stdout };
}

/** Vertices in a GLB's primitives. */
async function glbVertices(file: string): Promise<number> {
  const document = await new NodeIO().read(file);
  return document
    .getRoot()
    .listMeshes()
    .flatMap((m) => m.listPrimitives())
    .reduce((sum, p) => sum + (p.getAttribute('POSITION')?.getCount() ?? 0), 0);
}

/** Writes a 1e7-triangle-scale binary STL of a jittered torus soup in chunks (never whole in memory). */
function writeLargeStl(file: string, around: number, along: number, jitter: number): void {
  const fd = openSync(file, 'w');
  const triangles = around * along * 2;
  const head = Buffer.alloc(84);
  head.write('spatialhash scale bench: jittered torus soup', 0, 'latin1');
  head.writeUInt32LE(triangles, 80);
  writeSync(fd, head);
  for (let u = 0; u < around; u++)
    writeSync(fd, stlBinary(torusSoup(around, along, jitter, 1000, u, u + 1)).subarray(84));
  closeSync(fd);
}

/** Runs workload 11 and returns its markdown section. */
export async function cliBench(quick: boolean): Promise<string> {
  if (!existsSync(join(peers, 'node_modules/@gltf-transform/cli'))) {
    console.log('  installing tools/bench-peers (glTF-Transform CLI, loaders.gl)...');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: peers, stdio: 'inherit' });
  }
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'packages/cli/tsconfig.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  const work = mkdtempSync(join(tmpdir(), 'spatialhash-bench-cli-'));
  const preload = join(work, 'peak.cjs');
  writeFileSync(
    preload,
    // VmHWM, not resourceUsage().maxRSS: Linux carries maxRSS over from the forking parent (the bench itself).
    "process.on('exit', () => { const fs = require('node:fs'); const kb = /VmHWM:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]; fs.writeFileSync(process.env.SPATIALHASH_PEAK_FILE, kb); });\n",
  );
  const peak = join(work, 'peak.txt');
  const reps = quick ? 1 : 3;
  const sections: string[] = [];
  try {
    // 1. The two CLIs on one GLB.
    const [around, along] = quick ? [100, 67] : [500, 334];
    const rows: string[][] = [];
    const stepRows: string[][] = [];
    const stepScript = join(work, 'weld-step.mjs');
    writeFileSync(
      stepScript,
      `const at = (path) => import(${JSON.stringify(pathToFileURL(root).href)} + '/' + path);
const { NodeIO } = await at('node_modules/@gltf-transform/core/dist/index.js');
const { weld } = await at('node_modules/@gltf-transform/functions/dist/index.js');
// The built library, as the CLI loads it.
const { weldByDistance } = await at('dist/esm/gltf-transform/index.js');
const [which, file, tolerance] = process.argv.slice(2);
const document = await new NodeIO().read(file);
const start = performance.now();
if (which === 'ours') await document.transform(weldByDistance({ tolerance: Number(tolerance) }));
else await document.transform(weld());
console.log(performance.now() - start);
`,
    );
    for (const [label, jitter, tolerance] of [
      ['bit-identical copies', 0, 0],
      ['copies jittered by up to 2e-5', 2e-5, 1e-4],
    ] as const) {
      const input = join(work, `torus-${jitter}.glb`);
      writeFileSync(input, await glb(torusSoup(around, along, jitter, 11), undefined));
      const runs: Record<string, Cost[]> = { ours: [], theirs: [] };
      for (let r = 0; r < reps; r++) {
        runs.ours!.push(
          measured(
            [cli, 'weld', input, '-o', join(work, 'ours.glb'), '--tolerance', String(tolerance), '--quiet'],
            peak,
            preload,
          ),
        );
        runs.theirs!.push(
          measured(
            [join(peers, 'node_modules/@gltf-transform/cli/bin/cli.js'), 'weld', input, join(work, 'theirs.glb')],
            peak,
            preload,
          ),
        );
      }
      const inputVertices = await glbVertices(input);
      const ours = await glbVertices(join(work, 'ours.glb'));
      const theirs = await glbVertices(join(work, 'theirs.glb'));
      if (tolerance === 0 && ours !== theirs)
        throw new Error(`cli: at tolerance 0 spatialhash left ${ours} vertices, gltf-transform ${theirs}`);
      const oursMs = median(runs.ours!.map((c) => c.ms));
      for (const [name, costs, out, tol] of [
        [`spatialhash weld --tolerance ${tolerance}`, runs.ours!, ours, tolerance],
        ['gltf-transform weld (exact)', runs.theirs!, theirs, 0],
      ] as const) {
        void tol;
        const t = median(costs.map((c) => c.ms));
        rows.push([
          label,
          name,
          ms(t),
          (t / oursMs).toFixed(2),
          median(costs.map((c) => c.rssMB)).toFixed(0),
          `${inputVertices.toLocaleString('en-US')} -> ${out.toLocaleString('en-US')}`,
        ]);
      }
      // The weld step alone, as the CLI runs it (once, in a fresh process, on the document NodeIO read).
      for (const [name, args] of [
        [`weldByDistance --tolerance ${tolerance}`, ['ours', input, String(tolerance)]],
        ['glTF-Transform weld() (exact)', ['theirs', input, '0']],
      ] as const) {
        const times: number[] = [];
        for (let r = 0; r < reps; r++) {
          const out = execFileSync(process.execPath, [stepScript, ...args], { cwd: root, encoding: 'utf8' });
          times.push(Number(out.trim()));
        }
        stepRows.push([label, name, ms(median(times))]);
      }
      console.log(`  CLIs on ${label}: done`);
    }
    sections.push(
      [
        '### spatialhash weld vs gltf-transform weld, one GLB',
        `Each CLI as a child process (Node start-up, reading, welding, writing), ${reps} interleaved runs, median wall time and max RSS. The GLB holds one non-indexed primitive, a torus soup. With bit-identical copies both must leave the same vertex count (checked); with jittered copies only a weld by distance merges them (gltf-transform's weld has no tolerance since v4).`,
        table(['input', 'command', 'median ms', 'ratio', 'max RSS MB', 'vertices'], rows),
        `The weld step alone, as the CLI runs it: a fresh Node process reads the same GLB with NodeIO, then the transform runs once (JIT and WebAssembly cold, as in a CLI run) and only the transform is timed; median of ${reps} processes.`,
        table(['input', 'transform', 'median ms'], stepRows),
      ].join('\n\n'),
    );

    // 1b. The library's weld() as the data grows tenfold (the same torus soup shape, jittered by 0.2 x tolerance).
    const scaleRows: string[][] = [];
    let previous: number[] | undefined;
    for (const [a, b] of quick
      ? [
          [100, 67],
          [316, 211],
        ]
      : [
          [500, 334],
          [1581, 1054],
        ]) {
      const soup = torusSoup(a!, b!, 2e-5, 7);
      const times: number[] = [];
      // CPU time too: on a machine shared with other work, wall time counts the waits for a core.
      const cpu: number[] = [];
      weld(soup, 1e-4);
      for (let r = 0; r < reps + 2; r++) {
        const used = process.cpuUsage();
        const start = performance.now();
        weld(soup, 1e-4);
        times.push(performance.now() - start);
        const spent = process.cpuUsage(used);
        cpu.push((spent.user + spent.system) / 1000);
      }
      const t = median(times);
      const c = median(cpu);
      scaleRows.push([
        (soup.length / 3).toLocaleString('en-US'),
        ms(t),
        ms(c),
        ((t * 1e6) / (soup.length / 3)).toFixed(0),
        previous === undefined ? '' : (t / previous[0]!).toFixed(1),
        previous === undefined ? '' : (c / previous[1]!).toFixed(1),
      ]);
      previous = [t, c];
    }
    sections.push(
      [
        "### The library's weld() from 1e6 to 1e7 vertices",
        `weld(positions, 1e-4) on a Float32Array torus soup (copies jittered by up to 2e-5), in this process, one untimed run then the median of ${reps + 2}, wall and CPU time (process.cpuUsage, all threads). The target is at most 12 times the time for 10 times the vertices.`,
        table(
          ['vertices', 'median ms', 'median CPU ms', 'ns per vertex', 'x the row above', 'x the row above (CPU)'],
          scaleRows,
        ),
      ].join('\n\n'),
    );

    // 2. Readers: memory and time to parse, against the CLI's whole run.
    const [fa, fb] = quick ? [200, 250] : [1000, 500];
    const mesh = torusMesh(fa, fb);
    const soup = torusSoup(fa, fb, 2e-6, 11);
    const cloud = soup.subarray(0, Math.min(soup.length, 3e6));
    const files = {
      stl: join(work, 'mesh.stl'),
      ply: join(work, 'mesh.ply'),
      obj: join(work, 'mesh.obj'),
      las: join(work, 'cloud.las'),
    };
    writeFileSync(files.stl, stlBinary(soup));
    writeFileSync(files.ply, ply(mesh.positions, mesh.triangles, 'binary_little_endian'));
    writeFileSync(files.obj, obj(mesh));
    writeFileSync(files.las, las(cloud, '1.2'));
    const script = join(work, 'parse.mjs');
    writeFileSync(
      script,
      `import { readFileSync } from 'node:fs';
const [library, file] = process.argv.slice(2);
const bytes = readFileSync(file);
const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
const three = (path) => import(${JSON.stringify(join(root, 'node_modules/three/examples/jsm/loaders'))} + '/' + path);
const peer = (name) => import(${JSON.stringify(join(peers, 'node_modules'))} + '/' + name + '/dist/index.js');
// loaders.gl's loaders run through its core's parse (defaults merged), on this thread.
const loadersGl = async (name, loader) => (await peer('@loaders.gl/core')).parse(buffer, (await peer(name))[loader], { worker: false });
let count = 0;
if (library === 'three-stl') count = new (await three('STLLoader.js')).STLLoader().parse(buffer).getAttribute('position').count;
else if (library === 'three-ply') count = new (await three('PLYLoader.js')).PLYLoader().parse(buffer).getAttribute('position').count;
else if (library === 'three-obj') count = new (await three('OBJLoader.js')).OBJLoader().parse(bytes.toString('utf8')).children.length;
else if (library === 'loaders.gl-ply') count = (await loadersGl('@loaders.gl/ply', 'PLYLoader')).header.vertexCount;
else if (library === 'loaders.gl-obj') count = (await loadersGl('@loaders.gl/obj', 'OBJLoader')).header.vertexCount;
else if (library === 'loaders.gl-las') count = (await loadersGl('@loaders.gl/las', 'LASLoader')).header.vertexCount;
console.log(count);
`,
    );
    const sizeMB = (file: string) => (statSync(file).size / 1e6).toFixed(1);
    const readers: [string, string, string[]][] = [
      ['binary STL', 'three STLLoader (parse only)', [script, 'three-stl', files.stl]],
      [
        'binary STL',
        'spatialhash weld (read, weld, write)',
        [cli, 'weld', files.stl, '-o', join(work, 'out.stl'), '-t', '1e-5', '--quiet'],
      ],
      ['binary PLY', 'three PLYLoader (parse only)', [script, 'three-ply', files.ply]],
      ['binary PLY', 'loaders.gl PLYLoader (parse only)', [script, 'loaders.gl-ply', files.ply]],
      [
        'binary PLY',
        'spatialhash weld (read, weld, write)',
        [cli, 'weld', files.ply, '-o', join(work, 'out.ply'), '-t', '1e-5', '--quiet'],
      ],
      ['OBJ', 'three OBJLoader (parse only)', [script, 'three-obj', files.obj]],
      ['OBJ', 'loaders.gl OBJLoader (parse only)', [script, 'loaders.gl-obj', files.obj]],
      [
        'OBJ',
        'spatialhash weld (read, weld, write)',
        [cli, 'weld', files.obj, '-o', join(work, 'out.obj'), '-t', '1e-5', '--quiet'],
      ],
      ['LAS 1.2', 'loaders.gl LASLoader (parse only)', [script, 'loaders.gl-las', files.las]],
      [
        'LAS 1.2',
        'spatialhash dedupe (read, merge, write)',
        [cli, 'dedupe', files.las, '-o', join(work, 'out.las'), '-r', '1e-5', '--quiet'],
      ],
    ];
    const readerRows: string[][] = [];
    const baseline = measured(['-e', '0'], peak, preload).rssMB;
    for (const [format, name, args] of readers) {
      const costs: Cost[] = [];
      for (let r = 0; r < reps; r++) costs.push(measured(args, peak, preload));
      const file = args.find((a) => a.startsWith(work) && !a.includes('out.') && a !== script)!;
      readerRows.push([
        format,
        `${sizeMB(file)} MB`,
        name,
        ms(median(costs.map((c) => c.ms))),
        median(costs.map((c) => c.rssMB)).toFixed(0),
      ]);
      console.log(`  ${format}: ${name}`);
    }
    sections.push(
      [
        '### File-format readers: memory and time',
        `The same torus (${(fa * fb * 2).toLocaleString('en-US')} triangles) as a binary STL soup, an indexed binary PLY and OBJ, and ${(cloud.length / 3).toLocaleString('en-US')} of its soup's corners as a LAS 1.2 cloud. Each row is one child process, median of ${reps}; the libraries' rows only read the whole file and parse it (their loaders take a whole ArrayBuffer or string), the spatialhash rows do the CLI's whole job with its own streaming readers. A bare Node process here: ${baseline.toFixed(0)} MB.`,
        table(['format', 'file', 'what', 'median ms', 'max RSS MB'], readerRows),
      ].join('\n\n'),
    );

    // The format rows: binary PLY against Open3D and a copy floor, the ASCII readers against three's, LAS memory.
    sections.push(
      ...(await formatBench({
        work,
        root,
        cli,
        reps,
        quick,
        scale: process.env.SPATIALHASH_BENCH_SCALE === '1',
        measured: (args) => measured(args, peak, preload),
      })),
    );

    // 3. Scale: a 1e7-triangle binary STL.
    if (process.env.SPATIALHASH_BENCH_SCALE === '1') {
      const big = join(work, 'scale.stl');
      const [sa, sb] = [2500, 2000];
      console.log(`  writing a ${(sa * sb * 2).toLocaleString('en-US')}-triangle STL to ${big}...`);
      writeLargeStl(big, sa, sb, 2e-6);
      const size = statSync(big).size;
      const cost = measured(
        [cli, 'weld', big, '-o', join(work, 'scale-out.stl'), '--tolerance', '1e-5', '--json'],
        peak,
        preload,
      );
      const summary = JSON.parse(cost.stdout);
      rmSync(big, { force: true });
      sections.push(
        [
          '### Scale: a 1e7-triangle binary STL',
          `A jittered torus soup of ${(sa * sb * 2).toLocaleString('en-US')} triangles (${summary.in.toLocaleString('en-US')} vertices, ${(size / 1e6).toFixed(0)} MB), welded within 1e-5 by \`spatialhash weld\` as a child process, once.`,
          table(
            [
              'file MB',
              'wall s',
              'weld summary s',
              'max RSS MB',
              'RSS / file size',
              'bytes per vertex',
              'vertices in -> out',
              'dropped',
            ],
            [
              [
                (size / 1e6).toFixed(0),
                (cost.ms / 1000).toFixed(1),
                summary.seconds.toFixed(1),
                cost.rssMB.toFixed(0),
                ((cost.rssMB * 1048576) / size).toFixed(2),
                ((cost.rssMB * 1048576) / summary.in).toFixed(0),
                `${summary.in.toLocaleString('en-US')} -> ${summary.out.toLocaleString('en-US')}`,
                summary.dropped.toLocaleString('en-US'),
              ],
            ],
          ),
        ].join('\n\n'),
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return ['## 11. The command-line tool (spatialhash-cli)', ...sections].join('\n\n');
}
