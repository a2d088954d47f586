/**
 * What bench/gpu.ts runs inside headless Chromium: frame timings of the
 * README's SPH density pass (grid build + density) and the adapter's name.
 * Bundled by test/webgpu/browser.ts like the GPU tests' own page, but kept
 * here: timings belong to the bench, the tests only compare answers.
 *
 * @module
 */
/// <reference types="@webgpu/types" />

import { sphDensity } from '../test/webgpu/density.js';
import { pageDevice } from '../test/webgpu/device.js';

/**
 * For bench/gpu.ts: milliseconds per frame (grid build + density pass, waited
 * for with onSubmittedWorkDone) over `n` seeded uniform points in a cube of
 * side `side`, after one warm-up frame.
 */
async function timeDensity(n: number, side: number, h: number, frames: number): Promise<number[]> {
  const gpu = await pageDevice();
  let state = 12345;
  const rand = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const vec4 = new Float32Array(4 * n);
  for (let i = 0; i < 4 * n; i++) vec4[i] = i % 4 === 3 ? 0 : rand() * side;
  const particles = gpu.createBuffer({
    size: vec4.byteLength,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
  });
  gpu.queue.writeBuffer(particles, 0, vec4);
  const out = gpu.createBuffer({ size: 4 * n, usage: GPUBufferUsage.STORAGE });
  const { grid, frame } = sphDensity(gpu, particles, out, n, h, 1);
  frame();
  await gpu.queue.onSubmittedWorkDone();
  const times: number[] = [];
  for (let k = 0; k < frames; k++) {
    const t0 = performance.now();
    frame();
    await gpu.queue.onSubmittedWorkDone();
    times.push(performance.now() - t0);
  }
  grid.destroy();
  particles.destroy();
  out.destroy();
  return times;
}

/** The adapter's description, for the bench's header. */
async function adapterInfo(): Promise<string> {
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) return 'no adapter';
  const info = adapter.info;
  return [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ');
}

Object.assign(globalThis, { timeDensity, adapterInfo });
