/**
 * The body check of a grid buffer: everything the queries rely on beyond the
 * header (which readGrid checks), in time linear in the buffer's size, with
 * one byte of scratch per point and per cell. `PointGrid2D.from` and
 * `PointGrid3D.from` run it on every buffer they are not told to trust, and
 * `validate()` runs it on any grid.
 *
 * Why each part matters, that is, how a query would lie without it:
 * - cell starts run from 0 to the point count without decreasing: every run
 *   of sorted positions a query scans lies inside the sections;
 * - the sorted indices are a permutation: every index returned is a point's,
 *   and each point is returned once;
 * - every coordinate is finite and lies in the cell that lists it, and each
 *   cell is in x order: cell ranges, stencils and the x-sorted early exits of
 *   the scans skip only points the distance test would reject;
 * - the origin, cells per axis and cell width are those a build of these
 *   points makes: nothing lies outside the box the queries clamp to;
 * - hashed keys are integer cells inside the header's box, in row-major order
 *   (so distinct): the pair search reads rows as runs of consecutive ids;
 * - the lookup holds each cell id once, in a slot its probe sequence reaches
 *   before an empty slot, and has an empty slot: every cell is found, and a
 *   lookup of an absent cell ends.
 *
 * @module
 */
import { hashCell2, hashCell3 } from '../core/cell-hash.js';
import { checkLayout, describe, type NumericArray } from '../core/validate.js';
import { cellAlong } from './build-loops.js';
import { baseCellWidth, cellWidthFor } from './grid-data.js';

/** What the body check reads of a grid (Grid2D and Grid3D both have it, as arrays here). */
export interface GridBody {
  d: 2 | 3;
  points: number;
  cellTotal: number;
  dense: boolean;
  /** Cells per axis, `d` of them. */
  cells: number[];
  /** Origin per axis, `d` of them. */
  origin: number[];
  width: number;
  cellSize: number;
  coords: Float32Array | Float64Array;
  sortedIndex: Uint32Array;
  cellStart: Int32Array;
  keys: Float64Array;
  slots: Int32Array;
}

const AXES = ['x', 'y', 'z'];

/**
 * The first thing wrong with a grid's body (see the module notes), or
 * undefined. The header's numbers (counts, cells per axis, origin, width)
 * must already be checked. O(points + cells + lookup slots).
 */
export function bodyProblem(g: GridBody): string | undefined {
  return (
    cellStartProblem(g) ??
    permutationProblem(g) ??
    (g.dense ? undefined : (keyProblem(g) ?? lookupProblem(g))) ??
    placeProblem(g)
  );
}

/** Cell starts: 0, never decreasing, the point count last; hashed cells are never empty. */
function cellStartProblem(g: GridBody): string | undefined {
  const { cellStart, cellTotal: cells, points } = g;
  if (cellStart[0] !== 0) return `the first cell start is ${cellStart[0]}, not 0`;
  for (let c = 0; c < cells; c++) {
    const start = cellStart[c];
    const end = cellStart[c + 1];
    if (end < start) return `the cell starts decrease at cell ${c} (${start}, then ${end})`;
    if (end === start && !g.dense) return `the cell starts leave hashed cell ${c} empty`;
  }
  if (cellStart[cells] !== points) return `the last cell start is ${cellStart[cells]}, not the point count ${points}`;
  return undefined;
}

/** The sorted indices: each point index below the count, once. */
function permutationProblem(g: GridBody): string | undefined {
  const { sortedIndex, points } = g;
  const seen = new Uint8Array(points);
  for (let s = 0; s < points; s++) {
    const i = sortedIndex[s];
    if (i >= points) return `sorted index ${s} is ${i}, not a point index below ${points}`;
    if (seen[i] === 1) return `the sorted indices list point ${i} twice`;
    seen[i] = 1;
  }
  return undefined;
}

/** Hashed keys: integer cells inside the box, in row-major order (by z, then y, then x), hence distinct. */
function keyProblem(g: GridBody): string | undefined {
  const { d, keys, cellTotal: cells } = g;
  for (let c = 0; c < cells; c++) {
    for (let a = 0; a < d; a++) {
      const k = keys[d * c + a];
      if (!Number.isInteger(k) || k < 0 || k >= g.cells[a]) {
        return `the key of hashed cell ${c} has ${AXES[a]} = ${describe(k)}, not an integer cell from 0 to ${g.cells[a] - 1}`;
      }
    }
    if (c > 0) {
      // Compare from the most significant axis (z, or y in 2D) down.
      let order = 0;
      for (let a = d - 1; a >= 0 && order === 0; a--) order = Math.sign(keys[d * c + a] - keys[d * (c - 1) + a]);
      if (order <= 0) return `the keys of hashed cells ${c - 1} and ${c} are not in row-major order`;
    }
  }
  return undefined;
}

/** Hash of hashed cell `id`'s key, as the build placed it. */
function homeHash(g: GridBody, id: number): number {
  const k = g.d * id;
  return g.d === 2 ? hashCell2(g.keys[k], g.keys[k + 1]) : hashCell3(g.keys[k], g.keys[k + 1], g.keys[k + 2]);
}

/**
 * The lookup: every slot -1 or a cell id, each id exactly once, an empty slot
 * somewhere, and each id in the run of full slots that starts at or before
 * its home slot (hash & mask), so that the probe from its home reaches it
 * before an empty slot. One pass for the ids, one around the table from an
 * empty slot counting the length of the current run.
 */
