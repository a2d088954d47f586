/**
 * forceCollide against d3-force's and d3-force-3d's own forceCollide, the
 * installed packages, on seeded scenes (uniform, clustered, coincident nodes,
 * a few huge radii among many tiny, radii 0, a power-law mix, ties along
 * one axis, far coordinates), in 1, 2 and 3 dimensions.
 *
 * Two checks, which together say that ours differs from d3 only where the
 * named differences apply:
 * - every pass of d3 is replayed from the pairs it corrected (recorded
 *   through the nodes' vx), bit for bit, and every overlapping pair it left
 *   alone is explained by one of them: j hidden behind a coincident node in
 *   a quadtree leaf, or j pruned on its start position. ours follows the
 *   rule without them (rule.test.ts);
 * - where no pair was left alone and no visit drew two random numbers (or
 *   the source is constant), one tick of ours equals d3's within 1e-12
 *   absolute plus 1e-12 relative, and such scenes are most of them.
 *
 * Then the named differences one by one, in scenes built to show them, NaN
 * and negative radii, and both forces inside their own simulations.
 */
import {
  forceCollide as d3ForceCollide,
  forceSimulation as d3ForceSimulation,
  forceX as d3ForceX,
  forceY as d3ForceY,
  type SimulationNodeDatum,
} from 'd3-force';
import { forceCollide as d3ForceCollide3, forceSimulation as d3ForceSimulation3 } from 'd3-force-3d';
import { describe, expect, it } from 'vitest';
import { forceCollide } from '../../src/d3/index.js';
import {
  copyNodes,
  firstDifference,
  KINDS,
  lcg,
  oracleTick,
  recordingNodes,
  replayPass,
  scene,
  type TestNode,
} from './oracle.js';

/** What both packages' forces are to this test. */
interface AnyCollide {
  (alpha: number): void;
  initialize(nodes: TestNode[], ...args: unknown[]): void;
  iterations(k: number): AnyCollide;
  strength(s: number): AnyCollide;
}

/** d3's own force for a dimension: d3-force in 2D (its tests), d3-force-3d for 1 and 3 (and 2 as well). */
function theirs(dims: 1 | 2 | 3, package3d: boolean, radius = (d: TestNode) => d.r): AnyCollide {
  return (dims === 2 && !package3d ? d3ForceCollide(radius) : d3ForceCollide3(radius)) as unknown as AnyCollide;
}

/**
 * Whether a named difference applies to a tick of d3's force on these
 * nodes: d3's passes are recorded and replayed (see the file's comment); a
 * skipped pair, or a visit that draws twice from a source that is not
 * constant, means d3 and ours may part.
 */
function differencesApply(
  nodes: readonly TestNode[],
  dims: 1 | 2 | 3,
  package3d: boolean,
  strength: number,
  iterations: number,
  radius: (d: TestNode) => number,
): boolean {
  const log: number[] = [];
  const recorded = recordingNodes(nodes, log);
  const force = theirs(dims, package3d, radius).strength(strength);
  force.initialize(recorded, lcg(), dims);
  const replayed = copyNodes(nodes);
  const replaySource = lcg();
  let applies = false;
  for (let pass = 0; pass < iterations; pass++) {
    log.length = 0;
    force(1);
    const replay = replayPass(replayed, replayed.map(radius), dims, strength, replaySource, log);
    expect(replay.unexplained).toEqual([]);
    if (replay.hidden + replay.pruned > 0 || replay.mostDrawsPerVisit > 1) applies = true;
  }
  return applies;
}

/** One tick of d3's force and of ours on copies of `nodes`. */
function bothTick(
  nodes: readonly TestNode[],
  dims: 1 | 2 | 3,
  package3d: boolean,
  strength: number,
  iterations: number,
  radius: (d: TestNode) => number,
): { d3: TestNode[]; ours: TestNode[]; pairs: number } {
  const d3Nodes = copyNodes(nodes);
  const d3Force = theirs(dims, package3d, radius).strength(strength).iterations(iterations);
  d3Force.initialize(d3Nodes, lcg(), dims);
  d3Force(1);
  const ours = copyNodes(nodes);
  const force = forceCollide<TestNode>(radius).strength(strength).iterations(iterations);
  force.initialize(ours, lcg(), dims);
  force(1);
  return { d3: d3Nodes, ours, pairs: force.stats().pairs };
}

