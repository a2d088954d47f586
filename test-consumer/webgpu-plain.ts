// spatialhash/webgpu where the consumer has no WebGPU types (TypeScript 5.x without @webgpu/types): the API's
// WebGPU objects are small structural shapes, and the declarations need nothing the consumer lacks.
import {
  type GPUBuffer,
  type GPUBufferShape,
  type GPUDevice,
  GPUPointGrid3D,
  gridWGSL,
  wgsl,
} from 'spatialhash/webgpu';

export function describeGrid(device: GPUDevice, positions: GPUBuffer): string {
  const grid = new GPUPointGrid3D(device, { cellSize: 1, maxPoints: 16 });
  grid.build(positions, 4);
  const table: GPUBufferShape = grid.cellStart;
  const label: string = grid.bindGroup.label + grid.bindGroupLayout.label;
  return `${label} ${table.size} ${wgsl.length} ${gridWGSL(2).length}`;
}
