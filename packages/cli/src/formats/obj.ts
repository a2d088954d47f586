/**
 * Wavefront OBJ: two passes over the text. The first reads the `v` lines
 * (positions, and the vertex colours some exporters append, compared exactly
 * unless `--ignore color`) and checks every vertex reference; the second
 * copies the file line by line, keeping only the representatives' `v` lines
 * (their text unchanged, so they come out in representative order) and
 * rewriting the position index of each corner of `f`, `l` and `p` to the
 * welded vertex (absolute, 1-based), texture and normal references untouched.
 * A face keeps its corners minus those that land on the vertex before them; it
 * is dropped, and counted, when fewer than 3 are left (a line: fewer than 2).
 * Everything else (groups, materials, vt, vn, comments) passes through.
 *
 * @module
 */

import { InputError } from '../errors.js';
import { ChunkReader, writeAtomically } from '../files.js';
import { Float64List } from '../growable.js';
import type { Progress } from '../progress.js';
import type { Counts, WeldJob } from '../summary.js';
import { type VertexAttribute, weldVertices } from '../weld-vertices.js';
import { finiteNumber, tokens } from './text.js';

/** Free-form geometry refers to vertices in ways this tool does not rewrite. */
const FREE_FORM = new Set(['curv', 'curv2', 'surf', 'sp', 'cstype', 'vp']);

interface Pass1 {
  positions: Float64Array;
  /** Vertex colours (or w): count of extra numbers, then up to 4 of them, per vertex; undefined when no vertex has any. */
  extras: Float64Array | undefined;
}

/** The 0-based vertex a reference token (`7`, `-2`, `7/3`, `7//2`, `7/3/2`) names, checked against `count`. */
function vertexOf(token: string, count: number, file: string, line: number): number {
  const slash = token.indexOf('/');
  const text = slash < 0 ? token : token.slice(0, slash);
  const value = Number(text);
  if (!Number.isInteger(value) || value === 0 || text === '') {
    throw new InputError(file, `line ${line}`, `vertex reference ${JSON.stringify(token)} is not a non-zero integer`);
  }
  const vertex = value > 0 ? value - 1 : count + value;
  if (vertex < 0 || (value < 0 && vertex >= count)) {
    throw new InputError(
      file,
      `line ${line}`,
      `vertex reference ${token} is before the first vertex (${count} so far)`,
    );
  }
  return vertex;
}

function readObj(reader: ChunkReader, progress: Progress): Pass1 {
  const file = reader.file;
  const positions = new Float64List();
  const extraRows: { vertex: number; values: number[] }[] = [];
  let count = 0;
  let furthest = -1;
  let furthestLine = 0;
  let lines = 0;
  reader.forEachLine(0, 1, (line, number) => {
    if ((++lines & 0xffff) === 0) progress.update('reading', reader.position, reader.size);
    if (line.endsWith('\\')) {
      throw new InputError(file, `line ${number}`, 'line continuation (a trailing backslash) is not supported');
    }
    const words = tokens(line);
    const keyword = words[0];
    if (keyword === 'v') {
      if (words.length < 4)
        throw new InputError(file, `line ${number}`, `a vertex needs x, y and z, got ${words.length - 1} numbers`);
      if (words.length > 8)
        throw new InputError(
          file,
          `line ${number}`,
          `a vertex has at most 7 numbers (x y z and w or a colour), got ${words.length - 1}`,
        );
      for (let axis = 1; axis <= 3; axis++)
        positions.push(finiteNumber(words[axis], file, number, `vertex ${'xyz'[axis - 1]}`));
      if (words.length > 4) {
        extraRows.push({
          vertex: count,
          values: words.slice(4).map((w, k) => finiteNumber(w, file, number, `vertex value ${k + 4}`)),
        });
      }
      count++;
    } else if (keyword === 'f' || keyword === 'l' || keyword === 'p') {
      const least = keyword === 'f' ? 3 : keyword === 'l' ? 2 : 1;
      if (words.length - 1 < least) {
        throw new InputError(
          file,
          `line ${number}`,
          `"${keyword}" needs at least ${least} vertices, got ${words.length - 1}`,
        );
      }
      for (let k = 1; k < words.length; k++) {
        const vertex = vertexOf(words[k]!, count, file, number);
        if (vertex > furthest) {
          furthest = vertex;
          furthestLine = number;
        }
      }
    } else if (keyword !== undefined && FREE_FORM.has(keyword)) {
      throw new InputError(file, `line ${number}`, `free-form geometry ("${keyword}") is not supported`);
    }
    return true;
  });
  if (furthest >= count) {
    throw new InputError(
      file,
      `line ${furthestLine}`,
      `vertex reference ${furthest + 1} is past the last vertex (the file has ${count})`,
    );
  }
  let extras: Float64Array | undefined;
  if (extraRows.length > 0) {
    extras = new Float64Array(count * 5);
    for (const { vertex, values } of extraRows) {
      extras[vertex * 5] = values.length;
      extras.set(values, vertex * 5 + 1);
    }
  }
  return { positions: positions.values(), extras };
}

