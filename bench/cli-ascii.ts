/**
 * Workload 11, the ASCII readers against three's loaders (issue 40): OBJ,
 * ASCII PLY and ASCII STL of the same torus (coordinates rounded to 7
 * significant digits; the PLY writes them as float32 in full, 17 digits, as
 * a float32 round trip through a double prints them), at 1e4 and 1e6
 * vertices (1e4 and 1e5 with --quick).
 *
 * - Warm, in this process: `spatialhash weld`'s reading phase (its --json
 *   timings) and its whole run, through the CLI's own run() (dist/run.js),
 *   against three's OBJLoader, PLYLoader and STLLoader parsing the same file
 *   (readFileSync included), interleaved, after one untimed run of each.
 * - Cold, as a command runs: the reading phase of a fresh `spatialhash weld`
 *   process against a fresh process that imports three's loader, then reads
 *   and parses the file once; at the small size, where start-up is most of
 *   it.
 *
 * @module
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { obj, ply, stlAscii } from '../packages/cli/test/fixtures.js';
import type { Cost } from './cli-formats.js';
import { median, ms, table } from './harness.js';
import { torusMesh } from './torus.js';

/** What the ASCII rows need from workload 11's runner. */
export interface AsciiBenchContext {
  work: string;
  root: string;
  cli: string;
  reps: number;
  quick: boolean;
  /** Runs `node args` as a child and measures it. */
  measured: (args: string[]) => Cost;
}

type Format = 'obj' | 'ply' | 'stl';

const LOADERS: Record<Format, string> = { obj: 'OBJLoader', ply: 'PLYLoader', stl: 'STLLoader' };

/** The three files of a torus of about `vertices` vertices. */
function writeFiles(work: string, side: number): Record<Format, string> {
  const mesh = torusMesh(side, side, 7);
  // The STL: as many corners as the mesh has vertices, in triangles.
  const triangles = Math.ceil((side * side) / 3);
  const soup = new Float64Array(triangles * 9);
  for (let k = 0; k < triangles * 3; k++) {
    soup.set(mesh.positions.subarray(mesh.triangles[k]! * 3, mesh.triangles[k]! * 3 + 3), k * 3);
  }
  const files = {
    obj: join(work, `ascii-${side}.obj`),
    ply: join(work, `ascii-${side}.ply`),
    stl: join(work, `ascii-${side}.stl`),
  };
  writeFileSync(files.obj, obj(mesh));
  writeFileSync(files.ply, ply(mesh.positions, mesh.triangles, 'ascii'));
  writeFileSync(files.stl, stlAscii(soup));
  return files;
}

