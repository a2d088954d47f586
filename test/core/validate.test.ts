import { describe, expect, it } from 'vitest';
import { checkLayout, describe as describeValue } from '../../src/core/validate.js';

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