describe('d3 differs from the rule only by the named differences', () => {
  for (const dims of [1, 2, 3] as const) {
    for (const package3d of dims === 2 ? [false, true] : [true]) {
      const name = package3d ? 'd3-force-3d' : 'd3-force';
      it(`${name}, ${dims}D: every pass replayed bit for bit, every skipped pair explained (seeds 1-4 per kind)`, () => {
        let skipped = 0;
        for (const kind of KINDS) {
          for (let seed = 1; seed <= 4; seed++) {
            const nodes = scene({ kind, n: 160, dims, seed, cover: seed % 2 === 0 ? 0.9 : 0.4 });
            const log: number[] = [];
            const recorded = recordingNodes(nodes, log);
            const force = theirs(dims, package3d).strength(seed === 3 ? 0.6 : 1);
            const source = lcg();
            force.initialize(recorded, source, dims);
            const replayed = copyNodes(nodes);
            const replaySource = lcg();
            for (let pass = 0; pass < 2; pass++) {
              log.length = 0;
              force(1);
              const radii = replayed.map((d) => d.r);
              const replay = replayPass(replayed, radii, dims, seed === 3 ? 0.6 : 1, replaySource, log);
              const where = `${kind}, seed ${seed}, pass ${pass}`;
              expect(replay.spurious, where).toEqual([]);
              expect(replay.unexplained, where).toEqual([]);
              for (let i = 0; i < nodes.length; i++) {
                const got = recorded[i] as TestNode;
                const want = replayed[i] as TestNode;
                expect([got.vx, got.vy, got.vz], `${where}, node ${i}`).toEqual([want.vx, want.vy, want.vz]);
              }
              skipped += replay.hidden + replay.pruned;
            }
          }
        }
        // The scenes do show the differences (coincident nodes and crowds moving fast).
        expect(skipped).toBeGreaterThan(0);
      });
    }
  }
});

describe('one tick of ours equals d3 where no named difference applies', () => {
  for (const dims of [1, 2, 3] as const) {
    for (const package3d of dims === 2 ? [false, true] : [true]) {
      const name = package3d ? 'd3-force-3d' : 'd3-force';
      it(`${name}, ${dims}D, seeds 1-8 per kind, 1 to 3 iterations`, () => {
        let compared = 0;
        let total = 0;
        for (const kind of KINDS.filter((k) => k !== 'coincident')) {
          for (let seed = 1; seed <= 8; seed++) {
            const iterations = 1 + (seed % 3);
            const strength = seed % 2 === 0 ? 1 : 0.5;
            // Near convergence: slight overlaps, slow nodes (as the bench's converged layouts).
            const nodes = scene({ kind, n: 200, dims, seed, cover: 0.3, speed: 0.02 });
            const radius = (d: TestNode) => d.r;
            total++;
            if (differencesApply(nodes, dims, package3d, strength, iterations, radius)) continue;
            compared++;
            const { d3, ours, pairs } = bothTick(nodes, dims, package3d, strength, iterations, radius);
            expect(firstDifference(ours, d3, dims), `${kind}, seed ${seed}`).toBeUndefined();
            // Not a vacuous comparison: something moved.
            expect(pairs, `${kind}, seed ${seed}`).toBeGreaterThan(0);
          }
        }
        // In 1D chains of overlaps form readily and many scenes see a pruned pair; a third of them is plenty.
        expect(compared).toBeGreaterThanOrEqual(total / 3);
      });
    }
  }
});