/** Welds an OBJ file into `output`. */
export function weldObj({ input, output, tolerance, tolerances, ignore, progress }: WeldJob): Counts {
  const reader = new ChunkReader(input);
  try {
    const { positions, extras } = readObj(reader, progress);
    const attributes: VertexAttribute[] = [];
    if (extras !== undefined && !ignore.has('color')) {
      // Two channels: how many extra numbers a vertex has (always compared exactly) and the numbers themselves.
      const counts = new Float64Array(extras.length / 5);
      const values = new Float64Array((extras.length / 5) * 4);
      for (let v = 0; v < counts.length; v++) {
        counts[v] = extras[v * 5]!;
        values.set(extras.subarray(v * 5 + 1, v * 5 + 5), v * 4);
      }
      attributes.push(
        { size: 1, values: counts, tolerance: 0 },
        { size: 4, values, tolerance: tolerances.get('color') ?? 0 },
      );
    }
    progress.step('welding');
    const { remap, representatives, count } = weldVertices(positions, tolerance, attributes);
    let dropped = 0;
    const n = positions.length / 3;
    writeAtomically(output, (out) => {
      let vertex = 0;
      let lines = 0;
      reader.forEachLine(0, 1, (line) => {
        if ((++lines & 0xffff) === 0) progress.update('writing', reader.position, reader.size);
        const words = tokens(line);
        const keyword = words[0];
        if (keyword === 'v') {
          // Representatives are founded in vertex order, so their lines come out in welded order.
          if (representatives[remap[vertex]!] === vertex) out.text(`${line}\n`);
          vertex++;
          return true;
        }
        if (keyword === 'f' || keyword === 'l' || keyword === 'p') {
          const corners: string[] = [];
          const welded: number[] = [];
          for (let k = 1; k < words.length; k++) {
            const token = words[k]!;
            const slash = token.indexOf('/');
            const v = remap[vertexOf(token, vertex, input, 0)]!;
            if (keyword !== 'p' && welded.length > 0 && welded[welded.length - 1] === v) continue;
            welded.push(v);
            corners.push(slash < 0 ? String(v + 1) : `${v + 1}${token.slice(slash)}`);
          }
          // A polygon's last corner meets its first.
          if (keyword === 'f' && welded.length > 1 && welded[welded.length - 1] === welded[0]) {
            welded.pop();
            corners.pop();
          }
          const least = keyword === 'f' ? 3 : keyword === 'l' ? 2 : 1;
          if (keyword === 'f' && new Set(welded).size < 3) {
            dropped++;
            return true;
          }
          if (welded.length < least) {
            dropped++;
            return true;
          }
          out.text(`${keyword} ${corners.join(' ')}\n`);
          return true;
        }
        out.text(`${line}\n`);
        return true;
      });
    });
    return { format: 'OBJ', in: n, out: count, merged: n - count, dropped };
  } finally {
    reader.close();
  }
}
