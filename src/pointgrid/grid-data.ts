/**
 * The one buffer a built PointGrid lives in (`grid.data`): a small versioned
 * header of float64 numbers, then the coordinate copy, the hashed layout's
 * cell keys, the sorted indices, the cell starts and the hashed layout's
 * lookup slots, each a typed-array view into the buffer. `PointGrid2D.from`
 * and `PointGrid3D.from` read it back, zero-copy, in any thread.
 *
 * Section offsets are not stored: they follow from the capacities in the
 * header, so a reader cannot be pointed outside the buffer by a bad offset,
 * only told a capacity the buffer's length then refutes.
 *
 * A buffer may come from anywhere (another thread, storage, the network), so
 * {@link readGrid} checks every header number, in O(1): what the queries
 * trust of the header (counts, cells per axis, origin, cell width) is then
 * consistent. The body is checked by check-data.ts, in time linear in its
 * size, when from() is not told to trust it.
 *
 * @module
 */
import { grownLength } from '../core/grow.js';
import { CELL_SCALE } from '../core/margins.js';
import { describe } from '../core/validate.js';
import { verifyError } from '../wasm/verify.js';
import { MAX_DENSE_CELLS, MAX_POINTS } from './options.js';

const AXES = ['x', 'y', 'z'];

/** 'PGRD' as a number: the first header number of every grid buffer. */
export const GRID_MAGIC = 0x50475244;
/**
 * Bumped whenever the layout below changes; from() refuses other versions.
 * 2: the cell width of the build is stored (H_CELL_WIDTH), since a build
 * widens its cells when the points span more than MAX_AXIS_CELLS of them.
 */
export const GRID_VERSION = 2;
/** Header size: 32 float64 numbers, so every section after it starts 8-byte aligned. */
export const HEADER_BYTES = 256;

// Header slots (float64 indices). Integers up to 2^53 are exact in them.
export const H_MAGIC = 0;
export const H_VERSION = 1;
export const H_DIMENSION = 2;
/** Bit 0: dense layout; bit 1: float32 coordinate copy. */
export const H_FLAGS = 3;
export const H_POINTS = 4;
export const H_CELL_TOTAL = 5;
export const H_CELLS_X = 6;
export const H_CELLS_Y = 7;
export const H_CELLS_Z = 8;
export const H_ORIGIN_X = 9;
export const H_ORIGIN_Y = 10;
export const H_ORIGIN_Z = 11;
export const H_CELL_SIZE = 12;
export const H_STRIDE = 13;
export const H_OFFSET = 14;
/** -1 when the option was not given. */
export const H_MAX_DENSE_CELLS = 15;
export const H_POINT_CAPACITY = 16;
export const H_CELL_CAPACITY = 17;
export const H_KEY_CAPACITY = 18;
export const H_SLOT_CAPACITY = 19;
export const H_BYTE_LENGTH = 20;
/** Width of the cells of the last build (see {@link cellWidthFor}). */
export const H_CELL_WIDTH = 21;
/**
 * Builds published into the buffer so far, by any grid of any thread (0 in
 * buffers of earlier releases, which did not count them): a grid over the
 * buffer compares it with the count it last read to learn that another grid
 * rebuilt the buffer in place (see Grid2D.sync), and the kernels to learn
 * that their copy of it is stale.
 */
export const H_BUILDS = 22;

export const FLAG_DENSE = 1;
export const FLAG_FLOAT32 = 2;

/**
 * Most cells along one axis. A build whose points span more cells than this
 * widens its cells to fit (cellWidthFor), so that cell coordinates stay exact
 * consecutive integers (c + 1 !== c below 2^53), every loop over a range of
 * cells ends, and the rounding margins of stencils (SLACK times the extent in
 * cells) stay a small fraction of a cell. More than the dense layout ever
 * holds (MAX_DENSE_CELLS), so a widened grid is always hashed.
 */
export const MAX_AXIS_CELLS = 2 ** 32;

/**
 * The cell width a grid with this `cellSize` starts from: `cellSize` plus one
 * part in a million (see CELL_SCALE), at most Number.MAX_VALUE (a cellSize
 * near it would round up to Infinity).
 */
