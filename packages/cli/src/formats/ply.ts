/**
 * PLY, ASCII and binary (either byte order), for `weld` (vertices and faces)
 * and `dedupe` (vertices only). Two passes over the data: the first reads the
 * vertex positions, the vertex properties compared while welding and the face
 * corners; the second writes the header with the new counts, the
 * representatives' vertex records (binary ones copied byte for byte), the
 * faces with their corners renumbered (other face properties kept; a face
 * loses corners that land on the corner before it, and is dropped, and
 * counted, when fewer than 3 distinct are left), `edge`-like elements with
 * `vertex1` / `vertex2` renumbered, and every other element as it was.
 *
 * Vertex properties other than x, y and z must be equal for two vertices to
 * weld, grouped as a glTF attribute would be: `normal` (nx ny nz), `color`
 * (red green blue [alpha]), `uv` (u v, s t or texture_u texture_v), each
 * other property by its own name; `--attribute-tolerance normal=0.01` or
 * `--ignore color` change that, in the stored units.
 *
 * @module
 */

import { weld } from 'spatialhash';
import { InputError } from '../errors.js';
import { type AtomicOutput, ChunkReader, writeAtomically } from '../files.js';
import type { Progress } from '../progress.js';
import type { Counts, DedupeJob, WeldJob } from '../summary.js';
import { type VertexAttribute, weldVertices } from '../weld-vertices.js';
import { ByteCursor, TokenCursor } from './cursor.js';
import {
  asciiRecord,
  binarySize,
  type Element,
  getScalar,
  type Header,
  headerText,
  type PlyRecord,
  readAsciiRecord,
  readBinaryRecord,
  readHeader,
  SIZE,
  setScalar,
  writeBinaryRecord,
} from './ply-header.js';

const GROUPS: [string, string[][]][] = [
  ['normal', [['nx', 'ny', 'nz']]],
  [
    'color',
    [
      ['red', 'green', 'blue', 'alpha'],
      ['red', 'green', 'blue'],
      ['r', 'g', 'b', 'a'],
      ['r', 'g', 'b'],
      ['diffuse_red', 'diffuse_green', 'diffuse_blue'],
    ],
  ],
  [
    'uv',
    [
      ['u', 'v'],
      ['s', 't'],
      ['texture_u', 'texture_v'],
    ],
  ],
];

/** A vertex attribute: its name for the options and the vertex properties (by index) it holds. */
interface Group {
  name: string;
  properties: number[];
}

/** Groups the vertex properties other than x, y, z (see the module notes). */
function groupsOf(vertex: Element): Group[] {
  const index = new Map(vertex.properties.map((p, k) => [p.name, k]));
  const taken = new Set(['x', 'y', 'z']);
  const groups: Group[] = [];
  for (const [name, choices] of GROUPS) {
    const names = choices.find((c) => c.every((n) => index.has(n) && !taken.has(n)));
    if (names === undefined) continue;
    for (const n of names) taken.add(n);
    groups.push({ name, properties: names.map((n) => index.get(n)!) });
  }
  for (const [k, p] of vertex.properties.entries()) {
    if (!taken.has(p.name)) groups.push({ name: p.name, properties: [k] });
  }
  return groups;
}

/** Everything pass 1 gathers. */
interface Pass1 {
  header: Header;
  vertex: Element;
  xyz: [number, number, number];
  positions: Float64Array;
  /** Per group, its values (float64, `properties.length` per vertex). */
  values: Float64Array[];
  groups: Group[];
  /** Face corners, flattened, and each face's corner count. */
  corners: Uint32Array;
  sizes: Uint32Array;
}

function faceList(element: Element): number {
  return element.properties.findIndex(
    (p) => p.countType !== undefined && (p.name === 'vertex_indices' || p.name === 'vertex_index'),
  );
}

