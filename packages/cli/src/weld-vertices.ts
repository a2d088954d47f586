/**
 * Welding vertices that carry attributes (PLY normals and colours, OBJ vertex
 * colours), through the public API: spatialhash/gltf-transform's
 * weldByDistance on a throwaway glTF-Transform document holding one point
 * primitive. Its vertices are welded in index order with every attribute as
 * an extra condition, exactly weld's rule, and the point index it writes is
 * the remap. Without attributes, plain `weld` does the same with less memory.
 *
 * @module
 */

import { Document, Logger } from '@gltf-transform/core';
import { weld } from 'spatialhash';
import { weldByDistance } from 'spatialhash/gltf-transform';

/** One attribute compared while welding: `size` values per vertex, equal or within `tolerance`. */
export interface VertexAttribute {
  size: 1 | 2 | 3 | 4;
  values: Float64Array;
  tolerance: number;
}

/** What weld returns: each vertex's welded number, and each welded vertex's founder. */
export interface Welded {
  remap: Uint32Array;
  representatives: Uint32Array;
  count: number;
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
  return { remap, representatives, count };
}