describe('the named differences, each in a scene that shows it', () => {
  it('four coincident nodes: d3 corrects 3 of their 6 pairs, ours all 6', () => {
    const nodes: TestNode[] = [0, 1, 2, 3].map((index) => ({ index, x: 5, y: 5, z: 0, vx: 0, vy: 0, vz: 0, r: 1 }));
    const log: number[] = [];
    const recorded = recordingNodes(nodes, log);
    const d3Force = d3ForceCollide<TestNode>((d) => d.r);
    d3Force.initialize(recorded, () => 0.25);
    d3Force(1);
    // The leaf's datum is the last node added (3): each other node meets it, and only it.
    expect(log).toEqual([0, 3, 1, 3, 2, 3]);
    const ours = copyNodes(nodes);
    const force = forceCollide<TestNode>((d) => d.r);
    force.initialize(ours, () => 0.25);
    force(1);
    expect(force.stats().pairs).toBe(6);
    const want = copyNodes(nodes);
    expect(oracleTick(want, [1, 1, 1, 1], 2, 1, () => 0.25).pairs).toBe(6);
    expect(firstDifference(ours, want, 2)).toBeUndefined();
  });

  it('a pair pushed into overlap during the pass: d3 prunes it on start positions, ours corrects it', () => {
    // Node 0 (radius 3) pushes node 2 from x = 5 to about 1.6, into node 1 (at 0.25), which it started
    // 4.75 away from: d3's quadtree skips that branch at node 1's visit.
    const nodes: TestNode[] = [
      { index: 0, x: 5.25, y: 0, z: 0, vx: 0, vy: 0, vz: 0, r: 3 },
      { index: 1, x: 0.25, y: 0, z: 0, vx: 0, vy: 0, vz: 0, r: 1 },
      { index: 2, x: 5, y: 0, z: 0, vx: 0, vy: 0, vz: 0, r: 1 },
    ];
    const radii = [3, 1, 1];
    // A jiggle of 0 (random 0.5) for the ties along y.
    const d3Nodes = copyNodes(nodes);
    const d3Force = d3ForceCollide<TestNode>((d) => d.r);
    d3Force.initialize(d3Nodes, () => 0.5);
    d3Force(1);
    const ours = copyNodes(nodes);
    const force = forceCollide<TestNode>((d) => d.r);
    force.initialize(ours, () => 0.5);
    force(1);
    const want = copyNodes(nodes);
    const report = oracleTick(want, radii, 2, 1, () => 0.5);
    expect(report.pairs).toBe(2);
    expect(report.prunable).toBe(1);
    expect(force.stats().pairs).toBe(2);
    expect(firstDifference(ours, want, 2)).toBeUndefined();
    expect(d3Nodes[1]?.vx).toBe(0);
    expect(ours[1]?.vx).toBeLessThan(0);
  });

  it('two jiggled pairs in one visit: d3 and ours draw in another order, the same numbers otherwise', () => {
    // Node 0 shares x with nodes 1 and 2 (ties along x draw a jiggle each).
    const nodes: TestNode[] = [
      { index: 0, x: 1, y: 0, z: 0, vx: 0, vy: 0, vz: 0, r: 1 },
      { index: 1, x: 1, y: 0.5, z: 0, vx: 0, vy: 0, vz: 0, r: 1 },
      { index: 2, x: 1, y: -0.75, z: 0, vx: 0, vy: 0, vz: 0, r: 1 },
    ];
    const run = (make: () => AnyCollide, random: () => number): TestNode[] => {
      const copy = copyNodes(nodes);
      const force = make();
      force.initialize(copy, random);
      force(1);
      return copy;
    };
    const ours = () => forceCollide<TestNode>((d) => d.r) as unknown as AnyCollide;
    const d3 = () => theirs(2, false);
    // A constant source: the order does not matter, the answers agree.
    expect(
      firstDifference(
        run(ours, () => 0.8),
        run(d3, () => 0.8),
        2,
      ),
    ).toBeUndefined();
    // The LCG: each answer is the rule's with its pairs' draws in one order or the other.
    const rule = (order: number[]): TestNode[] => {
      const copy = copyNodes(nodes);
      const draws = lcg();
      const values = [draws(), draws()];
      const queue = [...order.map((k) => values[k] as number)];
      oracleTick(copy, [1, 1, 1], 2, 1, () => queue.shift() as number);
      return copy;
    };
    const orders = [rule([0, 1]), rule([1, 0])];
    for (const got of [run(ours, lcg()), run(d3, lcg())]) {
      expect(orders.some((want) => firstDifference(got, want, 2) === undefined)).toBe(true);
    }
  });
});