/** Walks every record of every element; binary vertex records of fixed size go through `fixed` without a record array. */
function walk(
  reader: ChunkReader,
  header: Header,
  progress: Progress,
  phase: string,
  visit: (element: Element, index: number, record: PlyRecord) => void,
  fixed?: (element: Element, index: number, view: DataView, at: number) => boolean,
): void {
  const file = reader.file;
  const little = header.format === 'binary_little_endian';
  if (header.format === 'ascii') {
    const tokens = new TokenCursor(reader, header.dataStart, header.dataLine);
    for (const element of header.elements) {
      for (let i = 0; i < element.count; i++) {
        visit(element, i, readAsciiRecord(tokens, element, i, file));
        if ((i & 0xffff) === 0) progress.update(phase, tokens.position, reader.size);
      }
    }
    const extra = tokens.token();
    if (extra !== undefined) {
      throw new InputError(file, `line ${tokens.line}`, `data after the last element: ${JSON.stringify(extra)}`);
    }
    return;
  }
  const cursor = new ByteCursor(reader, header.dataStart);
  for (const element of header.elements) {
    const size = element.recordSize;
    for (let i = 0; i < element.count; i++) {
      if (size !== undefined && fixed !== undefined) {
        cursor.ensure(size, () => `${element.name} ${i}`);
        if (fixed(element, i, cursor.view, cursor.pos)) {
          cursor.pos += size;
          continue;
        }
      }
      visit(element, i, readBinaryRecord(cursor, element, i, little));
      if ((i & 0xffff) === 0) progress.update(phase, cursor.offset, reader.size);
    }
  }
  if (cursor.offset !== reader.size) {
    throw new InputError(
      file,
      `offset ${cursor.offset}`,
      `${reader.size - cursor.offset} bytes after the last element`,
    );
  }
}

function readPly(reader: ChunkReader, progress: Progress, needFaces: boolean): Pass1 {
  const file = reader.file;
  const header = readHeader(reader);
  const vertex = header.elements.find((e) => e.name === 'vertex');
  if (vertex === undefined) throw new InputError(file, '', 'no "vertex" element in the header');
  const xyz = ['x', 'y', 'z'].map((name) => {
    const k = vertex.properties.findIndex((p) => p.name === name && p.countType === undefined);
    if (k < 0)
      throw new InputError(
        file,
        `line ${vertex.headerLine + 1}`,
        `the vertex element has no scalar "${name}" property`,
      );
    return k;
  }) as [number, number, number];
  const groups = groupsOf(vertex).filter((g) =>
    g.properties.every((k) => vertex.properties[k]!.countType === undefined),
  );
  const n = vertex.count;
  const positions = new Float64Array(n * 3);
  const values = groups.map((g) => new Float64Array(n * g.properties.length));
  const corners: number[] = [];
  const sizes: number[] = [];
  const face = header.elements.find((e) => e.name === 'face');
  if (face !== undefined && face.count > 0 && !needFaces) {
    throw new InputError(
      file,
      `line ${face.headerLine + 1}`,
      `${face.count} faces: dedupe takes point clouds; use "spatialhash weld" for meshes`,
    );
  }
  const list = face === undefined ? -1 : faceList(face);
  if (face !== undefined && face.count > 0 && list < 0) {
    throw new InputError(file, `line ${face.headerLine + 1}`, 'the face element has no "vertex_indices" list');
  }
  const little = header.format === 'binary_little_endian';
  const offsets = vertex.properties.map((_, k) =>
    vertex.properties.slice(0, k).reduce((sum, p) => sum + SIZE[p.type], 0),
  );
  const vertexValue = (i: number, k: number, value: number) => {
    if (value - value !== 0) {
      throw new InputError(file, `vertex ${i}`, `property ${vertex.properties[k]!.name} is not finite (${value})`);
    }
  };
  const storeVertex = (i: number, get: (k: number) => number) => {
    for (let axis = 0; axis < 3; axis++) {
      const value = get(xyz[axis]);
      vertexValue(i, xyz[axis], value);
      positions[i * 3 + axis] = value;
    }
    for (const [g, group] of groups.entries()) {
      const width = group.properties.length;
      for (let c = 0; c < width; c++) values[g]![i * width + c] = get(group.properties[c]!);
    }
  };
  let furthest = -1;
  let furthestFace = 0;
  walk(
    reader,
    header,
    progress,
    'reading',
    (element, i, record) => {
      if (element === vertex) storeVertex(i, (k) => record[k] as number);
      else if (element === face && list >= 0) {
        const items = record[list] as number[];
        sizes.push(items.length);
        for (const v of items) {
          corners.push(v);
          if (v > furthest) {
            furthest = v;
            furthestFace = i;
          }
        }
      }
    },
    (element, i, view, at) => {
      if (element !== vertex) return false;
      storeVertex(i, (k) => getScalar(view, at + offsets[k]!, vertex.properties[k]!.type, little));
      return true;
    },
  );
  if (furthest >= n) {
    throw new InputError(file, `face ${furthestFace}`, `corner ${furthest} is not a vertex (the file has ${n})`);
  }
  return {
    header,
    vertex,
    xyz,
    positions,
    values,
    groups,
    corners: Uint32Array.from(corners),
    sizes: Uint32Array.from(sizes),
  };
}

