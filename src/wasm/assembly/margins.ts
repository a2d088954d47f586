// The rounding margins of src/core/margins.ts in the kernels: the one AssemblyScript copy of them, which the
// generated searches import (src/templates/within.template.ts, pairs.template.ts) and
// test/wasm/kernel-constants.test.ts holds equal to the JavaScript ones.

/** SLACK of core/margins.ts, 2^-48: the relative margin on radii and distance bounds. */
export const SLACK: f64 = 1.0 / 281474976710656.0;

/** UNDERFLOW of core/margins.ts, 2^-536: the absolute margin for gaps that square to 0. */
export const UNDERFLOW: f64 = reinterpret<f64>(0x1e70000000000000);

/** paddedRadius of core/margins.ts: the radius a query pads its cell range with. */
// @ts-ignore: decorator
@inline export function paddedRadius(radius: f64, relative: f64, width: f64): f64 {
  return radius + UNDERFLOW + (radius + relative + width) * SLACK;
}
