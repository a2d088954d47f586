/**
 * Runs the grid's exclusive scan (pipelines.ts's ScanPlan) over counters on
 * any GPUDevice and reads the result back: the GPU tests' page checks it on
 * SwiftShader, bench/gpu-dawn.ts on a real GPU, each against a serial scan.
 *
 * @module
 */
/// <reference types="@webgpu/types" />
import { pipelinesFor, ScanPlan } from '../../src/webgpu/pipelines.js';

/** `data` scanned in place on `device` (exclusive, modulo 2^32); `maxWorkgroups` caps each dispatch. */
export async function scanOnGpu(device: GPUDevice, data: Uint32Array, maxWorkgroups?: number): Promise<Uint32Array> {
  const size = Math.max(4, data.byteLength);
  const buffer = device.createBuffer({
    size,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
  });
  const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(buffer, 0, data);
  const plan = new ScanPlan(device, pipelinesFor(device), buffer, data.length, maxWorkgroups);
  try {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    plan.encode(pass);
    pass.end();
    encoder.copyBufferToBuffer(buffer, 0, staging, 0, size);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    return new Uint32Array(staging.getMappedRange(0, data.byteLength).slice(0));
  } finally {
    plan.destroy();
    buffer.destroy();
    staging.destroy();
  }
}
