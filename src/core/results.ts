/**
 * The arrays a batch query hands back (pairs, neighbour rows, withinMany's
 * rows) and how a caller's earlier result is written over: shared by the
 * point grids (src/pointgrid/), their kernels' glue (src/wasm/), the GPU
 * grids and PointGridWorkers, so below them all.
 *
 * @module
 */

/**
 * Every point's neighbour list in compressed sparse row form: the neighbours
 * of point i are `indices[offsets[i]]` to `indices[offsets[i + 1] - 1]`.
 */
export interface NeighborLists {
  /** `count + 1` row starts into `indices`; `offsets[count]` is `indices.length`. */
  offsets: Uint32Array;
  /** Neighbour indices, row after row. */
  indices: Uint32Array;
}

/**
 * A view of `length` numbers over `array`'s buffer, from where `array`
 * starts, when that buffer has room; else undefined. How `out` arrays are
 * reused, by neighbors() and withinMany() and by PointGridWorkers (which
 * also requires a SharedArrayBuffer).
 */
export function reuseArray(array: Uint32Array | undefined, length: number): Uint32Array | undefined {
  if (array === undefined) return undefined;
  const room = (array.buffer.byteLength - array.byteOffset) >>> 2;
  return room >= length ? new Uint32Array(array.buffer, array.byteOffset, length) : undefined;
}

/** All of `array`'s buffer from where `array` starts: its room for a result written over it. */
export function roomView(array: Uint32Array): Uint32Array {
  return new Uint32Array(array.buffer, array.byteOffset, (array.buffer.byteLength - array.byteOffset) >>> 2);
}

/** Fresh memory for `length` numbers, with an eighth to spare for a later, longer result written over it. */
export function roomyArray(length: number, shared: boolean): Uint32Array {
  const capacity = Math.max(1, length + (length >>> 3));
  const buffer = shared ? new SharedArrayBuffer(4 * capacity) : new ArrayBuffer(4 * capacity);
  return new Uint32Array(buffer, 0, length);
}
