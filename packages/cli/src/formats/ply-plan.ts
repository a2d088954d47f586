/**
 * What each PLY element is to the weld (vertices, faces, edges, anything
 * else), what the first pass gathers from its records and what the second
 * writes: shared by the binary and ASCII passes (ply-binary.ts,
 * ply-ascii.ts), driven by ply.ts.
 *
 * @module
 */

import { InputError } from '../errors.js';
import type { Uint32List } from '../growable.js';
import { type Element, getScalar, type PlyRecord, recordName, SIZE } from './ply-header.js';

/** What an element is to the weld. */
export type Role = 'vertex' | 'face' | 'edge' | 'other';

/** An element with what the passes need to know of it. */
export interface Plan {
  element: Element;
  role: Role;
  /** Face: the index of its vertex_indices list. */
  list: number;
  /** Edge: the indices of vertex1 and vertex2 (-1 when absent). */
  ends: number[];
  /** Byte offset of each property in a fixed-size record (binary). */
  offsets: number[];
  /** A face whose only property is its index list (the fast path). */
  simple: boolean;
}

export function planOf(element: Element, vertex: Element): Plan {
  let offset = 0;
  const offsets = element.properties.map((p) => {
    const at = offset;
    offset += SIZE[p.countType ?? p.type];
    return at;
  });
  const base = { element, list: -1, ends: [] as number[], offsets, simple: false };
  if (element === vertex) return { ...base, role: 'vertex' };
  if (element.name === 'face') {
    const list = element.properties.findIndex(
      (p) => p.countType !== undefined && (p.name === 'vertex_indices' || p.name === 'vertex_index'),
    );
    if (list >= 0) return { ...base, role: 'face', list, simple: element.properties.length === 1 };
  }
  const ends = ['vertex1', 'vertex2'].map((name) =>
    element.properties.findIndex((p) => p.name === name && p.countType === undefined),
  );
  if (ends.some((k) => k >= 0)) return { ...base, role: 'edge', ends };
  return { ...base, role: 'other' };
}

/** Where a record is, for errors: the line (ASCII) or the byte offset where it starts (binary). */
export type Where = () => string;

/** A vertex attribute: its name for the options and the vertex properties (by index) it holds. */
export interface Group {
  name: string;
  properties: number[];
}

/**
 * What pass 1 gathers from records, whatever the encoding: vertex positions
 * and the values of the compared groups, face corners (each checked to name a
 * vertex) and each face's size; edge ends are checked too.
 */
export class Collector {
  readonly n: number;
  /** The counts were checked against the file's size (readHeader): these arrays are bounded by it. */
  readonly positions: Float64Array;
  /** Per group, its values (float64, `properties.length` per vertex). */
  readonly values: Float64Array[];

  constructor(
    readonly file: string,
    readonly plans: Plan[],
    readonly xyz: [number, number, number],
    readonly groups: Group[],
    readonly corners: Uint32List,
    readonly sizes: Uint32List,
  ) {
    this.n = plans.find((p) => p.role === 'vertex')!.element.count;
    this.positions = new Float64Array(this.n * 3);
    this.values = groups.map((g) => new Float64Array(this.n * g.properties.length));
  }

  /** Vertex i from a record decoded to numbers. */
  vertexRecord(i: number, record: PlyRecord | ArrayLike<number>, where: Where): void {
    for (let axis = 0; axis < 3; axis++) this.position(i, axis, record[this.xyz[axis]] as number, where);
    for (const [g, group] of this.groups.entries()) {
      const width = group.properties.length;
      for (let c = 0; c < width; c++) this.values[g]![i * width + c] = record[group.properties[c]!] as number;
    }
  }

  /** Vertex i from its fixed-size binary record at byte `at` of `view`. */
  vertexBytes(i: number, plan: Plan, view: DataView, at: number, little: boolean, where: Where): void {
    const properties = plan.element.properties;
    for (let axis = 0; axis < 3; axis++) {
      const k = this.xyz[axis];
      this.position(i, axis, getScalar(view, at + plan.offsets[k]!, properties[k]!.type, little), where);
    }
    for (const [g, group] of this.groups.entries()) {
      const width = group.properties.length;
      for (let c = 0; c < width; c++) {
        const k = group.properties[c]!;
        this.values[g]![i * width + c] = getScalar(view, at + plan.offsets[k]!, properties[k]!.type, little);
      }
    }
  }

  private position(i: number, axis: number, value: number, where: Where): void {
    if (value - value !== 0) {
      throw new InputError(this.file, where(), `vertex ${i}: property ${'xyz'[axis]} is not finite (${value})`);
    }
    this.positions[i * 3 + axis] = value;
  }

