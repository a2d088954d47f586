/**
 * The GPU workloads' frame, on any GPUDevice (Chromium's in `gpu`, Dawn's in
 * `gpu-dawn`): GPUPointGrid3D build + an SPH density pass over the
 * particles of gpu-scene.ts, checked against the CPU before it is timed, and
 * the scan checked against a serial scan.
 *
 * Three times per frame, medians: `wait` submits one frame and waits for
 * onSubmittedWorkDone (what a frame loop that reads results back pays);
 * `stream` submits 20 frames back to back and waits once (the GPU's
 * throughput, the submit latency shared); build, density and both from
 * timestamp queries when the device has 'timestamp-query': GPU time alone
 * (the build's side includes an empty pass that holds its first timestamp).
 *
 * @module
 */
/// <reference types="@webgpu/types" />
import { PointGrid3D } from '../src/index.js';
import { GPUPointGrid3D, type GPUPointGridOptions } from '../src/webgpu/index.js';
import { scanOnGpu } from '../test/webgpu/scan.js';
import { H } from './gpu-scene.js';
import { median, ms } from './harness.js';

/** What the bench needs of a GPU grid module: this tree's, or another version's for a before/after run. */
export interface GridLibrary {
  GPUPointGrid3D: new (
    device: GPUDevice,
    options: GPUPointGridOptions,
  ) => {
    build(positions: GPUBuffer, count: number, encoder?: GPUCommandEncoder): void;
    readonly bindGroup: GPUBindGroup;
    readonly bindGroupLayout: GPUBindGroupLayout;
    destroy(): void;
  };
  wgsl: string;
}

/** One grid implementation to time, under a label for the table. */
export interface Variant {
  label: string;
  lib: GridLibrary;
  /** The density pass's invocation order (default 'input'): see {@link DensityOrder}. */
  order?: DensityOrder;
  /**
   * WGSL statements that add the density at `center` (a vec3<f32>) to
   * `rho`, in place of the `gridNeighbors` / `gridNext` loop: for
   * comparing loop shapes on a GPU. Same results required (the check runs).
   */
  loop?: string;
}

/**
 * 'input': invocation i takes particle i, as workload 9 has always timed, so
 * neighbouring invocations search far-apart cells; 'sorted': invocation s
 * takes the particle at sorted slot s (gridSortedPositions) and writes its
 * density at gridSortedIndices[s], so neighbouring invocations search the
 * same cells and share their reads.
 */
export type DensityOrder = 'input' | 'sorted';

/** The scan against a serial u32 scan on the device; throws on the first mismatch. */
export async function checkScan(device: GPUDevice, n: number, seed: number): Promise<void> {
  const data = new Uint32Array(n);
  let state = seed >>> 0;
  for (let i = 0; i < n; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = i % 3 === 0 ? state : state >>> 28; // wide values too, so sums wrap
  }
  const got = await scanOnGpu(device, data);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    if (got[i] !== sum) throw new Error(`scan of ${n} counters: [${i}] is ${got[i]}, a serial scan says ${sum}`);
    sum = (sum + data[i]) >>> 0;
  }
}

/**
 * This tree's neighbors() readback against PointGrid3D's rows (sorted) on
 * `n` seeded points at multiples of 1/16, where float32 and float64 agree
 * exactly, about 30 neighbours each; throws on the first difference.
 */
