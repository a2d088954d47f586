/**
 * LAS point clouds (1.0 to 1.4, every point format), read and written by this
 * tool: the format is a fixed header, variable-length records and fixed-size
 * point records with integer coordinates (x = X * scale + offset), simple
 * enough that a streaming reader of our own costs 24 bytes a point and copies
 * each kept record byte for byte (GPS time, colour, classification, extra
 * bytes all come along). The output header gets the new point counts (per
 * return too) and bounds; VLRs, EVLRs and waveform data are copied, their
 * offsets shifted. LAZ (compressed LAS) input is decompressed by laz-perf
 * (see laz.ts) and written as LAS.
 *
 * @module
 */

import { PointDedupe } from '../dedupe-points.js';
import { InputError } from '../errors.js';
import { type AtomicOutput, ChunkReader, writeAtomically } from '../files.js';
import type { Progress } from '../progress.js';
import { type Counts, type DedupeJob, stopwatch } from '../summary.js';

/** Smallest record size per point format (ASPRS LAS 1.4, table of point data record formats). */
const MIN_RECORD = [20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67];

export interface LasHeader {
  bytes: Buffer;
  version: string;
  headerSize: number;
  pointOffset: number;
  format: number;
  compressed: boolean;
  recordLength: number;
  count: number;
  scale: [number, number, number];
  offset: [number, number, number];
}

/** Reads and checks a LAS header from its first bytes; `size` is the file's size. */
export function parseLasHeader(file: string, head: Buffer, size: number): LasHeader {
  if (head.length < 227 || head.toString('latin1', 0, 4) !== 'LASF') {
    throw new InputError(
      file,
      'offset 0',
      head.length < 227 && head.toString('latin1', 0, 4) === 'LASF'
        ? `truncated LAS header: ${head.length} bytes, at least 227 needed`
        : 'not a LAS file: it does not start with "LASF"',
    );
  }
  const major = head.readUInt8(24);
  const minor = head.readUInt8(25);
  const headerSize = head.readUInt16LE(94);
  const pointOffset = head.readUInt32LE(96);
  const formatByte = head.readUInt8(104);
  // LAZ sets bit 7 (and some writers bit 6) of the format.
  const compressed = (formatByte & 0xc0) !== 0;
  const format = formatByte & 0x3f;
  const recordLength = head.readUInt16LE(105);
  let count = head.readUInt32LE(107);
  if (major !== 1 || minor > 4) throw new InputError(file, 'offset 24', `unsupported LAS version ${major}.${minor}`);
  if (headerSize < 227 || headerSize > head.length) {
    throw new InputError(file, 'offset 94', `header size ${headerSize} is not valid (227 to ${head.length} bytes)`);
  }
  if (minor >= 4 && headerSize >= 375) {
    const long = Number(head.readBigUInt64LE(247));
    if (count === 0 || long > count) count = long;
  }
  if (format >= MIN_RECORD.length) throw new InputError(file, 'offset 104', `unknown point format ${format}`);
  if (recordLength < MIN_RECORD[format]!) {
    throw new InputError(
      file,
      'offset 105',
      `point records of ${recordLength} bytes are too short for point format ${format} (${MIN_RECORD[format]})`,
    );
  }
  if (pointOffset < headerSize || pointOffset > size) {
    throw new InputError(
      file,
      'offset 96',
      `offset to point data ${pointOffset} is outside the file (header ${headerSize}, file ${size} bytes)`,
    );
  }
  const scale: [number, number, number] = [head.readDoubleLE(131), head.readDoubleLE(139), head.readDoubleLE(147)];
  const offset: [number, number, number] = [head.readDoubleLE(155), head.readDoubleLE(163), head.readDoubleLE(171)];
  for (const [axis, s] of scale.entries()) {
    if (!(Number.isFinite(s) && s !== 0) || !Number.isFinite(offset[axis]!)) {
      throw new InputError(
        file,
        `offset ${131 + axis * 8}`,
        `${'xyz'[axis]} scale ${s} / offset ${offset[axis]} are not usable`,
      );
    }
  }
  return {
    bytes: head.subarray(0, pointOffset),
    version: `${major}.${minor}`,
    headerSize,
    pointOffset,
    format,
    compressed,
    recordLength,
    count,
    scale,
    offset,
  };
}

/** Bytes of a VLR's header (LAS 1.0 to 1.4). */
export const VLR_HEADER = 54;

/** One variable-length record: where it starts, its user id and record id, its payload's length. */
export interface Vlr {
  offset: number;
  user: string;
  record: number;
  length: number;
}

