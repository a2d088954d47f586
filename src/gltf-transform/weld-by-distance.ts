/**
 * weldByDistance: weld's rule applied to every primitive of a glTF-Transform
 * Document, with the other attributes and the morph targets as extra
 * conditions (the same test as weldGeometry in spatialhash/three). The whole
 * document is planned before anything changes, so a rejected transform
 * leaves the document as it was.
 *
 * Nothing here is imported from `@gltf-transform/core` at run time: the
 * Document passed in creates the new accessors, so the subpath loads no
 * second copy of glTF-Transform and works with whichever one the caller has.
 *
 * @module
 */

import type { Accessor, Document, Mesh, Primitive, PrimitiveTarget, Transform } from '@gltf-transform/core';
import { checkFiniteDistance, describe } from '../core/validate.js';
import {
  type AttributeChannel,
  type AttributeTest,
  type AttributeValues,
  attributeTest,
  readValues,
} from '../weld/attribute-test.js';
import { weldWithTest } from '../weld/weld.js';

/** Options of {@link weldByDistance}. */
export interface WeldByDistanceOptions {
  /**
   * Largest distance at which two vertices merge, in the units of the
   * POSITION accessors (model space, before node transforms; for quantized
   * positions, the values the shader reads), >= 0. 0 merges equal positions
   * only (+0 equal to -0).
   */
  tolerance: number;
  /**
   * Largest difference, per attribute semantic, at which two vertices may
   * still merge: the Euclidean distance between their values of that
   * attribute (all components, as the shader reads them: normalized integers
   * in [0, 1] or [-1, 1]), e.g. `{ NORMAL: 0.01, TEXCOORD_0: 1e-4 }`. The
   * same tolerance applies to the attribute's morph targets (POSITION targets
   * use `tolerance`). Attributes neither listed here nor in `ignore` must be
   * equal (tolerance 0), skinning (JOINTS_n, WEIGHTS_n) and colours
   * included, so vertices that skin, colour or morph differently never
   * merge. Default `{}`.
   */
  attributeTolerances?: Readonly<Record<string, number>> | undefined;
  /**
   * Attribute semantics left out of the comparison (with their morph
   * targets): vertices merge whatever their values, and each welded vertex
   * keeps the values of the vertex that founded it. Default `[]`.
   */
  ignore?: readonly string[] | undefined;
  /**
   * Drop triangles (mode TRIANGLES) with two corners on one welded vertex,
   * and lines (mode LINES) whose ends weld together, then any vertex only
   * they used. A primitive left with nothing to draw is removed, and a mesh
   * left with no primitive too. Other modes keep every index. Default true.
   */
  removeDegenerate?: boolean | undefined;
  /**
   * Called once the document is welded with what the attribute rule did
   * (see {@link WeldByDistanceReport}), e.g. to tell a user which
   * attributes to ignore or give a tolerance. Not called when the transform
   * throws. Costs one more weld, by positions alone, of each primitive whose
   * attributes kept a vertex from a representative in reach. Default: none.
   */
  report?: ((report: WeldByDistanceReport) => void) | undefined;
}

/** What {@link weldByDistance} passes to `options.report`. */
export interface WeldByDistanceReport {
  /**
   * Per attribute semantic, the vertices that semantic kept apart, counted
   * against the weld by positions alone (weld's rule without attributes, in
   * the same order): a vertex counts for a semantic when, by positions
   * alone, it would join a vertex whose values of that semantic (or of one of
   * its morph targets) are farther from its own than the semantic's
   * tolerance. A vertex that differs in several semantics counts once for
   * each, so ignoring every semantic listed gives the weld by positions
   * alone. The counts of all primitives are summed. Only semantics that kept
   * a vertex apart appear; `{}` exactly when the attributes changed nothing
   * (the weld is the one by positions alone).
   */
  keptApart: Record<string, number>;
}

/** glTF primitive modes (glTF 2.0 mesh.primitive.mode) that degenerate removal understands. */
const MODE_LINES = 1;
const MODE_TRIANGLES = 4;

/** Largest vertex count a Uint16 index holds: 65535 is the restart value glTF forbids as an index. */
const UINT16_VERTICES = 65535;

interface ReadOptions {
  tolerance: number;
  attributeTolerances: Map<string, number>;
  ignored: Set<string>;
  removeDegenerate: boolean;
  report: ((report: WeldByDistanceReport) => void) | undefined;
}

