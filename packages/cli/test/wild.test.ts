/**
 * Files from the wild (issue 40): one test per class of defect the trial of
 * 2026-12-01 found in the STL, OBJ, PLY, XYZ and LAS/LAZ paths, each on a
 * file that reproduces it (a real export from test/wild where one exists,
 * see test/wild/SOURCES.md), and what is required instead: read correctly, or
 * one line naming the file, where and what, exit 1, output untouched.
 */

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { describe, expect, it } from 'vitest';
import { gridMesh, laz, obj, ply, soupOf, stlAscii, stlBinary } from './fixtures.js';
import { arrayBufferOf, cli, put, rejects as rejectsIn, workspace } from './helpers.js';

const dir = workspace();

/** A file of test/wild (gunzipped when it ends in .gz). */
export function wild(name: string): Buffer {
  const bytes = readFileSync(new URL(`./wild/${name}`, import.meta.url));
  return name.endsWith('.gz') ? gunzipSync(bytes) : bytes;
}

/**
 * Runs weld or dedupe with --json, at a distance of 0.001 unless `extra` gives one (an option given twice is an
 * error); returns the exit code, the summary (exit 0) and stderr.
 */
async function runOn(command: 'weld' | 'dedupe', input: string, output: string, ...extra: string[]) {
  const option = command === 'weld' ? '--tolerance' : '--radius';
  const reach = extra.includes(option) ? [] : [option, '0.001'];
  const { code, stdout, stderr } = await cli(command, input, '-o', output, ...reach, '--json', ...extra);
  return { code, summary: code === 0 ? JSON.parse(stdout) : undefined, stderr };
}

/** Expects `command` on a file of `data` to fail with `pattern` (see helpers.ts). */
const rejects = (command: 'weld' | 'dedupe', name: string, data: string | Uint8Array, pattern: RegExp) =>
  rejectsIn(dir, command, name, data, pattern);

const BOM_OBJ = 'v 0 0 0\nv 1 0 0\nv 1 0 0\nv 0 1 0\nv 9 9 9\nf 1 2 4\nf 1 3 4\n';

describe('OBJ encodings', () => {
  it('a UTF-8 byte-order mark is skipped (4 vertices, 2 faces, as without it) and written back', async () => {
    const plain = await runOn('weld', put(dir, 'plain.obj', BOM_OBJ), `${dir}/plain-out.obj`);
    const input = put(dir, 'bom.obj', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(BOM_OBJ)]));
    const { code, summary } = await runOn('weld', input, `${dir}/bom-out.obj`);
    expect(code).toBe(0);
    expect([summary.in, summary.out, summary.dropped]).toEqual([5, 4, 0]);
    expect([summary.in, summary.out]).toEqual([plain.summary.in, plain.summary.out]);
    const out = readFileSync(`${dir}/bom-out.obj`);
    expect([...out.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(out.subarray(3).toString()).toBe(readFileSync(`${dir}/plain-out.obj`, 'utf8'));
  });

  it("UTF-16 (assimp's box_UTF16BE.obj, and the same box as UTF-16LE) is read and written back as UTF-16", async () => {
    const be = wild('assimp-OBJ-box_UTF16BE.obj');
    const utf8 = Buffer.from(be.subarray(2)).swap16().toString('utf16le');
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(utf8, 'utf16le')]);
    const reference = await runOn('weld', put(dir, 'box-utf8.obj', utf8), `${dir}/box-utf8-out.obj`);
    expect([reference.summary.in, reference.summary.out]).toEqual([8, 8]);
    for (const [name, data, mark] of [
      ['box-be.obj', be, [0xfe, 0xff]],
      ['box-le.obj', le, [0xff, 0xfe]],
    ] as const) {
      const { code, summary } = await runOn('weld', put(dir, name, data), `${dir}/out-${name}`);
      expect(code).toBe(0);
      expect([summary.in, summary.out, summary.dropped]).toEqual([8, 8, 0]);
      const out = readFileSync(`${dir}/out-${name}`);
      expect([...out.subarray(0, 2)]).toEqual([...mark]);
      const body = Buffer.from(out.subarray(2));
      if (mark[0] === 0xfe) body.swap16();
      expect(body.toString('utf16le')).toBe(readFileSync(`${dir}/box-utf8-out.obj`, 'utf8'));
    }
  });
});

