/**
 * STL, binary and ASCII: a triangle soup with no index, so the welded file
 * keeps one record per triangle with each corner moved to its welded vertex
 * (the representative's exact coordinates): seams close, and a slicer finds
 * the edges shared. Triangles with two corners on one welded vertex are
 * dropped. Normals are recomputed from the moved corners; a binary file keeps
 * its 80-byte header and each triangle's two attribute bytes (colour in some
 * dialects), an ASCII one its solid names.
 *
 * Binary input is read in chunks straight into a Float32Array (12 bytes per
 * vertex), which weld reads in place: with weld's own arrays a binary STL
 * costs about 3 to 4 times its size in memory, never a copy of the file.
 *
 * @module
 */

import { weld } from 'spatialhash';
import { InputError } from '../errors.js';
import { type AtomicOutput, ChunkReader, writeAtomically } from '../files.js';
import { Float64List } from '../growable.js';
import type { Progress } from '../progress.js';
import { type Counts, stopwatch, type WeldJob } from '../summary.js';
import { type TextEncoding, TextScanner, textRead } from './scanner.js';
import { parseAsciiStl } from './stl-fast.js';
import { numberText, readNumber, TextOutput } from './text.js';

const HEADER = 80;
const RECORD = 50;

/**
 * Which reader takes an ASCII STL. `auto`: stl-fast.ts's regular expressions
 * (native from a command's start) for a file up to 4 MiB while this process
 * has read less than 4 MiB of text through the scanners, else the byte loop
 * alone; `fast`: the regular expressions whatever the size; `bytes`: the
 * byte loop. The regular expressions fall back to the byte loop on anything
 * they do not take. Once V8 has compiled the byte loop (a few MB into a
 * process: the bench's warm runs, a server) it reads as fast, and streams the
 * file instead of holding it.
 */
export type AsciiReader = 'auto' | 'fast' | 'bytes';

const FAST_ASCII_LIMIT = 4 << 20;
const WARM_TEXT = 4 << 20;

/** An STL as weld needs it. */
interface Stl {
  binary: boolean;
  /** 9 coordinates per triangle, corners in file order. */
  positions: Float32Array | Float64Array;
  triangles: number;
  /** Binary: the 80-byte header and each triangle's attribute bytes. */
  header?: Uint8Array;
  attributes?: Uint16Array;
  /** ASCII: each solid's name line and its first triangle, and the text's encoding. */
  solids?: { name: Buffer; first: number }[];
  encoding?: TextEncoding;
}

/** Whether bytes look like text: no control characters but tab, line feed, carriage return, form feed. */
function looksLikeText(bytes: Uint8Array): boolean {
  for (const c of bytes) if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) return false;
  return true;
}

/**
 * Reads an STL. Binary when its size is what the triangle count in its header
 * says (84 + 50 n bytes), whatever the header's text; otherwise ASCII when it
 * starts with `solid` (any case, after an optional byte-order mark) and reads
 * as text, else a binary file of the wrong size.
 */
export function readStl(file: string, progress: Progress, asciiReader: AsciiReader = 'auto'): Stl {
  const reader = new ChunkReader(file);
  try {
    const head = Buffer.alloc(Math.min(reader.size, 512));
    reader.readAt(head, 0);
    if (reader.size >= HEADER + 4) {
      const triangles = head.readUInt32LE(HEADER);
      if (HEADER + 4 + RECORD * triangles === reader.size) return readBinary(reader, head, triangles, progress);
    }
    const ascii = /^(\xef\xbb\xbf)?\s*solid(\s|$)/i.test(head.toString('latin1')) && looksLikeText(head);
    if (ascii) {
      const fast =
        asciiReader === 'fast' ||
        (asciiReader === 'auto' && reader.size <= FAST_ASCII_LIMIT && textRead.bytes < WARM_TEXT);
      return (fast && readAsciiFast(reader, progress)) || readAscii(reader, progress);
    }
    if (reader.size < HEADER + 4) {
      throw new InputError(
        file,
        `offset ${reader.size}`,
        `truncated: ${reader.size} bytes is too short for a binary STL (84-byte header) and it is not ASCII STL (starting with "solid")`,
      );
    }
    const triangles = head.readUInt32LE(HEADER);
    const expected = HEADER + 4 + RECORD * triangles;
    const whole = Math.floor((reader.size - HEADER - 4) / RECORD);
    throw new InputError(
      file,
      `offset ${HEADER}`,
      reader.size < expected
        ? `truncated binary STL: the header announces ${triangles} triangles (${expected} bytes) but the file has ${reader.size} bytes; triangle ${whole} is incomplete at offset ${HEADER + 4 + RECORD * whole}`
        : `binary STL with ${reader.size - expected} bytes after the ${triangles} triangles its header announces (ends at offset ${expected})`,
    );
  } finally {
    reader.close();
  }
}

