/**
 * spatialhash/webgpu: the counting-sort point grid as WebGPU compute passes,
 * for particle systems that live on the GPU. No runtime dependency: the
 * caller passes its GPUDevice.
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
