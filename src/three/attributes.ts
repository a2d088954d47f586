/**
 * Reading and gathering three.js attributes as flat arrays: plain and
 * interleaved attributes alike as strided views (their values are read by
 * weld/attribute-test.ts), and copies that keep the stored array type.
 *
 * @module
 */

import { BufferAttribute, type InterleavedBufferAttribute, type TypedArray } from 'three';
import { describe } from '../core/validate.js';
import type { AttributeValues } from '../weld/attribute-test.js';

/** What a geometry's attributes (and morph targets) can hold. */
export type AnyAttribute = BufferAttribute | InterleavedBufferAttribute;

/** An attribute as a strided view of one typed array (see {@link AttributeValues}), with three's array type. */
export interface AttributeView extends AttributeValues {
  readonly array: TypedArray;
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
