/**
 * The SPH density pass of docs/guides/gpu.md, word for word what a user
 * writes: their own bindings in group 0, the `wgsl` snippet's in group 1, one
 * invocation per sorted slot with nested loops over the cells. Runs in the
 * test page and in the demo's GPU page (demo/gpu.ts); test/docs/gpu-example.test.ts
 * keeps the guide's block equal to the text between the markers (with the
 * import from 'spatialhash/webgpu').
 *
 * @module
 */
/// <reference types="@webgpu/types" />
import { GPUPointGrid3D, wgsl } from '../../src/webgpu/index.js';

// GPU guide example start
const densityShader = /* wgsl */ `
struct Sph { h: f32, mass: f32, poly6: f32, count: u32 }
@group(0) @binding(0) var<uniform> sph: Sph;
@group(0) @binding(1) var<storage, read_write> density: array<f32>; // per particle, in your order

${wgsl} // the grid's bindings live in group 1

@compute @workgroup_size(64)
fn computeDensity(@builtin(global_invocation_id) id: vec3<u32>) {
  let s = id.x; // a sorted slot: neighbouring invocations search the same cells
  if (s >= sph.count) { return; }
  let range = gridNeighbors(gridSortedPositions[s].xyz, sph.h); // cells within h, center, h * h
  var rho = 0.0;
  for (var z = range.low.z; z <= range.high.z; z++) {
    for (var y = range.low.y; y <= range.high.y; y++) {
      for (var x = range.low.x; x <= range.high.x; x++) {
        let cell = vec3<i32>(x, y, z);
        let bucket = gridBucketOf(cell);
        let end = gridCellStart[bucket + 1u];
        for (var t = gridCellStart[bucket]; t < end; t++) {
          let q = gridSortedPositions[t].xyz;
          let d = q - range.center;
          let d2 = dot(d, d);
          // Within h (itself included), and under this very cell: a bucket holds every cell hashed to it.
          if (d2 <= range.radiusSquared && all(gridCellOf(q) == cell)) {
            let w = range.radiusSquared - d2;
            rho += w * w * w;
          }
        }
      }
    }
  }
  density[gridSortedIndices[s]] = sph.mass * sph.poly6 * rho; // at the particle's own index
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

  const ownLayout = device.createBindGroupLayout({
    entries: [
      { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
      { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } },
    ],
  });
  const pipeline = device.createComputePipeline({
    layout: device.createPipelineLayout({ bindGroupLayouts: [ownLayout, grid.bindGroupLayout] }),
    compute: { module: device.createShaderModule({ code: densityShader }), entryPoint: 'computeDensity' },
  });
  const own = device.createBindGroup({
    layout: ownLayout,
    entries: [
      { binding: 0, resource: { buffer: sph } },
      { binding: 1, resource: { buffer: density } },
    ],
  });

  // Every frame: rebuild the grid from the particles, then the passes that search it.
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
// GPU guide example end