function readBinary(reader: ChunkReader, head: Buffer, triangles: number, progress: Progress): Stl {
  // The count matches the file's size (checked by the caller), so this is bounded by it.
  const positions = new Float32Array(triangles * 9);
  const attributes = new Uint16Array(triangles);
  let t = 0;
  const start = HEADER + 4;
  reader.forEachChunk(start, reader.size, RECORD, (chunk, offset) => {
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let at = 0; at < chunk.length; at += RECORD, t++) {
      // 12 bytes of normal, recomputed on output; then the corners.
      for (let k = 0; k < 9; k++) {
        const value = view.getFloat32(at + 12 + k * 4, true);
        if (value - value !== 0) {
          throw new InputError(
            reader.file,
            `offset ${offset + at + 12 + k * 4}`,
            `triangle ${t} has a non-finite coordinate (${value})`,
          );
        }
        positions[t * 9 + k] = value;
      }
      attributes[t] = view.getUint16(at + 48, true);
    }
    progress.update('reading', offset + chunk.length, reader.size);
  });
  return { binary: true, positions, triangles, header: head.subarray(0, HEADER), attributes };
}

/** The grammar of ASCII STL, one line at a time: what the next line must be. */
type State = 'solid' | 'facet' | 'loop' | 'vertex' | 'endloop' | 'endfacet';

const EXPECTED: Record<State, string> = {
  solid: '"solid"',
  facet: '"facet normal" and its 3 values, or "endsolid"',
  loop: '"outer loop"',
  vertex: '"vertex" and 3 numbers',
  endloop: '"endloop" (a facet has 3 vertices)',
  endfacet: '"endfacet"',
};

/** A small ASCII STL read by stl-fast.ts, or undefined when that reader does not take it (the byte loop then reads it). */
function readAsciiFast(reader: ChunkReader, progress: Progress): Stl | undefined {
  const bytes = Buffer.allocUnsafe(reader.size);
  if (reader.readAt(bytes, 0) !== reader.size) return undefined;
  const stl = parseAsciiStl(bytes);
  if (stl === undefined) return undefined;
  progress.update('reading', reader.size, reader.size);
  return { binary: false, ...stl, triangles: stl.positions.length / 9 };
}

/**
 * ASCII STL: keywords in any case (some exporters write `SOLID`, `FACET`),
 * one statement a line, nothing after it; facet normals not read (they are
 * recomputed, and some exporters write `nan`), coordinates decimal numbers.
 */
