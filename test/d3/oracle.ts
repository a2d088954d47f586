/**
 * The brute-force rule spatialhash/d3's forceCollide implements, written from
 * d3-force's and d3-force-3d's collide.js with the quadtree taken away: in
 * each pass, node i (in index order) takes x + vx once and meets every
 * j > i, in ascending order, with d3's arithmetic. It also reports whether a
 * scene is one where d3 itself must agree with it (see {@link d3Agrees}), and
 * seeded scenes of the kinds the tests run.
 *
 * @module
 */
import { random as seeded } from '../support/random.js';

/** A node as the simulations hold it. */
export interface TestNode {
  index: number;
  x: number;
  y: number;
  z: number;
  vx: number;
  vy: number;
  vz: number;
  r: number;
}

/** What a brute-force tick saw. */
export interface OracleReport {
  /** Pairs corrected. */
  pairs: number;
  /**
   * Corrected pairs whose j started the pass (at x + vx) farther than
   * ri + rj from x_i along some axis, by more than a rounding margin: d3's
   * quadtree prunes its cells on the pass's start positions, so it may skip
   * such a pair (and does when the pair's whole branch lies that far away).
   */
  prunable: number;
  /** Nodes that started a pass at the same point as an earlier one (d3 reads only one of them). */
  coincident: number;
  /** Random numbers drawn, and the most drawn by one visit. */
  draws: number;
  mostDrawsPerVisit: number;
}

/**
 * d3's correction of an overlapping pair, expression by expression as in
 * d3-force-3d's collide.js (d3-force's is its 2D case): node and data are
 * nodes i and j, (x, y, z) their offset x_i - (x_j + vx_j), per axis.
 */
export function correct(
  node: TestNode,
  data: TestNode,
  ri: number,
  radius: number,
  x: number,
  y: number,
  z: number,
  dims: 1 | 2 | 3,
  strength: number,
  draw: () => number,
): void {
  let rj = radius;
  let r = ri + rj;
  let l = x * x + y * y + z * z;
  if (x === 0) {
    x = (draw() - 0.5) * 1e-6;
    l += x * x;
  }
  if (dims > 1 && y === 0) {
    y = (draw() - 0.5) * 1e-6;
    l += y * y;
  }
  if (dims > 2 && z === 0) {
    z = (draw() - 0.5) * 1e-6;
    l += z * z;
  }
  l = Math.sqrt(l);
  l = ((r - l) / l) * strength;
  x *= l;
  rj *= rj;
  r = rj / (ri * ri + rj);
  node.vx += x * r;
  y *= l;
  z *= l;
  if (dims > 1) node.vy += y * r;
  if (dims > 2) node.vz += z * r;
  r = 1 - r;
  data.vx -= x * r;
  if (dims > 1) data.vy -= y * r;
  if (dims > 2) data.vz -= z * r;
}

/**
 * Applies `iterations` passes of the rule to `nodes` (velocities in place),
 * with radii `radii` (NaN: collides with nothing), in 1, 2 or 3 dimensions.
 */