/**
 * The VLRs between the header and the points (`bytes` holds the file up to
 * the offset to the points), checked as they are walked: their count against
 * the room there before anything is read, each one's header and payload
 * inside it. Bytes after the last one (padding, user data) are allowed.
 */
export function vlrsOf(file: string, bytes: Uint8Array, header: LasHeader): Vlr[] {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.readUInt32LE(100);
  const room = header.pointOffset - header.headerSize;
  if (count * VLR_HEADER > room) {
    throw new InputError(
      file,
      'offset 100',
      `${count} VLRs announced, but the ${room} bytes between the header and the points hold at most ${Math.floor(room / VLR_HEADER)}`,
    );
  }
  const vlrs: Vlr[] = [];
  let at = header.headerSize;
  for (let k = 0; k < count; k++) {
    if (at + VLR_HEADER > header.pointOffset) {
      throw new InputError(
        file,
        `offset ${at}`,
        `VLR ${k}'s header runs past the start of the points (offset ${header.pointOffset})`,
      );
    }
    const length = view.readUInt16LE(at + 20);
    if (at + VLR_HEADER + length > header.pointOffset) {
      throw new InputError(
        file,
        `offset ${at + 20}`,
        `VLR ${k} of ${length} bytes runs past the start of the points (offset ${header.pointOffset})`,
      );
    }
    const user = view.toString('latin1', at + 2, at + 18).replace(/\0.*$/s, '');
    vlrs.push({ offset: at, user, record: view.readUInt16LE(at + 18), length });
    at += VLR_HEADER + length;
  }
  return vlrs;
}

/** Reads a point's coordinates and return number from its record at byte `at` of `bytes`, into `dedupe`. */
export function readPoint(header: LasHeader, bytes: Uint8Array, at: number, dedupe: PointDedupe): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, 15);
  const { scale, offset } = header;
  // Formats 6 to 10 keep the return number in 4 bits, the older ones in 3.
  dedupe.push(
    view.getInt32(0, true) * scale[0] + offset[0],
    view.getInt32(4, true) * scale[1] + offset[1],
    view.getInt32(8, true) * scale[2] + offset[2],
    view.getUint8(14) & (header.format >= 6 ? 0x0f : 0x07),
  );
}

/** A LAS or LAZ input as the writer needs it: its header, its records (read again) and what follows them. */
export interface LasPoints {
  header: LasHeader;
  /** Calls `visit` with the record of every point in order (recordLength bytes, valid during the call). */
  forEachRecord: (visit: (i: number, record: Uint8Array) => void) => void;
  /** Bytes after the point records (EVLRs, waveform data), to copy to the end of the output. */
  tail: Uint8Array;
  /** Where the tail starts in the input: header offsets at or past it move with it. */
  tailStart: number;
}

/** Opens a LAS file: header and VLRs checked, the records' extent checked against the file's size. */
function openLas(reader: ChunkReader): LasPoints {
  const file = reader.file;
  const head = Buffer.alloc(Math.min(reader.size, 1 << 16));
  reader.readAt(head, 0);
  const header = parseLasHeader(file, head, reader.size);
  if (header.compressed) throw new InputError(file, 'offset 104', 'compressed (LAZ) data in a .las file: name it .laz');
  const { pointOffset, recordLength, count } = header;
  if (head.length < pointOffset) {
    const bytes = Buffer.alloc(pointOffset);
    reader.readAt(bytes, 0);
    header.bytes = bytes;
  }
  vlrsOf(file, header.bytes, header);
  const end = pointOffset + recordLength * count;
  if (end > reader.size) {
    const whole = Math.floor((reader.size - pointOffset) / recordLength);
    throw new InputError(
      file,
      `offset ${pointOffset + whole * recordLength}`,
      `truncated: the header announces ${count} points of ${recordLength} bytes, the file holds ${whole} and part of point ${whole}`,
    );
  }
  const tail = Buffer.alloc(reader.size - end);
  reader.readAt(tail, end);
  return {
    header,
    tail,
    tailStart: end,
    forEachRecord: (visit) => {
      let k = 0;
      reader.forEachChunk(pointOffset, end, recordLength, (chunk) => {
        for (let at = 0; at < chunk.length; at += recordLength) visit(k++, chunk.subarray(at, at + recordLength));
      });
    },
  };
}

/**
 * Writes the deduped LAS: header updated (counts, counts per return, bounds,
 * offsets into the tail), VLRs, the kept records (moved to their cluster's
 * mean with `moved`), then the tail.
 */
