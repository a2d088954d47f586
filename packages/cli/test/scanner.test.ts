/**
 * The text formats' scanner against models: parseDecimal against
 * JavaScript's Number on decimal text (and NaN for anything that is not a
 * finite decimal number), and the scanner's lines against String.split on
 * random text read through windows of a few bytes, so every refill, window
 * growth and UTF-16 decode crosses a line or a character; seeds in the names.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkReader } from '../src/files.js';
import { parseDecimal, TextScanner } from '../src/formats/scanner.js';
import { put, workspace } from './helpers.js';

const dir = workspace();
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

const parse = (text: string) => {
  const bytes = Buffer.from(text, 'latin1');
  return parseDecimal(bytes, 0, bytes.length);
};

/** Every line of `data` through a scanner of the given window, as strings (UTF-8 decoded). */
function linesOf(name: string, data: Uint8Array, window: number): string[] {
  const reader = new ChunkReader(put(dir, name, data));
  try {
    const scanner = new TextScanner(reader, 0, 1, window);
    const lines: string[] = [];
    while (scanner.nextLine()) {
      expect(scanner.line).toBe(lines.length + 1);
      lines.push(scanner.lineBytes().toString('utf8'));
    }
    return lines;
  } finally {
    reader.close();
  }
}

/** What the scanner must give: lines split at \n, a \r before it dropped, no empty last line after a final \n. */
function modelLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

describe('parseDecimal', () => {
  it('equals Number() on every way a double is written (seed 40)', () => {
    const written = fc.tuple(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer({ min: 0, max: 20 }),
      fc.constantFrom('string', 'exponential', 'fixed', 'precision', 'upper', 'plus', 'zeros'),
    );
    fc.assert(
      fc.property(written, ([value, digits, style]) => {
        let text: string;
        if (style === 'exponential') text = value.toExponential(digits);
        else if (style === 'fixed') text = Math.abs(value) < 1e21 ? value.toFixed(digits) : String(value);
        else if (style === 'precision') text = value.toPrecision(Math.max(1, digits));
        else if (style === 'upper') text = String(value).toUpperCase();
        else if (style === 'plus') text = value >= 0 ? `+${value}` : String(value);
        else if (style === 'zeros')
          text = String(value)
            .replace(/^(-?)/, '$1000')
            .replace(/e|$/, (m) => `000${m}`);
        else text = String(value);
        if (!DECIMAL.test(text)) text = String(value);
        // Rounding to fewer digits can overflow (2e+308): no finite number, so NaN.
        const expected = Number.isFinite(Number(text)) ? Number(text) : Number.NaN;
        expect(Object.is(parse(text), expected)).toBe(true);
      }),
      { seed: 40, numRuns: 5000 },
    );
  });

  it('equals Number() on short digit strings, where the fast path decides (seed 41)', () => {
    const digits = fc.stringMatching(/^-?\d{1,18}(\.\d{0,18})?([eE][+-]?\d{1,3})?$/);
    fc.assert(
      fc.property(digits, (text) => {
        const expected = Number(text);
        expect(Object.is(parse(text), Number.isFinite(expected) ? expected : Number.NaN)).toBe(true);
      }),
      { seed: 41, numRuns: 5000 },
    );
  });

  it('is NaN exactly for what is not a finite decimal number (seed 42)', () => {
    const noise = fc.string({ unit: fc.constantFrom(...'0123456789+-.eEx_abfinINFaty '.split('')), maxLength: 12 });
    fc.assert(
      fc.property(noise, (text) => {
        const value = parse(text);
        const decimal = DECIMAL.test(text) && Number.isFinite(Number(text));
        expect(!Number.isNaN(value)).toBe(decimal);
        if (decimal) expect(Object.is(value, Number(text))).toBe(true);
      }),
      { seed: 42, numRuns: 5000 },
    );
    for (const text of [
      '0x10',
      '0b1',
      '0o7',
      '1_000',
      'Infinity',
      '-Infinity',
      'NaN',
      'nan',
      '',
      '.',
      '-',
      '1e',
      'e1',
      '1e+',
      '1.2.3',
      '1e400',
      '--1',
    ]) {
      expect(parse(text), text).toBeNaN();
    }
  });
});

describe('TextScanner', () => {
  const text = fc.string({
    unit: fc.constantFrom('a', 'b', ' ', '\t', '\r', '\n', '7', 'é', '€', '😀'),
    maxLength: 60,
  });

  it('gives the lines of the text through any window (seed 43)', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 16 }), (t, window) => {
        expect(linesOf('lines.txt', Buffer.from(t, 'utf8'), window)).toEqual(modelLines(t));
      }),
      { seed: 43, numRuns: 400 },
    );
  });

  it('skips a UTF-8 byte-order mark and decodes UTF-16 either way round (seed 44)', () => {
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 1, max: 16 }),
        fc.constantFrom('utf8-bom', 'utf16le', 'utf16be'),
        (t, window, encoding) => {
          let data: Buffer;
          if (encoding === 'utf8-bom') data = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t, 'utf8')]);
          else {
            data = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')]);
            if (encoding === 'utf16be') data.swap16();
          }
          const reader = new ChunkReader(put(dir, 'encoded.txt', data));
          try {
            expect(new TextScanner(reader, 0, 1, window).encoding).toBe(encoding);
          } finally {
            reader.close();
          }
          expect(linesOf('encoded.txt', data, window)).toEqual(modelLines(t));
        },
      ),
      { seed: 44, numRuns: 400 },
    );
  });

  it('reads tokens and numbers of a line, and across lines', () => {
    const reader = new ChunkReader(put(dir, 'tokens.txt', ' v 1 -2.5e1\t+.5 \r\n\n f 0x10 7\n'));
    try {
      const scanner = new TextScanner(reader, 0, 1, 5);
      expect(scanner.nextLine()).toBe(true);
      expect(scanner.keyword('v')).toBe(true);
      expect([scanner.number(), scanner.number(), scanner.number()]).toEqual([1, -25, 0.5]);
      expect(scanner.atLineEnd()).toBe(true);
      expect(scanner.number()).toBeNaN();
      expect(scanner.tokenStart).toBe(scanner.tokenEnd);
      expect(scanner.numberAcross()).toBeNaN();
      expect([scanner.line, scanner.token]).toEqual([3, 'f']);
      expect(scanner.number()).toBeNaN();
      expect(scanner.token).toBe('0x10');
      expect(scanner.numberAcross()).toBe(7);
      expect(scanner.moreTokens()).toBe(false);
    } finally {
      reader.close();
    }
  });
});
