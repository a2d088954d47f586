/**
 * The grid's own compute shaders: hash and count, exclusive scan, scatter, and
 * the two passes behind the readback helpers. Every pass uses 256 invocations
 * per workgroup: one point each, or, in the scan, four counters each.
 *
 * @module
 */
import { CELL_MATH, gridWGSL } from './wgsl.js';

/** Invocations per workgroup of every pass. */
export const WORKGROUP = 256;
/** Counters each scan invocation holds: a scan block is WORKGROUP * SCAN_ITEMS counters. */
export const SCAN_ITEMS = 4;
/** Counters one workgroup scans: 1,024, 4 KiB of workgroup memory (16 KiB is the guaranteed minimum). */
export const SCAN_BLOCK = WORKGROUP * SCAN_ITEMS;

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
 * Exclusive scan, reduce-then-scan over blocks of SCAN_BLOCK counters (see
 * ScanPlan in pipelines.ts for the levels). reduceBlocks writes each
 * block's total to blockSums; once the block sums are scanned (the next
 * level, SCAN_BLOCK times shorter), scanBlocks scans each block in
 * workgroup memory and adds its block's offset, in place. Each counter is
 * read twice and written once; the workgroup scan is Blelloch's (an
 * up-sweep and a down-sweep over the invocations' totals), so the work per
 * counter is constant. A workgroup takes blocks `workgroup.x`,
 * `workgroup.x + num_workgroups.x`, ... so a table longer than 65,535 blocks
 * needs no second dispatch dimension. Every invocation reaches every
 * barrier: out-of-range counters read as 0 and are not written.
 */
export const SCAN_SHADER = /* wgsl */ `
struct ScanParams {
  n: u32,
  // 1 when blockSums holds the scanned block offsets to add; 0 at the top
  // level (one block, no level above it).
  addOffsets: u32,
  reserved0: u32,
  reserved1: u32,
}
@group(0) @binding(0) var<uniform> scan: ScanParams;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> blockSums: array<u32>;

var<workgroup> blockValues: array<u32, ${SCAN_BLOCK}>;
var<workgroup> totals: array<u32, ${WORKGROUP}>;

fn blockCount() -> u32 {
  return (scan.n + ${SCAN_BLOCK - 1}u) / ${SCAN_BLOCK}u;
}

@compute @workgroup_size(${WORKGROUP})
fn reduceBlocks(
  @builtin(workgroup_id) workgroup: vec3<u32>,
  @builtin(num_workgroups) workgroups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
) {
  let blocks = blockCount();
  for (var block = workgroup.x; block < blocks; block += workgroups.x) {
    // Strided loads, so the workgroup reads consecutive words together.
    let base = block * ${SCAN_BLOCK}u;
    var sum = 0u;
    for (var k = 0u; k < ${SCAN_ITEMS}u; k++) {
      let i = base + k * ${WORKGROUP}u + local;
      if (i < scan.n) {
        sum += data[i];
      }
    }
    totals[local] = sum;
    workgroupBarrier();
    for (var width = ${WORKGROUP / 2}u; width > 0u; width >>= 1u) {
      if (local < width) {
        totals[local] += totals[local + width];
      }
      workgroupBarrier();
    }
    if (local == 0u) {
      blockSums[block] = totals[0];
    }
    // totals[0] is read above before the next block overwrites totals.
    workgroupBarrier();
  }
}

@compute @workgroup_size(${WORKGROUP})
fn scanBlocks(
  @builtin(workgroup_id) workgroup: vec3<u32>,
  @builtin(num_workgroups) workgroups: vec3<u32>,
  @builtin(local_invocation_index) local: u32,
) {
  let blocks = blockCount();
  for (var block = workgroup.x; block < blocks; block += workgroups.x) {
    let base = block * ${SCAN_BLOCK}u;
    for (var k = 0u; k < ${SCAN_ITEMS}u; k++) {
      let s = k * ${WORKGROUP}u + local;
      let i = base + s;
      var x = 0u;
      if (i < scan.n) {
        x = data[i];
      }
      blockValues[s] = x;
    }
    workgroupBarrier();
    // Each invocation scans its SCAN_ITEMS consecutive counters serially...
    let first = local * ${SCAN_ITEMS}u;
    var sum = 0u;
    for (var k = 0u; k < ${SCAN_ITEMS}u; k++) {
      let x = blockValues[first + k];
      blockValues[first + k] = sum;
      sum += x;
    }
    totals[local] = sum;
    workgroupBarrier();
    // ... then Blelloch's scan over the invocations' totals: the up-sweep
    // leaves partial sums of 2, 4, 8... totals at the odd positions...
    for (var stride = 1u; stride < ${WORKGROUP}u; stride <<= 1u) {
      let right = (local + 1u) * 2u * stride - 1u;
      if (right < ${WORKGROUP}u) {
        totals[right] += totals[right - stride];
      }
      workgroupBarrier();
    }
    // ... and the down-sweep turns them into exclusive prefix sums.
    if (local == 0u) {
      totals[${WORKGROUP - 1}u] = 0u;
    }
    workgroupBarrier();
    for (var stride = ${WORKGROUP / 2}u; stride > 0u; stride >>= 1u) {
      let right = (local + 1u) * 2u * stride - 1u;
      if (right < ${WORKGROUP}u) {
        let left = totals[right - stride];
        totals[right - stride] = totals[right];
        totals[right] += left;
      }
      workgroupBarrier();
    }
    var offset = totals[local];
    if (scan.addOffsets != 0u) {
      offset += blockSums[block];
    }
    for (var k = 0u; k < ${SCAN_ITEMS}u; k++) {
      blockValues[first + k] += offset;
    }
    workgroupBarrier();
    for (var k = 0u; k < ${SCAN_ITEMS}u; k++) {
      let s = k * ${WORKGROUP}u + local;
      let i = base + s;
      if (i < scan.n) {
        data[i] = blockValues[s];
      }
    }
    // blockValues is read above before the next block overwrites it.
    workgroupBarrier();
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
