/**
 * GPU particles: positions drift in a box (a compute pass of the page's own),
 * then the GPU guide's SPH density pass runs on them, its code itself
 * (test/webgpu/density.ts, which the GPU tests check and the guide shows):
 * GPUPointGrid3D rebuilt every frame, one invocation per sorted slot, nested
 * loops over the cells. The densities colour the particles, drawn as points on
 * a 2D canvas sized to its layout box, from a readback (the demo's point is the
 * grid, not the renderer); the box's x and y follow the canvas's shape at load.
 * Falls back to a message where WebGPU is missing. `window.__demo` exposes the
 * positions, the densities and the grid's pairs for the e2e test.
 */
/// <reference types="@webgpu/types" />
import { sphDensity } from '../test/webgpu/density.js';
import { createSurface } from './common.js';

const status = document.getElementById('status') as HTMLParagraphElement;
const canvas = document.getElementById('canvas') as HTMLCanvasElement;

const DRIFT = /* wgsl */ `
struct Sim { time: f32, count: u32, side: vec2<f32> }
@group(0) @binding(0) var<uniform> sim: Sim;
@group(0) @binding(1) var<storage, read_write> particles: array<vec4<f32>>;

@compute @workgroup_size(64)
fn drift(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= sim.count) { return; }
  var p = particles[i];
  let phase = f32(i % 97u) * 0.37;
  p.x = clamp(p.x + 0.02 * sin(sim.time + phase), 0.0, sim.side.x);
  p.y = clamp(p.y + 0.02 * cos(sim.time * 1.3 + phase), 0.0, sim.side.y);
  particles[i] = p;
}`;

interface DemoHook {
  webgpu: boolean;
  adapter?: string;
  frame: number;
  count: number;
  radius: number;
  /**
   * Pauses the loop, returns the positions (vec4 each) the grid was built from, the density pass's results over
   * them (mass 1 times the poly6 kernel summed over each particle's neighbours, itself included) and the grid's
   * pairs, resumes.
   */
  snapshot?: () => Promise<{ positions: number[]; density: number[]; pairs: number[] }>;
}

async function main(): Promise<void> {
  const hook: DemoHook = { webgpu: false, frame: 0, count: 0, radius: 1 };
  (window as unknown as { __demo: DemoHook }).__demo = hook;
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) {
    status.textContent =
      'WebGPU is not available in this browser: this page needs navigator.gpu (Chrome 113+, Edge, recent Safari or Firefox).';
    return;
  }
  const device = await adapter.requestDevice();
  const info = adapter.info;
  const software = /swiftshader/i.test(`${info.vendor} ${info.architecture} ${info.description}`);
  const asked = Number(new URLSearchParams(location.search).get('n'));
  const count = asked > 0 ? Math.min(asked, 4_000_000) : software ? 3000 : 200_000;
  const h = 1;
  // About 20 neighbours each (4.19 is a unit ball's volume), in a box whose x and y have the canvas's shape.
  const surface = createSurface(canvas, () => {});
  const aspect = surface.width / surface.height;
  const depth = Math.cbrt((count * 4.19) / 20);
  const side = [depth * Math.sqrt(aspect), depth / Math.sqrt(aspect), depth] as const;
  const data = new Float32Array(4 * count);
  for (let i = 0; i < 4 * count; i++) data[i] = i % 4 === 3 ? 0 : Math.random() * side[i % 4]!;
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
  const particles = device.createBuffer({ size: data.byteLength, usage });
  device.queue.writeBuffer(particles, 0, data);
  const density = device.createBuffer({ size: 4 * count, usage });
  const sim = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const ownLayout = device.createBindGroupLayout({
    entries: [
      { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
      { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } },
    ],
  });
  const drift = device.createComputePipeline({
    layout: device.createPipelineLayout({ bindGroupLayouts: [ownLayout] }),
    compute: { module: device.createShaderModule({ code: DRIFT }), entryPoint: 'drift' },
  });
  const own = device.createBindGroup({
    layout: ownLayout,
    entries: [
      { binding: 0, resource: { buffer: sim } },
      { binding: 1, resource: { buffer: particles } },
    ],
  });
  // The guide's pass: its grid over the particles, and a frame that rebuilds it and sums each one's density.
  const { grid, frame: densityFrame } = sphDensity(device, particles, density, count, h, 1);
  const staging = device.createBuffer({ size: 20 * count, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const simData = new ArrayBuffer(16);
  let latest = new Float32Array(0);
  Object.assign(hook, {
    webgpu: true,
    adapter: `${info.vendor} ${info.architecture} ${info.description}`.trim(),
    count,
    radius: h,
    snapshot: async () => {
      paused = true;
      await busy;
      const positions = Array.from(latest.subarray(0, 4 * count));
      const density = Array.from(latest.subarray(4 * count, 5 * count));
      const pairs = Array.from(await grid.pairs(h));
      paused = false;
      requestAnimationFrame(frame);
      return { positions, density, pairs };
    },
  });
  let paused = false;
  let busy: Promise<void> = Promise.resolve();
  status.textContent = `${count.toLocaleString()} particles on ${hook.adapter}${software ? ' (SwiftShader: a CPU emulation, hence the small count)' : ''}.`;

  const step = async (time: number) => {
    new Float32Array(simData, 0, 1)[0] = time / 1000;
    new Uint32Array(simData, 4, 1)[0] = count;
    new Float32Array(simData, 8, 2).set([side[0], side[1]]);
    device.queue.writeBuffer(sim, 0, simData);
    let encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(drift);
    pass.setBindGroup(0, own);
    pass.dispatchWorkgroups(Math.ceil(count / 64));
    pass.end();
    device.queue.submit([encoder.finish()]);
    densityFrame(); // grid.build, then the density pass, in one submit of its own
    encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(particles, 0, staging, 0, 16 * count);
    encoder.copyBufferToBuffer(density, 0, staging, 16 * count, 4 * count);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const all = new Float32Array(staging.getMappedRange().slice(0));
    staging.unmap();
    latest = all;
    draw(all, count);
  };
  const frame = (time: number) => {
    if (paused) return;
    busy = step(time).then(() => {
      hook.frame++;
      requestAnimationFrame(frame);
    });
  };
  // The box's x-y projection, fitted to the canvas as it is now (centred, never stretched).
  const draw = (all: Float32Array, n: number) => {
    const { context, width, height } = surface;
    context.fillStyle = '#0b1020';
    context.fillRect(0, 0, width, height);
    const scale = Math.min(width / side[0], height / side[1]);
    const left = (width - side[0] * scale) / 2;
    const top = (height - side[1] * scale) / 2;
    // Colour by density against this frame's mean, so that denser and sparser spots show at any particle count.
    let mean = 0;
    for (let i = 0; i < n; i++) mean += all[4 * n + i]! / n;
    for (let i = 0; i < n; i++) {
      const t = Math.min(1, all[4 * n + i]! / (2 * mean));
      context.fillStyle = `rgb(${Math.round(60 + 195 * t)}, ${Math.round(120 + 80 * (1 - t))}, 255)`;
      context.fillRect(left + all[4 * i]! * scale, top + all[4 * i + 1]! * scale, 2, 2);
    }
  };
  requestAnimationFrame(frame);
}

main().catch((error: unknown) => {
  status.textContent = `WebGPU failed: ${error instanceof Error ? error.message : String(error)}`;
  throw error;
});
