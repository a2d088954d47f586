/**
 * A pull reader of bytes over a {@link ChunkReader} for binary formats, with
 * the file offset of every value for error messages (text formats have
 * scanner.ts).
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

  /** Bytes of the window from `pos` that hold file data. */
  get available(): number {
    return this.end - this.pos;
  }

  /** The file being read (for error messages). */
  get file(): string {
    return this.reader.file;
  }

  /** The file offset of the next byte. */
  get offset(): number {
    return this.base + this.pos;
  }

  /** Makes `bytes` bytes available at `pos`, or throws naming what was being read. */
  ensure(bytes: number, what: () => string): void {
    if (this.end - this.pos >= bytes) return;
    // A length read from the file is checked against the file before any memory is taken for it.
    if (this.base + this.pos + bytes > this.reader.size) {
      throw new InputError(this.reader.file, `offset ${this.reader.size}`, `truncated: the file ends inside ${what()}`);
    }
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