/** Runs the ASCII rows and returns their markdown section. */
export async function asciiBench(ctx: AsciiBenchContext): Promise<string> {
  const { work, root, cli, reps, quick, measured } = ctx;
  const loaders = join(root, 'node_modules/three/examples/jsm/loaders');
  const three = {
    obj: (await import(pathToFileURL(join(loaders, 'OBJLoader.js')).href)).OBJLoader,
    ply: (await import(pathToFileURL(join(loaders, 'PLYLoader.js')).href)).PLYLoader,
    stl: (await import(pathToFileURL(join(loaders, 'STLLoader.js')).href)).STLLoader,
  };
  const { run } = (await import(pathToFileURL(join(root, 'packages/cli/dist/run.js')).href)) as {
    run: (args: string[], streams: unknown) => Promise<number>;
  };
  const quiet = { isTTY: false, write: () => true };
  /** spatialhash weld in this process: its reading phase and whole run, in ms. */
  const ours = async (format: Format, file: string) => {
    let out = '';
    const start = performance.now();
    const status = await run(['weld', file, '-o', join(work, `ascii-out.${format}`), '--tolerance', '1e-9', '--json'], {
      stdout: { write: (text: string) => (out += text) },
      stderr: quiet,
    });
    const whole = performance.now() - start;
    if (status !== 0) throw new Error(`spatialhash weld ${file} failed (${status})`);
    return { reading: (JSON.parse(out) as { timings: { reading: number } }).timings.reading * 1000, whole };
  };
  /** three's loader in this process: readFileSync and parse, in ms; checks it read every vertex. */
  const theirs = (format: Format, file: string, vertices: number) => {
    const start = performance.now();
    const bytes = readFileSync(file);
    let count: number;
    if (format === 'obj') {
      // OBJLoader's meshes are unindexed: 3 corners a triangle.
      const group = new three.obj().parse(bytes.toString('utf8')) as {
        children: { geometry: { getAttribute(name: string): { count: number } } }[];
      };
      count = group.children.reduce((sum, mesh) => sum + mesh.geometry.getAttribute('position').count, 0);
    } else {
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      count = new three[format]().parse(buffer).getAttribute('position').count;
    }
    const elapsed = performance.now() - start;
    if (format === 'ply' ? count !== vertices : count < vertices) {
      throw new Error(`three's ${LOADERS[format]} read ${count} vertices of ${vertices} from ${file}`);
    }
    return elapsed;
  };
  const coldScript = join(work, 'parse-ascii-cold.mjs');
  writeFileSync(
    coldScript,
    `import { readFileSync } from 'node:fs';
const [format, file] = process.argv.slice(2);
const names = { obj: 'OBJLoader', ply: 'PLYLoader', stl: 'STLLoader' };
const Loader = (await import(${JSON.stringify(pathToFileURL(loaders).href)} + '/' + names[format] + '.js'))[names[format]];
const start = performance.now();
const bytes = readFileSync(file);
if (format === 'obj') new Loader().parse(bytes.toString('utf8'));
else new Loader().parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
console.log(JSON.stringify({ ms: performance.now() - start }));
`,
  );
  const sides = quick ? [100, 316] : [100, 1000];
  const rows: string[][] = [];
  for (const side of sides) {
    const files = writeFiles(work, side);
    const vertices = side * side;
    for (const format of ['obj', 'ply', 'stl'] as const) {
      const file = files[format];
      await ours(format, file);
      theirs(format, file, vertices);
      const reading: number[] = [];
      const whole: number[] = [];
      const parse: number[] = [];
      for (let r = 0; r < Math.max(3, reps); r++) {
        const o = await ours(format, file);
        reading.push(o.reading);
        whole.push(o.whole);
        parse.push(theirs(format, file, vertices));
      }
      const cold = ['', '', ''];
      if (side === sides[0]) {
        const oursCold: number[] = [];
        const theirsCold: number[] = [];
        for (let r = 0; r < Math.max(3, reps); r++) {
          const cost = measured([cli, 'weld', file, '-o', join(work, `ascii-out.${format}`), '-t', '1e-9', '--json']);
          oursCold.push((JSON.parse(cost.stdout) as { timings: { reading: number } }).timings.reading * 1000);
          theirsCold.push((JSON.parse(measured([coldScript, format, file]).stdout) as { ms: number }).ms);
        }
        cold[0] = ms(median(oursCold));
        cold[1] = ms(median(theirsCold));
        cold[2] = (median(theirsCold) / median(oursCold)).toFixed(2);
      }
      rows.push([
        format === 'obj' ? 'OBJ' : format === 'ply' ? 'ASCII PLY' : 'ASCII STL',
        vertices.toLocaleString('en-US'),
        `${(statSync(file).size / 1e6).toFixed(1)} MB`,
        ms(median(reading)),
        ms(median(parse)),
        (median(parse) / median(reading)).toFixed(2),
        ms(median(whole)),
        ...cold,
      ]);
      console.log(`  ASCII ${format} at ${vertices.toLocaleString('en-US')} vertices: done`);
    }
  }
  return [
    "### The ASCII readers against three's loaders",
    `The same torus (coordinates rounded to 7 significant digits) as an OBJ with texture coordinates (its faces v/vt), an ASCII PLY (float x, y, z written as the doubles float32 widens to: 17 digits) and an ASCII STL of as many corners. Warm: in this process, spatialhash's reading phase (\`weld --json\`, pass 1: every number parsed and checked, the file streamed) and its whole run (read, weld, write) through the CLI's run(), against three's loader reading and parsing the file (readFileSync included), interleaved after one untimed run each, median of ${Math.max(3, reps)}. Cold: the reading phase of a fresh \`spatialhash weld\` process against a fresh process parsing the file once after importing the loader, median of ${Math.max(3, reps)}, at ${sides[0] * sides[0]} vertices. Ratios: three's time over ours (above 1: ours is faster).`,
    table(
      [
        'format',
        'vertices',
        'file',
        'spatialhash reading ms',
        "three's loader ms",
        'ratio',
        'spatialhash whole run ms',
        'cold: reading ms',
        "cold: three's ms",
        'cold ratio',
      ],
      rows,
    ),
  ].join('\n\n');
}
