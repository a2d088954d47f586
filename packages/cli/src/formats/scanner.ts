/**
 * The text formats' reader: lines and tokens straight from the file's bytes
 * (a window refilled 4 MiB at a time), numbers parsed from the bytes without
 * making strings, so the readers keep up with the libraries that parse a
 * whole file held in memory. Only decimal numbers are numbers here
 * (`-1.5e3`, `.5`, `7.`): `0x10`, `1_000`, `Infinity`, `nan` and empty
 * fields are not, where JavaScript's `Number()` would take the first three.
 *
 * Text in UTF-16 (with its byte-order mark) is decoded to UTF-8 as it is
 * read, and a UTF-8 byte-order mark is skipped: {@link TextScanner.encoding}
 * says which, so that writers give the output the input's encoding (text.ts).
 *
 * @module
 */

import { InputError } from '../errors.js';
import type { ChunkReader } from '../files.js';
import { parseDecimalPrefix, scanned } from './decimal.js';

const WINDOW = 4 << 20;

/**
 * File bytes the scanners have read in this process. While it is small their
 * loops have not been compiled by V8's optimizing compiler yet, and stl.ts
 * reads a small ASCII STL another way (stl-fast.ts); past a few MB they
 * are, and read it as fast.
 */
export const textRead = { bytes: 0 };

/** How a text file is encoded: bytes as they are (ASCII, UTF-8, Latin-1), with a UTF-8 mark, or UTF-16 with its mark. */
export type TextEncoding = 'bytes' | 'utf8-bom' | 'utf16le' | 'utf16be';

const isBlank = (c: number) => c === 32 || c === 9 || c === 13 || c === 11 || c === 12;

/**
 * Lines of a text file, and the tokens of the current line. A line is what
 * lies between line feeds, without its \r\n or \n. Tokens are separated by
 * blanks (space, tab, \r, \v, \f) or, where a reader asks, by one separator
 * byte (XYZ's commas).
 */
export class TextScanner {
  /** The window: file bytes (UTF-8 for UTF-16 input) from `base`. */
  buffer: Buffer;
  /** Next byte to read in the window. */
  pos = 0;
  /** Where the current line's text starts and ends in the window. */
  lineStart = 0;
  lineEnd = 0;
  /** The current line's number (1-based; 0 before the first). */
  line = 0;
  /** Start and end of the last token read (for error messages). */
  tokenStart = 0;
  tokenEnd = 0;
  readonly encoding: TextEncoding;
  /** Bytes of the window holding data. */
  private end = 0;
  /** Where the line after the current one starts in the window. */
  private next = 0;
  /** File offset of the next byte to read from the file. */
  private offset: number;
  private decoder: TextDecoder | undefined;
  private raw: Buffer | undefined;
  /** A byte of UTF-16 left over from the last read (odd-sized reads). */
  private oddByte = -1;

  /**
   * @param start file offset of the first byte (0: the start, where a byte-order mark is looked for).
   * @param firstLine the number of the line at `start`.
   * @param window the window's starting size (tests make it tiny, to cross every refill).
   */
  constructor(
    private readonly reader: ChunkReader,
    start = 0,
    firstLine = 1,
    window = WINDOW,
  ) {
    this.buffer = Buffer.allocUnsafe(Math.max(4, Math.min(window, reader.size - start + 1)));
    this.line = firstLine - 1;
    this.offset = start;
    let encoding: TextEncoding = 'bytes';
    if (start === 0) {
      const head = Buffer.alloc(4);
      const got = reader.readAt(head, 0, Math.min(4, reader.size));
      if (got >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) {
        encoding = 'utf8-bom';
        this.offset = 3;
      } else if (got >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) {
        if (got === 4 && head[0] === 0xff && head[2] === 0 && head[3] === 0) {
          throw new InputError(reader.file, 'offset 0', 'UTF-32 text is not supported (save it as UTF-8 or UTF-16)');
        }
        encoding = head[0] === 0xff ? 'utf16le' : 'utf16be';
        this.offset = 2;
        this.decoder = new TextDecoder('utf-16le', { fatal: true });
        this.raw = Buffer.allocUnsafe(Math.max(4, Math.min(window, reader.size)));
      }
    }
    this.encoding = encoding;
  }

