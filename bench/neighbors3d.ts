/**
 * Workload 3: every point's neighbour list (CSR) in 3D, on a shuffled
 * jittered lattice with radius 2 spacings (about 32 neighbours each). Each
 * run builds the structure and produces the full CSR; the time covers both.
 *
 * @module
 */
import { octree } from 'd3-octree';
import { type NeighborLists, PointGrid3D, setKernelMode } from '../src/index.js';
import { autzenScan, jitteredLattice3D, sizeLabel } from './data.js';
import { answerCount, type Contender, csrFingerprint, fingerprint, measure, timingTable } from './harness.js';
import { cFloor, writePoints } from './peers/cfloor.js';
import { type Csr, tenMinutePhysicsNeighbors } from './peers/ten-minute-physics.js';
import { probeThing, thingNote } from './peers/thing.js';

const OURS = 'PointGrid3D.neighbors (wasm)';

/** Every pair of PointGrid3D.pairs as the fingerprint of CSR rows (each pair in both directions). */
function pairsFingerprint(pairs: Uint32Array): bigint {
  let sum = 0;
  for (let k = 0; k < pairs.length; k += 2) sum = (sum + 2 * Math.imul(pairs[k] + 1, pairs[k + 1] + 1)) | 0;
  return fingerprint(pairs.length, sum);
}

/** d3-octree: `addAll` of point ids, then a pruned `visit` per point, rows appended to a growing CSR. */
function d3OctreeNeighbors(pos: Float64Array, radius: number): Csr {
  const n = pos.length / 3;
  const ids = new Array<number>(n);
  for (let i = 0; i < n; i++) ids[i] = i;
  const tree = octree<number>()
    .x((i) => pos[3 * i])
    .y((i) => pos[3 * i + 1])
    .z((i) => pos[3 * i + 2])
    .addAll(ids);
  const r2 = radius * radius;
  const offsets = new Uint32Array(n + 1);
  let indices = new Uint32Array(n * 8);
  let used = 0;
  let qi = 0;
  let qx = 0;
  let qy = 0;
  let qz = 0;
  const visit = (node: unknown, x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): boolean => {
    const leafNode = node as { length?: number; data: number; next?: unknown };
    if (leafNode.length === undefined) {
      let leaf: typeof leafNode | undefined = leafNode;
      do {
        const j = leaf.data;
        const dx = pos[3 * j] - qx;
        const dy = pos[3 * j + 1] - qy;
        const dz = pos[3 * j + 2] - qz;
        if (j !== qi && dx * dx + dy * dy + dz * dz <= r2) {
          if (used === indices.length) {
            const grown = new Uint32Array(indices.length * 2);
            grown.set(indices);
            indices = grown;
          }
          indices[used++] = j;
        }
        leaf = leaf.next as typeof leafNode | undefined;
      } while (leaf);
    }
    return (
      x0 > qx + radius ||
      y0 > qy + radius ||
      z0 > qz + radius ||
      x1 < qx - radius ||
      y1 < qy - radius ||
      z1 < qz - radius
    );
  };
  for (let i = 0; i < n; i++) {
    qi = i;
    qx = pos[3 * i];
    qy = pos[3 * i + 1];
    qz = pos[3 * i + 2];
    tree.visit(visit);
    offsets[i + 1] = used;
  }
  return { offsets, indices: indices.subarray(0, used) };
}

/**
 * The rows of one set: build + every row (or pair) per run, ours on both paths, the peers, the C floors.
 * Returns the table and the neighbours per point of the checked answer.
 */
