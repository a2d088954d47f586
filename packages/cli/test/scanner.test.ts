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
import { parseDecimal } from '../src/formats/decimal.js';
import { TextScanner } from '../src/formats/scanner.js';
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

  it('equals Number() on 16 to 22 significant digits, any point and exponent, where the residual decides (seed 45)', () => {
    const spelled = fc.record({
      sign: fc.constantFrom('', '-', '+'),
      digits: fc.stringMatching(/^[1-9]\d{15,21}$/),
      // Where the point goes (past the end: none), zeros before the digits, and the exponent.
      point: fc.integer({ min: 0, max: 23 }),
      leading: fc.constantFrom('', '0', '000', '0.000'),
      trailing: fc.constantFrom('', '0', '00000'),
      exponent: fc.oneof(
        fc.constant(''),
        fc.integer({ min: -40, max: 40 }).map((e) => `e${e}`),
        fc.constant('E+05'),
      ),
    });
    fc.assert(
      fc.property(spelled, ({ sign, digits, point, leading, trailing, exponent }) => {
        let body = `${digits}${trailing}`;
        if (point < body.length) body = `${body.slice(0, point)}.${body.slice(point)}`;
        if (leading === '0.000') body = `0.000${digits}${trailing}`;
        else if (body.startsWith('.')) body = `${leading}${body}`;
        const text = `${sign}${body}${exponent}`;
        expect(DECIMAL.test(text), text).toBe(true);
        const expected = Number.isFinite(Number(text)) ? Number(text) : Number.NaN;
        expect(Object.is(parse(text), expected), text).toBe(true);
      }),
      { seed: 45, numRuns: 20000 },
    );
  });

  it('rounds ties and near-ties between doubles as Number() does, however spelled (seed 46)', () => {
    // A midpoint between two doubles above 2^53 is an integer of up to 20 digits: a tie, to even. One more or less
    // is a hair from it. Spelled as it is, with the point moved and the exponent making up for it, and moved alone.
    const case_ = fc.record({
      exponent: fc.integer({ min: 53, max: 66 }),
      mantissa: fc.bigInt({ min: 0n, max: 2n ** 52n - 1n }),
      offset: fc.constantFrom(-1n, 0n, 1n),
      shift: fc.integer({ min: 0, max: 22 }),
      sign: fc.constantFrom('', '-'),
    });
    fc.assert(
      fc.property(case_, ({ exponent, mantissa, offset, shift, sign }) => {
        const ulp = 2n ** BigInt(exponent - 52);
        const midpoint = (2n ** 52n + mantissa) * ulp + ulp / 2n + offset;
        const digits = midpoint.toString();
        const at = Math.max(1, digits.length - shift);
        const moved = `${digits.slice(0, at)}.${digits.slice(at)}`;
        for (const text of [digits, `${moved}e${digits.length - at}`, moved, `${moved}e-${shift}`]) {
          const spelled = `${sign}${text}`;
          expect(Object.is(parse(spelled), Number(spelled)), spelled).toBe(true);
        }
      }),
      { seed: 46, numRuns: 5000 },
    );
    // Midpoints of every binade from 2^-40 to 2^66, whose exact decimals are long, cut to 16 to 20 digits and nudged
    // by one in the last: a hair either side of a tie, next to powers of two (the ulp below is half the ulp above).
    const cut = fc.record({
      binade: fc.integer({ min: -40, max: 66 }),
      mantissa: fc.oneof(
        fc.constantFrom(0n, 1n, 2n ** 52n - 2n, 2n ** 52n - 1n),
        fc.bigInt({ min: 0n, max: 2n ** 52n - 1n }),
      ),
      keep: fc.integer({ min: 16, max: 20 }),
      nudge: fc.constantFrom(-1n, 0n, 1n),
    });
    fc.assert(
      fc.property(cut, ({ binade, mantissa, keep, nudge }) => {
        // The midpoint above (2^52 + mantissa) * 2^(binade - 52): (2^53 + 2 mantissa + 1) * 2^(binade - 53).
        const odd = 2n ** 53n + 2n * mantissa + 1n;
        const shift = binade - 53;
        let digits: string;
        let exponent: number;
        if (shift >= 0) {
          digits = (odd * 2n ** BigInt(shift)).toString();
          exponent = 0;
        } else {
          const scale = 40 + Math.ceil(-shift * 0.302);
          digits = ((odd * 10n ** BigInt(scale)) / 2n ** BigInt(-shift)).toString();
          exponent = -scale;
        }
        exponent += Math.max(0, digits.length - keep);
        let kept = BigInt(digits.slice(0, keep)) + nudge;
        if (kept <= 0n) kept = 1n;
        const text = `${kept}e${exponent}`;
        expect(Object.is(parse(text), Number(text)), text).toBe(true);
      }),
      { seed: 46, numRuns: 20000 },
    );
    // The tie of 2^53 + 1 (to 2^53, even) and of 2^53 + 3 (to 2^53 + 4), in every spelling.
    for (const text of ['9007199254740993', '9007199254740995', '900719925474099.3e1', '9.007199254740993e15']) {
      expect(parse(text)).toBe(Number(text));
    }
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

  it('reads each token of a line as parseDecimal reads it alone, the whole token, with or without a separator (seed 47)', () => {
    // Numbers, numbers with something after them (1.5x, 2e, 3,4), and noise, between blanks or commas.
    const token = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.stringMatching(/^[+-]?\d{1,22}(\.\d{0,6})?([eE][+-]?\d{0,3})?[x.,eE+-]?$/),
      fc.string({ unit: fc.constantFrom(...'0123456789+-.eEx,'.split('')), minLength: 1, maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 12 }), fc.boolean(), (tokens, commas) => {
        const separator = commas ? 44 : -1;
        // With commas as separators a token holds none; without, a comma is part of a token.
        const words = commas ? tokens.map((t) => t.replaceAll(',', '')).filter((t) => t !== '') : tokens;
        fc.pre(words.length > 0);
        const line = words.join(commas ? ',' : ' \t');
        const reader = new ChunkReader(put(dir, 'numbers.txt', `${line}\n`));
        try {
          const scanner = new TextScanner(reader, 0, 1, 7);
          expect(scanner.nextLine()).toBe(true);
          for (const [k, word] of words.entries()) {
            if (k > 0 && commas) scanner.pos++;
            const value = scanner.number(separator);
            expect(scanner.token, line).toBe(word);
            expect(Object.is(value, parse(word)), `${word} in ${line}`).toBe(true);
          }
          expect(scanner.atLineEnd()).toBe(true);
        } finally {
          reader.close();
        }
      }),
      { seed: 47, numRuns: 2000 },
    );
  });
});