describe('decimal numbers only', () => {
  const mesh = gridMesh(2);
  it('OBJ: f 0x10 and v 0x10 are errors, not vertex 16 and 16', async () => {
    const text = obj(mesh);
    await rejects(
      'weld',
      'hex-face.obj',
      `${text}f 1 2 0x10\n`,
      /line \d+: vertex reference "0x10" is not a non-zero decimal integer/,
    );
    await rejects(
      'weld',
      'hex-vertex.obj',
      text.replace('v 1 0 0', 'v 0x10 0 0'),
      /line 5: vertex x is not a finite decimal number: "0x10"/,
    );
    await rejects(
      'weld',
      'hex-uv.obj',
      `${text}f 1/0x2 2 3\n`,
      /vertex reference "1\/0x2" is not a non-zero decimal integer/,
    );
  });

  it('ASCII STL, ASCII PLY and XYZ/CSV: the same rule for every number read', async () => {
    const soup = soupOf(mesh, 0, 1);
    await rejects(
      'weld',
      'hex.stl',
      stlAscii(soup).replace('vertex 1 0 0', 'vertex 0x1 0 0'),
      /line 5: vertex coordinate x is not a finite decimal number: "0x1"/,
    );
    const ascii = ply(mesh.positions, mesh.triangles, 'ascii').toString('latin1');
    await rejects(
      'weld',
      'hex.ply',
      ascii.replace(/\n1 0 0\n/, '\n0x1 0 0\n'),
      /line \d+: vertex 1 \(property x\): "0x1" is not a valid float32/,
    );
    await rejects(
      'weld',
      'inf.ply',
      ascii.replace(/\n1 0 0\n/, '\nInfinity 0 0\n'),
      /"Infinity" is not a valid float32/,
    );
    await rejects('dedupe', 'hex.xyz', '0 0 0\n0x10 1 1\n', /line 2: x is not a finite decimal number: "0x10"/);
    await rejects('dedupe', 'under.csv', 'x,y,z\n0,0,0\n1_0,1,1\n', /line 3: x is not a finite decimal number: "1_0"/);
  });
});

describe('PLY face and edge indices', () => {
  const mesh = gridMesh(2);
  const header = (list: string) =>
    `ply\nformat ascii 1.0\nelement vertex 9\nproperty float x\nproperty float y\nproperty float z\nelement face 8\nproperty list uchar ${list} vertex_indices\nend_header\n`;
  const vertices = Array.from({ length: 9 }, (_, i) => `${mesh.positions[i * 3]} ${mesh.positions[i * 3 + 1]} 0`).join(
    '\n',
  );
  const faces = (map: (v: number) => string) =>
    Array.from({ length: 8 }, (_, f) => `3 ${[0, 1, 2].map((k) => map(mesh.triangles[f * 3 + k]!)).join(' ')}`).join(
      '\n',
    );

  it('a negative index is an error naming the file, line, face, property and value (ASCII and binary)', async () => {
    await rejects(
      'weld',
      'negative.ply',
      `${header('int')}${vertices}\n${faces((v) => (v === 4 ? '-1' : String(v)))}\n`,
      /line 19: face 0 \(property vertex_indices\) item 2: -1 is not a vertex index \(the file has 9 vertices: 0 to 8\)/,
    );
    const binary = ply(mesh.positions, mesh.triangles, 'binary_little_endian');
    const at = binary.indexOf('end_header\n') + 11 + 9 * 12 + 1 + 4;
    binary.writeInt32LE(-1, at);
    await rejects(
      'weld',
      'negative-binary.ply',
      binary,
      /offset \d+: face 0 \(property vertex_indices\) item 1: -1 is not a vertex index/,
    );
  });

  it('float and double index lists are read when every index is a whole number, an error otherwise', async () => {
    const reference = await runOn(
      'weld',
      put(dir, 'int.ply', `${header('int')}${vertices}\n${faces(String)}\n`),
      `${dir}/int-out.ply`,
    );
    for (const type of ['float', 'double']) {
      const input = put(dir, `${type}.ply`, `${header(type)}${vertices}\n${faces((v) => `${v}.0`)}\n`);
      const { code, summary } = await runOn('weld', input, `${dir}/${type}-out.ply`);
      expect(code).toBe(0);
      expect([summary.out, summary.dropped]).toEqual([reference.summary.out, 0]);
      const geometry = new PLYLoader().parse(arrayBufferOf(`${dir}/${type}-out.ply`));
      expect(geometry.getIndex()?.count).toBe(8 * 3);
    }
    await rejects(
      'weld',
      'half.ply',
      `${header('float')}${vertices}\n${faces((v) => (v === 4 ? '3.5' : String(v)))}\n`,
      /line 19: face 0 \(property vertex_indices\) item 2: 3\.5 is not a vertex index/,
    );
    const binary = Buffer.from(
      `ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar double vertex_indices\nend_header\n`,
    );
    const body = Buffer.alloc(36 + 1 + 24);
    body.writeFloatLE(1, 12);
    body.writeFloatLE(1, 28);
    body.writeUInt8(3, 36);
    for (const k of [0, 1, 2]) body.writeDoubleLE(k, 37 + k * 8);
    const { code, summary } = await runOn(
      'weld',
      put(dir, 'double-binary.ply', Buffer.concat([binary, body])),
      `${dir}/double-binary-out.ply`,
    );
    expect(code).toBe(0);
    expect([summary.out, summary.dropped]).toEqual([3, 0]);
    const out = readFileSync(`${dir}/double-binary-out.ply`);
    expect(out.subarray(out.length - 24).readDoubleLE(16)).toBe(2);
  });

  it('an edge past the vertices is an error (it passed through)', async () => {
    const edges = `${header('int').replace('end_header', 'element edge 2\nproperty int vertex1\nproperty int vertex2\nend_header')}${vertices}\n${faces(String)}\n0 1\n2 99\n`;
    await rejects(
      'weld',
      'edge.ply',
      edges,
      /line 31: edge 1 \(property vertex2\): 99 is not a vertex index \(the file has 9 vertices: 0 to 8\)/,
    );
  });
});

