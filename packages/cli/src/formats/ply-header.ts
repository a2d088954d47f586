/**
 * PLY headers and records: the element and property declarations, and one
 * record read from or written to binary (either byte order) or ASCII data as
 * an array of numbers (lists as arrays), in the declared types.
 *
 * @module
 */

import { InputError } from '../errors.js';
import type { ChunkReader } from '../files.js';
import type { ByteCursor } from './cursor.js';
import type { TextScanner } from './scanner.js';

export type ScalarType = 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'float32' | 'float64';

const TYPES: Record<string, ScalarType> = {
  char: 'int8',
  uchar: 'uint8',
  short: 'int16',
  ushort: 'uint16',
  int: 'int32',
  uint: 'uint32',
  float: 'float32',
  double: 'float64',
  int8: 'int8',
  uint8: 'uint8',
  int16: 'int16',
  uint16: 'uint16',
  int32: 'int32',
  uint32: 'uint32',
  float32: 'float32',
  float64: 'float64',
};

export const SIZE: Record<ScalarType, number> = {
  int8: 1,
  uint8: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  float32: 4,
  float64: 8,
};

const RANGE: Partial<Record<ScalarType, [number, number]>> = {
  int8: [-128, 127],
  uint8: [0, 255],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
};

export interface Property {
  name: string;
  /** The value's type, or for a list its items' type. */
  type: ScalarType;
  /** For a list: the type of its length. */
  countType?: ScalarType;
}

export interface Element {
  name: string;
  count: number;
  properties: Property[];
  /** Index of its `element` line in Header.lines. */
  headerLine: number;
  /** Bytes per record when every property is a scalar (binary), else undefined. */
  recordSize: number | undefined;
}

export type PlyFormat = 'ascii' | 'binary_little_endian' | 'binary_big_endian';

export interface Header {
  format: PlyFormat;
  elements: Element[];
  /** The header's lines, without line ends. */
  lines: string[];
  /** Byte offset of the first data byte, and its line (ASCII). */
  dataStart: number;
  dataLine: number;
}

/** A record: scalars as numbers, lists as arrays, in property order. */
export type PlyRecord = (number | number[])[];

/** A count as PLY headers write it: decimal digits only. */
const COUNT = /^\d{1,16}$/;

/**
 * Reads and checks a PLY header. Lines that are not PLY keywords are taken
 * as comments while no element is declared yet (Blender 2.47 wrote a bare
 * "Created by Blender3D 247 ..." line after `format`, and three's PLYLoader,
 * Blender and trimesh read such files); among the declarations they are an
 * error, since a misspelt `property` would change the layout.
 */
export function readHeader(reader: ChunkReader): Header {
  const file = reader.file;
  const head = Buffer.alloc(Math.min(reader.size, 1 << 20));
  reader.readAt(head, 0);
  const text = head.toString('latin1');
  const end = /(^|\n)end_header[ \t]*\r?\n/.exec(text);
  if (!/^ply[ \t]*\r?\n/.test(text)) {
    throw new InputError(file, 'offset 0', 'not a PLY file: it does not start with a "ply" line');
  }
  if (end === null) {
    throw new InputError(file, `offset ${head.length}`, 'truncated or malformed PLY header: no "end_header" line');
  }
  const dataStart = end.index + end[0].length;
  const lines = text.slice(0, dataStart).split('\n');
  lines.pop();
  for (let k = 0; k < lines.length; k++) if (lines[k]!.endsWith('\r')) lines[k] = lines[k]!.slice(0, -1);
  let format: PlyFormat | undefined;
  const elements: Element[] = [];
  for (const [k, line] of lines.entries()) {
    const words = line.trim().split(/\s+/);
    const where = `line ${k + 1}`;
    switch (words[0]) {
      case 'ply':
      case 'comment':
      case 'obj_info':
      case 'end_header':
      case '':
        break;
      case 'format':
        if (words[1] !== 'ascii' && words[1] !== 'binary_little_endian' && words[1] !== 'binary_big_endian') {
          throw new InputError(file, where, `unknown PLY format ${JSON.stringify(words[1])}`);
        }
        format = words[1];
        break;
      case 'element': {
        if (words.length !== 3 || !COUNT.test(words[2]!) || !Number.isSafeInteger(Number(words[2]))) {
          throw new InputError(
            file,
            where,
            `malformed element line ${JSON.stringify(line)} (a name and a decimal count)`,
          );
        }
        elements.push({ name: words[1]!, count: Number(words[2]), properties: [], headerLine: k, recordSize: 0 });
        break;
      }
      case 'property': {
        const element = elements[elements.length - 1];
        if (element === undefined) throw new InputError(file, where, 'a property before any element');
        if (words[1] === 'list') {
          const countType = TYPES[words[2]!];
          const type = TYPES[words[3]!];
          if (words.length !== 5 || countType === undefined || type === undefined || countType.startsWith('float')) {
            throw new InputError(file, where, `malformed list property ${JSON.stringify(line)}`);
          }
          element.properties.push({ name: words[4]!, type, countType });
          element.recordSize = undefined;
        } else {
          const type = TYPES[words[1]!];
          if (words.length !== 3 || type === undefined) {
            throw new InputError(file, where, `malformed property ${JSON.stringify(line)}`);
          }
          element.properties.push({ name: words[2]!, type });
          if (element.recordSize !== undefined) element.recordSize += SIZE[type];
        }
        break;
      }
      default:
        if (elements.length > 0 || k === 0) {
          throw new InputError(file, where, `unknown header line ${JSON.stringify(line.slice(0, 80))}`);
        }
    }
  }
  if (format === undefined) throw new InputError(file, 'line 2', 'the header has no "format" line');
  const header = { format, elements, lines, dataStart, dataLine: lines.length + 1 };
  checkCounts(file, header, reader.size);
  return header;
}

