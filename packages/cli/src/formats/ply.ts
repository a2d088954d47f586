/**
 * PLY, ASCII and binary (either byte order), for `weld` (vertices and faces)
 * and `dedupe` (vertices only). Two passes over the data: the first reads the
 * vertex positions, the vertex properties compared while welding and the face
 * corners, and checks every index; the second writes the header with the new
 * counts, the representatives' vertex records (binary ones copied byte for
 * byte, ASCII ones line for line), the faces with their corners renumbered
 * (other face properties kept; a face loses corners that land on the corner
 * before it, and is dropped, and counted, when fewer than 3 distinct are
 * left), `edge`-like elements with `vertex1` / `vertex2` renumbered, and every
 * other element as it was.
 *
 * Vertex properties other than x, y and z must be equal for two vertices to
 * weld, grouped as a glTF attribute would be: `normal` (nx ny nz), `color`
 * (red green blue [alpha]), `uv` (u v, s t or texture_u texture_v), each
 * other property by its own name; `--attribute-tolerance normal=0.01` or
 * `--ignore color` change that, in the stored units.
 *
 * Indices are checked, never trusted: a face or edge index must be an integer
 * naming a vertex (lists of float or double indices are read when every item
 * is a whole number), and the header's counts must fit the file's size
 * before anything is allocated for them (ply-header.ts).
 *
 * @module
 */

import { weld } from 'spatialhash';
import { InputError } from '../errors.js';
import { type AtomicOutput, ChunkReader, writeAtomically } from '../files.js';
import { Uint32List } from '../growable.js';
import type { Progress } from '../progress.js';
import { type Counts, type DedupeJob, stopwatch, type WeldJob } from '../summary.js';
import { checkAttributeNames, type VertexAttribute, weldVertices } from '../weld-vertices.js';
import { readAscii, writeAscii } from './ply-ascii.js';
import { readBinary, writeBinary } from './ply-binary.js';
import { type Element, type Header, headerText, readHeader } from './ply-header.js';
import { Collector, FaceScratch, type Group, keptCorners, type Output, type Plan, planOf } from './ply-plan.js';

const GROUPS: [string, string[][]][] = [
  ['normal', [['nx', 'ny', 'nz']]],
  [
    'color',
    [
      ['red', 'green', 'blue', 'alpha'],
      ['red', 'green', 'blue'],
      ['r', 'g', 'b', 'a'],
      ['r', 'g', 'b'],
      ['diffuse_red', 'diffuse_green', 'diffuse_blue'],
    ],
  ],
  [
    'uv',
    [
      ['u', 'v'],
      ['s', 't'],
      ['texture_u', 'texture_v'],
    ],
  ],
];

/** Groups the vertex properties other than x, y, z (see the module notes). */
function groupsOf(vertex: Element): Group[] {
  const index = new Map(vertex.properties.map((p, k) => [p.name, k]));
  const taken = new Set(['x', 'y', 'z']);
  const groups: Group[] = [];
  for (const [name, choices] of GROUPS) {
    const names = choices.find((c) => c.every((n) => index.has(n) && !taken.has(n)));
    if (names === undefined) continue;
    for (const n of names) taken.add(n);
    groups.push({ name, properties: names.map((n) => index.get(n)!) });
  }
  for (const [k, p] of vertex.properties.entries()) {
    if (!taken.has(p.name)) groups.push({ name: p.name, properties: [k] });
  }
  return groups;
}

/** Everything pass 1 gathers. */
interface Pass1 {
  header: Header;
  vertex: Element;
  plans: Plan[];
  xyz: [number, number, number];
  positions: Float64Array;
  /** Per group, its values (float64, `properties.length` per vertex). */
  values: Float64Array[];
  groups: Group[];
  /** Face corners, flattened, and each face's corner count. */
  corners: Uint32Array;
  sizes: Uint32Array;
}

/** Pass 1 (see the module notes). */
function readPly(reader: ChunkReader, progress: Progress, needFaces: boolean): Pass1 {
  const file = reader.file;
  const header = readHeader(reader);
  const vertex = header.elements.find((e) => e.name === 'vertex');
  if (vertex === undefined) throw new InputError(file, '', 'no "vertex" element in the header');
  const xyz = ['x', 'y', 'z'].map((name) => {
    const k = vertex.properties.findIndex((p) => p.name === name && p.countType === undefined);
    if (k < 0)
      throw new InputError(
        file,
        `line ${vertex.headerLine + 1}`,
        `the vertex element has no scalar "${name}" property`,
      );
    return k;
  }) as [number, number, number];
  const plans = header.elements.map((e) => planOf(e, vertex));
  const groups = groupsOf(vertex).filter((g) =>
    g.properties.every((k) => vertex.properties[k]!.countType === undefined),
  );
  const face = header.elements.find((e) => e.name === 'face');
  if (face !== undefined && face.count > 0 && !needFaces) {
    throw new InputError(
      file,
      `line ${face.headerLine + 1}`,
      `${face.count} faces: dedupe takes point clouds; use "spatialhash weld" for meshes`,
    );
  }
  if (face !== undefined && face.count > 0 && plans.find((p) => p.element === face)!.role !== 'face') {
    throw new InputError(file, `line ${face.headerLine + 1}`, 'the face element has no "vertex_indices" list');
  }
  const collector = new Collector(file, plans, xyz, groups, new Uint32List(), new Uint32List());
  if (header.format === 'ascii') readAscii(reader, header, collector, progress);
  else readBinary(reader, header, collector, progress);
  return {
    header,
    vertex,
    plans,
    xyz,
    positions: collector.positions,
    values: collector.values,
    groups,
    corners: collector.corners.values(),
    sizes: collector.sizes.values(),
  };
}

