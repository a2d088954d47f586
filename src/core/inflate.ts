/**
 * A raw DEFLATE decoder (RFC 1951), for the WebAssembly kernels' module,
 * which the package carries inside its JavaScript (src/wasm/binary.ts):
 * the build writes it compressed (Node's zlib, level 9) and base64-encoded,
 * 18 KB of text where the raw module's base64 was 68 KB. A user's bundle is
 * that much smaller (the PointGrid, pool and d3 entries under webpack: 261
 * KiB before, under webpack's default 244 KiB size hint after), and smaller
 * over the wire too: gzip of the raw module's base64 is 23 KB, of the
 * deflated one 14 KB.
 *
 * Why a decoder of our own: DecompressionStream is asynchronous, and Node's
 * and Firefox's main threads compile the kernels synchronously at the first
 * call, which users rely on (a grid built at import time runs on the
 * kernels). Where Node's zlib is at hand, {@link inflateEmbedded} uses it
 * instead, so that a process's first kernel call does not pay this
 * decoder's cold start (some milliseconds of interpreted code); browsers and
 * older Nodes run this one.
 *
 * Every loop is bounded by the input's or the output's length, whatever the
 * bytes say: a corrupt text throws an Error naming what is wrong, never
 * loops or writes outside the output.
 *
 * @module
 */
import { nodeBuiltin } from './node-builtin.js';

/** The base lengths of length codes 257 to 285, and their extra bits. */
const LENGTH_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
/** The base distances of distance codes 0 to 29, and their extra bits. */
const DISTANCE_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577,
];
const DISTANCE_EXTRA = [
  0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
];
/** The order in which a dynamic block lists its code-length code's lengths. */
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/**
 * A canonical Huffman code as a lookup table (RFC 1951 builds the code from
 * code lengths): entry `b` of `entries`, for the next `bits` bits of input `b`
 * (first bit lowest), is the symbol those bits start with, times 16, plus its
 * length; 0 where no code starts so (an incomplete code).
 */
interface Code {
  readonly entries: Uint32Array;
  readonly bits: number;
}

function buildCode(lengths: Uint8Array, what: string): Code {
  const counts = new Uint16Array(16);
  let bits = 1;
  for (let s = 0; s < lengths.length; s++) {
    counts[lengths[s]]++;
    if (lengths[s] > bits) bits = lengths[s];
  }
  counts[0] = 0;
  // A code that asks for more codes of a length than the shorter ones leave room for is not a prefix code.
  const next = new Uint16Array(16);
  let left = 1;
  for (let len = 1; len < 16; len++) {
    left = left * 2 - counts[len];
    if (left < 0) throw new Error(`inflate: the ${what} code is over-subscribed`);
    if (len < 15) next[len + 1] = (next[len] + counts[len]) << 1;
  }
  const entries = new Uint32Array(1 << bits);
  for (let s = 0; s < lengths.length; s++) {
    const len = lengths[s];
    if (len === 0) continue;
    // Codes are sent first bit first, the table is read lowest bit first: reverse the code's bits.
    let code = next[len]++;
    let reversed = 0;
    for (let k = 0; k < len; k++, code >>= 1) reversed = (reversed << 1) | (code & 1);
    for (let b = reversed; b < entries.length; b += 1 << len) entries[b] = (s << 4) | len;
  }
  return { entries, bits };
}

/** The fixed codes of block type 1. */
let fixed: { literals: Code; distances: Code } | undefined;

function fixedCodes(): { literals: Code; distances: Code } {
  if (fixed === undefined) {
    const lengths = new Uint8Array(288);
    lengths.fill(8, 0, 144);
    lengths.fill(9, 144, 256);
    lengths.fill(7, 256, 280);
    lengths.fill(8, 280, 288);
    fixed = {
      literals: buildCode(lengths, 'fixed literal'),
      distances: buildCode(new Uint8Array(30).fill(5), 'fixed'),
    };
  }
  return fixed;
}

/** The input as bits, first bit lowest: `bits` holds the `count` bits read from `data` and not yet used. */
class BitReader {
  pos = 0;
  bits = 0;
  count = 0;
  constructor(readonly data: Uint8Array) {}

  /** Reads bytes until `n` (at most 24) bits are held or the data ends. */
  fill(n: number): void {
    while (this.count < n && this.pos < this.data.length) {
      this.bits |= this.data[this.pos++] << this.count;
      this.count += 8;
    }
  }

  /** The next `n` bits as a number (n at most 24). */
  take(n: number): number {
    this.fill(n);
    if (this.count < n) throw new Error(`inflate: the data ends early (after ${this.data.length} bytes)`);
    const value = this.bits & ((1 << n) - 1);
    this.bits >>>= n;
    this.count -= n;
    return value;
  }

  /** The next symbol of `code`. */
  symbol(code: Code): number {
    this.fill(code.bits);
    const entry = code.entries[this.bits & ((1 << code.bits) - 1)];
    const len = entry & 15;
    if (len === 0) throw new Error('inflate: a code not in the block’s table');
    if (len > this.count) throw new Error(`inflate: the data ends early (after ${this.data.length} bytes)`);
    this.bits >>>= len;
    this.count -= len;
    return entry >>> 4;
  }

