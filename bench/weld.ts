/**
 * Workload 7: welding a 1,002,000-vertex triangle soup (a torus of 500 x 334
 * quads, every triangle with its own three corners) whose copies of each
 * shared vertex differ by up to 0.2 x tolerance per axis, as after a lossy
 * export. Compared with three.js BufferGeometryUtils.mergeVertices on the
 * same Float32Array. mergeVertices rounds coordinates to the tolerance's
 * decimals, so copies that straddle a rounding boundary stay apart: the table
 * counts, for each output, the vertex pairs still within tolerance (found by
 * the Ten Minute Physics hash of peers/ten-minute-physics.ts, independent of
 * this library).
 *
 * Then spatialhash/three's weldGeometry against mergeVertices on one
 * geometry: a de-indexed TorusKnotGeometry (position, normal, uv; every
 * attribute compared, as mergeVertices does), where both must find the same
 * vertices.
 *
 * @module
 */
import { BufferAttribute, BufferGeometry, TorusKnotGeometry } from 'three';
import { mergeVertices } from 'three/examples/jsm/utils/BufferGeometryUtils.js';
import { weld, weldMesh } from '../src/index.js';
import { weldGeometry } from '../src/three/index.js';
import { type Contender, measure, random, timingTable } from './harness.js';
import { tenMinutePhysicsPairs } from './peers/ten-minute-physics.js';

const OURS = 'weldMesh';
const TOLERANCE = 1e-4;

/** The soup and the number of distinct vertices it was made from. */
function torusSoup(around: number, along: number, seed: number): { soup: Float32Array; distinct: number } {
  const rand = random(seed);
  const major = 1;
  const minor = 0.35;
  const vertex = (u: number, v: number, out: number[]) => {
    const a = ((u % around) / around) * 2 * Math.PI;
    const b = ((v % along) / along) * 2 * Math.PI;
    const ring = major + minor * Math.cos(b);
    // Offset from the origin so coordinates are not small round numbers.
    out.push(3.1 + ring * Math.cos(a), -1.7 + ring * Math.sin(a), 0.9 + minor * Math.sin(b));
  };
  const corners: number[] = [];
  for (let u = 0; u < around; u++) {
    for (let v = 0; v < along; v++) {
      vertex(u, v, corners);
      vertex(u + 1, v, corners);
      vertex(u + 1, v + 1, corners);
      vertex(u, v, corners);
      vertex(u + 1, v + 1, corners);
      vertex(u, v + 1, corners);
    }
  }
  const soup = new Float32Array(corners.length);
  for (let k = 0; k < corners.length; k++) soup[k] = corners[k] + (rand() - 0.5) * 0.4 * TOLERANCE;
  return { soup, distinct: around * along };
}

/** Pairs of output vertices (packed xyz) still within the tolerance of each other. */
function missedPairs(positions: ArrayLike<number>): number {
  const coords = Float64Array.from(positions);
  let missed = 0;
  tenMinutePhysicsPairs(coords, TOLERANCE, () => {
    missed++;
  });
  return missed;
}

/** Runs workload 7 and returns its markdown section. */
export function weldBench(quick: boolean): string {
  const { soup, distinct } = quick ? torusSoup(100, 67, 7) : torusSoup(500, 334, 7);
  const vertices = soup.length / 3;
  const outputs = new Map<string, ArrayLike<number>>();
  const contenders: Contender[] = [
    {
      name: OURS,
      run() {
        const result = weldMesh(soup, undefined, TOLERANCE);
        outputs.set(OURS, result.positions);
        return BigInt(result.count);
      },
    },
    {
      name: 'weld (remap only)',
      run() {
        const result = weld(soup, TOLERANCE);
        return BigInt(result.count);
      },
    },
    {
      name: 'three mergeVertices',
      // It does not weld by distance, so its count differs: judged by the missed pairs below.
      unchecked: true,
      run() {
        const geometry = new BufferGeometry();
        geometry.setAttribute('position', new BufferAttribute(soup, 3));
        const merged = mergeVertices(geometry, TOLERANCE);
        const position = merged.getAttribute('position');
        outputs.set('three mergeVertices', position.array as Float32Array);
        return BigInt(position.count);
      },
    },
  ];
  console.log(`  weld: ${vertices} vertices`);
  const timings = measure('weld', contenders, { reps: 5, slowMs: 3000, slowReps: 3 });
  if (timings[0].answer !== BigInt(distinct)) {
    throw new Error(`weld: weldMesh left ${timings[0].answer} vertices where the soup has ${distinct} distinct ones`);
  }
  const missed = new Map<string, number>();
  for (const [name, positions] of outputs) missed.set(name, missedPairs(positions));
  missed.set('weld (remap only)', missed.get(OURS) ?? Number.NaN);
  const geometrySection = weldGeometryBench(quick);
  return [
    '## 7. Weld a triangle soup',
    `${vertices.toLocaleString('en-US')} vertices (${(vertices / 3).toLocaleString('en-US')} triangles of a torus, ${distinct.toLocaleString('en-US')} distinct vertices, copies jittered by up to 0.2 x tolerance per axis), Float32Array, tolerance ${TOLERANCE}. weldMesh returns welded positions + index buffer, weld only the remap; mergeVertices gets a BufferGeometry over the same array. "Missed pairs": output vertices still within tolerance of each other (a Ten Minute Physics hash over the output, bench/peers/ten-minute-physics.ts, not this library).`,
    timingTable(timings, OURS, {
      header: ['vertices out', 'missed pairs'],
      cells: (t) => [
        Number(t.answer).toLocaleString('en-US'),
        (missed.get(t.name) ?? Number.NaN).toLocaleString('en-US'),
      ],
    }),
    geometrySection,
  ].join('\n\n');
}

/** weldGeometry vs mergeVertices on a de-indexed TorusKnot: markdown for the section above. */
function weldGeometryBench(quick: boolean): string {
  const tubular = quick ? 200 : 1000;
  const radial = quick ? 16 : 80;
  const soup = new TorusKnotGeometry(1, 0.3, tubular, radial).toNonIndexed();
  const vertices = soup.getAttribute('position').count;
  const contenders: Contender[] = [
    {
      name: 'weldGeometry',
      run: () => BigInt(weldGeometry(soup, TOLERANCE).getAttribute('position').count),
    },
    {
      name: 'three mergeVertices',
      run: () => BigInt(mergeVertices(soup, TOLERANCE).getAttribute('position').count),
    },
  ];
  console.log(`  weldGeometry: ${vertices} vertices`);
  const timings = measure('weldGeometry', contenders, { reps: 5, slowMs: 3000, slowReps: 3 });
  return [
    '### weldGeometry (spatialhash/three) vs mergeVertices',
    `A de-indexed \`TorusKnotGeometry(1, 0.3, ${tubular}, ${radial})\`: ${vertices.toLocaleString('en-US')} vertices with position, normal and uv (Float32), tolerance ${TOLERANCE}; both return an indexed BufferGeometry and compare every attribute (weldGeometry: positions within the tolerance, normal and uv equal; mergeVertices: all rounded to the tolerance), and must agree on the vertex count.`,
    timingTable(timings, 'weldGeometry', {
      header: ['vertices out'],
      cells: (t) => [Number(t.answer).toLocaleString('en-US')],
    }),
  ].join('\n\n');
}
