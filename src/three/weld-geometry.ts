/**
 * weldGeometry: `weld`'s definition applied to a three.js
 * BufferGeometry, with every other attribute (and morph target) as an extra
 * condition for two vertices to merge. The search is weld's own (exact, no
 * pair missed); the attribute conditions are tested inside it, on candidates
 * within the position tolerance only.
 *
 * @module
 */

import { BufferAttribute, BufferGeometry } from 'three';
import { checkFiniteDistance, describe } from '../core/validate.js';
import { type AttributeChannel, acceptWithin, readValues } from '../weld/attribute-test.js';
import { weldWithTest } from '../weld/weld.js';
import { type AnyAttribute, gatherAttribute, viewOf } from './attributes.js';

/** Options of {@link weldGeometry}. */
export interface WeldGeometryOptions {
  /**
   * Largest difference, per attribute name, at which two vertices may still
   * merge: the Euclidean distance between the two vertices' values of that
   * attribute (all its components, as the shader reads them: normalized
   * integers in [0, 1] or [-1, 1]), e.g. `{ normal: 0.01, uv: 1e-4 }`. The
   * same tolerance applies to the attribute's morph targets. Attributes
   * neither listed here nor in `ignore` must be equal (tolerance 0). Default `{}`.
   */
  attributeTolerances?: Readonly<Record<string, number>> | undefined;
  /**
   * Attribute names left out of the comparison (with their morph targets):
   * vertices merge whatever their values, and each welded vertex keeps the
   * values of the vertex that founded it. The attributes stay in the output;
   * `deleteAttribute` them if they are to be recomputed (`normal` before
   * computeVertexNormals). Default `[]`.
   */
  ignore?: readonly string[] | undefined;
  /**
   * Drop triangles with two corners on the same welded vertex, shifting
   * `groups` and `drawRange` to match. Needs triangles (index length, or
   * vertex count when not indexed, a multiple of 3). Default false: the index
   * keeps one entry per input corner, like mergeVertices.
   */
  removeDegenerate?: boolean | undefined;
}

/**
 * Welds a three.js BufferGeometry: returns a new indexed BufferGeometry whose
 * vertices are the input's, merged by this rule (weld's, with attributes):
 * vertices are taken in order (attribute order, 0 .. position.count - 1);
 * vertex i joins the nearest earlier representative (by position) that lies
 * within `tolerance` and whose every compared attribute is within its own
 * tolerance (see {@link WeldGeometryOptions}; ties: the lowest-numbered); if
 * there is none, i becomes a representative. No pair that meets the rule is
 * missed, whatever rounding grid the values sit on.
 *
 * What it compares: positions within `tolerance` (Euclidean, float64, as in
 * `weld`); every other attribute by its `attributeTolerances` entry
 * (Euclidean over its components), exactly when it has none, not at all when
 * it is in `ignore`; morph targets as their attribute (position targets within
 * `tolerance`), so vertices that morph apart never merge.
 *
 * The output: one vertex per representative, every attribute and morph target
 * taken from it, bit for bit, in the input's array type, `normalized` flag and
 * item size (interleaved input comes out as separate attributes). The index
 * (Uint16 up to 65,536 vertices, else Uint32) keeps every corner in its place,
 * so `groups` and `drawRange` stay valid and a triangle stays in its group;
 * vertices of different groups merge like any others (three.js draws a shared
 * vertex in each group that uses it). `name`, `morphTargetsRelative` and a
 * shallow copy of `userData` are carried over; bounds are left to recompute.
 * Unused vertices of an indexed input are kept, as weld keeps every vertex.
 *
 * Cost: O(n) for n vertices (as weld), plus the compared attributes' values
 * as float64 (8 bytes per component per vertex) while welding.
 *
 * @param geometry the geometry to weld; never modified.
 * @param tolerance largest distance at which two positions merge, in position units, >= 0 (0: equal positions).
 * @param options attributeTolerances, ignore, removeDegenerate.
 * @throws RangeError (or TypeError for a non-geometry) naming the argument: no position attribute or
 * one with an item size other than 2 or 3; a negative, NaN or infinite tolerance; an attribute tolerance
 * that is not a finite number >= 0; a name in attributeTolerances or ignore that the geometry does not
 * have, that is `position`, or that is in both; an attribute or morph target whose count differs from
 * the positions'; an index value that is not a vertex; a non-finite position; removeDegenerate on
 * input that is not whole triangles.
 */
