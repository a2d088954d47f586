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
import { type WeldByDistanceReport, weldByDistance } from 'spatialhash/gltf-transform';
import { UsageError } from './errors.js';
import type { KeptApart } from './summary.js';

/**
 * One attribute compared while welding: `size` values per vertex, equal or
 * within `tolerance`. Several channels may share a name (OBJ's colour): they
 * are one attribute then, compared with one tolerance (each channel's must be
 * the same), and a vertex counts once for it in `keptApart`.
 */
export interface VertexAttribute {
  /** The name the options use (`normal`, `color`, ...). */
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
 * merge only if every attribute is within its own tolerance (0: equal). Each
 * attribute name is one semantic of the document: its first channel the
 * attribute, the others morph targets of it, which weldByDistance compares
 * with the same tolerance and counts under the same semantic in its report
 * (the summary's keptApart, see {@link KeptApart}).
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
  const accessor = (type: keyof typeof TYPES, array: Float32Array | Float64Array) =>
    document
      .createAccessor()
      .setType(TYPES[type])
      .setArray(array as Float64Array<ArrayBuffer>);
  primitive.setAttribute('POSITION', accessor(3, positions));
  const names = [...new Set(compared.map((attribute) => attribute.name))];
  const attributeTolerances: Record<string, number> = {};
  const targets: ReturnType<Document['createPrimitiveTarget']>[] = [];
  for (const [g, name] of names.entries()) {
    const channels = compared.filter((attribute) => attribute.name === name);
    const semantic = `_A${g}`;
    attributeTolerances[semantic] = channels[0]!.tolerance;
    for (const [k, channel] of channels.entries()) {
      if (channel.tolerance !== channels[0]!.tolerance)
        throw new Error(`weldVertices: the channels of ${name} have different tolerances`);
      if (k === 0) {
        primitive.setAttribute(semantic, accessor(channel.size, channel.values));
        continue;
      }
      while (targets.length < k) {
        const target = document.createPrimitiveTarget();
        primitive.addTarget(target);
        targets.push(target);
      }
      targets[k - 1]!.setAttribute(semantic, accessor(channel.size, channel.values));
    }
  }
  document.createMesh().addPrimitive(primitive);
  let report: WeldByDistanceReport = { keptApart: {} };
  // Synchronous: weldByDistance's Transform does all its work in the call.
  weldByDistance({ tolerance, attributeTolerances, report: (r) => (report = r) })(document);
  const remap = Uint32Array.from(primitive.getIndices()!.getArray()!);
  const count = primitive.getAttribute('POSITION')!.getCount();
  const representatives = new Uint32Array(count);
  // Welded vertex r is founded by the first vertex that maps to it (representatives come in vertex order).
  let next = 0;
  for (let i = 0; i < remap.length && next < count; i++) if (remap[i] === next) representatives[next++] = i;
  const keptApart = names.flatMap((name, g) => {
    const vertices = report.keptApart[`_A${g}`];
    return vertices === undefined ? [] : [{ attribute: name, vertices }];
  });
  return keptApart.length === 0 ? { remap, representatives, count } : { remap, representatives, count, keptApart };
}

/**
 * Checks that every name given to --ignore and --attribute-tolerance is an
 * attribute of the file (`available`, positions not included), or throws a
 * UsageError naming the attributes it has, for every format: a misspelt name
 * would otherwise change nothing, silently. A name that differs only in case
 * gets a did-you-mean. `note` explains, when the file has none, what the
 * format keeps elsewhere. `aliases` maps names that are part of an attribute
 * (a PLY property of a group) to the attribute, for a hint.
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
    if (part !== undefined) {
      throw new UsageError(
        `weld: ${flag} ${name}: in ${file}, "${name}" is part of the attribute "${part}", compared as one: use ${flag} ${part}`,
      );
    }
    const near = available.find((known) => known.toLowerCase() === name.toLowerCase());
    const hint = near === undefined ? '' : ` (did you mean ${near}? names are case-sensitive)`;
    const has =
      available.length === 0
        ? `it has no vertex attributes besides positions${note === '' ? '' : ` (${note})`}`
        : `its vertex attributes are ${available.join(', ')}`;
    throw new UsageError(`weld: ${flag} ${name}: ${file} has no vertex attribute "${name}"${hint}; ${has}`);
  }
}
