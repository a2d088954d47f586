/**
 * What the GPU tests run inside headless Chromium: one device, and a request
 * handler that builds a GPUPointGrid over the points it is sent and answers
 * with the grid's readback (or the error it threw). Bundled by browser.ts
 * together with src/webgpu.
 *
 * @module
 */
/// <reference types="@webgpu/types" />

import { GPUPointGrid2D, GPUPointGrid3D, type GPUPointGridOptions, wgsl } from '../../src/webgpu/index.js';
import { sphDensity } from './density.js';
import { pageDevice } from './device.js';
import { scanOnGpu } from './scan.js';

/** One request: the points (flat, `stride` numbers each), the grid's options, what to read back. */
export interface GridRequest {
  dimension: 2 | 3;
  positions: number[];
  count: number;
  options: GPUPointGridOptions;
  radius: number;
  what: 'neighbors' | 'pairs';
  /** Usage flags of the positions buffer (default STORAGE | COPY_DST). */
  usage?: number;
}

/** The answer: CSR arrays or flat pairs, or the message of what threw. */
export interface GridAnswer {
  offsets?: number[];
  indices?: number[];
  pairs?: number[];
  error?: string;
  errorName?: string;
}

async function answer(request: GridRequest): Promise<GridAnswer> {
  const gpu = await pageDevice();
  const data = new Float32Array(request.positions);
  const usage = request.usage ?? GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
  const buffer = gpu.createBuffer({ size: Math.max(4, data.byteLength), usage: usage | GPUBufferUsage.COPY_DST });
  gpu.queue.writeBuffer(buffer, 0, data);
  let grid: GPUPointGrid2D | GPUPointGrid3D | undefined;
  try {
    grid =
      request.dimension === 3 ? new GPUPointGrid3D(gpu, request.options) : new GPUPointGrid2D(gpu, request.options);
    grid.build(buffer, request.count);
    if (request.what === 'pairs') return { pairs: Array.from(await grid.pairs(request.radius)) };
    const { offsets, indices } = await grid.neighbors(request.radius);
    return { offsets: Array.from(offsets), indices: Array.from(indices) };
  } catch (error) {
    return { error: (error as Error).message, errorName: (error as Error).name };
  } finally {
    grid?.destroy();
    buffer.destroy();
  }
}

/**
 * Checks that a rejected build leaves the grid as it was: builds `positions`,
 * tries each bad build, and reads the neighbours back again.
 */
