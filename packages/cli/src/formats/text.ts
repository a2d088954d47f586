/**
 * What the text formats share besides the scanner: writing an output in the
 * input's encoding (its byte-order mark, UTF-16 included), the check of a
 * number read, and how numbers are written back.
 *
 * @module
 */

import { InputError } from '../errors.js';
import type { AtomicOutput } from '../files.js';
import type { TextEncoding, TextScanner } from './scanner.js';

/** Bytes (or UTF-16 characters) gathered before they are handed to the output. */
const BATCH = 1 << 16;

/**
 * An output in the encoding a {@link TextScanner} found: bytes written as
 * they came (with the UTF-8 byte-order mark first if the input had one), or
 * UTF-16 (mark first, each line's UTF-8 re-encoded), so a welded file opens
 * in the same editors as its input. Lines are gathered and handed to the
 * output 64 KiB at a time, so a copied line costs a copy, not a call.
 */
export class TextOutput {
  private pending = '';
  private readonly batch = new LineBuilder();
  private readonly utf16: boolean;

  constructor(
    private readonly out: AtomicOutput,
    private readonly encoding: TextEncoding,
  ) {
    this.utf16 = encoding === 'utf16le' || encoding === 'utf16be';
    if (encoding === 'utf8-bom') out.bytes(Buffer.from([0xef, 0xbb, 0xbf]));
    else if (encoding === 'utf16le') out.bytes(Buffer.from([0xff, 0xfe]));
    else if (encoding === 'utf16be') out.bytes(Buffer.from([0xfe, 0xff]));
  }

  /** Writes ASCII text (keywords, numbers, line feeds). */
  text(text: string): void {
    if (this.utf16) this.pending += text;
    else this.batch.ascii(text);
    this.spill();
  }

  /** Writes bytes `start` to `end` of `source` as the scanner holds them (a line, part of one), and a line feed when `newline`. */
  copy(source: Buffer, start: number, end: number, newline = false): void {
    if (this.utf16) this.pending += source.toString('utf8', start, end) + (newline ? '\n' : '');
    else {
      this.batch.copy(source, start, end);
      if (newline) this.batch.byte(10);
    }
    this.spill();
  }

  /** Writes the scanner's current line and a line feed. */
  line(scanner: TextScanner): void {
    this.copy(scanner.buffer, scanner.lineStart, scanner.lineEnd, true);
  }

  /** Writes what a LineBuilder holds. */
  built(line: LineBuilder): void {
    this.copy(line.buffer, 0, line.length);
  }

  /** Hands a full batch to the output. */
  private spill(): void {
    if (this.batch.length >= BATCH || this.pending.length >= BATCH) this.flush();
  }

  /** Writes out what is gathered; call once at the end (and before writing to the output any other way). */
  flush(): void {
    if (this.batch.length > 0) {
      this.out.bytes(this.batch.bytes());
      this.batch.reset();
    }
    if (this.pending === '') return;
    const encoded = Buffer.from(this.pending, 'utf16le');
    if (this.encoding === 'utf16be') encoded.swap16();
    this.out.bytes(encoded);
    this.pending = '';
  }
}

/**
 * A line of output built as bytes (keywords, integers written digit by
 * digit, pieces of the input copied), so that renumbered faces cost no
 * strings. Reused line after line.
 */
export class LineBuilder {
  buffer = Buffer.allocUnsafe(256);
  length = 0;

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(bigger, 0, 0, this.length);
    this.buffer = bigger;
  }

  /** Starts a new line. */
  reset(): void {
    this.length = 0;
  }

  /** Appends ASCII text. */
  ascii(text: string): void {
    this.room(text.length);
    this.length += this.buffer.write(text, this.length, 'latin1');
  }

  /** Appends one byte. */
  byte(c: number): void {
    this.room(1);
    this.buffer[this.length++] = c;
  }

  /** Appends a whole number >= 0 in decimal. */
  integer(value: number): void {
    this.room(17);
    const b = this.buffer;
    if (value < 10) {
      b[this.length++] = 48 + value;
      return;
    }
    let digits = 0;
    for (let v = value; v >= 1; v = Math.floor(v / 10)) digits++;
    let at = this.length + digits;
    this.length = at;
    for (let v = value; v >= 1; v = Math.floor(v / 10)) b[--at] = 48 + (v % 10);
  }

  /** Appends bytes `start` to `end` of `source`. */
  copy(source: Buffer, start: number, end: number): void {
    this.room(end - start);
    // A few bytes (a face corner's "/3/2") are copied faster by hand than by Buffer.copy's call.
    if (end - start <= 16) {
      const b = this.buffer;
      for (let p = start; p < end; p++) b[this.length++] = source[p]!;
      return;
    }
    source.copy(this.buffer, this.length, start, end);
    this.length += end - start;
  }

  /** The line so far (valid until the next append). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/**
 * The error for a number the scanner could not read (the value it returned
 * was NaN): missing, or not a finite decimal number, naming the token.
 */
export function numberError(scanner: TextScanner, file: string, what: string): InputError {
  const missing = scanner.tokenStart === scanner.tokenEnd;
  const token = scanner.token;
  return new InputError(
    file,
    `line ${scanner.line}`,
    missing
      ? `${what} is missing`
      : `${what} is not a finite decimal number: ${JSON.stringify(token.length > 40 ? `${token.slice(0, 40)}...` : token)}`,
  );
}

/** The next number of the current line, or an InputError naming `what`. */
export function readNumber(scanner: TextScanner, file: string, what: string, separator = -1): number {
  const value = scanner.number(separator);
  if (Number.isNaN(value)) throw numberError(scanner, file, what);
  return value;
}

/**
 * A number as text that reads back as the same float64 (JavaScript's shortest
 * round-trip form), with -0 written as 0.
 */
export function numberText(value: number): string {
  return String(value + 0);
}
