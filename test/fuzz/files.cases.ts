/**
 * The file fuzz: the command-line tool run in-process on mutants of real
 * files (packages/cli/test/wild: assimp's and laz-perf's test sets) and of
 * the CLI's own fixtures, one suite per format. Mutations: truncation, byte
 * flips, spliced byte ranges, count and length fields of the header set to
 * huge or off-by-one values, and (text formats) tokens replaced by nasty
 * ones (`0x10`, `nan`, `-1`, `1e999`, 20 digits ...).
 *
 * What must hold for every mutant: exit code 0 or 1; on 1, exactly one line
 * on stderr naming the input, no stack and no internal error (TypeError,
 * RangeError, a WebAssembly message), no output and no temporary file left;
 * on 0, an output the tool itself reads back (exit 0) and a summary whose
 * counts add up. Memory (a huge count allocates nothing) is checked by
 * files.test.ts in child processes, on the `huge` variants of each format.
 *
 * Adding a format is one entry of {@link FORMATS}: its seed files, the
 * command, the extensions, and where its header keeps counts.
 *
 * @module
 */

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { gridMesh, las, laz, obj, ply, soupOf, stlAscii, stlBinary, xyz } from '../../packages/cli/test/fixtures.js';
import { cli } from '../../packages/cli/test/helpers.js';
import { fuzzAsync } from './support.js';

/** A file the mutations start from. */
export interface Seed {
  name: string;
  data: Uint8Array;
}

/** A count or length field of a binary header: where, how wide, and a sentence for the reader. */
export interface CountField {
  offset: number;
  bytes: 2 | 4 | 8;
}

/** One format of the file fuzz (see the module notes). */
export interface FileFormat {
  name: string;
  command: 'weld' | 'dedupe';
  /** The input's extension, and the output's when it differs (LAZ is written as LAS). */
  extension: string;
  outputExtension?: string;
  /** Whether tokens of the text may be replaced (text formats). */
  text: boolean;
  seeds(): Seed[];
  /** The count and length fields of a seed's header (binary formats). */
  counts?(data: Uint8Array): CountField[];
  /** Variants of a seed whose header claims far more than the file holds: checked for memory by files.test.ts. */
  huge?(data: Uint8Array): Uint8Array[];
  /**
   * An independent reading of a mutant the tool accepted (exit 0), to catch
   * "wrong output, exit 0": throws when it disagrees with the summary.
   */
  agree?(data: Uint8Array, summary: Summary): void;
  /** Cases per property in CI (about a minute for all formats together on the 2-core machine). */
  ciRuns: number;
}

/** The fields of the tool's JSON summary the checks read. */
export interface Summary {
  in: number;
  out: number;
  merged: number;
  unused?: number;
  dropped: number;
}

/** The buffer as an ArrayBuffer of its own (what three's loaders parse). */
function arrayBuffer(data: Uint8Array): ArrayBuffer {
  return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
}

/** Throws unless `actual` is `expected`, naming what. */
function same(what: string, actual: number, expected: number): void {
  if (actual !== expected) throw new Error(`${what}: the tool read ${actual}, an independent reader ${expected}`);
}

/** three's PLYLoader on an accepted PLY: as many vertices, and every face index one of them. */
function agreePly(data: Uint8Array, summary: Summary): void {
  let geometry: ReturnType<PLYLoader['parse']>;
  try {
    geometry = new PLYLoader().parse(arrayBuffer(data));
  } catch {
    return;
  }
  const count = geometry.getAttribute('position')?.count ?? 0;
  same('PLY vertices', summary.in, count);
  const index = geometry.getIndex();
  if (index !== null) {
    for (const v of index.array)
      if (!(Number.isInteger(v) && v >= 0 && v < count))
        throw new Error(`PLY: accepted a face index ${v} of ${count} vertices`);
  }
}