export function oracleTick(
  nodes: TestNode[],
  radii: readonly number[],
  dims: 1 | 2 | 3,
  strength: number,
  random: () => number,
  iterations = 1,
): OracleReport {
  const n = nodes.length;
  const report: OracleReport = { pairs: 0, prunable: 0, coincident: 0, draws: 0, mostDrawsPerVisit: 0 };
  const draw = (): number => {
    report.draws++;
    return random();
  };
  for (let k = 0; k < iterations; ++k) {
    const sx = nodes.map((d) => d.x + d.vx);
    const sy = nodes.map((d) => (dims > 1 ? d.y + d.vy : 0));
    const sz = nodes.map((d) => (dims > 2 ? d.z + d.vz : 0));
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(sx[i]) || Number.isNaN(sy[i]) || Number.isNaN(sz[i])) continue;
      const key = `${sx[i]},${sy[i]},${sz[i]}`;
      if (seen.has(key)) report.coincident++;
      seen.add(key);
    }
    for (let i = 0; i < n; i++) {
      const node = nodes[i] as TestNode;
      const ri = radii[i] as number;
      const xi = node.x + node.vx;
      const yi = dims > 1 ? node.y + node.vy : 0;
      const zi = dims > 2 ? node.z + node.vz : 0;
      const drawsBefore = report.draws;
      for (let j = i + 1; j < n; j++) {
        const data = nodes[j] as TestNode;
        const r = ri + (radii[j] as number);
        const x = xi - data.x - data.vx;
        const y = dims > 1 ? yi - data.y - data.vy : 0;
        const z = dims > 2 ? zi - data.z - data.vz : 0;
        if (!(x * x + y * y + z * z < r * r)) continue;
        report.pairs++;
        const margin = r * (1 - 1e-9);
        const away = (a: number, b: number) => Math.abs(a - b) > margin;
        if (away(xi, sx[j] as number) || away(yi, sy[j] as number) || away(zi, sz[j] as number)) report.prunable++;
        correct(node, data, ri, radii[j] as number, x, y, z, dims, strength, draw);
      }
      report.mostDrawsPerVisit = Math.max(report.mostDrawsPerVisit, report.draws - drawsBefore);
    }
  }
  return report;
}

/**
 * Whether d3's own forceCollide must give the rule's answer on a scene the
 * rule reported on: no node starts a pass where an earlier one does (d3's
 * quadtree keeps only one datum of a leaf), no corrected pair is one d3 may
 * prune, and either no visit draws more than one random number or the
 * source is constant (d3 draws them in quadtree order).
 */
export function d3Agrees(report: OracleReport, constantRandom: boolean): boolean {
  return report.coincident === 0 && report.prunable === 0 && (constantRandom || report.mostDrawsPerVisit <= 1);
}

/** d3-force's simulation random source (an LCG), seeded as there. */
export function lcg(): () => number {
  let s = 1;
  return () => {
    s = (1664525 * s + 1013904223) % 4294967296;
    return s / 4294967296;
  };
}

/** The kinds of seeded scenes. */
export type SceneKind =
  | 'uniform'
  | 'clustered'
  | 'coincident'
  | 'huge among tiny'
  | 'zero radii'
  | 'power law'
  | 'shared axis'
  | 'far';

/** Every kind, for the tests that run them all. */
export const KINDS: readonly SceneKind[] = [
  'uniform',
  'clustered',
  'coincident',
  'huge among tiny',
  'zero radii',
  'power law',
  'shared axis',
  'far',
];

/** Options of {@link scene}. */
export interface SceneOptions {
  kind: SceneKind;
  n: number;
  dims: 1 | 2 | 3;
  seed: number;
  /** Covered share of the space (discs' area over the box's), default 0.5. */
  cover?: number;
  /** Velocity scale, as a fraction of the typical radius (default 0.3). */
  speed?: number;
}

/**
 * Seeded nodes of one kind, index set, radii in `r`:
 * - uniform: radii 1 to 2, positions uniform;
 * - clustered: a few gaussian blobs, radii 0.5 to 1.5;
 * - coincident: uniform, a fifth of them copied onto another's position and velocity;
 * - huge among tiny: radii 0.5, a few of 20 to 60;
 * - zero radii: uniform, a third with radius 0;
 * - power law: radii 0.3 / u^0.6, capped at 40;
 * - shared axis: positions on a coarse lattice along x (many exact ties there, jiggled), uniform elsewhere;
 * - far: uniform, with coordinates offset by 1e9 and a few nodes 1e7 away (hashed grids).
 */
