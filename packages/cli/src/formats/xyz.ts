/**
 * XYZ and CSV point clouds: one point a line, columns separated by commas,
 * semicolons, tabs or spaces (the first data line decides). A first line that
 * is not numbers is a header: CSV columns named x, y and z (any case) are the
 * coordinates, else the first three. Lines starting with # or // and empty
 * lines are kept where they are. Each representative's line is written back
 * unchanged (with `--mean`, its three coordinates replaced by the cluster's
 * mean), so other columns (intensity, colour) come along.
 *
 * @module
 */

import { weld } from 'spatialhash';
import { InputError } from '../errors.js';
import { ChunkReader, writeAtomically } from '../files.js';
import { Float64List } from '../growable.js';
import type { Counts, DedupeJob } from '../summary.js';
import { clusterMeans } from './ply.js';
import { numberText } from './text.js';

interface Layout {
  /** A regular expression splitting a line into columns, and the text joining them back. */
  split: RegExp;
  join: string;
  columns: [number, number, number];
  /** Line number of the header, or 0. */
  headerLine: number;
}

const isComment = (line: string) => {
  const trimmed = line.trimStart();
  return trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('//');
};

function splitterOf(line: string): { split: RegExp; join: string } {
  if (line.includes(',')) return { split: /\s*,\s*/, join: ',' };
  if (line.includes(';')) return { split: /\s*;\s*/, join: ';' };
  if (line.includes('\t')) return { split: /\t/, join: '\t' };
  return { split: /\s+/, join: ' ' };
}

/** Finds the header (if any), separator and coordinate columns from the first lines. */
function layoutOf(reader: ChunkReader): Layout {
  let layout: Layout | undefined;
  let header: string[] | undefined;
  let headerLine = 0;
  reader.forEachLine(0, 1, (line, number) => {
    if (isComment(line)) return true;
    const { split, join } = splitterOf(line);
    const fields = line.trim().split(split);
    const numeric = fields.length >= 3 && fields.slice(0, 3).every((f) => f !== '' && Number.isFinite(Number(f)));
    if (!numeric && header === undefined) {
      header = fields.map((f) => f.replace(/^"|"$/g, '').trim().toLowerCase());
      headerLine = number;
      return true;
    }
    let columns: [number, number, number] = [0, 1, 2];
    if (header !== undefined) {
      const named = ['x', 'y', 'z'].map((name) => header!.indexOf(name));
      if (named.every((k) => k >= 0)) columns = named as [number, number, number];
    }
    layout = { split, join, columns, headerLine };
    return false;
  });
  return layout ?? { split: /\s+/, join: ' ', columns: [0, 1, 2], headerLine };
}

/** Dedupes an XYZ or CSV point cloud into `output`. */
export function dedupeXyz({ input, output, radius, mean, progress }: DedupeJob): Counts {
  const reader = new ChunkReader(input);
  try {
    const layout = layoutOf(reader);
    const { split, columns } = layout;
    const positions = new Float64List();
    let lines = 0;
    const isData = (line: string, number: number) => !isComment(line) && number !== layout.headerLine;
    reader.forEachLine(0, 1, (line, number) => {
      if ((++lines & 0xffff) === 0) progress.update('reading', reader.position, reader.size);
      if (!isData(line, number)) return true;
      const fields = line.trim().split(split);
      for (const [axis, column] of columns.entries()) {
        const text = fields[column];
        const value = text === undefined || text === '' ? Number.NaN : Number(text);
        if (!Number.isFinite(value)) {
          throw new InputError(
            input,
            `line ${number}`,
            text === undefined
              ? `point has ${fields.length} columns, the ${'xyz'[axis]} coordinate is column ${column + 1}`
              : `${'xyz'[axis]} is not a finite number: ${JSON.stringify(text)}`,
          );
        }
        positions.push(value);
      }
      return true;
    });
    const coords = positions.values();
    const n = coords.length / 3;
    progress.step('merging');
    const { remap, representatives, count } = weld(coords, radius);
    const moved = mean ? clusterMeans(coords, remap, count) : undefined;
    writeAtomically(output, (out) => {
      let i = 0;
      reader.forEachLine(0, 1, (line, number) => {
        if ((number & 0xffff) === 0) progress.update('writing', reader.position, reader.size);
        if (!isData(line, number)) {
          out.text(`${line}\n`);
          return true;
        }
        const r = remap[i]!;
        if (representatives[r] === i) {
          if (moved === undefined) out.text(`${line}\n`);
          else {
            const lead = /^\s*/.exec(line)![0];
            const fields = line.trim().split(split);
            for (const [axis, column] of columns.entries()) fields[column] = numberText(moved[r * 3 + axis]!);
            out.text(`${lead}${fields.join(layout.join)}\n`);
          }
        }
        i++;
        return true;
      });
    });
    return {
      format: input.toLowerCase().endsWith('.csv') ? 'CSV' : 'XYZ',
      in: n,
      out: count,
      merged: n - count,
      dropped: 0,
    };
  } finally {
    reader.close();
  }
}
