/**
 * Argument checks shared by every structure. Each throws before anything is
 * changed, so a rejected call leaves its structure exactly as it was.
 *
 * @module
 */

/** Formats a value for an error message: `-0`, `NaN`, strings quoted, objects by type. */
export function describe(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || value === undefined || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === 'function') return 'a function';
  const name = (value as object).constructor?.name;
  return name && name !== 'Object' ? `a ${name}` : 'an object';
}

/**
 * Throws a RangeError naming `name` unless `value` is an array that can grow: a query's
 * `out`, which it empties and fills in place. Anything else failed inside
 * the query with a TypeError (null, a number, a typed array, whose length
 * cannot be set) or was filled as if it were an array (a plain object).
 */
export function checkArray(name: string, value: unknown): void {
  if (!Array.isArray(value)) throw new RangeError(`${name} must be an array, got ${describe(value)}`);
  // A frozen or sealed array cannot take elements (nor, when frozen or sealed with
  // elements, a new length): the query would fail midway with a TypeError.
  if (!Object.isExtensible(value)) {
    throw new RangeError(`${name} must be an array that can grow, got a frozen, sealed or non-extensible array`);
  }
}

/** Throws a RangeError unless `value` is a finite number. */
export function checkFinite(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a finite number, got ${describe(value)}`);
  }
}

/** Throws a RangeError unless `value` is a finite number greater than zero. */
export function checkPositive(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a finite number > 0, got ${describe(value)}`);
  }
}

/** Throws a RangeError unless `value` is a number >= 0 (Infinity allowed, NaN not). */
export function checkDistance(name: string, value: number): void {
  if (typeof value !== 'number' || !(value >= 0)) {
    throw new RangeError(`${name} must be a number >= 0, got ${describe(value)}`);
  }
}

/** Throws a RangeError unless `value` is a finite number >= 0. */
export function checkFiniteDistance(name: string, value: number): void {
  if (typeof value !== 'number' || !(value >= 0) || value === Number.POSITIVE_INFINITY) {
    throw new RangeError(`${name} must be a finite number >= 0, got ${describe(value)}`);
  }
}

/** Throws a RangeError unless `value` is an integer in [min, max]. */
export function checkInteger(name: string, value: number, min = 0, max = Number.MAX_SAFE_INTEGER): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`;
    throw new RangeError(`${name} must be an integer ${range}, got ${describe(value)}`);
  }
}

/** Throws a RangeError unless `min <= max` for one axis of a box (both already known finite). */
export function checkOrdered(minName: string, min: number, maxName: string, max: number): void {
  if (min > max) {
    throw new RangeError(`${minName} (${describe(min)}) must be <= ${maxName} (${describe(max)})`);
  }
}

/** Any array of numbers a structure can read positions from. */
export type NumericArray =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | readonly number[];

/**
 * Checks a strided position layout and returns the number of whole points in it.
 * Point i's coordinates are the `dimension` numbers from `offset + i * stride`.
 * The array may end anywhere between one point's last coordinate and the next
 * point's first: an interleaved buffer may stop right after the last point, or
 * hold the last record's other attributes, whether the records start at index 0
 * (the position `offset` values into each) or after a header of `offset` values.
 * An array that ends inside a point's coordinates is refused.
 *
 * A plain array (Array.isArray) is also checked to hold numbers at every coordinate: the
 * structures' own finiteness test (`x - x !== 0`, one subtraction per
 * coordinate in the build loops) lets strings, `null` and booleans through,
 * since `'1' - '1'`, `null - null` and `true - true` are all 0. Typed arrays
 * hold numbers only and skip this loop, except the BigInt ones, which are refused.
 *
 * @throws RangeError for a stride below the dimension, an offset outside the
 * array, a length that ends inside a point's coordinates (naming the point and
 * the rule), a BigInt64Array or BigUint64Array, or (plain arrays) a coordinate
 * that is not a number, naming the point, the axis and the array index.
 */
export function checkLayout(
  positions: NumericArray,
  dimension: number,
  stride: number,
  offset: number,
  name = 'positions',
): number {
  if (positions === null || typeof positions !== 'object' || typeof positions.length !== 'number') {
    throw new RangeError(`${name} must be an array or typed array of numbers, got ${describe(positions)}`);
  }
  if (isBigIntArray(positions)) {
    // Its elements are bigints, which the coordinate tests would report as non-finite.
    throw new RangeError(
      `${name} must hold numbers, got ${describe(positions)} of bigints: convert it (Float64Array.from(${name}, Number))`,
    );
  }
  checkInteger('stride', stride, dimension);
  checkInteger('offset', offset, 0);
  const length = positions.length;
  // A view of a transferred buffer reads as empty: only an empty array can be one.
  if (length === 0) checkAttached(positions, name);
  // An empty interleaved buffer holds no points whatever attribute it starts at.
  if (length === 0 && offset < stride) return 0;
  if (offset >= length) {
    throw new RangeError(`offset (${offset}) is past the end of ${name} (length ${length})`);
  }
  const span = length - offset;
  const count = span >= dimension ? Math.floor((span - dimension) / stride) + 1 : 0;
  // Point `count`'s first coordinate would be at `next`: an array reaching it holds part of that point.
  const next = offset + count * stride;
  if (length > next) {
    throw new RangeError(
      `${name}.length (${length}) leaves a partial point: it ends inside point ${count}'s coordinates ` +
        `(indices ${next} to ${next + dimension - 1}). Point i's ${dimension} coordinates are at offset + i * stride ` +
        `(offset ${offset}, stride ${stride}); the array must end after one point's last coordinate and before the next one's first`,
    );
  }
  if (Array.isArray(positions)) checkNumbers(positions, dimension, stride, offset, count, name);
  return count;
}

