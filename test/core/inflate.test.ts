/**
 * The package's DEFLATE decoder (src/core/inflate.ts) against Node's zlib, which wrote what it decodes: every
 * level and strategy zlib has (stored, fixed and dynamic blocks, runs copied over themselves, the longest
 * distances), the committed kernels module, and broken data (every truncation, mutated bytes,
 * wrong lengths), which must throw an Error and never hang or write past the output.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64, inflate, inflateEmbedded } from '../../src/core/inflate.js';
import { KERNELS_BASE64, KERNELS_LENGTH } from '../../src/wasm/binary.js';

const SEED = 20261202;
const root = join(import.meta.dirname, '../..');

const STRATEGIES = [
  constants.Z_DEFAULT_STRATEGY,
  constants.Z_FILTERED,
  constants.Z_HUFFMAN_ONLY,
  constants.Z_RLE,
  constants.Z_FIXED,
];

/** Bytes zlib finds matches in: runs, repeats from far back, text, noise, in pieces. */
const data = fc
  .array(
    fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      fc
        .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 1000 }))
        .map(([b, n]) => new Uint8Array(n).fill(b)),
      fc.string({ maxLength: 200 }).map((s) => new TextEncoder().encode(s.repeat(3))),
    ),
    { maxLength: 12 },
  )
  .map((pieces) => {
    const all = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of pieces) {
      all.set(p, at);
      at += p.length;
    }
    return all;
  });

describe(`inflate against zlib (seed ${SEED})`, () => {
  it('decodes what zlib writes at every level and strategy', () => {
    fc.assert(
      fc.property(data, fc.integer({ min: 0, max: 9 }), fc.constantFrom(...STRATEGIES), (bytes, level, strategy) => {
        const deflated = deflateRawSync(bytes, { level, strategy });
        expect(Buffer.from(inflate(deflated, bytes.length)).equals(Buffer.from(bytes))).toBe(true);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('decodes a stored block of 65,535 bytes, distances of 32 KiB and copies that overlap themselves', () => {
    const noise = new Uint8Array(70_000);
    let s = 1;
    for (let k = 0; k < noise.length; k++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      noise[k] = s >>> 24;
    }
    // Level 0 writes stored blocks only; the far repeat needs a distance near the window's 32,768.
    const far = new Uint8Array(40_000);
    far.set(noise.subarray(0, 1000), 0);
    far.set(noise.subarray(0, 1000), 32_000);
    for (const [bytes, level] of [
      [noise, 0],
      [far, 9],
      [new Uint8Array(100_000).fill(7), 9],
      [new Uint8Array(0), 9],
    ] as const) {
      expect(Buffer.from(inflate(deflateRawSync(bytes, { level }), bytes.length)).equals(Buffer.from(bytes))).toBe(
        true,
      );
    }
  });

  it("gives the committed kernels module, as Node's zlib does (inflateEmbedded uses zlib in Node)", () => {
    const module = inflate(fromBase64(KERNELS_BASE64), KERNELS_LENGTH);
    expect(Buffer.from(module).equals(inflateRawSync(Buffer.from(KERNELS_BASE64, 'base64')))).toBe(true);
    expect(WebAssembly.validate(module)).toBe(true);
    const embedded = inflateEmbedded(KERNELS_BASE64, KERNELS_LENGTH);
    expect(Buffer.from(embedded).equals(Buffer.from(module))).toBe(true);
    // Its own buffer, of exactly the module's length (not a view into zlib's pool).
    expect(embedded.buffer.byteLength).toBe(KERNELS_LENGTH);
    expect(() => inflateEmbedded(KERNELS_BASE64, KERNELS_LENGTH + 1)).toThrow(
      /gives 50843 bytes, not 50844|gives \d+ bytes, not/,
    );
  });
});

describe(`inflate on broken data (seed ${SEED})`, () => {
  const bytes = new TextEncoder().encode(readFileSync(join(root, 'src/core/inflate.ts'), 'utf8'));
  const deflated = {
    dynamic: deflateRawSync(bytes, { level: 9 }),
    fixed: deflateRawSync(bytes, { level: 9, strategy: constants.Z_FIXED }),
    stored: deflateRawSync(bytes.subarray(0, 3000), { level: 0 }),
  };

  it('throws an Error naming the fault for every truncation, never a wrong result', () => {
    for (const [kind, whole] of Object.entries(deflated)) {
      const length = kind === 'stored' ? 3000 : bytes.length;
      for (let cut = 0; cut < whole.length; cut++) {
        expect(() => inflate(whole.subarray(0, cut), length), `${kind} cut at ${cut}`).toThrow(/^inflate: /);
      }
    }
  });

  it('throws when the data gives more or fewer bytes than asked', () => {
    expect(() => inflate(deflated.dynamic, bytes.length - 1)).toThrow(/more than/);
    expect(() => inflate(deflated.dynamic, bytes.length + 1)).toThrow(/gives \d+ bytes, not/);
    expect(() => inflate(deflated.stored, 2999)).toThrow(/more than/);
  });

  it('names the reserved block type, a stored block whose length fails its check, a copy before the start', () => {
    expect(() => inflate(Uint8Array.of(0b111), 1)).toThrow(/type 3/);
    expect(() => inflate(Uint8Array.of(1, 5, 0, 0, 0, 1, 2, 3, 4, 5), 5)).toThrow(/check/);
    // Fixed block: length code 257 (3 bytes), distance code 0 (1 back), at the first byte.
    expect(() => inflate(Uint8Array.of(0b00000011, 0b00000010, 0), 3)).toThrow(/copy from 1 bytes back/);
  });

  it('after any mutation of bytes, either decodes or throws an Error: never hangs, never another exception', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('dynamic', 'fixed', 'stored'),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        (kind, flips) => {
          const copy = Uint8Array.from(deflated[kind as keyof typeof deflated]);
          for (const [at, xor] of flips) copy[at % copy.length] ^= xor;
          const length = kind === 'stored' ? 3000 : bytes.length;
          let out: Uint8Array | undefined;
          try {
            out = inflate(copy, length);
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
            expect((error as Error).message).toMatch(/^inflate: /);
            return;
          }
          expect(out.length).toBe(length);
        },
      ),
      { seed: SEED, numRuns: 1500 },
    );
  });
});