export function baseCellWidth(cellSize: number): number {
  return Math.min(cellSize * CELL_SCALE, Number.MAX_VALUE);
}

/**
 * The cell width a build uses for points whose largest extent along an axis
 * is `extent` (finite): the base width, or, when the points span
 * MAX_AXIS_CELLS / 2 cells of it or more, the width that spans them with
 * 2^31 cells. Answers do not depend on the width (only speed does): every
 * query tests distances and pads its cell ranges by the rounding margins.
 */
export function cellWidthFor(base: number, extent: number): number {
  return extent / base >= MAX_AXIS_CELLS / 2 ? Math.max(base, extent * 2 ** -31) : base;
}

/**
 * The points' largest extent along an axis (max - min), from bounds laid out
 * as all minima then all maxima (bounds2, bounds3).
 *
 * @throws RangeError naming the axis when its extent overflows (points more
 * than Number.MAX_VALUE apart): cell coordinates relative to the minimum would
 * be infinite. Coordinates themselves may be any finite numbers.
 */
export function checkExtent(owner: string, bounds: Float64Array, d: 2 | 3): number {
  let extent = 0;
  for (let a = 0; a < d; a++) {
    const e = bounds[d + a] - bounds[a];
    if (e === Number.POSITIVE_INFINITY) {
      throw new RangeError(
        `${owner}: the points' extent along ${AXES[a]} (from ${describe(bounds[a])} to ${describe(bounds[d + a])}) is more than Number.MAX_VALUE; a grid needs max - min finite on every axis`,
      );
    }
    if (e > extent) extent = e;
  }
  return extent;
}

/** The Error every query of a grid whose buffer was transferred away throws. */
export function detachedError(what: string): Error {
  return new Error(
    `${what}: the grid's buffer (data) was transferred to another thread or otherwise detached; rebuild() the grid (it builds into a new buffer), or open the buffer where it now lives with from()`,
  );
}

/** How many points, cell starts, keyed cells and lookup slots a grid buffer has room for. */
export interface Capacities {
  /** Points: coordinates and sorted indices. */
  points: number;
  /** Entries of `cellStart` (cells + 1). */
  cellStarts: number;
  /** Hashed cells whose keys fit (0 when the grid was never hashed). */
  keyCells: number;
  /** Lookup slots: 0, or a power of two at least twice keyCells. */
  slots: number;
  /** Coordinates stored as float32 (for Float32Array input) rather than float64. */
  float32: boolean;
}

/**
 * Mode 'verify': throws the Error of verifyError unless two grid buffers
 * (a build on the kernels, then the JavaScript path's build of the same
 * points) hold the same header, but for its count of builds, and the same
 * bytes in the used part of every section, naming the section of the first
 * difference.
 */
export function verifySameGrid(what: string, d: 2 | 3, kernels: Uint8Array, javascript: Uint8Array): void {
  if (kernels.length !== javascript.length) {
    throw verifyError(
      what,
      `the grid's buffer has ${kernels.length} bytes on the kernels, ${javascript.length} in JavaScript`,
    );
  }
  const skipFrom = 8 * H_BUILDS;
  const differs = (from: number, to: number): number => {
    for (let at = from; at < to; at++) {
      if (kernels[at] !== javascript[at] && !(at >= skipFrom && at < skipFrom + 8)) return at;
    }
    return -1;
  };
  const header = new Float64Array(kernels.buffer, kernels.byteOffset, HEADER_BYTES / 8);
  let at = differs(0, HEADER_BYTES);
  if (at >= 0) throw verifyError(what, `byte ${at} of the grid's buffer (in the header) differs`);
  // The headers agree, so the used part of each section is the same on both sides. Only that part is compared:
  // the room past it is never read, and the JavaScript hashed build parks its sort keys in the spare
  // coordinates there (see GridBase.build).
  const c = capacitiesOf(header);
  const n = header[H_POINTS];
  const cells = header[H_CELL_TOTAL];
  const hashed = (header[H_FLAGS] & FLAG_DENSE) === 0;
  const coordBytes = c.float32 ? 4 : 8;
  const sections: [string, number, number][] = [
    ['coordinates', align8(c.points * d * coordBytes), n * d * coordBytes],
    ['cell keys', c.keyCells * d * 8, hashed ? cells * d * 8 : 0],
    ['sorted indices', align8(c.points * 4), n * 4],
    ['cell starts', align8(c.cellStarts * 4), (cells + 1) * 4],
    ['lookup slots', c.slots * 4, hashed ? c.slots * 4 : 0],
  ];
  let offset = HEADER_BYTES;
  for (const [name, room, used] of sections) {
    at = differs(offset, offset + Math.min(room, used));
    if (at >= 0) throw verifyError(what, `byte ${at} of the grid's buffer (in the ${name}) differs`);
    offset += room;
  }
}