/**
 * Pass 2: the header with the new counts, then every element: vertices
 * through `isRepresentative` (and `moved` for new coordinates), faces
 * through the remap, edge-like records renumbered, the rest as it was.
 */
function writePly(out: AtomicOutput, reader: ChunkReader, pass: Pass1, output: Output, progress: Progress): void {
  const { header } = pass;
  out.text(headerText(header, output.counts));
  if (header.format === 'ascii') writeAscii(out, reader, header, pass.plans, output, progress);
  else writeBinary(out, reader, header, pass.plans, output, progress);
}

/** Welds a PLY mesh into `output` (same encoding). */
export function weldPly({ input, output, tolerance, tolerances, ignore, progress }: WeldJob): Counts {
  const clock = stopwatch();
  const reader = new ChunkReader(input);
  try {
    const pass = readPly(reader, progress, true);
    const names = pass.groups.map((g) => g.name);
    const aliases = new Map<string, string>();
    for (const group of pass.groups) {
      if (group.properties.length > 1)
        for (const k of group.properties) aliases.set(pass.vertex.properties[k]!.name, group.name);
    }
    checkAttributeNames(input, names, { tolerances, ignore }, '', aliases);
    const attributes: VertexAttribute[] = [];
    for (const [g, group] of pass.groups.entries()) {
      if (ignore.has(group.name)) continue;
      const width = group.properties.length;
      // weldByDistance compares up to 4 values per attribute: wider groups do not occur (see GROUPS).
      attributes.push({
        name: group.name,
        size: width as 1 | 2 | 3 | 4,
        values: pass.values[g]!,
        tolerance: tolerances.get(group.name) ?? 0,
      });
    }
    clock.lap('reading');
    progress.step('welding');
    const { remap, representatives, count, keptApart } = weldVertices(pass.positions, tolerance, attributes);
    let kept = 0;
    const scratch = new FaceScratch();
    for (let f = 0, at = 0; f < pass.sizes.length; at += pass.sizes[f]!, f++) {
      const length = pass.sizes[f]!;
      scratch.reserve(length);
      if (keptCorners(pass.corners.subarray(at, at + length), length, remap, scratch.places) > 0) kept++;
    }
    clock.lap('welding');
    const counts = new Map([
      ['vertex', count],
      ['face', kept],
    ]);
    const isRepresentative = (i: number) => representatives[remap[i]!] === i;
    writeAtomically(output, (out) =>
      writePly(out, reader, pass, { counts, remap, isRepresentative, moved: undefined, xyz: pass.xyz }, progress),
    );
    clock.lap('writing');
    const n = pass.vertex.count;
    return {
      format: formatName(pass.header),
      in: n,
      out: count,
      merged: n - count,
      dropped: pass.sizes.length - kept,
      keptApart,
      timings: clock.timings,
    };
  } finally {
    reader.close();
  }
}

/** Dedupes a PLY point cloud into `output`: each representative keeps its record (moved to the mean with `mean`). */
export function dedupePly({ input, output, radius, mean, progress }: DedupeJob): Counts {
  const clock = stopwatch();
  const reader = new ChunkReader(input);
  try {
    const pass = readPly(reader, progress, false);
    clock.lap('reading');
    progress.step('merging');
    const { remap, representatives, count } = weld(pass.positions, radius);
    const moved = mean ? clusterMeans(pass.positions, remap, count) : undefined;
    const isRepresentative = (i: number) => representatives[remap[i]!] === i;
    clock.lap('welding');
    writeAtomically(output, (out) =>
      writePly(
        out,
        reader,
        pass,
        { counts: new Map([['vertex', count]]), remap, isRepresentative, moved, xyz: pass.xyz },
        progress,
      ),
    );
    clock.lap('writing');
    const n = pass.vertex.count;
    return {
      format: formatName(pass.header),
      in: n,
      out: count,
      merged: n - count,
      dropped: 0,
      timings: clock.timings,
    };
  } finally {
    reader.close();
  }
}

/** Each cluster's mean position (xyz per welded point), summed in float64. */
export function clusterMeans(positions: ArrayLike<number>, remap: Uint32Array, count: number): Float64Array {
  const sums = new Float64Array(count * 3);
  const members = new Uint32Array(count);
  for (let i = 0; i < remap.length; i++) {
    const r = remap[i]!;
    sums[r * 3] += positions[i * 3]!;
    sums[r * 3 + 1] += positions[i * 3 + 1]!;
    sums[r * 3 + 2] += positions[i * 3 + 2]!;
    members[r]++;
  }
  for (let r = 0; r < count; r++) {
    sums[r * 3] /= members[r]!;
    sums[r * 3 + 1] /= members[r]!;
    sums[r * 3 + 2] /= members[r]!;
  }
  return sums;
}

function formatName(header: Header): string {
  return header.format === 'ascii'
    ? 'ASCII PLY'
    : header.format === 'binary_little_endian'
      ? 'binary PLY'
      : 'binary big-endian PLY';
}
