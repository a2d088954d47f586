/**
 * The shapes spatialhash/d3 works on, declared structurally so that the
 * subpath imports nothing from d3 (at run time or in its declarations): a
 * d3-force `SimulationNodeDatum` is a {@link CollideNode}, and the force
 * {@link forceCollide} returns is assignable to d3-force's `ForceCollide`.
 *
 * @module
 */

/**
 * What the collision force reads and writes on a node: d3-force's
 * `SimulationNodeDatum`, plus d3-force-3d's third axis. Positions `x`, `y`,
 * `z` are read, velocities `vx`, `vy`, `vz` read and written; which axes
 * depends on the simulation's number of dimensions (1, 2 or 3; see
 * {@link ForceCollide.initialize}). `index` is not read: a node's place in
 * the nodes array orders the pairs, as it does in d3, whose simulation sets
 * `index` to it.
 */
export interface CollideNode {
  /** The node's position in the simulation's nodes array (set by the simulation). */
  index?: number | undefined;
  /** Position along x. */
  x?: number | undefined;
  /** Position along y (2D and 3D). */
  y?: number | undefined;
  /** Position along z (3D, d3-force-3d). */
  z?: number | undefined;
  /** Velocity along x. */
  vx?: number | undefined;
  /** Velocity along y (2D and 3D). */
  vy?: number | undefined;
  /** Velocity along z (3D, d3-force-3d). */
  vz?: number | undefined;
}

/** A node's radius, as d3 calls it: the node, its index in the nodes array, and the array. */
export type CollideRadius<NodeDatum> = (node: NodeDatum, i: number, nodes: NodeDatum[]) => number;

/** Counts from the last tick of a {@link ForceCollide}, to see what it did and what it cost. */
export interface CollideStats {
  /** Overlapping pairs corrected (over every iteration of the tick). */
  pairs: number;
  /** Candidate pairs whose distance was tested. */
  tested: number;
  /** Nodes moved so far by corrections that they had to be filed again in the grid. */
  refiled: number;
  /** Times the grids were built (one per iteration, more where many nodes were refiled). */
  builds: number;
  /** Radius classes, each with a grid of its own (0 when no pair can overlap). */
  classes: number;
  /**
   * Of those, how many the last build hashed: their nodes were so spread out
   * (far outliers) that a dense grid would have had more than 4 cells per node.
   */
  hashed: number;
}

/**
 * The collision force: d3-force's `forceCollide` with the same accessors and
 * the same correction, found through grids instead of a quadtree. Call it
 * with `alpha` (ignored, as in d3) to apply one tick.
 */
export interface ForceCollide<NodeDatum extends CollideNode = CollideNode> {
  /** Applies the force to the nodes given to {@link ForceCollide.initialize}: one tick, `iterations()` passes. */
  (alpha?: number): void;
  /**
   * Takes the nodes and the simulation's random source (used to separate
   * coincident nodes), and evaluates every node's radius. d3-force calls it
   * with `(nodes, random)`, d3-force-3d with `(nodes, random, numDimensions)`:
   * the first function argument is the random source (`Math.random` when
   * none), the first argument that is 1, 2 or 3 the number of dimensions
   * (2 when none), as d3-force-3d reads them.
   *
   * @throws RangeError when a radius is negative or infinite, naming the
   * node and the value (the force is then left as it was). A radius that is
   * NaN is taken as d3 takes it: the node collides with nothing.
   */
  initialize(nodes: NodeDatum[], ...args: unknown[]): void;
  /** The radius accessor (a constant radius comes back as a function returning it). */
  radius(): CollideRadius<NodeDatum>;
  /**
   * Sets the radius, a number or `(node, i, nodes) => number`, and evaluates
   * it for every node now, as d3 does: radii are cached until the next call
   * of this or of {@link ForceCollide.initialize}.
   *
   * @throws RangeError as {@link ForceCollide.initialize} does; the force then keeps its previous radius.
   */
  radius(radius: number | CollideRadius<NodeDatum>): this;
  /** The strength (default 1). */
  strength(): number;
  /** Sets the strength: how much of an overlap one correction removes (1 removes it all). */
  strength(strength: number): this;
  /** The number of passes per tick (default 1). */
  iterations(): number;
  /**
   * Sets the number of passes per tick: the loop runs while its counter is
   * below `iterations`, as d3's does (1.5 means 2, 0 or NaN none).
   *
   * @throws RangeError for Infinity, which would never end.
   */
  iterations(iterations: number): this;
  /** What the last tick did (see {@link CollideStats}); all zeros before the first. */
  stats(): CollideStats;
}
