/**
 * Pull readers over a {@link ChunkReader}: bytes for binary formats (with the
 * file offset of every value, for error messages) and whitespace-separated
 * tokens for text formats whose records may span lines (ASCII PLY).
 *
 * @module
 */

import { InputError } from '../errors.js';
import type { ChunkReader } from '../files.js';

const WINDOW = 4 << 20;

/** Sequential binary reads from `start`, refilling a 4 MiB window. */
export class ByteCursor {
  buffer: Buffer;
  view: DataView;
  /** Position in `buffer` of the next byte. */
  pos = 0;
  /** Bytes of `buffer` that hold file data. */
  private end = 0;
  /** File offset of buffer[0]. */
  private base: number;

  constructor(
    private readonly reader: ChunkReader,
    start: number,
  ) {
    this.base = start;
    this.buffer = Buffer.allocUnsafe(WINDOW);
    this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
  }

  /** The file offset of the next byte. */
  get offset(): number {
    return this.base + this.pos;
  }

  /** Makes `bytes` bytes available at `pos`, or throws naming what was being read. */
  ensure(bytes: number, what: () => string): void {
    if (this.end - this.pos >= bytes) return;
    const left = this.end - this.pos;
    if (bytes > this.buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(bytes, this.buffer.length * 2));
      this.buffer.copy(bigger, 0, this.pos, this.end);
      this.buffer = bigger;
      this.view = new DataView(bigger.buffer, bigger.byteOffset, bigger.byteLength);
    } else {
      this.buffer.copy(this.buffer, 0, this.pos, this.end);
    }
    this.base += this.pos;
    this.pos = 0;
    this.end = left + this.reader.readAt(this.buffer.subarray(left), this.base + left, this.buffer.length - left);
    if (this.end < bytes) {
      throw new InputError(
        this.reader.file,
        `offset ${this.base + this.end}`,
        `truncated: the file ends inside ${what()}`,
      );
    }
  }
}

/** Whitespace-separated tokens from `start`, across lines, with the line each came from. */
export class TokenCursor {
  private tokens: string[] = [];
  private next = 0;
  /** Line of the last token handed out. */
  line: number;
  private readonly buffer = Buffer.allocUnsafe(WINDOW);
  private offset: number;
  private carry = '';
  private lines: string[] = [];
  private nextLine = 0;

  constructor(
    private readonly reader: ChunkReader,
    start: number,
    firstLine: number,
  ) {
    this.offset = start;
    this.line = firstLine - 1;
  }

  /** The next token, or undefined at the end of the file. */
  token(): string | undefined {
    while (this.next === this.tokens.length) {
      const line = this.readLine();
      if (line === undefined) return undefined;
      this.line++;
      const trimmed = line.trim();
      this.tokens = trimmed === '' ? [] : trimmed.split(/\s+/);
      this.next = 0;
    }
    return this.tokens[this.next++];
  }

  /** Whether the current line has tokens left (a record that ends mid-line is followed by more). */
  get restOfLine(): number {
    return this.tokens.length - this.next;
  }

  private readLine(): string | undefined {
    while (this.nextLine === this.lines.length) {
      if (this.offset >= this.reader.size) {
        if (this.carry === '') return undefined;
        const last = this.carry;
        this.carry = '';
        return last;
      }
      const got = this.reader.readAt(this.buffer, this.offset, Math.min(WINDOW, this.reader.size - this.offset));
      this.offset += got;
      const text = this.carry + this.buffer.toString('latin1', 0, got);
      const parts = text.split('\n');
      this.carry = parts.pop()!;
      this.lines = parts;
      this.nextLine = 0;
    }
    return this.lines[this.nextLine++];
  }

  /** Bytes consumed from the file so far (whole chunks): for the progress bar. */
  get position(): number {
    return this.offset;
  }
}
