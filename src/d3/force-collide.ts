/**
 * forceCollide: d3-force's collision force, drop-in, on grids.
 *
 * The accessors, their defaults and coercions, `initialize`'s arguments and
 * the radius cache follow d3-force's collide.js and d3-force-3d's; each
 * tick reads the nodes' positions and velocities into typed arrays once,
 * runs `iterations` passes (pass2d.ts, pass3d.ts) and writes the velocities
 * back. Where the answers differ from d3's, and why, is written down in
 * docs/guides/d3.md.
 *
 * @module
 */
import { describe } from '../core/validate.js';
import { radiusClasses } from './classes.js';
import { CollideGrids } from './grids.js';
import { readNodes, writeNodes } from './nodes.js';
import { pass2 } from './pass2d.js';
import { pass3 } from './pass3d.js';
import type { CollideNode, CollideRadius, CollideStats, ForceCollide } from './types.js';

const OWNER = 'forceCollide';

/**
 * A collision force for d3-force's `forceSimulation` (and d3-force-3d's, in
 * 1, 2 or 3 dimensions) that treats each node as a circle (a sphere in 3D)
 * of the given radius and pushes overlapping nodes apart as d3's
 * `forceCollide` does: its rule (nodes visited in order, each meeting the
 * later ones that overlap it then) and its arithmetic, pair for pair, with
 * the pairs found through grids rebuilt every pass instead of a quadtree.
 * Swap `import { forceCollide } from 'd3-force'` for this import: one tick
 * gives d3's velocities to rounding, except for the pairs d3's quadtree
 * skips (pushed into overlap during a pass, or coincident), which this force
 * corrects too; docs/guides/d3.md has the details.
 *
 * @param radius a number, or `(node, i, nodes) => number`, evaluated for every node when the force is
 *   initialized (default 1, as d3's).
 *
 * @example
 * ```ts
 * import { forceSimulation, forceX, forceY, type SimulationNodeDatum } from 'd3-force';
 * import { forceCollide } from 'spatialhash/d3';
 *
 * interface Bubble extends SimulationNodeDatum {
 *   value: number;
 *   r: number;
 * }
 * const nodes: Bubble[] = Array.from({ length: 1000 }, (_, i) => ({ value: i % 10, r: 2 + (i % 3) }));
 * forceSimulation(nodes)
 *   .force('x', forceX<Bubble>((d) => d.value * 40))
 *   .force('y', forceY<Bubble>(0))
 *   .force('collide', forceCollide<Bubble>((d) => d.r))
 *   .stop()
 *   .tick(120);
 * ```
 */
export function forceCollide<NodeDatum extends CollideNode = CollideNode>(
  radius?: number | CollideRadius<NodeDatum>,
): ForceCollide<NodeDatum> {
  let nodes: NodeDatum[] | undefined;
  let radiusOf: CollideRadius<NodeDatum> =
    typeof radius === 'function' ? radius : constant(radius === null || radius === undefined ? 1 : +radius);
  let strength = 1;
  let iterations = 1;
  let random: () => number = Math.random;
  let dimensions: 1 | 2 | 3 = 2;
  /** How many nodes the radii were evaluated for. */
  let evaluated = 0;
  let grids: CollideGrids | undefined;
  // Written in place every tick (a tick allocates nothing once the grids are sized); stats() hands out copies.
  const last: CollideStats = { pairs: 0, tested: 0, refiled: 0, builds: 0, classes: 0, hashed: 0 };

  /** Evaluates `accessor` for every node, checks every radius, and only then makes them the force's. */
  function evaluate(accessor: CollideRadius<NodeDatum>, list: NodeDatum[], dims: 1 | 2 | 3): void {
    const n = typeof list === 'object' && list !== null ? list.length : Number.NaN;
    if (!Number.isInteger(n) || n < 0) {
      throw new RangeError(`${OWNER}: nodes must be an array, got ${describe(list)}`);
    }
    const radii = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const r = +accessor(list[i] as NodeDatum, i, list);
      if (r < 0 || r === Number.POSITIVE_INFINITY) {
        throw new RangeError(
          `${OWNER}: the radius of node ${i} is ${describe(r)}; a radius must be finite and >= 0 (NaN makes a node collide with nothing, as in d3)`,
        );
      }
      radii[i] = r;
    }
    const axes = dims === 3 ? 3 : 2;
    const target = grids !== undefined && grids.dims === axes ? grids : new CollideGrids(axes);
    target.setClasses(n, radii, radiusClasses(radii, n, new Int32Array(n)));
    grids = target;
    evaluated = n;
  }

  const force = ((): void => {
    if (nodes === undefined || grids === undefined) {
      throw new Error(`${OWNER}: the force has no nodes; call initialize(nodes) first (a d3 simulation does)`);
    }
    const g = grids;
    g.pairs = 0;
    g.tested = 0;
    g.refiled = 0;
    g.builds = 0;
    // Nodes added to the array since initialize have no radius, as in d3 (radii[node.index] is undefined
    // there): they collide with nothing.
    const n = Math.min(nodes.length, evaluated);
    if (g.classes > 0 && iterations > 0 && n > 0) {
      g.n = n;
      readNodes(g, nodes, n, dimensions);
      for (let k = 0; k < iterations; ++k) {
        g.tested += dimensions === 3 ? pass3(g, strength, random) : pass2(g, strength, random, dimensions === 2);
        g.flush();
      }
      writeNodes(g, nodes, n, dimensions);
      g.n = evaluated;
    }
    last.pairs = g.pairs;
    last.tested = g.tested;
    last.refiled = g.refiled;
    last.builds = g.builds;
    last.classes = g.classes;
    last.hashed = g.builds > 0 ? g.hashedClasses() : 0;
  }) as ForceCollide<NodeDatum>;

  force.initialize = (list: NodeDatum[], ...args: unknown[]): void => {
    // As d3-force-3d reads them: the first function is the random source, the first of 1, 2, 3 the dimensions.
    const source = args.find((arg) => typeof arg === 'function') as (() => number) | undefined;
    const dims = args.find((arg) => arg === 1 || arg === 2 || arg === 3) as 1 | 2 | 3 | undefined;
    evaluate(radiusOf, list, dims ?? 2);
    nodes = list;
    random = source ?? Math.random;
    dimensions = dims ?? 2;
  };

  force.radius = ((...args: [(number | CollideRadius<NodeDatum>)?]) => {
    if (args.length === 0) return radiusOf;
    const value = args[0];
    const accessor = typeof value === 'function' ? value : constant(+(value as number));
    if (nodes !== undefined) evaluate(accessor, nodes, dimensions);
    radiusOf = accessor;
    return force;
  }) as ForceCollide<NodeDatum>['radius'];

  force.strength = ((...args: [number?]) => {
    if (args.length === 0) return strength;
    strength = +(args[0] as number);
    return force;
  }) as ForceCollide<NodeDatum>['strength'];

  force.iterations = ((...args: [number?]) => {
    if (args.length === 0) return iterations;
    const value = +(args[0] as number);
    if (value === Number.POSITIVE_INFINITY) {
      throw new RangeError(`${OWNER}: iterations must be finite, got Infinity (a tick would never end)`);
    }
    iterations = value;
    return force;
  }) as ForceCollide<NodeDatum>['iterations'];

  force.stats = (): CollideStats => ({ ...last });

  return force;
}

/** d3's constant accessor. */
function constant<NodeDatum>(value: number): CollideRadius<NodeDatum> {
  return () => value;
}
