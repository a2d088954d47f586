/**
 * Meshes and point clouds written to every format the CLI reads, by writers
 * of their own (short, spec-following, independent of the CLI's readers): the
 * Stanford bunny from the `bunny` package, a jittered triangle soup, points.
 * Used by the CLI's tests and by the bench.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { Document, Logger, NodeIO } from '@gltf-transform/core';
import { random } from '../../../test/support/random.js';

export { random };

const bunny = createRequire(import.meta.url)('bunny') as { positions: number[][]; cells: number[][] };

/** A triangle mesh: xyz per vertex, three vertex numbers per triangle. */
export interface Mesh {
  positions: Float64Array;
  triangles: Uint32Array;
}

/** The Stanford bunny (1,839 vertices, 3,674 triangles), scaled into a box about 10 units wide. */
export function bunnyMesh(): Mesh {
  const b = bunny;
  return {
    positions: Float64Array.from(b.positions.flat()),
    triangles: Uint32Array.from(b.cells.flat()),
  };
}

/**
 * The mesh as a triangle soup (each triangle its own three corners), each
 * corner moved by up to `jitter` per axis, as after a lossy export.
 */
export function soupOf(mesh: Mesh, jitter: number, seed: number): Float64Array {
  const rand = random(seed);
  const soup = new Float64Array(mesh.triangles.length * 3);
  for (let k = 0; k < mesh.triangles.length; k++) {
    const v = mesh.triangles[k]!;
    for (let axis = 0; axis < 3; axis++)
      soup[k * 3 + axis] = mesh.positions[v * 3 + axis]! + (rand() - 0.5) * 2 * jitter;
  }
  return soup;
}

/** A grid of `side` x `side` quads (two triangles each) in the z = 0 plane, unit spacing: an indexed mesh. */
export function gridMesh(side: number): Mesh {
  const positions: number[] = [];
  for (let y = 0; y <= side; y++) for (let x = 0; x <= side; x++) positions.push(x, y, 0);
  const triangles: number[] = [];
  const v = (x: number, y: number) => y * (side + 1) + x;
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++)
      triangles.push(v(x, y), v(x + 1, y), v(x + 1, y + 1), v(x, y), v(x + 1, y + 1), v(x, y + 1));
  }
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}

/** Binary STL of a soup (9 coordinates per triangle), normals zero, attribute bytes = triangle number & 0xffff. */
export function stlBinary(soup: ArrayLike<number>): Buffer {
  const triangles = soup.length / 9;
  const out = Buffer.alloc(84 + triangles * 50);
  out.write('binary STL written by the spatialhash-cli tests', 0, 'latin1');
  out.writeUInt32LE(triangles, 80);
  for (let t = 0; t < triangles; t++) {
    const at = 84 + t * 50;
    for (let k = 0; k < 9; k++) out.writeFloatLE(soup[t * 9 + k]!, at + 12 + k * 4);
    out.writeUInt16LE(t & 0xffff, at + 48);
  }
  return out;
}

/** ASCII STL of a soup, one solid. */
export function stlAscii(soup: ArrayLike<number>, name = 'part'): string {
  const lines = [`solid ${name}`];
  for (let t = 0; t < soup.length / 9; t++) {
    lines.push('  facet normal 0 0 0', '    outer loop');
    for (let k = 0; k < 3; k++) {
      const at = t * 9 + k * 3;
      lines.push(`      vertex ${soup[at]} ${soup[at + 1]} ${soup[at + 2]}`);
    }
    lines.push('    endloop', '  endfacet');
  }
  lines.push(`endsolid ${name}`);
  return `${lines.join('\n')}\n`;
}

/**
 * OBJ of a mesh: vt per vertex, faces as v/vt with relative (negative)
 * references for every other face, a group and a comment to pass through.
 */
export function obj(mesh: Mesh, colors?: ArrayLike<number>): string {
  const n = mesh.positions.length / 3;
  const lines = ['# written by the spatialhash-cli tests', 'o part', 'g body'];
  for (let i = 0; i < n; i++) {
    const p = mesh.positions;
    const color = colors === undefined ? '' : ` ${colors[i * 3]} ${colors[i * 3 + 1]} ${colors[i * 3 + 2]}`;
    lines.push(`v ${p[i * 3]} ${p[i * 3 + 1]} ${p[i * 3 + 2]}${color}`);
  }
  for (let i = 0; i < n; i++) lines.push(`vt ${(i % 7) / 7} ${(i % 5) / 5}`);
  const t = mesh.triangles;
  for (let f = 0; f < t.length / 3; f++) {
    const corner = (k: number) => {
      const v = t[f * 3 + k]!;
      return f % 2 === 0 ? `${v + 1}/${v + 1}` : `${v - n}/${v + 1}`;
    };
    lines.push(`f ${corner(0)} ${corner(1)} ${corner(2)}`);
  }
  return `${lines.join('\n')}\n`;
}

export type PlyFormat = 'ascii' | 'binary_little_endian' | 'binary_big_endian';

