/**
 * glTF and GLB from the wild: real compressed files (Draco's Box, gltfpack's
 * meshopt pirate, see test/files/README.md) welded and written back
 * compressed, read back independently (glTF-Transform with its own
 * decoders); broken files, one per defect class, each an exit code 1 with a
 * one-line message naming the file and the accessor, bufferView, buffer or
 * offset, and nothing written; the names a .gltf output's buffers and images
 * get, and the files they may not replace.
 */

import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Document, Logger, NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import draco3d from 'draco3d';
import { MeshoptDecoder } from 'meshoptimizer';
import { beforeAll, describe, expect, it } from 'vitest';
import { glb, gridMesh, soupOf } from './fixtures.js';
import { cli, put, temporaries, workspace } from './helpers.js';

const files = join(dirname(fileURLToPath(import.meta.url)), 'files');
const dir = workspace();

let reader: NodeIO;
beforeAll(async () => {
  await MeshoptDecoder.ready;
  reader = new NodeIO()
    .registerExtensions(ALL_EXTENSIONS)
    .setLogger(new Logger(Logger.Verbosity.SILENT))
    .registerDependencies({
      'draco3d.decoder': await draco3d.createDecoderModule(),
      'meshopt.decoder': MeshoptDecoder,
    });
});

/** glTF JSON as the tests edit it: any shape, since broken files are the point. */
// biome-ignore lint/suspicious/noExplicitAny: the tests write whatever a broken file holds.
type Json = Record<string, any>;

/** A GLB's JSON and BIN chunk. */
function glbParts(bytes: Uint8Array): { json: Json; bin: Buffer } {
  const data = Buffer.from(bytes);
  const jsonLength = data.readUInt32LE(12);
  const json = JSON.parse(data.subarray(20, 20 + jsonLength).toString('utf8'));
  const binAt = 20 + jsonLength;
  const bin =
    binAt + 8 <= data.length ? data.subarray(binAt + 8, binAt + 8 + data.readUInt32LE(binAt)) : Buffer.alloc(0);
  return { json, bin: Buffer.from(bin) };
}

/** A GLB made of a JSON object and a BIN chunk (both padded to 4 bytes). */
function glbOf(json: unknown, bin: Uint8Array): Buffer {
  let text = Buffer.from(JSON.stringify(json), 'utf8');
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const binPadded = Buffer.concat([Buffer.from(bin), Buffer.alloc((4 - (bin.length % 4)) % 4)]);
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + text.length + (bin.length > 0 ? 8 + binPadded.length : 0), 8);
  const jsonHead = Buffer.alloc(8);
  jsonHead.writeUInt32LE(text.length, 0);
  jsonHead.writeUInt32LE(0x4e4f534a, 4);
  const parts = [header, jsonHead, text];
  if (bin.length > 0) {
    const binHead = Buffer.alloc(8);
    binHead.writeUInt32LE(binPadded.length, 0);
    binHead.writeUInt32LE(0x004e4942, 4);
    parts.push(binHead, binPadded);
  }
  return Buffer.concat(parts);
}

/** Positions of every primitive's POSITION, as "x,y,z" strings (decoded). */
async function positionsOf(path: string): Promise<string[]> {
  const document = await reader.read(path);
  const out: string[] = [];
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const array = primitive.getAttribute('POSITION')!.getArray()!;
      for (let k = 0; k < array.length; k += 3) out.push(`${array[k]},${array[k + 1]},${array[k + 2]}`);
    }
  }
  return out;
}

function extensionsOf(path: string): { used: string[]; required: string[] } {
  const { json } = glbParts(readFileSync(path));
  return { used: json.extensionsUsed ?? [], required: json.extensionsRequired ?? [] };
}