describe('radii that are not positive numbers', () => {
  it('NaN: the node collides with nothing, as in d3 (seeds 1-6)', () => {
    for (const dims of [1, 2, 3] as const) {
      let compared = 0;
      for (let seed = 1; seed <= 6; seed++) {
        const nodes = scene({ kind: 'uniform', n: 200, dims, seed, cover: 0.3, speed: 0.02 });
        const radius = (d: TestNode) => (d.index % 4 === 1 ? Number.NaN : d.r);
        // ours follows the rule, which meets no pair of a NaN radius (l < NaN is false)...
        const want = copyNodes(nodes);
        oracleTick(want, want.map(radius), dims, 1, lcg());
        const ours = copyNodes(nodes);
        const force = forceCollide<TestNode>(radius);
        force.initialize(ours, lcg(), dims);
        force(1);
        expect(firstDifference(ours, want, dims)).toBeUndefined();
        for (let i = 1; i < nodes.length; i += 4) expect(ours[i]?.vx).toBe(nodes[i]?.vx);
        // ...and so does d3, whose skipped pairs the replay explains.
        if (differencesApply(nodes, dims, true, 1, 1, radius)) continue;
        compared++;
        expect(firstDifference(ours, bothTick(nodes, dims, true, 1, 1, radius).d3, dims)).toBeUndefined();
      }
      expect(compared).toBeGreaterThan(0);
    }
  });

  it('negative or infinite: a RangeError naming the node and the value (d3 goes on with nonsense there)', () => {
    const nodes = scene({ kind: 'uniform', n: 10, dims: 2, seed: 12 });
    for (const bad of [-1, -0.5, Number.POSITIVE_INFINITY]) {
      const force = forceCollide<TestNode>((d) => (d.index === 7 ? bad : 1));
      expect(() => force.initialize(nodes, () => 0.5)).toThrow(RangeError);
      expect(() => force.initialize(nodes, () => 0.5)).toThrow(`the radius of node 7 is ${bad}`);
    }
    // -0 is a radius of 0.
    expect(() => forceCollide<TestNode>(-0).initialize(nodes)).not.toThrow();
  });
});

describe('inside the simulations', () => {
  it("d3-force's forceSimulation: a beeswarm tick (forceX + forceY + collide) as with d3's collide (seed 21)", () => {
    const make = () =>
      Array.from(
        { length: 400 },
        (_, i) =>
          ({ value: (i * 37) % 100, r: 2 + (i % 5) }) as SimulationNodeDatum & {
            value: number;
            r: number;
          },
      );
    type Datum = ReturnType<typeof make>[number];
    const run = (collide: unknown) => {
      const nodes = make();
      const simulation = d3ForceSimulation(nodes)
        .force(
          'x',
          d3ForceX<Datum>((d) => d.value * 8),
        )
        .force('y', d3ForceY<Datum>(0))
        .force('collide', collide as ReturnType<typeof d3ForceCollide<Datum>>)
        .stop();
      simulation.tick(1);
      return nodes;
    };
    const want = run(d3ForceCollide<Datum>((d) => d.r));
    const got = run(forceCollide<Datum>((d) => d.r));
    for (let i = 0; i < want.length; i++) {
      for (const key of ['x', 'y', 'vx', 'vy'] as const) {
        const a = got[i]?.[key] as number;
        const b = want[i]?.[key] as number;
        expect(Math.abs(a - b), `node ${i} ${key}`).toBeLessThanOrEqual(1e-12 + 1e-12 * Math.abs(b));
      }
    }
  });

  it("d3-force-3d's forceSimulation at numDimensions 1, 2 and 3: its nDim reaches the force (seed 22)", () => {
    for (const dims of [1, 2, 3]) {
      const run = (collide: unknown) => {
        const nodes = Array.from({ length: 300 }, (_, i) => ({ r: 3 + (i % 4) })) as TestNode[];
        const simulation = d3ForceSimulation3(nodes, dims).force('collide', collide).stop();
        simulation.tick(1);
        return nodes;
      };
      const want = run(d3ForceCollide3((d: TestNode) => d.r));
      const got = run(forceCollide<TestNode>((d) => d.r));
      expect(firstDifference(got, want, dims as 1 | 2 | 3)).toBeUndefined();
      // The third axis moves in 3D only, as d3-force-3d's nodes have no z below it.
      expect(got.some((d) => d.vz !== undefined && d.vz !== 0)).toBe(dims === 3);
    }
  });
});
