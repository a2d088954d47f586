/**
 * The grid's own compute shaders: hash and count, exclusive scan, scatter, and
 * the two passes behind the readback helpers. Every pass uses 256 invocations
 * per workgroup, one point (or four counters, for the scan: a chunk of counters) each.
 *
 * @module
 */
import { CELL_MATH, gridWGSL } from './wgsl.js';

/** Invocations per workgroup of every pass. */
export const WORKGROUP = 256;
/** Counters one scan invocation sums serially. */
export const SCAN_CHUNK = 32;

const POINT_INDEX = /* wgsl */ `
fn pointIndex(workgroup: vec3<u32>, local: u32) -> u32 {
  return workgroup.x * ${WORKGROUP}u + local;
}

fn loadPoint(i: u32) -> vec3<f32> {
  let base = i * gridParams.stride;
  var z = 0.0;
  if (gridParams.dimension == 3u) {
    z = positions[base + 2u];
  }
  return vec3<f32>(positions[base], positions[base + 1u], z);
}
`;

/**
 * Pass 1: each point's bucket, and its rank among the points of that bucket
 * from an atomic count (the counts land in cellStart, scanned in place next).
 */
export const HASH_SHADER = /* wgsl */ `
${CELL_MATH}
@group(0) @binding(0) var<uniform> gridParams: GridParams;
@group(0) @binding(1) var<storage, read> positions: array<f32>;
@group(0) @binding(2) var<storage, read_write> bucketCounts: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> pointSlots: array<vec2<u32>>;
${POINT_INDEX}
@compute @workgroup_size(${WORKGROUP})
fn hashPoints(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  let i = pointIndex(workgroup, local);
  if (i >= gridParams.count) {
    return;
  }
  let bucket = gridBucketOf(gridCellOf(loadPoint(i)));
  pointSlots[i] = vec2<u32>(bucket, atomicAdd(&bucketCounts[bucket], 1u));
}
`;

/** Pass 3: each point to its bucket's start plus its rank; no atomics, so no second count. */
export const SCATTER_SHADER = /* wgsl */ `
${CELL_MATH}
@group(0) @binding(0) var<uniform> gridParams: GridParams;
@group(0) @binding(1) var<storage, read> positions: array<f32>;
@group(0) @binding(2) var<storage, read> cellStart: array<u32>;
@group(0) @binding(3) var<storage, read> pointSlots: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read_write> sortedIndices: array<u32>;
@group(0) @binding(5) var<storage, read_write> sortedPositions: array<vec4<f32>>;
${POINT_INDEX}
@compute @workgroup_size(${WORKGROUP})
fn scatterPoints(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  let i = pointIndex(workgroup, local);
  if (i >= gridParams.count) {
    return;
  }
  let slot = pointSlots[i];
  let to = cellStart[slot.x] + slot.y;
  sortedIndices[to] = i;
  sortedPositions[to] = vec4<f32>(loadPoint(i), 0.0);
}
`;

/**
 * Exclusive scan, one level: each invocation scans a chunk of SCAN_CHUNK
 * counters in place, serially, and writes the chunk's total to chunkSums;
 * once the chunk sums are scanned (the next level, 32 times smaller),
 * addChunkSums adds each chunk's offset back. No workgroup barriers:
 * SwiftShader, the CI's software Vulkan, crashes now and then inside
 * workgroupBarrier() when run in Node (marl fibers), and a serial chunk costs
 * a real GPU little next to the hash and scatter passes.
 */
export const SCAN_SHADER = /* wgsl */ `
struct ScanParams {
  n: u32,
  reserved0: u32,
  reserved1: u32,
  reserved2: u32,
}
@group(0) @binding(0) var<uniform> scan: ScanParams;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> chunkSums: array<u32>;

@compute @workgroup_size(${WORKGROUP})
fn scanChunks(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  let chunk = workgroup.x * ${WORKGROUP}u + local;
  let base = chunk * ${SCAN_CHUNK}u;
  if (base >= scan.n) {
    return;
  }
  let end = min(base + ${SCAN_CHUNK}u, scan.n);
  var sum = 0u;
  for (var i = base; i < end; i++) {
    let x = data[i];
    data[i] = sum;
    sum += x;
  }
  chunkSums[chunk] = sum;
}

@compute @workgroup_size(${WORKGROUP})
fn addChunkSums(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  let chunk = workgroup.x * ${WORKGROUP}u + local;
  let base = chunk * ${SCAN_CHUNK}u;
  if (base >= scan.n) {
    return;
  }
  let add = chunkSums[chunk];
  let end = min(base + ${SCAN_CHUNK}u, scan.n);
  for (var i = base; i < end; i++) {
    data[i] += add;
  }
}
`;

/**
 * Readback helpers: countRows counts each point's neighbours (itself
 * excluded) into rowOffsets[i], fillRows writes them at the scanned offsets.
 * One invocation per sorted slot, so neighbouring invocations read
 * neighbouring cells; both use the public neighbour loop, which they test.
 */
export const ROWS_SHADER = /* wgsl */ `
${gridWGSL(0)}
struct RowParams {
  radius: f32,
  reserved0: u32,
  reserved1: u32,
  reserved2: u32,
}
@group(1) @binding(0) var<uniform> rows: RowParams;
@group(1) @binding(1) var<storage, read_write> rowOffsets: array<u32>;
@group(1) @binding(2) var<storage, read_write> rowIndices: array<u32>;

@compute @workgroup_size(${WORKGROUP})
fn countRows(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  let s = workgroup.x * ${WORKGROUP}u + local;
  if (s >= gridParams.count) {
    return;
  }
  let me = gridSortedIndices[s];
  var found = 0u;
  var it = gridNeighbors(gridSortedPositions[s].xyz, rows.radius);
  while (gridNext(&it)) {
    if (it.index != me) {
      found += 1u;
    }
  }
  rowOffsets[me] = found;
}

@compute @workgroup_size(${WORKGROUP})
fn fillRows(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  let s = workgroup.x * ${WORKGROUP}u + local;
  if (s >= gridParams.count) {
    return;
  }
  let me = gridSortedIndices[s];
  var to = rowOffsets[me];
  var it = gridNeighbors(gridSortedPositions[s].xyz, rows.radius);
  while (gridNext(&it)) {
    if (it.index != me) {
      rowIndices[to] = it.index;
      to += 1u;
    }
  }
}
`;
