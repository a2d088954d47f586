/**
 * How a pool call marks the grid it works on (see src/pointgrid/pool-use.ts),
 * so that no query or rebuild on the calling thread meets the threads'
 * work half-done.
 *
 * @module
 */
import type { Grid2D } from '../pointgrid/grid2d.js';
import type { Grid3D } from '../pointgrid/grid3d.js';
import { checkQuery } from '../pointgrid/pool-use.js';

/** Throws when a pool call may not read `g` now (a rebuild running or interrupted), as the grid's own queries do. */
export function checkReadable(g: Grid2D | Grid3D, call: string): void {
  if (g.use !== undefined) checkQuery(`PointGridWorkers.${call}()`, g.use);
}

/**
 * Runs `search` with the grid marked 'reading' (its rebuild waits: the
 * threads, or the calling thread's merge, read its buffer), unmarked after,
 * whatever happens.
 */
export async function reading<T>(g: Grid2D | Grid3D, call: string, search: () => Promise<T>): Promise<T> {
  checkReadable(g, call);
  g.use = 'reading';
  try {
    return await search();
  } finally {
    if (g.use === 'reading') g.use = undefined;
  }
}