function lookupProblem(g: GridBody): string | undefined {
  const { slots, cellTotal: cells } = g;
  const size = slots.length;
  const mask = size - 1;
  const placed = new Uint8Array(cells);
  let filled = 0;
  let empty = -1;
  for (let s = 0; s < size; s++) {
    const id = slots[s];
    if (id === -1) {
      empty = s;
      continue;
    }
    if (!(id >= 0 && id < cells))
      return `lookup slot ${s} holds ${id}, neither -1 (empty) nor a cell id below ${cells}`;
    if (placed[id] === 1) return `the lookup holds cell ${id} twice`;
    placed[id] = 1;
    filled++;
  }
  if (filled !== cells) return `the lookup holds ${filled} of the ${cells} cells`;
  if (empty < 0) return size === 0 ? undefined : 'the lookup has no empty slot';
  let run = 0;
  for (let k = 1; k <= size; k++) {
    const s = (empty + k) & mask;
    const id = slots[s];
    if (id === -1) {
      run = 0;
      continue;
    }
    run++;
    const home = homeHash(g, id) & mask;
    if (((s - home) & mask) >= run) {
      return `lookup slot ${s} holds cell ${id}, whose probe from slot ${home} meets an empty slot first`;
    }
  }
  return undefined;
}

/**
 * Every coordinate finite and inside the cell that lists it (the build's own
 * `floor((v - origin) / width)` per axis), and every cell in x order, ties by
 * index. Dense cells' coordinates are counted along, hashed ones read from
 * the keys. One loop for both dimensions, axes written out (z is 0 in 2D):
 * this is most of the check's time.
 */
function placeProblem(g: GridBody): string | undefined {
  const { d, coords, sortedIndex, cellStart, cellTotal: cells, width, keys, dense } = g;
  const three = d === 3;
  const ox = g.origin[0];
  const oy = g.origin[1];
  const oz = three ? g.origin[2] : 0;
  const cellsX = g.cells[0];
  const cellsY = g.cells[1];
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let minZ = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  let maxZ = Number.NEGATIVE_INFINITY;
  let cx = 0;
  let cy = 0;
  let cz = 0;
  for (let c = 0; c < cells; c++) {
    if (!dense) {
      cx = keys[d * c];
      cy = keys[d * c + 1];
      cz = three ? keys[d * c + 2] : 0;
    } else if (c > 0 && ++cx === cellsX) {
      // Row-major: x fastest.
      cx = 0;
      if (++cy === cellsY) {
        cy = 0;
        cz++;
      }
    }
    const start = cellStart[c];
    const end = cellStart[c + 1];
    let previous = Number.NEGATIVE_INFINITY;
    for (let s = start; s < end; s++) {
      const p = d * s;
      const x = coords[p];
      const y = coords[p + 1];
      const z = three ? coords[p + 2] : 0;
      if (!(Math.abs(x) <= Number.MAX_VALUE && Math.abs(y) <= Number.MAX_VALUE && Math.abs(z) <= Number.MAX_VALUE)) {
        const a = Math.abs(x) <= Number.MAX_VALUE ? (Math.abs(y) <= Number.MAX_VALUE ? 2 : 1) : 0;
        return `the ${AXES[a]} coordinate of point ${sortedIndex[s]} is ${describe(coords[p + a])}, not finite`;
      }
      if (
        cellAlong(x, ox, width) !== cx ||
        cellAlong(y, oy, width) !== cy ||
        (three && cellAlong(z, oz, width) !== cz)
      ) {
        return `point ${sortedIndex[s]} lies outside the cell (${c}) listing it`;
      }
      if (x < previous || (x === previous && sortedIndex[s - 1] > sortedIndex[s])) {
        return `cell ${c} is not in x order at point ${sortedIndex[s]}`;
      }
      previous = x;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      if (z < minZ) minZ = z;
      if (z > maxZ) maxZ = z;
    }
  }
  return boxProblem(g, [minX, minY, minZ], [maxX, maxY, maxZ]);
}

/** The origin, cells per axis and cell width a build of points with these bounds makes (see Grid2D.build). */
function boxProblem(g: GridBody, min: number[], max: number[]): string | undefined {
  const { d, points } = g;
  let extent = 0;
  for (let a = 0; a < d; a++) extent = Math.max(extent, max[a] - min[a]);
  if (points > 0 && !(extent <= Number.MAX_VALUE)) return 'the points have an extent that is not finite';
  const width = points === 0 ? g.width : cellWidthFor(baseCellWidth(g.cellSize), extent);
  if (g.width !== width) return `the cell width is ${g.width}, where a build of these points uses ${width}`;
  for (let a = 0; a < d; a++) {
    const origin = points === 0 ? 0 : min[a];
    const cells = points === 0 ? 0 : cellAlong(max[a], origin, width) + 1;
    if (g.origin[a] !== origin)
      return `origin${AXES[a].toUpperCase()} is ${g.origin[a]}, not the points' least ${AXES[a]} (${origin})`;
    if (g.cells[a] !== cells) return `cells${AXES[a].toUpperCase()} is ${g.cells[a]}, where the points span ${cells}`;
  }
  return undefined;
}

/**
 * For a grid built from `positions` (validate()): the count and every copied
 * coordinate equal to the positions they were copied from, or what differs.
 */
export function copiesProblem(
  g: GridBody,
  positions: NumericArray,
  stride: number,
  offset: number,
): string | undefined {
  const { d, points, coords, sortedIndex } = g;
  if (points !== checkLayout(positions, d, stride, offset)) return 'count differs from the positions';
  for (let s = 0; s < points; s++) {
    const i = sortedIndex[s];
    for (let a = 0; a < d; a++) {
      if (coords[d * s + a] !== positions[offset + i * stride + a]) return `copy of point ${i} differs from positions`;
    }
  }
  return undefined;
}
