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
 * Numbers and references are decimal only (`f 0x10` is an error, not vertex
 * 16). A UTF-8 byte-order mark is skipped and written back; UTF-16 text (with
 * its mark, either byte order) is read and written as UTF-16.
 *
 * @module
 */

import { InputError, UsageError } from '../errors.js';
import { ChunkReader, writeAtomically } from '../files.js';
import { Float64List } from '../growable.js';
import type { Progress } from '../progress.js';
import { type Counts, stopwatch, type WeldJob } from '../summary.js';
import { checkAttributeNames, type VertexAttribute, weldVertices } from '../weld-vertices.js';
import { TextScanner } from './scanner.js';
import { LineBuilder, numberError, readNumber, TextOutput } from './text.js';

/** Free-form geometry refers to vertices in ways this tool does not rewrite. */
const FREE_FORM = new Set(['curv', 'curv2', 'surf', 'sp', 'cstype', 'vp']);

/** Extra numbers a vertex may carry after x y z (w, or r g b, or r g b a). */
const MAX_EXTRA = 4;

/** How the count of a vertex's extra numbers is compared: scaled past every colour tolerance (see weldObj). */
const COUNT_SCALE = 2 ** 1021;

interface Pass1 {
  positions: Float64Array;
  /** Vertex colours (or w): count of extra numbers, then up to 4 of them, per vertex; undefined when no vertex has any. */
  extras: Float64Array | undefined;
}

/**
 * The vertex number of the reference token just skipped (`7`, `-2`, `7/3`,
 * `7//2`, `7/3/2`): its first field as written, or NaN when a field is not a
 * decimal integer (the texture and normal fields may be empty).
 */
function referenceValue(scanner: TextScanner): number {
  const b = scanner.buffer;
  const end = scanner.tokenEnd;
  let value = Number.NaN;
  let p = scanner.tokenStart;
  for (let field = 0; field < 3; field++) {
    const negative = b[p] === 45;
    if (negative || b[p] === 43) p++;
    const first = p;
    let n = 0;
    for (; p < end && b[p]! >= 48 && b[p]! <= 57; p++) n = n * 10 + (b[p]! - 48);
    const digits = p - first;
    if (field === 0) {
      if (digits === 0 || digits > 15) return digits === 0 ? Number.NaN : Number.POSITIVE_INFINITY;
      value = negative ? -n : n;
    } else if (digits === 0 && (negative || (p < end && b[p] !== 47))) return Number.NaN;
    if (p === end) return value;
    if (b[p] !== 47) return Number.NaN;
    p++;
  }
  return Number.NaN;
}

/** The 0-based vertex a reference names, checked against the `count` vertices so far. */
function vertexOf(scanner: TextScanner, count: number, file: string): number {
  scanner.skipToken();
  const value = referenceValue(scanner);
  if (Number.isNaN(value) || value === 0) {
    throw new InputError(
      file,
      `line ${scanner.line}`,
      `vertex reference ${JSON.stringify(scanner.token)} is not a non-zero decimal integer (v, v/vt, v//vn or v/vt/vn)`,
    );
  }
  const vertex = value > 0 ? value - 1 : count + value;
  if (vertex < 0) {
    throw new InputError(
      file,
      `line ${scanner.line}`,
      `vertex reference ${scanner.token} is before the first vertex (${count} so far)`,
    );
  }
  return vertex;
}

/** The element a line starts with: 1 for v, 2 for f, l or p (with `least` corners), 0 for anything else. */
function kindOf(scanner: TextScanner, file: string): { kind: 0 | 1 | 2; keyword: string } {
  const c = scanner.peek();
  if (c === 118 && scanner.keyword('v')) return { kind: 1, keyword: 'v' };
  if (c === 102 && scanner.keyword('f')) return { kind: 2, keyword: 'f' };
  if (c === 108 && scanner.keyword('l')) return { kind: 2, keyword: 'l' };
  if (c === 112 && scanner.keyword('p')) return { kind: 2, keyword: 'p' };
  if (c === 118 && scanner.keyword('vp')) {
    throw new InputError(file, `line ${scanner.line}`, 'free-form geometry ("vp") is not supported');
  }
  // The other free-form keywords start with c or s: only those lines pay for a word.
  if (c === 99 || c === 115) {
    const start = scanner.pos;
    const word = scanner.word();
    scanner.pos = start;
    if (FREE_FORM.has(word)) {
      throw new InputError(file, `line ${scanner.line}`, `free-form geometry ("${word}") is not supported`);
    }
  }
  return { kind: 0, keyword: '' };
}

