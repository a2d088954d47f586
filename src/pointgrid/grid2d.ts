/**
 * The state of a PointGrid2D and its build: what grid-base.ts holds for both
 * dimensions, with the 2D steps of the build (build-loops.ts, from the build template) and the 2D cell
 * lookup. Internal: the public class checks arguments and delegates here, to
 * within-point.ts, query2d.ts and pair-visits.ts.
 *
 * @module
 */

import { hashCell2 } from '../core/cell-hash.js';
import type { NumericArray } from '../core/validate.js';
import { bounds2, countDense2, countHashed2, scatter2, sortSmallCells2 } from './build-loops.js';
import { GridBase } from './grid-base.js';

/** Buffers and bounds of one 2D point grid, rebuilt in place by {@link GridBase.build}. */
export class Grid2D extends GridBase {
  static readonly dimension = 2;
  declare readonly dimension: 2;

  protected findBounds(positions: NumericArray, n: number, bounds: Float64Array): void {
    bounds2(positions, n, this.stride, this.offset, bounds);
  }

  protected countDense(positions: NumericArray, n: number): void {
    const { stride, offset, originX, originY, width, cellsX } = this;
    countDense2(positions, n, stride, offset, originX, originY, width, cellsX, this.scratch, this.cellStart);
  }

  protected countHashed(positions: NumericArray, n: number): number {
    const { stride, offset, originX, originY, width, table, scratch, cellCounts } = this;
    return countHashed2(table!, positions, n, stride, offset, originX, originY, width, scratch, cellCounts);
  }

  protected scatter(positions: NumericArray, n: number): void {
    const { stride, offset, scratch, cellStart, coords, sortedIndex } = this;
    scatter2(positions, n, stride, offset, scratch, cellStart, coords, sortedIndex, 0);
  }

  protected sortSmallCells(cells: number): void {
    sortSmallCells2(this.coords, this.sortedIndex, this.cellStart, 0, cells);
  }

  /**
   * Id of the occupied hashed cell (cx, cy), or -1. At most one probe per
   * slot, and a slot holding no cell id (an empty one, or anything else a
   * buffer shared with another thread may hold mid-write) ends the probe.
   */
  findCell(cx: number, cy: number): number {
    const keys = this.keys;
    const slots = this.slots;
    const mask = this.slotMask;
    const cells = this.cellTotal;
    let s = hashCell2(cx, cy) & mask;
    for (let probes = 0; probes <= mask; probes++) {
      const id = slots[s];
      if (!(id >= 0 && id < cells)) return -1;
      if (keys[2 * id] === cx && keys[2 * id + 1] === cy) return id;
      s = (s + 1) & mask;
    }
    return -1;
  }
}
