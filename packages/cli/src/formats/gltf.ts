/**
 * glTF and GLB through glTF-Transform: the document is read with every
 * extension glTF-Transform knows (so materials and other extensions come
 * through), welded by spatialhash/gltf-transform's weldByDistance, and written
 * as .glb or .gltf (with its .bin and images beside it) through temporary
 * files. Compressed geometry (Draco, meshopt) needs its decoder, which this
 * tool does not carry: such files fail with glTF-Transform's message.
 *
 * @module
 */

import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { type Document, Logger, NodeIO, type Primitive } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { weldByDistance } from 'spatialhash/gltf-transform';
import { InputError } from '../errors.js';
import type { Counts, WeldJob } from '../summary.js';

const TRIANGLES = 4;

/** Vertices (each POSITION accessor once) and triangles the document's primitives draw. */
function census(document: Document): { vertices: number; triangles: number } {
  const seen = new Set<unknown>();
  let vertices = 0;
  let triangles = 0;
  const primitives: Primitive[] = document
    .getRoot()
    .listMeshes()
    .flatMap((mesh) => mesh.listPrimitives());
  for (const primitive of primitives) {
    const position = primitive.getAttribute('POSITION');
    if (position !== null && !seen.has(position)) {
      seen.add(position);
      vertices += position.getCount();
    }
    if (primitive.getMode() === TRIANGLES) {
      triangles += Math.floor((primitive.getIndices()?.getCount() ?? position?.getCount() ?? 0) / 3);
    }
  }
  return { vertices, triangles };
}

/** Welds a glTF or GLB file into `output` (.glb or .gltf, whichever its name ends with). */
export async function weldGltf({ input, output, tolerance, tolerances, ignore, progress }: WeldJob): Promise<Counts> {
  const io = new NodeIO().registerExtensions(ALL_EXTENSIONS).setLogger(new Logger(Logger.Verbosity.ERROR));
  let document: Document;
  progress.step('reading');
  try {
    document = await io.read(input);
  } catch (error) {
    throw new InputError(input, '', `cannot read as glTF: ${(error as Error).message}`);
  }
  const before = census(document);
  progress.step('welding');
  // Vertex counts before compaction: weldByDistance drops vertices no primitive draws along with the merged ones.
  const drawn = drawnVertices(document);
  await document.transform(
    weldByDistance({ tolerance, attributeTolerances: Object.fromEntries(tolerances), ignore: [...ignore] }),
  );
  const after = census(document);
  progress.step('writing');
  await writeDocument(io, document, output);
  return {
    format: input.toLowerCase().endsWith('.glb') ? 'GLB' : 'glTF',
    in: before.vertices,
    out: after.vertices,
    merged: drawn - after.vertices,
    unused: before.vertices - drawn,
    dropped: before.triangles - after.triangles,
  };
}

/** Vertices the primitives draw (their index's distinct values), each POSITION accessor's once per index. */
function drawnVertices(document: Document): number {
  let drawn = 0;
  const seen = new Set<string>();
  const ids = new Map<unknown, number>();
  const id = (x: unknown) => {
    if (!ids.has(x)) ids.set(x, ids.size);
    return ids.get(x)!;
  };
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION');
      if (position === null) continue;
      const indices = primitive.getIndices();
      const key = `${id(position)}:${id(indices)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const array = indices?.getArray();
      if (array === null || array === undefined) {
        drawn += position.getCount();
        continue;
      }
      const used = new Uint8Array(position.getCount());
      for (let k = 0; k < array.length; k++) {
        const v = array[k]!;
        if (used[v] === 0) {
          used[v] = 1;
          drawn++;
        }
      }
    }
  }
  return drawn;
}

/** Writes through temporary files: every resource of a .gltf first, the .gltf or .glb itself last. */
async function writeDocument(io: NodeIO, document: Document, output: string): Promise<void> {
  const temporary = (file: string) => join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const written: [string, string][] = [];
  try {
    if (extname(output).toLowerCase() === '.glb') {
      const glb = await io.writeBinary(document);
      written.push([temporary(output), output]);
      writeFileSync(temporary(output), glb);
    } else {
      // Buffers keep the names they were read with: cleared, they are named after the output, never over the input's .bin.
      for (const buffer of document.getRoot().listBuffers()) buffer.setURI('');
      const { json, resources } = await io.writeJSON(document, { basename: basename(output, extname(output)) });
      for (const [uri, data] of Object.entries(resources)) {
        const file = join(dirname(output), decodeURIComponent(uri));
        written.push([temporary(file), file]);
        writeFileSync(temporary(file), data);
      }
      written.push([temporary(output), output]);
      writeFileSync(temporary(output), JSON.stringify(json, null, 2));
    }
  } catch (error) {
    for (const [file] of written) rmSync(file, { force: true });
    throw error;
  }
  for (const [from, to] of written) renameSync(from, to);
}