export function weldGeometry(
  geometry: BufferGeometry,
  tolerance: number,
  options: WeldGeometryOptions = {},
): BufferGeometry {
  if (geometry === null || typeof geometry !== 'object' || typeof geometry.attributes !== 'object') {
    throw new TypeError(`geometry must be a three.js BufferGeometry, got ${describe(geometry)}`);
  }
  checkFiniteDistance('tolerance', tolerance);
  const { attributeTolerances, ignored, removeDegenerate } = readOptions(geometry, options);

  const position = geometry.attributes.position;
  if (position === undefined) {
    throw new RangeError('geometry.attributes.position is missing: weldGeometry welds by position');
  }
  const positionView = viewOf(position, 'geometry.attributes.position');
  const dimension = positionView.itemSize;
  if (dimension !== 2 && dimension !== 3) {
    throw new RangeError(`geometry.attributes.position.itemSize must be 2 or 3, got ${describe(dimension)}`);
  }
  const n = positionView.count;
  const channels = compareChannels(geometry, n, tolerance, attributeTolerances, ignored);
  const corners = readCorners(geometry, n, removeDegenerate);

  const coords = new Float64Array(n * dimension);
  readValues(positionView, coords, dimension, 0);
  const accept = channels.length === 0 ? undefined : acceptWithin(channels, n);
  const { remap, representatives, count } = weldWithTest(
    'geometry.attributes.position',
    coords,
    dimension,
    tolerance,
    accept,
  );
  const founders = representatives.subarray(0, count);

  const result = new BufferGeometry();
  result.name = geometry.name;
  result.userData = { ...geometry.userData };
  result.morphTargetsRelative = geometry.morphTargetsRelative;
  for (const [name, attribute] of Object.entries(geometry.attributes)) {
    result.setAttribute(name, gatherAttribute(attribute, viewOf(attribute, `geometry.attributes.${name}`), founders));
  }
  const resultMorphs = result.morphAttributes as Record<string, AnyAttribute[]>;
  for (const [name, targets] of Object.entries(morphsOf(geometry))) {
    resultMorphs[name] = targets.map((target, k) =>
      gatherAttribute(target, viewOf(target, `geometry.morphAttributes.${name}[${k}]`), founders),
    );
  }
  writeIndex(result, geometry, remap, corners, count, removeDegenerate);
  return result;
}

/** Morph targets by attribute name (three's types list only position, normal and color, but any name works). */
function morphsOf(geometry: BufferGeometry): Record<string, AnyAttribute[]> {
  return geometry.morphAttributes as Record<string, AnyAttribute[]>;
}

interface ReadOptions {
  attributeTolerances: Map<string, number>;
  ignored: Set<string>;
  removeDegenerate: boolean;
}

function readOptions(geometry: BufferGeometry, options: WeldGeometryOptions): ReadOptions {
  if (options === null || typeof options !== 'object') {
    throw new RangeError(`options must be an object, got ${describe(options)}`);
  }
  const has = (name: string) =>
    Object.hasOwn(geometry.attributes, name) || Object.hasOwn(geometry.morphAttributes, name);
  const known = () => Object.keys(geometry.attributes).join(', ');
  const ignored = new Set<string>();
  const ignore = options.ignore ?? [];
  if (!Array.isArray(ignore)) {
    throw new RangeError(`options.ignore must be an array of attribute names, got ${describe(ignore)}`);
  }
  for (const [k, name] of ignore.entries()) {
    if (name === 'position') {
      throw new RangeError('options.ignore cannot hold position: positions are what weldGeometry welds by');
    }
    if (typeof name !== 'string' || !has(name)) {
      throw new RangeError(`options.ignore[${k}] is not an attribute of the geometry (${known()}): ${describe(name)}`);
    }
    ignored.add(name);
  }
  const attributeTolerances = new Map<string, number>();
  const tolerances = options.attributeTolerances ?? {};
  if (tolerances === null || typeof tolerances !== 'object') {
    throw new RangeError(
      `options.attributeTolerances must be an object of attribute name -> tolerance, got ${describe(tolerances)}`,
    );
  }
  for (const [name, value] of Object.entries(tolerances)) {
    if (name === 'position') {
      throw new RangeError(
        "options.attributeTolerances cannot hold position: the position tolerance is weldGeometry's tolerance argument",
      );
    }
    if (!has(name)) {
      throw new RangeError(`options.attributeTolerances.${name}: the geometry has no such attribute (${known()})`);
    }
    if (ignored.has(name)) {
      throw new RangeError(`options.attributeTolerances.${name}: ${name} is also in options.ignore; pick one`);
    }
    checkFiniteDistance(`options.attributeTolerances.${name}`, value);
    attributeTolerances.set(name, value);
  }
  const removeDegenerate = options.removeDegenerate ?? false;
  if (typeof removeDegenerate !== 'boolean') {
    throw new RangeError(`options.removeDegenerate must be a boolean, got ${describe(removeDegenerate)}`);
  }
  return { attributeTolerances, ignored, removeDegenerate };
}

