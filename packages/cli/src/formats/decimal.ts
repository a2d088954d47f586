/**
 * Decimal numbers parsed from bytes, rounded exactly as JavaScript's
 * `Number()` rounds the same text, without making a string for the common
 * forms: up to 19 significant digits times a power of ten up to 10^22 either
 * way, which covers what exporters write (`%g`'s 6 digits, float32 printed in
 * full as 17-digit doubles, `%.17g`). Anything else (more digits, larger
 * exponents, the rare values within a hair of a rounding tie) goes to
 * `Number()` of the text.
 *
 * @module
 */

/** Largest mantissa that can take one more digit and stay an exact integer in a double (below 2^53). */
const EXACT_BEFORE_DIGIT = Math.floor((2 ** 53 - 9) / 10);

/** Exact powers of ten as float64 (10^22 is the last one a double holds exactly). */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** Digits taken past the first 15 or 16 (those below 2^53), so that the mantissa stays below 2^67. */
const LOW_DIGITS = 4;

/** Dekker's splitter for doubles (2^27 + 1): splits a double into two halves whose products are exact. */
const SPLITTER = 134217729;

/** A bound on the relative error of the few roundings in a residual's sum (2^-50: far above the real 4 * 2^-53). */
const RESIDUAL_ERROR = 2 ** -50;

/** Reads a double's exponent bits, whatever the platform's byte order. */
const bits = new DataView(new ArrayBuffer(8));

/** Where {@link parseDecimalPrefix} stopped: the first byte after the number it read. */
export const scanned = { end: 0 };

/**
 * The decimal number that bytes `start` to `end` of `b` spell exactly
 * (`[+-]digits[.digits][e[+-]digits]`, digits on at least one side of the
 * point), or NaN when they spell anything else or a number too large for a
 * double; `-0` for a negative zero. See {@link parseDecimalPrefix}.
 */
export function parseDecimal(b: Uint8Array, start: number, end: number): number {
  const value = parseDecimalPrefix(b, start, end);
  return scanned.end === end ? value : Number.NaN;
}

/**
 * The decimal number that begins at byte `start` of `b` (read up to `end`
 * at most, as far as the bytes follow the grammar of {@link parseDecimal}),
 * with {@link scanned}.end set to the first byte after it; NaN when those
 * bytes are no finite decimal number. One pass over the bytes: the text
 * readers check that the token ends there (a blank, the line's end) instead
 * of finding its end first. Correctly rounded: while the digits make
 * an integer below 2^53 and the power of ten is at most 22 it is one exact
 * product or quotient (Clinger's fast path); with up to 4 more digits, an
 * exact residual decides (see {@link nearest}); otherwise JavaScript's own
 * conversion of the text.
 */
export function parseDecimalPrefix(b: Uint8Array, start: number, end: number): number {
  let p = start;
  let c = 0;
  let negative = false;
  if (p < end && (b[p] === 45 || b[p] === 43)) {
    negative = b[p] === 45;
    p++;
  }
  // The digits: `mantissa` takes them while it stays below 2^53, `low` the next LOW_DIGITS (lowDigits of them);
  // `exponent` counts what the taken digits are to be scaled by. `exact`: no nonzero digit was dropped.
  let mantissa = 0;
  let low = 0;
  let lowDigits = 0;
  let exponent = 0;
  let digits = 0;
  let exact = true;
  for (; p < end; p++, digits++) {
    c = b[p]!;
    if (c < 48 || c > 57) break;
    if (lowDigits === 0 && mantissa <= EXACT_BEFORE_DIGIT) mantissa = mantissa * 10 + (c - 48);
    else if (lowDigits < LOW_DIGITS && exact) {
      low = low * 10 + (c - 48);
      lowDigits++;
    } else {
      if (c !== 48) exact = false;
      exponent++;
    }
  }
  if (p < end && b[p] === 46) {
    p++;
    for (; p < end; p++, digits++) {
      c = b[p]!;
      if (c < 48 || c > 57) break;
      if (lowDigits === 0 && mantissa <= EXACT_BEFORE_DIGIT) {
        mantissa = mantissa * 10 + (c - 48);
        exponent--;
      } else if (lowDigits < LOW_DIGITS && exact) {
        low = low * 10 + (c - 48);
        lowDigits++;
        exponent--;
      } else if (c !== 48) exact = false;
    }
  }
  if (digits === 0) {
    scanned.end = p;
    return Number.NaN;
  }
  if (p < end && (b[p] === 101 || b[p] === 69)) {
    p++;
    let sign = 1;
    if (p < end && (b[p] === 45 || b[p] === 43)) {
      if (b[p] === 45) sign = -1;
      p++;
    }
    let power = 0;
    const first = p;
    for (; p < end; p++) {
      c = b[p]!;
      if (c < 48 || c > 57) break;
      if (power < 1e6) power = power * 10 + (c - 48);
    }
    if (p === first) {
      scanned.end = p;
      return Number.NaN;
    }
    exponent += sign * power;
  }
  scanned.end = p;
  if (mantissa === 0 && low === 0) return negative ? -0 : 0;
  let value = Number.NaN;
  if (exact && exponent >= -22 && exponent <= 22) {
    // An exact mantissa times or over an exact power of ten, rounded once.
    if (lowDigits === 0) value = exponent >= 0 ? mantissa * POW10[exponent]! : mantissa / POW10[-exponent]!;
    else value = nearest(mantissa, POW10[lowDigits]!, low, exponent);
  }
  if (Number.isNaN(value)) {
    value = Number(Buffer.from(b.buffer, b.byteOffset + start, p - start).toString('latin1'));
    return Number.isFinite(value) ? value : Number.NaN;
  }
  return negative ? -value : value;
}

