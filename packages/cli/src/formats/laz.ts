/**
 * LAZ (compressed LAS) input, decompressed by laz-perf, the LASzip
 * implementation of Hobu (the LAZ maintainers) compiled to WebAssembly. The
 * compressed file is copied into its memory whole (LAZ is 7 to 20 % of the
 * LAS size); points are decompressed one at a time, twice (through the
 * dedupe, then the records to keep), so the decompressed cloud is never held. The output is
 * LAS: laz-perf does not compress. Its header loses the LASzip VLR and the
 * compression bits of the point format.
 *
 * A LAZ file's header may claim more points than its chunks hold, and
 * LASzip's decoders, laz-perf's included, then decode what follows the last
 * chunk (the chunk table) as more points: laz-perf's own reader trusts the
 * count. This reader does not:
 *
 * - The chunk table's header (uncompressed) must list as many chunks as the
 *   count needs at the LASzip VLR's chunk size.
 * - LAS 1.4's layered chunks (point formats 6 to 8) start with their own
 *   point count, which must add up to the header's.
 * - Pointwise chunks (formats 0 to 5) store no count: laz-perf is handed the
 *   file with its chunk table moved in front of the points, so the data ends
 *   where the last chunk does and a decoder that reads past it meets the end
 *   of the file, which laz-perf reports ("Unexpected end of file."). LASzip's
 *   encoder ends every chunk with the bytes its decoder reads, so a point that
 *   needs bytes past the last chunk is one the file does not hold.
 *
 * Memory follows the points decoded, never the count: they go through a
 * streaming dedupe (dedupe-points.ts) as they come out of the decoder.
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PointDedupe } from '../dedupe-points.js';
import { InputError } from '../errors.js';
import { ChunkReader, writeAtomically } from '../files.js';
import { type Counts, type DedupeJob, stopwatch } from '../summary.js';
import { type LasHeader, type LasPoints, parseLasHeader, readPoint, VLR_HEADER, vlrsOf, writeLas } from './las.js';

/** The part of laz-perf's module this file uses (its own types need @types/emscripten). */
interface LazPerfModule {
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  LASZip: new () => {
    open(pointer: number, length: number): void;
    getPoint(pointer: number): void;
    getCount(): number;
    getPointLength(): number;
    getPointFormat(): number;
    delete(): void;
  };
}

const LASZIP_USER = 'laszip encoded';
const LASZIP_RECORD = 22204;
/** laz-perf's WebAssembly memory stops at 2 GiB; the file and its decoder's state must fit. */
const LARGEST_FILE = 1.5 * 2 ** 30;
const VARIABLE_CHUNKS = 0xffffffff;

/** What the LASzip VLR says of the compression. */
interface Laszip {
  /** 2: pointwise chunks (formats 0 to 5); 3: layered chunks (formats 6 to 10). */
  compressor: number;
  /** Points per chunk, or VARIABLE_CHUNKS. */
  chunkSize: number;
  /** Item types and sizes, in record order. */
  items: { type: number; size: number }[];
}

/** Reads the LASzip VLR (`at`: where its header starts). */
function laszipOf(file: string, bytes: Buffer, at: number, length: number): Laszip {
  const payload = at + VLR_HEADER;
  if (length < 34) throw new InputError(file, `offset ${payload}`, `the LASzip VLR has ${length} bytes, fewer than 34`);
  const count = bytes.readUInt16LE(payload + 32);
  if (34 + count * 6 > length) {
    throw new InputError(
      file,
      `offset ${payload + 32}`,
      `the LASzip VLR lists ${count} items, more than its ${length} bytes hold`,
    );
  }
  const items = Array.from({ length: count }, (_, k) => ({
    type: bytes.readUInt16LE(payload + 34 + k * 6),
    size: bytes.readUInt16LE(payload + 36 + k * 6),
  }));
  return { compressor: bytes.readUInt16LE(payload), chunkSize: bytes.readUInt32LE(payload + 12), items };
}

