import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csrFingerprint, csrSum, fingerprint } from '../../bench/harness.js';

/** The bench's fingerprint sum as the C floors compute it: one multiplication an entry, modulo 2^32. */
function entrySum(offsets: Uint32Array, indices: Uint32Array, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    for (let k = offsets[i]; k < offsets[i + 1]; k++) sum = (sum + Math.imul(i + 1, indices[k] + 1)) | 0;
  }
  return sum;
}

/** CSR rows of arbitrary lengths, entries up to 2^32 - 1 (so that both sums wrap). */
const csr = fc.array(fc.array(fc.nat({ max: 0xffffffff }), { maxLength: 40 }), { maxLength: 60 }).map((rows) => {
  const offsets = new Uint32Array(rows.length + 1);
  rows.forEach((row, i) => {
    offsets[i + 1] = offsets[i] + row.length;
  });
  return { offsets, indices: Uint32Array.from(rows.flat()), n: rows.length };
});

describe('bench harness: CSR fingerprint', () => {
  it("sums each row first and matches the C floors' sum of one product an entry", () => {
    fc.assert(
      fc.property(csr, ({ offsets, indices, n }) => {
        expect(csrSum(offsets, indices, n)).toBe(entrySum(offsets, indices, n));
        expect(csrFingerprint({ offsets, indices })).toBe(fingerprint(offsets[n], entrySum(offsets, indices, n)));
      }),
      { seed: 0x42c5, numRuns: 300 },
    );
  });

  it('sums only the first n rows', () => {
    const offsets = Uint32Array.of(0, 2, 3);
    const indices = Uint32Array.of(4, 5, 9);
    expect(csrSum(offsets, indices, 1)).toBe(5 + 6);
    expect(csrSum(offsets, indices, 2)).toBe(5 + 6 + 2 * 10);
  });
});
