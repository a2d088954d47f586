/**
 * GPU particles: positions drift in a box (a compute pass), GPUPointGrid3D
 * rebuilds every frame and a density pass written with its `wgsl` snippet
 * colours each particle. Drawn as points on a 2D canvas from a readback (the
 * demo's point is the grid, not the renderer). Falls back to a message where
 * WebGPU is missing. `window.__demo` exposes the positions and the grid's
 * pairs for the e2e test.
 */
/// <reference types="@webgpu/types" />
import { GPUPointGrid3D, wgsl } from '../src/webgpu/index.js';

const status = document.getElementById('status') as HTMLParagraphElement;
const canvas = document.getElementById('canvas') as HTMLCanvasElement;

const SHADER = /* wgsl */ `
struct Sim { h: f32, time: f32, side: f32, count: u32 }
@group(0) @binding(0) var<uniform> sim: Sim;
@group(0) @binding(1) var<storage, read_write> particles: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> density: array<f32>;
${wgsl}

@compute @workgroup_size(64)
fn drift(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= sim.count) { return; }
  var p = particles[i];
  let phase = f32(i % 97u) * 0.37;
  p.x = clamp(p.x + 0.02 * sin(sim.time + phase), 0.0, sim.side);
  p.y = clamp(p.y + 0.02 * cos(sim.time * 1.3 + phase), 0.0, sim.side);
  particles[i] = p;
}

@compute @workgroup_size(64)
fn computeDensity(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= sim.count) { return; }
  var rho = 0.0;
  var it = gridNeighbors(particles[i].xyz, sim.h);
  while (gridNext(&it)) {
    let w = sim.h * sim.h - it.distanceSquared;
    rho += w * w * w;
  }
  density[i] = rho;
}`;

interface DemoHook {
  webgpu: boolean;
  adapter?: string;
  frame: number;
  count: number;
  radius: number;
  /** Pauses the loop, returns the positions (vec4 each) the grid was built from and its pairs, resumes. */
  snapshot?: () => Promise<{ positions: number[]; pairs: number[] }>;
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
  const side = Math.cbrt((count * 4.19) / 20);
  const data = new Float32Array(4 * count);
  for (let i = 0; i < 4 * count; i++) data[i] = i % 4 === 3 ? 0 : Math.random() * side;
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
  const particles = device.createBuffer({ size: data.byteLength, usage });
  device.queue.writeBuffer(particles, 0, data);
  const density = device.createBuffer({ size: 4 * count, usage });
  const sim = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const grid = new GPUPointGrid3D(device, { cellSize: h, maxPoints: count, stride: 4 });
  const entry = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({
    binding,
    visibility: GPUShaderStage.COMPUTE,
    buffer: { type },
  });
  const ownLayout = device.createBindGroupLayout({
    entries: [entry(0, 'uniform'), entry(1, 'storage'), entry(2, 'storage')],
  });
  const layout = device.createPipelineLayout({ bindGroupLayouts: [ownLayout, grid.bindGroupLayout] });
  const module = device.createShaderModule({ code: SHADER });
  const drift = device.createComputePipeline({ layout, compute: { module, entryPoint: 'drift' } });
  const densityPass = device.createComputePipeline({ layout, compute: { module, entryPoint: 'computeDensity' } });
  const own = device.createBindGroup({
    layout: ownLayout,
    entries: [
      { binding: 0, resource: { buffer: sim } },
      { binding: 1, resource: { buffer: particles } },
      { binding: 2, resource: { buffer: density } },
    ],
  });
  const staging = device.createBuffer({ size: 20 * count, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const context = canvas.getContext('2d') as CanvasRenderingContext2D;
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
      const pairs = Array.from(await grid.pairs(h));
      paused = false;
      requestAnimationFrame(frame);
      return { positions, pairs };
    },
  });
  let paused = false;
  let busy: Promise<void> = Promise.resolve();
  status.textContent = `${count.toLocaleString()} particles on ${hook.adapter}${software ? ' (SwiftShader: a CPU emulation, hence the small count)' : ''}.`;

  const step = async (time: number) => {
    new Float32Array(simData, 0, 3).set([h, time / 1000, side]);
    new Uint32Array(simData, 12, 1)[0] = count;
    device.queue.writeBuffer(sim, 0, simData);
    const encoder = device.createCommandEncoder();
    let pass = encoder.beginComputePass();
    pass.setPipeline(drift);
    pass.setBindGroup(0, own);
    pass.setBindGroup(1, grid.bindGroup);
    pass.dispatchWorkgroups(Math.ceil(count / 64));
    pass.end();
    grid.build(particles, count, encoder);
    pass = encoder.beginComputePass();
    pass.setPipeline(densityPass);
    pass.setBindGroup(0, own);
    pass.setBindGroup(1, grid.bindGroup);
    pass.dispatchWorkgroups(Math.ceil(count / 64));
    pass.end();
    encoder.copyBufferToBuffer(particles, 0, staging, 0, 16 * count);
    encoder.copyBufferToBuffer(density, 0, staging, 16 * count, 4 * count);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const all = new Float32Array(staging.getMappedRange().slice(0));
    staging.unmap();
    latest = all;
    draw(all, count, side);
  };
  const frame = (time: number) => {
    if (paused) return;
    busy = step(time).then(() => {
      hook.frame++;
      requestAnimationFrame(frame);
    });
  };
  const draw = (all: Float32Array, n: number, s: number) => {
    context.fillStyle = '#0b1020';
    context.fillRect(0, 0, canvas.width, canvas.height);
    const scale = Math.min(canvas.width, canvas.height) / s;
    const rest = 1; // the particle's own contribution (h^6 with h = 1)
    for (let i = 0; i < n; i++) {
      const rho = all[4 * n + i] / rest;
      const t = Math.min(1, rho / 20);
      context.fillStyle = `rgb(${Math.round(60 + 195 * t)}, ${Math.round(120 + 80 * (1 - t))}, 255)`;
      context.fillRect(all[4 * i] * scale, all[4 * i + 1] * scale, 2, 2);
    }
  };
  requestAnimationFrame(frame);
}

main().catch((error: unknown) => {
  status.textContent = `WebGPU failed: ${error instanceof Error ? error.message : String(error)}`;
  throw error;
});
