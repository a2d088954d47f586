/**
 * spatialhash/workers: a pool of threads that rebuilds PointGrids and runs
 * their pair searches in parallel, over grids built with `{ shared: true }`.
 *
 * @packageDocumentation
 */

export type { PointGridWorkersOptions, PointGridWorkersTimings, WorkerLike } from './pool.js';
export { PointGridWorkers } from './pool.js';
