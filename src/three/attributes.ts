/**
 * Reading and gathering three.js attributes as flat arrays: plain and
 * interleaved attributes alike, the values a shader sees for `normalized`
 * ones, and copies that keep the stored array type.
 *
 * @module
 */

import { BufferAttribute, type InterleavedBufferAttribute, type TypedArray } from 'three';
import { describe } from '../core/validate.js';

/** What a geometry's attributes (and morph targets) can hold. */
export type AnyAttribute = BufferAttribute | InterleavedBufferAttribute;

/** An attribute as a strided view of one typed array: component c of vertex i at `offset + i * stride + c`. */
export interface AttributeView {
  readonly array: TypedArray;
  readonly stride: number;
  readonly offset: number;
  readonly itemSize: number;
  readonly count: number;
  readonly normalized: boolean;
}

/** The strided view of `attribute`; `name` says where it was found, for the error on anything that is not one. */
export function viewOf(attribute: AnyAttribute, name: string): AttributeView {
  if (attribute === null || typeof attribute !== 'object') {
    throw new RangeError(`${name} must be a three.js BufferAttribute, got ${describe(attribute)}`);
  }
  if ('isInterleavedBufferAttribute' in attribute && attribute.isInterleavedBufferAttribute) {
    const { data } = attribute;
    return {
      array: data.array,
      stride: data.stride,
      offset: attribute.offset,
      itemSize: attribute.itemSize,
      count: attribute.count,
      normalized: attribute.normalized,
    };
  }
  // GLBufferAttribute (data on the GPU only) has no array to read.
  if (!ArrayBuffer.isView(attribute.array)) {
    throw new RangeError(`${name} must hold a typed array (not a GLBufferAttribute), got ${describe(attribute.array)}`);
  }
  return {
    array: attribute.array,
    stride: attribute.itemSize,
    offset: 0,
    itemSize: attribute.itemSize,
    count: attribute.count,
    normalized: attribute.normalized,
  };
}

/**
 * The divisor that turns a stored integer into the value a shader reads from a
 * `normalized` attribute (three's MathUtils.denormalize, WebGL's rule): the
 * type's largest value; signed types are clamped at -1 as well. 1 for floats
 * and for attributes that are not normalized.
 */
function normalizedDivisor(view: AttributeView): number {
  if (!view.normalized) return 1;
  const array = view.array;
  if (array instanceof Uint8Array || array instanceof Uint8ClampedArray) return 255;
  if (array instanceof Int8Array) return 127;
  if (array instanceof Uint16Array) return 65535;
  if (array instanceof Int16Array) return 32767;
  if (array instanceof Uint32Array) return 4294967295;
  if (array instanceof Int32Array) return 2147483647;
  return 1;
}

/**
 * Writes the value of every component of every vertex into `out`, vertex i's
 * at `outOffset + i * outStride`, as float64: normalized integers become the
 * values the shader sees (so tolerances are in those units), others are
 * widened exactly.
 */
export function readValues(view: AttributeView, out: Float64Array, outStride: number, outOffset: number): void {
  const { array, stride, offset, itemSize, count } = view;
  const divisor = normalizedDivisor(view);
  const signed = array instanceof Int8Array || array instanceof Int16Array || array instanceof Int32Array;
  for (let i = 0; i < count; i++) {
    const source = offset + i * stride;
    const target = outOffset + i * outStride;
    for (let c = 0; c < itemSize; c++) {
      const value = array[source + c]! / divisor;
      out[target + c] = signed && divisor !== 1 && value < -1 ? -1 : value;
    }
  }
}

/**
 * A new (not interleaved) BufferAttribute holding, for each welded vertex, the
 * stored values of the vertex that founded it: same array type, item size,
 * `normalized`, name and GPU type, values copied bit for bit.
 */
export function gatherAttribute(attribute: AnyAttribute, view: AttributeView, founders: Uint32Array): BufferAttribute {
  const { array, stride, offset, itemSize } = view;
  const Constructor = array.constructor as new (length: number) => TypedArray;
  const values = new Constructor(founders.length * itemSize);
  for (let v = 0; v < founders.length; v++) {
    const source = offset + founders[v]! * stride;
    for (let c = 0; c < itemSize; c++) values[v * itemSize + c] = array[source + c]!;
  }
  const result = new BufferAttribute(values, itemSize, view.normalized);
  result.name = attribute.name;
  // Integer attributes read as integers in the shader keep saying so (BufferAttribute.gpuType, three r151+).
  if ('gpuType' in attribute && attribute.gpuType !== undefined) result.gpuType = attribute.gpuType;
  return result;
}