/** The new arrays of one primitive (or of several that share all their accessors), computed before any change. */
interface Plan {
  /** Vertices drawn after welding: 0 means the primitive goes. */
  vertexCount: number;
  indices: Uint16Array<ArrayBuffer> | Uint32Array<ArrayBuffer>;
  /** For each output vertex, the input vertex whose values it takes. */
  founders: Uint32Array;
  /** Per semantic, the vertices it kept apart (see WeldByDistanceReport); empty without options.report. */
  keptApart: Map<string, number>;
  /** Filled in when applied: the accessors every primitive with this plan gets, by the accessor they replace. */
  applied: Map<Accessor, Accessor>;
  appliedIndices?: Accessor;
}

/**
 * A glTF-Transform `Transform` that welds the vertices of every mesh
 * primitive within `tolerance`: Blender's "Merge by Distance", exact (no pair
 * within the tolerance is missed, whatever grid the values sit on), for
 * `document.transform(weldByDistance({ tolerance: 1e-4 }))`.
 *
 * The rule, per primitive (weld's, with attributes): the vertices the
 * primitive draws are taken in the order its index first uses them (0, 1, 2,
 * ... without an index); each joins the nearest earlier representative (by
 * position) within `tolerance` whose every compared attribute and morph target
 * is within its own tolerance (see {@link WeldByDistanceOptions}; ties: the
 * earliest); if there is none, it becomes a representative. So within a
 * primitive no two output vertices are within the tolerance of each other
 * unless an attribute or morph target keeps them apart. With tolerance 0 and
 * no -0 or NaN in the data, the vertex count equals that of glTF-Transform's
 * exact `weld()`, which merges bitwise-equal vertices.
 *
 * The output: each primitive gets an index (Uint16 up to 65,535 vertices,
 * else Uint32) and new accessors holding one vertex per representative, its
 * values copied bit for bit from the vertex that founded it, in the input's
 * component type, normalization, buffer, name, extras and sparse flag; the
 * vertices come in first-use order and unused ones are gone (compacted).
 * Primitives are welded one by one, never against another's vertices: when
 * primitives share an accessor, each gets its own welded copy, except that
 * primitives sharing every accessor (index, attributes, targets) and mode
 * share the result. Accessors no longer used by anything are disposed.
 * Materials, extras, extensions and target names are untouched.
 *
 * Cost: O(n) per primitive of n vertices (as weld), plus the compared
 * attributes' values as float64 while welding.
 *
 * @param options tolerance (required), attributeTolerances, ignore, removeDegenerate, report.
 * @returns a Transform for `document.transform()`; it throws (and changes nothing) on a primitive whose
 * POSITION is not VEC3, whose positions are not finite, whose attributes or targets have another count than
 * its positions, or whose index holds a value that is not a vertex, naming the mesh and primitive.
 * @throws RangeError at once for a tolerance that is not a finite number >= 0, attributeTolerances whose
 * values are not, `POSITION` in attributeTolerances or ignore, or a semantic in both.
 */
export function weldByDistance(options: WeldByDistanceOptions): Transform {
  const read = readOptions(options);
  const transform: Transform = (document: Document) => {
    weldDocument(document, read);
  };
  Object.defineProperty(transform, 'name', { value: 'weldByDistance' });
  return transform;
}

function readOptions(options: WeldByDistanceOptions): ReadOptions {
  if (options === null || typeof options !== 'object') {
    throw new RangeError(
      `weldByDistance(options): options must be an object with a tolerance, got ${describe(options)}`,
    );
  }
  const { tolerance } = options;
  checkFiniteDistance('options.tolerance', tolerance);
  const ignored = new Set<string>();
  const ignore = options.ignore ?? [];
  if (!Array.isArray(ignore)) {
    throw new RangeError(`options.ignore must be an array of attribute semantics, got ${describe(ignore)}`);
  }
  for (const [k, name] of ignore.entries()) {
    if (typeof name !== 'string') {
      throw new RangeError(`options.ignore[${k}] must be an attribute semantic (a string), got ${describe(name)}`);
    }
    if (name === 'POSITION') {
      throw new RangeError('options.ignore cannot hold POSITION: positions are what weldByDistance welds by');
    }
    ignored.add(name);
  }
  const attributeTolerances = new Map<string, number>();
  const tolerances = options.attributeTolerances ?? {};
  if (tolerances === null || typeof tolerances !== 'object' || Array.isArray(tolerances)) {
    throw new RangeError(
      `options.attributeTolerances must be an object of attribute semantic -> tolerance, got ${describe(tolerances)}`,
    );
  }
  for (const [name, value] of Object.entries(tolerances)) {
    if (name === 'POSITION') {
      throw new RangeError(
        'options.attributeTolerances cannot hold POSITION: the position tolerance is options.tolerance',
      );
    }
    if (ignored.has(name)) {
      throw new RangeError(`options.attributeTolerances.${name}: ${name} is also in options.ignore; pick one`);
    }
    checkFiniteDistance(`options.attributeTolerances.${name}`, value);
    attributeTolerances.set(name, value);
  }
  const removeDegenerate = options.removeDegenerate ?? true;
  if (typeof removeDegenerate !== 'boolean') {
    throw new RangeError(`options.removeDegenerate must be a boolean, got ${describe(removeDegenerate)}`);
  }
  const report = options.report;
  if (report !== undefined && typeof report !== 'function') {
    throw new RangeError(`options.report must be a function, got ${describe(report)}`);
  }
  return { tolerance, attributeTolerances, ignored, removeDegenerate, report };
}