/** The attributes and morph targets to compare, each with its tolerance, after checking their counts. */
function compareChannels(
  geometry: BufferGeometry,
  n: number,
  tolerance: number,
  attributeTolerances: Map<string, number>,
  ignored: Set<string>,
): AttributeChannel[] {
  const channels: AttributeChannel[] = [];
  const add = (attribute: AnyAttribute, where: string, toleranceOf: number | undefined) => {
    const view = viewOf(attribute, where);
    if (view.count !== n) {
      throw new RangeError(`${where}.count must equal the position count (${n}), got ${view.count}`);
    }
    if (toleranceOf !== undefined) channels.push({ values: view, tolerance: toleranceOf });
  };
  for (const [name, attribute] of Object.entries(geometry.attributes)) {
    if (name === 'position') continue;
    add(attribute, `geometry.attributes.${name}`, ignored.has(name) ? undefined : (attributeTolerances.get(name) ?? 0));
  }
  for (const [name, targets] of Object.entries(morphsOf(geometry))) {
    if (!Array.isArray(targets)) {
      throw new RangeError(`geometry.morphAttributes.${name} must be an array of attributes, got ${describe(targets)}`);
    }
    const toleranceOf =
      name === 'position' ? tolerance : ignored.has(name) ? undefined : (attributeTolerances.get(name) ?? 0);
    targets.forEach((target, k) => {
      add(target, `geometry.morphAttributes.${name}[${k}]`, toleranceOf);
    });
  }
  return channels;
}

/** The corners (index values, or 0 .. n - 1 without an index) after checking them. */
function readCorners(geometry: BufferGeometry, n: number, removeDegenerate: boolean): ArrayLike<number> | undefined {
  const index = geometry.index;
  let cornerCount = n;
  let corners: ArrayLike<number> | undefined;
  if (index !== null && index !== undefined) {
    const array = index.array as ArrayLike<number>;
    cornerCount = index.count;
    for (let k = 0; k < cornerCount; k++) {
      const v = array[k]!;
      if (!(v >= 0 && v < n && Number.isInteger(v))) {
        throw new RangeError(`geometry.index[${k}] must be a vertex index in [0, ${n - 1}], got ${describe(v)}`);
      }
    }
    corners = array.length === cornerCount ? array : Array.prototype.slice.call(array, 0, cornerCount);
  }
  if (removeDegenerate && cornerCount % 3 !== 0) {
    throw new RangeError(
      `options.removeDegenerate needs triangles: the geometry has ${cornerCount} corners, not a multiple of 3`,
    );
  }
  return corners;
}

/**
 * Sets the welded index (every corner through `remap`, degenerate triangles
 * dropped when asked) and the groups and draw range, shifted past dropped
 * triangles.
 */
function writeIndex(
  result: BufferGeometry,
  geometry: BufferGeometry,
  remap: Uint32Array,
  corners: ArrayLike<number> | undefined,
  count: number,
  removeDegenerate: boolean,
): void {
  const cornerCount = corners === undefined ? remap.length : corners.length;
  const index = count <= 65536 ? new Uint16Array(cornerCount) : new Uint32Array(cornerCount);
  let written = 0;
  // keptBefore[t]: triangles kept before triangle t (only when removing).
  const keptBefore = removeDegenerate ? new Uint32Array(cornerCount / 3 + 1) : undefined;
  if (keptBefore === undefined) {
    for (let k = 0; k < cornerCount; k++) index[k] = remap[corners === undefined ? k : corners[k]!]!;
    written = cornerCount;
  } else {
    for (let k = 0; k < cornerCount; k += 3) {
      keptBefore[k / 3] = written / 3;
      const a = remap[corners === undefined ? k : corners[k]!]!;
      const b = remap[corners === undefined ? k + 1 : corners[k + 1]!]!;
      const c = remap[corners === undefined ? k + 2 : corners[k + 2]!]!;
      if (a === b || b === c || a === c) continue;
      index[written] = a;
      index[written + 1] = b;
      index[written + 2] = c;
      written += 3;
    }
    keptBefore[cornerCount / 3] = written / 3;
  }
  result.setIndex(new BufferAttribute(written === cornerCount ? index : index.slice(0, written), 1));
  // A corner position in the input's index -> the same place in the output's (groups and draw ranges start on triangles).
  const place = (corner: number) =>
    keptBefore === undefined || !Number.isFinite(corner)
      ? corner
      : 3 * keptBefore[Math.min(Math.ceil(corner / 3), cornerCount / 3)]!;
  for (const group of geometry.groups) {
    const start = place(group.start);
    result.addGroup(start, place(group.start + group.count) - start, group.materialIndex);
  }
  const { start, count: drawCount } = geometry.drawRange;
  const drawStart = place(start);
  result.setDrawRange(drawStart, place(start + drawCount) - drawStart);
}
