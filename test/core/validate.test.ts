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
