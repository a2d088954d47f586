/**
 * spatialhash/three: welding for three.js BufferGeometry. Needs `three`
 * (an optional peer dependency of spatialhash); the main entry never loads it.
 *
 * @module spatialhash/three
 */

export type { WeldGeometryOptions } from './weld-geometry.js';
export { weldGeometry } from './weld-geometry.js';
