/**
 * Compute pipelines of the grid, compiled once per device and shared by its
 * grids, and the multi-level exclusive scan built from them.
 *
 * @module
 */
/// <reference types="@webgpu/types" />
import { HASH_SHADER, ROWS_SHADER, SCAN_BLOCK, SCAN_SHADER, SCATTER_SHADER } from './shaders.js';

/** GPUBufferUsage flags as numbers: the library must not need the WebGPU globals at load time. */
export const Usage = {
  MAP_READ: 0x1,
  COPY_SRC: 0x4,
  COPY_DST: 0x8,
  UNIFORM: 0x40,
  STORAGE: 0x80,
} as const;

/** GPUShaderStage.COMPUTE. */
const COMPUTE = 0x4;

/** The pipelines and layouts of one device. */
export interface Pipelines {
  gridLayout: GPUBindGroupLayout;
  rowsLayout: GPUBindGroupLayout;
  hash: GPUComputePipeline;
  scatter: GPUComputePipeline;
  reduceBlocks: GPUComputePipeline;
  scanBlocks: GPUComputePipeline;
  countRows: GPUComputePipeline;
  fillRows: GPUComputePipeline;
}

const cache = new WeakMap<GPUDevice, Pipelines>();

function storage(binding: number, readOnly: boolean): GPUBindGroupLayoutEntry {
  return { binding, visibility: COMPUTE, buffer: { type: readOnly ? 'read-only-storage' : 'storage' } };
}

function uniform(binding: number): GPUBindGroupLayoutEntry {
  return { binding, visibility: COMPUTE, buffer: { type: 'uniform' } };
}

/** The device's pipelines, compiled on first use. */
export function pipelinesFor(device: GPUDevice): Pipelines {
  let found = cache.get(device);
  if (found) return found;
  const gridLayout = device.createBindGroupLayout({
    label: 'spatialhash grid',
    entries: [uniform(0), storage(1, true), storage(2, true), storage(3, true)],
  });
  const rowsLayout = device.createBindGroupLayout({
    label: 'spatialhash rows',
    entries: [uniform(0), storage(1, false), storage(2, false)],
  });
  const compile = (label: string, code: string, entryPoint: string, layout?: GPUPipelineLayout) =>
    device.createComputePipeline({
      label: `spatialhash ${entryPoint}`,
      layout: layout ?? 'auto',
      compute: { module: device.createShaderModule({ label, code }), entryPoint },
    });
  const rowsPipelineLayout = device.createPipelineLayout({ bindGroupLayouts: [gridLayout, rowsLayout] });
  found = {
    gridLayout,
    rowsLayout,
    hash: compile('spatialhash hash', HASH_SHADER, 'hashPoints'),
    scatter: compile('spatialhash scatter', SCATTER_SHADER, 'scatterPoints'),
    reduceBlocks: compile('spatialhash scan', SCAN_SHADER, 'reduceBlocks'),
    scanBlocks: compile('spatialhash scan', SCAN_SHADER, 'scanBlocks'),
    countRows: compile('spatialhash rows', ROWS_SHADER, 'countRows', rowsPipelineLayout),
    fillRows: compile('spatialhash rows', ROWS_SHADER, 'fillRows', rowsPipelineLayout),
  };
  cache.set(device, found);
  return found;
}

/** Most workgroups a one-dimensional dispatch may have in WebGPU (maxComputeWorkgroupsPerDimension's default). */
export const MAX_WORKGROUPS = 65535;

/** One level of a scan: `n` counters in `data`, whose block totals go to the next level. */
interface ScanLevel {
  blocks: number;
  reduceGroup: GPUBindGroup | undefined;
  scanGroup: GPUBindGroup;
}

/**
 * An in-place exclusive scan of `n` u32 counters in `data`, recorded by
 * {@link encode}, reduce-then-scan: each level sums its blocks of
 * SCAN_BLOCK (1,024) counters into the next level's counters, until one
 * block is left; that top block is scanned alone, then each level below is
 * scanned block by block with its scanned block totals added. 2^21 + 1
 * counters (a million points' table): 2,049, 3 and 1 blocks, five
 * dispatches. Owns the buffers of the upper levels. Sums wrap modulo 2^32,
 * as the per-level sums do, so a caller that must detect overflow checks
 * for a decreasing result.
 */
export class ScanPlan {
  private readonly levels: ScanLevel[] = [];
  private readonly owned: GPUBuffer[] = [];
  private readonly pipelines: Pipelines;
  private readonly maxWorkgroups: number;

  /**
   * @param maxWorkgroups most workgroups a dispatch gets; a level with more
   * blocks has each workgroup loop over several (the tests lower it to
   * exercise that loop without a 64-million-counter buffer).
   */
  constructor(device: GPUDevice, pipelines: Pipelines, data: GPUBuffer, n: number, maxWorkgroups = MAX_WORKGROUPS) {
    this.pipelines = pipelines;
    this.maxWorkgroups = maxWorkgroups;
    let level = data;
    let length = n;
    for (;;) {
      const blocks = Math.max(1, Math.ceil(length / SCAN_BLOCK));
      const top = blocks === 1;
      const params = device.createBuffer({ size: 16, usage: Usage.UNIFORM | Usage.COPY_DST });
      device.queue.writeBuffer(params, 0, new Uint32Array([length, top ? 0 : 1, 0, 0]));
      // The top level reads no block sums; it still binds a buffer of one.
      const sums = device.createBuffer({ size: 4 * blocks, usage: Usage.STORAGE });
      this.owned.push(params, sums);
      const entries = [
        { binding: 0, resource: { buffer: params } },
        { binding: 1, resource: { buffer: level } },
        { binding: 2, resource: { buffer: sums } },
      ];
      // reduceBlocks and scanBlocks have identical auto layouts, but auto
      // layouts are never shared between pipelines: one group each.
      this.levels.push({
        blocks,
        reduceGroup: top
          ? undefined
          : device.createBindGroup({ layout: pipelines.reduceBlocks.getBindGroupLayout(0), entries }),
        scanGroup: device.createBindGroup({ layout: pipelines.scanBlocks.getBindGroupLayout(0), entries }),
      });
      if (top) break;
      level = sums;
      length = blocks;
    }
  }

  /** Records the scan into `pass`. */
  encode(pass: GPUComputePassEncoder): void {
    const levels = this.levels;
    const top = levels.length - 1;
    if (top > 0) pass.setPipeline(this.pipelines.reduceBlocks);
    for (let k = 0; k < top; k++) {
      pass.setBindGroup(0, levels[k].reduceGroup);
      pass.dispatchWorkgroups(Math.min(levels[k].blocks, this.maxWorkgroups));
    }
    // Level k's block offsets are level k + 1's scanned counters: scan from the top down.
    pass.setPipeline(this.pipelines.scanBlocks);
    for (let k = top; k >= 0; k--) {
      pass.setBindGroup(0, levels[k].scanGroup);
      pass.dispatchWorkgroups(Math.min(levels[k].blocks, this.maxWorkgroups));
    }
  }

  /** Frees the buffers of the upper levels. */
  destroy(): void {
    for (const buffer of this.owned) buffer.destroy();
  }
}