/**
 * Checks the elements' counts against the bytes after the header, before
 * anything is allocated for them: a binary record takes at least its scalars'
 * and list lengths' bytes, an ASCII one a character and a separator per value.
 */
function checkCounts(file: string, header: Header, size: number): void {
  const data = size - header.dataStart;
  const ascii = header.format === 'ascii';
  let least = ascii ? -1 : 0;
  for (const element of header.elements) {
    const where = `line ${element.headerLine + 1}`;
    if (element.count > 0 && element.properties.length === 0) {
      throw new InputError(file, where, `element "${element.name}" has ${element.count} records but no properties`);
    }
    const perRecord = ascii
      ? 2 * element.properties.length
      : element.properties.reduce((sum, p) => sum + SIZE[p.countType ?? p.type], 0);
    least += element.count * perRecord;
    if (least > data) {
      const unit = ascii ? 'characters' : 'bytes';
      throw new InputError(
        file,
        where,
        `element "${element.name}" announces ${element.count.toLocaleString('en-US')} records of at least ${perRecord} ${unit}, more than the ${data.toLocaleString('en-US')} bytes after the header hold`,
      );
    }
  }
}

/** The header's text with each element's count replaced by `counts` (by element name). */
export function headerText(header: Header, counts: ReadonlyMap<string, number>): string {
  const lines = [...header.lines];
  for (const element of header.elements) {
    const count = counts.get(element.name);
    if (count !== undefined) lines[element.headerLine] = `element ${element.name} ${count}`;
  }
  return `${lines.join('\n')}\n`;
}

/** Reads one scalar of `type` at byte `at` of `view`. */
export function getScalar(view: DataView, at: number, type: ScalarType, little: boolean): number {
  switch (type) {
    case 'int8':
      return view.getInt8(at);
    case 'uint8':
      return view.getUint8(at);
    case 'int16':
      return view.getInt16(at, little);
    case 'uint16':
      return view.getUint16(at, little);
    case 'int32':
      return view.getInt32(at, little);
    case 'uint32':
      return view.getUint32(at, little);
    case 'float32':
      return view.getFloat32(at, little);
    case 'float64':
      return view.getFloat64(at, little);
  }
}

/** Writes one scalar of `type` at byte `at` of `view`. */
export function setScalar(view: DataView, at: number, type: ScalarType, value: number, little: boolean): void {
  switch (type) {
    case 'int8':
      view.setInt8(at, value);
      return;
    case 'uint8':
      view.setUint8(at, value);
      return;
    case 'int16':
      view.setInt16(at, value, little);
      return;
    case 'uint16':
      view.setUint16(at, value, little);
      return;
    case 'int32':
      view.setInt32(at, value, little);
      return;
    case 'uint32':
      view.setUint32(at, value, little);
      return;
    case 'float32':
      view.setFloat32(at, value, little);
      return;
    case 'float64':
      view.setFloat64(at, value, little);
      return;
  }
}

