/**
 * What bench/gpu.ts runs inside headless Chromium: gpu-frame.ts's checked
 * and timed frame (grid build + the SPH density pass, gridNext form) on the page's
 * adapter, and the adapter's name. Bundled by test/webgpu/browser.ts like
 * the GPU tests' own page, but kept here: timings belong to the bench, the
 * tests only compare answers.
 *
 * @module
 */
/// <reference types="@webgpu/types" />

import * as thisTree from '../src/webgpu/index.js';
import { type FrameTimes, timeFrames } from './gpu-frame.js';
import { densityOnCpu, H, particleScene } from './gpu-scene.js';

let opened: Promise<{ device: GPUDevice; timestamps: boolean; adapter: string }> | undefined;

/** The page's adapter and a device, with timestamp queries when the adapter has them. */
function open() {
  opened ??= (async () => {
    const adapter = await navigator.gpu?.requestAdapter();
    if (!adapter) throw new Error('no WebGPU adapter (SwiftShader expected)');
    const timestamps = adapter.features.has('timestamp-query');
    const device = await adapter.requestDevice({ requiredFeatures: timestamps ? ['timestamp-query'] : [] });
    const info = adapter.info;
    const name = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ');
    return { device, timestamps, adapter: name };
  })();
  return opened;
}

/** For bench/gpu.ts: the frame over gpu-scene.ts's `n` particles, checked against the CPU, then timed. */
async function timeDensity(n: number, frames: number): Promise<FrameTimes> {
  const { device, timestamps } = await open();
  const { positions } = particleScene(n);
  const reference = new Float64Array(n);
  densityOnCpu(positions, H, reference);
  // SwiftShader takes seconds a frame at 1e6: one short stream.
  const variant = { label: 'GPUPointGrid3D', lib: thisTree };
  return timeFrames(device, timestamps, variant, positions, reference, { frames, streams: 1, streamLength: 3 });
}

/** The adapter's description, for the bench's header. */
async function adapterInfo(): Promise<string> {
  return (await open()).adapter;
}

Object.assign(globalThis, { timeDensity, adapterInfo });
