/**
 * PLY, ASCII and binary (either byte order), for `weld` (vertices and faces)
 * and `dedupe` (vertices only). Two passes over the data: the first reads the
 * vertex positions, the vertex properties compared while welding and the face
 * corners, and checks every index; the second writes the header with the new
 * counts, the representatives' vertex records (binary ones copied byte for
 * byte, ASCII ones line for line), the faces with their corners renumbered
 * (other face properties kept; a face loses corners that land on the corner
 * before it, and is dropped, and counted, when fewer than 3 distinct are
 * left), `edge`-like elements with `vertex1` / `vertex2` renumbered, and every
 * other element as it was.
 *
 * Vertex properties other than x, y and z must be equal for two vertices to
 * weld, grouped as a glTF attribute would be: `normal` (nx ny nz), `color`
 * (red green blue [alpha]), `uv` (u v, s t or texture_u texture_v), each
 * other property by its own name; `--attribute-tolerance normal=0.01` or
 * `--ignore color` change that, in the stored units.
 *
 * Indices are checked, never trusted: a face or edge index must be an integer
 * naming a vertex (lists of float or double indices are read when every item
 * is a whole number), and the header's counts must fit the file's size
 * before anything is allocated for them (ply-header.ts).
 *
 * @module
 */

import { weld } from 'spatialhash';
import { InputError } from '../errors.js';
import { type AtomicOutput, ChunkReader, writeAtomically } from '../files.js';
import { Uint32List } from '../growable.js';
import type { Progress } from '../progress.js';
import type { Counts, DedupeJob, WeldJob } from '../summary.js';
import { checkAttributeNames, type VertexAttribute, weldVertices } from '../weld-vertices.js';
import { ByteCursor } from './cursor.js';
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
  recordName,
  SIZE,
  setScalar,
  writeBinaryRecord,
} from './ply-header.js';
import { TextScanner } from './scanner.js';

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

/** What an element is to the weld. */
type Role = 'vertex' | 'face' | 'edge' | 'other';

/** An element with what the passes need to know of it. */
interface Plan {
  element: Element;
  role: Role;
  /** Face: the index of its vertex_indices list. Edge: the indices of vertex1 and vertex2 (-1 when absent). */
  list: number;
  ends: number[];
  /** Byte offset of each scalar property in a fixed-size record (binary). */
  offsets: number[];
  /** Face whose only property is its index list (the fast path). */
  simple: boolean;
}

function planOf(element: Element, vertex: Element): Plan {
  let offset = 0;
  const offsets = element.properties.map((p) => {
    const at = offset;
    offset += SIZE[p.countType ?? p.type];
    return at;
  });
  const base = { element, list: -1, ends: [] as number[], offsets, simple: false };
  if (element === vertex) return { ...base, role: 'vertex' };
  if (element.name === 'face') {
    const list = element.properties.findIndex(
      (p) => p.countType !== undefined && (p.name === 'vertex_indices' || p.name === 'vertex_index'),
    );
    if (list >= 0) return { ...base, role: 'face', list, simple: element.properties.length === 1 };
  }
  const ends = ['vertex1', 'vertex2'].map((name) =>
    element.properties.findIndex((p) => p.name === name && p.countType === undefined),
  );
  if (ends.some((k) => k >= 0)) return { ...base, role: 'edge', ends };
  return { ...base, role: 'other' };
}

/** Everything pass 1 gathers. */
interface Pass1 {
  header: Header;
  vertex: Element;
  plans: Plan[];
  xyz: [number, number, number];
  positions: Float64Array;
  /** Per group, its values (float64, `properties.length` per vertex). */
  values: Float64Array[];
  groups: Group[];
  /** Face corners, flattened, and each face's corner count. */
  corners: Uint32Array;
  sizes: Uint32Array;
}

/** Where a record is, for errors: the line (ASCII) or the byte offset where it starts (binary). */
type Where = () => string;

/** The error for an index that names no vertex. */
function notAVertex(file: string, where: string, what: string, value: number, n: number): InputError {
  return new InputError(
    file,
    where,
    `${what}: ${value} is not a vertex index (the file has ${n.toLocaleString('en-US')} vertices: 0 to ${n - 1})`,
  );
}

/** Checks that `value` names one of the `n` vertices. */
function checkIndex(value: number, n: number, file: string, where: Where, what: () => string): void {
  if (!(Number.isInteger(value) && value >= 0 && value < n)) throw notAVertex(file, where(), what(), value, n);
}

