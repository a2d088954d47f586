// spatialhash/three with three's own types (@types/three, which support TypeScript 5.6 and later).
import { type WeldGeometryOptions, weldGeometry } from 'spatialhash/three';
import { BufferAttribute, BufferGeometry } from 'three';

export function weldQuad(): BufferGeometry {
  const geometry = new BufferGeometry();
  const corners = [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0];
  geometry.setAttribute('position', new BufferAttribute(new Float32Array(corners), 3));
  const options: WeldGeometryOptions = { removeDegenerate: true, ignore: ['uv'] };
  return weldGeometry(geometry, 1e-6, options);
}