/** Each Draco attribute's quantization bits in a GLB, by semantic (read with draco3d's own decoder). */
async function dracoBits(path: string): Promise<Record<string, number>> {
  // biome-ignore lint/suspicious/noExplicitAny: draco3d's types do not cover the decoder's quantization transform.
  const decoder: any = await draco3d.createDecoderModule();
  const { json, bin } = glbParts(readFileSync(path));
  const bits: Record<string, number> = {};
  for (const mesh of json.meshes) {
    for (const primitive of mesh.primitives) {
      const ext = primitive.extensions.KHR_draco_mesh_compression;
      const view = json.bufferViews[ext.bufferView];
      const bytes = bin.subarray(view.byteOffset ?? 0, (view.byteOffset ?? 0) + view.byteLength);
      const buffer = new decoder.DecoderBuffer();
      buffer.Init(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length), bytes.length);
      const d = new decoder.Decoder();
      const m = new decoder.Mesh();
      expect(d.DecodeBufferToMesh(buffer, m).ok()).toBe(true);
      for (const [semantic, id] of Object.entries(ext.attributes)) {
        const t = new decoder.AttributeQuantizationTransform();
        if (t.InitFromAttribute(d.GetAttributeByUniqueId(m, id as number))) bits[semantic] = t.quantization_bits();
      }
    }
  }
  return bits;
}

describe('compressed glTF from other tools', () => {
  it("Draco (Draco's own Box): welded on the decoded positions, written back Draco with the file's quantization", async () => {
    const input = join(files, 'Box_Draco.glb');
    const output = join(dir, 'box-draco-welded.glb');
    const { code, stdout, stderr } = await cli('weld', input, '-o', output, '-t', '0', '--ignore', 'NORMAL', '--json');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    // The cube's 24 corners (4 per face, with the face's normal) are 8 positions.
    expect(JSON.parse(stdout)).toMatchObject({ format: 'GLB', in: 24, out: 8, merged: 16, dropped: 0 });
    expect(extensionsOf(output)).toEqual({
      used: ['KHR_draco_mesh_compression'],
      required: ['KHR_draco_mesh_compression'],
    });
    expect(await dracoBits(output)).toEqual(await dracoBits(input));
    // Same weld on the uncompressed Box: the same 8 corners, exactly (the quantization grid is kept).
    const plain = join(dir, 'box-welded.glb');
    expect((await cli('weld', join(files, 'Box.glb'), '-o', plain, '-t', '0', '--ignore', 'NORMAL')).code).toBe(0);
    expect(new Set(await positionsOf(output))).toEqual(new Set(await positionsOf(plain)));
    expect(new Set(await positionsOf(output))).toEqual(new Set(await positionsOf(input)));
  });

  it('Draco with --decompress: plain accessors holding the decoded values', async () => {
    const output = join(dir, 'box-draco-plain.glb');
    const { code } = await cli('weld', join(files, 'Box_Draco.glb'), '-o', output, '-t', '0', '--decompress');
    expect(code).toBe(0);
    expect(extensionsOf(output)).toEqual({ used: [], required: [] });
    expect((await positionsOf(output)).sort()).toEqual((await positionsOf(join(files, 'Box_Draco.glb'))).sort());
  });

  it('meshopt (gltfpack): written back meshopt, losslessly, with the attribute rule reported', async () => {
    const input = join(files, 'pirate.glb');
    const output = join(dir, 'pirate-welded.glb');
    const plain = join(dir, 'pirate-plain.glb');
    const run = await cli('weld', input, '-o', output, '-t', '0.5', '--json');
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout);
    // Positions are quantized (integers): 0.5 merges equal ones only; normals keep some apart.
    expect(summary).toMatchObject({ format: 'GLB', in: 2887 });
    expect(summary.keptApart).toEqual([{ attribute: 'NORMAL', vertices: expect.any(Number) }]);
    expect(extensionsOf(output).required.sort()).toEqual(['EXT_meshopt_compression', 'KHR_mesh_quantization']);
    expect((await cli('weld', input, '-o', plain, '-t', '0.5', '--decompress')).code).toBe(0);
    expect(extensionsOf(plain).used).toEqual(['KHR_mesh_quantization']);
    // meshopt without filters is lossless: the compressed output decodes to the plain one, value for value.
    expect(await positionsOf(output)).toEqual(await positionsOf(plain));
    const inputSet = new Set(await positionsOf(input));
    for (const p of await positionsOf(output)) expect(inputSet.has(p)).toBe(true);
    expect((await positionsOf(output)).length).toBe(summary.out);
  });
});