/**
 * The places (in the face's list) of the corners kept after welding: those
 * equal to the one before them (cyclically) go. Writes them to `places` and
 * returns how many; 0 when fewer than 3 distinct corners are left (the face
 * collapsed).
 */
function keptCorners(items: ArrayLike<number>, length: number, remap: Uint32Array, places: Uint32Array): number {
  let kept = 0;
  for (let k = 0; k < length; k++) {
    const v = remap[items[k]!]!;
    if (kept === 0 || remap[items[places[kept - 1]!]!] !== v) places[kept++] = k;
  }
  while (kept > 1 && remap[items[places[kept - 1]!]!] === remap[items[places[0]!]!]) kept--;
  if (kept < 3) return 0;
  if (kept > 3) {
    // Cyclic runs are gone; a polygon that doubles back (a b a c) may still have fewer than 3 distinct corners.
    let distinct = 0;
    for (let k = 0; k < kept && distinct < 3; k++) {
      const v = remap[items[places[k]!]!];
      let seen = false;
      for (let j = 0; j < k && !seen; j++) seen = remap[items[places[j]!]!] === v;
      if (!seen) distinct++;
    }
    if (distinct < 3) return 0;
  }
  return kept;
}

/** Scratch room for one face's corners, grown for long polygons. */
class FaceScratch {
  items = new Float64Array(16);
  places = new Uint32Array(16);

  reserve(length: number): void {
    if (length <= this.items.length) return;
    this.items = new Float64Array(length);
    this.places = new Uint32Array(length);
  }
}

/** Visits every record of a binary PLY, element by element (see readBinary and writeBinary). */
interface BinaryVisitor {
  /** Called for a record whose `size` bytes are at `cursor.pos`; must not move the cursor. */
  record(plan: Plan, index: number, cursor: ByteCursor, size: number): void;
}

/** The byte length of record `index` at the cursor, with every byte of it made available. */
function measure(cursor: ByteCursor, plan: Plan, index: number, little: boolean): number {
  const { element } = plan;
  if (element.recordSize !== undefined) {
    cursor.ensure(element.recordSize, () => `${element.name} ${index}`);
    return element.recordSize;
  }
  let size = 0;
  let what = () => `${element.name} ${index}`;
  for (const property of element.properties) {
    if (property.countType === undefined) {
      size += SIZE[property.type];
      continue;
    }
    what = () => recordName(element, index, property);
    cursor.ensure(size + SIZE[property.countType], what);
    const length = getScalar(cursor.view, cursor.pos + size, property.countType, little);
    if (length < 0) {
      throw new InputError(cursor.file, `offset ${cursor.offset + size}`, `${what()}: a list of ${length} items`);
    }
    size += SIZE[property.countType] + length * SIZE[property.type];
  }
  cursor.ensure(size, what);
  return size;
}

/** Walks the records of a binary PLY, then checks that nothing follows the last one. */
function walkBinary(
  reader: ChunkReader,
  pass: { header: Header; plans: Plan[] },
  progress: Progress,
  phase: string,
  visitor: BinaryVisitor,
): void {
  const little = pass.header.format === 'binary_little_endian';
  const cursor = new ByteCursor(reader, pass.header.dataStart);
  for (const plan of pass.plans) {
    for (let i = 0; i < plan.element.count; i++) {
      const size = measure(cursor, plan, i, little);
      visitor.record(plan, i, cursor, size);
      cursor.pos += size;
      if ((i & 0xffff) === 0) progress.update(phase, cursor.offset, reader.size);
    }
  }
  if (cursor.offset !== reader.size) {
    throw new InputError(
      reader.file,
      `offset ${cursor.offset}`,
      `${reader.size - cursor.offset} bytes after the last element`,
    );
  }
}