/**
 * The double nearest to (high * scale + low) * 10^exponent, a mantissa of
 * 16 to 20 digits (high < 2^53, scale = 10^k for k <= 4, low < scale) and
 * |exponent| <= 22, or NaN when this cannot tell (the caller asks Number()).
 *
 * The mantissa M is held exactly as two doubles (its rounding and the
 * remainder), and the power P = 10^|exponent| is exact. A candidate c (the
 * value rounded twice, within a hair of half an ulp) is then checked exactly:
 * for M * P, the residual M * P - c is a sum of four doubles from exact
 * products (Dekker's), for M / P the residual M - c * P; when the residual,
 * with a bound on the error of its sum, is below half an ulp of c (times P),
 * c is the correctly rounded value. Otherwise (a value within about 2^-50 ulp
 * of a tie between two doubles, or c a power of two, where the ulp below
 * differs): NaN.
 */
function nearest(high: number, scale: number, low: number, exponent: number): number {
  // M = high * scale + low exactly as m0 + m1: high * scale = h0 + h1 (exact), and h1 + low is a small integer.
  const h0 = high * scale;
  const h1 = productError(high, scale, h0);
  const t = h1 + low;
  const m0 = h0 + t;
  const m1 = t - (m0 - h0);
  const power = POW10[exponent >= 0 ? exponent : -exponent]!;
  if (exponent >= 0) {
    // M * P = a0 + a1 + b0 + b1, each product exact.
    const a0 = m0 * power;
    const a1 = productError(m0, power, a0);
    const b0 = m1 * power;
    const b1 = productError(m1, power, b0);
    const c = a0 + (a1 + b0 + b1);
    const half = halfUlp(c);
    // a0 - c is exact (Sterbenz: within a factor of 2); the rest are tiny next to c.
    const d0 = a0 - c;
    const residual = d0 + a1 + b0 + b1;
    const bound = RESIDUAL_ERROR * (Math.abs(d0) + Math.abs(a1) + Math.abs(b0) + Math.abs(b1));
    return Math.abs(residual) + bound < half ? c : Number.NaN;
  }
  // M / P: the residual M - c * P, with c * P = q0 + q1 exact, against half an ulp of c times P (exact: P = 5^k 2^k).
  const c = m0 / power + m1 / power;
  const half = halfUlp(c);
  const q0 = c * power;
  const q1 = productError(c, power, q0);
  const d0 = m0 - q0;
  const residual = d0 - q1 + m1;
  const bound = RESIDUAL_ERROR * (Math.abs(d0) + Math.abs(q1) + Math.abs(m1));
  return Math.abs(residual) + bound < half * power ? c : Number.NaN;
}

/** a * b - product exactly, for the double product = a * b (Dekker's two-product, no overflow here). */
function productError(a: number, b: number, product: number): number {
  let t = SPLITTER * a;
  const aHigh = t - (t - a);
  const aLow = a - aHigh;
  t = SPLITTER * b;
  const bHigh = t - (t - b);
  const bLow = b - bHigh;
  return aHigh * bHigh - product + aHigh * bLow + aLow * bHigh + aLow * bLow;
}

/** Half the spacing of doubles at the positive normal double c, or NaN at a power of two (where it differs below). */
function halfUlp(c: number): number {
  bits.setFloat64(0, c);
  const top = bits.getUint32(0);
  const biased = top >>> 20;
  if ((top & 0xfffff) === 0 && bits.getUint32(4) === 0) return Number.NaN;
  // 2^(e - 53) for c in [2^e, 2^(e + 1)): the exponent field less 53, an empty mantissa.
  bits.setUint32(0, (biased - 53) << 20);
  bits.setUint32(4, 0);
  return bits.getFloat64(0);
}
