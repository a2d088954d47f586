/**
 * The WGSL a user's compute shader includes to walk a GPU grid's neighbours,
 * and the cell math the grid's own build passes share with it, so a point is
 * hashed to the same cell when the grid is built and when it is searched.
 *
 * @module
 */

/**
 * Largest cell coordinate magnitude (2^30). Coordinates are clamped to it, so
 * cell numbers and the `low - 1` / `high + 1` of a neighbour loop always fit
 * an i32; clamping keeps the cell function monotone, so far points stay found
 * (they share the outermost cells and searches there get slower, never wrong).
 */
export const CELL_LIMIT = 2 ** 30;

/**
 * The uniform block shared by build passes and neighbour loops, and the cell
 * and bucket functions. `inverseCellSize` multiplies rather than divides: a
 * product is correctly rounded in WGSL (a quotient only to 2.5 ULP), so
 * `gridCellOf` is monotone in each coordinate, which is what makes the
 * neighbour loop's cell range provably cover every point within the radius.
 */
export const CELL_MATH = /* wgsl */ `
struct GridParams {
  inverseCellSize: f32,
  tableMask: u32,
  count: u32,
  dimension: u32,
  stride: u32,
  reserved0: u32,
  reserved1: u32,
  reserved2: u32,
}

fn gridCellOf(p: vec3<f32>) -> vec3<i32> {
  let limit = vec3<f32>(${CELL_LIMIT}.0);
  return vec3<i32>(clamp(floor(p * gridParams.inverseCellSize), -limit, limit));
}

// u32 arithmetic only (i32 overflow is not wrapping in every language that
// could port this, and no abs() bias towards small buckets).
fn gridBucketOf(cell: vec3<i32>) -> u32 {
  let u = bitcast<vec3<u32>>(cell);
  var h = (u.x * 0x8da6b343u) ^ (u.y * 0xd8163841u) ^ (u.z * 0xcb1ab31fu);
  h = (h ^ (h >> 16u)) * 0x7feb352du;
  h = h ^ (h >> 15u);
  return h & gridParams.tableMask;
}
`;

/** The neighbour iterator; needs the four grid bindings declared. */
const NEIGHBOR_LOOP = /* wgsl */ `
struct GridNeighbors {
  center: vec3<f32>,
  radiusSquared: f32,
  low: vec3<i32>,
  high: vec3<i32>,
  cell: vec3<i32>,
  slot: u32,
  end: u32,
  // The current neighbour, valid after gridNext returned true:
  index: u32,
  sortedSlot: u32,
  position: vec3<f32>,
  distanceSquared: f32,
}

fn gridNeighbors(center: vec3<f32>, radius: f32) -> GridNeighbors {
  var it: GridNeighbors;
  var c = center;
  // The cell range is taken over a radius larger by 2^-20, so it holds every
  // point that passes the float32 distance test, not only those whose exact
  // distance is <= radius: the result is exactly "dot(d, d) <= radius^2 in
  // float32", the same from either point of a pair.
  let reach = radius * (1.0 + 1.0 / 1048576.0);
  var r = vec3<f32>(reach);
  if (gridParams.dimension == 2u) {
    c.z = 0.0;
    r.z = 0.0;
  }
  it.center = c;
  it.radiusSquared = radius * radius;
  it.low = gridCellOf(c - r);
  it.high = gridCellOf(c + r);
  it.cell = vec3<i32>(it.low.x - 1, it.low.y, it.low.z);
  it.slot = 0u;
  it.end = 0u;
  return it;
}

fn gridNextCell(it: ptr<function, GridNeighbors>) -> bool {
  var c = (*it).cell;
  c.x += 1;
  if (c.x > (*it).high.x) {
    c.x = (*it).low.x;
    c.y += 1;
    if (c.y > (*it).high.y) {
      c.y = (*it).low.y;
      c.z += 1;
      if (c.z > (*it).high.z) {
        return false;
      }
    }
  }
  (*it).cell = c;
  let bucket = gridBucketOf(c);
  (*it).slot = gridCellStart[bucket];
  (*it).end = gridCellStart[bucket + 1u];
  return true;
}

fn gridNext(it: ptr<function, GridNeighbors>) -> bool {
  loop {
    if ((*it).slot < (*it).end) {
      let s = (*it).slot;
      (*it).slot = s + 1u;
      let q = gridSortedPositions[s].xyz;
      let d = q - (*it).center;
      let d2 = dot(d, d);
      if (!(d2 <= (*it).radiusSquared)) {
        continue;
      }
      // A bucket holds every cell hashed to it: only points of the visited
      // cell count, so each point is reported once, under its own cell, even
      // when several visited cells share a bucket. Tested after the distance,
      // which most candidates fail: a third less time on an H100 (2.75 ms
      // against 4.21 for a million particles' density pass).
      if (any(gridCellOf(q) != (*it).cell)) {
        continue;
      }
      (*it).index = gridSortedIndices[s];
      (*it).sortedSlot = s;
      (*it).position = q;
      (*it).distanceSquared = d2;
      return true;
    }
    if (!gridNextCell(it)) {
      return false;
    }
  }
}
`;