export function scene(options: SceneOptions): TestNode[] {
  const { kind, n, dims, seed } = options;
  const rand = seeded(seed);
  const radius = (i: number): number => {
    switch (kind) {
      case 'clustered':
        return 0.5 + rand();
      case 'huge among tiny':
        return i % Math.max(8, Math.floor(n / 6)) === 3 ? 20 + 40 * rand() : 0.5;
      case 'zero radii':
        return i % 3 === 0 ? 0 : 1 + rand();
      case 'power law':
        return Math.min(40, 0.3 / (1 - rand()) ** 0.6);
      default:
        return 1 + rand();
    }
  };
  const radii = Array.from({ length: n }, (_, i) => radius(i));
  const volume = radii.reduce((sum, r) => sum + (dims === 1 ? 2 * r : dims === 2 ? Math.PI * r * r : 4.19 * r ** 3), 0);
  const side = (volume / (options.cover ?? 0.5)) ** (1 / dims);
  const speed = options.speed ?? 0.3;
  const offset = kind === 'far' ? 1e9 : 0;
  const centers = Array.from({ length: 4 }, () => [rand() * side, rand() * side, rand() * side]);
  const coordinate = (axis: number, i: number): number => {
    if (kind === 'clustered') {
      const c = centers[i % 4] as number[];
      const u = 1 - rand();
      return (c[axis] as number) + Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand()) * side * 0.08;
    }
    if (kind === 'shared axis' && axis === 0) return Math.floor(rand() * 12) * (side / 12);
    if (kind === 'far' && i % 50 === 7) return offset + 1e7 * (rand() - 0.5);
    return offset + rand() * side;
  };
  const nodes: TestNode[] = [];
  for (let i = 0; i < n; i++) {
    const node: TestNode = {
      index: i,
      x: coordinate(0, i),
      y: dims > 1 ? coordinate(1, i) : 0,
      z: dims > 2 ? coordinate(2, i) : 0,
      vx: (rand() - 0.5) * speed,
      vy: dims > 1 ? (rand() - 0.5) * speed : 0,
      vz: dims > 2 ? (rand() - 0.5) * speed : 0,
      r: radii[i] as number,
    };
    nodes.push(node);
  }
  if (kind === 'coincident') {
    for (let i = 0; i < n; i += 5) {
      const other = nodes[Math.floor(rand() * n)] as TestNode;
      const node = nodes[i] as TestNode;
      node.x = other.x;
      node.y = other.y;
      node.z = other.z;
      node.vx = other.vx;
      node.vy = other.vy;
      node.vz = other.vz;
    }
  }
  return nodes;
}

/** Deep copies of nodes, so that two forces start from the same numbers. */
export function copyNodes(nodes: readonly TestNode[]): TestNode[] {
  return nodes.map((node) => ({ ...node }));
}

/**
 * The first velocity (node, axis) where two node lists differ by more than
 * 1e-12 absolute plus 1e-12 relative, or undefined. Equal infinities and both NaN count as equal.
 */
export function firstDifference(
  got: readonly TestNode[],
  want: readonly TestNode[],
  dims: 1 | 2 | 3,
): string | undefined {
  const axes = (['vx', 'vy', 'vz'] as const).slice(0, dims);
  for (let i = 0; i < want.length; i++) {
    for (const axis of axes) {
      const a = (got[i] as TestNode)[axis];
      const b = (want[i] as TestNode)[axis];
      if (a === b || (Number.isNaN(a) && Number.isNaN(b))) continue;
      if (!(Math.abs(a - b) <= 1e-12 + 1e-12 * Math.abs(b))) return `node ${i} ${axis}: got ${a}, want ${b}`;
    }
  }
  return undefined;
}

/**
 * Nodes whose `vx` records every write, in order: d3's collide writes node
 * i's vx and then node j's for each pair it corrects, so the log is the
 * sequence of pairs d3 corrected, in its order.
 */
export function recordingNodes(nodes: readonly TestNode[], log: number[]): TestNode[] {
  return nodes.map((node) => {
    let vx = node.vx;
    const copy = { ...node };
    Object.defineProperty(copy, 'vx', {
      enumerable: true,
      get: () => vx,
      set: (value: number) => {
        log.push(node.index);
        vx = value;
      },
    });
    return copy;
  });
}

