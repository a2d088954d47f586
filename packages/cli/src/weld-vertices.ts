/**
 * Welding vertices that carry attributes (PLY normals and colours, OBJ vertex
 * colours), through the public API: spatialhash/gltf-transform's
 * weldByDistance on a throwaway glTF-Transform document holding one point
 * primitive. Its vertices are welded in index order with every attribute as
 * an extra condition, exactly weld's rule, and the point index it writes is
 * the remap. Without attributes, plain `weld` does the same with less memory.
 *
 * When attributes keep vertices apart, {@link weldVertices} also says which
 * (see {@link KeptApart}), so the summary can name the `--ignore` flags that
 * would merge them; and {@link checkAttributeNames} turns an attribute name
 * the file does not have into an error instead of a silent "0 merged".
 *
 * @module
 */

import { Document, Logger } from '@gltf-transform/core';
import { weld } from 'spatialhash';
import { weldByDistance } from 'spatialhash/gltf-transform';
import { UsageError } from './errors.js';
import type { KeptApart } from './summary.js';

/** One attribute compared while welding: `size` values per vertex, equal or within `tolerance`. */
export interface VertexAttribute {
  /** The name the options use (`normal`, `color`, ...); several channels may share one. */
  name: string;
  size: 1 | 2 | 3 | 4;
  values: Float64Array;
  tolerance: number;
}

/** What weld returns: each vertex's welded number, and each welded vertex's founder. */
export interface Welded {
  remap: Uint32Array;
  representatives: Uint32Array;
  count: number;
  /** Per attribute that kept vertices apart, how many (see {@link KeptApart}); undefined when none did. */
  keptApart?: KeptApart[];
}

const TYPES = { 1: 'SCALAR', 2: 'VEC2', 3: 'VEC3', 4: 'VEC4' } as const;

/**
 * Welds `positions` (xyz per vertex) within `tolerance`, where two vertices
 * merge only if every attribute is within its own tolerance (0: equal).
 */
export function weldVertices(
  positions: Float32Array | Float64Array,
  tolerance: number,
  compared: readonly VertexAttribute[],
): Welded {
  if (compared.length === 0) return weld(positions, tolerance);
  const document = new Document().setLogger(new Logger(Logger.Verbosity.SILENT));
  const primitive = document.createPrimitive().setMode(0);
  // glTF-Transform's array type names ArrayBuffer-backed arrays only; ours are, though TypeScript cannot tell.
  const asAccessorArray = (array: Float32Array | Float64Array) => array as Float64Array<ArrayBuffer>;
  primitive.setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(asAccessorArray(positions)));
  for (const [k, attribute] of compared.entries()) {
    const semantic = `_A${k}`;
    primitive.setAttribute(
      semantic,
      document.createAccessor().setType(TYPES[attribute.size]).setArray(asAccessorArray(attribute.values)),
    );
  }
  document.createMesh().addPrimitive(primitive);
  const attributeTolerances = Object.fromEntries(compared.map((attribute, k) => [`_A${k}`, attribute.tolerance]));
  // Synchronous: weldByDistance's Transform does all its work in the call.
  weldByDistance({ tolerance, attributeTolerances })(document);
  const remap = Uint32Array.from(primitive.getIndices()!.getArray()!);
  const count = primitive.getAttribute('POSITION')!.getCount();
  const representatives = new Uint32Array(count);
  // Welded vertex r is founded by the first vertex that maps to it (representatives come in vertex order).
  let next = 0;
  for (let i = 0; i < remap.length && next < count; i++) if (remap[i] === next) representatives[next++] = i;
  const keptApart = keptApartBy(positions, tolerance, compared, count);
  return keptApart === undefined ? { remap, representatives, count } : { remap, representatives, count, keptApart };
}

/**
 * Which attributes kept vertices apart: welds the positions alone (weld's
 * rule without attributes), and when that leaves fewer vertices than
 * `weldedCount`, counts per attribute the vertices that joined a vertex by
 * position but differ from it in that attribute beyond its tolerance
 * (Euclidean, as weldByDistance compares). Undefined when the attributes
 * kept nothing apart. Exported for the glTF path, which fills the same field.
 */
export function keptApartBy(
  positions: Float32Array | Float64Array,
  tolerance: number,
  attributes: readonly VertexAttribute[],
  weldedCount: number,
): KeptApart[] | undefined {
  const byPosition = weld(positions, tolerance);
  if (byPosition.count >= weldedCount) return undefined;
  const counts = new Map<string, number>();
  for (const attribute of attributes) if (!counts.has(attribute.name)) counts.set(attribute.name, 0);
  const { remap, representatives } = byPosition;
  const n = remap.length;
  // A vertex is counted once per attribute name, even when the name has several channels.
  const differs = new Map<string, Uint8Array>();
  for (const attribute of attributes) {
    const marks = differs.get(attribute.name) ?? new Uint8Array(n);
    differs.set(attribute.name, marks);
    const { size, values } = attribute;
    const reach = attribute.tolerance * attribute.tolerance;
    for (let i = 0; i < n; i++) {
      const founder = representatives[remap[i]!]!;
      if (founder === i || marks[i] === 1) continue;
      let squared = 0;
      for (let c = 0; c < size; c++) {
        const d = values[i * size + c]! - values[founder * size + c]!;
        squared += d * d;
      }
      if (squared > reach) marks[i] = 1;
    }
  }
  const result: KeptApart[] = [];
  for (const [name, marks] of differs) {
    let vertices = 0;
    for (let i = 0; i < n; i++) vertices += marks[i]!;
    if (vertices > 0) result.push({ attribute: name, vertices });
  }
  return result.length > 0 ? result : undefined;
}

/**
 * Checks that every name given to --ignore and --attribute-tolerance is an
 * attribute of the file (`available`), or throws a UsageError naming the
 * attributes it has: a misspelt name would otherwise change nothing, silently.
 * `note` explains, when the file has none, what the format keeps elsewhere.
 * `aliases` maps names that are part of an attribute (a PLY property of a
 * group) to the attribute, for a hint.
 */
export function checkAttributeNames(
  file: string,
  available: readonly string[],
  options: { tolerances: ReadonlyMap<string, number>; ignore: ReadonlySet<string> },
  note = '',
  aliases: ReadonlyMap<string, string> = new Map(),
): void {
  const given: [string, string][] = [
    ...[...options.ignore].map((name): [string, string] => ['--ignore', name]),
    ...[...options.tolerances.keys()].map((name): [string, string] => ['--attribute-tolerance', name]),
  ];
  for (const [flag, name] of given) {
    if (available.includes(name)) continue;
    const part = aliases.get(name);
    const has =
      available.length === 0
        ? `it has no vertex attributes besides positions${note === '' ? '' : ` (${note})`}`
        : `its vertex attributes are ${available.join(', ')}`;
    throw new UsageError(
      part === undefined
        ? `weld: ${flag} ${name}: ${file} has no vertex attribute "${name}"; ${has}`
        : `weld: ${flag} ${name}: in ${file}, "${name}" is part of the attribute "${part}", compared as one: use ${flag} ${part}`,
    );
  }
}
