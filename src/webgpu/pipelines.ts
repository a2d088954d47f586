/**
 * Compute pipelines of the grid, compiled once per device and shared by its
 * grids, and the multi-level exclusive scan built from them.
 *
 * @module
 */
/// <reference types="@webgpu/types" />
import { HASH_SHADER, ROWS_SHADER, SCAN_CHUNK, SCAN_SHADER, SCATTER_SHADER, WORKGROUP } from './shaders.js';

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
  scanChunks: GPUComputePipeline;
  addChunkSums: GPUComputePipeline;
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
    scanChunks: compile('spatialhash scan', SCAN_SHADER, 'scanChunks'),
    addChunkSums: compile('spatialhash scan', SCAN_SHADER, 'addChunkSums'),
    countRows: compile('spatialhash rows', ROWS_SHADER, 'countRows', rowsPipelineLayout),
    fillRows: compile('spatialhash rows', ROWS_SHADER, 'fillRows', rowsPipelineLayout),
  };
  cache.set(device, found);
  return found;
}

/**
 * An in-place exclusive scan of `n` u32 counters in `data`, recorded by
 * {@link encode}: each level scans chunks of 32 and hands the chunk totals to
 * the next level, until one chunk is left, then adds the scanned totals back
 * level by level (2^21 counters: 5 levels). Owns the buffers of the upper
 * levels.
 */
export class ScanPlan {
  private readonly steps: { chunks: number; scanGroup: GPUBindGroup }[] = [];
  private readonly addGroups: GPUBindGroup[] = [];
  private readonly owned: GPUBuffer[] = [];
  private readonly pipelines: Pipelines;

  constructor(device: GPUDevice, pipelines: Pipelines, data: GPUBuffer, n: number) {
    this.pipelines = pipelines;
    let level = data;
    let length = n;
    for (;;) {
      const chunks = Math.max(1, Math.ceil(length / SCAN_CHUNK));
      const params = device.createBuffer({ size: 16, usage: Usage.UNIFORM | Usage.COPY_DST });
      device.queue.writeBuffer(params, 0, new Uint32Array([length, 0, 0, 0]));
      const sums = device.createBuffer({ size: 4 * chunks, usage: Usage.STORAGE });
      this.owned.push(params, sums);
      const entries = [
        { binding: 0, resource: { buffer: params } },
        { binding: 1, resource: { buffer: level } },
        { binding: 2, resource: { buffer: sums } },
      ];
      // scanChunks and addChunkSums have identical auto layouts, but auto
      // layouts are never shared between pipelines: one group each.
      this.steps.push({
        chunks,
        scanGroup: device.createBindGroup({ layout: pipelines.scanChunks.getBindGroupLayout(0), entries }),
      });
      this.addGroups.push(device.createBindGroup({ layout: pipelines.addChunkSums.getBindGroupLayout(0), entries }));
      if (chunks === 1) break;
      level = sums;
      length = chunks;
    }
  }

  /** Records the scan into `pass`. */
  encode(pass: GPUComputePassEncoder): void {
    pass.setPipeline(this.pipelines.scanChunks);
    for (const step of this.steps) {
      pass.setBindGroup(0, step.scanGroup);
      pass.dispatchWorkgroups(Math.ceil(step.chunks / WORKGROUP));
    }
    pass.setPipeline(this.pipelines.addChunkSums);
    // Level k's totals are scanned once level k + 1 is: add from the top down.
    for (let k = this.steps.length - 2; k >= 0; k--) {
      pass.setBindGroup(0, this.addGroups[k]);
      pass.dispatchWorkgroups(Math.ceil(this.steps[k].chunks / WORKGROUP));
    }
  }

  /** Frees the buffers of the upper levels. */
  destroy(): void {
    for (const buffer of this.owned) buffer.destroy();
  }
}
