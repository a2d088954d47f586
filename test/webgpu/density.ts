/**
 * The README's SPH density pass, word for word what a user writes: their own
 * bindings in group 0, the `wgsl` snippet's in group 1. Runs in the test page.
 *
 * @module
 */
/// <reference types="@webgpu/types" />
import { GPUPointGrid3D, wgsl } from '../../src/webgpu/index.js';

// README example start
const densityShader = /* wgsl */ `
struct Sph { h: f32, mass: f32, poly6: f32, count: u32 }
@group(0) @binding(0) var<uniform> sph: Sph;
@group(0) @binding(1) var<storage, read> particles: array<vec4<f32>>; // xyz + unused w
@group(0) @binding(2) var<storage, read_write> density: array<f32>;

${wgsl} // the grid's bindings live in group 1

@compute @workgroup_size(64)
fn computeDensity(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= sph.count) { return; }
  var rho = 0.0;
  var it = gridNeighbors(particles[i].xyz, sph.h); // every particle within h, itself included, once
  while (gridNext(&it)) {
    let w = sph.h * sph.h - it.distanceSquared;
    rho += sph.mass * sph.poly6 * w * w * w;
  }
  density[i] = rho;
}`;

/** Sets up a grid over `particles` (vec4 each) and the density pass; `frame()` rebuilds the grid and runs the pass. */
export function sphDensity(
  device: GPUDevice,
  particles: GPUBuffer,
  density: GPUBuffer,
  count: number,
  h: number,
  mass: number,
): { grid: GPUPointGrid3D; frame: () => void } {
  const grid = new GPUPointGrid3D(device, { cellSize: h, maxPoints: count, stride: 4 });
  const sph = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const poly6 = 315 / (64 * Math.PI * h ** 9);
  const params = new ArrayBuffer(16);
  new Float32Array(params, 0, 3).set([h, mass, poly6]);
  new Uint32Array(params, 12, 1)[0] = count;
  device.queue.writeBuffer(sph, 0, params);

  const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({
    binding,
    visibility: GPUShaderStage.COMPUTE,
    buffer: { type },
  });
  const ownLayout = device.createBindGroupLayout({
    entries: [storage(0, 'uniform'), storage(1, 'read-only-storage'), storage(2, 'storage')],
  });
  const pipeline = device.createComputePipeline({
    layout: device.createPipelineLayout({ bindGroupLayouts: [ownLayout, grid.bindGroupLayout] }),
    compute: { module: device.createShaderModule({ code: densityShader }), entryPoint: 'computeDensity' },
  });
  const own = device.createBindGroup({
    layout: ownLayout,
    entries: [
      { binding: 0, resource: { buffer: sph } },
      { binding: 1, resource: { buffer: particles } },
      { binding: 2, resource: { buffer: density } },
    ],
  });

  // Every frame: rebuild the grid, then the passes that search it.
  const frame = () => {
    const encoder = device.createCommandEncoder();
    grid.build(particles, count, encoder);
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, own);
    pass.setBindGroup(1, grid.bindGroup);
    pass.dispatchWorkgroups(Math.ceil(count / 64));
    pass.end();
    device.queue.submit([encoder.finish()]);
  };
  return { grid, frame };
}
// README example end
