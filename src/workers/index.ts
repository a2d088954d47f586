/**
 * spatialhash/workers: a pool of threads that rebuilds PointGrids and runs
 * their pair searches in parallel: in place over grids built with
 * `{ shared: true }` where threads can share memory, on copies elsewhere.
 *
 * @module spatialhash/workers
 */

export type { WorkerLike } from './channel.js';
export type {
  AnyGrid,
  PointGridWorkersNeighborsOptions,
  PointGridWorkersOptions,
  PointGridWorkersPairsOptions,
} from './pool.js';
export { PointGridWorkers } from './pool.js';
export type { PointGridWorkersPhase, PointGridWorkersTimings } from './threads.js';