/** The places (in the face's list) of the corners kept after welding: those equal to the one before them (cyclically) go. */
function keptCorners(items: ArrayLike<number>, remap: Uint32Array): number[] {
  const places: number[] = [];
  for (let k = 0; k < items.length; k++) {
    const v = remap[items[k]!]!;
    if (places.length === 0 || remap[items[places[places.length - 1]!]!] !== v) places.push(k);
  }
  while (places.length > 1 && remap[items[places[places.length - 1]!]!] === remap[items[places[0]!]!]) places.pop();
  return places;
}

/** A face's welded corners. */
function weldedFace(items: ArrayLike<number>, remap: Uint32Array): number[] {
  return keptCorners(items, remap).map((k) => remap[items[k]!]!);
}

/** Whether a welded face still draws something: 3 distinct corners. */
function faceKept(welded: number[]): boolean {
  return welded.length >= 3 && new Set(welded).size >= 3;
}

/**
 * Pass 2: the header with `counts`, then every element: vertices through
 * `keepVertex` (and `moveVertex` for new coordinates), faces through the
 * remap, edge-like records renumbered.
 */
function writePly(
  out: AtomicOutput,
  reader: ChunkReader,
  pass: Pass1,
  counts: Map<string, number>,
  remap: Uint32Array,
  isRepresentative: (i: number) => boolean,
  moved: Float64Array | undefined,
  progress: Progress,
): void {
  const { header, vertex, xyz } = pass;
  out.text(headerText(header, counts));
  const little = header.format === 'binary_little_endian';
  const ascii = header.format === 'ascii';
  const face = header.elements.find((e) => e.name === 'face');
  const list = face === undefined ? -1 : faceList(face);
  const renumbered = (element: Element) =>
    ['vertex1', 'vertex2'].map((name) =>
      element.properties.findIndex((p) => p.name === name && p.countType === undefined),
    );
  const emit = (element: Element, record: PlyRecord) => {
    if (ascii) {
      out.text(asciiRecord(record));
      return;
    }
    const size = binarySize(element, record);
    const slice = out.reserve(size);
    writeBinaryRecord(new DataView(slice.buffer, slice.byteOffset, slice.byteLength), 0, element, record, little);
    out.advance(size);
  };
  const offsets = vertex.properties.map((_, k) =>
    vertex.properties.slice(0, k).reduce((sum, p) => sum + SIZE[p.type], 0),
  );
  let welded = 0;
  walk(
    reader,
    header,
    progress,
    'writing',
    (element, i, record) => {
      if (element === vertex) {
        if (!isRepresentative(i)) return;
        if (moved !== undefined) for (let axis = 0; axis < 3; axis++) record[xyz[axis]] = moved[welded * 3 + axis]!;
        welded++;
        emit(element, record);
      } else if (element === face && list >= 0) {
        const items = record[list] as number[];
        const places = keptCorners(items, remap);
        const corners = places.map((k) => remap[items[k]!]!);
        if (!faceKept(corners)) return;
        if (places.length < items.length) {
          // Per-corner lists (texcoord: 2 numbers a corner) lose the same corners.
          for (const [k, value] of record.entries()) {
            if (k === list || !Array.isArray(value) || value.length % items.length !== 0) continue;
            const per = value.length / items.length;
            record[k] = places.flatMap((c) => value.slice(c * per, (c + 1) * per));
          }
        }
        record[list] = corners;
        emit(element, record);
      } else {
        for (const k of renumbered(element))
          if (k >= 0) record[k] = remap[record[k] as number] ?? (record[k] as number);
        emit(element, record);
      }
    },
    (element, i, view, at) => {
      if (element !== vertex) return false;
      if (!isRepresentative(i)) return true;
      const size = element.recordSize!;
      const slice = out.reserve(size);
      slice.set(new Uint8Array(view.buffer, view.byteOffset + at, size));
      if (moved !== undefined) {
        const target = new DataView(slice.buffer, slice.byteOffset, size);
        for (let axis = 0; axis < 3; axis++) {
          const k = xyz[axis];
          setScalar(target, offsets[k]!, vertex.properties[k]!.type, moved[welded * 3 + axis]!, little);
        }
      }
      welded++;
      out.advance(size);
      return true;
    },
  );
}

