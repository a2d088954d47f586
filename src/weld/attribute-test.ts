/**
 * Attributes as an extra condition of a weld: the part of weldGeometry
 * (spatialhash/three) and weldByDistance (spatialhash/gltf-transform) that
 * does not depend on either library. Both read their attributes as strided
 * views of typed arrays, turn them into the float64 values a shader sees, and
 * hand weld an {@link AcceptRepresentative} that compares them per channel.
 *
 * @module
 */

import { extremeScale, isOrdinaryRadius, scaledGap, scaledLimit } from '../core/distance.js';
import type { AcceptRepresentative } from './near.js';

/**
 * An attribute as a strided view of one typed array: component c of vertex i
 * at `offset + i * stride + c`. `normalized` integers read as a shader reads
 * them (see {@link readValues}).
 */
export interface AttributeValues {
  readonly array: ArrayLike<number>;
  readonly stride: number;
  readonly offset: number;
  readonly itemSize: number;
  readonly count: number;
  readonly normalized: boolean;
}

/** One compared attribute (or morph target) and the largest Euclidean difference at which two vertices may merge. */
export interface AttributeChannel {
  readonly values: AttributeValues;
  readonly tolerance: number;
}

/**
 * The divisor that turns a stored integer into the value a shader reads from a
 * `normalized` attribute (WebGL's rule, and glTF's): the type's largest value;
 * signed types are clamped at -1 as well. 1 for floats and for attributes that
 * are not normalized.
 */
function normalizedDivisor(view: AttributeValues): number {
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
 * Writes the value of every component of the chosen vertices into `out`, the
 * k-th chosen vertex's at `outOffset + k * outStride`, as float64: normalized
 * integers become the values the shader sees (so tolerances are in those
 * units), others are widened exactly. The chosen vertices are `order[k]`
 * (`order` undefined: all, 0 .. count - 1).
 */
export function readValues(
  view: AttributeValues,
  out: Float64Array,
  outStride: number,
  outOffset: number,
  order?: Uint32Array,
): void {
  const { array, stride, offset, itemSize } = view;
  const divisor = normalizedDivisor(view);
  const signed = array instanceof Int8Array || array instanceof Int16Array || array instanceof Int32Array;
  const count = order === undefined ? view.count : order.length;
  for (let k = 0; k < count; k++) {
    const source = offset + (order === undefined ? k : order[k]!) * stride;
    const target = outOffset + k * outStride;
    for (let c = 0; c < itemSize; c++) {
      const value = array[source + c]! / divisor;
      out[target + c] = signed && divisor !== 1 && value < -1 ? -1 : value;
    }
  }
}

/** The attribute test of a weld, and the single-channel question weldByDistance's report asks. */
export interface AttributeTest {
  /** weld's extra condition: every channel of `vertex` within its tolerance of the representative's. */
  readonly accept: AcceptRepresentative;
  /** Whether channel `c` of vertex `a` is farther than the channel's tolerance from vertex `b`'s (weld's numbers). */
  differs(c: number, a: number, b: number): boolean;
  /** How many times `accept` has said no so far: 0 after a weld means positions alone decided it. */
  refusals(): number;
}

/**
 * The attribute test: every channel's values packed per vertex in one
 * Float64Array (one cache line or two per vertex), then per channel either
 * equality (tolerance 0: no squaring, so values 1e-200 apart stay apart) or
 * the squared Euclidean distance against the squared tolerance by the
 * library's distance rule, as positions are (core/distance.ts: float64, with
 * every length scaled by a power of two for a tolerance whose square
 * overflows or is below 2^-896). Weld's vertex k is input vertex `order[k]` (all of them in
 * order when `order` is undefined): the test reads the same vertices weld does.
 *
 * @param n how many vertices weld takes (order.length when given).
 */
export function attributeTest(channels: readonly AttributeChannel[], n: number, order?: Uint32Array): AttributeTest {
  let width = 0;
  const starts = new Int32Array(channels.length);
  const ends = new Int32Array(channels.length);
  const tolerances2 = new Float64Array(channels.length);
  // Scale and scaled squared tolerance of the channels marked -2: extreme tolerances (see above).
  const scales = new Float64Array(channels.length);
  const limits = new Float64Array(channels.length);
  for (const [c, channel] of channels.entries()) {
    starts[c] = width;
    width += channel.values.itemSize;
    ends[c] = width;
    const tolerance = channel.tolerance;
    // Exact channels are marked -1, extreme ones -2, see above.
    tolerances2[c] = tolerance === 0 ? -1 : isOrdinaryRadius(tolerance) ? tolerance * tolerance : -2;
    scales[c] = extremeScale(tolerance);
    limits[c] = scaledLimit(tolerance, scales[c]);
  }
  const values = new Float64Array(n * width);
  for (const [c, channel] of channels.entries()) readValues(channel.values, values, width, starts[c]!, order);
  const channelCount = channels.length;
  let refused = 0;
  /** Channel c of the vertices whose values start at a and b (multiples of width). */
  const within = (c: number, a: number, b: number): boolean => {
    const end = ends[c]!;
    const tolerance2 = tolerances2[c]!;
    if (tolerance2 === -1) {
      // Not !==: NaN never equals, so a vertex with a NaN value merges with none.
      for (let k = starts[c]!; k < end; k++) if (!(values[a + k] === values[b + k])) return false;
      return true;
    }
    let d2 = 0;
    if (tolerance2 < 0) {
      const scale = scales[c]!;
      for (let k = starts[c]!; k < end; k++) {
        const d = scaledGap(values[a + k]!, values[b + k]!, scale);
        d2 += d * d;
      }
      return d2 <= limits[c]!;
    }
    for (let k = starts[c]!; k < end; k++) {
      const d = values[a + k]! - values[b + k]!;
      d2 += d * d;
    }
    return d2 <= tolerance2;
  };
  return {
    accept: (vertex, representative) => {
      const a = vertex * width;
      const b = representative * width;
      for (let c = 0; c < channelCount; c++) {
        if (!within(c, a, b)) {
          refused++;
          return false;
        }
      }
      return true;
    },
    differs: (c, a, b) => !within(c, a * width, b * width),
    refusals: () => refused,
  };
}

/** weld's extra condition for `channels` (see {@link attributeTest}). */
export function acceptWithin(
  channels: readonly AttributeChannel[],
  n: number,
  order?: Uint32Array,
): AcceptRepresentative {
  return attributeTest(channels, n, order).accept;
}
