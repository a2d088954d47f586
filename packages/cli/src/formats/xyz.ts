/**
 * XYZ and CSV point clouds: one point a line, columns separated by commas,
 * semicolons, tabs or spaces (the first data line decides). A first line that
 * is not numbers is a header: CSV columns named x, y and z (any case) are the
 * coordinates, else the first three. Lines starting with # or // and empty
 * lines are kept where they are. Each representative's line is written back
 * unchanged (with `--mean`, its three coordinates replaced by the cluster's
 * mean), so other columns (intensity, colour) come along.
 *
 * Coordinates are decimal numbers. A UTF-8 byte-order mark (Excel's CSV) is
 * skipped and written back; UTF-16 text with its mark (Excel's "Unicode
 * text") is read and written as UTF-16.
 *
 * @module
 */

import { PointDedupe } from '../dedupe-points.js';
import { InputError } from '../errors.js';
import { ChunkReader, writeAtomically } from '../files.js';
import { type Counts, type DedupeJob, stopwatch } from '../summary.js';
import { parseDecimal } from './decimal.js';
import { TextScanner } from './scanner.js';
import { numberText, TextOutput } from './text.js';

interface Layout {
  /** The separator byte (space: runs of spaces and tabs), and the text joining columns back. */
  separator: number;
  join: string;
  columns: [number, number, number];
  /** Line number of the header, or 0. */
  headerLine: number;
}

const SPACE = 32;
const TAB = 9;

/** Whether the scanner's current line is empty or a comment (# or //). */
function isComment(scanner: TextScanner): boolean {
  const c = scanner.peek();
  return c === -1 || c === 35 || (c === 47 && scanner.buffer[scanner.pos + 1] === 47);
}

/**
 * The columns of the current line: start and end of each field in the
 * scanner's buffer, up to `wanted` of them, written to `bounds`; returns how
 * many fields the line has (up to `wanted`). Fields are trimmed of blanks.
 */
function fieldsOf(scanner: TextScanner, separator: number, bounds: Int32Array, wanted: number): number {
  const b = scanner.buffer;
  const end = scanner.lineEnd;
  let p = scanner.lineStart;
  let count = 0;
  const blank = (c: number) => c === SPACE || c === 13 || (c === TAB && separator !== TAB);
  if (separator === SPACE) {
    while (count < wanted) {
      while (p < end && (b[p] === SPACE || b[p] === TAB || b[p] === 13)) p++;
      if (p >= end) break;
      const start = p;
      while (p < end && b[p] !== SPACE && b[p] !== TAB && b[p] !== 13) p++;
      bounds[count * 2] = start;
      bounds[count * 2 + 1] = p;
      count++;
    }
    return count;
  }
  while (count < wanted) {
    while (p < end && blank(b[p]!)) p++;
    const start = p;
    while (p < end && b[p] !== separator) p++;
    let last = p;
    while (last > start && blank(b[last - 1]!)) last--;
    bounds[count * 2] = start;
    bounds[count * 2 + 1] = last;
    count++;
    if (p >= end) break;
    p++;
  }
  return count;
}

function separatorOf(line: string): { separator: number; join: string } {
  if (line.includes(',')) return { separator: 44, join: ',' };
  if (line.includes(';')) return { separator: 59, join: ';' };
  if (line.includes('\t')) return { separator: TAB, join: '\t' };
  return { separator: SPACE, join: ' ' };
}

/** Finds the header (if any), separator and coordinate columns from the first lines. */
function layoutOf(reader: ChunkReader): Layout {
  const scanner = new TextScanner(reader);
  const bounds = new Int32Array(2 * 64);
  let header: string[] | undefined;
  let headerLine = 0;
  while (scanner.nextLine()) {
    if (isComment(scanner)) continue;
    const { separator, join } = separatorOf(scanner.lineText());
    const count = fieldsOf(scanner, separator, bounds, 64);
    let numeric = count >= 3;
    for (let k = 0; k < 3 && numeric; k++) {
      const value = parseDecimal(scanner.buffer, bounds[k * 2]!, bounds[k * 2 + 1]!);
      numeric = !Number.isNaN(value);
    }
    if (!numeric && header === undefined) {
      header = [];
      for (let k = 0; k < count; k++) {
        const field = scanner.buffer.toString('utf8', bounds[k * 2]!, bounds[k * 2 + 1]!);
        header.push(field.replace(/^"|"$/g, '').trim().toLowerCase());
      }
      headerLine = scanner.line;
      continue;
    }
    let columns: [number, number, number] = [0, 1, 2];
    if (header !== undefined) {
      const named = ['x', 'y', 'z'].map((name) => header!.indexOf(name));
      if (named.every((k) => k >= 0)) columns = named as [number, number, number];
    }
    return { separator, join, columns, headerLine };
  }
  return { separator: SPACE, join: ' ', columns: [0, 1, 2], headerLine };
}