function readAscii(reader: ChunkReader, progress: Progress): Stl {
  const file = reader.file;
  const scanner = new TextScanner(reader);
  const positions = new Float64List();
  const solids: { name: Buffer; first: number }[] = [];
  let state: State = 'solid';
  let corners = 0;
  let lastLine = 0;
  while (scanner.nextLine()) {
    if ((scanner.line & 0xffff) === 0) progress.update('reading', scanner.position, reader.size);
    if (scanner.atLineEnd()) continue;
    lastLine = scanner.line;
    const was = state;
    let ok: boolean;
    switch (state) {
      case 'solid':
        ok = scanner.keyword('solid', true);
        if (ok) {
          scanner.atLineEnd();
          // The name's bytes as they are (it may be UTF-8 or, read from UTF-16, re-encoded), trailing blanks off.
          let end = scanner.lineEnd;
          while (end > scanner.pos && (scanner.buffer[end - 1] === 32 || scanner.buffer[end - 1] === 9)) end--;
          solids.push({ name: Buffer.from(scanner.buffer.subarray(scanner.pos, end)), first: positions.length / 9 });
          state = 'facet';
        }
        break;
      case 'facet':
        ok = true;
        if (scanner.keyword('endsolid', true)) state = 'solid';
        else if (scanner.keyword('facet', true) && scanner.keyword('normal', true)) {
          // The normal's three values are not read (they are recomputed; some exporters write nan), but they are there.
          for (let k = 0; k < 3 && ok; k++) {
            ok = !scanner.atLineEnd();
            scanner.skipToken();
          }
          ok &&= scanner.atLineEnd();
          state = 'loop';
        } else ok = false;
        break;
      case 'loop':
        ok = scanner.keyword('outer', true) && scanner.keyword('loop', true) && scanner.atLineEnd();
        state = 'vertex';
        corners = 0;
        break;
      case 'vertex':
        ok = scanner.keyword('vertex', true);
        if (ok) {
          for (let axis = 0; axis < 3; axis++)
            positions.push(readNumber(scanner, file, `vertex coordinate ${'xyz'[axis]}`));
          ok = scanner.atLineEnd();
        }
        if (ok && ++corners === 3) state = 'endloop';
        break;
      case 'endloop':
        ok = scanner.keyword('endloop', true) && scanner.atLineEnd();
        state = 'endfacet';
        break;
      case 'endfacet':
        ok = scanner.keyword('endfacet', true) && scanner.atLineEnd();
        state = 'facet';
        break;
    }
    if (!ok) {
      const expected = was === 'vertex' ? `"vertex" and 3 numbers (corner ${corners + 1} of 3)` : EXPECTED[was];
      throw new InputError(
        file,
        `line ${scanner.line}`,
        `expected ${expected}, found ${JSON.stringify(scanner.lineText().trim().slice(0, 60))}`,
      );
    }
  }
  if (state !== 'solid') {
    throw new InputError(
      file,
      `line ${lastLine}`,
      `truncated ASCII STL: the file ends inside a ${state === 'facet' ? 'solid' : 'facet'}`,
    );
  }
  if (solids.length === 0) throw new InputError(file, 'line 1', 'empty file: expected "solid"');
  return {
    binary: false,
    positions: positions.values(),
    triangles: positions.length / 9,
    solids,
    encoding: scanner.encoding,
  };
}

/** Welds an STL file into `output` (same encoding). */
export function weldStl({ input, output, tolerance, progress }: WeldJob): Counts {
  const clock = stopwatch();
  const stl = readStl(input, progress);
  clock.lap('reading');
  progress.step('welding');
  const { remap, representatives, count } = weld(stl.positions, tolerance);
  const keep = new Uint8Array(stl.triangles);
  let kept = 0;
  for (let t = 0; t < stl.triangles; t++) {
    const a = remap[t * 3]!;
    const b = remap[t * 3 + 1]!;
    const c = remap[t * 3 + 2]!;
    if (a !== b && b !== c && a !== c) {
      keep[t] = 1;
      kept++;
    }
  }
  clock.lap('welding');
  writeAtomically(output, (out) => {
    if (stl.binary) writeBinary(out, stl, remap, representatives, keep, kept, progress);
    else writeAscii(out, stl, remap, representatives, keep, progress);
  });
  clock.lap('writing');
  const vertices = stl.triangles * 3;
  return {
    format: stl.binary ? 'binary STL' : 'ASCII STL',
    in: vertices,
    out: count,
    merged: vertices - count,
    dropped: stl.triangles - kept,
    timings: clock.timings,
  };
}

