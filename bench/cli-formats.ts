/**
 * Workload 11, the format rows (issue 40): the CLI's readers and writers
 * against the tools users would pick instead, each as a child process.
 *
 * - Binary PLY read and write: `spatialhash weld`'s reading and writing
 *   phases (its --json timings) against Open3D's read_triangle_mesh plus
 *   write_triangle_mesh on the same file (Debian's python3-open3d, when
 *   /usr/bin/python3 imports it), and against a floor: Node reading the
 *   whole file and writing it back (readFileSync + writeFileSync), as MB/s.
 * - The ASCII readers against three's loaders (cli-ascii.ts): `spatialhash
 *   weld`'s reading phase and whole run against OBJLoader, PLYLoader and
 *   STLLoader on the same files at 1e4 and 1e6 vertices, warm in this process
 *   and cold in fresh ones.
 * - The whole weld of that PLY against MeshLab's Merge Close Vertices
 *   (Debian's meshlab; meshlabserver needs an X display: xvfb-run gives it one).
 * - dedupe of a LAS cloud: time and peak memory (VmHWM); and CloudCompare's
 *   spatial subsampling (Debian's cloudcompare, offscreen) on the same points
 *   as a binary PLY, since that build reads no LAS.
 *
 * A tool that is not installed loses its row and the section says so.
 *
 * Sizes: 1e6 vertices (1e5 with --quick); with SPATIALHASH_BENCH_SCALE=1 the
 * issue's 1e7 for the binary PLY and the LAS cloud.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { las, ply } from '../packages/cli/test/fixtures.js';
import { asciiBench } from './cli-ascii.js';
import { median, ms, table } from './harness.js';
import { torusSoup } from './torus.js';

/** What one child process cost (see cli.ts). */
export interface Cost {
  ms: number;
  rssMB: number;
  stdout: string;
}

/** What the format rows need from workload 11's runner. */
export interface FormatBenchContext {
  work: string;
  root: string;
  cli: string;
  reps: number;
  quick: boolean;
  scale: boolean;
  /** Runs `node args` as a child and measures it. */
  measured: (args: string[]) => Cost;
}

/** The CLI's --json summary, as far as these rows read it. */
interface Summary {
  in: number;
  out: number;
  timings: { reading: number; welding: number; writing: number };
}

/** Writes a binary PLY soup of about `vertices` vertices (a jittered torus, face t = 3t..3t+2) in chunks. */
function writePlySoup(file: string, vertices: number): number {
  const triangles = Math.floor(vertices / 3);
  const along = 2000;
  const around = Math.ceil(triangles / (2 * along));
  const fd = openSync(file, 'w');
  writeSync(
    fd,
    `ply\nformat binary_little_endian 1.0\nelement vertex ${triangles * 3}\nproperty float x\nproperty float y\nproperty float z\nelement face ${triangles}\nproperty list uchar int vertex_indices\nend_header\n`,
  );
  let written = 0;
  for (let u = 0; u < around && written < triangles * 9; u++) {
    const soup = torusSoup(around, along, 2e-6, 1000, u, u + 1);
    const take = Math.min(soup.length, triangles * 9 - written);
    writeSync(fd, new Uint8Array(soup.buffer, 0, take * 4));
    written += take;
  }
  const faces = Buffer.alloc(triangles * 13);
  for (let t = 0; t < triangles; t++) {
    faces.writeUInt8(3, t * 13);
    for (let k = 0; k < 3; k++) faces.writeInt32LE(t * 3 + k, t * 13 + 1 + k * 4);
  }
  writeSync(fd, faces);
  closeSync(fd);
  return triangles * 3;
}

/** Whether Debian's python3-open3d imports here. */
function hasOpen3d(): boolean {
  return spawnSync('/usr/bin/python3', ['-c', 'import open3d'], { encoding: 'utf8' }).status === 0;
}

/** Whether a program is on the PATH. */
function has(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).status === 0;
}