function timeSet(
  pos: Float64Array,
  radius: number,
  label: string,
  file: string,
  d3: boolean,
): { table: string; perPoint: number } {
  const contenders: Contender[] = [];
  for (const path of ['wasm', 'javascript'] as const) {
    const tag = path === 'wasm' ? 'wasm' : 'JS';
    contenders.push(
      {
        name: `PointGrid3D.neighbors (${tag})`,
        run: () => {
          setKernelMode(path);
          return csrFingerprint(new PointGrid3D(pos, { cellSize: radius }).neighbors(radius));
        },
      },
      {
        name: `PointGrid3D.pairs (${tag})`,
        run: () => {
          setKernelMode(path);
          return pairsFingerprint(new PointGrid3D(pos, { cellSize: radius }).pairs(radius));
        },
      },
    );
  }
  // Grid and result kept between runs, as the C floors reuse their memory.
  let grid: PointGrid3D | undefined;
  let out: NeighborLists | undefined;
  let pairGrid: PointGrid3D | undefined;
  let pairsOut: Uint32Array | undefined;
  contenders.push(
    {
      name: 'PointGrid3D rebuild + pairs({ out }) (grid and result reused, wasm)',
      run: () => {
        setKernelMode('wasm');
        if (pairGrid) pairGrid.rebuild(pos);
        else pairGrid = new PointGrid3D(pos, { cellSize: radius });
        pairsOut = pairGrid.pairs(radius, { out: pairsOut });
        return pairsFingerprint(pairsOut);
      },
    },
    {
      name: 'PointGrid3D rebuild + neighbors({ out }) (grid and result reused, wasm)',
      run: () => {
        setKernelMode('wasm');
        if (grid) grid.rebuild(pos);
        else grid = new PointGrid3D(pos, { cellSize: radius });
        out = grid.neighbors(radius, { out });
        return csrFingerprint(out);
      },
    },
    {
      name: 'Ten Minute Physics hash (reimplemented)',
      run: () => csrFingerprint(tenMinutePhysicsNeighbors(pos, radius)),
    },
  );
  if (d3) contenders.push({ name: 'd3-octree visit', run: () => csrFingerprint(d3OctreeNeighbors(pos, radius)) });
  const points = writePoints(file, pos);
  const plan = { reps: 5, slowMs: 1000, slowReps: 3 };
  const floors = [
    cFloor('csr3', points, radius, plan),
    cFloor('collect3', points, radius, plan, 'C floor, pairs collected as pairs() (gcc -O3)'),
    // Context: the same floors with 128-bit vectors at most, as WebAssembly SIMD has.
    cFloor('csr3', points, radius, plan, 'C floor (gcc -O3 -mno-avx)', 'no-avx'),
    cFloor('collect3', points, radius, plan, 'C floor, pairs collected as pairs() (gcc -O3 -mno-avx)', 'no-avx'),
  ];
  for (const floor of floors) if (floor) contenders.push(floor);
  console.log(`  ${label}: ${contenders.length} contenders`);
  const timings = measure(`neighbors3d ${label}`, contenders, plan);
  setKernelMode('auto');
  return { table: timingTable(timings, OURS), perPoint: answerCount(timings[0].answer) / (pos.length / 3) };
}

/**
 * The radius for the scan: 6 feet, about 25 neighbours per point (the lattice's
 * 30 in a surface rather than a volume: airborne lidar sees the ground and roofs).
 */
const SCAN_RADIUS = 6;

/** Runs workload 3 and returns its markdown section. */
export async function neighbors3d(quick: boolean): Promise<string> {
  const sizes = quick ? [1e4, 1e5] : [1e5, 1e6];
  const radius = 2;
  const parts = [
    '## 3. 3D neighbour lists (CSR), shuffled jittered lattice',
    `Lattice spacing 1, jitter +-0.25 per axis, shuffled order; every point's neighbours within r = ${radius} (itself excluded) as CSR rows (PointGrid3D.pairs: every pair once, flat). Build + all rows per run. Rows marked wasm run the WebAssembly kernels, rows marked JS the JavaScript path (setKernelMode); the C floors' timed runs reuse the memory of an untimed one, as the "reused" rows do, and are all made before the warm-up (see workload 1); the rows marked -mno-avx compile the floor with 128-bit vectors at most, as WebAssembly SIMD has. PointGrid3D cellSize = r; the Ten Minute Physics hash's spacing = r.`,
  ];
  for (const n of sizes) {
    const pos = jitteredLattice3D(n, 3);
    const { table, perPoint } = timeSet(pos, radius, `lattice ${sizeLabel(n)}`, `lattice3d-${n}`, n <= 1e5);
    parts.push(`### ${sizeLabel(n)} points (${perPoint.toFixed(1)} neighbours per point on average)`, table);
  }
  // A real set no tuning looked at, with the same rows (quick runs too: it is 110,000 points).
  const scan = await autzenScan();
  const scanSet = timeSet(scan, SCAN_RADIUS, 'autzen scan', 'autzen3d', true);
  parts.push(
    `### a real scan: the ${(scan.length / 3).toLocaleString('en-US')} points of laz-perf's autzen_trim.laz (airborne lidar, feet, coordinates near 636,000 / 849,000 / 400), file order, r = ${SCAN_RADIUS} feet, cellSize = r (${scanSet.perPoint.toFixed(1)} neighbours per point on average)`,
    scanSet.table,
  );
  parts.push(`${thingNote('@thi.ng/geom-accel HashGrid3', probeThing(jitteredLattice3D(2000, 3), 3, radius, 2000))}`);
  if (sizes[1] > 1e5) parts.push('d3-octree runs at 1e5 points and on the scan only.');
  return parts.join('\n\n');
}