/** The header bytes for the LAS output: the LASzip VLR removed, the format's compression bits cleared. */
function lasHeaderBytes(file: string, bytes: Buffer, header: LasHeader): { bytes: Buffer; laszip: Laszip } {
  const parts: Buffer[] = [Buffer.from(bytes.subarray(0, header.headerSize))];
  let kept = 0;
  let laszip: Laszip | undefined;
  let end = header.headerSize;
  for (const vlr of vlrsOf(file, bytes, header)) {
    end = vlr.offset + VLR_HEADER + vlr.length;
    if (vlr.user === LASZIP_USER && vlr.record === LASZIP_RECORD)
      laszip = laszipOf(file, bytes, vlr.offset, vlr.length);
    else {
      parts.push(bytes.subarray(vlr.offset, end));
      kept++;
    }
  }
  if (laszip === undefined)
    throw new InputError(file, 'offset 100', 'no LASzip VLR: the compressed points cannot be read');
  // Bytes between the last VLR and the points (user data some writers leave) stay.
  parts.push(bytes.subarray(end));
  const out = Buffer.concat(parts);
  out.writeUInt32LE(kept, 100);
  out.writeUInt32LE(out.length, 96);
  out.writeUInt8(out.readUInt8(104) & 0x3f, 104);
  return { bytes: out, laszip };
}

/** Where the chunk table is, and how many chunks it lists. */
interface ChunkTable {
  offset: number;
  chunks: number;
  /** Where what follows the table starts (EVLRs, or the end of the file). */
  end: number;
}

/** Reads and checks the chunk table's position and header, and its chunk count against the header's point count. */
function chunkTableOf(file: string, whole: Buffer, header: LasHeader, laszip: Laszip, tailStart: number): ChunkTable {
  const first = header.pointOffset + 8;
  if (whole.length < first)
    throw new InputError(file, `offset ${whole.length}`, 'truncated: the file ends before its point data');
  const offset = Number(whole.readBigInt64LE(header.pointOffset));
  if (offset === -1) {
    throw new InputError(
      file,
      `offset ${header.pointOffset}`,
      'the chunk table offset is -1 (a LAZ file written by a streaming writer and never finished), which laz-perf cannot read',
    );
  }
  if (offset < first || offset + 8 > tailStart) {
    throw new InputError(
      file,
      `offset ${header.pointOffset}`,
      `the chunk table offset ${offset} is outside the compressed points (${first} to ${tailStart - 8})`,
    );
  }
  const version = whole.readUInt32LE(offset);
  const chunks = whole.readUInt32LE(offset + 4);
  if (version !== 0) throw new InputError(file, `offset ${offset}`, `unknown chunk table version ${version}`);
  // Every chunk starts with a whole point stored raw: the points' bytes bound the number of chunks.
  const most = Math.floor((offset - first) / header.recordLength);
  if (chunks > most) {
    throw new InputError(
      file,
      `offset ${offset + 4}`,
      `the chunk table lists ${chunks} chunks, more than the ${offset - first} bytes of compressed points hold`,
    );
  }
  const { count } = header;
  if (laszip.chunkSize !== VARIABLE_CHUNKS) {
    const needed =
      laszip.chunkSize === 0 ? (count > 0 ? Number.POSITIVE_INFINITY : 0) : Math.ceil(count / laszip.chunkSize);
    if (needed !== chunks) {
      throw new InputError(
        file,
        `offset ${offset + 4}`,
        `the header announces ${count.toLocaleString('en-US')} points, which take ${needed} chunks of ${laszip.chunkSize}, but the chunk table lists ${chunks} (up to ${(chunks * laszip.chunkSize).toLocaleString('en-US')} points)`,
      );
    }
  }
  return { offset, chunks, end: tailStart };
}

/** Layers of each item of a layered chunk (LASzip 3: POINT14 has 9, RGB14 1, RGBNIR14 2, BYTE14 one a byte). */
function layersOf(item: { type: number; size: number }): number {
  if (item.type === 10) return 9;
  if (item.type === 11) return 1;
  if (item.type === 12) return 2;
  if (item.type === 14) return item.size;
  return 1;
}

