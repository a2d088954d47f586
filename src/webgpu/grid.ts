/**
 * GPUPointGrid: the counting-sort point grid of PointGrid2D/3D as WebGPU
 * compute passes. build() records: clear the bucket counters, hash each point
 * to its cell's bucket and count it (atomics), scan the counts into
 * cellStart, scatter indices and positions into cell order. The buffers stay
 * on the GPU for the caller's own shaders (see wgsl.ts); neighbors() and
 * pairs() read results back for tests and simple users.
 *
 * @module
 */
/// <reference types="@webgpu/types" />

import type { NeighborLists } from '../core/results.js';
import { checkInteger, checkPositive, describe } from '../core/validate.js';
import { MAX_WORKGROUPS, type Pipelines, pipelinesFor, ScanPlan, Usage } from './pipelines.js';
import { WORKGROUP } from './shaders.js';
// The public API's WebGPU types stand for the consumer's own (see types.ts); here they are the DOM library's.
import type { GPUBindGroup, GPUBindGroupLayout, GPUBuffer, GPUCommandEncoder, GPUDevice } from './types.js';

/** Options of {@link GPUPointGrid2D} and {@link GPUPointGrid3D}. */
export interface GPUPointGridOptions {
  /**
   * Edge of a square (cubic) cell, in position units: finite, > 0, and its
   * float32 inverse finite and > 0. A neighbour loop with a radius up to
   * `cellSize` visits 3x3x3 cells (3x3 in 2D).
   */
  cellSize: number;
  /** Most points a build() takes: an integer >= 1; sizes the buffers. */
  maxPoints: number;
  /** f32 numbers between the starts of two consecutive points (vec4 positions: 4). Default: the dimension. */
  stride?: number;
  /**
   * Buckets of the cell hash table, a power of two. Default: the power of two
   * at or above `2 * maxPoints` (within the device's buffer limits). Smaller
   * tables save memory and make more cells share a bucket: still exact,
   * slower.
   */
  tableSize?: number;
}

/** Largest radius the readback helpers take, in cell sizes: (2k + 1)^3 cells per point. */
export const MAX_READBACK_CELLS = 4;

function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