/** Plans every primitive, then applies the plans: nothing changes unless every primitive could be planned. */
function weldDocument(document: Document, options: ReadOptions): void {
  const root = document.getRoot();
  const plans = new Map<string, Plan>();
  const planOf = new Map<Primitive, { plan: Plan; mesh: Mesh; inputs: Inputs }>();
  const ids = new Map<Accessor, number>();
  const idOf = (accessor: Accessor | null) => {
    if (accessor === null) return -1;
    let id = ids.get(accessor);
    if (id === undefined) {
      id = ids.size;
      ids.set(accessor, id);
    }
    return id;
  };
  const seen = new Set<string>();
  for (const [m, mesh] of root.listMeshes().entries()) {
    for (const [p, primitive] of mesh.listPrimitives().entries()) {
      const position = primitive.getAttribute('POSITION');
      // Nothing to weld by: left as it is.
      if (position === null || position.getCount() === 0) continue;
      for (const semantic of primitive.listSemantics()) seen.add(semantic);
      const key = planKey(primitive, idOf);
      let plan = plans.get(key);
      if (plan === undefined) {
        plan = planPrimitive(primitive, position, options, `${meshName(mesh, m)}, primitive ${p}`);
        plans.set(key, plan);
      }
      planOf.set(primitive, { plan, mesh, inputs: inputsOf(primitive) });
    }
  }
  for (const name of [...options.attributeTolerances.keys(), ...options.ignored]) {
    if (!seen.has(name)) {
      document
        .getLogger()
        .warn(`weldByDistance: no primitive has a ${name} attribute (semantics seen: ${[...seen].join(', ')})`);
    }
  }

  const keptApart: Record<string, number> = {};
  for (const plan of plans.values()) {
    for (const [semantic, vertices] of plan.keptApart) keptApart[semantic] = (keptApart[semantic] ?? 0) + vertices;
  }

  const replaced = new Set<Accessor>();
  const emptied = new Set<Mesh>();
  const targetPlans = new Map<PrimitiveTarget, Plan>();
  for (const [primitive, { plan, mesh, inputs }] of planOf) {
    if (!applyPlan(document, primitive, plan, inputs, replaced, targetPlans)) emptied.add(mesh);
  }
  for (const accessor of replaced) {
    // The root is the only parent left: nothing uses it any more.
    if (accessor.listParents().every((parent) => parent === root)) accessor.dispose();
  }
  // Only meshes this transform emptied: one that came without primitives is the caller's business.
  for (const mesh of emptied) if (mesh.listPrimitives().length === 0) mesh.dispose();
  options.report?.({ keptApart });
}

function meshName(mesh: Mesh, index: number): string {
  const name = mesh.getName();
  return name === '' ? `mesh ${index}` : `mesh ${index} (${JSON.stringify(name)})`;
}

/** Primitives with equal keys read the very same accessors the same way, so they get the same result. */
function planKey(primitive: Primitive, idOf: (accessor: Accessor | null) => number): string {
  const parts = [String(primitive.getMode()), String(idOf(primitive.getIndices()))];
  for (const semantic of primitive.listSemantics()) parts.push(`${semantic}=${idOf(primitive.getAttribute(semantic))}`);
  for (const target of primitive.listTargets()) {
    parts.push('|');
    for (const semantic of target.listSemantics()) parts.push(`${semantic}=${idOf(target.getAttribute(semantic))}`);
  }
  return parts.join(' ');
}