describe('PLY headers', () => {
  it("Blender 2.47's bare text line after format (assimp's Wuson.ply) is read, as three's PLYLoader reads it", async () => {
    const input = put(dir, 'Wuson.ply', wild('assimp-PLY-Wuson.ply.gz'));
    const { code, summary, stderr } = await runOn('weld', input, `${dir}/Wuson-out.ply`);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(summary.in).toBe(new PLYLoader().parse(arrayBufferOf(input)).getAttribute('position').count);
    // A misspelt declaration among the elements stays an error.
    const text = readFileSync(input, 'latin1');
    await rejects(
      'weld',
      'typo.ply',
      text.replace('property float nx', 'propety float nx'),
      /line 8: unknown header line "propety float nx"/,
    );
  });

  it('counts the file cannot hold are errors before anything is allocated for them', async () => {
    const cube = wild('assimp-PLY-cube_binary.ply');
    const big = (count: string) =>
      Buffer.from(cube.toString('latin1').replace('element vertex 8', `element vertex ${count}`), 'latin1');
    await rejects(
      'weld',
      'count4e9.ply',
      big('4000000000'),
      /line 4: element "vertex" announces 4,000,000,000 records of at least 12 bytes, more than the \d+ bytes after the header hold/,
    );
    await rejects('weld', 'count1e9.ply', big('1000000000'), /element "vertex" announces 1,000,000,000 records/);
    await rejects('weld', 'counthex.ply', big('0x10'), /line 4: malformed element line "element vertex 0x10"/);
    const ascii = wild('assimp-PLY-cube.ply').toString('latin1');
    await rejects(
      'weld',
      'faces1e9.ply',
      ascii.replace(/element face \d+/, 'element face 1000000000'),
      /element "face" announces 1,000,000,000 records of at least 2 characters/,
    );
    const list = Buffer.from(cube);
    list.writeUInt8(255, list.indexOf('end_header\n') + 11 + 8 * 12);
    await rejects('weld', 'list.ply', list, /truncated: the file ends inside face \d+ \(property vertex_indices\)/);
  });
});

