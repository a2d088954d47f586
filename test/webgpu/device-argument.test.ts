/**
 * What the GPU grids say when their first argument is not a GPUDevice: an
 * Error that names the device, never a TypeError from deep inside. Runs in
 * Node, no GPU needed: the check comes before any WebGPU call.
 */
import { describe, expect, it } from 'vitest';
import { GPUPointGrid2D, GPUPointGrid3D } from '../../src/webgpu/index.js';

const options = { cellSize: 1, maxPoints: 1000 };

describe('GPUPointGrid2D / GPUPointGrid3D given something other than a GPUDevice', () => {
  const adapter = { requestDevice: async () => ({}), features: new Set(), limits: {} };
  const half = { limits: { maxStorageBufferBindingSize: 1 << 27, maxBufferSize: 1 << 28 } };
  for (const Grid of [GPUPointGrid2D, GPUPointGrid3D])
    for (const [label, device] of [
      ['undefined', undefined],
      ['null', null],
      ['{}', {}],
      ['a number', 3],
      ['an adapter', adapter],
      ['an object with limits only', half],
    ] as const)
      it(`${Grid.name}(${label}) throws an Error saying a GPUDevice is needed`, () => {
        const make = () => new Grid(device as never, options);
        expect(make).toThrow(Error);
        expect(make).toThrow(new RegExp(`${Grid.name}: the first argument must be a GPUDevice`));
        expect(make).not.toThrow(TypeError);
        if (device === adapter) expect(make).toThrow(/this is a GPUAdapter: pass await adapter.requestDevice\(\)/);
      });
});