/** Runs another tool under /usr/bin/time: wall time, max RSS, its output. */
function external(
  command: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Cost & { stderr: string } {
  const start = performance.now();
  const result = spawnSync('/usr/bin/time', ['-f', '%M', ...command], {
    encoding: 'utf8',
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    maxBuffer: 1 << 26,
  });
  const elapsed = performance.now() - start;
  if (result.status !== 0) throw new Error(`${command.join(' ')} failed (${result.status}):\n${result.stderr}`);
  const rssKB = Number(result.stderr.trim().split('\n').pop());
  return { ms: elapsed, rssMB: rssKB / 1024, stdout: result.stdout, stderr: result.stderr };
}

/** The vertex count a PLY header states. */
function plyVertices(file: string): number {
  const head = readFileSync(file).subarray(0, 4096).toString('latin1');
  return Number(/element vertex (\d+)/.exec(head)?.[1] ?? Number.NaN);
}

/** Runs the format rows and returns their markdown sections. */
export async function formatBench(ctx: FormatBenchContext): Promise<string[]> {
  const { work, root, cli, reps, quick, scale, measured } = ctx;
  const sections: string[] = [];
  const json = (cost: Cost) => JSON.parse(cost.stdout) as Summary;
  const mb = (file: string) => statSync(file).size / 1e6;

  // 1. Binary PLY read and write.
  {
    const target = scale ? 1e7 : quick ? 1e5 : 1e6;
    const input = join(work, 'soup.ply');
    const vertices = writePlySoup(input, target);
    const size = mb(input);
    const open3d = hasOpen3d();
    const o3dScript = join(work, 'o3d.py');
    writeFileSync(
      o3dScript,
      'import sys, time, open3d as o3d\nt0 = time.perf_counter()\nm = o3d.io.read_triangle_mesh(sys.argv[1])\nt1 = time.perf_counter()\no3d.io.write_triangle_mesh(sys.argv[2], m, write_ascii=False)\nt2 = time.perf_counter()\nprint(len(m.vertices), t1 - t0, t2 - t1)\n',
    );
    const floorScript = join(work, 'floor.mjs');
    writeFileSync(
      floorScript,
      "import { readFileSync, writeFileSync } from 'node:fs';\nconst t0 = performance.now();\nconst bytes = readFileSync(process.argv[2]);\nconst t1 = performance.now();\nwriteFileSync(process.argv[3], bytes);\nconst t2 = performance.now();\nconsole.log(JSON.stringify({ read: (t1 - t0) / 1000, write: (t2 - t1) / 1000 }));\n",
    );
    const ours: { read: number; write: number; wall: number; rss: number }[] = [];
    const theirs: { read: number; write: number; wall: number; rss: number }[] = [];
    const floor: { read: number; write: number; wall: number; rss: number }[] = [];
    for (let r = 0; r < reps; r++) {
      const cost = measured([cli, 'weld', input, '-o', join(work, 'soup-out.ply'), '--tolerance', '1e-5', '--json']);
      const { timings } = json(cost);
      ours.push({ read: timings.reading, write: timings.writing, wall: cost.ms, rss: cost.rssMB });
      const copy = measured([floorScript, input, join(work, 'soup-copy.ply')]);
      const f = JSON.parse(copy.stdout) as { read: number; write: number };
      floor.push({ ...f, wall: copy.ms, rss: copy.rssMB });
      if (open3d) {
        const start = performance.now();
        const result = spawnSync(
          '/usr/bin/time',
          ['-f', '%M', '/usr/bin/python3', o3dScript, input, join(work, 'o3d-out.ply')],
          {
            encoding: 'utf8',
          },
        );
        const wall = performance.now() - start;
        if (result.status !== 0) throw new Error(`open3d failed: ${result.stderr}`);
        const [count, load, save] = result.stdout.trim().split(/\s+/).map(Number);
        if (count !== vertices) throw new Error(`open3d read ${count} vertices of ${vertices}`);
        const rssKB = Number(result.stderr.trim().split('\n').pop());
        theirs.push({ read: load!, write: save!, wall, rss: rssKB / 1024 });
      }
    }
    const row = (name: string, runs: typeof ours) => {
      const read = median(runs.map((c) => c.read));
      const write = median(runs.map((c) => c.write));
      return [
        name,
        ms(read * 1000),
        ms(write * 1000),
        ms((read + write) * 1000),
        ((2 * size) / (read + write)).toFixed(0),
        ms(median(runs.map((c) => c.wall))),
        median(runs.map((c) => c.rss)).toFixed(0),
      ];
    };
    const rows = [row('spatialhash weld (its reading and writing phases)', ours)];
    if (open3d) rows.push(row('Open3D 0.16 read_triangle_mesh + write_triangle_mesh', theirs));
    rows.push(row('floor: Node readFileSync + writeFileSync of the file', floor));
    // The whole weld of the same file, against MeshLab's Merge Close Vertices where it runs (under xvfb-run).
    const wholeRows = [
      [
        'spatialhash weld --tolerance 1e-5',
        ms(median(ours.map((c) => c.wall))),
        median(ours.map((c) => c.rss)).toFixed(0),
        `${vertices.toLocaleString('en-US')} -> ${JSON.parse(measured([cli, 'weld', input, '-o', join(work, 'soup-out.ply'), '--tolerance', '1e-5', '--json']).stdout).out.toLocaleString('en-US')}`,
      ],
    ];
    const meshlab = has('meshlabserver') && has('xvfb-run');
    if (meshlab) {
      const script = join(work, 'merge.mlx');
      writeFileSync(
        script,
        '<!DOCTYPE FilterScript>\n<FilterScript>\n <filter name="Merge Close Vertices">\n  <Param type="RichAbsPerc" value="0.00001" min="0" max="1" name="Threshold"/>\n </filter>\n</FilterScript>\n',
      );
      const runs: Cost[] = [];
      for (let r = 0; r < reps; r++) {
        runs.push(
          external(['xvfb-run', '-a', 'meshlabserver', '-i', input, '-o', join(work, 'meshlab-out.ply'), '-s', script]),
        );
      }
      wholeRows.push([
        'MeshLab 2020.09 meshlabserver, Merge Close Vertices 1e-5 (under xvfb-run)',
        ms(median(runs.map((c) => c.ms))),
        median(runs.map((c) => c.rssMB)).toFixed(0),
        `${vertices.toLocaleString('en-US')} -> ${plyVertices(join(work, 'meshlab-out.ply')).toLocaleString('en-US')}`,
      ]);
    }
    sections.push(
      [
        '### Binary PLY: reading and writing',
        `A jittered torus soup of ${vertices.toLocaleString('en-US')} vertices and ${(vertices / 3).toLocaleString('en-US')} faces as one binary PLY (${size.toFixed(0)} MB), ${reps} runs each, medians. spatialhash's read and write are the phases of \`weld --json\` (its weld is not counted; the wall time is the whole run); Open3D's are its load and save calls timed in Python${open3d ? '' : ' (python3-open3d is not installed here: no row)'}; the floor copies the file's bytes with no parsing. MB/s counts the file once read and once written.`,
        table(['what', 'read ms', 'write ms', 'read + write ms', 'MB/s', 'wall ms', 'max RSS MB'], rows),
        `The whole weld of the same file, as a command${meshlab ? '' : " (MeshLab's meshlabserver or xvfb-run is not installed here: no MeshLab row)"}:`,
        table(['command', 'median ms', 'max RSS MB', 'vertices in -> out'], wholeRows),
      ].join('\n\n'),
    );
    console.log('  binary PLY read and write: done');
  }

  // 2. ASCII readers against three's loaders (cli-ascii.ts), warm in this process and cold in fresh ones.
  sections.push(await asciiBench({ work, root, cli, reps, quick, measured }));

  // 3. dedupe of a LAS cloud: time and peak memory.
  {
    const points = scale ? 1e7 : quick ? 1e5 : 1e6;
    const [around, along] = [1000, 1667];
    const soup = torusSoup(around, along, 2e-6, 11);
    const input = join(work, 'cloud.las');
    writeFileSync(input, las(soup.subarray(0, points * 3), '1.2'));
    const costs: Cost[] = [];
    for (let r = 0; r < reps; r++) {
      costs.push(measured([cli, 'dedupe', input, '-o', join(work, 'cloud-out.las'), '--radius', '1e-5', '--json']));
    }
    const summary = json(costs[0]!);
    // CloudCompare (Debian's build reads no LAS): the same points as a binary PLY, its spatial subsampling.
    const cloudPly = join(work, 'cloud.ply');
    writeFileSync(cloudPly, ply(soup.subarray(0, points * 3), [], 'binary_little_endian'));
    const plyRuns: Cost[] = [];
    for (let r = 0; r < reps; r++) {
      plyRuns.push(
        measured([cli, 'dedupe', cloudPly, '-o', join(work, 'cloud-ply-out.ply'), '--radius', '1e-5', '--json']),
      );
    }
    const cloudCompare = has('CloudCompare');
    const ccRuns: Cost[] = [];
    let ccOut = 0;
    if (cloudCompare) {
      const dir = join(work, 'cloudcompare');
      for (let r = 0; r < reps; r++) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
        ccRuns.push(
          external(
            [
              'CloudCompare',
              '-SILENT',
              '-AUTO_SAVE',
              'ON',
              '-C_EXPORT_FMT',
              'PLY',
              '-PLY_EXPORT_FMT',
              'BINARY_LE',
              '-O',
              cloudPly,
              '-SS',
              'SPATIAL',
              '0.00001',
            ],
            { cwd: dir, env: { QT_QPA_PLATFORM: 'offscreen' } },
          ),
        );
        // It saves beside its input or in its working folder, depending on the version.
        for (const folder of [dir, work]) {
          const saved = readdirSync(folder).find((name) => name.includes('SPATIAL_SUBSAMPLED'));
          if (saved === undefined) continue;
          ccOut = plyVertices(join(folder, saved));
          rmSync(join(folder, saved));
        }
      }
    }
    const rows = [
      [
        'spatialhash dedupe --radius 1e-5',
        ms(median(costs.map((c) => c.ms))),
        median(costs.map((c) => c.rssMB)).toFixed(0),
        `${summary.in.toLocaleString('en-US')} -> ${summary.out.toLocaleString('en-US')}`,
      ],
      [
        'spatialhash dedupe --radius 1e-5, the same points as binary PLY',
        ms(median(plyRuns.map((c) => c.ms))),
        median(plyRuns.map((c) => c.rssMB)).toFixed(0),
        `${points.toLocaleString('en-US')} -> ${json(plyRuns[0]!).out.toLocaleString('en-US')}`,
      ],
    ];
    if (cloudCompare) {
      rows.push([
        'CloudCompare 2.11 -SS SPATIAL 1e-5 on the binary PLY (offscreen)',
        ms(median(ccRuns.map((c) => c.ms))),
        median(ccRuns.map((c) => c.rssMB)).toFixed(0),
        `${points.toLocaleString('en-US')} -> ${ccOut.toLocaleString('en-US')}`,
      ]);
    }
    sections.push(
      [
        '### dedupe of a LAS cloud: time and memory',
        `${points.toLocaleString('en-US')} corners of a jittered torus soup (6 copies of each vertex within 4e-6, in the soup's order) as a LAS 1.2 file of ${mb(input).toFixed(0)} MB (coordinates on its 0.001 grid), ${reps} runs, median wall time and max RSS. The points stream through a chunked weld (packages/cli/src/dedupe-points.ts): the representatives and one chunk are held, never the cloud, and the kept records are copied in a second pass. Debian's CloudCompare reads no LAS, so it runs on the same points as a binary PLY (float32, not on the grid: other counts), beside spatialhash on that PLY${cloudCompare ? '' : ' (CloudCompare is not installed here: no row)'}. CloudCompare's spatial subsampling keeps points at least the radius apart; it is not weld's rule.`,
        table(['what', 'median ms', 'max RSS MB', 'points in -> out'], rows),
      ].join('\n\n'),
    );
    console.log('  LAS dedupe: done');
  }
  return sections;
}