/**
 * The grid's WGSL with its bindings in bind group `group`: binding 0 the
 * `GridParams` uniform, 1 `gridCellStart`, 2 `gridSortedIndices`, 3
 * `gridSortedPositions` (all read-only storage), then the neighbour loop.
 * Bind {@link GPUPointGrid3D.bindGroup} (whose layout is
 * {@link GPUPointGrid3D.bindGroupLayout}) at that index.
 *
 * @param group the bind group index, an integer in [0, 3]. Default 1.
 * @throws RangeError for another group.
 */
export function gridWGSL(group = 1): string {
  if (!Number.isInteger(group) || group < 0 || group > 3) {
    throw new RangeError(`group must be an integer in [0, 3], got ${String(group)}`);
  }
  return `// spatialhash/webgpu: grid bindings and neighbour loop (bind group ${group})
${CELL_MATH}
@group(${group}) @binding(0) var<uniform> gridParams: GridParams;
@group(${group}) @binding(1) var<storage, read> gridCellStart: array<u32>;
@group(${group}) @binding(2) var<storage, read> gridSortedIndices: array<u32>;
@group(${group}) @binding(3) var<storage, read> gridSortedPositions: array<vec4<f32>>;
${NEIGHBOR_LOOP}`;
}

/**
 * WGSL to paste in front of a compute shader that searches a
 * {@link GPUPointGrid3D} or {@link GPUPointGrid2D}: the grid's bindings in
 * **bind group 1** (binding 0: `gridParams`, a uniform; 1: `gridCellStart`,
 * 2: `gridSortedIndices`, 3: `gridSortedPositions`, read-only storage) and
 * a neighbour loop. Keep your own bindings in group 0 (or 2, 3) and bind the
 * grid's {@link GPUPointGrid3D.bindGroup} at index 1, with a pipeline layout
 * of `[yourLayout, grid.bindGroupLayout]`. {@link gridWGSL} gives the same
 * text for another group index. Every name it declares starts with `grid` or
 * `Grid`.
 *
 * The loop visits each grid point within `radius` of `center` exactly once
 * (the center itself too when it is a grid point: skip `it.index == i` for
 * "neighbours other than me"). Order: cell by cell over the cells the
 * radius reaches, x fastest, then y, then z, each from low to high; within
 * a cell, by sorted slot, an order the build's atomic counters set and that
 * may change from one build to the next even for the same points. A sum
 * over the loop in float32 may therefore differ in its last bits between
 * builds:
 *
 * ```wgsl
 * var it = gridNeighbors(center, radius);
 * while (gridNext(&it)) {
 *   // it.index: the point's index in the positions given to build();
 *   // it.sortedSlot: its slot in cell order; it.position; it.distanceSquared
 * }
 * ```
 *
 * "Within" means `dot(d, d) <= radius * radius` in float32, d the difference
 * of the two points; a 2D grid ignores z. Stop at the first false. Any
 * radius >= 0 works; a radius up to the cell size visits 3x3x3 cells (3x3 in
 * 2D), a radius of k cell sizes (2k + 1)^3.
 *
 * The iterator is the short form. In a hot pass, write the loop yourself
 * from the same names: run one invocation per sorted slot `s` (center
 * `gridSortedPositions[s].xyz`, result stored at `gridSortedIndices[s]`),
 * take `let range = gridNeighbors(center, radius)`, and loop over the cells
 * from `range.low` to `range.high` (z outermost) and, in each, over the
 * slots `gridCellStart[b]` to `gridCellStart[b + 1] - 1` of its bucket
 * `b = gridBucketOf(cell)`, keeping the points `q` within `range.radiusSquared`
 * of `range.center` whose `gridCellOf(q)` is the cell (a bucket holds every
 * cell hashed to it). `gridNext` returns to its caller once per neighbour,
 * so the lanes of a warp wait for one another at every neighbour; nested
 * loops part ways only over a cell's points. docs/guides/gpu.md has the
 * example and the timings.
 */
export const wgsl: string = gridWGSL(1);