function largestPowerOfTwoAtMost(n: number): number {
  let p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

/** Copies `size` bytes of `source` back to the CPU. */
async function readBack(device: GPUDevice, source: GPUBuffer, size: number): Promise<Uint32Array> {
  const staging = device.createBuffer({ size: Math.max(4, size), usage: Usage.MAP_READ | Usage.COPY_DST });
  try {
    const encoder = device.createCommandEncoder({ label: 'spatialhash readback' });
    if (size > 0) encoder.copyBufferToBuffer(source, 0, staging, 0, size);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(1 /* GPUMapMode.READ */);
    return new Uint32Array(staging.getMappedRange(0, size).slice(0));
  } finally {
    staging.destroy();
  }
}

/**
 * Throws an Error unless `device` looks like a GPUDevice: what a grid reads
 * of one (its limits, and the methods that make buffers, layouts, pipelines
 * and command encoders). An adapter, a context or a missing device would
 * otherwise fail later with a TypeError that names none of them.
 */
function checkDevice(name: string, device: unknown): void {
  const d = device as Partial<Record<string, unknown>> | null;
  const methods = ['createBuffer', 'createBindGroupLayout', 'createComputePipeline', 'createCommandEncoder'];
  const limits = d?.limits as Partial<Record<string, unknown>> | undefined;
  const looksLikeDevice =
    d !== null &&
    typeof d === 'object' &&
    methods.every((m) => typeof d[m] === 'function') &&
    typeof d.queue === 'object' &&
    d.queue !== null &&
    typeof limits === 'object' &&
    limits !== null &&
    typeof limits.maxStorageBufferBindingSize === 'number' &&
    typeof limits.maxBufferSize === 'number';
  if (!looksLikeDevice) {
    const hint =
      d !== null && typeof d === 'object' && typeof d.requestDevice === 'function'
        ? ' (this is a GPUAdapter: pass await adapter.requestDevice())'
        : '';
    throw new Error(
      `${name}: the first argument must be a GPUDevice (from await (await navigator.gpu.requestAdapter()).requestDevice()), got ${describe(device)}${hint}`,
    );
  }
}

/**
 * What {@link GPUPointGrid2D} and {@link GPUPointGrid3D} share: every member
 * but the constructor. Exported as a type only, for code that takes either
 * grid; create one of the two.
 */
export class GPUPointGrid {
  /** Edge of a grid cell, in position units, as given. */
  readonly cellSize: number;
  /** Most points a build takes. */
  readonly maxPoints: number;
  /** f32 numbers between the starts of two consecutive points. */
  readonly stride: number;
  /** Buckets of the cell hash table (a power of two). */
  readonly tableSize: number;
  /** 2 or 3. */
  readonly dimension: 2 | 3;
  /** The device the buffers live on. */
  readonly device: GPUDevice;

  /**
   * `tableSize + 1` u32: the points of bucket b are at sorted slots
   * `cellStart[b]` to `cellStart[b + 1] - 1` (several cells may share a
   * bucket: compare `gridCellOf(position)` with the cell you look for).
   */
  readonly cellStart: GPUBuffer;
  /** `maxPoints` u32: the index (in the positions given to build) of the point at each sorted slot. */
  readonly sortedIndices: GPUBuffer;
  /** `maxPoints` vec4<f32>: the point at each sorted slot, (x, y, z, 0); z is 0 in 2D. */
  readonly sortedPositions: GPUBuffer;
  /** 32 bytes, the `GridParams` uniform of the WGSL snippet (cell size, table mask, count...). */
  readonly params: GPUBuffer;
  /** Layout of {@link bindGroup}: binding 0 uniform, 1 to 3 read-only storage, compute stage. */
  readonly bindGroupLayout: GPUBindGroupLayout;
  /** The four bindings the `wgsl` snippet declares, for the caller's pipelines. */
  readonly bindGroup: GPUBindGroup;

  private readonly name: string;
  private readonly pipelines: Pipelines;
  private readonly pointSlots: GPUBuffer;
  private readonly scan: ScanPlan;
  private readonly paramsData = new ArrayBuffer(32);
  private lastPositions: GPUBuffer | undefined;
  private hashGroup: GPUBindGroup | undefined;
  private scatterGroup: GPUBindGroup | undefined;
  private built = 0;
  /** Where the grid is in its life: neighbors() needs a build, and nothing works after destroy(). */
  private stage: 'new' | 'built' | 'destroyed' = 'new';

  /** @internal Called by the 2D and 3D classes, which name themselves and their dimension. */
  constructor(name: string, dimension: 2 | 3, device: GPUDevice, options: GPUPointGridOptions) {
    checkDevice(name, device);
    if (options === null || typeof options !== 'object') {
      throw new RangeError(`options must be an object with cellSize and maxPoints, got ${describe(options)}`);
    }
    checkPositive('cellSize', options.cellSize);
    const inverse = Math.fround(1 / options.cellSize);
    if (!(inverse > 0 && Number.isFinite(inverse))) {
      throw new RangeError(`cellSize must have a finite nonzero float32 inverse, got ${describe(options.cellSize)}`);
    }
    const limits = device.limits;
    const bindingLimit = Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
    const pointLimit = Math.min(MAX_WORKGROUPS * WORKGROUP, Math.floor(bindingLimit / 16));
    checkInteger('maxPoints', options.maxPoints, 1, pointLimit);
    const stride = options.stride ?? dimension;
    checkInteger('stride', stride, dimension);
    // tableSize + 1 counters must fit one binding.
    const tableLimit = largestPowerOfTwoAtMost(bindingLimit / 4 - 1);
    const tableSize = options.tableSize ?? Math.min(nextPowerOfTwo(2 * options.maxPoints), tableLimit);
    checkInteger('tableSize', tableSize, 1, tableLimit);
    if ((tableSize & (tableSize - 1)) !== 0) {
      throw new RangeError(`tableSize must be a power of two, got ${tableSize}`);
    }

    this.name = name;
    this.dimension = dimension;
    this.device = device;
    this.cellSize = options.cellSize;
    this.maxPoints = options.maxPoints;
    this.stride = stride;
    this.tableSize = tableSize;
    this.pipelines = pipelinesFor(device);

    const storage = Usage.STORAGE | Usage.COPY_SRC | Usage.COPY_DST;
    this.params = device.createBuffer({ label: `${name}.params`, size: 32, usage: Usage.UNIFORM | Usage.COPY_DST });
    this.cellStart = device.createBuffer({ label: `${name}.cellStart`, size: 4 * (tableSize + 1), usage: storage });
    this.sortedIndices = device.createBuffer({
      label: `${name}.sortedIndices`,
      size: 4 * this.maxPoints,
      usage: storage,
    });
    this.sortedPositions = device.createBuffer({
      label: `${name}.sortedPositions`,
      size: 16 * this.maxPoints,
      usage: storage,
    });
    this.pointSlots = device.createBuffer({
      label: `${name} point slots`,
      size: 8 * this.maxPoints,
      usage: Usage.STORAGE,
    });
    this.scan = new ScanPlan(device, this.pipelines, this.cellStart, tableSize + 1);
    this.bindGroupLayout = this.pipelines.gridLayout;
    this.bindGroup = device.createBindGroup({
      label: `${name}.bindGroup`,
      layout: this.bindGroupLayout,
      entries: [
        { binding: 0, resource: { buffer: this.params } },
        { binding: 1, resource: { buffer: this.cellStart } },
        { binding: 2, resource: { buffer: this.sortedIndices } },
        { binding: 3, resource: { buffer: this.sortedPositions } },
      ],
    });
    this.writeParams(0);
  }

  /** Points of the last build. */
  get count(): number {
    return this.built;
  }

  private writeParams(count: number): void {
    const f32 = new Float32Array(this.paramsData);
    const u32 = new Uint32Array(this.paramsData);
    f32[0] = 1 / this.cellSize;
    u32[1] = this.tableSize - 1;
    u32[2] = count;
    u32[3] = this.dimension;
    u32[4] = this.stride;
    this.device.queue.writeBuffer(this.params, 0, this.paramsData);
  }

  /**
   * Records the build into `encoder` (or a new encoder, submitted at once):
   * point i is `positions` f32 `[i * stride]` and the next one (two) numbers.
   * The grid's parameters (the count) are written with `queue.writeBuffer`,
   * so submit one build before recording the next.
   *
   * @throws Error, before any GPU work, for a positions that is not a
   * GPUBuffer with STORAGE usage or a grid that was destroyed; RangeError
   * for a count that is not an integer in [0, maxPoints] or a buffer too
   * small for count points.
   */
  build(positions: GPUBuffer, count: number, encoder?: GPUCommandEncoder): void {
    this.checkAlive('build');
    const usage = (positions as { usage?: unknown } | null)?.usage;
    const size = (positions as { size?: unknown } | null)?.size;
    if (typeof usage !== 'number' || typeof size !== 'number') {
      throw new Error(`${this.name}.build: positions must be a GPUBuffer, got ${describe(positions)}`);
    }
    if ((usage & Usage.STORAGE) === 0) {
      throw new Error(
        `${this.name}.build: positions must have GPUBufferUsage.STORAGE in its usage, got usage 0x${usage.toString(16)}`,
      );
    }
    checkInteger('count', count, 0, this.maxPoints);
    const needed = count === 0 ? 0 : 4 * ((count - 1) * this.stride + this.dimension);
    if (needed > size) {
      throw new RangeError(
        `positions holds ${size} bytes, but ${count} points of stride ${this.stride} need ${needed} bytes`,
      );
    }

    const device = this.device;
    if (positions !== this.lastPositions) {
      this.hashGroup = device.createBindGroup({
        layout: this.pipelines.hash.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: { buffer: this.params } },
          { binding: 1, resource: { buffer: positions } },
          { binding: 2, resource: { buffer: this.cellStart } },
          { binding: 3, resource: { buffer: this.pointSlots } },
        ],
      });
      this.scatterGroup = device.createBindGroup({
        layout: this.pipelines.scatter.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: { buffer: this.params } },
          { binding: 1, resource: { buffer: positions } },
          { binding: 2, resource: { buffer: this.cellStart } },
          { binding: 3, resource: { buffer: this.pointSlots } },
          { binding: 4, resource: { buffer: this.sortedIndices } },
          { binding: 5, resource: { buffer: this.sortedPositions } },
        ],
      });
      this.lastPositions = positions;
    }
    this.writeParams(count);
    this.built = count;
    this.stage = 'built';

    const own = encoder === undefined;
    const target = encoder ?? device.createCommandEncoder({ label: `${this.name}.build` });
    target.clearBuffer(this.cellStart);
    const pass = target.beginComputePass({ label: `${this.name}.build` });
    const groups = Math.ceil(count / WORKGROUP);
    if (groups > 0) {
      pass.setPipeline(this.pipelines.hash);
      pass.setBindGroup(0, this.hashGroup);
      pass.dispatchWorkgroups(groups);
    }
    this.scan.encode(pass);
    if (groups > 0) {
      pass.setPipeline(this.pipelines.scatter);
      pass.setBindGroup(0, this.scatterGroup);
      pass.dispatchWorkgroups(groups);
    }
    pass.end();
    if (own) device.queue.submit([target.finish()]);
  }

  /**
   * Every point's neighbours within `radius` (itself excluded) in CSR form,
   * read back from the GPU. Row i is `indices[offsets[i]]` to
   * `indices[offsets[i + 1] - 1]`, rows in point order, and each row is
   * **ascending** (sorted on the CPU after the readback, since the GPU fills
   * a row in the order its neighbour loop meets the points, which depends
   * on atomics). Against `PointGrid3D.neighbors` (`PointGrid2D` for the 2D
   * grid) on the same float32 points: the same `offsets`, and each row the
   * same set, but PointGrid's rows are in its search order, not ascending:
   * sort each of its rows and the two `indices` are equal. The exception is
   * a pair whose distance is within float32 rounding of the radius (the GPU
   * tests `dot(d, d) <= radius^2` in float32, the CPU in float64). Runs two
   * passes of the `wgsl` neighbour loop with a scan between; call it after
   * the build's commands were submitted. Allocates GPU buffers per call.
   *
   * @throws Error (the promise rejects) before any GPU work when no build()
   * was called yet or the grid was destroyed; RangeError for a radius that
   * is not a finite number >= 0 or is above 4 cell sizes, or when the lists
   * outgrow a storage buffer.
   */
  async neighbors(radius: number): Promise<NeighborLists> {
    this.checkBuilt('neighbors');
    this.checkRadius(radius);
    const device = this.device;
    const n = this.built;
    const owned: GPUBuffer[] = [];
    const buffer = (size: number, usage: number) => {
      const b = device.createBuffer({ size: Math.max(4, size), usage });
      owned.push(b);
      return b;
    };
    let scan: ScanPlan | undefined;
    try {
      const rowParams = buffer(16, Usage.UNIFORM | Usage.COPY_DST);
      device.queue.writeBuffer(rowParams, 0, new Float32Array([radius, 0, 0, 0]));
      const offsetsBuffer = buffer(4 * (n + 1), Usage.STORAGE | Usage.COPY_SRC | Usage.COPY_DST);
      const rowsGroup = (indices: GPUBuffer) =>
        device.createBindGroup({
          layout: this.pipelines.rowsLayout,
          entries: [
            { binding: 0, resource: { buffer: rowParams } },
            { binding: 1, resource: { buffer: offsetsBuffer } },
            { binding: 2, resource: { buffer: indices } },
          ],
        });
      scan = new ScanPlan(device, this.pipelines, offsetsBuffer, n + 1);
      const groups = Math.ceil(n / WORKGROUP);

      let encoder = device.createCommandEncoder({ label: `${this.name}.neighbors` });
      encoder.clearBuffer(offsetsBuffer);
      let pass = encoder.beginComputePass();
      if (groups > 0) {
        pass.setPipeline(this.pipelines.countRows);
        pass.setBindGroup(0, this.bindGroup);
        pass.setBindGroup(1, rowsGroup(buffer(4, Usage.STORAGE)));
        pass.dispatchWorkgroups(groups);
      }
      scan.encode(pass);
      pass.end();
      device.queue.submit([encoder.finish()]);
      const offsets = await readBack(device, offsetsBuffer, 4 * (n + 1));
      for (let i = 0; i < n; i++) {
        if (offsets[i + 1] < offsets[i]) throw new RangeError(`${this.name}.neighbors: more than 2^32 neighbours`);
      }
      const total = offsets[n];
      const limits = device.limits;
      if (4 * total > Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize)) {
        throw new RangeError(`${this.name}.neighbors: ${total} neighbours do not fit one storage buffer`);
      }

      const indicesBuffer = buffer(4 * total, Usage.STORAGE | Usage.COPY_SRC);
      encoder = device.createCommandEncoder({ label: `${this.name}.neighbors` });
      pass = encoder.beginComputePass();
      if (groups > 0) {
        pass.setPipeline(this.pipelines.fillRows);
        pass.setBindGroup(0, this.bindGroup);
        pass.setBindGroup(1, rowsGroup(indicesBuffer));
        pass.dispatchWorkgroups(groups);
      }
      pass.end();
      device.queue.submit([encoder.finish()]);
      const indices = await readBack(device, indicesBuffer, 4 * total);
      for (let i = 0; i < n; i++) indices.subarray(offsets[i], offsets[i + 1]).sort();
      return { offsets, indices };
    } finally {
      scan?.destroy();
      for (const b of owned) b.destroy();
    }
  }

  /**
   * Every unordered pair of points within `radius`, flat `[i0, j0, i1, j1, ...]`
   * with i < j, **ascending by i, then by j**: {@link neighbors} folded to
   * pairs. `PointGrid3D.pairs` finds the same pairs, also with i < j, but in
   * its search order. Same throws as {@link neighbors}.
   */
  async pairs(radius: number): Promise<Uint32Array> {
    this.checkBuilt('pairs');
    const { offsets, indices } = await this.neighbors(radius);
    const n = offsets.length - 1;
    // Rows are symmetric (the float32 test is): half the entries are pairs.
    let found = 0;
    for (let i = 0; i < n; i++) {
      for (let k = offsets[i]; k < offsets[i + 1]; k++) if (indices[k] > i) found++;
    }
    const out = new Uint32Array(2 * found);
    let at = 0;
    for (let i = 0; i < n; i++) {
      for (let k = offsets[i]; k < offsets[i + 1]; k++) {
        if (indices[k] > i) {
          out[at++] = i;
          out[at++] = indices[k];
        }
      }
    }
    return out;
  }

  /**
   * Frees the grid's buffers; build(), neighbors() and pairs() throw
   * afterwards. Calling it again does nothing.
   */
  destroy(): void {
    if (this.stage === 'destroyed') return;
    this.stage = 'destroyed';
    this.built = 0;
    this.scan.destroy();
    for (const b of [this.params, this.cellStart, this.sortedIndices, this.sortedPositions, this.pointSlots]) {
      b.destroy();
    }
  }

  private checkAlive(method: string): void {
    if (this.stage === 'destroyed') {
      throw new Error(`${this.name}.${method}: the grid was destroyed`);
    }
  }

  /** A readback before any build would answer "no points" for a grid that was never filled: refuse it. */
  private checkBuilt(method: string): void {
    this.checkAlive(method);
    if (this.stage === 'new') {
      throw new Error(`${this.name}.${method}: call build() first (the grid holds no points yet)`);
    }
  }

  private checkRadius(radius: number): void {
    if (typeof radius !== 'number' || !(radius >= 0) || !Number.isFinite(radius)) {
      throw new RangeError(`radius must be a finite number >= 0, got ${describe(radius)}`);
    }
    if (radius > MAX_READBACK_CELLS * this.cellSize) {
      throw new RangeError(
        `radius must be at most ${MAX_READBACK_CELLS} cell sizes (${MAX_READBACK_CELLS * this.cellSize}) for ${this.name}.neighbors/pairs, got ${radius}`,
      );
    }
  }
}