describe('STL detection', () => {
  const soup = soupOf(gridMesh(2), 0, 1);
  it('ASCII STL that starts "SOLID" or has a long solid name is ASCII', async () => {
    const reference = await runOn('weld', put(dir, 'lower.stl', stlAscii(soup)), `${dir}/lower-out.stl`);
    for (const [name, text] of [
      ['upper.stl', stlAscii(soup).toUpperCase()],
      ['long-name.stl', stlAscii(soup, 'x'.repeat(2000))],
      ['bom.stl', `\ufeff${stlAscii(soup)}`],
    ]) {
      const { code, summary, stderr } = await runOn('weld', put(dir, name!, text!), `${dir}/out-${name}`);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect([summary.format, summary.out]).toEqual(['ASCII STL', reference.summary.out]);
    }
  });

  it('ASCII STL: one statement a line, nothing after it (the fuzz found "facet normal vertex 0 0 0" read as 3 corners where three reads 4)', async () => {
    const text = stlAscii(soup);
    await rejects(
      'weld',
      'facet-vertex.stl',
      text.replace('facet normal 0 0 0', 'facet normal      vertex 0 0 0'),
      /line 2: expected "facet normal" and its 3 values, or "endsolid", found "facet normal {6}vertex 0 0 0"/,
    );
    await rejects(
      'weld',
      'vertex-4.stl',
      text.replace('vertex 1 0 0', 'vertex 1 0 0 7'),
      /line 5: expected "vertex" and 3 numbers \(corner 2 of 3\), found "vertex 1 0 0 7"/,
    );
    await rejects('weld', 'outer.stl', text.replace('outer loop', 'outer'), /line 3: expected "outer loop"/);
    const nan = await runOn(
      'weld',
      put(dir, 'nan-normal.stl', text.replace('facet normal 0 0 0', 'facet normal -nan -nan -nan')),
      `${dir}/nan-normal-out.stl`,
    );
    expect(nan.code).toBe(0);
  });

  it('a binary STL whose header starts with "solid" is binary when its size says so, else a truncated binary', async () => {
    const binary = stlBinary(soup);
    binary.write('solid facet endsolid', 0, 'latin1');
    const { code, summary } = await runOn('weld', put(dir, 'solid-binary.stl', binary), `${dir}/solid-binary-out.stl`);
    expect([code, summary.format]).toEqual([0, 'binary STL']);
    await rejects(
      'weld',
      'solid-cut.stl',
      binary.subarray(0, binary.length - 10),
      /offset 80: truncated binary STL: the header announces 8 triangles/,
    );
  });
});

describe('real files read as their libraries read them', () => {
  it("assimp's OBJ test files: as many vertices as three's OBJLoader sees", async () => {
    for (const name of [
      'assimp-OBJ-box.obj',
      'assimp-OBJ-cube_with_vertexcolors.obj',
      'assimp-OBJ-box_without_lineending.obj',
      'assimp-OBJ-multiple_spaces.obj',
      'assimp-OBJ-concave_polygon.obj',
    ]) {
      const data = wild(name);
      const { code, summary, stderr } = await runOn(
        'weld',
        put(dir, name, data),
        `${dir}/out-${name}`,
        '--tolerance',
        '0',
      );
      expect(stderr, name).toBe('');
      expect(code).toBe(0);
      const lines = data.toString('latin1').split('\n');
      expect(summary.in, name).toBe(lines.filter((l) => /^\s*v\s/.test(l)).length);
      new OBJLoader().parse(readFileSync(`${dir}/out-${name}`, 'utf8'));
    }
  });
});