/** Pass 1 (see the module notes). */
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
  const plans = header.elements.map((e) => planOf(e, vertex));
  const groups = groupsOf(vertex).filter((g) =>
    g.properties.every((k) => vertex.properties[k]!.countType === undefined),
  );
  const face = header.elements.find((e) => e.name === 'face');
  if (face !== undefined && face.count > 0 && !needFaces) {
    throw new InputError(
      file,
      `line ${face.headerLine + 1}`,
      `${face.count} faces: dedupe takes point clouds; use "spatialhash weld" for meshes`,
    );
  }
  if (face !== undefined && face.count > 0 && plans.find((p) => p.element === face)!.role !== 'face') {
    throw new InputError(file, `line ${face.headerLine + 1}`, 'the face element has no "vertex_indices" list');
  }
  const n = vertex.count;
  // The counts were checked against the file's size (readHeader): these are bounded by it.
  const positions = new Float64Array(n * 3);
  const values = groups.map((g) => new Float64Array(n * g.properties.length));
  const corners = new Uint32List();
  const sizes = new Uint32List();
  const storeVertex = (i: number, where: Where, get: (k: number) => number) => {
    for (let axis = 0; axis < 3; axis++) {
      const value = get(xyz[axis]);
      if (value - value !== 0) {
        throw new InputError(file, where(), `vertex ${i}: property ${'xyz'[axis]} is not finite (${value})`);
      }
      positions[i * 3 + axis] = value;
    }
    for (const [g, group] of groups.entries()) {
      const width = group.properties.length;
      for (let c = 0; c < width; c++) values[g]![i * width + c] = get(group.properties[c]!);
    }
  };
  const pass = { header, plans };
  if (header.format === 'ascii') {
    const scanner = new TextScanner(reader, header.dataStart, header.dataLine);
    const where = () => `line ${scanner.line}`;
    for (const plan of plans) {
      const { element } = plan;
      for (let i = 0; i < element.count; i++) {
        const record = readAsciiRecord(scanner, element, i, file);
        visitRecord(plan, i, record, where);
        if ((i & 0xffff) === 0) progress.update('reading', scanner.position, reader.size);
      }
    }
    if (scanner.moreTokens()) {
      scanner.skipToken();
      throw new InputError(file, where(), `data after the last element: ${JSON.stringify(scanner.token.slice(0, 40))}`);
    }
  } else {
    const little = header.format === 'binary_little_endian';
    walkBinary(reader, pass, progress, 'reading', {
      record(plan, i, cursor, size) {
        const where = () => `offset ${cursor.offset}`;
        const { element } = plan;
        const view = cursor.view;
        const at = cursor.pos;
        if (plan.role === 'vertex' && element.recordSize !== undefined) {
          storeVertex(i, where, (k) => getScalar(view, at + plan.offsets[k]!, element.properties[k]!.type, little));
        } else if (plan.simple) {
          const property = element.properties[0]!;
          const length = getScalar(view, at, property.countType!, little);
          const item = SIZE[property.type];
          sizes.push(length);
          for (let k = 0; k < length; k++) {
            const v = getScalar(view, at + SIZE[property.countType!] + k * item, property.type, little);
            checkIndex(v, n, file, where, () => `${recordName(element, i, property)} item ${k}`);
            corners.push(v);
          }
        } else if (plan.role !== 'other' || size > 0) {
          visitRecord(plan, i, readBinaryRecordAt(cursor, plan, i, little), where);
        }
      },
    });
  }
  return { header, vertex, plans, xyz, positions, values, groups, corners: corners.values(), sizes: sizes.values() };

  function visitRecord(plan: Plan, i: number, record: PlyRecord, where: Where): void {
    const { element } = plan;
    if (plan.role === 'vertex') storeVertex(i, where, (k) => record[k] as number);
    else if (plan.role === 'face') {
      const items = record[plan.list] as number[];
      const property = element.properties[plan.list]!;
      sizes.push(items.length);
      for (const [k, v] of items.entries()) {
        checkIndex(v, n, file, where, () => `${recordName(element, i, property)} item ${k}`);
        corners.push(v);
      }
    } else if (plan.role === 'edge') {
      for (const k of plan.ends) {
        if (k >= 0)
          checkIndex(record[k] as number, n, file, where, () => recordName(element, i, element.properties[k]!));
      }
    }
  }
}

/** Decodes the record at the cursor (already measured) without moving it. */
function readBinaryRecordAt(cursor: ByteCursor, plan: Plan, index: number, little: boolean): PlyRecord {
  const start = cursor.pos;
  const record = readBinaryRecord(cursor, plan.element, index, little);
  cursor.pos = start;
  return record;
}

/** What pass 2 writes, beyond the file it reads again. */
interface Output {
  counts: Map<string, number>;
  remap: Uint32Array;
  isRepresentative: (i: number) => boolean;
  /** New coordinates of the representatives, in welded order (dedupe --mean). */
  moved: Float64Array | undefined;
}

/**
 * Pass 2: the header with the new counts, then every element: vertices
 * through `isRepresentative` (and `moved` for new coordinates), faces
 * through the remap, edge-like records renumbered, the rest as it was.
 */
function writePly(out: AtomicOutput, reader: ChunkReader, pass: Pass1, plan: Output, progress: Progress): void {
  const { header } = pass;
  out.text(headerText(header, plan.counts));
  if (header.format === 'ascii') writeAscii(out, reader, pass, plan, progress);
  else writeBinary(out, reader, pass, plan, progress);
}