export async function checkNeighbors(device: GPUDevice, n: number): Promise<void> {
  const side = Math.cbrt((n * 4.19) / 30);
  const points = new Float32Array(3 * n);
  let state = 777;
  for (let i = 0; i < 3 * n; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    points[i] = Math.floor((state / 4294967296) * side * 16) / 16;
  }
  const buffer = device.createBuffer({
    size: points.byteLength,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(buffer, 0, points);
  const grid = new GPUPointGrid3D(device, { cellSize: H, maxPoints: n });
  try {
    grid.build(buffer, n);
    const got = await grid.neighbors(H);
    const want = new PointGrid3D(points, { cellSize: H }).neighbors(H);
    for (let i = 0; i <= n; i++) {
      if (got.offsets[i] !== want.offsets[i]) {
        throw new Error(
          `neighbors of ${n} points: offsets[${i}] is ${got.offsets[i]}, PointGrid3D's ${want.offsets[i]}`,
        );
      }
    }
    for (let i = 0; i < n; i++) {
      const row = want.indices.subarray(want.offsets[i], want.offsets[i + 1]).sort();
      for (let k = 0; k < row.length; k++) {
        if (got.indices[want.offsets[i] + k] !== row[k]) throw new Error(`neighbors of ${n} points: row ${i} differs`);
      }
    }
  } finally {
    grid.destroy();
    buffer.destroy();
  }
}

/**
 * The density loop as nested loops over the cells the radius reaches
 * instead of `gridNext` (the form docs/guides/gpu.md's example uses): on an
 * H100 through Dawn, 0.58 ms against 2.76 for a million particles in sorted
 * order (2026-11-26). The iterator returns to its caller once per neighbour,
 * so the lanes of a warp wait for each other at every neighbour; here they
 * only part ways over a cell's points.
 */
export const NESTED_DENSITY_LOOP = /* wgsl */ `
  let range = gridNeighbors(center, sph.h);
  for (var z = range.low.z; z <= range.high.z; z++) {
    for (var y = range.low.y; y <= range.high.y; y++) {
      for (var x = range.low.x; x <= range.high.x; x++) {
        let cell = vec3<i32>(x, y, z);
        let bucket = gridBucketOf(cell);
        let end = gridCellStart[bucket + 1u];
        for (var s = gridCellStart[bucket]; s < end; s++) {
          let q = gridSortedPositions[s].xyz;
          let d = q - range.center;
          let d2 = dot(d, d);
          if (d2 <= range.radiusSquared && all(gridCellOf(q) == cell)) {
            let w = sph.h * sph.h - d2;
            rho += sph.mass * sph.poly6 * w * w * w;
          }
        }
      }
    }
  }`;

/** The density shader over `lib`'s snippet, mass and poly6 factor 1; `order` and `loop` pick the form timed. */
function densityShader(wgsl: string, order: DensityOrder, loop?: string): string {
  const [center, store] =
    order === 'input'
      ? ['particles[i].xyz', 'density[i]']
      : ['gridSortedPositions[i].xyz', 'density[gridSortedIndices[i]]'];
  const body =
    loop ??
    `var it = gridNeighbors(center, sph.h);
  while (gridNext(&it)) {
    let w = sph.h * sph.h - it.distanceSquared;
    rho += sph.mass * sph.poly6 * w * w * w;
  }`;
  return /* wgsl */ `
struct Sph { h: f32, mass: f32, poly6: f32, count: u32 }
@group(0) @binding(0) var<uniform> sph: Sph;
@group(0) @binding(1) var<storage, read> particles: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> density: array<f32>;
${wgsl}
@compute @workgroup_size(64)
fn computeDensity(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= sph.count) { return; }
  var rho = 0.0;
  let center = ${center};
  ${body}
  ${store} = rho;
}`;
}

/** A grid and density pass over `n` particles; `encode` records one frame, with timestamps 0 to 2 when given. */
function densityFrame(device: GPUDevice, variant: Variant, particles: GPUBuffer, out: GPUBuffer, n: number) {
  const lib = variant.lib;
  const grid = new lib.GPUPointGrid3D(device, { cellSize: H, maxPoints: n, stride: 4 });
  const sph = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const params = new ArrayBuffer(16);
  new Float32Array(params, 0, 3).set([H, 1, 1]);
  new Uint32Array(params, 12, 1)[0] = n;
  device.queue.writeBuffer(sph, 0, params);
  const entry = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({
    binding,
    visibility: GPUShaderStage.COMPUTE,
    buffer: { type },
  });
  const layout = device.createBindGroupLayout({
    entries: [entry(0, 'uniform'), entry(1, 'read-only-storage'), entry(2, 'storage')],
  });
  const pipeline = device.createComputePipeline({
    layout: device.createPipelineLayout({ bindGroupLayouts: [layout, grid.bindGroupLayout] }),
    compute: {
      module: device.createShaderModule({ code: densityShader(lib.wgsl, variant.order ?? 'input', variant.loop) }),
      entryPoint: 'computeDensity',
    },
  });
  const own = device.createBindGroup({
    layout,
    entries: [
      { binding: 0, resource: { buffer: sph } },
      { binding: 1, resource: { buffer: particles } },
      { binding: 2, resource: { buffer: out } },
    ],
  });
  const encode = (encoder: GPUCommandEncoder, queries?: GPUQuerySet) => {
    if (queries)
      encoder.beginComputePass({ timestampWrites: { querySet: queries, beginningOfPassWriteIndex: 0 } }).end();
    grid.build(particles, n, encoder);
    const pass = encoder.beginComputePass(
      queries
        ? { timestampWrites: { querySet: queries, beginningOfPassWriteIndex: 1, endOfPassWriteIndex: 2 } }
        : undefined,
    );
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, own);
    pass.setBindGroup(1, grid.bindGroup);
    pass.dispatchWorkgroups(Math.ceil(n / 64));
    pass.end();
  };
  return {
    encode,
    destroy() {
      grid.destroy();
      sph.destroy();
    },
  };
}

/** Copies `out` (n f32) back. */
async function readFloats(device: GPUDevice, out: GPUBuffer, n: number): Promise<Float32Array> {
  const staging = device.createBuffer({ size: 4 * n, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(out, 0, staging, 0, 4 * n);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const result = new Float32Array(staging.getMappedRange().slice(0));
  staging.destroy();
  return result;
}

/** Medians in milliseconds per frame, and the check's result. */
export interface FrameTimes {
  wait: number;
  stream: number;
  /** Medians of build, density and both, from timestamps (NaN without them). */
  build: number;
  density: number;
  gpu: number;
  /** Largest relative density error against the CPU. */
  error: number;
}

/** How many frames {@link timeFrames} runs. */
export interface FrameCounts {
  /** Frames waited for one by one, and frames with timestamps; the warm-up is as many, at most 5. */
  frames: number;
  /** Streams, and frames per stream. */
  streams: number;
  streamLength: number;
}

/**
 * Checks `variant`'s density frame against `reference` (the CPU's, gpu-scene.ts)
 * and times it as `counts` says; timestamps when `timestamps` (the device
 * has the feature).
 */
export async function timeFrames(
  device: GPUDevice,
  timestamps: boolean,
  variant: Variant,
  positions: Float32Array,
  reference: Float64Array,
  counts: FrameCounts,
): Promise<FrameTimes> {
  const { frames, streams, streamLength } = counts;
  const n = reference.length;
  const particles = device.createBuffer({
    size: positions.byteLength,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(particles, 0, positions);
  const out = device.createBuffer({ size: 4 * n, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const frame = densityFrame(device, variant, particles, out, n);
  const submit = () => {
    const encoder = device.createCommandEncoder();
    frame.encode(encoder);
    device.queue.submit([encoder.finish()]);
  };
  try {
    // Check first: every density within 1e-4 of the CPU's float64 sum (float32 sums of ~30 terms).
    submit();
    const got = await readFloats(device, out, n);
    let error = 0;
    for (let i = 0; i < n; i++) error = Math.max(error, Math.abs(got[i] - reference[i]) / reference[i]);
    if (!(error <= 1e-4)) throw new Error(`density differs from the CPU's by ${error} (relative)`);

    for (let k = 0; k < Math.min(5, frames); k++) submit();
    await device.queue.onSubmittedWorkDone();
    const wait: number[] = [];
    for (let k = 0; k < frames; k++) {
      const t0 = performance.now();
      submit();
      await device.queue.onSubmittedWorkDone();
      wait.push(performance.now() - t0);
    }
    const stream: number[] = [];
    for (let r = 0; r < streams; r++) {
      const t0 = performance.now();
      for (let k = 0; k < streamLength; k++) submit();
      await device.queue.onSubmittedWorkDone();
      stream.push((performance.now() - t0) / streamLength);
    }
    const med = (values: number[]) => (values.length > 0 ? median(values) : Number.NaN);
    const build: number[] = [];
    const density: number[] = [];
    const total: number[] = [];
    if (timestamps) {
      const queries = device.createQuerySet({ type: 'timestamp', count: 3 });
      const resolved = device.createBuffer({ size: 24, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
      const staging = device.createBuffer({ size: 24, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      for (let k = 0; k < frames; k++) {
        const encoder = device.createCommandEncoder();
        frame.encode(encoder, queries);
        encoder.resolveQuerySet(queries, 0, 3, resolved, 0);
        encoder.copyBufferToBuffer(resolved, 0, staging, 0, 24);
        device.queue.submit([encoder.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        const t = new BigUint64Array(staging.getMappedRange().slice(0));
        staging.unmap();
        build.push(Number(t[1] - t[0]) / 1e6);
        density.push(Number(t[2] - t[1]) / 1e6);
        total.push(Number(t[2] - t[0]) / 1e6);
      }
      queries.destroy();
      resolved.destroy();
      staging.destroy();
    }
    return {
      wait: med(wait),
      stream: med(stream),
      build: med(build),
      density: med(density),
      gpu: med(total),
      error,
    };
  } finally {
    frame.destroy();
    particles.destroy();
    out.destroy();
  }
}

/** Column titles of {@link frameCells}. */
export const FRAME_COLUMNS = ['wait', 'stream', 'build (gpu)', 'density (gpu)', 'both (gpu)', 'density error'];

/** What the columns hold, for a section's header. */
export const FRAME_LEGEND =
  'Median milliseconds per frame (grid build + density pass): wait, one frame submitted and waited for; stream, a run of frames submitted back to back (20; 3 in Chromium and with --quick), per frame; build, density and both: GPU timestamps around them ("-" where the device has no timestamp-query). Every density was checked against PointGrid3D\'s pair search in float64 before timing: density error is the largest relative difference.';

/** A FrameTimes as table cells, in {@link FRAME_COLUMNS}' order. */
export function frameCells(t: FrameTimes): string[] {
  const gpu = (x: number) => (Number.isNaN(x) ? '-' : ms(x));
  return [ms(t.wait), gpu(t.stream), gpu(t.build), gpu(t.density), gpu(t.gpu), t.error.toExponential(1)];
}