/** The point count a LAS header states (LAS 1.4's 64-bit one when set). */
function lasCount(data: Uint8Array): number {
  const bytes = Buffer.from(data);
  const legacy = bytes.readUInt32LE(107);
  if (bytes.readUInt8(25) >= 4 && bytes.readUInt16LE(94) >= 375) {
    const long = Number(bytes.readBigUInt64LE(247));
    if (legacy === 0 || long > legacy) return long;
  }
  return legacy;
}

const wildDir = new URL('../../packages/cli/test/wild/', import.meta.url);

/** A file of packages/cli/test/wild, gunzipped when it ends in .gz. */
export function wild(name: string): Seed {
  const bytes = readFileSync(new URL(name, wildDir));
  return { name, data: name.endsWith('.gz') ? gunzipSync(bytes) : bytes };
}

/** The names of packages/cli/test/wild's files matching `pattern`. */
function wildNames(pattern: RegExp): string[] {
  return readdirSync(wildDir)
    .filter((name) => pattern.test(name))
    .sort();
}

const text = (s: string) => Buffer.from(s, 'latin1');
const mesh = gridMesh(3);
const soup = soupOf(mesh, 1e-4, 7);

/** A copy of `data` with the unsigned integer at `offset` (little-endian, `bytes` wide) set to `value`. */
export function withField(data: Uint8Array, field: CountField, value: number): Uint8Array {
  const copy = Buffer.from(data);
  if (field.offset + field.bytes > copy.length) return copy;
  if (field.bytes === 2) copy.writeUInt16LE(value & 0xffff, field.offset);
  else if (field.bytes === 4) copy.writeUInt32LE(value >>> 0, field.offset);
  else copy.writeBigUInt64LE(BigInt(Math.min(value, 2 ** 53)), field.offset);
  return copy;
}

/** LAS and LAZ header fields: VLR count, offset to points, record length, point counts; LAZ adds its chunk table. */
function lasCounts(data: Uint8Array): CountField[] {
  const bytes = Buffer.from(data);
  if (bytes.length < 227) return [];
  const fields: CountField[] = [
    { offset: 100, bytes: 4 },
    { offset: 96, bytes: 4 },
    { offset: 105, bytes: 2 },
    { offset: 107, bytes: 4 },
    { offset: bytes.readUInt16LE(94) + 20, bytes: 2 },
  ];
  if (bytes.readUInt8(25) >= 4) fields.push({ offset: 247, bytes: 8 }, { offset: 235, bytes: 8 });
  const pointOffset = bytes.readUInt32LE(96);
  if ((bytes.readUInt8(104) & 0x80) !== 0 && pointOffset + 8 <= bytes.length) {
    const table = Number(bytes.readBigInt64LE(pointOffset));
    fields.push({ offset: pointOffset, bytes: 8 });
    if (table > 0 && table + 8 <= bytes.length) fields.push({ offset: table + 4, bytes: 4 });
  }
  return fields;
}