describe('broken glTF and GLB: one line, exit 1, nothing written', () => {
  const mesh = gridMesh(2);
  const soup = soupOf(mesh, 0, 1);
  let good: { json: Json; bin: Buffer };
  beforeAll(async () => {
    good = glbParts(await glb(soup, undefined));
  });

  async function rejects(name: string, data: string | Uint8Array, pattern: RegExp, extra: string[] = []) {
    const input = put(dir, name, data);
    const output = join(dir, `out-${name.replace(/\.gltf$/, '.glb')}`);
    writeFileSync(output, 'previous output');
    const { code, stdout, stderr } = await cli('weld', input, '-o', output, '-t', '0.01', ...extra);
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toMatch(/^spatialhash: error: /);
    expect(stderr).toContain(`${input}: `);
    expect(stderr).toMatch(pattern);
    expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
    expect(readFileSync(output, 'utf8')).toBe('previous output');
    expect(temporaries(dir)).toEqual([]);
  }

  /** The good GLB with its JSON changed by `edit`. */
  const edited = (edit: (json: Json) => void, bin = good.bin) => {
    const json = structuredClone(good.json);
    edit(json);
    return glbOf(json, bin);
  };

  it('accessors past their bufferView, counts of 1e9 and 2^32, a bufferView past its buffer', async () => {
    await rejects(
      'past.glb',
      edited((json) => {
        json.accessors[0].count += 1;
      }),
      /accessor 0: count 25 of VEC3 FLOAT \(12 bytes each, stride 12\) needs 300 bytes of bufferView 0, which has 288 \(it starts at offset \d+ of past\.glb\)/,
    );
    await rejects(
      'billion.glb',
      edited((json) => {
        json.accessors[0].count = 1e9;
      }),
      /accessor 0: count 1,000,000,000 of VEC3 FLOAT .* needs 12,000,000,000 bytes/,
    );
    await rejects(
      'huge.glb',
      edited((json) => {
        json.accessors[0].count = 2 ** 32;
      }),
      /accessor 0: count must be an integer from 1 to 2\^32 - 1, got 4294967296/,
    );
    await rejects(
      'zeros.glb',
      edited((json) => {
        delete json.accessors[0].bufferView;
        json.accessors[0].count = 1e9;
      }),
      /accessor 0: count 1,000,000,000 of VEC3 FLOAT with no bufferView \(all zeros\) is more than the [\d,]+ bytes/,
    );
    await rejects(
      'view.glb',
      edited((json) => {
        json.bufferViews[0].byteLength += 4;
      }),
      /bufferView 0: bytes 0 to 292 run past the end of buffer 0 \(288 bytes\)/,
    );
  });

  it('non-finite positions and indices out of range, with their offset in the file', async () => {
    const bin = Buffer.from(good.bin);
    bin.writeFloatLE(Number.POSITIVE_INFINITY, 5 * 12 + 4);
    await rejects(
      'inf.glb',
      glbOf(good.json, bin),
      /accessor 0 \(POSITION of mesh 0, primitive 0\): element 5 has y = Infinity \(offset \d+ of inf\.glb\); positions must be finite/,
    );
    const indexed = glbParts(await glb(mesh.positions, mesh.triangles));
    const indices = indexed.json.meshes[0].primitives[0].indices;
    const view = indexed.json.bufferViews[indexed.json.accessors[indices].bufferView];
    const withBadIndex = Buffer.from(indexed.bin);
    withBadIndex.writeUInt16LE(500, (view.byteOffset ?? 0) + 2 * 4);
    await rejects(
      'index.glb',
      glbOf(indexed.json, withBadIndex),
      /accessor \d \(indices of mesh 0, primitive 0\): element 4 is 500 \(offset \d+ of index\.glb\), past the 9 vertices of POSITION/,
    );
  });

  it('POSITION declared VEC2, indices that are not unsigned integers, references to nothing', async () => {
    await rejects(
      'vec2.glb',
      edited((json) => {
        json.accessors[0].type = 'VEC2';
      }),
      /accessor 0 \(POSITION of mesh 0, primitive 0\) is VEC2; POSITION must be VEC3/,
    );
    await rejects(
      'float-index.glb',
      edited((json) => {
        json.meshes[0].primitives[0].indices = 0;
      }),
      /accessor 0 \(indices of mesh 0, primitive 0\) is VEC3 FLOAT; indices must be SCALAR of unsigned integers/,
    );
    await rejects(
      'nothing.glb',
      edited((json) => {
        json.meshes[0].primitives[0].attributes.NORMAL = 7;
      }),
      /mesh 0, primitive 0: NORMAL is accessor 7, not one of the 1 accessors/,
    );
  });

  it('GLB containers: bad magic, versions 1 and 3, truncated chunks and header', async () => {
    const bytes = glbOf(good.json, good.bin);
    const magic = Buffer.from(bytes);
    magic.write('PK\x03\x04', 0, 'latin1');
    await rejects('zip.glb', magic, /offset 0: not a GLB: it begins with the bytes 50 4b 03 04, a GLB with "glTF"/);
    const v1 = Buffer.from(bytes);
    v1.writeUInt32LE(1, 4);
    await rejects('v1.glb', v1, /offset 4: GLB version 1 \(KHR_binary_glTF\) is glTF 1\.0.*gltf-pipeline/);
    const v3 = Buffer.from(bytes);
    v3.writeUInt32LE(3, 4);
    await rejects('v3.glb', v3, /offset 4: GLB version 3: this tool reads version 2 \(glTF 2\.0\) only/);
    await rejects(
      'cut-chunk.glb',
      (() => {
        const cut = Buffer.from(bytes.subarray(0, bytes.length - 10));
        cut.writeUInt32LE(cut.length, 8);
        return cut;
      })(),
      /offset \d+: truncated GLB: the BIN chunk of 288 bytes runs to [\d,]+, past the end at [\d,]+/,
    );
    await rejects('tiny.glb', bytes.subarray(0, 7), /offset 7: truncated GLB: the 12-byte header ends at 7/);
    await rejects(
      'bad-json.glb',
      glbOf({ asset: { version: '2.0' } }, Buffer.alloc(0)).fill(0x7b, 20, 22),
      /offset 2\d: the glTF JSON is not valid/,
    );
  });

  it('glTF 1.0, as JSON', async () => {
    const v1 = { asset: { version: '1.0' }, meshes: { box: { primitives: [] } } };
    await rejects(
      'old.gltf',
      JSON.stringify(v1),
      /this is glTF 1\.0, which this tool does not read: convert it to glTF 2\.0 first/,
    );
    await rejects('older.gltf', JSON.stringify({ meshes: { box: {} } }), /this is glTF 1\.0/);
    await rejects('bad.gltf', '{"asset": {"version": "2.0"},\n "meshes": [}', /line 2: the glTF JSON is not valid/);
  });

  it('buffers: an invalid base64 data URI, an empty or missing .bin, a folder', async () => {
    const json = structuredClone(good.json);
    json.buffers[0].uri = `data:application/octet-stream;base64,${good.bin.toString('base64').replace(/^(.{10})./, '$1*')}`;
    await rejects(
      'base64.gltf',
      JSON.stringify(json),
      /buffer 0: the data URI is not valid base64: "\*" at character 10 of its data/,
    );
    json.buffers[0].uri = 'empty.bin';
    put(dir, 'empty.bin', '');
    await rejects(
      'empty.gltf',
      JSON.stringify(json),
      /buffer 0 \(empty\.bin\) has 0 bytes, its byteLength says 288 \(an empty file\)/,
    );
    json.buffers[0].uri = 'missing.bin';
    await rejects(
      'missing.gltf',
      JSON.stringify(json),
      /cannot read buffer 0 \(missing\.bin\) \(.*missing\.bin\): no such file or folder \(ENOENT\)/,
    );
    mkdirSync(join(dir, 'folder.bin'), { recursive: true });
    json.buffers[0].uri = 'folder.bin';
    await rejects(
      'folder.gltf',
      JSON.stringify(json),
      /buffer 0 \(folder\.bin\) \(.*folder\.bin\) is a folder, not a file/,
    );
  });

  it('Draco data that does not decode, without a stack', async () => {
    const { json, bin } = glbParts(readFileSync(join(files, 'Box_Draco.glb')));
    const corrupt = Buffer.from(bin);
    corrupt.fill(0xff, 12, 80);
    await rejects(
      'corrupt-draco.glb',
      glbOf(json, corrupt),
      /cannot read as glTF: \[KHR_draco_mesh_compression\] Decoding failure/,
    );
    const ids = (position: unknown) => {
      const edited = structuredClone(json);
      edited.meshes[0].primitives[0].extensions.KHR_draco_mesh_compression.attributes.POSITION = position;
      return glbOf(edited, bin);
    };
    // 1e308 would be read as id 0 (the normals); 7 is no attribute of the Draco data (decodes to nothing).
    await rejects(
      'draco-id.glb',
      ids(1e308),
      /mesh 0, primitive 0: its Draco attribute id of POSITION is 1e\+308, not an integer >= 0/,
    );
    await rejects(
      'draco-missing.glb',
      ids(7),
      /accessor 1 \(POSITION of mesh 0, primitive 0\): its Draco data decodes to 0 elements, the accessor says 24/,
    );
  });
});

