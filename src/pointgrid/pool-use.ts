/**
 * The one hook PointGridWorkers needs in a grid: how the pool is using the
 * grid's buffer right now, which the grid's own calls respect, so that no
 * query ever reads a half-written grid:
 *
 * - 'reading': the pool's threads search the shared buffer: rebuild() waits;
 * - 'writing': they rebuild it in place: every query and rebuild() waits;
 * - 'interrupted': such a rebuild stopped half-way (a worker died, or the
 *   pool was closed): every query throws until the grid is rebuilt.
 *
 * Grid2D and Grid3D hold it (`use`); their publish(), the end of every
 * build, clears it.
 *
 * @module
 */

/** How a PointGridWorkers pool is using a grid (see the module comment). */
export type PoolUse = 'reading' | 'writing' | 'interrupted';

/** Throws when a query may not read a grid the pool uses as `use` (call only when `use` is set). */
export function checkQuery(call: string, use: PoolUse): void {
  if (use === 'writing') {
    throw new Error(`${call}: PointGridWorkers.rebuild() is rebuilding this grid in place: await it first`);
  }
  if (use === 'interrupted') {
    throw new Error(
      `${call}: this grid must be rebuilt: its last PointGridWorkers.rebuild() was interrupted (a worker failed, or the pool was closed) and left it half-written`,
    );
  }
}

/** Throws when the grid may not be rebuilt now (call only when `use` is set). */
export function checkRebuild(call: string, use: PoolUse): void {
  if (use !== 'interrupted') {
    throw new Error(`${call}: a PointGridWorkers call is using this grid's buffer: await it first`);
  }
}
