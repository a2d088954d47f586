/**
 * spatialhash: find what is near what, fast.
 *
 * @packageDocumentation
 */

export type { NeighborLists, PointGridLayout, PointGridOptions, PointPairVisitor } from './pointgrid/common.js';
export { PointGrid2D } from './pointgrid2d.js';
export { PointGrid3D } from './pointgrid3d.js';
export type { SpatialHashOptions } from './spatialhash/base.js';
export { DEFAULT_MAX_CELLS_PER_ITEM } from './spatialhash/base.js';
export { SpatialHash2D } from './spatialhash/hash2d.js';
export { SpatialHash3D } from './spatialhash/hash3d.js';
export type { PairVisitor } from './spatialhash/pairs.js';
export type { CellOnRayVisitor2D, CellOnRayVisitor3D, RayHit } from './spatialhash/raycast.js';
export type { NumericArray } from './validate.js';
export type { WeldedPositions, WeldMeshOptions, WeldMeshResult, WeldOptions, WeldResult } from './weld.js';
export { weld, weldMesh } from './weld.js';