/** The welded corners of triangle t into `corner` (9 numbers) and its unit normal into `normal`. */
function weldedTriangle(
  stl: Stl,
  remap: Uint32Array,
  representatives: Uint32Array,
  t: number,
  corner: Float64Array,
  normal: Float64Array,
): void {
  const { positions } = stl;
  for (let k = 0; k < 3; k++) {
    const founder = representatives[remap[t * 3 + k]!]! * 3;
    corner[k * 3] = positions[founder]!;
    corner[k * 3 + 1] = positions[founder + 1]!;
    corner[k * 3 + 2] = positions[founder + 2]!;
  }
  const ux = corner[3]! - corner[0]!;
  const uy = corner[4]! - corner[1]!;
  const uz = corner[5]! - corner[2]!;
  const vx = corner[6]! - corner[0]!;
  const vy = corner[7]! - corner[1]!;
  const vz = corner[8]! - corner[2]!;
  const nx = uy * vz - uz * vy;
  const ny = uz * vx - ux * vz;
  const nz = ux * vy - uy * vx;
  const length = Math.hypot(nx, ny, nz);
  // A sliver whose cross product underflows keeps a zero normal, which readers take as "compute it yourself".
  const scale = length > 0 ? 1 / length : 0;
  normal[0] = nx * scale;
  normal[1] = ny * scale;
  normal[2] = nz * scale;
}

function writeBinary(
  out: AtomicOutput,
  stl: Stl,
  remap: Uint32Array,
  representatives: Uint32Array,
  keep: Uint8Array,
  kept: number,
  progress: Progress,
): void {
  const head = Buffer.alloc(HEADER + 4);
  head.set(stl.header!);
  head.writeUInt32LE(kept, HEADER);
  out.bytes(head);
  const corner = new Float64Array(9);
  const normal = new Float64Array(3);
  const perReserve = Math.floor(out.capacity / RECORD);
  for (let t = 0; t < stl.triangles; ) {
    // Fill the writer's buffer in place, a run of records at a time.
    const slice = out.reserve(perReserve * RECORD);
    const view = new DataView(slice.buffer, slice.byteOffset, slice.byteLength);
    let at = 0;
    for (; t < stl.triangles && at < slice.length; t++) {
      if (keep[t] === 0) continue;
      weldedTriangle(stl, remap, representatives, t, corner, normal);
      for (let k = 0; k < 3; k++) view.setFloat32(at + k * 4, normal[k]!, true);
      for (let k = 0; k < 9; k++) view.setFloat32(at + 12 + k * 4, corner[k]!, true);
      view.setUint16(at + 48, stl.attributes![t]!, true);
      at += RECORD;
    }
    out.advance(at);
    progress.update('writing', t, stl.triangles);
  }
}

function writeAscii(
  out: AtomicOutput,
  stl: Stl,
  remap: Uint32Array,
  representatives: Uint32Array,
  keep: Uint8Array,
  progress: Progress,
): void {
  const corner = new Float64Array(9);
  const normal = new Float64Array(3);
  const solids = stl.solids!;
  const text = new TextOutput(out, stl.encoding!);
  const named = (keyword: string, name: Buffer) => {
    text.text(name.length === 0 ? keyword : `${keyword} `);
    text.copy(name, 0, name.length, true);
  };
  for (const [s, solid] of solids.entries()) {
    const end = s + 1 < solids.length ? solids[s + 1]!.first : stl.triangles;
    named('solid', solid.name);
    for (let t = solid.first; t < end; t++) {
      if (keep[t] === 0) continue;
      weldedTriangle(stl, remap, representatives, t, corner, normal);
      const v = (k: number) =>
        `${numberText(corner[k * 3]!)} ${numberText(corner[k * 3 + 1]!)} ${numberText(corner[k * 3 + 2]!)}`;
      text.text(
        `  facet normal ${numberText(normal[0]!)} ${numberText(normal[1]!)} ${numberText(normal[2]!)}\n    outer loop\n      vertex ${v(0)}\n      vertex ${v(1)}\n      vertex ${v(2)}\n    endloop\n  endfacet\n`,
      );
      if ((t & 0xffff) === 0) progress.update('writing', t, stl.triangles);
    }
    named('endsolid', solid.name);
  }
  text.flush();
}