/** The format table: seeds and header fields per format. */
export const FORMATS: FileFormat[] = [
  {
    name: 'STL',
    command: 'weld',
    extension: '.stl',
    text: false,
    seeds: () => [
      ...wildNames(/^assimp-STL-(?!Spider_ascii|sphereWithHole)/).map(wild),
      { name: 'fixture-binary.stl', data: stlBinary(soup) },
      { name: 'fixture-ascii.stl', data: text(stlAscii(soup)) },
    ],
    counts: (data) => (data.length >= 84 ? [{ offset: 80, bytes: 4 }] : []),
    agree: (data, summary) => {
      let count: number;
      try {
        count = new STLLoader().parse(arrayBuffer(data)).getAttribute('position').count;
      } catch {
        return;
      }
      same('STL corners', summary.in, count);
    },
    huge: (data) => [
      withField(data, { offset: 80, bytes: 4 }, 2 ** 31),
      withField(data, { offset: 80, bytes: 4 }, 2 ** 32 - 1),
    ],
    ciRuns: 200,
  },
  {
    name: 'OBJ',
    command: 'weld',
    extension: '.obj',
    text: true,
    seeds: () => [...wildNames(/^assimp-OBJ-/).map(wild), { name: 'fixture.obj', data: text(obj(mesh)) }],
    ciRuns: 200,
  },
  {
    name: 'PLY',
    command: 'weld',
    extension: '.ply',
    text: true,
    seeds: () => [
      ...wildNames(/^assimp-PLY-(?!Wuson)/).map(wild),
      { name: 'fixture-ascii.ply', data: ply(mesh.positions, mesh.triangles, 'ascii') },
      {
        name: 'fixture-le.ply',
        data: ply(
          mesh.positions,
          mesh.triangles,
          'binary_little_endian',
          mesh.positions.map((v) => (v * 60) & 255),
        ),
      },
      { name: 'fixture-be.ply', data: ply(mesh.positions, mesh.triangles, 'binary_big_endian') },
    ],
    agree: agreePly,
    huge: (data) =>
      ['1000000000', '4294967295'].map((count) =>
        text(
          Buffer.from(data)
            .toString('latin1')
            .replace(/element vertex \d+/, `element vertex ${count}`),
        ),
      ),
    ciRuns: 250,
  },
  {
    name: 'XYZ',
    command: 'dedupe',
    extension: '.xyz',
    text: true,
    seeds: () => [
      { name: 'fixture.xyz', data: text(xyz(soup.subarray(0, 300), ' ', false)) },
      { name: 'fixture-header.xyz', data: text(xyz(soup.subarray(0, 300), ',', true)) },
      {
        name: 'fixture-tabs.xyz',
        data: text(`# tabs\n${xyz(soup.subarray(0, 90), ' ', false).replaceAll(' ', '\t')}`),
      },
    ],
    ciRuns: 100,
  },
  {
    name: 'LAS',
    command: 'dedupe',
    extension: '.las',
    text: false,
    seeds: () => [
      ...wildNames(/^lazperf-.*\.las$/).map(wild),
      { name: 'fixture-1.4.las', data: las(soup.subarray(0, 300), '1.4') },
    ],
    counts: lasCounts,
    huge: (data) => [
      withField(data, { offset: 107, bytes: 4 }, 2 ** 32 - 1),
      withField(data, { offset: 100, bytes: 4 }, 2 ** 31),
    ],
    ciRuns: 200,
  },
  {
    name: 'LAZ',
    command: 'dedupe',
    extension: '.laz',
    outputExtension: '.las',
    text: false,
    seeds: () => [
      ...wildNames(/^lazperf-(?!autzen).*\.laz$/).map(wild),
      { name: 'fixture-1.2.laz', data: laz(soup.subarray(0, 60)) },
      { name: 'fixture-1.4.laz', data: laz(soup.subarray(0, 60), '1.4') },
    ],
    counts: lasCounts,
    agree: (data, summary) => same('LAZ points', summary.in, lasCount(data)),
    huge: (data) => {
      const bytes = Buffer.from(data);
      // The count the trial used, and a chunk size so large that one chunk may claim it all.
      const claims = [withField(data, { offset: 107, bytes: 4 }, 2 ** 28)];
      const laszip = bytes.indexOf('laszip encoded');
      if (laszip > 0)
        claims.push(
          withField(
            withField(data, { offset: laszip - 2 + 54 + 12, bytes: 4 }, 2 ** 31),
            { offset: 107, bytes: 4 },
            2 ** 31,
          ),
        );
      return claims;
    },
    ciRuns: 150,
  },
];

/** Tokens a text mutation puts in place of one: other bases, non-finite words, signs, overlong and empty numbers. */
const NASTY = [
  '0x10',
  '0b1',
  '1_0',
  'nan',
  '-nan',
  'inf',
  'Infinity',
  '-1',
  '-0',
  '1e999',
  '1e-999',
  '99999999999999999999',
  '4294967296',
  '2147483648',
  '',
  '.',
  '3.5',
  '1/2/3',
  '-2147483649',
  '\u0000',
  'v',
  'f',
  'solid',
  'element',
  'end_header',
];