  /** File bytes read so far: for the progress bar. */
  get position(): number {
    return this.offset;
  }

  /**
   * Slides the window so that byte `keep` comes first (growing it when what
   * is kept fills half of it: a long line), then reads more of the file after
   * it; false when the file had nothing more.
   */
  private refill(keep: number): boolean {
    const kept = this.end - keep;
    if (kept > this.buffer.length / 2) {
      const bigger = Buffer.allocUnsafe(this.buffer.length * 2);
      this.buffer.copy(bigger, 0, keep, this.end);
      this.buffer = bigger;
    } else if (keep > 0) {
      this.buffer.copy(this.buffer, 0, keep, this.end);
    }
    this.shift(keep);
    this.end = kept;
    if (this.offset >= this.reader.size && this.oddByte < 0) return false;
    if (this.decoder === undefined) {
      const want = Math.min(this.buffer.length - this.end, this.reader.size - this.offset);
      const got = this.reader.readAt(this.buffer.subarray(this.end), this.offset, want);
      this.offset += got;
      this.end += got;
      textRead.bytes += got;
      return got > 0;
    }
    return this.refillUtf16();
  }

  /** UTF-16: decodes the next raw chunk and appends it to the window as UTF-8. */
  private refillUtf16(): boolean {
    const raw = this.raw!;
    let at = 0;
    if (this.oddByte >= 0) raw[at++] = this.oddByte;
    // UTF-8 takes at most 3 bytes per UTF-16 unit (2 bytes): read what fits.
    const room = Math.floor(((this.buffer.length - this.end) / 3) * 2);
    const want = Math.min(raw.length - at, Math.max(2, room - at), this.reader.size - this.offset);
    const got = this.reader.readAt(raw.subarray(at), this.offset, want);
    this.offset += got;
    textRead.bytes += got;
    let length = at + got;
    const last = this.offset >= this.reader.size;
    this.oddByte = -1;
    if (length % 2 === 1) {
      if (last)
        throw new InputError(this.reader.file, `offset ${this.offset - 1}`, 'UTF-16 text with an odd number of bytes');
      this.oddByte = raw[--length]!;
    }
    const chunk = raw.subarray(0, length);
    if (this.encoding === 'utf16be') chunk.swap16();
    let text: string;
    try {
      text = this.decoder!.decode(chunk, { stream: !last });
    } catch {
      throw new InputError(
        this.reader.file,
        `offset ${this.offset - got}`,
        'invalid UTF-16 text (a broken surrogate pair)',
      );
    }
    if (this.buffer.length - this.end < text.length * 3) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.end + text.length * 3));
      this.buffer.copy(bigger, 0, 0, this.end);
      this.buffer = bigger;
    }
    this.end += this.buffer.write(text, this.end, 'utf8');
    return length > 0 || text.length > 0;
  }

  /** Moves window positions back by `by` after a slide. */
  private shift(by: number): void {
    this.pos -= by;
    this.lineStart -= by;
    this.lineEnd -= by;
    this.next -= by;
    this.tokenStart -= by;
    this.tokenEnd -= by;
  }

  /** Moves to the next line; false at the end of the file. */
  nextLine(): boolean {
    let start = this.next;
    let search = start;
    for (;;) {
      const newline = search < this.end ? this.buffer.indexOf(10, search) : -1;
      if (newline >= 0 && newline < this.end) {
        this.lineStart = start;
        this.lineEnd = newline > start && this.buffer[newline - 1] === 13 ? newline - 1 : newline;
        this.next = newline + 1;
        break;
      }
      const searched = this.end - start;
      const more = this.refill(start);
      start = 0;
      search = searched;
      if (!more) {
        // The last line, without a line feed, or the end.
        if (this.end === 0) return false;
        this.lineStart = 0;
        this.lineEnd = this.buffer[this.end - 1] === 13 ? this.end - 1 : this.end;
        this.next = this.end;
        break;
      }
    }
    this.pos = this.lineStart;
    this.line++;
    return true;
  }

  /** Skips blanks; true when the current line has no more tokens. */
  atLineEnd(): boolean {
    const b = this.buffer;
    let p = this.pos;
    while (p < this.lineEnd && isBlank(b[p]!)) p++;
    this.pos = p;
    return p >= this.lineEnd;
  }

  /** The first byte of the next token (after blanks), or -1 at the end of the line. */
  peek(): number {
    return this.atLineEnd() ? -1 : this.buffer[this.pos]!;
  }

  /** Skips the next token (to the next blank or `separator`). */
  skipToken(separator = -1): void {
    this.atLineEnd();
    const b = this.buffer;
    let p = this.pos;
    this.tokenStart = p;
    while (p < this.lineEnd && !isBlank(b[p]!) && b[p] !== separator) p++;
    this.tokenEnd = p;
    this.pos = p;
  }

  /** The next token as text. */
  word(separator = -1): string {
    this.skipToken(separator);
    return this.buffer.toString('latin1', this.tokenStart, this.tokenEnd);
  }

  /** The last token read, as text (for an error message). */
  get token(): string {
    return this.buffer.toString('latin1', this.tokenStart, this.tokenEnd);
  }

  /** Whether the next token is exactly `keyword` (ASCII, any case when `anyCase`); consumes it if so. */
  keyword(keyword: string, anyCase = false): boolean {
    if (this.atLineEnd()) return false;
    const b = this.buffer;
    const p = this.pos;
    const n = keyword.length;
    if (p + n > this.lineEnd) return false;
    for (let k = 0; k < n; k++) {
      let c = b[p + k]!;
      if (anyCase && c >= 65 && c <= 90) c += 32;
      if (c !== keyword.charCodeAt(k)) return false;
    }
    if (p + n < this.lineEnd && !isBlank(b[p + n]!)) return false;
    this.tokenStart = p;
    this.tokenEnd = p + n;
    this.pos = p + n;
    return true;
  }

  /**
   * The next token as a decimal number, or NaN when it is missing (then
   * `tokenStart === tokenEnd`) or not a finite decimal number. The token ends
   * at a blank, the line's end or `separator`.
   */
  number(separator = -1): number {
    if (this.atLineEnd()) {
      this.tokenStart = this.tokenEnd = this.pos;
      return Number.NaN;
    }
    return this.numberHere(separator);
  }

  /** Like {@link number}, moving on to later lines when the current one has no more tokens (PLY records span lines). */
  numberAcross(): number {
    while (this.atLineEnd()) {
      if (!this.nextLine()) {
        this.tokenStart = this.tokenEnd = this.pos;
        return Number.NaN;
      }
    }
    return this.numberHere(-1);
  }

  /** Whether any token is left in the file after the current position (across lines). */
  moreTokens(): boolean {
    while (this.atLineEnd()) if (!this.nextLine()) return false;
    return true;
  }

  private numberHere(separator: number): number {
    const b = this.buffer;
    const end = this.lineEnd;
    const start = this.pos;
    // The number and its token in one pass: the token must end where the number does.
    let value = parseDecimalPrefix(b, start, end);
    let p = scanned.end;
    if (p < end && !isBlank(b[p]!) && b[p] !== separator) {
      while (p < end && !isBlank(b[p]!) && b[p] !== separator) p++;
      value = Number.NaN;
    }
    this.tokenStart = start;
    this.tokenEnd = p;
    this.pos = p;
    return value;
  }

  /** The current line as text (bytes as Latin-1 characters, so writing it back as Latin-1 gives the same bytes). */
  lineText(): string {
    return this.buffer.toString('latin1', this.lineStart, this.lineEnd);
  }

  /** The current line's bytes (valid until the next call that reads). */
  lineBytes(): Buffer {
    return this.buffer.subarray(this.lineStart, this.lineEnd);
  }

  /** Whether the current line ends with `byte` (before its line end). */
  lineEndsWith(byte: number): boolean {
    return this.lineEnd > this.lineStart && this.buffer[this.lineEnd - 1] === byte;
  }
}