async function rejectedBuildKeepsGrid(
  request: GridRequest,
): Promise<{ errors: string[]; before: number[]; after: number[] }> {
  const gpu = await pageDevice();
  const data = new Float32Array(request.positions);
  const buffer = gpu.createBuffer({ size: data.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  gpu.queue.writeBuffer(buffer, 0, data);
  const vertexOnly = gpu.createBuffer({ size: data.byteLength, usage: GPUBufferUsage.VERTEX });
  const grid = new GPUPointGrid3D(gpu, request.options);
  grid.build(buffer, request.count);
  const before = Array.from((await grid.neighbors(request.radius)).indices);
  const errors: string[] = [];
  const attempts: (() => void)[] = [
    () => grid.build(vertexOnly, request.count),
    () => grid.build(buffer, request.options.maxPoints + 1),
    () => grid.build(buffer, 1.5),
    () => grid.build({} as GPUBuffer, 1),
  ];
  for (const attempt of attempts) {
    try {
      attempt();
      errors.push('no error');
    } catch (error) {
      errors.push(`${(error as Error).name}: ${(error as Error).message}`);
    }
  }
  const after = Array.from((await grid.neighbors(request.radius)).indices);
  grid.destroy();
  buffer.destroy();
  vertexOnly.destroy();
  return { errors, before, after };
}

/** Runs the GPU guide's density pass (density.ts) over `positions` (3 numbers each) and reads the densities back. */
async function density(positions: number[], h: number, mass: number): Promise<number[]> {
  const gpu = await pageDevice();
  const count = positions.length / 3;
  const vec4 = new Float32Array(4 * count);
  for (let i = 0; i < count; i++) vec4.set(positions.slice(3 * i, 3 * i + 3), 4 * i);
  const particles = gpu.createBuffer({
    size: vec4.byteLength,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
  });
  gpu.queue.writeBuffer(particles, 0, vec4);
  const out = gpu.createBuffer({ size: 4 * count, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const { grid, frame } = sphDensity(gpu, particles, out, count, h, mass);
  frame();
  const staging = gpu.createBuffer({ size: 4 * count, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = gpu.createCommandEncoder();
  encoder.copyBufferToBuffer(out, 0, staging, 0, 4 * count);
  gpu.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const result = Array.from(new Float32Array(staging.getMappedRange()));
  for (const b of [particles, out, staging]) b.destroy();
  grid.destroy();
  return result;
}

/** One scan to check: `n` counters drawn from `seed`, below `bound` (2^32: any u32, so sums wrap). */
export interface ScanRequest {
  n: number;
  seed: number;
  bound: number;
  /** Most workgroups per dispatch (default WebGPU's 65,535). */
  maxWorkgroups?: number;
}

/**
 * Runs the grid's exclusive scan over `n` seeded counters and compares it
 * with a serial scan (modulo 2^32) here on the page, so a million counters
 * need not cross to the test. Answers the mismatches and the first few.
 */
async function scanCheck(request: ScanRequest): Promise<{ mismatches: number; first: string[]; total: number }> {
  const gpu = await pageDevice();
  const { n, seed, bound } = request;
  let state = seed >>> 0;
  const data = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = bound >= 2 ** 32 ? state : Math.floor((state / 2 ** 32) * bound);
  }
  const got = await scanOnGpu(gpu, data, request.maxWorkgroups);
  let sum = 0;
  let mismatches = 0;
  const first: string[] = [];
  for (let i = 0; i < n; i++) {
    if (got[i] !== sum) {
      mismatches++;
      if (first.length < 5) first.push(`[${i}] ${got[i]} != ${sum}`);
    }
    sum = (sum + data[i]) >>> 0;
  }
  return { mismatches, first, total: sum };
}

/** The error messages of compiling `code` as a WGSL module (none when it compiles). */
async function compileWgsl(code: string): Promise<string[]> {
  const gpu = await pageDevice();
  const module = gpu.createShaderModule({ code });
  const info = await module.getCompilationInfo();
  return info.messages
    .filter((message) => message.type === 'error')
    .map((message) => `${message.lineNum}:${message.linePos} ${message.message}`);
}

/**
 * Runs a docs function `fn densityAt(center: vec3<f32>, h: f32) -> f32`
 * (given as WGSL, after the grid's snippet) once per sorted slot over
 * `positions` (3 numbers each), storing at the point's own index as the
 * guide says, and reads the results back.
 */
async function densityAt(request: { code: string; positions: number[]; h: number }): Promise<number[]> {
  const gpu = await pageDevice();
  const count = request.positions.length / 3;
  const points = gpu.createBuffer({
    size: 4 * request.positions.length,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
  });
  gpu.queue.writeBuffer(points, 0, new Float32Array(request.positions));
  const out = gpu.createBuffer({ size: 4 * count, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const staging = gpu.createBuffer({ size: 4 * count, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const params = gpu.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const paramsData = new ArrayBuffer(16);
  new Float32Array(paramsData, 0, 1)[0] = request.h;
  new Uint32Array(paramsData, 4, 1)[0] = count;
  gpu.queue.writeBuffer(params, 0, paramsData);
  const grid = new GPUPointGrid3D(gpu, { cellSize: request.h, maxPoints: count });
  try {
    const code = `${wgsl}
${request.code}
struct DensityParams { h: f32, count: u32 }
@group(0) @binding(0) var<uniform> densityParams: DensityParams;
@group(0) @binding(1) var<storage, read_write> densities: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let s = id.x;
  if (s >= densityParams.count) { return; }
  densities[gridSortedIndices[s]] = densityAt(gridSortedPositions[s].xyz, densityParams.h);
}`;
    const layout = gpu.createBindGroupLayout({
      entries: [
        { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
        { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } },
      ],
    });
    const pipeline = gpu.createComputePipeline({
      layout: gpu.createPipelineLayout({ bindGroupLayouts: [layout, grid.bindGroupLayout] }),
      compute: { module: gpu.createShaderModule({ code }), entryPoint: 'main' },
    });
    const own = gpu.createBindGroup({
      layout,
      entries: [
        { binding: 0, resource: { buffer: params } },
        { binding: 1, resource: { buffer: out } },
      ],
    });
    const encoder = gpu.createCommandEncoder();
    grid.build(points, count, encoder);
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, own);
    pass.setBindGroup(1, grid.bindGroup);
    pass.dispatchWorkgroups(Math.ceil(count / 64));
    pass.end();
    encoder.copyBufferToBuffer(out, 0, staging, 0, 4 * count);
    gpu.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    return Array.from(new Float32Array(staging.getMappedRange()));
  } finally {
    grid.destroy();
    for (const b of [points, out, staging, params]) b.destroy();
  }
}

/**
 * A grid's life cycle, for the lifecycle tests: neighbors() and pairs()
 * before any build, then after destroy(), and build() after destroy();
 * the error of each (or 'no error').
 */
async function lifecycleErrors(): Promise<string[]> {
  const gpu = await pageDevice();
  const buffer = gpu.createBuffer({ size: 12, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  gpu.queue.writeBuffer(buffer, 0, new Float32Array([0, 0, 0]));
  const grid = new GPUPointGrid3D(gpu, { cellSize: 1, maxPoints: 4 });
  const errors: string[] = [];
  const attempt = async (call: () => unknown) => {
    try {
      await call();
      errors.push('no error');
    } catch (error) {
      errors.push(`${(error as Error).name}: ${(error as Error).message}`);
    }
  };
  await attempt(() => grid.neighbors(1));
  await attempt(() => grid.pairs(1));
  grid.build(buffer, 1);
  await attempt(async () => {
    const { offsets } = await grid.neighbors(1);
    if (offsets.length !== 2) throw new Error(`one point, got ${offsets.length - 1} rows`);
  });
  grid.destroy();
  grid.destroy();
  await attempt(() => grid.neighbors(1));
  await attempt(() => grid.pairs(1));
  await attempt(() => grid.build(buffer, 1));
  buffer.destroy();
  return errors;
}

/** One step of {@link buildSequence}: new points written into buffer `buffer` (when given), then a build over it. */
export interface BuildStep {
  buffer: number;
  count: number;
  positions?: number[];
}

/**
 * One grid built again and again over a few positions buffers (`buffers` of
 * them, `maxPoints` points each), the points of a buffer rewritten between
 * builds as a step says: the neighbour lists after each build, rows sorted.
 * The grid keeps the bind groups of the last buffer it was built over, so a
 * build over another buffer must not reuse them, and one over the same
 * buffer must read the points it holds now.
 */
async function buildSequence(request: {
  dimension: 2 | 3;
  buffers: number;
  radius: number;
  options: GPUPointGridOptions;
  steps: BuildStep[];
}): Promise<{ offsets: number[]; indices: number[] }[]> {
  const gpu = await pageDevice();
  const bytes = 4 * request.dimension * Math.max(1, request.options.maxPoints);
  const buffers = Array.from({ length: request.buffers }, () =>
    gpu.createBuffer({ size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST }),
  );
  const grid =
    request.dimension === 3 ? new GPUPointGrid3D(gpu, request.options) : new GPUPointGrid2D(gpu, request.options);
  const answers: { offsets: number[]; indices: number[] }[] = [];
  try {
    for (const step of request.steps) {
      const target = buffers[step.buffer];
      if (step.positions !== undefined) gpu.queue.writeBuffer(target, 0, new Float32Array(step.positions));
      grid.build(target, step.count);
      const { offsets, indices } = await grid.neighbors(request.radius);
      for (let i = 0; i + 1 < offsets.length; i++) indices.subarray(offsets[i], offsets[i + 1]).sort();
      answers.push({ offsets: Array.from(offsets), indices: Array.from(indices) });
    }
    return answers;
  } finally {
    grid.destroy();
    for (const buffer of buffers) buffer.destroy();
  }
}

Object.assign(globalThis, {
  gridAnswer: answer,
  buildSequence,
  rejectedBuildKeepsGrid,
  density,
  scanCheck,
  compileWgsl,
  lifecycleErrors,
  densityAt,
});