  /** Drops the bits left of the current byte (a stored block starts on a byte). */
  align(): void {
    this.pos -= this.count >> 3;
    this.bits = 0;
    this.count = 0;
  }
}

/**
 * Decodes `data`, raw DEFLATE (no zlib or gzip header), which must give
 * exactly `length` bytes.
 *
 * @throws Error when the data is not DEFLATE, ends early, refers before its
 * start, or gives more or fewer than `length` bytes.
 */
export function inflate(data: Uint8Array, length: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let at = 0;
  const input = new BitReader(data);
  // Every block and every symbol uses at least one bit, so both loops end within 8 * data.length steps.
  let last = 0;
  while (last === 0) {
    last = input.take(1);
    const type = input.take(2);
    if (type === 0) {
      // Stored: the rest of this byte dropped, then LEN and its complement, then LEN bytes.
      input.align();
      const len = input.take(16);
      const check = input.take(16);
      if ((len ^ 0xffff) !== check) throw new Error('inflate: a stored block’s length fails its check');
      if (input.pos + len > data.length) throw new Error('inflate: a stored block ends early');
      if (at + len > length) throw new Error(`inflate: the data gives more than ${length} bytes`);
      out.set(data.subarray(input.pos, input.pos + len), at);
      input.pos += len;
      at += len;
      continue;
    }
    let literals: Code;
    let distances: Code;
    if (type === 1) {
      ({ literals, distances } = fixedCodes());
    } else if (type === 2) {
      const literalCount = input.take(5) + 257;
      const distanceCount = input.take(5) + 1;
      const lengthCount = input.take(4) + 4;
      if (literalCount > 286 || distanceCount > 30) throw new Error('inflate: a block with too many codes');
      const lengthLengths = new Uint8Array(19);
      for (let k = 0; k < lengthCount; k++) lengthLengths[CODE_LENGTH_ORDER[k]] = input.take(3);
      const lengthCode = buildCode(lengthLengths, 'code length');
      const lengths = new Uint8Array(literalCount + distanceCount);
      for (let k = 0; k < lengths.length; ) {
        const symbol = input.symbol(lengthCode);
        if (symbol < 16) {
          lengths[k++] = symbol;
          continue;
        }
        let repeat: number;
        let value = 0;
        if (symbol === 16) {
          if (k === 0) throw new Error('inflate: a repeat of no code length');
          value = lengths[k - 1];
          repeat = 3 + input.take(2);
        } else if (symbol === 17) repeat = 3 + input.take(3);
        else repeat = 11 + input.take(7);
        if (k + repeat > lengths.length) throw new Error('inflate: code lengths past the block’s count');
        lengths.fill(value, k, k + repeat);
        k += repeat;
      }
      if (lengths[256] === 0) throw new Error('inflate: a block with no end code');
      literals = buildCode(lengths.subarray(0, literalCount), 'literal');
      distances = buildCode(lengths.subarray(literalCount), 'distance');
    } else {
      throw new Error('inflate: a block of type 3, which DEFLATE does not have');
    }
    for (;;) {
      const symbol = input.symbol(literals);
      if (symbol === 256) break;
      if (symbol < 256) {
        if (at >= length) throw new Error(`inflate: the data gives more than ${length} bytes`);
        out[at++] = symbol;
        continue;
      }
      const l = symbol - 257;
      if (l >= 29) throw new Error(`inflate: length code ${symbol}, which DEFLATE does not have`);
      const len = LENGTH_BASE[l] + input.take(LENGTH_EXTRA[l]);
      const d = input.symbol(distances);
      if (d >= 30) throw new Error(`inflate: distance code ${d}, which DEFLATE does not have`);
      const distance = DISTANCE_BASE[d] + input.take(DISTANCE_EXTRA[d]);
      if (distance > at) throw new Error(`inflate: a copy from ${distance} bytes back, at byte ${at}`);
      if (at + len > length) throw new Error(`inflate: the data gives more than ${length} bytes`);
      // Byte by byte: a copy may overlap what it writes (distance < length repeats a run).
      for (let k = 0; k < len; k++, at++) out[at] = out[at - distance];
    }
  }
  if (at !== length) throw new Error(`inflate: the data gives ${at} bytes, not ${length}`);
  return out;
}

/** The bytes of a base64 text (the standard alphabet, with or without padding). */
export function fromBase64(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let k = 0; k < text.length; k++) bytes[k] = text.charCodeAt(k);
  return bytes;
}

interface Zlib {
  inflateRawSync(data: Uint8Array): Uint8Array;
}

/**
 * The `length` bytes that base64 text `base64` of raw DEFLATE gives: through
 * Node's zlib where `process.getBuiltinModule` has it, else {@link inflate}.
 *
 * @throws Error as {@link inflate} does, when the data is not what it says.
 */
export function inflateEmbedded(base64: string, length: number): Uint8Array<ArrayBuffer> {
  const zlib = nodeBuiltin<Zlib>('node:zlib');
  const data = fromBase64(base64);
  if (zlib === undefined) return inflate(data, length);
  const bytes = zlib.inflateRawSync(data);
  if (bytes.length !== length) throw new Error(`inflate: the data gives ${bytes.length} bytes, not ${length}`);
  // A copy of our own: zlib's result may be a view into a pooled buffer, and WebAssembly wants its own bytes.
  const out = new Uint8Array(length);
  out.set(bytes);
  return out;
}