describe('a .gltf output never writes over a file it was not given', () => {
  it("Box.gltf -o Box0.gltf: Box0.bin is the input's buffer, refused before anything is written; --force replaces it", async () => {
    const box = join(dir, 'box');
    mkdirSync(box, { recursive: true });
    copyFileSync(join(files, 'Box/Box.gltf'), join(box, 'Box.gltf'));
    copyFileSync(join(files, 'Box/Box0.bin'), join(box, 'Box0.bin'));
    const before = readFileSync(join(box, 'Box0.bin'));
    const refused = await cli('weld', join(box, 'Box.gltf'), '-o', join(box, 'Box0.gltf'), '-t', '0');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /Box0\.gltf: cannot write .*Box0\.bin: it is a file of the input .*Box\.gltf \(choose another output name, or --force to replace it\)\n$/,
    );
    expect(readFileSync(join(box, 'Box0.bin'))).toEqual(before);
    expect(readdirSync(box).sort()).toEqual(['Box.gltf', 'Box0.bin']);
    // Another name: the input untouched, the output's buffer named after it.
    expect((await cli('weld', join(box, 'Box.gltf'), '-o', join(box, 'welded.gltf'), '-t', '0')).code).toBe(0);
    expect(readdirSync(box).sort()).toEqual(['Box.gltf', 'Box0.bin', 'welded.bin', 'welded.gltf']);
    expect(readFileSync(join(box, 'Box0.bin'))).toEqual(before);
    expect(JSON.parse(readFileSync(join(box, 'welded.gltf'), 'utf8')).buffers[0].uri).toBe('welded.bin');
    // The same command again replaces its own output's buffer without --force.
    expect((await cli('weld', join(box, 'Box.gltf'), '-o', join(box, 'welded.gltf'), '-t', '0')).code).toBe(0);
    // In place: the output is the input, its own buffer (read whole first) replaced with it.
    copyFileSync(join(box, 'welded.gltf'), join(box, 'again.gltf'));
    writeFileSync(
      join(box, 'again.gltf'),
      readFileSync(join(box, 'welded.gltf'), 'utf8').replace('welded.bin', 'again.bin'),
    );
    copyFileSync(join(box, 'welded.bin'), join(box, 'again.bin'));
    const inPlace = await cli('weld', join(box, 'again.gltf'), '-o', join(box, 'again.gltf'), '-t', '0', '--json');
    expect(inPlace.code, inPlace.stderr).toBe(0);
    expect(JSON.parse(inPlace.stdout)).toMatchObject({ in: 24, out: 24 });
    const forced = await cli('weld', join(box, 'Box.gltf'), '-o', join(box, 'Box0.gltf'), '-t', '0', '--force');
    expect(forced.code).toBe(0);
    expect(readFileSync(join(box, 'Box0.bin'))).not.toEqual(before);
  });

  it('images beside a .gltf output are named after it, and never replace an unrelated file unless --force', async () => {
    // A GLB with an embedded PNG, written as .gltf: the image becomes a file beside the output.
    const document = new Document().setLogger(new Logger(Logger.Verbosity.SILENT));
    const buffer = document.createBuffer();
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a2ad2fb10000000049454e44ae426082',
      'hex',
    );
    const texture = document.createTexture('logo').setImage(png).setMimeType('image/png');
    const position = document
      .createAccessor('p', buffer)
      .setType('VEC3')
      .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]));
    const material = document.createMaterial('m').setBaseColorTexture(texture);
    document
      .createMesh()
      .addPrimitive(document.createPrimitive().setAttribute('POSITION', position).setMaterial(material));
    const images = join(dir, 'images');
    mkdirSync(images, { recursive: true });
    const input = put(images, 'logo.glb', await new NodeIO().writeBinary(document));
    const unrelated = put(images, 'out_logo.png', 'not ours');
    const refused = await cli('weld', input, '-o', join(images, 'out.gltf'), '-t', '0');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /out\.gltf: cannot write .*out_logo\.png: the file exists and the output does not use it \(remove it, choose another output name, or --force to replace it\)\n$/,
    );
    expect(readFileSync(unrelated, 'utf8')).toBe('not ours');
    expect(existsSync(join(images, 'out.gltf'))).toBe(false);
    expect(existsSync(join(images, 'out.bin'))).toBe(false);
    expect((await cli('weld', input, '-o', join(images, 'out.gltf'), '-t', '0', '--force')).code).toBe(0);
    expect(readFileSync(unrelated)).toEqual(png);
    expect(JSON.parse(readFileSync(join(images, 'out.gltf'), 'utf8')).images[0].uri).toBe('out_logo.png');
    // An input whose image sits in a subfolder: read from there, written flat beside the output.
    const nested = join(dir, 'nested');
    mkdirSync(join(nested, 'textures'), { recursive: true });
    const json = JSON.parse(readFileSync(join(images, 'out.gltf'), 'utf8'));
    json.images[0].uri = 'textures/logo%20one.png';
    json.buffers[0].uri = 'out.bin';
    copyFileSync(join(images, 'out.bin'), join(nested, 'out.bin'));
    writeFileSync(join(nested, 'textures/logo one.png'), png);
    writeFileSync(join(nested, 'in.gltf'), JSON.stringify(json));
    const run = await cli('weld', join(nested, 'in.gltf'), '-o', join(nested, 'welded.gltf'), '-t', '0');
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(nested, 'welded_logo_one.png'))).toEqual(png);
    // A missing image is an error naming it.
    json.images[0].uri = 'textures/gone.png';
    writeFileSync(join(nested, 'gone.gltf'), JSON.stringify(json));
    const gone = await cli('weld', join(nested, 'gone.gltf'), '-o', join(nested, 'gone-out.gltf'), '-t', '0');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/gone\.gltf: cannot read image 0 \(textures\/gone\.png\) .*no such file or folder/);
  });
});