function readObj(reader: ChunkReader, progress: Progress): Pass1 {
  const file = reader.file;
  const scanner = new TextScanner(reader);
  const positions = new Float64List();
  const extraVertices: number[] = [];
  const extraValues = new Float64List();
  let count = 0;
  let furthest = -1;
  let furthestLine = 0;
  while (scanner.nextLine()) {
    if ((scanner.line & 0xffff) === 0) progress.update('reading', scanner.position, reader.size);
    if (scanner.lineEndsWith(92)) {
      throw new InputError(file, `line ${scanner.line}`, 'line continuation (a trailing backslash) is not supported');
    }
    const { kind, keyword } = kindOf(scanner, file);
    if (kind === 1) {
      for (let axis = 0; axis < 3; axis++) positions.push(readNumber(scanner, file, `vertex ${'xyz'[axis]}`));
      if (!scanner.atLineEnd()) {
        extraVertices.push(count);
        const at = extraValues.length;
        for (let k = 0; k <= MAX_EXTRA; k++) extraValues.push(0);
        let extra = 0;
        while (!scanner.atLineEnd()) {
          if (extra === MAX_EXTRA) {
            throw new InputError(
              file,
              `line ${scanner.line}`,
              'a vertex has at most 7 numbers (x y z and w or a colour)',
            );
          }
          const value = scanner.number();
          if (Number.isNaN(value)) throw numberError(scanner, file, `vertex value ${extra + 4}`);
          extraValues.array[at + 1 + extra++] = value;
        }
        extraValues.array[at] = extra;
      }
      count++;
    } else if (kind === 2) {
      const least = keyword === 'f' ? 3 : keyword === 'l' ? 2 : 1;
      let corners = 0;
      for (; !scanner.atLineEnd(); corners++) {
        const vertex = vertexOf(scanner, count, file);
        if (vertex > furthest) {
          furthest = vertex;
          furthestLine = scanner.line;
        }
      }
      if (corners < least) {
        throw new InputError(
          file,
          `line ${scanner.line}`,
          `"${keyword}" needs at least ${least} vertices, got ${corners}`,
        );
      }
    }
  }
  if (furthest >= count) {
    throw new InputError(
      file,
      `line ${furthestLine}`,
      `vertex reference ${Number.isFinite(furthest) ? furthest + 1 : '(over 15 digits)'} is past the last vertex (the file has ${count})`,
    );
  }
  let extras: Float64Array | undefined;
  if (extraVertices.length > 0) {
    extras = new Float64Array(count * 5);
    for (const [k, vertex] of extraVertices.entries())
      extras.set(extraValues.array.subarray(k * 5, k * 5 + 5), vertex * 5);
  }
  return { positions: positions.values(), extras };
}

/** A face's corners while it is rewritten: welded vertex, and where its texture and normal references are. */
class CornerScratch {
  welded = new Int32Array(64);
  tailStart = new Int32Array(64);
  tailEnd = new Int32Array(64);

  push(k: number, welded: number, tailStart: number, tailEnd: number): void {
    if (k === this.welded.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.welded = grow(this.welded);
      this.tailStart = grow(this.tailStart);
      this.tailEnd = grow(this.tailEnd);
    }
    this.welded[k] = welded;
    this.tailStart[k] = tailStart;
    this.tailEnd[k] = tailEnd;
  }

  /** Whether the first `count` corners name at least 3 distinct vertices. */
  threeDistinct(count: number): boolean {
    const w = this.welded;
    if (count === 3) return w[0] !== w[1] && w[1] !== w[2] && w[0] !== w[2];
    let distinct = 0;
    for (let k = 0; k < count && distinct < 3; k++) {
      let seen = false;
      for (let j = 0; j < k && !seen; j++) seen = w[j] === w[k];
      if (!seen) distinct++;
    }
    return distinct >= 3;
  }
}