describe('LAZ counts and corruption', () => {
  const autzen = wild('lazperf-autzen_trim.laz');
  const withCount = (data: Buffer, count: number) => {
    const copy = Buffer.from(data);
    copy.writeUInt32LE(count, 107);
    if (copy.readUInt8(25) >= 4) copy.writeBigUInt64LE(BigInt(count), 247);
    return copy;
  };

  it('a header claiming 1 or 2 points more than the chunks hold is an error at the point where the data ran out', async () => {
    await rejects(
      'dedupe',
      'autzen-plus1.laz',
      withCount(autzen, 110_001),
      /point 110000: the compressed points end after 110,000 points; the header announces 110,001/,
    );
    await rejects(
      'dedupe',
      'autzen-plus2.laz',
      withCount(autzen, 110_002),
      /point 110000: the compressed points end after 110,000 points/,
    );
    const time14 = wild('lazperf-point-time-1.4.las.laz');
    await rejects(
      'dedupe',
      'time14-plus1.laz',
      withCount(time14, 1066),
      /point 1065: the compressed points end after 1,065 points; the header announces 1,066/,
    );
  });

  it('a count the chunk table cannot hold is an error before anything is decoded (2^28, 2^32 - 1, one chunk too many)', async () => {
    const small = wild('lazperf-1815.laz');
    await rejects(
      'dedupe',
      'count28.laz',
      withCount(small, 2 ** 28),
      /offset 16167: the header announces 268,435,456 points, which take 5369 chunks of 50000, but the chunk table lists 1/,
    );
    await rejects(
      'dedupe',
      'count32.laz',
      withCount(small, 2 ** 32 - 1),
      /the header announces 4,294,967,295 points, which take 85900 chunks of 50000/,
    );
    await rejects(
      'dedupe',
      'autzen-chunk.laz',
      withCount(autzen, 150_001),
      /which take 4 chunks of 50000, but the chunk table lists 3/,
    );
  });

  it('layered chunks (LAS 1.4 formats) are checked by the point count each one stores', async () => {
    const points = Float64Array.from({ length: 30 }, (_, i) => ((i * 7919) % 13) * 0.25);
    const data = laz(points, '1.4');
    const { code, summary } = await runOn('dedupe', put(dir, 'layered.laz', data), `${dir}/layered-out.las`);
    expect([code, summary.in]).toEqual([0, 10]);
    const pointOffset = data.readUInt32LE(96);
    const wrong = Buffer.from(data);
    wrong.writeUInt32LE(2, pointOffset + 8 + 3 * 70 + 30);
    await rejects(
      'dedupe',
      'layered-count.laz',
      wrong,
      /offset \d+: chunk 3 holds 2 points where the header's count of 10 needs 1/,
    );
  });

  it('corrupt LAZ: one line naming the file and what is wrong, never a WebAssembly message', async () => {
    const cut = autzen.subarray(0, 300_000);
    await rejects(
      'dedupe',
      'autzen-cut.laz',
      cut,
      /offset 2144: the chunk table offset 603333 is outside the compressed points/,
    );
    const table = Buffer.from(autzen);
    table.writeUInt32LE(7, 603_333);
    await rejects('dedupe', 'autzen-table.laz', table, /offset 603333: unknown chunk table version 7/);
    const huge = Buffer.from(autzen);
    huge.writeUInt32LE(0xffffffff, 603_337);
    await rejects(
      'dedupe',
      'autzen-chunks.laz',
      huge,
      /the chunk table lists 4294967295 chunks, more than the \d+ bytes of compressed points hold/,
    );
    for (const [name, data] of [['autzen-vlr.laz', Buffer.from(autzen)]] as const) {
      data.writeUInt16LE(0xffff, 227 + 20);
      await rejects('dedupe', name, data, /VLR 0 of 65535 bytes runs past the start of the points/);
    }
  });

  it("laz-perf's module leaves the process's handlers as they were (its Node build adds two that rethrow)", async () => {
    const before = ['uncaughtException', 'unhandledRejection'].map((event) => process.listenerCount(event));
    const { code } = await runOn('dedupe', put(dir, 'handlers.laz', wild('lazperf-1815.laz')), `${dir}/handlers.las`);
    expect(code).toBe(0);
    expect(['uncaughtException', 'unhandledRejection'].map((event) => process.listenerCount(event))).toEqual(before);
  });

  it("the .laz and .las of laz-perf's test sets come out byte for byte the same", async () => {
    for (const name of ['1815', 'extrabytes']) {
      const a = await runOn(
        'dedupe',
        put(dir, `${name}.laz`, wild(`lazperf-${name}.laz`)),
        `${dir}/${name}-from-laz.las`,
      );
      const b = await runOn(
        'dedupe',
        put(dir, `${name}.las`, wild(`lazperf-${name}.las`)),
        `${dir}/${name}-from-las.las`,
      );
      expect([a.code, b.code]).toEqual([0, 0]);
      expect(a.summary.out).toBe(b.summary.out);
      const fromLaz = readFileSync(`${dir}/${name}-from-laz.las`);
      const fromLas = readFileSync(`${dir}/${name}-from-las.las`);
      // Same records (the LAS input keeps VLRs the LAZ one never had): compare from the points on.
      expect(fromLaz.subarray(fromLaz.readUInt32LE(96)).equals(fromLas.subarray(fromLas.readUInt32LE(96)))).toBe(true);
    }
  });
});

