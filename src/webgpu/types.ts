/**
 * The WebGPU types that spatialhash/webgpu's API names. Each stands for the
 * consumer's own declaration of the same name, from TypeScript 7's DOM library
 * or from `@webgpu/types`, so a grid's buffers, bind group and layout go into
 * the consumer's `setBindGroup`, `createBindGroup` and `createPipelineLayout`
 * as they are, whether its types are branded (`@webgpu/types`) or not (the DOM
 * library). A consumer with no WebGPU types (TypeScript 5.x without
 * `@webgpu/types`) gets the small structural shapes below instead of an
 * error, so the package needs no WebGPU types of its own and declares no
 * global name.
 *
 * How: both sources declare each interface together with a global variable
 * `declare var GPUBuffer: { prototype: GPUBuffer; ... }`, which `typeof
 * globalThis` shows as a property when, and only when, it exists (see
 * {@link WebGPUType}).
 *
 * @module
 */

/**
 * The consumer's own WebGPU type `Name`: the instance type of the global class
 * of that name where its types declare one, else `Fallback`.
 */
export type WebGPUType<Name extends string, Fallback> =
  typeof globalThis extends Record<Name, Record<'prototype', infer T>> ? T : Fallback;

/** What every WebGPU object has (`GPUObjectBase`): the shape a WebGPU object has for a consumer without WebGPU types. */
export interface GPUObjectShape {
  /** The label given at creation, shown in the browser's WebGPU errors. */
  label: string;
}

/** The part of a `GPUBuffer` a consumer without WebGPU types sees. */
export interface GPUBufferShape extends GPUObjectShape {
  /** Size in bytes. */
  readonly size: number;
  /** The buffer's `GPUBufferUsage` flags. */
  readonly usage: number;
  /** Frees the buffer's memory. */
  destroy(): void;
}

/** The consumer's `GPUDevice`, or {@link GPUObjectShape} without WebGPU types. */
export type GPUDevice = WebGPUType<'GPUDevice', GPUObjectShape>;

/** The consumer's `GPUBuffer`, or {@link GPUBufferShape} without WebGPU types. */
export type GPUBuffer = WebGPUType<'GPUBuffer', GPUBufferShape>;

/** The consumer's `GPUBindGroup`, or {@link GPUObjectShape} without WebGPU types. */
export type GPUBindGroup = WebGPUType<'GPUBindGroup', GPUObjectShape>;

/** The consumer's `GPUBindGroupLayout`, or {@link GPUObjectShape} without WebGPU types. */
export type GPUBindGroupLayout = WebGPUType<'GPUBindGroupLayout', GPUObjectShape>;

/** The consumer's `GPUCommandEncoder`, or {@link GPUObjectShape} without WebGPU types. */
export type GPUCommandEncoder = WebGPUType<'GPUCommandEncoder', GPUObjectShape>;
