/**
 * ASCII PLY data, both passes, through the byte scanner (records may span
 * lines, as the format allows). Pass 1 parses every value, checked against
 * its declared type, without building arrays for records of scalars; pass 2
 * copies the lines of kept records byte for byte and writes faces and edges
 * renumbered.
 *
 * @module
 */

import { InputError } from '../errors.js';
import type { AtomicOutput, ChunkReader } from '../files.js';
import type { Progress } from '../progress.js';
import { asciiRecord, asciiScalar, type Header, readAsciiRecord, recordName } from './ply-header.js';
import { type Collector, FaceScratch, keptCorners, type Output, type Plan, renumber } from './ply-plan.js';
import { TextScanner } from './scanner.js';
import { LineBuilder, TextOutput } from './text.js';

/** Pass 1 of ASCII data into `collector`. */
export function readAscii(reader: ChunkReader, header: Header, collector: Collector, progress: Progress): void {
  const file = reader.file;
  const scanner = new TextScanner(reader, header.dataStart, header.dataLine);
  const where = () => `line ${scanner.line}`;
  for (const plan of collector.plans) {
    const { element } = plan;
    const { properties } = element;
    const row = new Float64Array(properties.length);
    const scalars = element.recordSize !== undefined;
    // Which value is being read, for an error: one closure for the element, not one a value.
    let i = 0;
    let k = 0;
    const value = () => recordName(element, i, properties[k]!);
    for (i = 0; i < element.count; i++) {
      if ((i & 0xffff) === 0) progress.update('reading', scanner.position, reader.size);
      if (scalars) {
        for (k = 0; k < properties.length; k++) row[k] = asciiScalar(scanner, properties[k]!.type, file, value);
        if (plan.role === 'vertex') collector.vertexRecord(i, row, where);
        else if (plan.role === 'edge') {
          for (const end of plan.ends)
            if (end >= 0) collector.index(row[end]!, where, () => recordName(element, i, properties[end]!));
        }
      } else if (plan.simple) {
        const property = properties[0]!;
        k = 0;
        const length = asciiScalar(scanner, property.countType!, file, value);
        collector.sizes.push(length);
        for (let c = 0; c < length; c++)
          collector.corner(plan, i, c, asciiScalar(scanner, property.type, file, value), where);
      } else collector.record(plan, i, readAsciiRecord(scanner, element, i, file), where);
    }
  }
  if (scanner.moreTokens()) {
    scanner.skipToken();
    throw new InputError(file, where(), `data after the last element: ${JSON.stringify(scanner.token.slice(0, 40))}`);
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

/** Pass 2 of ASCII data: kept vertex lines copied (or rewritten with `moved`), faces and edges renumbered, the rest copied. */
export function writeAscii(
  out: AtomicOutput,
  reader: ChunkReader,
  header: Header,
  plans: Plan[],
  output: Output,
  progress: Progress,
): void {
  const { remap, isRepresentative, moved, xyz } = output;
  const file = reader.file;
  const scanner = new TextScanner(reader, header.dataStart, header.dataLine);
  const scratch = new FaceScratch();
  const face = new LineBuilder();
  // PLY text is written as its bytes are: no encoding of its own.
  const text = new TextOutput(out, 'bytes');
  let welded = 0;
  for (const plan of plans) {
    const { element } = plan;
    const scalars = element.recordSize !== undefined;
    // Records copied as they are (kept vertices, other elements) need no numbers: their tokens are skipped.
    const copied = scalars && ((plan.role === 'vertex' && moved === undefined) || plan.role === 'other');
    for (let i = 0; i < element.count; i++) {
      if ((i & 0xffff) === 0) progress.update('writing', scanner.position, reader.size);
      scanner.moreTokens();
      const line = scanner.line;
      const ownLine = scanner.pos === scanner.lineStart || onlyBlanksBefore(scanner);
      if (copied) {
        const keep = plan.role === 'other' || isRepresentative(i);
        const copy = skipRecord(scanner, element.properties.length, ownLine);
        if (keep) {
          if (copy === undefined) text.line(scanner);
          else text.text(`${copy}\n`);
          if (plan.role === 'vertex') welded++;
        }
        continue;
      }
      if (plan.simple) {
        // Checked in pass 1: the numbers are read as they come.
        const length = scanner.numberAcross();
        scratch.reserve(length);
        for (let k = 0; k < length; k++) scratch.items[k] = scanner.numberAcross();
        const kept = keptCorners(scratch.items, length, remap, scratch.places);
        if (kept === 0) continue;
        face.reset();
        face.integer(kept);
        for (let k = 0; k < kept; k++) {
          face.byte(32);
          face.integer(remap[scratch.items[scratch.places[k]!]!]!);
        }
        face.byte(10);
        text.built(face);
        continue;
      }
      const record = readAsciiRecord(scanner, element, i, file);
      const whole = ownLine && scanner.line === line && scanner.atLineEnd();
      if (plan.role === 'vertex') {
        if (!isRepresentative(i)) continue;
        if (moved !== undefined) for (let axis = 0; axis < 3; axis++) record[xyz[axis]] = moved[welded * 3 + axis]!;
        welded++;
      } else if (plan.role === 'other') {
        if (whole) {
          text.line(scanner);
          continue;
        }
      } else if (!renumber(plan, record, remap, scratch)) continue;
      text.text(asciiRecord(record));
    }
  }
  text.flush();
}
