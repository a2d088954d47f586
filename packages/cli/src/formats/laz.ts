/**
 * LAZ (compressed LAS) input, decompressed by laz-perf, the LASzip
 * implementation of Hobu (the LAZ maintainers) compiled to WebAssembly. The
 * compressed file is copied into its memory whole (LAZ is 7 to 20 % of the
 * LAS size); points are decompressed one at a time, twice (positions, then the
 * records to keep), so the decompressed cloud is never held. The output is
 * LAS: laz-perf does not compress. Its header loses the LASzip VLR and the
 * compression bits of the point format.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { weld } from 'spatialhash';
import { InputError } from '../errors.js';
import { ChunkReader, writeAtomically } from '../files.js';
import type { Counts, DedupeJob } from '../summary.js';
import { type LasPoints, parseLasHeader, readPoint, writeLas } from './las.js';
import { clusterMeans } from './ply.js';

/** The part of laz-perf's module this file uses (its own types need @types/emscripten). */
interface LazPerfModule {
  HEAPU8: Uint8Array;
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
const VLR_HEADER = 54;

/** The header bytes for the LAS output: the LASzip VLR removed, the format's compression bits cleared. */
function lasHeaderBytes(file: string, bytes: Buffer, headerSize: number): Buffer {
  const count = bytes.readUInt32LE(100);
  const parts: Buffer[] = [Buffer.from(bytes.subarray(0, headerSize))];
  let kept = 0;
  let at = headerSize;
  for (let k = 0; k < count; k++) {
    if (at + VLR_HEADER > bytes.length) throw new InputError(file, `offset ${at}`, `VLR ${k} runs past the point data`);
    const user = bytes.toString('latin1', at + 2, at + 18).replace(/\0.*$/s, '');
    const record = bytes.readUInt16LE(at + 18);
    const length = bytes.readUInt16LE(at + 20);
    const end = at + VLR_HEADER + length;
    if (end > bytes.length) throw new InputError(file, `offset ${at}`, `VLR ${k} runs past the point data`);
    if (!(user === LASZIP_USER && record === LASZIP_RECORD)) {
      parts.push(bytes.subarray(at, end));
      kept++;
    }
    at = end;
  }
  // Bytes between the last VLR and the points (user data some writers leave) stay.
  parts.push(bytes.subarray(at));
  const out = Buffer.concat(parts);
  out.writeUInt32LE(kept, 100);
  out.writeUInt32LE(out.length, 96);
  out.writeUInt8(out.readUInt8(104) & 0x3f, 104);
  return out;
}

/** Dedupes a LAZ file into a LAS `output`. */
export async function dedupeLaz({ input, output, radius, mean, progress }: DedupeJob): Promise<Counts> {
  const reader = new ChunkReader(input);
  let whole: Buffer;
  try {
    whole = Buffer.alloc(reader.size);
    reader.readAt(whole, 0);
  } finally {
    reader.close();
  }
  const header = parseLasHeader(input, whole.subarray(0, Math.min(whole.length, 1 << 16)), whole.length);
  if (!header.compressed)
    throw new InputError(input, 'offset 104', 'not compressed: this is LAS data in a .laz file; name it .las');
  if (whole.length < header.pointOffset) {
    throw new InputError(input, `offset ${whole.length}`, 'truncated: the file ends before its point data');
  }
  header.bytes = lasHeaderBytes(input, whole.subarray(0, header.pointOffset), header.headerSize);
  // EVLRs (LAS 1.4) follow the compressed points: they become the output's tail.
  const minor = whole.readUInt8(25);
  let tailStart = whole.length;
  if (minor >= 4 && header.headerSize >= 375 && whole.readUInt32LE(243) > 0) {
    tailStart = Number(whole.readBigUInt64LE(235));
    if (tailStart > whole.length)
      throw new InputError(input, 'offset 235', `the first EVLR's offset ${tailStart} is past the end of the file`);
  }

  const require = createRequire(import.meta.url);
  const { createLazPerf } = require('laz-perf') as { createLazPerf: () => Promise<LazPerfModule> };
  const lazPerf = await createLazPerf();
  const filePointer = lazPerf._malloc(whole.length);
  const pointPointer = lazPerf._malloc(header.recordLength);
  const { count, recordLength } = header;
  const decode = (visit: (i: number, record: Uint8Array) => void) => {
    const laszip = new lazPerf.LASZip();
    try {
      try {
        laszip.open(filePointer, whole.length);
      } catch (error) {
        throw new InputError(input, '', `laz-perf cannot open it: ${describeWasmError(lazPerf, error)}`);
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
          throw new InputError(
            input,
            `point ${i}`,
            `cannot decompress (truncated or corrupt LAZ): ${describeWasmError(lazPerf, error)}`,
          );
        }
        // HEAPU8 is looked up each time: the module's memory may have grown.
        visit(i, lazPerf.HEAPU8.subarray(pointPointer, pointPointer + recordLength));
      }
    } finally {
      laszip.delete();
    }
  };
  try {
    lazPerf.HEAPU8.set(whole, filePointer);
    const positions = new Float64Array(count * 3);
    const returnNumbers = new Uint8Array(count);
    decode((i, record) => {
      readPoint(header, record, 0, i, positions, returnNumbers);
      if ((i & 0xffff) === 0) progress.update('reading', i, count);
    });
    const points: LasPoints = {
      header,
      positions,
      returnNumbers,
      tail: whole.subarray(tailStart),
      tailStart,
      forEachRecord: decode,
    };
    progress.step('merging');
    const { remap, representatives, count: kept } = weld(positions, radius);
    const moved = mean ? clusterMeans(positions, remap, kept) : undefined;
    writeAtomically(output, (out) => writeLas(out, points, remap, representatives, kept, moved, progress));
    return { format: `LAZ ${header.version}`, in: count, out: kept, merged: count - kept, dropped: 0 };
  } finally {
    lazPerf._free(pointPointer);
    lazPerf._free(filePointer);
  }
}

/** laz-perf throws C++ exceptions as numbers (pointers); anything else has a message. */
function describeWasmError(_module: LazPerfModule, error: unknown): string {
  if (error instanceof Error) return error.message;
  return `an error inside the decoder (${String(error)})`;
}
