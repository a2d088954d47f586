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
 * @module
 */
import { grownLength } from '../core/grow.js';
import { describe } from '../core/validate.js';

/** 'PGRD' as a number: the first header number of every grid buffer. */
export const GRID_MAGIC = 0x50475244;
/** Bumped whenever the layout below changes; from() refuses other versions. */
export const GRID_VERSION = 1;
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

export const FLAG_DENSE = 1;
export const FLAG_FLOAT32 = 2;

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

/**
 * Checks that `data` is a grid buffer of dimension `d` this version can read,
 * whole, with a consistent header, and returns views of its sections.
 *
 * @throws Error saying what is wrong: not a buffer, not a grid, the other
 * dimension, another version, truncated, or an inconsistent header.
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
  const fields = [c.points, c.cellStarts, c.keyCells, c.slots, header[H_POINTS], header[H_CELL_TOTAL], bytes];
  const consistent =
    fields.every(isCount) &&
    bytes === byteLength(d, c) &&
    header[H_POINTS] <= c.points &&
    header[H_CELL_TOTAL] + 1 <= c.cellStarts &&
    (c.slots === 0 || (c.slots & (c.slots - 1)) === 0) &&
    ((header[H_FLAGS] & FLAG_DENSE) !== 0 ||
      (header[H_CELL_TOTAL] <= c.keyCells && c.slots >= 2 * header[H_CELL_TOTAL]));
  if (!consistent) throw new Error(`${owner}.from: data has an inconsistent PointGrid header`);
  if (buffer.byteLength < bytes) {
    throw new Error(`${owner}.from: data is truncated: ${buffer.byteLength} bytes, the header says ${bytes}`);
  }
  return views(buffer, d, c);
}