/** PLY of a mesh (or, with no triangles, a point cloud), float xyz, optional uchar colours, int vertex_indices. */
export function ply(
  positions: ArrayLike<number>,
  triangles: ArrayLike<number>,
  format: PlyFormat,
  colors?: ArrayLike<number>,
): Buffer {
  const n = positions.length / 3;
  const faces = triangles.length / 3;
  const header = [
    'ply',
    `format ${format} 1.0`,
    'comment written by the spatialhash-cli tests',
    `element vertex ${n}`,
    'property float x',
    'property float y',
    'property float z',
    ...(colors === undefined ? [] : ['property uchar red', 'property uchar green', 'property uchar blue']),
    ...(faces > 0 ? [`element face ${faces}`, 'property list uchar int vertex_indices'] : []),
    'end_header',
  ];
  const head = Buffer.from(`${header.join('\n')}\n`, 'latin1');
  if (format === 'ascii') {
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      const f32 = (k: number) => Math.fround(positions[i * 3 + k]!);
      const color = colors === undefined ? '' : ` ${colors[i * 3]} ${colors[i * 3 + 1]} ${colors[i * 3 + 2]}`;
      lines.push(`${f32(0)} ${f32(1)} ${f32(2)}${color}`);
    }
    for (let f = 0; f < faces; f++) lines.push(`3 ${triangles[f * 3]} ${triangles[f * 3 + 1]} ${triangles[f * 3 + 2]}`);
    return Buffer.concat([head, Buffer.from(`${lines.join('\n')}\n`, 'latin1')]);
  }
  const little = format === 'binary_little_endian';
  const vertexSize = 12 + (colors === undefined ? 0 : 3);
  const body = Buffer.alloc(n * vertexSize + faces * 13);
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 3; k++) view.setFloat32(i * vertexSize + k * 4, positions[i * 3 + k]!, little);
    if (colors !== undefined) for (let k = 0; k < 3; k++) view.setUint8(i * vertexSize + 12 + k, colors[i * 3 + k]!);
  }
  for (let f = 0; f < faces; f++) {
    const at = n * vertexSize + f * 13;
    view.setUint8(at, 3);
    for (let k = 0; k < 3; k++) view.setInt32(at + 1 + k * 4, triangles[f * 3 + k]!, little);
  }
  return Buffer.concat([head, body]);
}

/** XYZ or CSV text of points, with an intensity column; `header` adds a first line naming the columns. */
export function xyz(points: ArrayLike<number>, separator: ' ' | ',', header: boolean): string {
  const lines = header ? [['x', 'y', 'z', 'intensity'].join(separator)] : [];
  for (let i = 0; i < points.length / 3; i++) {
    lines.push([points[i * 3], points[i * 3 + 1], points[i * 3 + 2], i % 100].join(separator));
  }
  return `${lines.join('\n')}\n`;
}

/** A LAS file of points: version 1.2 with point format 1 (GPS time), or 1.4 with format 6; one VLR. */
export function las(
  points: ArrayLike<number>,
  version: '1.2' | '1.4',
  scale = 0.001,
  offset: [number, number, number] = [1000, 2000, 0],
): Buffer {
  const n = points.length / 3;
  const v14 = version === '1.4';
  const headerSize = v14 ? 375 : 227;
  const format = v14 ? 6 : 1;
  const recordLength = v14 ? 30 : 28;
  const vlr = Buffer.alloc(54 + 8);
  vlr.write('spatialhash-test', 2, 'latin1');
  vlr.writeUInt16LE(7, 18);
  vlr.writeUInt16LE(8, 20);
  vlr.write('a test VLR', 22, 'latin1');
  vlr.write('payload!', 54, 'latin1');
  const pointOffset = headerSize + vlr.length;
  const header = Buffer.alloc(headerSize);
  header.write('LASF', 0, 'latin1');
  header.writeUInt8(1, 24);
  header.writeUInt8(v14 ? 4 : 2, 25);
  header.write('spatialhash-cli tests', 26, 'latin1');
  header.writeUInt16LE(headerSize, 94);
  header.writeUInt32LE(pointOffset, 96);
  header.writeUInt32LE(1, 100);
  header.writeUInt8(format, 104);
  header.writeUInt16LE(recordLength, 105);
  header.writeUInt32LE(v14 ? 0 : n, 107);
  for (let axis = 0; axis < 3; axis++) {
    header.writeDoubleLE(scale, 131 + axis * 8);
    header.writeDoubleLE(offset[axis]!, 155 + axis * 8);
  }
  const records = Buffer.alloc(n * recordLength);
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    const at = i * recordLength;
    for (let axis = 0; axis < 3; axis++) {
      const stored = Math.round((points[i * 3 + axis]! - offset[axis]!) / scale);
      records.writeInt32LE(stored, at + axis * 4);
      const value = stored * scale + offset[axis]!;
      min[axis] = Math.min(min[axis]!, value);
      max[axis] = Math.max(max[axis]!, value);
    }
    records.writeUInt16LE(i % 1000, at + 12);
    // Return 1 of 1, or 2 of 2 for every third point.
    records.writeUInt8(i % 3 === 0 ? (v14 ? 0x22 : 0x12) : 0x11, at + 14);
    records.writeDoubleLE(i * 0.5, at + (v14 ? 22 : 20));
  }
  for (let axis = 0; axis < 3; axis++) {
    header.writeDoubleLE(max[axis]!, 179 + axis * 16);
    header.writeDoubleLE(min[axis]!, 187 + axis * 16);
  }
  if (v14) {
    header.writeBigUInt64LE(BigInt(n), 247);
  }
  return Buffer.concat([header, vlr, records]);
}

