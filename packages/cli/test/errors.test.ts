/**
 * Malformed and truncated inputs of every format, and wrong command lines:
 * exit code 1 (input) or 2 (usage), a message naming the file and where in it
 * (offset, line, vertex, face or point) and what is wrong, no output written
 * and no temporary file left, an existing output untouched.
 */

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bunnyMesh, glb, gridMesh, las, obj, ply, soupOf, stlAscii, stlBinary, xyz } from './fixtures.js';
import { cli, put, rejects as rejectsIn, workspace } from './helpers.js';

const dir = workspace();
const mesh = gridMesh(2);
const soup = soupOf(mesh, 0, 1);

/** Expects `command` on a file of `data` to fail with `pattern` (see helpers.ts). */
const rejects = (command: 'weld' | 'dedupe', name: string, data: string | Uint8Array, pattern: RegExp) =>
  rejectsIn(dir, command, name, data, pattern);

const cut = (data: string | Uint8Array, bytes: number) =>
  typeof data === 'string' ? data.slice(0, data.length - bytes) : data.subarray(0, data.length - bytes);

describe('malformed and truncated inputs', () => {
  it('binary STL', async () => {
    const data = stlBinary(soup);
    await rejects(
      'weld',
      'cut.stl',
      cut(data, 10),
      /offset 80: truncated binary STL: the header announces 8 triangles .* triangle 7 is incomplete at offset 434/,
    );
    await rejects('weld', 'long.stl', Buffer.concat([data, Buffer.alloc(7)]), /7 bytes after the 8 triangles/);
    await rejects('weld', 'short.stl', data.subarray(0, 50), /offset 50: truncated: 50 bytes is too short/);
    const nan = Buffer.from(data);
    nan.writeFloatLE(Number.NaN, 84 + 50 * 2 + 16);
    await rejects('weld', 'nan.stl', nan, /offset 200: triangle 2 has a non-finite coordinate/);
  });

  it('ASCII STL', async () => {
    const text = stlAscii(soup);
    await rejects(
      'weld',
      'cut-ascii.stl',
      text.slice(0, text.indexOf('endloop', 200)),
      /line \d+: truncated ASCII STL: the file ends inside a facet/,
    );
    await rejects(
      'weld',
      'bad-ascii.stl',
      text.replace('vertex 1 0 0', 'vertex 1 zero 0'),
      /line 5: vertex coordinate y is not a finite decimal number: "zero"/,
    );
    await rejects(
      'weld',
      'four-ascii.stl',
      text.replace('endloop', 'vertex 0 0 0\n    endloop'),
      /line 7: expected "endloop" \(a facet has 3 vertices\)/,
    );
  });

  it('OBJ', async () => {
    const text = obj(mesh);
    await rejects(
      'weld',
      'bad.obj',
      text.replace('v 1 0 0', 'v 1 0 nope'),
      /line 5: vertex z is not a finite decimal number: "nope"/,
    );
    await rejects(
      'weld',
      'far.obj',
      `${text}f 1 2 99\n`,
      /line \d+: vertex reference 99 is past the last vertex \(the file has 9\)/,
    );
    await rejects('weld', 'back.obj', `v 0 0 0\nf 1 -2 1\n`, /line 2: vertex reference -2 is before the first vertex/);
    await rejects(
      'weld',
      'curve.obj',
      `${text}curv 0 1 1 2\n`,
      /line \d+: free-form geometry \("curv"\) is not supported/,
    );
  });

  it('PLY', async () => {
    const binary = ply(mesh.positions, mesh.triangles, 'binary_little_endian');
    await rejects(
      'weld',
      'cut.ply',
      cut(binary, 5),
      /offset \d+: truncated: the file ends inside face 7 \(property vertex_indices\)/,
    );
    await rejects(
      'weld',
      'long.ply',
      Buffer.concat([binary, Buffer.alloc(3)]),
      /offset \d+: 3 bytes after the last element/,
    );
    const ascii = ply(mesh.positions, mesh.triangles, 'ascii').toString('latin1');
    await rejects(
      'weld',
      'cut-ascii.ply',
      ascii.slice(0, ascii.length - 8),
      /line \d+: truncated: the file ends inside face 7/,
    );
    await rejects(
      'weld',
      'header.ply',
      ascii.replace('end_header', 'end_heder'),
      /offset \d+: truncated or malformed PLY header: no "end_header" line/,
    );
    await rejects(
      'weld',
      'type.ply',
      ascii.replace(/\n3 /, '\n3.5 '),
      /line \d+: face 0 \(property vertex_indices\): "3.5" is not a valid uint8/,
    );
    await rejects(
      'weld',
      'corner.ply',
      ascii.replace(/\n3 0 1 4\n/, '\n3 0 1 44\n'),
      /line \d+: face 0 \(property vertex_indices\) item 2: 44 is not a vertex index \(the file has 9 vertices: 0 to 8\)/,
    );
    await rejects(
      'weld',
      'nan.ply',
      ascii.replace(/\n0 0 0\n/, '\nnan 0 0\n'),
      /line \d+: vertex 0 \(property x\): "nan" is not a valid float32/,
    );
    await rejects('weld', 'not.ply', 'plx\n', /offset 0: not a PLY file/);
    await rejects('dedupe', 'faces.ply', ascii, /9 vertices|8 faces: dedupe takes point clouds/);
  });

  it('glTF and GLB', async () => {
    const data = await glb(soup, undefined);
    await rejects(
      'weld',
      'cut.glb',
      cut(data, 20),
      /offset \d+: truncated GLB: its header says [\d,]+ bytes, the file ends at [\d,]+/,
    );
    await rejects(
      'weld',
      'bad.gltf',
      '{"asset": {"version": "2.0"}, "meshes": [}',
      /line 1: the glTF JSON is not valid/,
    );
  });

  it('XYZ and CSV', async () => {
    const text = xyz(soup, ' ', false);
    await rejects(
      'dedupe',
      'bad.xyz',
      text.replace(/\n0 1 0 /, '\n0 one 0 '),
      /line \d+: y is not a finite decimal number: "one"/,
    );
    await rejects('dedupe', 'short.xyz', `${text}1 2\n`, /line \d+: point has 2 columns, the z coordinate is column 3/);
    const csv = xyz(soup, ',', true);
    await rejects(
      'dedupe',
      'bad.csv',
      csv.replace(/\n0,1,0,/, '\n0,1,,'),
      /line \d+: z is not a finite decimal number: ""/,
    );
  });

  it('LAS and LAZ', async () => {
    const data = las(bunnyMesh().positions, '1.2');
    await rejects(
      'dedupe',
      'cut.las',
      cut(data, 30),
      /offset \d+: truncated: the header announces 1839 points of 28 bytes, the file holds 1837/,
    );
    await rejects(
      'dedupe',
      'sig.las',
      Buffer.concat([Buffer.from('LASX'), data.subarray(4)]),
      /offset 0: not a LAS file/,
    );
    await rejects('dedupe', 'head.las', data.subarray(0, 100), /offset 0: truncated LAS header: 100 bytes/);
    const badFormat = Buffer.from(data);
    badFormat.writeUInt16LE(20, 105);
    await rejects(
      'dedupe',
      'record.las',
      badFormat,
      /offset 105: point records of 20 bytes are too short for point format 1/,
    );
    await rejects('dedupe', 'plain.laz', data, /offset 104: not compressed/);
    const fake = Buffer.from(data);
    fake.writeUInt8(0x81, 104);
    await rejects('dedupe', 'fake.laz', fake, /offset 100: no LASzip VLR: the compressed points cannot be read/);
  });
});

