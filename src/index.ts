/**
 * spatialhash: find what is near what, fast. Dynamic hashes of boxes
 * ({@link SpatialHash2D}, {@link SpatialHash3D}) and of points
 * ({@link PointHash2D}, {@link PointHash3D}), counting-sort point grids
 * rebuilt per frame ({@link PointGrid2D}, {@link PointGrid3D}) and vertex
 * welding ({@link weld}, {@link weldMesh}).
 *
 * @module spatialhash
 */

export type { NeighborLists } from './core/results.js';
export type { NumericArray } from './core/validate.js';
export type {
  NeighborsOptions,
  PairSearchOptions,
  PairsOptions,
  PointGridFromOptions,
  PointGridLayout,
  PointGridOptions,
  PointPairBatchVisitor,
  PointPairVisitor,
  ResultLengthOptions,
} from './pointgrid/options.js';
export { PointGrid2D } from './pointgrid/pointgrid2d.js';
export { PointGrid3D } from './pointgrid/pointgrid3d.js';
export type { WithinManyOptions } from './pointgrid/within-many.js';
export type { PointHashData } from './pointhash/data.js';
export type { PointHashOptions } from './pointhash/options.js';
export { PointHash2D } from './pointhash/pointhash2d.js';
export { PointHash3D } from './pointhash/pointhash3d.js';
export type { OverlapVisitor } from './spatialhash/box-args.js';
export type { FromDataOptions, SpatialHashData, ToDataOptions } from './spatialhash/data.js';
export type { ItemFilter, ItemPredicate } from './spatialhash/filter.js';
export type { SpatialHashOptions } from './spatialhash/options.js';
export { DEFAULT_MAX_CELLS_PER_ITEM, MAX_CELLS_PER_ITEM_LIMIT } from './spatialhash/options.js';
export type { PairOptions, PairVisitor } from './spatialhash/pairs.js';
export type { CellOnRayVisitor2D, CellOnRayVisitor3D, RayHit } from './spatialhash/raycast.js';
export { SpatialHash2D } from './spatialhash/spatialhash2d.js';
export { SpatialHash3D } from './spatialhash/spatialhash3d.js';
export type { KernelMode } from './wasm/kernels.js';
export { activeKernels, releaseKernelMemory, setKernelMode } from './wasm/kernels.js';
export type { WeldedPositions, WeldMeshOptions, WeldMeshResult, WeldOptions, WeldResult } from './weld/weld.js';
export { weld, weldMesh } from './weld/weld.js';