/** A GLB of an indexed mesh (POSITION and NORMAL from the face normals, so corners of different faces differ) or of a soup. */
export async function glb(positions: ArrayLike<number>, triangles: ArrayLike<number> | undefined): Promise<Uint8Array> {
  const document = new Document().setLogger(new Logger(Logger.Verbosity.SILENT));
  const buffer = document.createBuffer();
  const position = document.createAccessor('positions', buffer).setType('VEC3').setArray(Float32Array.from(positions));
  const primitive = document.createPrimitive().setAttribute('POSITION', position);
  if (triangles !== undefined) {
    const count = positions.length / 3;
    const indices = count <= 65535 ? Uint16Array.from(triangles) : Uint32Array.from(triangles);
    primitive.setIndices(document.createAccessor('indices', buffer).setType('SCALAR').setArray(indices));
  }
  primitive.setMaterial(document.createMaterial('clay').setBaseColorFactor([0.8, 0.7, 0.6, 1]));
  const mesh = document.createMesh('part').addPrimitive(primitive);
  document.createScene('scene').addChild(document.createNode('node').setMesh(mesh));
  return new NodeIO().writeBinary(document);
}

/**
 * A LAZ file of points that laz-perf decodes, made without a LAZ compressor:
 * every chunk holds one point, and LASzip stores a chunk's first point raw.
 * LAS 1.2 (point format 1, pointwise chunks): the raw point is followed by the
 * 4 bytes its arithmetic decoder starts from. LAS 1.4 (point format 6,
 * layered chunks): the raw point, the chunk's point count (1) and its 9
 * layers' sizes (all 0). The chunk table's offsets are zero bytes here:
 * laz-perf decodes them but reads the chunks in sequence, so the file tests
 * the decoding path (header, LASzip VLR, chunk table, one decompressor per
 * chunk) without holding compressed data. Readers that seek by the table
 * would not read it.
 */
export function laz(points: ArrayLike<number>, version: '1.2' | '1.4' = '1.2'): Buffer {
  const plain = las(points, version);
  const pointOffset = plain.readUInt32LE(96);
  const recordLength = plain.readUInt16LE(105);
  const n = points.length / 3;
  const layered = version === '1.4';
  const items = layered
    ? [[10, 30, 3]]
    : [
        [6, 20, 2],
        [7, 8, 2],
      ];
  const payload = Buffer.alloc(34 + items.length * 6);
  payload.writeUInt16LE(layered ? 3 : 2, 0); // layered or pointwise chunked compressor
  payload.writeUInt16LE(0, 2); // arithmetic coder
  payload.writeUInt8(layered ? 3 : 2, 4);
  payload.writeUInt8(layered ? 4 : 2, 5);
  payload.writeUInt32LE(1, 12); // one point per chunk
  payload.writeBigInt64LE(-1n, 16);
  payload.writeBigInt64LE(-1n, 24);
  payload.writeUInt16LE(items.length, 32);
  for (const [k, [type, size, itemVersion]] of items.entries()) {
    payload.writeUInt16LE(type!, 34 + k * 6);
    payload.writeUInt16LE(size!, 36 + k * 6);
    payload.writeUInt16LE(itemVersion!, 38 + k * 6);
  }
  const vlr = Buffer.alloc(54);
  vlr.write('laszip encoded', 2, 'latin1');
  vlr.writeUInt16LE(22204, 18);
  vlr.writeUInt16LE(payload.length, 20);
  const header = Buffer.from(plain.subarray(0, pointOffset));
  const newOffset = pointOffset + vlr.length + payload.length;
  header.writeUInt32LE(newOffset, 96);
  header.writeUInt32LE(header.readUInt32LE(100) + 1, 100);
  header.writeUInt8(0x80 | header.readUInt8(104), 104);
  const chunkBytes = recordLength + (layered ? 4 + 9 * 4 : 4);
  const chunks = Buffer.alloc(n * chunkBytes);
  for (let i = 0; i < n; i++) {
    plain.copy(chunks, i * chunkBytes, pointOffset + i * recordLength, pointOffset + (i + 1) * recordLength);
    if (layered) chunks.writeUInt32LE(1, i * chunkBytes + recordLength);
  }
  const tableOffset = Buffer.alloc(8);
  tableOffset.writeBigInt64LE(BigInt(newOffset + 8 + chunks.length));
  const table = Buffer.alloc(8 + n * 8 + 64);
  table.writeUInt32LE(0, 0);
  table.writeUInt32LE(n, 4);
  return Buffer.concat([header, vlr, payload, tableOffset, chunks, table]);
}