describe('attribute names on glTF', () => {
  it('an attribute the file does not have is a command-line error naming those it has; warnings reach stderr', async () => {
    const input = join(files, 'Box.glb');
    const wrong = await cli('weld', input, '-o', join(dir, 'x.glb'), '-t', '0', '--ignore', 'normal');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(
      /--ignore normal: .*Box\.glb has no vertex attribute "normal" \(did you mean NORMAL\? names are case-sensitive\); its vertex attributes are NORMAL\n/,
    );
    const tolerance = await cli(
      'weld',
      input,
      '-o',
      join(dir, 'x.glb'),
      '-t',
      '0',
      '--attribute-tolerance',
      'TEXCOORD_0=0.1',
    );
    expect(tolerance.code).toBe(2);
    expect(tolerance.stderr).toMatch(
      /--attribute-tolerance TEXCOORD_0: .* has no vertex attribute "TEXCOORD_0"; its vertex attributes are NORMAL\n/,
    );
    const position = await cli('weld', input, '-o', join(dir, 'x.glb'), '-t', '0', '--ignore', 'POSITION');
    expect(position.code).toBe(2);
    expect(position.stderr).toMatch(/--ignore POSITION: positions are what weld welds by \(use --tolerance\)\n/);
    expect((await cli('weld', input, '-o', join(dir, 'x.glb'), '-t', '0', '--ignore', 'NORMAL')).code).toBe(0);
    // glTF-Transform's own warnings are shown, as warnings.
    const { json, bin } = glbParts(readFileSync(input));
    json.extensionsUsed = ['EXT_made_up'];
    const odd = put(dir, 'odd.glb', glbOf(json, bin));
    const warned = await cli('weld', odd, '-o', join(dir, 'odd-out.glb'), '-t', '0');
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/^spatialhash: warning: Missing optional extension, "EXT_made_up"\.\n$/);
  });
});