/** An accessor's values as a packed strided view, or an Error naming it when it holds none. */
function valuesOf(accessor: Accessor, where: string): AttributeValues {
  const array = accessor.getArray();
  if (array === null) {
    throw new Error(`weldByDistance: ${where} has no data (a compressed or unloaded accessor?)`);
  }
  const itemSize = accessor.getElementSize();
  return {
    array,
    stride: itemSize,
    offset: 0,
    itemSize,
    count: accessor.getCount(),
    normalized: accessor.getNormalized(),
  };
}

function planPrimitive(primitive: Primitive, position: Accessor, options: ReadOptions, where: string): Plan {
  const { tolerance, attributeTolerances, ignored } = options;
  if (position.getType() !== 'VEC3') {
    throw new RangeError(`weldByDistance: ${where}: POSITION must be VEC3, got ${position.getType()}`);
  }
  const n = position.getCount();
  const corners = readCorners(primitive, n, where);
  const cornerCount = corners === undefined ? n : corners.length;

  // Vertices in first-use order: `order[k]` is weld's vertex k, `slot[v]` the place of input vertex v (-1: unused).
  // Without an index that order is 0 .. n - 1 (identity: no arrays, `used` undefined).
  let slot: Int32Array | undefined;
  let used: Uint32Array | undefined;
  let m = n;
  if (corners !== undefined) {
    slot = new Int32Array(n).fill(-1);
    const order = new Uint32Array(n);
    m = 0;
    for (let k = 0; k < cornerCount; k++) {
      const v = corners[k]!;
      if (slot[v]! < 0) {
        slot[v] = m;
        order[m++] = v;
      }
    }
    used = order.subarray(0, m);
  }
  const inputVertex = (k: number) => (used === undefined ? k : used[k]!);

  const channels: AttributeChannel[] = [];
  // The semantic of each channel, for the report (a morph target's counts under its semantic).
  const semantics: string[] = [];
  const compare = (accessor: Accessor, label: string, semantic: string, toleranceOf: number | undefined) => {
    const values = valuesOf(accessor, `${where}: ${label}`);
    if (values.count !== n) {
      throw new RangeError(`weldByDistance: ${where}: ${label} has ${values.count} elements, POSITION has ${n}`);
    }
    if (toleranceOf !== undefined) {
      channels.push({ values, tolerance: toleranceOf });
      semantics.push(semantic);
    }
  };
  // POSITION targets within the position tolerance; other semantics by their own, or equal, or not at all.
  const toleranceOf = (semantic: string) =>
    semantic === 'POSITION' ? tolerance : ignored.has(semantic) ? undefined : (attributeTolerances.get(semantic) ?? 0);
  for (const semantic of primitive.listSemantics()) {
    if (semantic !== 'POSITION') compare(primitive.getAttribute(semantic)!, semantic, semantic, toleranceOf(semantic));
  }
  for (const [t, target] of primitive.listTargets().entries()) {
    for (const semantic of target.listSemantics()) {
      compare(target.getAttribute(semantic)!, `target ${t} ${semantic}`, semantic, toleranceOf(semantic));
    }
  }

  const positions = positionsForWeld(position, used, m, where);
  const test = channels.length === 0 ? undefined : attributeTest(channels, m, used);
  let welding: ReturnType<typeof weldWithTest>;
  try {
    welding = weldWithTest(`${where}: POSITION`, positions, 3, tolerance, test?.accept);
  } catch (error) {
    // The weld names the vertex by its place in first-use order: named again by its number in the input.
    if (error instanceof RangeError) nonFinitePosition(positions, inputVertex, where);
    throw error;
  }
  const { remap, representatives } = welding;
  let count = welding.count;
  // A weld whose attribute test never said no is the weld by positions alone: nothing was kept apart.
  const keptApart =
    options.report === undefined || test === undefined || test.refusals() === 0
      ? new Map<string, number>()
      : keptApartIn(positions, tolerance, test, semantics, where);

  const mode = primitive.getMode();
  const step = !options.removeDegenerate ? 0 : mode === MODE_TRIANGLES ? 3 : mode === MODE_LINES ? 2 : 0;
  // Each corner's welded vertex, then the degenerate elements squeezed out in place.
  const welded = new Uint32Array(cornerCount);
  if (slot === undefined) welded.set(remap.subarray(0, cornerCount));
  else for (let k = 0; k < cornerCount; k++) welded[k] = remap[slot[corners![k]!]!]!;
  let written = cornerCount;
  if (step !== 0 && cornerCount % step === 0) {
    written = 0;
    for (let k = 0; k < cornerCount; k += step) {
      const a = welded[k]!;
      const b = welded[k + 1]!;
      const c = step === 3 ? welded[k + 2]! : -1;
      if (a === b || b === c || a === c) continue;
      welded[written] = a;
      welded[written + 1] = b;
      if (step === 3) welded[written + 2] = c;
      written += step;
    }
  }

  // Representatives only dropped triangles used go too; the rest keep their order (first use, as welded).
  let newNumber: Int32Array | undefined;
  if (written < cornerCount) {
    newNumber = new Int32Array(count).fill(-1);
    for (let k = 0; k < written; k++) newNumber[welded[k]!] = 0;
    let kept = 0;
    for (let r = 0; r < count; r++) if (newNumber[r] === 0) newNumber[r] = kept++;
    const founders = new Uint32Array(kept);
    for (let r = 0; r < count; r++) if (newNumber[r]! >= 0) founders[newNumber[r]!] = inputVertex(representatives[r]!);
    for (let k = 0; k < written; k++) welded[k] = newNumber[welded[k]!]!;
    count = kept;
    return {
      vertexCount: count,
      indices: indexArray(welded.subarray(0, written), count),
      founders,
      keptApart,
      applied: new Map(),
    };
  }
  const founders = used === undefined ? representatives.slice(0, count) : new Uint32Array(count);
  if (used !== undefined) for (let r = 0; r < count; r++) founders[r] = used[representatives[r]!]!;
  return { vertexCount: count, indices: indexArray(welded, count), founders, keptApart, applied: new Map() };
}

