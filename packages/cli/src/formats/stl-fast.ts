/**
 * A second reader of ASCII STL for small files, built on regular
 * expressions over the file's text: run once, as a command does, a
 * hand-written byte loop runs mostly before V8's optimizing compiler has
 * compiled it, where a regular expression is compiled to native code on its
 * first run and `Number()` is native from the start. On 10,000 vertices
 * (0.6 MB), read cold, this reader takes about half the byte loop's time
 * (the tools guide's table). stl.ts says when it is used.
 *
 * It accepts only what the byte loop (stl.ts) accepts, and reads it to the
 * same values: the same keywords in any ASCII case, the same blanks (space,
 * tab, \r, \v, \f), the same decimal grammar, and numbers from `Number()`,
 * which rounds correctly as parseDecimal does. Anything else (an error, a
 * non-finite number, UTF-16 text) makes it return undefined, and the byte
 * loop reads the file again and reports the error with its line: this
 * reader never reports one. packages/cli/test/stl-fast.test.ts holds the two readers to
 * the same results on generated and mutated files.
 *
 * @module
 */

import type { TextEncoding } from './scanner.js';

/** An ASCII STL as the readers give it: 9 coordinates per triangle, each solid's name bytes and first triangle. */
export interface AsciiStl {
  positions: Float64Array;
  solids: { name: Buffer; first: number }[];
  encoding: TextEncoding;
}

/** A blank within a line (the byte loop's isBlank), and blanks or line feeds between statements. */
const B = '[\\t\\v\\f\\r ]';
const W = '[\\t\\n\\v\\f\\r ]*';
/** A token: anything up to a blank or the line's end. */
const TOKEN = '[^\\t\\n\\v\\f\\r ]+';
/**
 * A decimal number, the grammar of parseDecimal. Written so that each text
 * splits one way only (no `\d+\.?\d*`): a line that fails after its numbers
 * backtracks in linear time.
 */
const NUMBER = '([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:e[+-]?\\d+)?)';
const VERTEX = `${W}vertex${B}+${NUMBER}${B}+${NUMBER}${B}+${NUMBER}${B}*\\n`;

/**
 * One facet, from the blanks before `facet` to the line feed after
 * `endfacet` (every statement alone on its line, and a line feed after each:
 * a file ending in a facet is truncated, which the byte loop reports).
 * Sticky and case-insensitive: ASCII letters only, in any case, as the byte
 * loop compares them (a regular expression without the u flag folds no other
 * character onto an ASCII one).
 */
const FACET = new RegExp(
  `${W}facet${B}+normal${B}+${TOKEN}${B}+${TOKEN}${B}+${TOKEN}${B}*\\n${W}outer${B}+loop${B}*\\n${VERTEX}${VERTEX}${VERTEX}${W}endloop${B}*\\n${W}endfacet${B}*\\n`,
  'iy',
);
/** `solid` and the rest of its line (the name, with the blanks around it), or `solid` alone. */
const SOLID_LINE = new RegExp(`${W}solid(?:${B}([^\\n]*))?(?:\\n|$)`, 'iy');
/** `endsolid` and whatever follows it on its line (the byte loop reads no further). */
const ENDSOLID_LINE = new RegExp(`${W}endsolid(?:${B}[^\\n]*)?(?:\\n|$)`, 'iy');
/** Nothing but blanks and line feeds to the end. */
const REST = new RegExp(`${W}$`, 'y');
const LEADING = new RegExp(`^${B}+`);

/** The fewest bytes a facet can take ("facet normal 0 0 0\nouter loop\n", 3 "vertex 0 0 0\n", "endloop\nendfacet\n"). */
const SMALLEST_FACET = 86;

/**
 * The ASCII STL in `bytes` (a whole file), or undefined when this reader
 * does not take it: then the byte loop reads the file (see the module notes).
 */
export function parseAsciiStl(bytes: Uint8Array): AsciiStl | undefined {
  let start = 0;
  let encoding: TextEncoding = 'bytes';
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    start = 3;
    encoding = 'utf8-bom';
  } else if (
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
  ) {
    return undefined;
  }
  // Latin-1: one character per byte, so a name's characters written back as Latin-1 are its bytes.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1', start);
  const positions = new Float64Array((Math.floor(text.length / SMALLEST_FACET) + 1) * 9);
  const solids: { name: Buffer; first: number }[] = [];
  let n = 0;
  let at = 0;
  for (;;) {
    SOLID_LINE.lastIndex = at;
    const solid = SOLID_LINE.exec(text);
    if (solid === null) break;
    solids.push({ name: Buffer.from(solidName(solid[1] ?? ''), 'latin1'), first: n / 9 });
    at = SOLID_LINE.lastIndex;
    for (;;) {
      FACET.lastIndex = at;
      const facet = FACET.exec(text);
      if (facet === null) break;
      at = FACET.lastIndex;
      if (n + 9 > positions.length) return undefined;
      for (let k = 1; k <= 9; k++) {
        const value = Number(facet[k]);
        // Too large for a double: the byte loop's error.
        if (value - value !== 0) return undefined;
        positions[n++] = value;
      }
    }
    ENDSOLID_LINE.lastIndex = at;
    if (ENDSOLID_LINE.exec(text) === null) return undefined;
    at = ENDSOLID_LINE.lastIndex;
  }
  REST.lastIndex = at;
  if (solids.length === 0 || !REST.test(text)) return undefined;
  return { positions: positions.slice(0, n), solids, encoding };
}

/**
 * A solid's name as the byte loop takes it from the rest of the `solid`
 * line (which runs to a line feed or the file's end): without one \r at its
 * end (the line's end, \r\n), blanks off the front, spaces and tabs off the back.
 */
function solidName(rest: string): string {
  let name = rest.endsWith('\r') ? rest.slice(0, -1) : rest;
  name = name.replace(LEADING, '');
  let cut = name.length;
  while (cut > 0 && (name.charCodeAt(cut - 1) === 32 || name.charCodeAt(cut - 1) === 9)) cut--;
  return name.slice(0, cut);
}
