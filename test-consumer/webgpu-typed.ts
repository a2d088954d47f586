// spatialhash/webgpu where the consumer has WebGPU types (TypeScript 7's DOM library, or @webgpu/types): the
// grid's outputs are the consumer's own GPUBuffer, GPUBindGroup and GPUBindGroupLayout, so they go into
// WebGPU's own calls as they are (@webgpu/types brands its types: a look-alike shape would not).
import { GPUPointGrid2D, GPUPointGrid3D, type GPUPointGridOptions, gridWGSL } from 'spatialhash/webgpu';

/** true when A and B are the same type, not just assignable either way. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export function frame(device: GPUDevice, positions: GPUBuffer, count: number): void {
  const options: GPUPointGridOptions = { cellSize: 0.1, maxPoints: 1024 };
  const grid = new GPUPointGrid3D(device, options);
  const flat = new GPUPointGrid2D(device, { ...options, stride: 4 });
  const encoder = device.createCommandEncoder();
  grid.build(positions, count, encoder);
  flat.build(positions, count);
  const layout = device.createPipelineLayout({ bindGroupLayouts: [grid.bindGroupLayout] });
  const module = device.createShaderModule({ code: `${gridWGSL(0)}\n@compute @workgroup_size(64) fn main() {}` });
  const pipeline = device.createComputePipeline({ layout, compute: { module, entryPoint: 'main' } });
  const own = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(1),
    entries: [
      { binding: 0, resource: { buffer: grid.sortedPositions } },
      { binding: 1, resource: { buffer: grid.cellStart } },
    ],
  });
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, grid.bindGroup);
  pass.setBindGroup(1, own);
  pass.dispatchWorkgroups(Math.ceil(count / 64));
  pass.end();
  encoder.copyBufferToBuffer(grid.sortedIndices, 0, flat.sortedIndices, 0, 4 * count);
  device.queue.submit([encoder.finish()]);
  const exact: [
    Same<typeof grid.device, GPUDevice>,
    Same<typeof grid.cellStart, GPUBuffer>,
    Same<typeof grid.bindGroup, GPUBindGroup>,
    Same<typeof grid.bindGroupLayout, GPUBindGroupLayout>,
  ] = [true, true, true, true];
  void exact;
  grid.destroy();
  flat.destroy();
}
