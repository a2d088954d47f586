/**
 * Workload 10: spatialhash/gltf-transform's weldByDistance against
 * glTF-Transform's own exact weld (weldPrimitive, the synchronous core of its
 * weld() transform) on the same documents:
 *
 * - a torus as a triangle soup whose copies of each vertex are bit-identical
 *   (POSITION only), and a de-indexed TorusKnotGeometry (POSITION, NORMAL,
 *   TEXCOORD_0): at tolerance 0, with no -0 or NaN in the data, both must
 *   leave the same number of vertices (the harness checks it before timing);
 * - the same torus with each copy jittered by up to 0.2 x tolerance, as after
 *   a lossy export: an exact weld merges nothing, weldByDistance within 1e-4
 *   finds every original vertex.
 *
 * Each run builds its document from the same arrays (no copy) and welds it.
 *
 * @module
 */
import { Document, Logger } from '@gltf-transform/core';
import { weldPrimitive } from '@gltf-transform/functions';
import { TorusKnotGeometry } from 'three';
import { weldByDistance } from '../src/gltf-transform/index.js';
import { type Contender, measure, timingTable } from './harness.js';
import { torusSoup } from './torus.js';

const OURS = 'weldByDistance';
const TOLERANCE = 1e-4;

type Attributes = Record<string, { array: Float32Array<ArrayBuffer>; type: 'VEC2' | 'VEC3' }>;

/** A document with one non-indexed primitive over `attributes` (arrays shared, not copied). */
function documentOf(attributes: Attributes): Document {
  const document = new Document().setLogger(new Logger(Logger.Verbosity.SILENT));
  const buffer = document.createBuffer();
  const primitive = document.createPrimitive();
  for (const [semantic, { array, type }] of Object.entries(attributes)) {
    primitive.setAttribute(semantic, document.createAccessor(semantic, buffer).setType(type).setArray(array));
  }
  document.createMesh().addPrimitive(primitive);
  return document;
}

function vertexCount(document: Document): bigint {
  const primitive = document.getRoot().listMeshes()[0]!.listPrimitives()[0]!;
  return BigInt(primitive.getAttribute('POSITION')!.getCount());
}

function contenders(attributes: Attributes, tolerance: number): Contender[] {
  return [
    {
      name: OURS,
      run() {
        const document = documentOf(attributes);
        weldByDistance({ tolerance })(document);
        return vertexCount(document);
      },
    },
    {
      name: 'glTF-Transform weld()',
      // Exact: with a tolerance it merges less, judged by its count.
      unchecked: tolerance > 0,
      run() {
        const document = documentOf(attributes);
        for (const primitive of document.getRoot().listMeshes()[0]!.listPrimitives()) weldPrimitive(primitive);
        return vertexCount(document);
      },
    },
  ];
}

const count = (t: { answer: bigint }) => Number(t.answer).toLocaleString('en-US');

/** Runs workload 10 and returns its markdown section. */
export function gltfTransformBench(quick: boolean): string {
  const [around, along] = quick ? [100, 67] : [500, 334];
  const exact = { soup: torusSoup(around, along, 0, 10), distinct: around * along };
  const jittered = { soup: torusSoup(around, along, 0.2 * TOLERANCE, 10) };
  const knot = new TorusKnotGeometry(1, 0.3, quick ? 200 : 1000, quick ? 16 : 80).toNonIndexed();
  const knotAttributes: Attributes = {
    POSITION: { array: knot.getAttribute('position').array as Float32Array<ArrayBuffer>, type: 'VEC3' },
    NORMAL: { array: knot.getAttribute('normal').array as Float32Array<ArrayBuffer>, type: 'VEC3' },
    TEXCOORD_0: { array: knot.getAttribute('uv').array as Float32Array<ArrayBuffer>, type: 'VEC2' },
  };
  const rows: [string, string, ReturnType<typeof measure>][] = [];
  const run = (label: string, attributes: Attributes, tolerance: number) => {
    console.log(`  ${label}`);
    rows.push([
      label,
      String(tolerance),
      measure(label, contenders(attributes, tolerance), { reps: 5, slowMs: 3000, slowReps: 3 }),
    ]);
  };
  run('torus soup, exact copies', { POSITION: { array: exact.soup, type: 'VEC3' } }, 0);
  run('TorusKnot, de-indexed (POSITION, NORMAL, TEXCOORD_0)', knotAttributes, 0);
  run(
    'torus soup, copies jittered by 0.2 x tolerance',
    { POSITION: { array: jittered.soup, type: 'VEC3' } },
    TOLERANCE,
  );
  const vertices = (exact.soup.length / 3).toLocaleString('en-US');
  return [
    '## 10. weldByDistance (spatialhash/gltf-transform) vs glTF-Transform weld()',
    `One primitive per document, built anew from the same arrays in every run (no copy), then welded: weldByDistance's Transform, or glTF-Transform's weldPrimitive (the synchronous core of its weld(), which merges bit-identical vertices). Torus soup: ${vertices} vertices, ${exact.distinct.toLocaleString('en-US')} distinct. TorusKnot: ${knot.getAttribute('position').count.toLocaleString('en-US')} vertices. At tolerance 0 the harness checked that both leave the same number of vertices before timing; with a tolerance, weld() (exact) cannot merge the jittered copies.`,
    ...rows.map(([label, tolerance, timings]) =>
      [
        `### ${label}, tolerance ${tolerance}`,
        timingTable(timings, OURS, { header: ['vertices out'], cells: (t) => [count(t)] }),
      ].join('\n\n'),
    ),
  ].join('\n\n');
}
