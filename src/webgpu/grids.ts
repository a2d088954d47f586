/**
 * The two public GPU grids: one shared implementation (grid.ts), named per
 * dimension like PointGrid2D/3D.
 *
 * @module
 */
/// <reference types="@webgpu/types" />
import { GPUPointGrid, type GPUPointGridOptions } from './grid.js';
// Stands for the consumer's own GPUDevice (see types.ts).
import type { GPUDevice } from './types.js';

/**
 * A counting-sort grid of 3D points on the GPU, rebuilt every frame by
 * {@link GPUPointGrid3D.build}: hash each point's cell into a table of
 * `tableSize` buckets, count per bucket with atomics, scan, scatter. The
 * caller's compute shaders include {@link wgsl} and bind
 * {@link GPUPointGrid3D.bindGroup} to loop over the points within a radius
 * (in a hot pass, one invocation per sorted slot with nested loops over the
 * cells: see {@link wgsl}); {@link GPUPointGrid3D.neighbors} and
 * {@link GPUPointGrid3D.pairs} read the same results back to the CPU.
 *
 * Cells are unbounded (hashed, never a bounding box) and exact: a point is
 * reported only under its own cell, so cells sharing a bucket never leak
 * points or duplicates. Positions are float32, cell coordinates
 * `floor(x * (1 / cellSize))` as i32, clamped to +-2^30: exact at any
 * distance; past |x / cellSize| = 2^30 far points pile into the outermost
 * cells (slower, still exact). Non-finite coordinates give unspecified
 * results.
 *
 * Memory: 16 bytes per point (sorted positions) + 12 (sorted indices and
 * build scratch) + 4 per bucket (8 per point at the default table size).
 *
 * @example
 * ```ts
 * const grid = new GPUPointGrid3D(device, { cellSize: h, maxPoints: 1_000_000, stride: 4 });
 * const encoder = device.createCommandEncoder();
 * grid.build(particleBuffer, count, encoder); // then your passes, binding grid.bindGroup at 1
 * device.queue.submit([encoder.finish()]);
 * ```
 */
export class GPUPointGrid3D extends GPUPointGrid {
  /**
   * Creates the grid's buffers (sized for `maxPoints`) and compiles its
   * pipelines (once per device).
   *
   * @param options `cellSize` (required, finite > 0), `maxPoints` (required,
   * integer >= 1, at most 16,776,960 and a storage binding of 16 bytes per
   * point), `stride` (f32s per point, >= 3, default 3), `tableSize`.
   * @throws RangeError for an option out of range, before any GPU work.
   */
  constructor(device: GPUDevice, options: GPUPointGridOptions) {
    super('GPUPointGrid3D', 3, device, options);
  }
}

/**
 * The 2D twin of {@link GPUPointGrid3D}: points are (x, y) at
 * `positions[i * stride]`, cells squares; the same {@link wgsl} snippet
 * searches it (z is ignored: pass vec3(p, 0.0)). Sorted positions are still
 * vec4 (z = 0), so 2D and 3D share one snippet.
 */
export class GPUPointGrid2D extends GPUPointGrid {
  /**
   * As {@link GPUPointGrid3D}'s constructor, with `stride` >= 2 (default 2).
   *
   * @throws RangeError for an option out of range, before any GPU work.
   */
  constructor(device: GPUDevice, options: GPUPointGridOptions) {
    super('GPUPointGrid2D', 2, device, options);
  }
}