/** Dedupes an XYZ or CSV point cloud into `output`. */
export function dedupeXyz({ input, output, radius, mean, progress }: DedupeJob): Counts {
  const clock = stopwatch();
  const reader = new ChunkReader(input);
  try {
    const layout = layoutOf(reader);
    const { separator, columns } = layout;
    const wanted = Math.max(...columns) + 1;
    const bounds = new Int32Array(wanted * 2);
    const dedupe = new PointDedupe(radius, mean);
    const point = new Float64Array(3);
    const isData = (scanner: TextScanner) => !isComment(scanner) && scanner.line !== layout.headerLine;
    const scanner = new TextScanner(reader);
    while (scanner.nextLine()) {
      if ((scanner.line & 0xffff) === 0) progress.update('reading', scanner.position, reader.size);
      if (!isData(scanner)) continue;
      const count = fieldsOf(scanner, separator, bounds, wanted);
      for (const [axis, column] of columns.entries()) {
        if (column >= count) {
          throw new InputError(
            input,
            `line ${scanner.line}`,
            `point has ${count} columns, the ${'xyz'[axis]} coordinate is column ${column + 1}`,
          );
        }
        const start = bounds[column * 2]!;
        const end = bounds[column * 2 + 1]!;
        const value = parseDecimal(scanner.buffer, start, end);
        if (Number.isNaN(value)) {
          const text = scanner.buffer.toString('latin1', start, Math.min(end, start + 40));
          throw new InputError(
            input,
            `line ${scanner.line}`,
            `${'xyz'[axis]} is not a finite decimal number: ${JSON.stringify(text)}`,
          );
        }
        point[axis] = value;
      }
      dedupe.push(point[0]!, point[1]!, point[2]!);
    }
    dedupe.finish();
    const n = dedupe.points;
    const count = dedupe.count;
    const kept = dedupe.kept.array;
    clock.lap('reading', dedupe.weldSeconds);
    progress.step('merging');
    const moved = mean ? dedupe.means() : undefined;
    clock.lap('welding');
    writeAtomically(output, (out) => {
      const scanner = new TextScanner(reader);
      const text = new TextOutput(out, scanner.encoding);
      const all = new Int32Array(2 * 4096);
      let i = 0;
      let r = 0;
      while (scanner.nextLine()) {
        if ((scanner.line & 0xffff) === 0) progress.update('writing', scanner.position, reader.size);
        if (!isData(scanner)) {
          text.line(scanner);
          continue;
        }
        if (kept[i] === 1) {
          if (moved === undefined) text.line(scanner);
          else {
            // The three coordinates replaced, the other fields and the line's indent as they were.
            const fields = fieldsOf(scanner, separator, all, 4096);
            const b = scanner.buffer;
            const parts: string[] = [];
            for (let k = 0; k < fields; k++) parts.push(b.toString('latin1', all[k * 2]!, all[k * 2 + 1]!));
            for (const [axis, column] of columns.entries()) parts[column] = numberText(moved[r * 3 + axis]!);
            let indent = scanner.lineStart;
            while (indent < scanner.lineEnd && (b[indent] === SPACE || b[indent] === TAB)) indent++;
            const lead = b.toString('latin1', scanner.lineStart, indent);
            text.text(`${lead}${parts.join(layout.join)}\n`);
          }
          r++;
        }
        i++;
      }
      text.flush();
    });
    clock.lap('writing');
    return {
      format: input.toLowerCase().endsWith('.csv') ? 'CSV' : 'XYZ',
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