/** Values a count field is set to. */
const COUNTS = [0, 1, 2, 0xff, 0xffff, 2 ** 16, 2 ** 28, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 1e9];

/** A mutation of seed number `seed` (taken modulo the seeds), its positions as fractions of the file. */
type Mutation =
  | { kind: 'truncate'; seed: number; at: number }
  | { kind: 'flip'; seed: number; flips: [number, number][] }
  | { kind: 'splice'; seed: number; from: number; length: number; to: number }
  | { kind: 'count'; seed: number; field: number; value: number; delta: number }
  | { kind: 'token'; seed: number; at: number; token: string };

/**
 * A place in the file as a fraction of its length: half the time anywhere
 * (uniform), half the time biased to the start, where the headers are.
 */
const fraction = fc
  .oneof(
    fc.noBias(fc.integer({ min: 0, max: 999_999 })),
    fc.integer({ min: 0, max: 999_999 }).map((v) => v / 1000),
  )
  .map((v) => v / 1_000_000);

function mutations(format: FileFormat): fc.Arbitrary<Mutation> {
  const seed = fc.nat({ max: 1000 });
  const kinds: fc.Arbitrary<Mutation>[] = [
    fc.record({ kind: fc.constant('truncate' as const), seed, at: fraction }),
    fc.record({
      kind: fc.constant('flip' as const),
      seed,
      flips: fc.array(fc.tuple(fraction, fc.nat({ max: 255 })), { minLength: 1, maxLength: 8 }),
    }),
    fc.record({
      kind: fc.constant('splice' as const),
      seed,
      from: fraction,
      length: fc.nat({ max: 64 }),
      to: fraction,
    }),
  ];
  if (format.counts !== undefined) {
    kinds.push(
      fc.record({
        kind: fc.constant('count' as const),
        seed,
        field: fc.nat({ max: 20 }),
        value: fc.constantFrom(...COUNTS),
        delta: fc.integer({ min: -2, max: 2 }),
      }),
    );
  }
  if (format.text)
    kinds.push(
      fc.record({ kind: fc.constant('token' as const), seed, at: fraction, token: fc.constantFrom(...NASTY) }),
    );
  return fc.oneof(...kinds);
}

/** The mutant's bytes. */
export function mutate(format: FileFormat, seeds: Seed[], m: Mutation): Uint8Array {
  const data = Buffer.from(seeds[m.seed % seeds.length]!.data);
  const at = (f: number) => Math.min(data.length - 1, Math.floor(f * data.length));
  switch (m.kind) {
    case 'truncate':
      return data.subarray(0, Math.floor(m.at * data.length));
    case 'flip':
      if (data.length === 0) return data;
      for (const [f, value] of m.flips) data[at(f)] = value;
      return data;
    case 'splice': {
      const from = at(m.from);
      const piece = Buffer.from(data.subarray(from, from + m.length));
      const to = at(m.to);
      // Half the splices insert a copy, half cut the range out.
      return m.length % 2 === 0
        ? Buffer.concat([data.subarray(0, to), piece, data.subarray(to)])
        : Buffer.concat([data.subarray(0, from), data.subarray(from + m.length)]);
    }
    case 'count': {
      const fields = format.counts!(data);
      if (fields.length === 0) return data;
      const field = fields[m.field % fields.length]!;
      // A value near the field's current one (off by one or two) or one of the extremes.
      const current =
        field.offset + field.bytes <= data.length
          ? Number(
              field.bytes === 8
                ? data.readBigUInt64LE(field.offset)
                : field.bytes === 4
                  ? data.readUInt32LE(field.offset)
                  : data.readUInt16LE(field.offset),
            )
          : 0;
      const value = m.delta !== 0 ? Math.max(0, current + m.delta) : m.value;
      return withField(data, field, value);
    }
    case 'token': {
      const s = data.toString('latin1');
      let start = Math.floor(m.at * s.length);
      while (start > 0 && !/\s/.test(s[start - 1]!)) start--;
      let end = start;
      while (end < s.length && !/\s/.test(s[end]!)) end++;
      return Buffer.from(s.slice(0, start) + m.token + s.slice(end), 'latin1');
    }
  }
}

