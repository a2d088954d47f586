/**
 * spatialhash/d3: a drop-in `forceCollide` for d3-force and d3-force-3d,
 * exact and several times faster. Needs neither at run time: the nodes and
 * the simulation are d3's, the force only reads and writes their numbers.
 *
 * @module spatialhash/d3
 */

export { forceCollide } from './force-collide.js';
export type { CollideNode, CollideRadius, CollideStats, ForceCollide } from './types.js';
