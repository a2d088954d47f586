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
