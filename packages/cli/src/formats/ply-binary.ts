/**
 * Binary PLY data (either byte order), both passes. Runs of fixed-size
 * records (vertices, most other elements) are handled a window at a time
 * straight from the reader's bytes; faces whose only property is their index
 * list are read and renumbered without decoding them into arrays; anything
 * else goes through the general record codec of ply-header.ts. Output is
 * written into the output's buffer in place (see {@link BlockWriter}).
 *
 * @module
 */

import { InputError } from '../errors.js';
import type { AtomicOutput, ChunkReader } from '../files.js';
import type { Progress } from '../progress.js';
import { ByteCursor } from './cursor.js';
import {
  binarySize,
  getScalar,
  type Header,
  type PlyRecord,
  readBinaryRecord,
  recordName,
  SIZE,
  setScalar,
  writeBinaryRecord,
} from './ply-header.js';
import { type Collector, FaceScratch, keptCorners, type Output, type Plan, renumber } from './ply-plan.js';

/** Visits the records of a binary PLY (see {@link walkBinary}). */
interface BinaryVisitor {
  /** `count` fixed-size records from `first`, all in the window from `cursor.pos`; must not move the cursor. */
  run(plan: Plan, first: number, count: number, cursor: ByteCursor): void;
  /** A record of another element, its `size` bytes at `cursor.pos`; must not move the cursor. */
  record(plan: Plan, index: number, cursor: ByteCursor, size: number): void;
}

/** What the walk is reading, for an error message: one object for the walk, so no record allocates a closure. */
class Place {
  plan!: Plan;
  index = 0;
  /** The list property being read, or -1 for the record as a whole. */
  property = -1;
  readonly what = () =>
    this.property < 0
      ? `${this.plan.element.name} ${this.index}`
      : recordName(this.plan.element, this.index, this.plan.element.properties[this.property]!);
}

/** The byte length of the record at the cursor (list lengths read and checked), every byte of it made available. */
function measure(cursor: ByteCursor, place: Place, little: boolean): number {
  const { properties } = place.plan.element;
  let size = 0;
  place.property = -1;
  for (let k = 0; k < properties.length; k++) {
    const property = properties[k]!;
    if (property.countType === undefined) {
      size += SIZE[property.type];
      continue;
    }
    place.property = k;
    const countSize = SIZE[property.countType];
    if (cursor.available < size + countSize) cursor.ensure(size + countSize, place.what);
    const length = getScalar(cursor.view, cursor.pos + size, property.countType, little);
    if (length < 0) {
      throw new InputError(cursor.file, `offset ${cursor.offset + size}`, `${place.what()}: a list of ${length} items`);
    }
    size += countSize + length * SIZE[property.type];
  }
  if (cursor.available < size) cursor.ensure(size, place.what);
  return size;
}

