/**
 * The command line: `spatialhash weld` and `spatialhash dedupe`, their
 * options, the format chosen by file extension, the summary and the exit
 * codes (0 done, 1 an input or output failed, 2 the command line was wrong).
 *
 * @module
 */

import { type Stats, statSync } from 'node:fs';
import { parseCommandLine, readDistance } from './args.js';
import { InputError, systemError, UsageError } from './errors.js';
import { checkOutputPlace } from './files.js';
import { dedupeLas } from './formats/las.js';
import { dedupeLaz } from './formats/laz.js';
import { weldObj } from './formats/obj.js';
import { dedupePly, weldPly } from './formats/ply.js';
import { weldStl } from './formats/stl.js';
import { dedupeXyz } from './formats/xyz.js';
import { Progress, type ProgressSink } from './progress.js';
import { type Counts, type DedupeJob, formatSummary, type Summary, type WeldJob } from './summary.js';

export const VERSION = '0.1.0';

export const USAGE = `spatialhash: merge vertices and points by distance, exactly (no pair within reach is missed).

Usage:
  spatialhash weld <input> -o <output> --tolerance <t> [options]
  spatialhash dedupe <input> -o <output> --radius <r> [--mean] [options]

weld: merges the vertices of a mesh that lie within <t> of each other (each
vertex, in file order, joins the nearest earlier welded vertex in reach, else
starts one) and drops the triangles and faces that collapse.
  -t, --tolerance <t>       the distance, a decimal number >= 0
  Formats: .stl (binary, ASCII), .obj, .ply (binary, ASCII), .gltf, .glb
  (Draco and meshopt compression included); the output has the input's
  format (.gltf and .glb may swap).
  STL comes out as triangles whose corners sit on their welded vertex, so
  seams close; the other formats come out indexed.
  --attribute-tolerance <name>=<t>  let a vertex attribute differ by up to <t>
                            (PLY: normal, color, uv or a property name; OBJ:
                            color; glTF: NORMAL, TEXCOORD_0, ...); attributes
                            must otherwise be equal (repeatable)
  --ignore <name>           do not compare that attribute (repeatable)
  --decompress              glTF: write the geometry uncompressed (a Draco or
                            meshopt input is otherwise compressed again)
  --force                   glTF: let a .gltf output's .bin and images replace
                            files of those names (never without it)

dedupe: merges the points of a cloud within <r> by the same rule; each kept
point keeps its record (colour, intensity, ...).
  -r, --radius <r>          the distance, a decimal number >= 0
  Formats: .ply, .xyz, .txt, .csv, .las, .laz (written as .las).
  --mean                    move each kept point to the mean of its cluster

Options:
  -o, --output <file>       where to write (through a temporary file, renamed
                            when complete: a failure leaves no partial output)
  --json                    print the summary as JSON
  -q, --quiet               print no summary
  --debug                   print the stack of an error
  -h, --help                this text
  --version                 the version

An option that takes a value takes the next word; each is given once
(--tolerance twice, or -t and --tolerance, is an error), except the two
marked repeatable.

Exit codes: 0 done, 1 an input could not be read or an output written,
2 the command line was wrong.`;

const WELD_FORMATS = ['.stl', '.obj', '.ply', '.gltf', '.glb'];
const DEDUPE_FORMATS = ['.ply', '.xyz', '.txt', '.csv', '.las', '.laz'];

/** Where a run writes: the terminal's streams, or a test's. */
export interface Streams {
  stdout: { write(text: string): unknown };
  stderr: ProgressSink;
  /** Where the progress goes when another thread draws it (see cli.ts): shared memory instead of stderr. */
  progress?: SharedArrayBuffer | undefined;
}

function extensionOf(file: string): string {
  const match = /\.[^./\\]+$/.exec(file);
  return match === null ? '' : match[0].toLowerCase();
}

function distance(name: string, text: string | undefined): number {
  if (text === undefined) throw new UsageError(`--${name} is required`);
  return readDistance(`--${name}`, text);
}

function attributeTolerances(pairs: string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0)
      throw new UsageError(`--attribute-tolerance takes <name>=<tolerance>, got ${JSON.stringify(pair)}`);
    map.set(
      pair.slice(0, equals),
      readDistance(`--attribute-tolerance ${pair.slice(0, equals)}`, pair.slice(equals + 1)),
    );
  }
  return map;
}

/**
 * The input must be a file and the output's place a folder that exists: one
 * line each, before any format is read (a folder given as input used to come
 * out as EISDIR with a stack, a missing output folder as the temporary
 * file's ENOENT).
 */
function checkPaths(input: string, output: string): void {
  let stats: Stats;
  try {
    stats = statSync(input);
  } catch (error) {
    throw systemError(input, 'cannot read', error);
  }
  if (stats.isDirectory()) throw new InputError(input, '', 'cannot read: it is a folder, not a file');
  checkOutputPlace(output);
}