/** Welds a PLY mesh into `output` (same encoding). */
export function weldPly({ input, output, tolerance, tolerances, ignore, progress }: WeldJob): Counts {
  const reader = new ChunkReader(input);
  try {
    const pass = readPly(reader, progress, true);
    const attributes: VertexAttribute[] = [];
    for (const [g, group] of pass.groups.entries()) {
      if (ignore.has(group.name)) continue;
      const width = group.properties.length;
      // weldByDistance compares up to 4 values per attribute: wider groups do not occur (see GROUPS).
      attributes.push({
        size: width as 1 | 2 | 3 | 4,
        values: pass.values[g]!,
        tolerance: tolerances.get(group.name) ?? 0,
      });
    }
    progress.step('welding');
    const { remap, representatives, count } = weldVertices(pass.positions, tolerance, attributes);
    let kept = 0;
    for (let f = 0, at = 0; f < pass.sizes.length; at += pass.sizes[f]!, f++) {
      if (faceKept(weldedFace(pass.corners.subarray(at, at + pass.sizes[f]!), remap))) kept++;
    }
    const counts = new Map([
      ['vertex', count],
      ['face', kept],
    ]);
    writeAtomically(output, (out) =>
      writePly(out, reader, pass, counts, remap, (i) => representatives[remap[i]!] === i, undefined, progress),
    );
    const n = pass.vertex.count;
    return { format: formatName(pass.header), in: n, out: count, merged: n - count, dropped: pass.sizes.length - kept };
  } finally {
    reader.close();
  }
}

/** Dedupes a PLY point cloud into `output`: each representative keeps its record (moved to the mean with `mean`). */
export function dedupePly({ input, output, radius, mean, progress }: DedupeJob): Counts {
  const reader = new ChunkReader(input);
  try {
    const pass = readPly(reader, progress, false);
    progress.step('merging');
    const { remap, representatives, count } = weld(pass.positions, radius);
    const moved = mean ? clusterMeans(pass.positions, remap, count) : undefined;
    writeAtomically(output, (out) =>
      writePly(
        out,
        reader,
        pass,
        new Map([['vertex', count]]),
        remap,
        (i) => representatives[remap[i]!] === i,
        moved,
        progress,
      ),
    );
    const n = pass.vertex.count;
    return { format: formatName(pass.header), in: n, out: count, merged: n - count, dropped: 0 };
  } finally {
    reader.close();
  }
}

/** Each cluster's mean position (xyz per welded point), summed in float64. */
export function clusterMeans(positions: ArrayLike<number>, remap: Uint32Array, count: number): Float64Array {
  const sums = new Float64Array(count * 3);
  const members = new Uint32Array(count);
  for (let i = 0; i < remap.length; i++) {
    const r = remap[i]!;
    sums[r * 3] += positions[i * 3]!;
    sums[r * 3 + 1] += positions[i * 3 + 1]!;
    sums[r * 3 + 2] += positions[i * 3 + 2]!;
    members[r]++;
  }
  for (let r = 0; r < count; r++) {
    sums[r * 3] /= members[r]!;
    sums[r * 3 + 1] /= members[r]!;
    sums[r * 3 + 2] /= members[r]!;
  }
  return sums;
}

function formatName(header: Header): string {
  return header.format === 'ascii'
    ? 'ASCII PLY'
    : header.format === 'binary_little_endian'
      ? 'binary PLY'
      : 'binary big-endian PLY';
}