/** Signs of an error that is the tool's bug, not the file's. */
const INTERNAL =
  /\n\s+at |(Type|Reference|Syntax|Range|Eval)Error\b|Cannot read propert|is not a function|Maximum call stack|Exception catching is disabled|Invalid typed array length|Array buffer allocation failed|out of memory|RuntimeError|unreachable/;

/** The command line for `format` on `input`. */
function commandLine(format: FileFormat, input: string, output: string): string[] {
  const reach = format.command === 'weld' ? ['--tolerance', '0.001'] : ['--radius', '0.001'];
  return [format.command, input, '-o', output, ...reach, '--json'];
}

/** Runs the tool on one mutant and checks what must hold (see the module notes); throws on a violation. */
export async function checkMutant(format: FileFormat, dir: string, data: Uint8Array): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const input = join(dir, `mutant${format.extension}`);
  const output = join(dir, `out${format.outputExtension ?? format.extension}`);
  writeFileSync(input, data);
  const { code, stdout, stderr } = await cli(...commandLine(format, input, output));
  const fail = (why: string) => {
    throw new Error(
      `${format.name}: ${why}\nexit ${code}\nstdout: ${stdout.slice(0, 500)}\nstderr: ${stderr.slice(0, 1000)}`,
    );
  };
  const left = readdirSync(dir).filter((name) => name.endsWith('.tmp'));
  if (left.length > 0) fail(`temporary files left: ${left.join(' ')}`);
  if (code === 1) {
    if (stdout !== '') fail('output on stdout with exit code 1');
    if (stderr.trimEnd().split('\n').length !== 1) fail('an error of more than one line');
    if (!stderr.startsWith(`spatialhash: error: ${input}: `)) fail('an error that does not name the input first');
    if (INTERNAL.test(stderr)) fail('an internal error');
    if (readdirSync(dir).includes(`out${format.outputExtension ?? format.extension}`))
      fail('an output written by a failed run');
    return;
  }
  if (code !== 0) fail('an exit code other than 0 or 1');
  const summary = JSON.parse(stdout) as Summary;
  if (!(summary.out <= summary.in && summary.merged === summary.in - summary.out - (summary.unused ?? 0))) {
    fail('a summary whose counts do not add up');
  }
  if (statSync(output).size === 0 && data.length > 0 && summary.out > 0) fail('an empty output');
  try {
    format.agree?.(data, summary);
  } catch (error) {
    fail((error as Error).message);
  }
  // The output must read back: the same command on it, its format by its extension.
  const again = join(dir, `again${format.outputExtension ?? format.extension}`);
  const back = await cli(...commandLine(format, output, again));
  if (back.code !== 0) fail(`an output the tool cannot read back: ${back.stderr}`);
}

/** A scratch folder per worker, removed when the process exits. */
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spatialhash-file-fuzz-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** One suite per format: every seed as it is, then mutants. */
export const suites: Record<string, () => Promise<void>> = Object.fromEntries(
  FORMATS.map((format) => [
    format.name,
    async () => {
      const dir = join(scratch(), 'case');
      const seeds = format.seeds();
      for (const seed of seeds) await checkMutant(format, dir, seed.data);
      await fuzzAsync(
        `files: ${format.name} mutants`,
        mutations(format),
        (m) => checkMutant(format, dir, mutate(format, seeds, m)),
        format.ciRuns,
      );
    },
  ]),
);