/**
 * Layered chunks (LAS 1.4 formats): walks them from the first, each a raw
 * point, its point count, its layers' sizes and the layers, and checks that
 * the counts add up to the header's and that every chunk lies before the table.
 */
function checkLayeredChunks(file: string, whole: Buffer, header: LasHeader, laszip: Laszip, table: ChunkTable): void {
  const layers = laszip.items.reduce((sum, item) => sum + layersOf(item), 0);
  let at = header.pointOffset + 8;
  let points = 0;
  for (let k = 0; k < table.chunks; k++) {
    const sizes = at + header.recordLength + 4;
    if (sizes + layers * 4 > table.offset) {
      throw new InputError(file, `offset ${at}`, `chunk ${k} runs past the chunk table (offset ${table.offset})`);
    }
    const held = whole.readUInt32LE(sizes - 4);
    let bytes = 0;
    for (let l = 0; l < layers; l++) bytes += whole.readUInt32LE(sizes + l * 4);
    const expected =
      laszip.chunkSize === VARIABLE_CHUNKS
        ? undefined
        : k + 1 < table.chunks
          ? laszip.chunkSize
          : header.count - points;
    if (held === 0 || (expected !== undefined && held !== expected)) {
      throw new InputError(
        file,
        `offset ${sizes - 4}`,
        `chunk ${k} holds ${held} points where the header's count of ${header.count.toLocaleString('en-US')} needs ${expected ?? 'at least 1'}`,
      );
    }
    points += held;
    at = sizes + layers * 4 + bytes;
    if (at > table.offset) {
      throw new InputError(
        file,
        `offset ${sizes}`,
        `chunk ${k}'s layers (${bytes} bytes) run past the chunk table (offset ${table.offset})`,
      );
    }
  }
  if (points !== header.count) {
    throw new InputError(
      file,
      `offset ${table.offset}`,
      `the chunks hold ${points.toLocaleString('en-US')} points, the header announces ${header.count.toLocaleString('en-US')}`,
    );
  }
}

/**
 * The file as laz-perf is given it: the chunk table moved in front of the
 * points (the header's offset to the points moved past it, the table's
 * offset pointing at it), so that the data ends with the last chunk, and no
 * EVLRs (they stay in the output's tail, copied by this tool).
 */
function decodable(whole: Buffer, header: LasHeader, table: ChunkTable): Buffer {
  const { pointOffset } = header;
  const head = Buffer.from(whole.subarray(0, pointOffset));
  const tableBytes = whole.subarray(table.offset, table.end);
  head.writeUInt32LE(pointOffset + tableBytes.length, 96);
  if (header.headerSize >= 375 && head.readUInt8(25) >= 4) {
    head.writeBigUInt64LE(0n, 235);
    head.writeUInt32LE(0, 243);
  }
  const tableOffset = Buffer.alloc(8);
  tableOffset.writeBigInt64LE(BigInt(pointOffset));
  return Buffer.concat([head, tableBytes, tableOffset, whole.subarray(pointOffset + 8, table.offset)]);
}

/**
 * laz-perf is built without C++ exception catching: a throw reaches
 * JavaScript as the text "<pointer> - Exception catching is disabled ...".
 * The pointer is the exception object (a std::runtime_error: its message is
 * the C string its second word points to), read back here when it looks
 * like one; anything else is described as it came.
 */
function wasmMessage(module: LazPerfModule, error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const thrown = /^(\d+) - Exception catching is disabled/.exec(text);
  if (thrown === null) return text.split('\n')[0]!.slice(0, 200);
  const pointer = Number(thrown[1]);
  const heap = module.HEAPU8;
  if (pointer + 8 <= heap.length) {
    const start = module.HEAPU32[(pointer + 4) >>> 2]!;
    let end = start;
    while (end < heap.length && end < start + 200 && heap[end]! >= 32 && heap[end]! < 127) end++;
    if (end > start && end < heap.length && heap[end] === 0)
      return Buffer.from(heap.subarray(start, end)).toString('latin1');
  }
  return 'an error inside the decoder';
}