/** What {@link replayPass} found. */
export interface Replay {
  /** Pairs d3 corrected. */
  pairs: number;
  /** Overlapping pairs d3 left alone because j hid behind a coincident node of higher index (same leaf). */
  hidden: number;
  /** Overlapping pairs d3 left alone where j started the pass beyond ri + rj along an axis (pruned). */
  pruned: number;
  /** Pairs d3 left alone for no reason the named differences give, as "i-j" (must stay empty). */
  unexplained: string[];
  /** Pairs d3 corrected that did not overlap then (must stay empty). */
  spurious: string[];
  /** The most random numbers one visit drew. */
  mostDrawsPerVisit: number;
}

/**
 * Replays one pass of d3's collide from the pairs it corrected (`log`, as
 * {@link recordingNodes} records it) on `nodes`, with the rule's arithmetic,
 * and explains every overlapping pair d3 did not correct: either j is not the
 * first datum of its quadtree leaf (a node of higher index starts the pass
 * at the same point), or j started the pass farther than ri + rj from x_i
 * along an axis, where d3's quadtree prunes on those start positions. The
 * velocities the replay leaves must be d3's, bit for bit.
 */
export function replayPass(
  nodes: TestNode[],
  radii: readonly number[],
  dims: 1 | 2 | 3,
  strength: number,
  random: () => number,
  log: readonly number[],
): Replay {
  const n = nodes.length;
  const replay: Replay = { pairs: 0, hidden: 0, pruned: 0, unexplained: [], spurious: [], mostDrawsPerVisit: 0 };
  const start = nodes.map((d) => [d.x + d.vx, dims > 1 ? d.y + d.vy : 0, dims > 2 ? d.z + d.vz : 0]);
  const hidden = new Set<number>();
  const seenAt = new Map<string, number>();
  for (let j = n - 1; j >= 0; j--) {
    const p = start[j] as number[];
    if (p.some(Number.isNaN)) continue;
    // 0 and -0 are one point to the quadtree (x === xp).
    const key = p.map((v) => (v === 0 ? 0 : v)).join(',');
    if (seenAt.has(key)) hidden.add(j);
    else seenAt.set(key, j);
  }
  let k = 0;
  for (let i = 0; i < n; i++) {
    const node = nodes[i] as TestNode;
    const ri = radii[i] as number;
    const xi = node.x + node.vx;
    const yi = dims > 1 ? node.y + node.vy : 0;
    const zi = dims > 2 ? node.z + node.vz : 0;
    const offset = (data: TestNode): number[] => [
      xi - data.x - data.vx,
      dims > 1 ? yi - data.y - data.vy : 0,
      dims > 2 ? zi - data.z - data.vz : 0,
    ];
    const overlaps = (j: number): boolean => {
      const [x, y, z] = offset(nodes[j] as TestNode) as [number, number, number];
      const r = ri + (radii[j] as number);
      return x * x + y * y + z * z < r * r;
    };
    // Every pair of this visit overlaps or not as things stand at its start: a correction of (i, j)
    // moves only i's velocity (not x_i) and j's.
    const expected = new Set<number>();
    for (let j = i + 1; j < n; j++) if (overlaps(j)) expected.add(j);
    const done = new Set<number>();
    let draws = 0;
    while (k < log.length && log[k] === i) {
      const j = log[k + 1] as number;
      k += 2;
      done.add(j);
      if (!expected.has(j)) replay.spurious.push(`${i}-${j}`);
      const [x, y, z] = offset(nodes[j] as TestNode) as [number, number, number];
      correct(node, nodes[j] as TestNode, ri, radii[j] as number, x, y, z, dims, strength, () => {
        draws++;
        return random();
      });
      replay.pairs++;
    }
    replay.mostDrawsPerVisit = Math.max(replay.mostDrawsPerVisit, draws);
    for (const j of expected) {
      if (done.has(j)) continue;
      const r = (ri + (radii[j] as number)) * (1 - 1e-9);
      const s = start[j] as number[];
      if (hidden.has(j)) replay.hidden++;
      else if ([xi, yi, zi].some((v, a) => Math.abs(v - (s[a] as number)) > r)) replay.pruned++;
      else replay.unexplained.push(`${i}-${j}`);
    }
  }
  if (k !== log.length) replay.spurious.push(`log left over at ${k} of ${log.length}`);
  return replay;
}