/** Typed-array views of every section of one grid buffer. */
export interface GridViews {
  data: ArrayBuffer | SharedArrayBuffer;
  header: Float64Array;
  coords: Float32Array | Float64Array;
  keys: Float64Array;
  sortedIndex: Uint32Array;
  cellStart: Int32Array;
  slots: Int32Array;
}

function align8(bytes: number): number {
  return (bytes + 7) & ~7;
}

/** Total bytes of a buffer with these capacities. */
function byteLength(d: number, c: Capacities): number {
  let bytes = HEADER_BYTES;
  bytes += align8(c.points * d * (c.float32 ? 4 : 8));
  bytes += c.keyCells * d * 8;
  bytes += align8(c.points * 4);
  bytes += align8(c.cellStarts * 4);
  bytes += c.slots * 4;
  return bytes;
}

/** Views of the sections of `data`, laid out by `c` (whose byte length the caller checked). */
function views(data: ArrayBuffer | SharedArrayBuffer, d: number, c: Capacities): GridViews {
  let at = HEADER_BYTES;
  const coords = c.float32 ? new Float32Array(data, at, c.points * d) : new Float64Array(data, at, c.points * d);
  at += align8(c.points * d * (c.float32 ? 4 : 8));
  const keys = new Float64Array(data, at, c.keyCells * d);
  at += c.keyCells * d * 8;
  const sortedIndex = new Uint32Array(data, at, c.points);
  at += align8(c.points * 4);
  const cellStart = new Int32Array(data, at, c.cellStarts);
  at += align8(c.cellStarts * 4);
  const slots = new Int32Array(data, at, c.slots);
  return { data, header: new Float64Array(data, 0, HEADER_BYTES / 8), coords, keys, sortedIndex, cellStart, slots };
}

/**
 * A capacity that fits `needed`: the current one when it does, else grown by
 * half again (as every buffer of the library grows), so a steady rebuild
 * reallocates nothing.
 */
export function fitCapacity(current: number, needed: number): number {
  return current >= needed ? current : grownLength(current, needed);
}

/**
 * Lookup slots for `cells` hashed cells: a power of two, at least four times
 * as many (load <= 1/4). The pair search looks up several cells per cell,
 * many of them absent, and an absent key probes to the next empty slot: at
 * load 1/2 the 3D pair search over 1e6 points ran 1.4x slower than at the
 * 1/4 the build's own table had.
 */
export function slotsFor(cells: number): number {
  let slots = 16;
  while (slots < 4 * cells) slots *= 2;
  return slots;
}

/**
 * Records a grid's build options in its header, where from() reads them back;
 * every new buffer gets them (`maxDenseCells` undefined is stored as -1).
 */
export function writeGridOptions(
  header: Float64Array,
  cellSize: number,
  stride: number,
  offset: number,
  maxDenseCells: number | undefined,
): void {
  header[H_CELL_SIZE] = cellSize;
  header[H_STRIDE] = stride;
  header[H_OFFSET] = offset;
  header[H_MAX_DENSE_CELLS] = maxDenseCells ?? -1;
}

/**
 * A new, zeroed grid buffer (a SharedArrayBuffer when `shared`) with room for
 * `c`, its header stamped with magic, version, dimension and capacities.
 */