/**
 * What to say when laz-perf's module does not start: mostly WebAssembly memory
 * it cannot get, as under `ulimit -v 8000000` (Node reserves about 10 GB of
 * address space for each WebAssembly memory, and LAZ has no decoder without
 * one; the weld itself falls back to JavaScript there).
 */
function lazPerfStartError(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).replace(/^Aborted\((.*)\)$/s, '$1');
  const memory = /memory/i.test(text);
  return `cannot decompress: laz-perf's WebAssembly module did not start (${text.split('\n')[0]!.slice(0, 160)})${
    memory
      ? '; this process could not reserve WebAssembly memory (is its address space limited, as by ulimit -v? WebAssembly reserves about 10 GB of it); LAS needs none'
      : ''
  }`;
}

/**
 * Whether this process's address space is limited (as by `ulimit -v`), read from /proc/self/limits; true where
 * that cannot be read (not Linux), so the probe below runs there.
 */
function addressSpaceLimited(): boolean {
  try {
    const line = /^Max address space\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return line === null || line[1] !== 'unlimited';
  } catch {
    return true;
  }
}

/**
 * Whether this process can reserve a WebAssembly memory at all (a page of it, dropped at once). Only asked where
 * the address space is limited: the probe's reservation (about 10 GB of address space) lives until a collection
 * frees it, so whether it was still there when laz-perf reserved its own memory was chance, and so was the
 * process's peak virtual size (test/fuzz/files.test.ts measures it, and saw 10 GB more in one run of three).
 */
function reservesWasmMemory(): boolean {
  if (!addressSpaceLimited()) return true;
  // (The CLI's types are Node's, without the WebAssembly namespace of the DOM's.)
  const wasm = (
    globalThis as unknown as { WebAssembly: { Memory: new (size: { initial: number }) => { buffer: ArrayBuffer } } }
  ).WebAssembly;
  try {
    return new wasm.Memory({ initial: 1 }).buffer.byteLength > 0;
  } catch {
    return false;
  }
}

