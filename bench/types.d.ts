// Declarations for the untyped peers, covering only what the benchmarks call.

declare module 'd3-octree' {
  /** A leaf holds one datum and chains coincident ones through `next`; an internal node is an array of 8. */
  export interface OctreeLeaf<T> {
    data: T;
    next?: OctreeLeaf<T>;
    length?: undefined;
  }
  export type OctreeNode<T> = OctreeLeaf<T> | (Array<OctreeNode<T> | undefined> & { length: 8 });
  export interface Octree<T> {
    x(accessor: (d: T) => number): this;
    y(accessor: (d: T) => number): this;
    z(accessor: (d: T) => number): this;
    addAll(data: T[]): this;
    add(datum: T): this;
    remove(datum: T): this;
    size(): number;
    visit(
      callback: (
        node: OctreeNode<T>,
        x0: number,
        y0: number,
        z0: number,
        x1: number,
        y1: number,
        z1: number,
      ) => unknown,
    ): this;
  }
  export function octree<T = [number, number, number]>(): Octree<T>;
}

declare module 'box-intersect' {
  /** A box is [minX, minY, ..., maxX, maxY, ...]. Returning anything but undefined from `visit` stops early. */
  type Box = ArrayLike<number>;
  function boxIntersect(boxes: Box[], visit: (i: number, j: number) => unknown): unknown;
  function boxIntersect(red: Box[], blue: Box[], visit: (i: number, j: number) => unknown): unknown;
  function boxIntersect(boxes: Box[]): [number, number][];
  export default boxIntersect;
}

// d3-force-3d (no @types package): what the d3 workload and test/d3 call. Its forces are d3-force's, with a
// third axis and the simulation's numDimensions passed to each force's initialize.
declare module 'd3-force-3d' {
  type Accessor<T> = number | ((node: T, i: number, nodes: T[]) => number);
  export interface Force3D<T> {
    (alpha: number): void;
    initialize?(nodes: T[], ...args: unknown[]): void;
  }
  export interface ForceCollide3D<T> extends Force3D<T> {
    initialize(nodes: T[], ...args: unknown[]): void;
    radius(radius: Accessor<T>): this;
    strength(strength: number): this;
    iterations(iterations: number): this;
  }
  export interface Simulation3D<T> {
    tick(iterations?: number): this;
    stop(): this;
    force(name: string, force: unknown): this;
    numDimensions(dims: number): this;
    nodes(): T[];
  }
  // biome-ignore lint/suspicious/noExplicitAny: the peer is untyped; a node is whatever the caller's objects are.
  export function forceCollide<T = any>(radius?: Accessor<T>): ForceCollide3D<T>;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  export function forceSimulation<T = any>(nodes?: T[], numDimensions?: number): Simulation3D<T>;
  export function forceX<T>(x?: Accessor<T>): Force3D<T>;
  export function forceY<T>(y?: Accessor<T>): Force3D<T>;
  export function forceZ<T>(z?: Accessor<T>): Force3D<T>;
}