export function allocateGrid(d: 2 | 3, c: Capacities, shared: boolean): GridViews {
  const bytes = byteLength(d, c);
  if (shared && typeof SharedArrayBuffer === 'undefined') {
    throw new Error(
      'PointGrid: shared: true needs SharedArrayBuffer, which this context does not have: a browser gives it only to a cross-origin isolated page, served with the headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp (see https://github.com/spatialhash/spatialhash/blob/main/docs/guides/threads.md). Leave shared out here: PointGridWorkers works on such grids too, by copying them',
    );
  }
  const data = shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
  const v = views(data, d, c);
  const h = v.header;
  h[H_MAGIC] = GRID_MAGIC;
  h[H_VERSION] = GRID_VERSION;
  h[H_DIMENSION] = d;
  h[H_POINT_CAPACITY] = c.points;
  h[H_CELL_CAPACITY] = c.cellStarts;
  h[H_KEY_CAPACITY] = c.keyCells;
  h[H_SLOT_CAPACITY] = c.slots;
  h[H_BYTE_LENGTH] = bytes;
  h[H_FLAGS] = c.float32 ? FLAG_FLOAT32 : 0;
  return v;
}

/** The capacities a buffer was allocated with, read back from its header. */
export function capacitiesOf(header: Float64Array): Capacities {
  return {
    points: header[H_POINT_CAPACITY],
    cellStarts: header[H_CELL_CAPACITY],
    keyCells: header[H_KEY_CAPACITY],
    slots: header[H_SLOT_CAPACITY],
    float32: (header[H_FLAGS] & FLAG_FLOAT32) !== 0,
  };
}

function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

function isPowerOfTwoOrZero(value: number): boolean {
  return value === 0 || 2 ** Math.round(Math.log2(value)) === value;
}

/**
 * Checks that `data` is a grid buffer of dimension `d` this version can read,
 * whole (its capacities consistent with its length), and returns views of its
 * sections. The rest of the header is checked by {@link headerProblem}, once
 * the grid is published: PointGridWorkers' build steps read the views of a
 * buffer whose header is still being written.
 *
 * @throws Error saying what is wrong: not a buffer, not a grid, the other
 * dimension, another version, truncated, or inconsistent capacities.
 */
export function readGrid(owner: string, data: unknown, d: 2 | 3): GridViews {
  const isShared = typeof SharedArrayBuffer !== 'undefined' && data instanceof SharedArrayBuffer;
  if (!(data instanceof ArrayBuffer) && !isShared) {
    throw new Error(
      `${owner}.from: data must be an ArrayBuffer or SharedArrayBuffer (a grid's .data), got ${describe(data)}`,
    );
  }
  const buffer = data as ArrayBuffer | SharedArrayBuffer;
  if (buffer.byteLength < HEADER_BYTES) {
    throw new Error(
      `${owner}.from: data is not a PointGrid buffer (${buffer.byteLength} bytes, shorter than the header)`,
    );
  }
  const header = new Float64Array(buffer, 0, HEADER_BYTES / 8);
  if (header[H_MAGIC] !== GRID_MAGIC) throw new Error(`${owner}.from: data is not a PointGrid buffer (no grid header)`);
  if (header[H_VERSION] !== GRID_VERSION) {
    throw new Error(
      `${owner}.from: data is a PointGrid buffer of version ${header[H_VERSION]}; this library reads version ${GRID_VERSION}`,
    );
  }
  if (header[H_DIMENSION] !== d) {
    throw new Error(`${owner}.from: data is a ${header[H_DIMENSION]}D grid; use PointGrid${header[H_DIMENSION]}D.from`);
  }
  const c = capacitiesOf(header);
  const bytes = header[H_BYTE_LENGTH];
  const fields = [c.points, c.cellStarts, c.keyCells, c.slots, bytes];
  if (!fields.every(isCount) || bytes !== byteLength(d, c) || !isPowerOfTwoOrZero(c.slots)) {
    throw new Error(
      `${owner}.from: data has an inconsistent PointGrid header (its capacities and byte length disagree)`,
    );
  }
  if (buffer.byteLength < bytes) {
    throw new Error(`${owner}.from: data is truncated: ${buffer.byteLength} bytes, the header says ${bytes}`);
  }
  return views(buffer, d, c);
}