/** Welds an OBJ file into `output`. */
export function weldObj({ input, output, tolerance, tolerances, ignore, progress }: WeldJob): Counts {
  const clock = stopwatch();
  const reader = new ChunkReader(input);
  try {
    const { positions, extras } = readObj(reader, progress);
    checkAttributeNames(
      input,
      extras === undefined ? [] : ['color'],
      { tolerances, ignore },
      'OBJ texture coordinates and normals (vt, vn) belong to face corners, not vertices, and never keep vertices apart',
    );
    const attributes: VertexAttribute[] = [];
    if (extras !== undefined && !ignore.has('color')) {
      // Two channels of one attribute (one tolerance): the numbers, and how many a vertex has, times 2^1021, so
      // that counts that differ are farther apart than any tolerance below 2^1021 (4 * 2^1021 is still finite).
      const counts = new Float64Array(extras.length / 5);
      const values = new Float64Array((extras.length / 5) * 4);
      for (let v = 0; v < counts.length; v++) {
        counts[v] = extras[v * 5]! * COUNT_SCALE;
        values.set(extras.subarray(v * 5 + 1, v * 5 + 5), v * 4);
      }
      const colorTolerance = tolerances.get('color') ?? 0;
      if (colorTolerance >= COUNT_SCALE)
        throw new UsageError(
          `weld: --attribute-tolerance color=${colorTolerance}: an OBJ colour's must be below 2^1021`,
        );
      attributes.push(
        { name: 'color', size: 4, values, tolerance: colorTolerance },
        { name: 'color', size: 1, values: counts, tolerance: colorTolerance },
      );
    }
    clock.lap('reading');
    progress.step('welding');
    const { remap, representatives, count, keptApart } = weldVertices(positions, tolerance, attributes);
    clock.lap('welding');
    let dropped = 0;
    const n = positions.length / 3;
    writeAtomically(output, (out) => {
      const scanner = new TextScanner(reader);
      const text = new TextOutput(out, scanner.encoding);
      let vertex = 0;
      const corners = new CornerScratch();
      const line = new LineBuilder();
      while (scanner.nextLine()) {
        if ((scanner.line & 0xffff) === 0) progress.update('writing', scanner.position, reader.size);
        const { kind, keyword } = kindOf(scanner, input);
        if (kind === 1) {
          // Representatives are founded in vertex order, so their lines come out in welded order.
          if (representatives[remap[vertex]!] === vertex) text.line(scanner);
          vertex++;
          continue;
        }
        if (kind === 0) {
          text.line(scanner);
          continue;
        }
        // The corners kept: each welded, without one that lands on the one before it (a point list keeps all).
        let kept = 0;
        const b = scanner.buffer;
        while (!scanner.atLineEnd()) {
          const v = remap[vertexOf(scanner, vertex, input)]!;
          if (keyword !== 'p' && kept > 0 && corners.welded[kept - 1] === v) continue;
          let slash = scanner.tokenStart;
          while (slash < scanner.tokenEnd && b[slash] !== 47) slash++;
          corners.push(kept++, v, slash, scanner.tokenEnd);
        }
        // A polygon's last corner meets its first.
        if (keyword === 'f' && kept > 1 && corners.welded[kept - 1] === corners.welded[0]) kept--;
        const least = keyword === 'f' ? 3 : keyword === 'l' ? 2 : 1;
        if (kept < least || (keyword === 'f' && !corners.threeDistinct(kept))) {
          dropped++;
          continue;
        }
        line.reset();
        line.ascii(keyword);
        for (let k = 0; k < kept; k++) {
          line.byte(32);
          line.integer(corners.welded[k]! + 1);
          // The texture and normal references as they were.
          line.copy(b, corners.tailStart[k]!, corners.tailEnd[k]!);
        }
        line.byte(10);
        text.built(line);
      }
      text.flush();
    });
    clock.lap('writing');
    return { format: 'OBJ', in: n, out: count, merged: n - count, dropped, keptApart, timings: clock.timings };
  } finally {
    reader.close();
  }
}