/** Checks input and output formats for a command; returns the input's extension. */
function formats(command: string, input: string, output: string, allowed: string[]): string {
  const from = extensionOf(input);
  const to = extensionOf(output);
  if (!allowed.includes(from)) {
    throw new UsageError(
      `${command}: cannot read ${JSON.stringify(input)}: the extension must be one of ${allowed.join(' ')}`,
    );
  }
  const gltf = ['.gltf', '.glb'];
  const textPoints = ['.xyz', '.txt', '.csv'];
  if (to === '.laz')
    throw new UsageError(
      `${command}: cannot write ${JSON.stringify(output)}: LAZ is written as .las (this tool does not compress)`,
    );
  const same =
    from === to ||
    (gltf.includes(from) && gltf.includes(to)) ||
    (textPoints.includes(from) && textPoints.includes(to)) ||
    (from === '.laz' && to === '.las');
  if (!same) {
    const hint = from === '.laz' ? ' (LAZ is written as .las: this tool does not compress)' : '';
    throw new UsageError(
      `${command}: the output ${JSON.stringify(output)} must have the input's format (${from})${hint}`,
    );
  }
  return from;
}

/** Runs the command line `args` (without node and the script); returns the exit code. */
export async function run(
  args: string[],
  streams: Streams = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const started = performance.now();
  let progress: Progress | undefined;
  let debug = args.includes('--debug');
  try {
    const { values, positionals } = parseCommandLine(args);
    debug = values.debug === true;
    if (values.help) {
      streams.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (values.version) {
      streams.stdout.write(`${VERSION}\n`);
      return 0;
    }
    if (positionals.length === 0) {
      // Nothing asked: the usage, as for every other command-line error on stderr.
      streams.stderr.write(`${USAGE}\n`);
      return 2;
    }
    const [command, input, ...extra] = positionals;
    if (command !== 'weld' && command !== 'dedupe')
      throw new UsageError(`unknown command ${JSON.stringify(command)}: weld or dedupe`);
    if (input === undefined)
      throw new UsageError(`${command}: which file? spatialhash ${command} <input> -o <output> ...`);
    if (extra.length > 0) throw new UsageError(`${command}: one input at a time, got also ${extra.join(' ')}`);
    const output = values.output;
    if (output === undefined) throw new UsageError(`${command}: -o <output> is required`);
    progress = new Progress(streams.stderr, streams.progress);
    let counts: Counts;
    let reach: number;
    if (command === 'weld') {
      if (values.radius !== undefined || values.mean)
        throw new UsageError('weld takes --tolerance (--radius and --mean are for dedupe)');
      reach = distance('tolerance', values.tolerance);
      const tolerances = attributeTolerances(values['attribute-tolerance'] ?? []);
      const ignore = new Set(values.ignore ?? []);
      const from = formats(command, input, output, WELD_FORMATS);
      checkPaths(input, output);
      const job: WeldJob = { input, output, tolerance: reach, tolerances, ignore, progress };
      if (from !== '.gltf' && from !== '.glb' && (values.decompress || values.force))
        throw new UsageError(`weld: --decompress and --force are for glTF and GLB (the input is ${from})`);
      if (from === '.stl') {
        if (tolerances.size > 0 || ignore.size > 0)
          throw new UsageError('weld: STL vertices have no attributes to compare');
        counts = weldStl(job);
      } else if (from === '.obj') counts = weldObj(job);
      else if (from === '.ply') counts = weldPly(job);
      else {
        const { weldGltf } = await import('./formats/gltf.js');
        counts = await weldGltf(job, {
          force: values.force === true,
          decompress: values.decompress === true,
          warn: (text) => streams.stderr.write(`spatialhash: warning: ${text}\n`),
        });
      }
    } else {
      if (
        values.tolerance !== undefined ||
        values['attribute-tolerance'] ||
        values.ignore ||
        values.decompress ||
        values.force
      ) {
        throw new UsageError(
          'dedupe takes --radius (and --mean); --tolerance, --attribute-tolerance, --ignore, --decompress and --force are for weld',
        );
      }
      reach = distance('radius', values.radius);
      const from = formats(command, input, output, DEDUPE_FORMATS);
      checkPaths(input, output);
      const job: DedupeJob = { input, output, radius: reach, mean: values.mean ?? false, progress };
      if (from === '.ply') counts = dedupePly(job);
      else if (from === '.las') counts = dedupeLas(job);
      else if (from === '.laz') counts = await dedupeLaz(job);
      else counts = dedupeXyz(job);
    }
    progress.done();
    const summary: Summary = {
      command,
      input,
      output,
      distance: reach,
      ...counts,
      seconds: (performance.now() - started) / 1000,
    };
    if (values.json) streams.stdout.write(`${JSON.stringify(summary)}\n`);
    else if (!values.quiet) streams.stdout.write(`${formatSummary(summary)}\n`);
    return 0;
  } catch (error) {
    progress?.done();
    const stack = debug && error instanceof Error && error.stack !== undefined ? `\n${error.stack}` : '';
    if (error instanceof UsageError) {
      streams.stderr.write(`spatialhash: ${error.message}\nRun "spatialhash --help" for usage.${stack}\n`);
      return 2;
    }
    if (error instanceof InputError) {
      // One line, whatever a message quoted from the file holds.
      streams.stderr.write(`spatialhash: error: ${error.message.replace(/\s*\n\s*/g, ' ')}${stack}\n`);
      return 1;
    }
    // A file-system error that no reader caught names its file; anything else (a bug, out of memory) its message,
    // on one line: the stack only with --debug.
    const path = (error as { path?: unknown }).path;
    const line =
      typeof path === 'string'
        ? systemError(path, 'failed', error).message
        : (error instanceof Error ? error.message : String(error)).split('\n')[0];
    const hint = debug ? stack : ' (run again with --debug for the stack)';
    streams.stderr.write(`spatialhash: error: ${line}${hint}\n`);
    return 1;
  }
}
