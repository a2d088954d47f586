// spatialhash/gltf-transform under the strictest consumer settings, with @gltf-transform/core's own types (which need
// TypeScript 5.8 or later, the ESNext.Float16 library, and the DOM library or @types/node); run as ES module.
import { Document, type Transform } from '@gltf-transform/core';
import { type WeldByDistanceOptions, weldByDistance } from 'spatialhash/gltf-transform';

const document = new Document();
const position = document
  .createAccessor()
  .setType('VEC3')
  .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1e-6, 0, 0, 1, 1, 0, 0, 1, 0]));
const primitive = document.createPrimitive().setAttribute('POSITION', position);
document.createMesh().addPrimitive(primitive);
const options: WeldByDistanceOptions = { tolerance: 1e-4, removeDegenerate: true };
const transform: Transform = weldByDistance(options);
await document.transform(transform);
const count = primitive.getAttribute('POSITION')?.getCount();
if (count !== 4) throw new Error(`consumer check failed: weldByDistance left ${count} vertices, expected 4`);
console.log('spatialhash/gltf-transform consumer: ok');