/**
 * The report's counts for one primitive (see {@link WeldByDistanceReport}):
 * the weld by positions alone, then per semantic the vertices that join
 * there a vertex they differ from in that semantic (channel `c` is one of
 * `semantics[c]`: the attribute or a morph target of it; a vertex counts
 * once per semantic). Vertex numbers are weld's (first-use order), as the
 * test's.
 */
function keptApartIn(
  positions: Float32Array | Float64Array,
  tolerance: number,
  test: AttributeTest,
  semantics: readonly string[],
  where: string,
): Map<string, number> {
  const keptApart = new Map<string, number>();
  const { remap, representatives } = weldWithTest(`${where}: POSITION`, positions, 3, tolerance, undefined);
  // The last vertex counted for each semantic: its channels are asked in turn, and the vertex counts once.
  const counted = new Map<string, number>();
  for (let i = 0; i < remap.length; i++) {
    const founder = representatives[remap[i]!]!;
    if (founder === i) continue;
    for (let c = 0; c < semantics.length; c++) {
      const semantic = semantics[c]!;
      if (counted.get(semantic) === i || !test.differs(c, i, founder)) continue;
      counted.set(semantic, i);
      keptApart.set(semantic, (keptApart.get(semantic) ?? 0) + 1);
    }
  }
  return keptApart;
}

/**
 * The positions weld reads, in first-use order (`used`; undefined: all, in
 * order): a packed float32 POSITION without an index is handed over as it
 * is (the weld reads float32 in place, widened exactly), anything else is
 * gathered as float64 values (normalized integers as the shader reads them).
 */
function positionsForWeld(
  position: Accessor,
  used: Uint32Array | undefined,
  m: number,
  where: string,
): Float32Array | Float64Array {
  const values = valuesOf(position, `${where}: POSITION`);
  if (used === undefined && values.array instanceof Float32Array && values.array.length === m * 3) return values.array;
  const coords = new Float64Array(m * 3);
  readValues(values, coords, 3, 0, used);
  return coords;
}

/** Throws the error naming the first non-finite position by its input vertex number, if there is one. */
function nonFinitePosition(
  coords: Float32Array | Float64Array,
  inputVertex: (k: number) => number,
  where: string,
): void {
  for (let j = 0; j < coords.length; j++) {
    if (!Number.isFinite(coords[j])) {
      throw new RangeError(
        `weldByDistance: ${where}: POSITION of vertex ${inputVertex(Math.floor(j / 3))} has a non-finite ${'xyz'[j % 3]} (${coords[j]})`,
      );
    }
  }
}

/** The index values (checked), or undefined for a primitive without an index. */
function readCorners(primitive: Primitive, n: number, where: string): ArrayLike<number> | undefined {
  const indices = primitive.getIndices();
  if (indices === null) return undefined;
  const { array } = valuesOf(indices, `${where}: indices`);
  const count = indices.getCount();
  for (let k = 0; k < count; k++) {
    const v = array[k]!;
    if (!(v >= 0 && v < n && Number.isInteger(v))) {
      throw new RangeError(
        `weldByDistance: ${where}: indices[${k}] is ${describe(v)}, not a vertex (POSITION has ${n} elements)`,
      );
    }
  }
  return array.length === count ? array : Array.prototype.slice.call(array, 0, count);
}