function writeBinary(out: AtomicOutput, reader: ChunkReader, pass: Pass1, plan: Output, progress: Progress): void {
  const { remap, isRepresentative, moved } = plan;
  const little = pass.header.format === 'binary_little_endian';
  const scratch = new FaceScratch();
  let welded = 0;
  walkBinary(reader, pass, progress, 'writing', {
    record(p, i, cursor, size) {
      const { element } = p;
      const source = cursor.buffer.subarray(cursor.pos, cursor.pos + size);
      if (p.role === 'vertex') {
        if (!isRepresentative(i)) return;
        const slice = out.reserve(size);
        slice.set(source);
        if (moved !== undefined) {
          const target = new DataView(slice.buffer, slice.byteOffset, size);
          for (let axis = 0; axis < 3; axis++) {
            const k = pass.xyz[axis];
            setScalar(target, p.offsets[k]!, element.properties[k]!.type, moved[welded * 3 + axis]!, little);
          }
        }
        welded++;
        out.advance(size);
        return;
      }
      if (p.role === 'other') {
        out.bytes(source);
        return;
      }
      if (p.simple) {
        const property = element.properties[0]!;
        const countSize = SIZE[property.countType!];
        const item = SIZE[property.type];
        const view = cursor.view;
        const length = getScalar(view, cursor.pos, property.countType!, little);
        scratch.reserve(length);
        const items = scratch.items;
        for (let k = 0; k < length; k++)
          items[k] = getScalar(view, cursor.pos + countSize + k * item, property.type, little);
        const kept = keptCorners(items, length, remap, scratch.places);
        if (kept === 0) return;
        const bytes = countSize + kept * item;
        const slice = out.reserve(bytes);
        const target = new DataView(slice.buffer, slice.byteOffset, bytes);
        setScalar(target, 0, property.countType!, kept, little);
        for (let k = 0; k < kept; k++)
          setScalar(target, countSize + k * item, property.type, remap[items[scratch.places[k]!]!]!, little);
        out.advance(bytes);
        return;
      }
      const record = readBinaryRecordAt(cursor, p, i, little);
      if (!renumber(p, record, remap, scratch)) return;
      const bytes = binarySize(element, record);
      const slice = out.reserve(bytes);
      writeBinaryRecord(new DataView(slice.buffer, slice.byteOffset, bytes), 0, element, record, little);
      out.advance(bytes);
    },
  });
}

/**
 * Renumbers a face or edge record in place through `remap`; false when the
 * face collapsed. A face's per-corner lists (texcoord: 2 numbers a corner)
 * lose the corners its index list loses.
 */
function renumber(plan: Plan, record: PlyRecord, remap: Uint32Array, scratch: FaceScratch): boolean {
  if (plan.role === 'edge') {
    for (const k of plan.ends) if (k >= 0) record[k] = remap[record[k] as number]!;
    return true;
  }
  const items = record[plan.list] as number[];
  scratch.reserve(items.length);
  const kept = keptCorners(items, items.length, remap, scratch.places);
  if (kept === 0) return false;
  const places = Array.from(scratch.places.subarray(0, kept));
  if (kept < items.length) {
    for (const [k, value] of record.entries()) {
      if (k === plan.list || !Array.isArray(value) || value.length % items.length !== 0) continue;
      const per = value.length / items.length;
      record[k] = places.flatMap((c) => value.slice(c * per, (c + 1) * per));
    }
  }
  record[plan.list] = places.map((k) => remap[items[k]!]!);
  return true;
}

function writeAscii(out: AtomicOutput, reader: ChunkReader, pass: Pass1, plan: Output, progress: Progress): void {
  const { remap, isRepresentative, moved } = plan;
  const file = reader.file;
  const scanner = new TextScanner(reader, pass.header.dataStart, pass.header.dataLine);
  const scratch = new FaceScratch();
  let welded = 0;
  for (const p of pass.plans) {
    const { element } = p;
    const scalars = element.recordSize !== undefined;
    for (let i = 0; i < element.count; i++) {
      if ((i & 0xffff) === 0) progress.update('writing', scanner.position, reader.size);
      scanner.moreTokens();
      const line = scanner.line;
      const ownLine = scanner.pos === scanner.lineStart || onlyBlanksBefore(scanner);
      // Records copied as they are (kept vertices, other elements) need no numbers: their tokens are skipped.
      const copied = (p.role === 'vertex' && moved === undefined) || p.role === 'other';
      if (copied && scalars) {
        const keep = p.role === 'other' || isRepresentative(i);
        const text = skipRecord(scanner, element.properties.length, ownLine);
        if (keep) {
          if (text === undefined) out.bytes(scanner.lineBytes());
          else out.text(text);
          out.text('\n');
          if (p.role === 'vertex') welded++;
        }
        continue;
      }
      const record = readAsciiRecord(scanner, element, i, file);
      const whole = ownLine && scanner.line === line && scanner.atLineEnd();
      if (p.role === 'vertex') {
        if (!isRepresentative(i)) continue;
        if (moved !== undefined)
          for (let axis = 0; axis < 3; axis++) record[pass.xyz[axis]] = moved[welded * 3 + axis]!;
        welded++;
      } else if (p.role === 'other') {
        if (whole) {
          out.bytes(scanner.lineBytes());
          out.text('\n');
          continue;
        }
      } else if (!renumber(p, record, remap, scratch)) continue;
      out.text(asciiRecord(record));
    }
  }
}

