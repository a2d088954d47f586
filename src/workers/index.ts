/**
 * spatialhash/workers: a pool of threads that rebuilds PointGrids and runs
 * their pair searches in parallel, over grids built with `{ shared: true }`.
 *
 * @module spatialhash/workers
 */

export type {
  AnyGrid,
  PointGridWorkersOptions,
  PointGridWorkersPhase,
  PointGridWorkersTimings,
  WorkerLike,
} from './pool.js';
export { PointGridWorkers } from './pool.js';