/** The welded index in the narrowest type glTF allows for `vertexCount` vertices. */
function indexArray(welded: Uint32Array, vertexCount: number): Uint16Array<ArrayBuffer> | Uint32Array<ArrayBuffer> {
  return vertexCount <= UINT16_VERTICES ? Uint16Array.from(welded) : welded.slice();
}

/** A new accessor like `source` (type, normalization, buffer, name, extras, sparse) holding the founders' elements. */
function gathered(document: Document, source: Accessor, founders: Uint32Array): Accessor {
  const array = source.getArray()!;
  const size = source.getElementSize();
  const Constructor = array.constructor as new (length: number) => typeof array;
  const values = new Constructor(founders.length * size);
  for (let v = 0; v < founders.length; v++) {
    const from = founders[v]! * size;
    for (let c = 0; c < size; c++) values[v * size + c] = array[from + c]!;
  }
  return document
    .createAccessor(source.getName(), source.getBuffer())
    .setType(source.getType())
    .setArray(values)
    .setNormalized(source.getNormalized())
    .setSparse(source.getSparse())
    .setExtras({ ...source.getExtras() });
}

/** A primitive's accessors as they were when planned: applying one primitive can change a target another shares. */
interface Inputs {
  indices: Accessor | null;
  attributes: [string, Accessor][];
  targets: { target: PrimitiveTarget; attributes: [string, Accessor][] }[];
}

function inputsOf(primitive: Primitive): Inputs {
  const attributesOf = (owner: Primitive | PrimitiveTarget) =>
    owner.listSemantics().map((semantic): [string, Accessor] => [semantic, owner.getAttribute(semantic)!]);
  return {
    indices: primitive.getIndices(),
    attributes: attributesOf(primitive),
    targets: primitive.listTargets().map((target) => ({ target, attributes: attributesOf(target) })),
  };
}

/**
 * Gives a primitive its welded accessors and index; returns false when it had
 * nothing left to draw and was removed. A morph target object shared with a
 * primitive of another plan (possible in memory, never in a file) is copied
 * rather than rewritten under the other primitive.
 */
function applyPlan(
  document: Document,
  primitive: Primitive,
  plan: Plan,
  inputs: Inputs,
  replaced: Set<Accessor>,
  targetPlans: Map<PrimitiveTarget, Plan>,
): boolean {
  if (inputs.indices !== null) replaced.add(inputs.indices);
  for (const [, accessor] of inputs.attributes) replaced.add(accessor);
  for (const { attributes } of inputs.targets) for (const [, accessor] of attributes) replaced.add(accessor);
  if (plan.vertexCount === 0) {
    primitive.dispose();
    return false;
  }
  const applied = plan.applied;
  const swap = (accessor: Accessor): Accessor => {
    let next = applied.get(accessor);
    if (next === undefined) {
      next = gathered(document, accessor, plan.founders);
      applied.set(accessor, next);
    }
    return next;
  };
  for (const [semantic, accessor] of inputs.attributes) primitive.setAttribute(semantic, swap(accessor));
  let copied = false;
  const targets = inputs.targets.map(({ target, attributes }) => {
    const owner = targetPlans.get(target);
    if (owner === plan) return target;
    let next = target;
    if (owner === undefined) targetPlans.set(target, plan);
    else {
      next = document.createPrimitiveTarget(target.getName()).setExtras({ ...target.getExtras() });
      copied = true;
    }
    for (const [semantic, accessor] of attributes) next.setAttribute(semantic, swap(accessor));
    return next;
  });
  if (copied) {
    // Removed and added back in order: a target's place is its morph weight's.
    for (const target of primitive.listTargets()) primitive.removeTarget(target);
    for (const target of targets) primitive.addTarget(target);
  }
  if (plan.appliedIndices === undefined) {
    const old = inputs.indices;
    const buffer = old?.getBuffer() ?? inputs.attributes[0]?.[1].getBuffer() ?? null;
    plan.appliedIndices = document
      .createAccessor(old?.getName() ?? '', buffer)
      .setType('SCALAR')
      .setArray(plan.indices)
      .setExtras({ ...old?.getExtras() });
  }
  primitive.setIndices(plan.appliedIndices);
  return true;
}