describe('command lines', () => {
  const input = put(dir, 'ok.stl', stlBinary(soup));
  const usage: [string[], RegExp][] = [
    [[], /Usage:/],
    [['merge', input], /unknown command "merge"/],
    [['weld'], /weld: which file\?/],
    [['weld', input, '--tolerance', '1'], /-o <output> is required/],
    [['weld', input, '-o', `${dir}/x.stl`], /--tolerance is required/],
    [['weld', input, '-o', `${dir}/x.stl`, '--tolerance=-1'], /--tolerance must be >= 0, got -1\n/],
    [['weld', input, '-o', `${dir}/x.stl`, '--tolerance', '-1'], /--tolerance must be >= 0, got -1\n/],
    [['weld', input, '-o', `${dir}/x.stl`, '-t', '-1e-3'], /--tolerance must be >= 0, got -1e-3\n/],
    [['weld', input, '-o', `${dir}/x.stl`, '--tolerance', 'abc'], /must be a decimal number >= 0 .*got "abc"/],
    [['weld', input, '-o', `${dir}/x.stl`, '--tolerance', '0x10'], /must be a decimal number >= 0 .*got "0x10"/],
    [['weld', input, '-o', `${dir}/x.stl`, '--tolerance', ' 1'], /must be a decimal number >= 0 .*got " 1"/],
    [['weld', input, '-o', `${dir}/x.stl`, '--tolerance', 'Infinity'], /must be a decimal number/],
    [['weld', input, '-o', `${dir}/x.stl`, '--tolerance', '1e999'], /--tolerance must be finite, got 1e999/],
    [['weld', input, '-o', `${dir}/x.stl`, '--tol', '1'], /unknown option --tol; did you mean --tolerance\?\n/],
    [
      ['weld', input, '-o', `${dir}/x.stl`, '--tolerence', '1'],
      /unknown option --tolerence; did you mean --tolerance\?/,
    ],
    [['weld', input, '-o', `${dir}/x.stl`, '-t', '1', '-x'], /unknown option -x\n/],
    [['weld', input, '-o', `${dir}/x.stl`, '-t'], /-t needs a value/],
    [['weld', input, '-o', `${dir}/x.stl`, '-t', '1', '-t', '2'], /--tolerance is given twice \(-t 1, then -t 2\)/],
    [
      ['weld', input, '-o', `${dir}/x.stl`, '--tolerance=1', '-t0.5'],
      /--tolerance is given twice \(--tolerance 1, then -t 0\.5\): give it once\n/,
    ],
    [['weld', input, '-o', `${dir}/x.stl`, '-o', `${dir}/y.stl`, '-t', '1'], /--output is given twice/],
    [['dedupe', input, '-o', `${dir}/x.stl`, '-r', '1', '--radius', '1'], /--radius is given twice/],
    [['weld', input, '-o', `${dir}/x.stl`, '-t', '1', '--quiet=yes'], /--quiet takes no value/],
    [['weld', input, '-o', `${dir}/x.stl`, '-t', '1', '--force'], /--decompress and --force are for glTF/],
    [['dedupe', input, '-o', `${dir}/x.stl`, '-r', '1', '--force'], /dedupe takes --radius/],
    [['weld', input, '-o', `${dir}/x.ply`, '--tolerance', '1'], /must have the input's format \(\.stl\)/],
    [
      ['weld', `${dir}/x.fbx`, '-o', `${dir}/y.fbx`, '--tolerance', '1'],
      /extension must be one of \.stl \.obj \.ply \.gltf \.glb/,
    ],
    [['weld', input, '-o', `${dir}/x.stl`, '--radius', '1'], /weld takes --tolerance/],
    [['dedupe', `${dir}/p.laz`, '-o', `${dir}/q.laz`, '--radius', '1'], /LAZ is written as \.las/],
    [['weld', input, '-o', `${dir}/x.stl`, '-t', '1', '--bogus'], /unknown option --bogus\n/],
    [['weld', input, '-o', `${dir}/x.stl`, '-t', '1', '--ignore', 'color'], /STL vertices have no attributes/],
  ];
  for (const [args, pattern] of usage) {
    it(`exit code 2 for: spatialhash ${args.map((a) => a.replace(dir, '<dir>')).join(' ')}`, async () => {
      const { code, stdout, stderr } = await cli(...args);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(pattern);
      // One line of ours and the hint (the usage itself for no arguments): nothing of Node's parser.
      if (args.length > 0) expect(stderr.trimEnd().split('\n')).toHaveLength(2);
      expect(stderr).not.toMatch(/ERR_|TypeError|RangeError|\n\s+at /);
    });
  }

  it('--help and --version exit with 0; a missing input or an unwritable output exits with 1', async () => {
    expect((await cli('--help')).code).toBe(0);
    expect((await cli('--version')).stdout).toBe('0.1.0\n');
    const missing = await cli('weld', `${dir}/none.stl`, '-o', `${dir}/out.stl`, '-t', '1');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/none\.stl: cannot read: no such file or folder \(ENOENT\)\n$/);
    const unwritable = await cli('weld', input, '-o', `${dir}/no/such/folder/out.stl`, '-t', '1');
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(/out\.stl: cannot write: the folder .*no\/such\/folder does not exist\n$/);
    expect(existsSync(`${dir}/out.stl`)).toBe(false);
  });
});
