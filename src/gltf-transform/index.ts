/**
 * spatialhash/gltf-transform: welding by distance as a glTF-Transform
 * `Transform`. Needs `@gltf-transform/core` (an optional peer dependency of
 * spatialhash) for its types only: the transform works with the Document it is
 * given and loads no glTF-Transform module itself.
 *
 * @module spatialhash/gltf-transform
 */

export type { WeldByDistanceOptions, WeldByDistanceReport } from './weld-by-distance.js';
export { weldByDistance } from './weld-by-distance.js';
