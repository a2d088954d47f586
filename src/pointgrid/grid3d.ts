/**
 * The state of a PointGrid3D and its build: what grid-base.ts holds for both
 * dimensions, with the 3D steps of the build (build-loops.ts, from the build template) and the 3D cell
 * lookup. Internal: the public class checks arguments and delegates here, to
 * within-point.ts, query3d.ts and pair-visits.ts.
 *
 * @module
 */

import { hashCell3 } from '../core/cell-hash.js';
import type { NumericArray } from '../core/validate.js';
import { bounds3, countDense3, countHashed3, scatter3, sortSmallCells3 } from './build-loops.js';
import { GridBase } from './grid-base.js';

/** Buffers and bounds of one 3D point grid, rebuilt in place by {@link GridBase.build}. */
export class Grid3D extends GridBase {
  static readonly dimension = 3;
  declare readonly dimension: 3;

  protected findBounds(positions: NumericArray, n: number, bounds: Float64Array): void {
    bounds3(positions, n, this.stride, this.offset, bounds);
  }

  protected countDense(positions: NumericArray, n: number): void {
    const { stride, offset, originX, originY, originZ, width, cellsX, scratch } = this;
    const layer = cellsX * this.cellsY;
    countDense3(positions, n, stride, offset, originX, originY, originZ, width, cellsX, layer, scratch, this.cellStart);
  }

  protected countHashed(positions: NumericArray, n: number): number {
    const { stride, offset, originX, originY, originZ, width, table, scratch } = this;
    return countHashed3(
      table!,
      positions,
      n,
      stride,
      offset,
      originX,
      originY,
      originZ,
      width,
      scratch,
      this.cellCounts,
    );
  }

  protected scatter(positions: NumericArray, n: number): void {
    const { stride, offset, scratch, cellStart, coords, sortedIndex } = this;
    scatter3(positions, n, stride, offset, scratch, cellStart, coords, sortedIndex, 0);
  }

  protected sortSmallCells(cells: number): void {
    sortSmallCells3(this.coords, this.sortedIndex, this.cellStart, 0, cells);
  }

  /**
   * Id of the occupied hashed cell (cx, cy, cz), or -1. At most one probe per
   * slot, and a slot holding no cell id (an empty one, or anything else a
   * buffer shared with another thread may hold mid-write) ends the probe.
   */
  findCell(cx: number, cy: number, cz: number): number {
    const keys = this.keys;
    const slots = this.slots;
    const mask = this.slotMask;
    const cells = this.cellTotal;
    let s = hashCell3(cx, cy, cz) & mask;
    for (let probes = 0; probes <= mask; probes++) {
      const id = slots[s];
      if (!(id >= 0 && id < cells)) return -1;
      const k = 3 * id;
      if (keys[k] === cx && keys[k + 1] === cy && keys[k + 2] === cz) return id;
      s = (s + 1) & mask;
    }
    return -1;
  }
}
