/**
 * forceCollide's API as d3's: defaults, getters and chaining setters, the
 * radius cache (evaluated at initialize and at radius(), as d3 does),
 * initialize's arguments (d3-force's and d3-force-3d's), what is refused and
 * that a refused call leaves the force as it was; then random sequences of
 * calls (fast-check commands) against a model force built on the rule, so
 * that every cache the force keeps between ticks (radii, radius classes,
 * grids sized for the last nodes) must follow every change.
 */
import { forceCollide as d3ForceCollide } from 'd3-force';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CollideRadius, type ForceCollide, forceCollide } from '../../src/d3/index.js';
import { copyNodes, firstDifference, oracleTick, scene, type TestNode } from './oracle.js';

/** The nodes `from` after one tick of the rule, with their own radii, strength 1 and this random source. */
function ruleTick(from: readonly TestNode[], dims: 1 | 2 | 3, random = () => 0.5): TestNode[] {
  const want = copyNodes(from);
  oracleTick(
    want,
    from.map((d) => d.r),
    dims,
    1,
    random,
  );
  return want;
}

describe('accessors, as d3-force has them', () => {
  it('defaults: radius 1, strength 1, iterations 1; each setter returns the force, each getter the value', () => {
    const ours = forceCollide();
    const theirs = d3ForceCollide();
    expect(ours.strength()).toBe(theirs.strength());
    expect(ours.iterations()).toBe(theirs.iterations());
    expect(ours.radius()({}, 0, [])).toBe(theirs.radius()({}, 0, []));
    expect(ours.strength(0.5)).toBe(ours);
    expect(ours.iterations(3)).toBe(ours);
    expect(ours.radius(4)).toBe(ours);
    expect([ours.strength(), ours.iterations(), ours.radius()({}, 0, [])]).toEqual([0.5, 3, 4]);
  });

  it('coerces as d3 does: numbers by +value, null radius as 1, a radius function kept as given', () => {
    for (const value of ['2', null, undefined, 3] as unknown[]) {
      const ours = forceCollide(value as number);
      const theirs = d3ForceCollide(value as number);
      expect(ours.radius()({}, 0, [])).toBe(theirs.radius()({}, 0, []));
    }
    const radius: CollideRadius<{ r: number; x?: number }> = (d) => d.r;
    expect(forceCollide(radius).radius()).toBe(radius);
    expect(
      forceCollide()
        .strength('0.25' as unknown as number)
        .strength(),
    ).toBe(0.25);
    expect(
      forceCollide()
        .iterations('2' as unknown as number)
        .iterations(),
    ).toBe(2);
    expect(
      forceCollide()
        .radius('7' as unknown as number)
        .radius()({}, 0, []),
    ).toBe(7);
  });

  it('iterations as a loop bound: 2.5 runs 3 passes, 0, -1 and NaN none', () => {
    const nodes = scene({ kind: 'uniform', n: 60, dims: 2, seed: 31, cover: 1 });
    for (const iterations of [2.5, 0, -1, Number.NaN]) {
      const force = forceCollide<TestNode>((d) => d.r).iterations(iterations);
      force.initialize(copyNodes(nodes), () => 0.5);
      force(1);
      const passes = iterations > 0 ? Math.ceil(iterations) : 0;
      expect(force.stats().builds).toBeGreaterThanOrEqual(passes);
      if (passes === 0) expect(force.stats().pairs).toBe(0);
    }
  });

  it('refuses an infinite iteration count, keeping the old one', () => {
    const force = forceCollide().iterations(2);
    expect(() => force.iterations(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(force.iterations()).toBe(2);
  });
});

describe('the radius cache', () => {
  it('evaluates the radius for every node at initialize, with (node, i, nodes), and not at a tick', () => {
    const nodes = scene({ kind: 'uniform', n: 40, dims: 2, seed: 32 });
    const calls: [TestNode, number, TestNode[]][] = [];
    const force = forceCollide<TestNode>((node, i, list) => {
      calls.push([node, i, list]);
      return node.r;
    });
    expect(calls).toEqual([]);
    force.initialize(nodes, () => 0.5);
    expect(calls.length).toBe(40);
    expect(calls.every(([node, i, list]) => node === nodes[i] && list === nodes)).toBe(true);
    force(1);
    force(1);
    expect(calls.length).toBe(40);
  });

  it('radius(r) re-evaluates at once; a radius changed on the nodes counts only after it (as in d3)', () => {
    const nodes = scene({ kind: 'uniform', n: 120, dims: 2, seed: 33, cover: 0.6 });
    const tickWith = (radii: number[], from: TestNode[]) => {
      const want = copyNodes(from);
      oracleTick(want, radii, 2, 1, () => 0.5);
      return want;
    };
    const ours = copyNodes(nodes);
    const force = forceCollide<TestNode>((d) => d.r);
    force.initialize(ours, () => 0.5);
    // Radii doubled on the nodes: the cache still holds the old ones.
    for (const node of ours) node.r *= 2;
    const before = copyNodes(ours);
    force(1);
    expect(
      firstDifference(
        ours,
        tickWith(
          nodes.map((d) => d.r),
          before,
        ),
        2,
      ),
    ).toBeUndefined();
    // radius() with the same accessor reads them now.
    force.radius((d) => d.r);
    const after = copyNodes(ours);
    force(1);
    expect(
      firstDifference(
        ours,
        tickWith(
          after.map((d) => d.r),
          after,
        ),
        2,
      ),
    ).toBeUndefined();
  });

  it('initialize with the same array evaluates the radii again, as d3 does (seed 41)', () => {
    // A d3 simulation calls initialize again on nodes(list) and force(name, f), often with the array it had.
    const nodes = scene({ kind: 'uniform', n: 150, dims: 2, seed: 41, cover: 0.6 });
    const ours = copyNodes(nodes);
    const force = forceCollide<TestNode>((d) => d.r);
    force.initialize(ours, () => 0.5);
    for (const node of ours) node.r *= 1.5;
    force.initialize(ours, () => 0.5);
    const want = ruleTick(ours, 2);
    force(1);
    expect(firstDifference(ours, want, 2)).toBeUndefined();
  });

  it('a radius refused by radius() leaves the previous radius and its cache in place', () => {
    const nodes = scene({ kind: 'uniform', n: 80, dims: 2, seed: 34, cover: 0.6 });
    const accessor: CollideRadius<TestNode> = (d) => d.r;
    const force = forceCollide<TestNode>(accessor);
    const ours = copyNodes(nodes);
    force.initialize(ours, () => 0.5);
    expect(() => force.radius((d) => (d.index === 50 ? -2 : 1))).toThrow('the radius of node 50 is -2');
    expect(force.radius()).toBe(accessor);
    const want = ruleTick(nodes, 2);
    force(1);
    expect(firstDifference(ours, want, 2)).toBeUndefined();
  });

  it('a refused initialize keeps the previous nodes, radii and random source', () => {
    const nodes = scene({ kind: 'uniform', n: 80, dims: 3, seed: 35, cover: 0.6 });
    const force = forceCollide<TestNode>((d) => (Number.isFinite(d.r) ? d.r : Number.POSITIVE_INFINITY));
    const ours = copyNodes(nodes);
    force.initialize(ours, () => 0.5, 3);
    const other = copyNodes(nodes);
    (other[3] as TestNode).r = Number.NaN;
    expect(() => force.initialize(other, () => 0.1, 2)).toThrow(RangeError);
    const want = ruleTick(nodes, 3);
    force(1);
    expect(firstDifference(ours, want, 3)).toBeUndefined();
  });
});

describe('initialize and ticks', () => {
  it("reads d3-force-3d's arguments: the first function is the random source, the first of 1, 2, 3 the dimensions", () => {
    const nodes = scene({ kind: 'coincident', n: 60, dims: 3, seed: 36, cover: 0.8 });
    for (const [args, dims] of [
      [[], 2],
      [['x', 3], 3],
      [[7, 1], 1],
      [[() => 0.5, 2], 2],
      [[3, () => 0.5], 3],
    ] as [unknown[], 1 | 2 | 3][]) {
      const random = (args.find((a) => typeof a === 'function') as (() => number) | undefined) ?? (() => 0.5);
      const ours = copyNodes(nodes);
      const force = forceCollide<TestNode>((d) => d.r);
      // Math.random is the default source: replaced here by a constant to compare.
      force.initialize(ours, ...(args.some((a) => typeof a === 'function') ? args : [...args, () => 0.5]));
      force(1);
      const want = ruleTick(nodes, dims, random);
      expect(firstDifference(ours, want, 3), JSON.stringify(args)).toBeUndefined();
    }
  });

  it('leaves the axes it does not use alone: no vy below 2D, no vz below 3D', () => {
    const nodes = scene({ kind: 'uniform', n: 50, dims: 3, seed: 37, cover: 1 });
    for (const dims of [1, 2] as const) {
      const ours = copyNodes(nodes);
      const force = forceCollide<TestNode>((d) => d.r);
      force.initialize(ours, () => 0.3, dims);
      force(1);
      expect(force.stats().pairs).toBeGreaterThan(0);
      expect(ours.every((d, i) => d.vz === nodes[i]?.vz)).toBe(true);
      if (dims === 1) expect(ours.every((d, i) => d.vy === nodes[i]?.vy)).toBe(true);
    }
  });

  it('a tick before initialize is an Error that says what to do; an empty node list is a no-op', () => {
    expect(() => forceCollide()(1)).toThrow(/initialize\(nodes\)/);
    const force = forceCollide();
    force.initialize([]);
    expect(() => force(1)).not.toThrow();
    expect(() => force.initialize(undefined as unknown as [])).toThrow(RangeError);
  });

  it('nodes pushed after initialize collide with nothing, as in d3 (their radius is undefined there)', () => {
    const nodes = scene({ kind: 'uniform', n: 60, dims: 2, seed: 38, cover: 0.8 });
    const ours = copyNodes(nodes);
    const force = forceCollide<TestNode>((d) => d.r);
    force.initialize(ours, () => 0.5);
    const extra = copyNodes(nodes.slice(0, 10)).map((d, k) => ({ ...d, index: 60 + k }));
    ours.push(...extra);
    force(1);
    const want = ruleTick(nodes, 2);
    expect(firstDifference(ours.slice(0, 60), want, 2)).toBeUndefined();
    expect(ours.slice(60).every((d, k) => d.vx === extra[k]?.vx)).toBe(true);
  });

  it('one force initialized again and again: few nodes, then many spread out, then few (seed 40)', () => {
    // Each initialize sizes the grids for its nodes (cells by the thousand here, a handful before).
    const force = forceCollide<TestNode>((d) => d.r);
    for (const [n, cover, dims] of [
      [12, 0.7, 2],
      [4000, 0.03, 2],
      [30, 0.7, 3],
      [3000, 0.02, 3],
      [5, 0.5, 1],
      [3000, 0.02, 1],
    ] as [number, number, 1 | 2 | 3][]) {
      const nodes = scene({ kind: 'uniform', n, dims, seed: 40, cover });
      const ours = copyNodes(nodes);
      force.initialize(ours, () => 0.5, dims);
      force(1);
      const want = ruleTick(nodes, dims);
      expect(firstDifference(ours, want, dims), `${n} nodes, ${dims}D`).toBeUndefined();
      expect(force.stats().pairs, `${n} nodes, ${dims}D`).toBeGreaterThan(0);
    }
  });

  it('each build sizes the grids for the nodes where they are: a layout moved far away stays dense (seed 42)', () => {
    // A box kept from an earlier build would span both places: millions of cells, so a hashed grid.
    for (const dims of [2, 3] as const) {
      const nodes = scene({ kind: 'uniform', n: 400, dims, seed: 42, cover: 0.6 });
      const force = forceCollide<TestNode>((d) => d.r);
      force.initialize(nodes, () => 0.5, dims);
      force(1);
      expect(force.stats().hashed, `${dims}D`).toBe(0);
      for (const node of nodes) {
        node.x += 1e7;
        node.y -= 1e7;
      }
      const want = ruleTick(nodes, dims);
      force(1);
      expect(firstDifference(nodes, want, dims), `${dims}D`).toBeUndefined();
      expect(force.stats(), `${dims}D`).toMatchObject({ classes: 1, hashed: 0 });
    }
  });

  it('all radii 0: nothing can overlap, no velocity changes, no work', () => {
    const nodes = scene({ kind: 'coincident', n: 40, dims: 2, seed: 39 });
    const ours = copyNodes(nodes);
    const force = forceCollide<TestNode>(0);
    force.initialize(ours, () => 0.5);
    force(1);
    expect(ours).toEqual(nodes);
    expect(force.stats()).toEqual({ pairs: 0, tested: 0, refiled: 0, builds: 0, classes: 0, hashed: 0 });
  });

  it('the types take a d3 SimulationNodeDatum and give back a force d3-force accepts', () => {
    // Compile-time: see test/d3/types.ts; here the run-time side of the same calls.
    const force: ForceCollide = forceCollide();
    expect(typeof force.initialize).toBe('function');
  });
});

/** The model: a force applied by the rule, with d3's accessors and cache. */
interface Model {
  nodes: TestNode[];
  radius: CollideRadius<TestNode>;
  radii: number[];
  strength: number;
  iterations: number;
  dims: 1 | 2 | 3;
}

interface Real {
  nodes: TestNode[];
  force: ForceCollide<TestNode>;
}

const random = () => 0.3;

class Initialize implements fc.Command<Model, Real> {
  constructor(
    readonly kind: 'uniform' | 'clustered' | 'power law' | 'huge among tiny' | 'coincident',
    readonly n: number,
    readonly dims: 1 | 2 | 3,
    readonly seed: number,
  ) {}
  check = () => true;
  run(model: Model, real: Real): void {
    const nodes = scene({ kind: this.kind, n: this.n, dims: this.dims, seed: this.seed, cover: 0.7 });
    model.nodes = copyNodes(nodes);
    model.dims = this.dims;
    model.radii = model.nodes.map((d, i) => model.radius(d, i, model.nodes));
    real.nodes = copyNodes(nodes);
    real.force.initialize(real.nodes, random, this.dims);
  }
  toString = () => `initialize(${this.kind}, ${this.n}, ${this.dims}D, seed ${this.seed})`;
}

class SetRadius implements fc.Command<Model, Real> {
  constructor(readonly scale: number) {}
  check = () => true;
  run(model: Model, real: Real): void {
    const scale = this.scale;
    const radius: CollideRadius<TestNode> = (d, i) => d.r * scale + (i % 3) * 0.1;
    model.radius = radius;
    model.radii = model.nodes.map((d, i) => radius(d, i, model.nodes));
    real.force.radius(radius);
  }
  toString = () => `radius(r * ${this.scale})`;
}

class SetStrength implements fc.Command<Model, Real> {
  constructor(readonly strength: number) {}
  check = () => true;
  run(model: Model, real: Real): void {
    model.strength = this.strength;
    real.force.strength(this.strength);
  }
  toString = () => `strength(${this.strength})`;
}

class SetIterations implements fc.Command<Model, Real> {
  constructor(readonly iterations: number) {}
  check = () => true;
  run(model: Model, real: Real): void {
    model.iterations = this.iterations;
    real.force.iterations(this.iterations);
  }
  toString = () => `iterations(${this.iterations})`;
}

class Tick implements fc.Command<Model, Real> {
  check = (model: Readonly<Model>) => model.nodes.length > 0;
  run(model: Model, real: Real): void {
    // Both start the tick from the model's numbers (ticks apart, sums in another order drift by ulps).
    for (let i = 0; i < model.nodes.length; i++) Object.assign(real.nodes[i] as TestNode, model.nodes[i]);
    oracleTick(model.nodes, model.radii, model.dims, model.strength, random, model.iterations);
    real.force(1);
    expect(firstDifference(real.nodes, model.nodes, model.dims)).toBeUndefined();
    // A pass builds once, and again only after n + 1 refilings since its last build (the refiled lists' room).
    const { builds, refiled } = real.force.stats();
    const passes = model.iterations > 0 ? Math.ceil(model.iterations) : 0;
    expect(builds).toBeLessThanOrEqual(passes + Math.floor(refiled / (model.nodes.length + 1)));
    // The simulation's step: positions move, velocities decay.
    for (const list of [model.nodes, real.nodes]) {
      for (const node of list) {
        node.x += node.vx *= 0.6;
        node.y += node.vy *= 0.6;
        node.z += node.vz *= 0.6;
      }
    }
  }
  toString = () => 'tick';
}

class Move implements fc.Command<Model, Real> {
  constructor(
    readonly by: number,
    readonly every: number,
  ) {}
  check = (model: Readonly<Model>) => model.nodes.length > 0;
  run(model: Model, real: Real): void {
    for (const list of [model.nodes, real.nodes]) {
      for (let i = 0; i < list.length; i += this.every) {
        const node = list[i] as TestNode;
        node.x += this.by;
        node.y -= this.by / 2;
      }
    }
  }
  toString = () => `move every ${this.every}th node by ${this.by}`;
}

describe('sequences of calls against a model force (fast-check commands)', () => {
  it('initialize, radius, strength, iterations, ticks and moves in any order (seed 0xd30)', () => {
    const commands = [
      fc
        .record({
          kind: fc.constantFrom(
            'uniform' as const,
            'clustered' as const,
            'power law' as const,
            'huge among tiny' as const,
            'coincident' as const,
          ),
          n: fc.integer({ min: 0, max: 150 }),
          dims: fc.constantFrom(1 as const, 2 as const, 3 as const),
          seed: fc.integer({ min: 1, max: 1000 }),
        })
        .map(({ kind, n, dims, seed }) => new Initialize(kind, n, dims, seed)),
      fc.constantFrom(0.5, 1, 2, 6).map((s) => new SetRadius(s)),
      fc.constantFrom(0, 0.5, 1).map((s) => new SetStrength(s)),
      fc.constantFrom(0, 1, 2).map((k) => new SetIterations(k)),
      fc.constant(new Tick()),
      fc.constant(new Tick()),
      fc
        .record({ by: fc.constantFrom(0.5, 40, 1e6), every: fc.constantFrom(1, 7) })
        .map(({ by, every }) => new Move(by, every)),
    ];
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 25 }), (cmds) => {
        const radius: CollideRadius<TestNode> = (d) => d.r;
        const model: Model = { nodes: [], radius, radii: [], strength: 1, iterations: 1, dims: 2 };
        const real: Real = { nodes: [], force: forceCollide<TestNode>(radius) };
        real.force.initialize(real.nodes, random);
        fc.modelRun(() => ({ model, real }), cmds);
      }),
      { seed: 0xd30, numRuns: 120 },
    );
  });
});