/**
 * Whether `buffer` was detached (transferred to another thread with
 * postMessage or structuredClone, or by ArrayBuffer.prototype.transfer):
 * `detached` where the engine has it, else the view a detached buffer refuses.
 */
export function isDetached(buffer: ArrayBufferLike): boolean {
  const flag = (buffer as { detached?: unknown }).detached;
  if (typeof flag === 'boolean') return flag;
  if (buffer.byteLength !== 0 || !(buffer instanceof ArrayBuffer)) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/**
 * Throws an Error naming `name` when `array` is a typed array whose buffer
 * was transferred away: it then reads as empty, and would otherwise pass for
 * an array of no points.
 */
export function checkAttached(array: unknown, name: string): void {
  if (ArrayBuffer.isView(array) && isDetached(array.buffer)) {
    throw new Error(
      `${name} is a ${array.constructor.name} whose buffer was transferred to another thread or otherwise detached: it holds no numbers any more; pass the array where its data now lives`,
    );
  }
}

/** Whether `value` is a BigInt64Array or BigUint64Array (of any realm: by its tag, not instanceof). */
function isBigIntArray(value: object): boolean {
  if (!ArrayBuffer.isView(value)) return false;
  const tag = (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];
  return tag === 'BigInt64Array' || tag === 'BigUint64Array';
}

/** Throws a RangeError at the first coordinate of a plain array that is not of type number. */
function checkNumbers(
  positions: readonly unknown[],
  dimension: number,
  stride: number,
  offset: number,
  count: number,
  name: string,
): void {
  for (let i = 0; i < count; i++) {
    const start = offset + i * stride;
    for (let axis = 0; axis < dimension; axis++) {
      const value = positions[start + axis];
      if (typeof value !== 'number') {
        throw new RangeError(
          `${name}: point ${i} has a non-number ${'xyz'[axis]} coordinate (${describe(value)} at index ${start + axis})`,
        );
      }
    }
  }
}

/** The RangeError for a non-finite coordinate, naming the point by index. */
export function pointError(name: string, index: number, axis: string, value: number): RangeError {
  return new RangeError(`${name}: point ${index} has a non-finite ${axis} coordinate (${describe(value)})`);
}