/** Dedupes a LAZ file into a LAS `output`. */
export async function dedupeLaz({ input, output, radius, mean, progress }: DedupeJob): Promise<Counts> {
  const clock = stopwatch();
  const reader = new ChunkReader(input);
  let whole: Buffer;
  try {
    if (reader.size > LARGEST_FILE) {
      throw new InputError(input, '', `${reader.size} bytes: LAZ files over 1.5 GiB do not fit laz-perf's memory`);
    }
    whole = Buffer.alloc(reader.size);
    reader.readAt(whole, 0);
  } finally {
    reader.close();
  }
  const header = parseLasHeader(input, whole.subarray(0, Math.min(whole.length, 1 << 16)), whole.length);
  if (!header.compressed)
    throw new InputError(input, 'offset 104', 'not compressed: this is LAS data in a .laz file; name it .las');
  const { bytes, laszip } = lasHeaderBytes(input, whole.subarray(0, header.pointOffset), header);
  header.bytes = bytes;
  const layered = header.format >= 6;
  if (laszip.compressor !== (layered ? 3 : 2)) {
    throw new InputError(
      input,
      'offset 104',
      `point format ${header.format} with LASzip compressor ${laszip.compressor} (${layered ? 3 : 2} expected): laz-perf reads neither older nor mixed files`,
    );
  }
  // EVLRs (LAS 1.4) follow the compressed points: they become the output's tail.
  const minor = whole.readUInt8(25);
  let tailStart = whole.length;
  if (minor >= 4 && header.headerSize >= 375 && whole.readUInt32LE(243) > 0) {
    tailStart = Number(whole.readBigUInt64LE(235));
    if (tailStart > whole.length || tailStart < header.pointOffset + 8)
      throw new InputError(input, 'offset 235', `the first EVLR's offset ${tailStart} is outside the file`);
  }
  const table = chunkTableOf(input, whole, header, laszip, tailStart);
  if (layered) checkLayeredChunks(input, whole, header, laszip, table);
  const data = decodable(whole, header, table);

  const require = createRequire(import.meta.url);
  const { createLazPerf } = require('laz-perf') as {
    createLazPerf: (module: { print(text: string): void; printErr(text: string): void }) => Promise<LazPerfModule>;
  };
  // A start that fails for want of memory takes laz-perf 10 s to report (V8 retries it); one page says it at once.
  if (!reservesWasmMemory()) {
    throw new InputError(
      input,
      '',
      lazPerfStartError(new RangeError('WebAssembly.Memory(): could not allocate memory')),
    );
  }
  let lazPerf: LazPerfModule;
  try {
    // Its own printing is not for the user: a failed start was printed twice around the error it threw.
    lazPerf = await withoutProcessHandlers(() => createLazPerf({ print: () => {}, printErr: () => {} }));
  } catch (error) {
    throw new InputError(input, '', lazPerfStartError(error));
  }
  const filePointer = lazPerf._malloc(data.length);
  const pointPointer = lazPerf._malloc(header.recordLength);
  if (filePointer === 0 || pointPointer === 0) {
    throw new InputError(input, '', `${data.length} bytes do not fit laz-perf's memory`);
  }
  const { count, recordLength } = header;
  const decode = (visit: (i: number, record: Uint8Array) => void) => {
    const laszip = new lazPerf.LASZip();
    try {
      laszip.open(filePointer, data.length);
    } catch (error) {
      throw new InputError(input, '', `laz-perf cannot open it: ${wasmMessage(lazPerf, error)}`);
    }
    if (laszip.getPointLength() !== recordLength) {
      throw new InputError(
        input,
        'offset 105',
        `laz-perf reads ${laszip.getPointLength()}-byte points, the header says ${recordLength}`,
      );
    }
    for (let i = 0; i < count; i++) {
      try {
        laszip.getPoint(pointPointer);
      } catch (error) {
        // The decoder's state is lost after a throw: the module is dropped with this run, never reused.
        const message = wasmMessage(lazPerf, error);
        throw new InputError(
          input,
          `point ${i}`,
          message === 'Unexpected end of file.'
            ? `the compressed points end after ${i.toLocaleString('en-US')} points; the header announces ${count.toLocaleString('en-US')}`
            : `cannot decompress (corrupt LAZ): ${message}`,
        );
      }
      // HEAPU8 is looked up each time: the module's memory may have grown.
      visit(i, lazPerf.HEAPU8.subarray(pointPointer, pointPointer + recordLength));
    }
    laszip.delete();
  };
  try {
    lazPerf.HEAPU8.set(data, filePointer);
    // Memory follows the points decoded: the dedupe keeps a chunk of them and the representatives.
    const dedupe = new PointDedupe(radius, mean);
    decode((i, record) => {
      readPoint(header, record, 0, dedupe);
      if ((i & 0xffff) === 0) progress.update('reading', i, count);
    });
    dedupe.finish();
    const points: LasPoints = { header, tail: whole.subarray(tailStart), tailStart, forEachRecord: decode };
    clock.lap('reading', dedupe.weldSeconds);
    progress.step('merging');
    const moved = mean ? dedupe.means() : undefined;
    clock.lap('welding');
    writeAtomically(output, (out) => writeLas(out, points, dedupe, moved, progress));
    clock.lap('writing');
    const kept = dedupe.count;
    return {
      format: `LAZ ${header.version}`,
      in: count,
      out: kept,
      merged: count - kept,
      dropped: 0,
      timings: clock.timings,
    };
  } finally {
    lazPerf._free(pointPointer);
    lazPerf._free(filePointer);
  }
}

/**
 * Creates the module without the handlers Emscripten's Node build puts on
 * the process (an uncaughtException handler that rethrows, an
 * unhandledRejection one that throws): they would change how the whole
 * process fails, and each module's pair would keep the module, its memory
 * with it, alive for as long as the process runs.
 */
async function withoutProcessHandlers<T>(create: () => Promise<T>): Promise<T> {
  const events = ['uncaughtException', 'unhandledRejection'] as const;
  const before = events.map((event) => process.listeners(event));
  try {
    return await create();
  } finally {
    for (const [k, event] of events.entries()) {
      for (const listener of process.listeners(event)) {
        if (!before[k]!.includes(listener)) process.off(event, listener as (...args: unknown[]) => void);
      }
    }
  }
}