/** Where record `index` of `element` is, for errors. */
export function recordName(element: Element, index: number, property: Property): string {
  return `${element.name} ${index} (property ${property.name})`;
}

/** Reads record `index` of `element` from binary data. */
export function readBinaryRecord(cursor: ByteCursor, element: Element, index: number, little: boolean): PlyRecord {
  const record: PlyRecord = [];
  for (const property of element.properties) {
    const what = () => recordName(element, index, property);
    if (property.countType === undefined) {
      cursor.ensure(SIZE[property.type], what);
      record.push(getScalar(cursor.view, cursor.pos, property.type, little));
      cursor.pos += SIZE[property.type];
    } else {
      cursor.ensure(SIZE[property.countType], what);
      const length = getScalar(cursor.view, cursor.pos, property.countType, little);
      cursor.pos += SIZE[property.countType];
      const size = SIZE[property.type];
      cursor.ensure(length * size, what);
      const items: number[] = new Array(length);
      for (let k = 0; k < length; k++) items[k] = getScalar(cursor.view, cursor.pos + k * size, property.type, little);
      cursor.pos += length * size;
      record.push(items);
    }
  }
  return record;
}

/** Whether `value` can be stored as `type`: an integer in range for integer types, finite for floats. */
export function fits(value: number, type: ScalarType): boolean {
  const range = RANGE[type];
  return range === undefined ? value - value === 0 : Number.isInteger(value) && value >= range[0] && value <= range[1];
}

/** One ASCII value of `type` (records may span lines), checked with {@link fits}. */
export function asciiScalar(scanner: TextScanner, type: ScalarType, file: string, what: () => string): number {
  const value = scanner.numberAcross();
  if (Number.isNaN(value) || !fits(value, type)) {
    if (scanner.tokenStart === scanner.tokenEnd)
      throw new InputError(file, `line ${scanner.line}`, `truncated: the file ends inside ${what()}`);
    const token = scanner.token;
    throw new InputError(
      file,
      `line ${scanner.line}`,
      `${what()}: ${JSON.stringify(token.length > 40 ? `${token.slice(0, 40)}...` : token)} is not a valid ${type}${RANGE[type] === undefined ? ' (a finite decimal number)' : ''}`,
    );
  }
  return value;
}

/** Reads record `index` of `element` from ASCII data. */
export function readAsciiRecord(scanner: TextScanner, element: Element, index: number, file: string): PlyRecord {
  const record: PlyRecord = [];
  for (const property of element.properties) {
    const what = () => recordName(element, index, property);
    if (property.countType === undefined) record.push(asciiScalar(scanner, property.type, file, what));
    else {
      const length = asciiScalar(scanner, property.countType, file, what);
      const items: number[] = new Array(length);
      for (let k = 0; k < length; k++) items[k] = asciiScalar(scanner, property.type, file, what);
      record.push(items);
    }
  }
  return record;
}

/** Bytes `record` takes in binary. */
export function binarySize(element: Element, record: PlyRecord): number {
  let size = 0;
  for (const [k, property] of element.properties.entries()) {
    const value = record[k]!;
    size +=
      property.countType === undefined
        ? SIZE[property.type]
        : SIZE[property.countType] + (value as number[]).length * SIZE[property.type];
  }
  return size;
}

/** Writes `record` at byte `at` of `view`; returns the bytes written. */
export function writeBinaryRecord(
  view: DataView,
  at: number,
  element: Element,
  record: PlyRecord,
  little: boolean,
): number {
  let pos = at;
  for (const [k, property] of element.properties.entries()) {
    const value = record[k]!;
    if (property.countType === undefined) {
      setScalar(view, pos, property.type, value as number, little);
      pos += SIZE[property.type];
    } else {
      const items = value as number[];
      setScalar(view, pos, property.countType, items.length, little);
      pos += SIZE[property.countType];
      for (const item of items) {
        setScalar(view, pos, property.type, item, little);
        pos += SIZE[property.type];
      }
    }
  }
  return pos - at;
}

/** `record` as one ASCII line (lists as their length then items). */
export function asciiRecord(record: PlyRecord): string {
  const parts: string[] = [];
  for (const value of record) {
    if (typeof value === 'number') parts.push(String(value + 0));
    else parts.push(String(value.length), ...value.map((v) => String(v + 0)));
  }
  return `${parts.join(' ')}\n`;
}
