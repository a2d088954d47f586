/**
 * spatialhash/three: welding for three.js BufferGeometry. Needs `three`
 * (an optional peer dependency of spatialhash); the main entry never loads it.
 *
 * @packageDocumentation
 */

export type { WeldGeometryOptions } from './weld-geometry.js';
export { weldGeometry } from './weld-geometry.js';
