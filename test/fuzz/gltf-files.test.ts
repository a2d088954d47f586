/**
 * The file fuzz for glTF and GLB: the command-line tool run in-process on
 * mutants of real files (Draco's Box and Box_Draco, gltfpack's meshopt
 * pirate, see packages/cli/test/files/README.md) and of the CLI's fixture.
 * Mutations: truncation, byte flips, the GLB's length and chunk lengths set
 * to off-by-one or huge values, and a number of the glTF JSON (a count, an
 * offset, a length, an index...) replaced by a nasty one (-1, 2^32, 1e9,
 * 1e999, 2.5, a string), for GLB (JSON chunk rewritten) and for .gltf with
 * its .bin beside it (whose bytes are mutated too).
 *
 * What must hold for every mutant: exit code 0 or 1; on 1, one line on
 * stderr naming the input, no stack and no internal error (TypeError,
 * RangeError, a WebAssembly or Draco message without the file's name), no
 * output and no temporary file left; on 0, a summary whose counts add up and
 * an output the tool reads back (exit 0).
 *
 * Written in the style of the other file fuzz (test/fuzz/files.cases.ts on
 * the formats branch), as its own file until both are merged: GLTF_FORMAT
 * below has the shape of that table's entries. Cases: FUZZ_RUNS, else the CI
 * size (about 20 s on the 2-core machine).
 *
 * @module
 */

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { glb, gridMesh, soupOf } from '../../packages/cli/test/fixtures.js';
import { cli } from '../../packages/cli/test/helpers.js';

const SEED = 0x91f;
const files = new URL('../../packages/cli/test/files/', import.meta.url);
const work = mkdtempSync(join(tmpdir(), 'spatialhash-fuzz-gltf-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A file the mutations start from (and, for a .gltf, the .bin it refers to). */
interface Seed {
  name: string;
  data: Uint8Array;
  bin?: { name: string; data: Uint8Array };
}

/** A count or length field of a binary header. */
interface CountField {
  offset: number;
  bytes: 4;
}

const NASTY = [-1, 0, 1, 2.5, 2 ** 16, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 1e9, Number.POSITIVE_INFINITY, -0, '7', null];
const HUGE = [0, 1, 7, 2 ** 16, 2 ** 31, 2 ** 32 - 1, 1e9];

function seeds(): Promise<Seed[]> {
  const read = (name: string) => readFileSync(new URL(name, files));
  return (async () => [
    { name: 'Box.glb', data: read('Box.glb') },
    { name: 'Box_Draco.glb', data: read('Box_Draco.glb') },
    { name: 'pirate.glb', data: read('pirate.glb') },
    { name: 'fixture.glb', data: await glb(soupOf(gridMesh(3), 1e-4, 7), undefined) },
    { name: 'Box.gltf', data: read('Box/Box.gltf'), bin: { name: 'Box0.bin', data: read('Box/Box0.bin') } },
  ])();
}

/** The GLB's length field and each chunk's length field. */
function glbCounts(data: Uint8Array): CountField[] {
  const bytes = Buffer.from(data);
  const fields: CountField[] = [];
  if (bytes.length >= 12) fields.push({ offset: 8, bytes: 4 });
  for (let at = 12; at + 8 <= bytes.length; at += 8 + bytes.readUInt32LE(at)) {
    fields.push({ offset: at, bytes: 4 });
    if (bytes.readUInt32LE(at) > bytes.length) break;
  }
  return fields;
}

function withField(data: Uint8Array, field: CountField, value: number): Uint8Array {
  const copy = Buffer.from(data);
  if (field.offset + 4 <= copy.length) copy.writeUInt32LE(value >>> 0, field.offset);
  return copy;
}

/** A GLB's JSON and the bytes around it, for rewriting the JSON. */
function splitGlb(data: Uint8Array): { json: unknown; rest: Buffer } | undefined {
  const bytes = Buffer.from(data);
  if (bytes.length < 20 || bytes.toString('latin1', 0, 4) !== 'glTF') return undefined;
  const length = bytes.readUInt32LE(12);
  try {
    return { json: JSON.parse(bytes.toString('utf8', 20, 20 + length)), rest: bytes.subarray(20 + length) };
  } catch {
    return undefined;
  }
}

function joinGlb(json: unknown, rest: Buffer): Buffer {
  let text = Buffer.from(JSON.stringify(json), 'utf8');
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const head = Buffer.alloc(20);
  head.write('glTF', 0, 'latin1');
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(20 + text.length + rest.length, 8);
  head.writeUInt32LE(text.length, 12);
  head.writeUInt32LE(0x4e4f534a, 16);
  return Buffer.concat([head, text, rest]);
}

/** Every path to a number in the JSON (a count, an offset, an index, a component...). */
function numberPaths(value: unknown, path: (string | number)[] = [], out: (string | number)[][] = []) {
  if (typeof value === 'number') out.push(path);
  else if (Array.isArray(value)) {
    for (const [k, v] of value.entries()) numberPaths(v, [...path, k], out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) numberPaths(v, [...path, k], out);
  }
  return out;
}

function withNumber(json: unknown, path: (string | number)[], replacement: unknown): unknown {
  const copy = structuredClone(json) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  // 1e999 and -0 do not survive JSON.stringify: written as text by the caller's replacer.
  at[path[path.length - 1]!] = replacement;
  return copy;
}

function stringify(json: unknown): string {
  return JSON.stringify(json, (_key, value) =>
    value === Number.POSITIVE_INFINITY ? '__INF__' : Object.is(value, -0) ? '__NEG0__' : value,
  )
    .replace(/"__INF__"/g, '1e999')
    .replace(/"__NEG0__"/g, '-0');
}

/** One mutation of a seed, as fast-check draws it. */
type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; positions: number[]; bits: number[] }
  | { kind: 'count'; field: number; value: number }
  | { kind: 'json'; path: number; value: number }
  | { kind: 'bin'; positions: number[]; cut: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({
    kind: fc.constant('flip' as const),
    positions: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 }),
    bits: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 8, maxLength: 8 }),
  }),
  fc.record({
    kind: fc.constant('count' as const),
    field: fc.nat(8),
    // -1 and -2: the field's own value minus or plus one.
    value: fc.constantFrom(...HUGE, -1, -2),
  }),
  fc.record({ kind: fc.constant('json' as const), path: fc.nat(10_000), value: fc.nat(NASTY.length - 1) }),
  fc.record({
    kind: fc.constant('bin' as const),
    positions: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
    cut: fc.double({ min: 0, max: 1.2, noNaN: true }),
  }),
);