export function writeLas(
  out: AtomicOutput,
  points: LasPoints,
  dedupe: PointDedupe,
  moved: Float64Array | undefined,
  progress: Progress,
): void {
  const { header } = points;
  const { recordLength, scale, offset } = header;
  const { count } = dedupe;
  const kept = dedupe.kept.array;
  const coordinates = dedupe.coordinates.array;
  const headerBytes = Buffer.from(header.bytes);
  const newFormat = header.format >= 6;
  const returns = new Float64Array(15);
  const min = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  const max = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  const record = Buffer.alloc(recordLength);
  /** A kept point's stored coordinate: its own, or its cluster's mean rounded to the file's grid. */
  const stored = (r: number, axis: number) => Math.round((moved![r * 3 + axis]! - offset[axis]!) / scale[axis]!);
  // Bounds and returns first (the header comes before the points): one pass over the kept points.
  for (let r = 0; r < count; r++) {
    for (let axis = 0; axis < 3; axis++) {
      const value = moved === undefined ? coordinates[r * 3 + axis]! : stored(r, axis) * scale[axis]! + offset[axis]!;
      if (value < min[axis]!) min[axis] = value;
      if (value > max[axis]!) max[axis] = value;
    }
    const number = dedupe.returns.array[r]!;
    if (number >= 1 && number <= 15) returns[number - 1]++;
  }
  // The tail follows the kept records: offsets into it move by as much as its start does.
  const shift = header.bytes.length + recordLength * count - points.tailStart;
  const minor = headerBytes.readUInt8(25);
  if (!newFormat && count <= 0xffffffff) {
    headerBytes.writeUInt32LE(count, 107);
    for (let k = 0; k < 5; k++) headerBytes.writeUInt32LE(returns[k]!, 111 + k * 4);
  } else {
    headerBytes.writeUInt32LE(0, 107);
    for (let k = 0; k < 5; k++) headerBytes.writeUInt32LE(0, 111 + k * 4);
  }
  for (let axis = 0; axis < 3; axis++) {
    headerBytes.writeDoubleLE(count > 0 ? max[axis]! : 0, 179 + axis * 16);
    headerBytes.writeDoubleLE(count > 0 ? min[axis]! : 0, 187 + axis * 16);
  }
  if (minor >= 3 && header.headerSize >= 235) {
    const waveform = Number(headerBytes.readBigUInt64LE(227));
    if (waveform >= points.tailStart) headerBytes.writeBigUInt64LE(BigInt(waveform + shift), 227);
  }
  if (minor >= 4 && header.headerSize >= 375) {
    const evlr = Number(headerBytes.readBigUInt64LE(235));
    if (evlr >= points.tailStart) headerBytes.writeBigUInt64LE(BigInt(evlr + shift), 235);
    headerBytes.writeBigUInt64LE(BigInt(count), 247);
    for (let k = 0; k < 15; k++) headerBytes.writeBigUInt64LE(BigInt(returns[k]!), 255 + k * 8);
  }
  out.bytes(headerBytes);
  let r = 0;
  points.forEachRecord((i, bytes) => {
    if (kept[i] !== 1) return;
    if (moved === undefined) out.bytes(bytes);
    else {
      record.set(bytes);
      for (let axis = 0; axis < 3; axis++) {
        const value = stored(r, axis);
        if (value < -2147483648 || value > 2147483647) {
          throw new InputError(out.file, '', `the mean of cluster ${r} does not fit LAS's 32-bit coordinates`);
        }
        record.writeInt32LE(value, axis * 4);
      }
      out.bytes(record);
    }
    if ((++r & 0xffff) === 0) progress.update('writing', r, count);
  });
  out.bytes(points.tail);
}

/** Dedupes a LAS file into `output` (LAS): pass 1 streams the points through the dedupe, pass 2 copies the kept records. */
export function dedupeLas({ input, output, radius, mean, progress }: DedupeJob): Counts {
  const clock = stopwatch();
  const reader = new ChunkReader(input);
  try {
    const points = openLas(reader);
    const { header } = points;
    const dedupe = new PointDedupe(radius, mean);
    reader.forEachChunk(header.pointOffset, points.tailStart, header.recordLength, (chunk, offset) => {
      for (let at = 0; at < chunk.length; at += header.recordLength) readPoint(header, chunk, at, dedupe);
      progress.update('reading', offset + chunk.length, reader.size);
    });
    dedupe.finish();
    clock.lap('reading', dedupe.weldSeconds);
    progress.step('merging');
    const moved = mean ? dedupe.means() : undefined;
    clock.lap('welding');
    writeAtomically(output, (out) => writeLas(out, points, dedupe, moved, progress));
    clock.lap('writing');
    const n = header.count;
    const count = dedupe.count;
    return {
      format: `LAS ${header.version}`,
      in: n,
      out: count,
      merged: n - count,
      dropped: 0,
      timings: clock.timings,
    };
  } finally {
    reader.close();
  }
}