/**
 * What is wrong with the numbers of a grid header whose capacities match its
 * byte length, or undefined: every field finite and in range, and the fields
 * consistent with each other, so that no query reads past a section or loops
 * over more cells than the header's box holds. O(1).
 */
export function headerProblem(h: Float64Array, d: 2 | 3, c: Capacities): string | undefined {
  const flags = h[H_FLAGS];
  if (flags !== 0 && flags !== 1 && flags !== 2 && flags !== 3) return `flags is ${describe(flags)}, not 0 to 3`;
  const dense = (flags & FLAG_DENSE) !== 0;
  const points = h[H_POINTS];
  if (!isCount(points) || points > c.points || points > MAX_POINTS) {
    return `the point count is ${describe(points)}, not an integer from 0 to the capacity ${c.points}`;
  }
  const cells = h[H_CELL_TOTAL];
  if (!isCount(cells) || cells + 1 > c.cellStarts) {
    return `the cell count is ${describe(cells)}, not an integer from 0 to the capacity ${c.cellStarts - 1}`;
  }
  const builds = h[H_BUILDS];
  if (!isCount(builds)) return `the build count is ${describe(builds)}, not an integer >= 0`;
  const cellSize = h[H_CELL_SIZE];
  if (!(cellSize > 0 && cellSize <= Number.MAX_VALUE))
    return `cellSize is ${describe(cellSize)}, not a finite number > 0`;
  const width = h[H_CELL_WIDTH];
  if (!(width >= baseCellWidth(cellSize) && width <= Number.MAX_VALUE)) {
    return `the cell width is ${describe(width)}, not a finite number >= cellSize * (1 + 2^-20)`;
  }
  const stride = h[H_STRIDE];
  if (!Number.isSafeInteger(stride) || stride < d) return `stride is ${describe(stride)}, not an integer >= ${d}`;
  const offset = h[H_OFFSET];
  if (!isCount(offset)) return `offset is ${describe(offset)}, not an integer >= 0`;
  const maxDense = h[H_MAX_DENSE_CELLS];
  if (!(maxDense === -1 || maxDense >= 0)) return `maxDenseCells is ${describe(maxDense)}, not a number >= 0 (or -1)`;
  let box = 1;
  for (let a = 0; a < 3; a++) {
    const axis = AXES[a];
    const n = h[H_CELLS_X + a];
    const origin = h[H_ORIGIN_X + a];
    if (a >= d) {
      // The 2D header's z: written as one cell at 0.
      if (n !== 1 || origin !== 0)
        return `a 2D grid has cellsZ ${describe(n)} and originZ ${describe(origin)}, not 1 and 0`;
      continue;
    }
    const least = points === 0 ? 0 : 1;
    const most = points === 0 ? 0 : MAX_AXIS_CELLS;
    if (!Number.isInteger(n) || n < least || n > most) {
      return `cells${axis.toUpperCase()} is ${describe(n)}, not an integer from ${least} to ${most} for ${points} points`;
    }
    if (!(Math.abs(origin) <= Number.MAX_VALUE))
      return `origin${axis.toUpperCase()} is ${describe(origin)}, not finite`;
    box *= n;
  }
  if (dense) {
    if (cells !== box || cells > MAX_DENSE_CELLS) {
      return `a dense grid of ${box} cells (at most ${MAX_DENSE_CELLS}) has a cell count of ${cells}`;
    }
  } else {
    if (cells > points || (points > 0 && cells === 0) || cells > box) {
      return `a hashed grid of ${points} points has a cell count of ${cells}`;
    }
    if (cells > c.keyCells || c.slots < 2 * cells || (points > 0 && c.slots === 0)) {
      return `a hashed grid of ${cells} cells has room for ${c.keyCells} keys and ${c.slots} lookup slots`;
    }
  }
  return undefined;
}
