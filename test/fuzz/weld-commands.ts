/**
 * weld and weldMesh commands for the stateful kernel suites: a weld uses the
 * kernels' memory from its start (src/wasm/weld-kernels.ts), over whatever
 * grid copy and query state the grids' calls left there, so the weld suite
 * mixes these commands into the grid sequences of grid-commands.ts. Each
 * weld runs on the subject and on its JavaScript twin (twin.ts): the same
 * remap, representatives, positions and indices element for element, and
 * the remap and representatives of the brute-force definition
 * (test/support/weld-oracle.ts).
 *
 * @module
 */

import fc from 'fast-check';
import type { NumericArray } from '../../src/core/validate.js';
import { random } from '../support/random.js';
import { expectMatches, oracle } from '../support/weld-oracle.js';
import { Step } from './grid-commands.js';
import { same, subject, type World } from './grid-world.js';
import { twin } from './twin.js';

/** A weld's input, drawn at run time from `seed`. */
export interface WeldSpec {
  d: 2 | 3;
  kind: 'f64' | 'f32' | 'array';
  stride: number;
  offset: number;
  /** 'soup': jittered copies of a few corners; 'spread': a few tolerances apart; 'far' (the rest): a cloud at 1e9. */
  shape: 'soup' | 'spread' | 'coincident' | 'far';
  count: number;
  tolerance: number;
  seed: number;
  /** weldMesh's index buffer: none (a soup), or random triangles. */
  indexed: boolean;
  removeDegenerate: boolean;
}

/** The vertices of `spec`, as points before packing. */
function vertices(spec: WeldSpec): number[][] {
  const rand = random(spec.seed);
  const t = spec.tolerance > 0 && spec.tolerance < 1e3 ? spec.tolerance : 1;
  const n = spec.count;
  const corners = Array.from({ length: 1 + Math.floor(n / 4) }, () =>
    Array.from({ length: spec.d }, () => (rand() * 2 - 1) * 20 * t),
  );
  return Array.from({ length: n }, () => {
    const c = corners[Math.floor(rand() * corners.length)];
    switch (spec.shape) {
      case 'soup':
        return c.map((v) => v + (rand() - 0.5) * 1.2 * t);
      case 'spread':
        return c.map((v) => v + (rand() - 0.5) * 6 * t);
      case 'coincident':
        return c.map((v) => (v === 0 ? -0 : v));
      default:
        return c.map((v) => 1e9 + v + (rand() - 0.5) * t);
    }
  });
}

/** The packed input: vertex i at offset + i * stride, of the spec's array kind (gaps hold NaN, never read). */
function packed(spec: WeldSpec, points: number[][]): NumericArray {
  const offset = points.length === 0 ? 0 : spec.offset;
  const flat = new Array<number>(points.length === 0 ? 0 : offset + (points.length - 1) * spec.stride + spec.d).fill(
    Number.NaN,
  );
  points.forEach((p, i) => {
    for (let a = 0; a < spec.d; a++) flat[offset + i * spec.stride + a] = p[a];
  });
  if (spec.kind === 'f64') return Float64Array.from(flat);
  if (spec.kind === 'f32') return Float32Array.from(flat);
  return flat;
}

const tolerances = fc.constantFrom(0, 0, 1e-9, 0.01, 0.5, 1, 1, 3, 1e-140, 1e155);

export const weldArb: fc.Arbitrary<WeldSpec> = fc.constantFrom<2 | 3>(2, 3).chain((d) =>
  fc.record({
    d: fc.constant(d),
    kind: fc.constantFrom<WeldSpec['kind']>('f64', 'f32', 'array'),
    stride: fc.constantFrom(d, d, d + 2),
    offset: fc.constantFrom(0, 0, 1),
    shape: fc.constantFrom<WeldSpec['shape']>('soup', 'soup', 'spread', 'coincident', 'far'),
    // Triangles' worth of vertices (a soup's count is a multiple of 3), now and then past the kernels' first table.
    count: fc
      .oneof({ arbitrary: fc.nat(30), weight: 5 }, { arbitrary: fc.integer({ min: 60, max: 200 }), weight: 1 })
      .map((k) => 3 * k),
    tolerance: tolerances,
    seed: fc.integer({ min: 1, max: 2 ** 31 - 2 }),
    indexed: fc.boolean(),
    removeDegenerate: fc.boolean(),
  }),
);

/** Runs one weld and one weldMesh of `spec` on both libraries and checks them. */
export function runWeld(world: World, spec: WeldSpec): void {
  const points = vertices(spec);
  const positions = packed(spec, points);
  const options = { dimension: spec.d, stride: spec.stride, offset: points.length === 0 ? 0 : spec.offset };
  const rand = random(spec.seed + 1);
  const indices = spec.indexed
    ? Uint32Array.from({ length: 3 * Math.floor(points.length / 2) }, () => Math.floor(rand() * points.length))
    : undefined;
  const what = `weld(${points.length} ${spec.kind} ${spec.d}D vertices, tolerance ${spec.tolerance})`;
  world.count(`weld ${spec.tolerance === 0 ? 'exact' : 'near'}`);
  const welded = world.both(
    () => subject.weld(positions, spec.tolerance, options),
    () => twin.weld(positions, spec.tolerance, options),
    what,
  );
  if (welded === undefined) return;
  const plain = (r: { remap: Uint32Array; representatives: Uint32Array; count: number }) => ({
    remap: Array.from(r.remap),
    representatives: Array.from(r.representatives),
    count: r.count,
  });
  same(plain(welded[0]), plain(welded[1]), `${what}: subject against twin`);
  // The definition over the values the library reads (Float32 widened).
  const read = points.map((_, i) =>
    Array.from({ length: spec.d }, (_, a) => positions[options.offset + i * spec.stride + a]),
  );
  if (points.length <= 240) expectMatches(welded[0], oracle(read, spec.tolerance));
  const meshOptions = { ...options, removeDegenerate: spec.removeDegenerate };
  const meshed = world.both(
    () => subject.weldMesh(positions, indices, spec.tolerance, meshOptions),
    () => twin.weldMesh(positions, indices, spec.tolerance, meshOptions),
    `weldMesh of ${what}`,
  );
  if (meshed === undefined) return;
  const mesh = (r: ReturnType<typeof subject.weldMesh>) => ({
    ...plain(r),
    positions: Array.from(r.positions as ArrayLike<number>),
    indices: Array.from(r.indices),
    removed: r.removedTriangles,
  });
  same(mesh(meshed[0]), mesh(meshed[1]), `weldMesh of ${what}: subject against twin`);
  same(plain(meshed[0]), plain(welded[0]), `weldMesh of ${what}: remap and representatives of weld`);
}

/** The weld commands: a weld and a weldMesh of one drawn input. */
export function weldCommands(): fc.Arbitrary<Step>[] {
  return [
    weldArb.map(
      (spec) =>
        new Step(
          `weld(${spec.count} ${spec.shape} ${spec.kind} ${spec.d}D, stride ${spec.stride}, offset ${spec.offset}, tolerance ${spec.tolerance}, seed ${spec.seed}${spec.indexed ? ', indexed' : ''})`,
          (w) => runWeld(w, spec),
        ),
    ),
  ];
}