/** Whether only blanks precede the scanner's position on its line (a record starts the line). */
function onlyBlanksBefore(scanner: TextScanner): boolean {
  for (let p = scanner.lineStart; p < scanner.pos; p++) {
    const c = scanner.buffer[p]!;
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/**
 * Skips the `tokens` tokens of a record (checked in pass 1) and returns its
 * text, or undefined when the record is its line, whole (then the caller
 * copies the line's bytes): a record sharing its line keeps its own spacing,
 * one spanning lines comes out on one.
 */
function skipRecord(scanner: TextScanner, tokens: number, ownLine: boolean): string | undefined {
  const start = scanner.pos;
  let parts: string[] | undefined;
  for (let k = 0; k < tokens; k++) {
    if (scanner.atLineEnd()) {
      // The record goes on to the next line: keep what this one held before it goes.
      parts ??= [scanner.buffer.toString('latin1', start, scanner.pos)];
      scanner.moreTokens();
    }
    scanner.skipToken();
    if (parts !== undefined) parts.push(scanner.token);
  }
  if (parts !== undefined) return parts.join(' ');
  const end = scanner.pos;
  if (ownLine && scanner.atLineEnd()) return undefined;
  return scanner.buffer.toString('latin1', start, end);
}

/** Welds a PLY mesh into `output` (same encoding). */
export function weldPly({ input, output, tolerance, tolerances, ignore, progress }: WeldJob): Counts {
  const reader = new ChunkReader(input);
  try {
    const pass = readPly(reader, progress, true);
    const names = pass.groups.map((g) => g.name);
    const aliases = new Map<string, string>();
    for (const group of pass.groups) {
      if (group.properties.length > 1)
        for (const k of group.properties) aliases.set(pass.vertex.properties[k]!.name, group.name);
    }
    checkAttributeNames(input, names, { tolerances, ignore }, '', aliases);
    const attributes: VertexAttribute[] = [];
    for (const [g, group] of pass.groups.entries()) {
      if (ignore.has(group.name)) continue;
      const width = group.properties.length;
      // weldByDistance compares up to 4 values per attribute: wider groups do not occur (see GROUPS).
      attributes.push({
        name: group.name,
        size: width as 1 | 2 | 3 | 4,
        values: pass.values[g]!,
        tolerance: tolerances.get(group.name) ?? 0,
      });
    }
    progress.step('welding');
    const { remap, representatives, count, keptApart } = weldVertices(pass.positions, tolerance, attributes);
    let kept = 0;
    const scratch = new FaceScratch();
    for (let f = 0, at = 0; f < pass.sizes.length; at += pass.sizes[f]!, f++) {
      const length = pass.sizes[f]!;
      scratch.reserve(length);
      if (keptCorners(pass.corners.subarray(at, at + length), length, remap, scratch.places) > 0) kept++;
    }
    const counts = new Map([
      ['vertex', count],
      ['face', kept],
    ]);
    const isRepresentative = (i: number) => representatives[remap[i]!] === i;
    writeAtomically(output, (out) =>
      writePly(out, reader, pass, { counts, remap, isRepresentative, moved: undefined }, progress),
    );
    const n = pass.vertex.count;
    return {
      format: formatName(pass.header),
      in: n,
      out: count,
      merged: n - count,
      dropped: pass.sizes.length - kept,
      keptApart,
    };
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
    const isRepresentative = (i: number) => representatives[remap[i]!] === i;
    writeAtomically(output, (out) =>
      writePly(out, reader, pass, { counts: new Map([['vertex', count]]), remap, isRepresentative, moved }, progress),
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
