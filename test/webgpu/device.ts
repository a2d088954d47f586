/**
 * The one GPUDevice of a page run in headless Chromium (the GPU tests' page
 * and bench/gpu-page.ts): asked for once, shared by every request after.
 *
 * @module
 */
/// <reference types="@webgpu/types" />

let device: Promise<GPUDevice> | undefined;

/** The page's device; an Error when WebGPU or an adapter (SwiftShader expected) is missing. */
export function pageDevice(): Promise<GPUDevice> {
  device ??= open();
  return device;
}

async function open(): Promise<GPUDevice> {
  if (!navigator.gpu) throw new Error('navigator.gpu is missing: Chromium without WebGPU');
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter (SwiftShader expected)');
  return adapter.requestDevice();
}
