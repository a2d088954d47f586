/**
 * spatialhash/webgpu: the counting-sort point grid as WebGPU compute passes,
 * for particle systems that live on the GPU. No runtime dependency: the
 * caller passes its GPUDevice. No WebGPU type package needed either: the
 * declarations use the caller's WebGPU types where it has them (TypeScript
 * 7's DOM library, or `@webgpu/types`) and small structural shapes elsewhere.
 *
 * @module spatialhash/webgpu
 */

export type { GPUPointGridOptions } from './grid.js';
export { GPUPointGrid2D, GPUPointGrid3D } from './grids.js';
export type {
  GPUBindGroup,
  GPUBindGroupLayout,
  GPUBuffer,
  GPUBufferShape,
  GPUCommandEncoder,
  GPUDevice,
  GPUObjectShape,
  WebGPUType,
} from './types.js';
export { gridWGSL, wgsl } from './wgsl.js';