describe('LAS VLRs', () => {
  it('VLR counts and lengths are checked against the offset to the points', async () => {
    const data = wild('lazperf-1815.las');
    const many = Buffer.from(data);
    many.writeUInt32LE(2 ** 31, 100);
    await rejects(
      'dedupe',
      'vlr-count.las',
      many,
      /offset 100: 2147483648 VLRs announced, but the \d+ bytes between the header and the points hold at most \d+/,
    );
    const long = Buffer.from(data);
    long.writeUInt16LE(60_000, long.readUInt16LE(94) + 20);
    await rejects('dedupe', 'vlr-long.las', long, /VLR 0 of 60000 bytes runs past the start of the points/);
  });
});

describe('the attribute rule', () => {
  it('an attribute the file does not have is a command-line error naming the ones it has (exit 2)', async () => {
    const wuson = put(dir, 'Wuson-names.ply', wild('assimp-PLY-Wuson.ply.gz'));
    const box = put(dir, 'box-names.obj', wild('assimp-OBJ-box.obj'));
    const colours = put(dir, 'colours.obj', wild('assimp-OBJ-cube_with_vertexcolors.obj'));
    const cases: [string[], RegExp][] = [
      [
        [wuson, '--ignore', 'colour'],
        /--ignore colour: .*Wuson-names\.ply has no vertex attribute "colour"; its vertex attributes are normal, uv/,
      ],
      [
        [wuson, '--attribute-tolerance', 'nx=0.1'],
        /--attribute-tolerance nx: in .*, "nx" is part of the attribute "normal", compared as one: use --attribute-tolerance normal/,
      ],
      [
        [box, '--ignore', 'color'],
        /box-names\.obj has no vertex attribute "color"; it has no vertex attributes besides positions \(OBJ texture coordinates and normals/,
      ],
      [[colours, '--ignore', 'colour'], /its vertex attributes are color/],
      [[wuson, '--ignore', 'Normal'], /"Normal" \(did you mean normal\? names are case-sensitive\); its vertex/],
    ];
    for (const [[input, ...flags], pattern] of cases) {
      const { code, stdout, stderr } = await cli(
        'weld',
        input!,
        '-o',
        `${dir}/names-out${input!.slice(-4)}`,
        '-t',
        '0.001',
        ...flags,
      );
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
      expect(stderr).toMatch(pattern);
    }
  });

  it('per-corner normals and UVs (Wuson.ply): the summary says which attributes kept vertices apart and the flags that merge them', async () => {
    const input = put(dir, 'Wuson-apart.ply', wild('assimp-PLY-Wuson.ply.gz'));
    const { summary } = await runOn('weld', input, `${dir}/Wuson-apart-out.ply`, '--tolerance', '0.0001');
    expect([summary.in, summary.out]).toEqual([11_184, 11_184]);
    expect(summary.keptApart).toEqual([
      { attribute: 'normal', vertices: 9121 },
      { attribute: 'uv', vertices: 2612 },
    ]);
    const { code, stdout } = await cli('weld', input, '-o', `${dir}/Wuson-apart-out.ply`, '-t', '0.0001');
    expect(code).toBe(0);
    expect(stdout).toContain(
      'kept apart by attributes though within the tolerance: normal 9,121, uv 2,612 (--ignore normal --ignore uv merges them)',
    );
    const merged = await runOn(
      'weld',
      input,
      `${dir}/Wuson-merged.ply`,
      '--tolerance',
      '0.0001',
      '--ignore',
      'normal',
      '--ignore',
      'uv',
    );
    expect([merged.summary.out, merged.summary.keptApart]).toEqual([11_184 - 9121, undefined]);
    const loose = await runOn(
      'weld',
      input,
      `${dir}/Wuson-loose.ply`,
      '--tolerance',
      '0.0001',
      '--ignore',
      'normal',
      '--attribute-tolerance',
      'uv=1',
    );
    expect(loose.summary.out).toBe(11_184 - 9121);
  });
});