  /** Checks that `value` names one of the vertices. */
  index(value: number, where: Where, what: () => string): void {
    if (!(Number.isInteger(value) && value >= 0 && value < this.n)) {
      throw new InputError(
        this.file,
        where(),
        `${what()}: ${value} is not a vertex index (the file has ${this.n.toLocaleString('en-US')} vertices: 0 to ${this.n - 1})`,
      );
    }
  }

  /** A face's corner k. */
  corner(plan: Plan, i: number, k: number, value: number, where: Where): void {
    if (!(Number.isInteger(value) && value >= 0 && value < this.n)) {
      this.index(value, where, () => `${recordName(plan.element, i, plan.element.properties[plan.list]!)} item ${k}`);
    }
    this.corners.push(value);
  }

  /** A record decoded to numbers (the general path). */
  record(plan: Plan, i: number, record: PlyRecord, where: Where): void {
    const { element } = plan;
    if (plan.role === 'vertex') this.vertexRecord(i, record, where);
    else if (plan.role === 'face') {
      const items = record[plan.list] as number[];
      this.sizes.push(items.length);
      for (const [k, v] of items.entries()) this.corner(plan, i, k, v, where);
    } else if (plan.role === 'edge') {
      for (const k of plan.ends) {
        if (k >= 0) this.index(record[k] as number, where, () => recordName(element, i, element.properties[k]!));
      }
    }
  }
}

/** What pass 2 writes, beyond the file it reads again. */
export interface Output {
  counts: Map<string, number>;
  remap: Uint32Array;
  isRepresentative: (i: number) => boolean;
  /** New coordinates of the representatives, in welded order (dedupe --mean). */
  moved: Float64Array | undefined;
  /** The x, y, z properties of the vertex element. */
  xyz: [number, number, number];
}

/**
 * The places (in the face's list) of the corners kept after welding: those
 * equal to the one before them (cyclically) go. Writes them to `places` and
 * returns how many; 0 when fewer than 3 distinct corners are left (the face
 * collapsed).
 */
export function keptCorners(items: ArrayLike<number>, length: number, remap: Uint32Array, places: Uint32Array): number {
  let kept = 0;
  for (let k = 0; k < length; k++) {
    const v = remap[items[k]!]!;
    if (kept === 0 || remap[items[places[kept - 1]!]!] !== v) places[kept++] = k;
  }
  while (kept > 1 && remap[items[places[kept - 1]!]!] === remap[items[places[0]!]!]) kept--;
  if (kept < 3) return 0;
  if (kept > 3) {
    // Cyclic runs are gone; a polygon that doubles back (a b a c) may still have fewer than 3 distinct corners.
    let distinct = 0;
    for (let k = 0; k < kept && distinct < 3; k++) {
      const v = remap[items[places[k]!]!];
      let seen = false;
      for (let j = 0; j < k && !seen; j++) seen = remap[items[places[j]!]!] === v;
      if (!seen) distinct++;
    }
    if (distinct < 3) return 0;
  }
  return kept;
}

/** Scratch room for one face's corners, grown for long polygons. */
export class FaceScratch {
  items = new Float64Array(16);
  places = new Uint32Array(16);

  reserve(length: number): void {
    if (length <= this.items.length) return;
    this.items = new Float64Array(length);
    this.places = new Uint32Array(length);
  }
}

/**
 * Renumbers a face or edge record in place through `remap`; false when the
 * face collapsed. A face's per-corner lists (texcoord: 2 numbers a corner)
 * lose the corners its index list loses.
 */
export function renumber(plan: Plan, record: PlyRecord, remap: Uint32Array, scratch: FaceScratch): boolean {
  if (plan.role === 'edge') {
    for (const k of plan.ends) if (k >= 0) record[k] = remap[record[k] as number]!;
    return true;
  }
  const items = record[plan.list] as number[];
  scratch.reserve(items.length);
  const kept = keptCorners(items, items.length, remap, scratch.places);
  if (kept === 0) return false;
  const places = Array.from(scratch.places.subarray(0, kept));
  if (kept < items.length) {
    for (const [k, value] of record.entries()) {
      if (k === plan.list || !Array.isArray(value) || value.length % items.length !== 0) continue;
      const per = value.length / items.length;
      record[k] = places.flatMap((c) => value.slice(c * per, (c + 1) * per));
    }
  }
  record[plan.list] = places.map((k) => remap[items[k]!]!);
  return true;
}
