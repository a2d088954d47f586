import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkLayout, describe as describeValue } from '../../src/core/validate.js';

const LAYOUT_SEED = 4402;

/** The length rule stated point by point: the whole points, and whether the array ends inside one's coordinates. */
function layoutOracle(length: number, dimension: number, stride: number, offset: number): number | 'partial' {
  let count = 0;
  for (let start = offset; start < length; start += stride) {
    if (start + dimension > length) return 'partial';
    count++;
  }
  return count;
}

describe('checkLayout', () => {
  it('counts whole points in packed arrays', () => {
    expect(checkLayout(new Float32Array(0), 3, 3, 0)).toBe(0);
    expect(checkLayout([1, 2, 3, 4, 5, 6], 3, 3, 0)).toBe(2);
    expect(checkLayout([1, 2, 3, 4], 2, 2, 0)).toBe(2);
    expect(checkLayout([], 3, 8, 5)).toBe(0);
  });
  it('accepts interleaved buffers whose last record ends after the last point', () => {
    // Records of 8: position at 0..2 or at 5..7, other attributes elsewhere.
    expect(checkLayout(new Float32Array(80), 3, 8, 0)).toBe(10);
    expect(checkLayout(new Float32Array(80), 3, 8, 5)).toBe(10);
    expect(checkLayout(new Float32Array(75), 3, 8, 0)).toBe(10);
  });
  it('accepts records after a header: every length that holds the last point and cuts none', () => {
    // Four records of 5 after a one-value header, the coordinates first in each record.
    expect(checkLayout(new Float64Array(21), 3, 5, 1)).toBe(4);
    expect(checkLayout(new Float64Array(19), 3, 5, 1)).toBe(4); // the last record stops after its coordinates
    expect(checkLayout(new Float64Array(20), 3, 5, 1)).toBe(4);
    expect(checkLayout(new Float64Array(24), 3, 5, 1)).toBe(5);
    // Ends inside point 4's coordinates (indices 21 to 23).
    expect(() => checkLayout(new Float64Array(22), 3, 5, 1)).toThrow(
      /positions\.length \(22\) leaves a partial point: it ends inside point 4's coordinates \(indices 21 to 23\)\. Point i's 3 coordinates are at offset \+ i \* stride \(offset 1, stride 5\)/,
    );
    expect(() => checkLayout(new Float64Array(2), 3, 8, 0)).toThrow(
      /ends inside point 0's coordinates \(indices 0 to 2\)/,
    );
  });

  it(`counts the points and refuses a cut point as the rule says, for any layout (seed ${LAYOUT_SEED})`, () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 3 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 60 }),
        (dimension, extra, offset, length) => {
          const stride = dimension + extra;
          const expected = layoutOracle(length, dimension, stride, offset);
          const run = () => checkLayout(new Float32Array(length), dimension, stride, offset);
          if (offset >= length && !(length === 0 && offset < stride)) expect(run).toThrow(/offset .* is past the end/);
          else if (expected === 'partial') expect(run).toThrow(/leaves a partial point/);
          else expect(run()).toBe(expected);
        },
      ),
      { seed: LAYOUT_SEED, numRuns: 2000 },
    );
  });

  it('refuses BigInt typed arrays as arrays of bigints, not as non-finite coordinates', () => {
    expect(() => checkLayout(new BigInt64Array(6) as never, 3, 3, 0)).toThrow(
      /positions must hold numbers, got a BigInt64Array of bigints: convert it \(Float64Array\.from\(positions, Number\)\)/,
    );
    expect(() => checkLayout(new BigUint64Array(4) as never, 2, 2, 0, 'queries')).toThrow(
      /queries must hold numbers, got a BigUint64Array/,
    );
  });

  it('rejects a partial point, naming the length', () => {
    expect(() => checkLayout([1, 2, 3, 4, 5], 2, 2, 0)).toThrow(/length \(5\).*partial point/);
    expect(() => checkLayout(new Float32Array(7), 3, 3, 0)).toThrow(RangeError);
    expect(() => checkLayout(new Float32Array(9), 3, 4, 0)).toThrow(/partial point/);
  });
  it('rejects a stride below the dimension and an offset out of range', () => {
    expect(() => checkLayout([1, 2, 3], 3, 2, 0)).toThrow(/stride must be an integer >= 3, got 2/);
    expect(() => checkLayout([1, 2, 3], 3, 3, 3)).toThrow(/offset \(3\) is past the end/);
    expect(() => checkLayout([1, 2, 3], 3, 3, -1)).toThrow(/offset must be an integer >= 0, got -1/);
    expect(() => checkLayout([1, 2, 3], 3, 3, 0.5)).toThrow(RangeError);
    expect(() => checkLayout([], 3, 8, 8)).toThrow(/offset \(8\) is past the end/);
  });
  it('rejects plain arrays holding anything but numbers at a coordinate, naming point, axis and index', () => {
    // 'x' - 'x', null - null and true - true are 0: the structures' finiteness tests let these through.
    expect(() => checkLayout([0, 0, 0, 1, '1', 1] as never, 3, 3, 0)).toThrow(
      /positions: point 1 has a non-number y coordinate \("1" at index 4\)/,
    );
    expect(() => checkLayout([null, 0] as never, 2, 2, 0)).toThrow(
      /point 0 has a non-number x coordinate .*\(null at index 0\)/,
    );
    expect(() => checkLayout([0, 0, 0, 1, 1, true] as never, 3, 3, 0)).toThrow(
      /point 1 has a non-number z .*\(true at index 5\)/,
    );
    expect(() => checkLayout([0, 0, undefined, 1] as never, 2, 2, 0)).toThrow(
      /point 1 has a non-number x .*\(undefined at index 2\)/,
    );
    expect(() => checkLayout([9, 0, 0, 9, 1, 1n] as never, 2, 3, 1, 'vertices')).toThrow(
      /vertices: point 1 has a non-number y .*\(1n at index 5\)/,
    );
    // Only coordinates: interleaved attributes and padding may hold anything.
    expect(checkLayout(['a', 0, 0, 'b', 1, 1] as never, 2, 3, 1)).toBe(2);
    expect(checkLayout([0, 0, 'pad', 1, 1, 'pad'] as never, 2, 3, 0)).toBe(2);
  });

  it('rejects what is not an array', () => {
    expect(() => checkLayout(null as never, 2, 2, 0)).toThrow(/positions must be an array/);
  });
});

describe('describe', () => {
  it('shows values as a reader needs them', () => {
    expect(describeValue(-0)).toBe('-0');
    expect(describeValue(Number.NaN)).toBe('NaN');
    expect(describeValue('3')).toBe('"3"');
    expect(describeValue({})).toBe('an object');
    expect(describeValue(new Map())).toBe('a Map');
    expect(describeValue([1, 2])).toBe('an array of length 2');
  });
});