/** Walks every record of every element, then checks that nothing follows the last one. */
function walkBinary(
  reader: ChunkReader,
  header: Header,
  plans: Plan[],
  progress: Progress,
  phase: string,
  visitor: BinaryVisitor,
): void {
  const little = header.format === 'binary_little_endian';
  const cursor = new ByteCursor(reader, header.dataStart);
  const place = new Place();
  for (const plan of plans) {
    const { element } = plan;
    const size = element.recordSize;
    place.plan = plan;
    place.property = -1;
    if (size !== undefined && size > 0) {
      for (let i = 0; i < element.count; ) {
        place.index = i;
        cursor.ensure(size, place.what);
        const count = Math.min(element.count - i, Math.floor(cursor.available / size));
        visitor.run(plan, i, count, cursor);
        cursor.pos += count * size;
        i += count;
        progress.update(phase, cursor.offset, reader.size);
      }
      continue;
    }
    for (let i = 0; i < element.count; i++) {
      place.index = i;
      const bytes = measure(cursor, place, little);
      visitor.record(plan, i, cursor, bytes);
      cursor.pos += bytes;
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

/** Decodes the record at the cursor (already measured) without moving it. */
function decodeAt(cursor: ByteCursor, plan: Plan, index: number, little: boolean): PlyRecord {
  const start = cursor.pos;
  const record = readBinaryRecord(cursor, plan.element, index, little);
  cursor.pos = start;
  return record;
}

/** Pass 1 of binary data into `collector`. */
export function readBinary(reader: ChunkReader, header: Header, collector: Collector, progress: Progress): void {
  const little = header.format === 'binary_little_endian';
  // Where the record being read starts, for an error: one closure for the whole walk, not one a record.
  let cursorOf: ByteCursor | undefined;
  let recordAt = 0;
  const where = () => `offset ${cursorOf!.offset + recordAt}`;
  walkBinary(reader, header, collector.plans, progress, 'reading', {
    run(plan, first, count, cursor) {
      if (plan.role === 'other') return;
      const size = plan.element.recordSize!;
      const view = cursor.view;
      cursorOf = cursor;
      for (let r = 0; r < count; r++) {
        const at = cursor.pos + r * size;
        recordAt = r * size;
        if (plan.role === 'vertex') collector.vertexBytes(first + r, plan, view, at, little, where);
        else {
          for (const k of plan.ends) {
            if (k < 0) continue;
            const value = getScalar(view, at + plan.offsets[k]!, plan.element.properties[k]!.type, little);
            collector.index(value, where, () => recordName(plan.element, first + r, plan.element.properties[k]!));
          }
        }
      }
    },
    record(plan, i, cursor) {
      cursorOf = cursor;
      recordAt = 0;
      if (plan.simple) {
        const property = plan.element.properties[0]!;
        const view = cursor.view;
        const length = getScalar(view, cursor.pos, property.countType!, little);
        const item = SIZE[property.type];
        const first = cursor.pos + SIZE[property.countType!];
        collector.sizes.push(length);
        for (let k = 0; k < length; k++)
          collector.corner(plan, i, k, getScalar(view, first + k * item, property.type, little), where);
      } else if (plan.role !== 'other') collector.record(plan, i, decodeAt(cursor, plan, i, little), where);
    },
  });
}

/**
 * Writes into the output's own buffer: a block of it is reserved, records
 * are copied or encoded into it at `at`, and the block is handed back when
 * full, so records cost no allocation of their own.
 */
class BlockWriter {
  buffer!: Buffer;
  view!: DataView;
  at = 0;

  constructor(private readonly out: AtomicOutput) {
    this.fresh();
  }

  private fresh(): void {
    this.buffer = this.out.reserve(this.out.capacity);
    this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
    this.at = 0;
  }

  /** Makes room for `bytes` at `at`; false when a record is larger than a block (write it with {@link large}). */
  room(bytes: number): boolean {
    if (this.at + bytes <= this.buffer.length) return true;
    this.out.advance(this.at);
    this.fresh();
    return bytes <= this.buffer.length;
  }

  /** Writes a record larger than a block. */
  large(bytes: Uint8Array): void {
    this.out.advance(this.at);
    this.out.bytes(bytes);
    this.fresh();
  }

  /** Hands back what the last block holds; call once at the end. */
  done(): void {
    this.out.advance(this.at);
    this.at = 0;
  }
}

/** Pass 2 of binary data: kept vertices copied (moved with `moved`), faces and edges renumbered, the rest copied. */
export function writeBinary(
  out: AtomicOutput,
  reader: ChunkReader,
  header: Header,
  plans: Plan[],
  output: Output,
  progress: Progress,
): void {
  const { remap, isRepresentative, moved, xyz } = output;
  const little = header.format === 'binary_little_endian';
  const scratch = new FaceScratch();
  const block = new BlockWriter(out);
  let welded = 0;
  /** Copies `bytes` bytes of the window from `from` into the block. */
  const copy = (cursor: ByteCursor, from: number, bytes: number) => {
    if (!block.room(bytes)) block.large(cursor.buffer.subarray(from, from + bytes));
    else {
      cursor.buffer.copy(block.buffer, block.at, from, from + bytes);
      block.at += bytes;
    }
  };
  /** Copies a record, then changes it in place with `patch` (at its byte `at` of `view`). */
  const copyPatched = (
    cursor: ByteCursor,
    from: number,
    bytes: number,
    patch: (view: DataView, at: number) => void,
  ) => {
    if (block.room(bytes)) {
      cursor.buffer.copy(block.buffer, block.at, from, from + bytes);
      patch(block.view, block.at);
      block.at += bytes;
      return;
    }
    const own = Buffer.from(cursor.buffer.subarray(from, from + bytes));
    patch(new DataView(own.buffer, own.byteOffset, bytes), 0);
    block.large(own);
  };
  walkBinary(reader, header, plans, progress, 'writing', {
    run(plan, first, count, cursor) {
      const { element } = plan;
      const size = element.recordSize!;
      if (plan.role === 'other') {
        // Whole blocks at a time.
        for (let r = 0; r < count; ) {
          const fit = Math.max(1, Math.min(count - r, Math.floor(out.capacity / size)));
          copy(cursor, cursor.pos + r * size, fit * size);
          r += fit;
        }
        return;
      }
      const moveVertex = (target: DataView, at: number) => {
        for (let axis = 0; axis < 3; axis++) {
          const k = xyz[axis];
          setScalar(target, at + plan.offsets[k]!, element.properties[k]!.type, moved![welded * 3 + axis]!, little);
        }
      };
      const renumberEnds = (target: DataView, at: number) => {
        for (const k of plan.ends) {
          if (k < 0) continue;
          const type = element.properties[k]!.type;
          const offset = at + plan.offsets[k]!;
          setScalar(target, offset, type, remap[getScalar(target, offset, type, little)]!, little);
        }
      };
      for (let r = 0; r < count; r++) {
        const from = cursor.pos + r * size;
        if (plan.role === 'edge') copyPatched(cursor, from, size, renumberEnds);
        else if (isRepresentative(first + r)) {
          if (moved === undefined) copy(cursor, from, size);
          else copyPatched(cursor, from, size, moveVertex);
          welded++;
        }
      }
    },
    record(plan, i, cursor, size) {
      const { element } = plan;
      if (plan.role === 'other') {
        copy(cursor, cursor.pos, size);
        return;
      }
      if (plan.simple) {
        const property = element.properties[0]!;
        const countSize = SIZE[property.countType!];
        const item = SIZE[property.type];
        const view = cursor.view;
        const length = getScalar(view, cursor.pos, property.countType!, little);
        if (length === 3 && block.room(size)) {
          // A triangle, the common case: kept when its three corners stay distinct, written in place.
          const first = cursor.pos + countSize;
          const type = property.type;
          const a = remap[getScalar(view, first, type, little)]!;
          const b = remap[getScalar(view, first + item, type, little)]!;
          const c = remap[getScalar(view, first + 2 * item, type, little)]!;
          if (a === b || b === c || a === c) return;
          const target = block.view;
          const at = block.at;
          setScalar(target, at, property.countType!, 3, little);
          setScalar(target, at + countSize, type, a, little);
          setScalar(target, at + countSize + item, type, b, little);
          setScalar(target, at + countSize + 2 * item, type, c, little);
          block.at += size;
          return;
        }
        scratch.reserve(length);
        const items = scratch.items;
        for (let k = 0; k < length; k++)
          items[k] = getScalar(view, cursor.pos + countSize + k * item, property.type, little);
        const kept = keptCorners(items, length, remap, scratch.places);
        if (kept === 0) return;
        const bytes = countSize + kept * item;
        if (block.room(bytes)) {
          const target = block.view;
          const at = block.at;
          setScalar(target, at, property.countType!, kept, little);
          for (let k = 0; k < kept; k++)
            setScalar(target, at + countSize + k * item, property.type, remap[items[scratch.places[k]!]!]!, little);
          block.at += bytes;
          return;
        }
      }
      const record = decodeAt(cursor, plan, i, little);
      if (!renumber(plan, record, remap, scratch)) return;
      const bytes = binarySize(element, record);
      if (block.room(bytes)) {
        block.at += writeBinaryRecord(block.view, block.at, element, record, little);
      } else {
        const encoded = Buffer.alloc(bytes);
        writeBinaryRecord(new DataView(encoded.buffer, encoded.byteOffset, bytes), 0, element, record, little);
        block.large(encoded);
      }
    },
  });
  block.done();
}