/** The mutant's files: the input (and a .bin beside it for a .gltf). */
function mutate(seed: Seed, m: Mutation): { data: Uint8Array; bin?: Uint8Array } {
  const data = Buffer.from(seed.data);
  const gltf = seed.name.endsWith('.gltf');
  if (m.kind === 'truncate') return { data: data.subarray(0, Math.floor(m.at * data.length)), bin: seed.bin?.data };
  if (m.kind === 'flip') {
    for (const [k, p] of m.positions.entries()) {
      const at = Math.min(data.length - 1, Math.floor(p * data.length));
      data[at]! ^= 1 << m.bits[k]!;
    }
    return { data, bin: seed.bin?.data };
  }
  if (m.kind === 'count') {
    const fields = gltf ? [] : glbCounts(data);
    if (fields.length === 0) return { data, bin: seed.bin?.data };
    const field = fields[m.field % fields.length]!;
    const current = data.readUInt32LE(field.offset);
    const value = m.value === -1 ? current - 1 : m.value === -2 ? current + 1 : m.value;
    return { data: withField(data, field, value), bin: seed.bin?.data };
  }
  if (m.kind === 'json') {
    const split = gltf ? { json: JSON.parse(data.toString('utf8')), rest: Buffer.alloc(0) } : splitGlb(data);
    if (split === undefined) return { data, bin: seed.bin?.data };
    const paths = numberPaths(split.json);
    if (paths.length === 0) return { data, bin: seed.bin?.data };
    const json = withNumber(split.json, paths[m.path % paths.length]!, NASTY[m.value]);
    const text = stringify(json);
    return {
      data: gltf ? Buffer.from(text, 'utf8') : joinGlb(JSON.parse(text.replace(/1e999/g, '1e308')), split.rest),
      bin: seed.bin?.data,
    };
  }
  // A .gltf's .bin: bytes flipped, then cut short or grown.
  if (seed.bin === undefined) return { data };
  const bin = Buffer.from(seed.bin.data);
  for (const p of m.positions) bin[Math.min(bin.length - 1, Math.floor(p * bin.length))]! ^= 0x80;
  const length = Math.floor(m.cut * bin.length);
  return {
    data,
    bin: length <= bin.length ? bin.subarray(0, length) : Buffer.concat([bin, Buffer.alloc(length - bin.length)]),
  };
}

/** The promises of the module notes, for one mutant; returns a description of what broke, or undefined. */
async function check(seed: Seed, m: Mutation, k: number): Promise<string | undefined> {
  const dir = join(work, `case-${k}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const mutant = mutate(seed, m);
  const input = join(dir, seed.name);
  writeFileSync(input, mutant.data);
  if (seed.bin !== undefined && mutant.bin !== undefined) writeFileSync(join(dir, seed.bin.name), mutant.bin);
  const output = join(dir, seed.name.endsWith('.gltf') ? 'out.gltf' : 'out.glb');
  const { code, stdout, stderr } = await cli('weld', input, '-o', output, '-t', '0.001', '--json');
  const leftovers = readdirSync(dir).filter((name) => name.endsWith('.tmp'));
  if (leftovers.length > 0) return `temporary files left: ${leftovers.join(' ')}`;
  if (code === 1) {
    const lines = stderr.trimEnd().split('\n');
    if (lines.length !== 1) return `${lines.length} lines on stderr: ${stderr}`;
    if (!lines[0]!.startsWith(`spatialhash: error: ${input}: `)) return `the error does not name the input: ${stderr}`;
    if (
      /TypeError|RangeError|ReferenceError|Cannot read properties|is not a function|undefined|WebAssembly|\n\s+at /.test(
        stderr,
      )
    ) {
      return `an internal error: ${stderr}`;
    }
    if (existsSync(output)) return 'an output was written on failure';
    return undefined;
  }
  if (code !== 0) return `exit code ${code}: ${stderr}`;
  const summary = JSON.parse(stdout) as { in: number; out: number; merged: number; unused?: number };
  if (summary.in !== summary.out + summary.merged + (summary.unused ?? 0)) return `counts do not add up: ${stdout}`;
  const again = await cli('weld', output, '-o', join(dir, `again${output.slice(-5)}`), '-t', '0', '--json');
  if (again.code !== 0) return `the output does not read back: ${again.stderr}`;
  return undefined;
}

const RUNS = Number(process.env.FUZZ_RUNS ?? 0) || 60;

describe('file fuzz: glTF and GLB', () => {
  it(`mutants of real and fixture files: exit 0 with an output that reads back, or 1 with one line (seed ${SEED})`, async () => {
    const all = await seeds();
    let k = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(all.length - 1), mutation, async (s, m) => {
        const problem = await check(all[s]!, m, k++);
        expect(problem, `${all[s]!.name} ${JSON.stringify(m)}`).toBeUndefined();
      }),
      { seed: SEED, numRuns: RUNS * all.length },
    );
  }, 300_000);
});
