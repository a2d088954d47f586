/**
 * The two ASCII STL readers against each other: stl-fast.ts's regular
 * expressions (small files) and stl.ts's byte loop (large files, and every
 * error). On generated files (keywords in any case, every blank, blank
 * lines, \r\n, BOM, several solids and their names, numbers spelled every
 * way the decimal grammar allows) and on mutants of them (bytes deleted,
 * replaced, inserted, lines doubled, nasty tokens), both must give the same
 * coordinates bit for bit, the same solids and encoding, or the same error;
 * and the fast reader must take every file the byte loop takes, so it cannot
 * pass by declining. Seeds in the names.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AsciiReader, readStl } from '../src/formats/stl.js';
import { parseAsciiStl } from '../src/formats/stl-fast.js';
import { Progress } from '../src/progress.js';
import { put, workspace } from './helpers.js';

const dir = workspace();
const quiet = new Progress({ isTTY: false, write: () => true });

/** What a reader gave: its result as comparable values, or its error's message. */
function outcome(file: string, reader: AsciiReader): unknown {
  try {
    const stl = readStl(file, quiet, reader);
    return {
      binary: stl.binary,
      // Bits, so that -0 and 0 differ.
      positions: Buffer.from(new Float64Array(stl.positions).buffer).toString('hex'),
      triangles: stl.triangles,
      solids: stl.solids?.map((s) => ({ name: s.name.toString('hex'), first: s.first })),
      encoding: stl.encoding,
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** A keyword as some exporter might write it. */
const keyword = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((upper) => [...word].map((c, k) => (upper[k] ? c.toUpperCase() : c)).join(''));
/** Blanks: mostly spaces and tabs; \r and \f. Not \v, a control byte that makes a file's first 512 bytes binary: the mutants insert it. */
const blanks = (min: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(new RegExp(`^[ \\t]{${min},3}$`)) },
    { weight: 1, arbitrary: fc.stringMatching(new RegExp(`^[ \\t\\r\\f]{${min},3}$`)) },
  );
/** Blank lines (and the blanks before a statement): what both readers skip. */
const gap = fc.oneof(
  { weight: 4, arbitrary: blanks(0) },
  { weight: 1, arbitrary: fc.array(blanks(0), { maxLength: 2 }).map((lines) => lines.map((l) => `${l}\n`).join('')) },
);

/** A coordinate spelled in one of the decimal grammar's ways (some round, some overflow, some are -0). */
const coordinate = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.integer({ min: -1e6, max: 1e6 }).map((n) => (n / 1000).toString()),
  fc.stringMatching(/^[+-]?(\d{1,20}\.?\d{0,20}|\.\d{1,20})([eE][+-]?\d{1,2})?$/),
  fc.constantFrom(
    '-0',
    '0.',
    '.5',
    '+1',
    '007',
    '1.e5',
    '1E+05',
    '1e309',
    '-1e-400',
    '4.9e-324',
    '2.2250738585072014e-308',
  ),
);

/** A normal's value: not read, any token (some exporters write nan). */
const normalValue = fc.oneof(fc.double().map(String), fc.constantFrom('nan', '-nan(ind)', '0', 'x'));

const line = (parts: fc.Arbitrary<string>[]) => fc.tuple(gap, ...parts, blanks(0)).map((p) => `${p.join('')}\n`);
const between = blanks(1);

const facet = fc
  .tuple(
    line([
      keyword('facet'),
      between,
      keyword('normal'),
      between,
      normalValue,
      between,
      normalValue,
      between,
      normalValue,
    ]),
    line([keyword('outer'), between, keyword('loop')]),
    fc.array(line([keyword('vertex'), between, coordinate, between, coordinate, between, coordinate]), {
      minLength: 3,
      maxLength: 3,
    }),
    line([keyword('endloop')]),
    line([keyword('endfacet')]),
  )
  .map(([f, o, v, el, ef]) => f + o + v.join('') + el + ef);

/** A name's text: letters, blanks around it, Latin-1 and UTF-8 bytes (as Latin-1 characters), a stray \r. */
const name = fc.oneof(
  fc.constant(''),
  fc.stringMatching(/^[ \t]{0,2}[A-Za-z0-9_ \t\r\u00e9\u00c3\u00a9\u00a0]{0,12}[ \t\r]{0,2}$/),
);

const solid = fc
  .tuple(gap, keyword('solid'), name, fc.array(facet, { maxLength: 4 }), gap, keyword('endsolid'), name)
  .map(([g1, s, n, facets, g2, e, n2]) => {
    // "solid" alone, or with a blank and its name.
    const head = n === '' ? `${s}\n` : `${s} ${n}\n`;
    return `${g1}${head}${facets.join('')}${g2}${e}${n2 === '' ? '' : ` ${n2}`}`;
  });

/** A whole file: an optional UTF-8 mark, one or more solids, \n or \r\n line ends, an optional last line feed. */
const file = fc
  .tuple(
    fc.boolean(),
    fc.array(solid, { minLength: 1, maxLength: 3 }),
    fc.boolean(),
    fc.constantFrom('', '\n', '\r\n', '\n\n  '),
  )
  .map(([bom, solids, crlf, end]) => {
    let text = solids.join('\n') + end;
    if (crlf) text = text.replace(/\n/g, '\r\n');
    return Buffer.concat([Buffer.from(bom ? [0xef, 0xbb, 0xbf] : []), Buffer.from(text, 'latin1')]);
  });

/** Mutations: a range deleted, a byte replaced, a nasty token inserted, a line doubled, the end cut. */
const mutant = fc
  .tuple(
    file,
    fc.array(
      fc.tuple(
        fc.constantFrom('delete', 'replace', 'insert', 'double', 'cut'),
        fc.nat(),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom(
          '0x10',
          'nan',
          '1e999',
          ' ',
          '\n',
          '\r',
          '\t',
          '\v',
          '\f',
          '\0',
          'e',
          '-',
          '.',
          'vertex 1 2 3\n',
          'endsolid\n',
          'solid x\n',
          'facet',
          '1_0',
          'Infinity',
          '\xa0',
        ),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .map(([data, edits]) => {
    let bytes = Buffer.from(data);
    for (const [edit, at, length, token] of edits) {
      const p = bytes.length === 0 ? 0 : at % bytes.length;
      if (edit === 'delete') bytes = Buffer.concat([bytes.subarray(0, p), bytes.subarray(p + length)]);
      else if (edit === 'replace' && bytes.length > 0) bytes[p] = token.charCodeAt(0);
      else if (edit === 'insert')
        bytes = Buffer.concat([bytes.subarray(0, p), Buffer.from(token, 'latin1'), bytes.subarray(p)]);
      else if (edit === 'double') {
        const start = bytes.lastIndexOf(10, p) + 1;
        const end = bytes.indexOf(10, p);
        const lineBytes = bytes.subarray(start, end < 0 ? bytes.length : end + 1);
        bytes = Buffer.concat([bytes.subarray(0, start), lineBytes, bytes.subarray(start)]);
      } else if (edit === 'cut') bytes = bytes.subarray(0, p);
    }
    return bytes;
  });

let count = 0;
/** Both readers on `data`; returns whether the byte loop took it. */
function agree(data: Uint8Array): boolean {
  const path = put(dir, `case-${count++ % 8}.stl`, data);
  const bytes = outcome(path, 'bytes');
  expect(outcome(path, 'fast')).toEqual(bytes);
  expect(outcome(path, 'auto')).toEqual(bytes);
  const ascii = (bytes as { binary?: boolean }).binary === false;
  // Where the fast reader takes a file the byte loop rejects, the outcomes above differ; here the other way: it takes
  // every file the byte loop reads as ASCII, so that it cannot agree by declining.
  if (ascii) expect(parseAsciiStl(data)).toBeDefined();
  return ascii;
}

describe('the ASCII STL readers agree', () => {
  it('on generated files, each taken by both (seed 60)', () => {
    let taken = 0;
    fc.assert(
      fc.property(file, (data) => {
        if (agree(data)) taken++;
      }),
      { seed: 60, numRuns: 600 },
    );
    // Most files are valid: only overflowing numbers (1e309) are errors.
    expect(taken).toBeGreaterThan(300);
  });

  it('on mutants of them, errors included (seed 61)', () => {
    let taken = 0;
    fc.assert(
      fc.property(mutant, (data) => {
        if (agree(data)) taken++;
      }),
      { seed: 61, numRuns: 1500 },
    );
    expect(taken).toBeGreaterThan(50);
  });

  it('on the corpus files and hand-written edge cases', () => {
    const wild = new URL('./wild/', import.meta.url);
    const names = readdirSync(wild).filter((n) => /^assimp-STL-/.test(n));
    let ascii = 0;
    for (const name of names) {
      const bytes = readFileSync(new URL(name, wild));
      if (agree(name.endsWith('.gz') ? gunzipSync(bytes) : bytes)) ascii++;
    }
    // sphereWithHole, Spider_ascii, the three triangle files and 3DSMaxExport are ASCII.
    expect(ascii).toBeGreaterThanOrEqual(5);
    const text = (s: string) => Buffer.from(s, 'latin1');
    const cases = [
      text(
        'solid a\nfacet normal 0 0 0\nouter loop\nvertex 1 2 3\nvertex 4 5 6\nvertex 7 8 9\nendloop\nendfacet\nendsolid a\n',
      ),
      text(
        'SOLID\r\n FACET NORMAL nan nan nan\r\n  OUTER LOOP\r\n   VERTEX -0 .5 1.\r\n   VERTEX +1 007 1.e5\r\n   VERTEX 1E+05 4.9e-324 -1e-400\r\n  ENDLOOP\r\n ENDFACET\r\nENDSOLID',
      ),
      text('solid \t name with blanks \t\r\nendsolid\nsolid\nendsolid x y z\n\n'),
    ];
    for (const data of cases) expect(agree(data)).toBe(true);
  });
});
