/**
 * weldGeometry against the brute-force rule (test/three/oracle.ts) on seeded
 * random geometries: dyadic values so that distances land exactly on the
 * tolerances (boundary cases), coincident vertices, plain and interleaved
 * attributes, normalized and integer arrays, morph targets, indexed and
 * non-indexed input, groups; then every documented rejection.
 */

import fc from 'fast-check';
import { BufferAttribute, BufferGeometry, InterleavedBuffer, InterleavedBufferAttribute, type TypedArray } from 'three';
import { describe, expect, it } from 'vitest';
import { type WeldGeometryOptions, weldGeometry } from '../../src/three/index.js';
import { type OracleChannel, oracleWeld } from './oracle.js';

const SEED = 0x7ee3;
const RUNS = 200;

type Tolerance = number | 'ignore' | undefined;

interface Scene {
  tolerance: number;
  positions: number[][];
  normals: number[][];
  uvs: number[][];
  colors: number[][]; // Uint8, normalized
  joints: number[][]; // Uint16, not normalized
  morph: number[][] | undefined; // one position morph target
  normalTolerance: Tolerance;
  uvTolerance: Tolerance;
  colorTolerance: Tolerance;
  index: number[] | undefined;
  interleaved: boolean;
  groups: { start: number; count: number; materialIndex: number }[];
}

/** Multiples of `step` in [-range, range] * step: dyadic, so float32 holds them and distances are exact. */
const grid = (range: number, step: number, size: number) =>
  fc.array(
    fc.integer({ min: -range, max: range }).map((k) => k * step),
    { minLength: size, maxLength: size },
  );

const toleranceOption = (values: number[]) =>
  fc.oneof(fc.constant<Tolerance>(undefined), fc.constant<Tolerance>('ignore'), fc.constantFrom<Tolerance>(...values));

const scene: fc.Arbitrary<Scene> = fc
  .record({
    tolerance: fc.constantFrom(0, 0.125, 0.25, 0.5),
    n: fc.integer({ min: 0, max: 14 }).map((t) => t * 3),
    normalTolerance: toleranceOption([0, 0.125, 0.25]),
    uvTolerance: toleranceOption([0.0625, 0.125]),
    colorTolerance: toleranceOption([1 / 255, 2 / 255]),
    indexed: fc.boolean(),
    interleaved: fc.boolean(),
    morphed: fc.boolean(),
    seedGroups: fc.integer({ min: 0, max: 3 }),
    // 2D positions (item size 2) take weld's 2D path.
    dimension: fc.constantFrom(2, 3),
  })
  .chain(({ n, indexed, morphed, dimension, ...rest }) =>
    fc.record({
      ...Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, fc.constant(v)])),
      // Few distinct values: many coincident vertices and many exactly-on-tolerance pairs.
      positions: fc.array(grid(2, 0.125, dimension), { minLength: n, maxLength: n }),
      normals: fc.array(grid(2, 0.125, 3), { minLength: n, maxLength: n }),
      uvs: fc.array(grid(2, 0.0625, 2), { minLength: n, maxLength: n }),
      colors: fc.array(fc.array(fc.constantFrom(0, 1, 2, 254, 255), { minLength: 3, maxLength: 3 }), {
        minLength: n,
        maxLength: n,
      }),
      joints: fc.array(fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 4, maxLength: 4 }), {
        minLength: n,
        maxLength: n,
      }),
      morph: morphed ? fc.array(grid(1, 0.125, dimension), { minLength: n, maxLength: n }) : fc.constant(undefined),
      index:
        indexed && n > 0
          ? fc
              .integer({ min: 0, max: 10 })
              .chain((t) => fc.array(fc.integer({ min: 0, max: n - 1 }), { minLength: t * 3, maxLength: t * 3 }))
          : fc.constant(undefined),
    }),
  )
  .map((s) => {
    const raw = s as unknown as Omit<Scene, 'groups'> & { seedGroups: number };
    const corners = raw.index === undefined ? raw.positions.length : raw.index.length;
    const triangles = corners / 3;
    // Up to 3 groups splitting the triangles, materials in reverse so a shift would show.
    const groups: Scene['groups'] = [];
    const cuts = Math.min(raw.seedGroups, triangles);
    for (let g = 0, start = 0; g < cuts; g++) {
      const end = g === cuts - 1 ? triangles : Math.floor(((g + 1) * triangles) / cuts);
      groups.push({ start: start * 3, count: (end - start) * 3, materialIndex: cuts - g });
      start = end;
    }
    return { ...raw, groups };
  });

function flat(rows: readonly (readonly number[])[], Type: new (values: number[]) => TypedArray): TypedArray {
  return new Type(rows.flat());
}

/** Coordinates per position: 2 or 3 (3 for an empty scene). */
function dimensionOf(s: Scene): number {
  return s.positions[0]?.length ?? 3;
}

/** The scene as a three.js geometry (positions, normals, uvs interleaved when asked). */
function toGeometry(s: Scene): BufferGeometry {
  const geometry = new BufferGeometry();
  if (s.interleaved) {
    const data = new Float32Array(s.positions.length * 8);
    s.positions.forEach((p, i) => {
      data.set(p, i * 8);
      data.set([...s.normals[i], ...s.uvs[i]], i * 8 + 3);
    });
    const buffer = new InterleavedBuffer(data, 8);
    geometry.setAttribute('position', new InterleavedBufferAttribute(buffer, dimensionOf(s), 0));
    geometry.setAttribute('normal', new InterleavedBufferAttribute(buffer, 3, 3));
    geometry.setAttribute('uv', new InterleavedBufferAttribute(buffer, 2, 6));
  } else {
    geometry.setAttribute('position', new BufferAttribute(flat(s.positions, Float32Array), dimensionOf(s)));
    geometry.setAttribute('normal', new BufferAttribute(flat(s.normals, Float32Array), 3));
    geometry.setAttribute('uv', new BufferAttribute(flat(s.uvs, Float32Array), 2));
  }
  geometry.setAttribute('color', new BufferAttribute(flat(s.colors, Uint8Array), 3, true));
  geometry.setAttribute('skinIndex', new BufferAttribute(flat(s.joints, Uint16Array), 4));
  if (s.morph !== undefined) {
    geometry.morphAttributes.position = [new BufferAttribute(flat(s.morph, Float32Array), dimensionOf(s))];
  }
  if (s.index !== undefined) geometry.setIndex(new BufferAttribute(new Uint32Array(s.index), 1));
  for (const g of s.groups) geometry.addGroup(g.start, g.count, g.materialIndex);
  return geometry;
}

function optionsOf(s: Scene): WeldGeometryOptions {
  const attributeTolerances: Record<string, number> = {};
  const ignore: string[] = [];
  const entries: [string, Tolerance][] = [
    ['normal', s.normalTolerance],
    ['uv', s.uvTolerance],
    ['color', s.colorTolerance],
  ];
  for (const [name, t] of entries) {
    if (t === 'ignore') ignore.push(name);
    else if (t !== undefined) attributeTolerances[name] = t;
  }
  return { attributeTolerances, ignore };
}

function channelsOf(s: Scene): OracleChannel[] {
  const channels: OracleChannel[] = [];
  const add = (values: number[][], t: Tolerance) => {
    if (t !== 'ignore') channels.push({ values, tolerance: t ?? 0 });
  };
  add(s.normals, s.normalTolerance);
  add(s.uvs, s.uvTolerance);
  add(
    s.colors.map((c) => c.map((v) => v / 255)),
    s.colorTolerance,
  );
  add(s.joints, undefined);
  if (s.morph !== undefined) channels.push({ values: s.morph, tolerance: s.tolerance });
  return channels;
}

/** Every output attribute holds, for each welded vertex, the founder's stored values in the input's array type. */
function expectGathered(input: BufferGeometry, output: BufferGeometry, founders: readonly number[]): void {
  for (const [name, attribute] of Object.entries(input.attributes)) {
    const out = output.getAttribute(name) as BufferAttribute;
    expect(out).toBeInstanceOf(BufferAttribute);
    const inArray = 'isInterleavedBufferAttribute' in attribute ? attribute.data.array : attribute.array;
    expect(out.array.constructor).toBe(inArray.constructor);
    expect(out.itemSize).toBe(attribute.itemSize);
    expect(out.normalized).toBe(attribute.normalized);
    expect(out.count).toBe(founders.length);
    founders.forEach((f, v) => {
      for (let c = 0; c < attribute.itemSize; c++) expect(out.getComponent(v, c)).toBe(attribute.getComponent(f, c));
    });
  }
}

describe('weldGeometry matches the brute-force rule', () => {
  it(`on random geometries with values exactly at the tolerances (seed ${SEED})`, () => {
    fc.assert(
      fc.property(scene, (s) => {
        const input = toGeometry(s);
        const output = weldGeometry(input, s.tolerance, optionsOf(s));
        // The oracle sees the float32 values, as the library does.
        const positions = s.positions.map((p) => Array.from(new Float32Array(p)));
        const expected = oracleWeld(positions, s.tolerance, channelsOf(s));
        expect(output.getAttribute('position').count).toBe(expected.representatives.length);
        expectGathered(input, output, expected.representatives);
        const corners = s.index ?? s.positions.map((_, i) => i);
        const index = output.getIndex();
        expect(index).not.toBeNull();
        expect(Array.from(index?.array ?? [])).toEqual(corners.map((v) => expected.remap[v]));
        expect(index?.array).toBeInstanceOf(Uint16Array);
        expect(output.groups).toEqual(s.groups);
        expect(output.morphAttributes.position?.length ?? 0).toBe(s.morph === undefined ? 0 : 1);
        // The input is untouched.
        expect(input.getAttribute('position').count).toBe(s.positions.length);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it(`with removeDegenerate: kept triangles stay in their groups, in order (seed ${SEED + 1})`, () => {
    fc.assert(
      fc.property(scene, (s) => {
        const input = toGeometry(s);
        const output = weldGeometry(input, s.tolerance, { ...optionsOf(s), removeDegenerate: true });
        const plain = weldGeometry(input, s.tolerance, optionsOf(s));
        const all = Array.from(plain.getIndex()?.array ?? []);
        const kept = Array.from(output.getIndex()?.array ?? []);
        const degenerate = (t: number) => all[t] === all[t + 1] || all[t + 1] === all[t + 2] || all[t] === all[t + 2];
        const keep = (from: number, to: number) => {
          const out: number[] = [];
          for (let t = from; t < to; t += 3) if (!degenerate(t)) out.push(all[t], all[t + 1], all[t + 2]);
          return out;
        };
        expect(kept).toEqual(keep(0, all.length));
        expect(output.groups.length).toBe(s.groups.length);
        output.groups.forEach((g, k) => {
          const before = s.groups[k];
          expect(g.materialIndex).toBe(before.materialIndex);
          expect(kept.slice(g.start, g.start + g.count)).toEqual(keep(before.start, before.start + before.count));
        });
        expect(output.drawRange).toEqual({ start: 0, count: Number.POSITIVE_INFINITY });
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
  });
});

describe('weldGeometry details', () => {
  const quad = () => {
    // Two triangles sharing an edge, as a soup: corners 1/3 and 2/5 coincide.
    const g = new BufferGeometry();
    g.setAttribute(
      'position',
      new BufferAttribute(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]), 3),
    );
    return g;
  };

  it('an attribute tolerance is Euclidean over the components: (0.6, 0.8) apart is 1, merged at 1, not below', () => {
    const g = quad();
    g.setAttribute(
      'normal',
      new BufferAttribute(new Float32Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 3),
    );
    const uv = new Float32Array(12);
    uv.set([0.5, 0.5], 2); // vertex 1
    uv.set([0.5 + 0.375, 0.5 + 0.5], 6); // vertex 3, 0.625 from vertex 1
    g.setAttribute('uv', new BufferAttribute(uv, 2));
    expect(weldGeometry(g, 0, { attributeTolerances: { uv: 0.625 } }).getAttribute('position').count).toBe(4);
    expect(weldGeometry(g, 0, { attributeTolerances: { uv: 0.5 } }).getAttribute('position').count).toBe(5);
    // Ignored: merged, and vertex 1's values are kept.
    const ignored = weldGeometry(g, 0, { ignore: ['uv'] });
    expect(ignored.getAttribute('position').count).toBe(4);
    expect(ignored.getAttribute('uv').getX(1)).toBe(0.5);
  });

  it('a closer acceptable representative across a cell border wins over a far one in the own cell', () => {
    // Tolerance 0.5: cells 1 wide from x = 0 (vertex 0). A (x 0.85) and B (x 1.01) are 0.16 apart but their
    // normals 0.375 apart, so both are representatives; vertex 3 (x 0.97) is within the normal tolerance of
    // both and nearer B, across the border. (A plain weld may stop at A, 0.12 < tolerance / 2 away: not here.)
    const g = new BufferGeometry();
    g.setAttribute('position', new BufferAttribute(new Float32Array([0, 0, 0, 0.85, 3, 0, 1.01, 3, 0, 0.97, 3, 0]), 3));
    g.setAttribute('normal', new BufferAttribute(new Float32Array([0, 0, 1, 0, 0, 0, 0.375, 0, 0, 0.1875, 0, 0]), 3));
    const out = weldGeometry(g, 0.5, { attributeTolerances: { normal: 0.25 } });
    expect(out.getAttribute('position').count).toBe(3);
    expect(Array.from(out.getIndex()?.array ?? [])).toEqual([0, 1, 2, 2]);
  });

  it('position morph targets are compared with the tolerance: vertices that morph apart stay apart', () => {
    const g = quad();
    const morph = new Float32Array(18);
    morph[3 * 3] = 1; // vertex 3 moves away from vertex 1 in the target
    g.morphAttributes.position = [new BufferAttribute(morph, 3)];
    const out = weldGeometry(g, 1e-3);
    expect(out.getAttribute('position').count).toBe(5);
    expect(out.morphAttributes.position?.[0]?.count).toBe(5);
    g.morphAttributes.position = [new BufferAttribute(new Float32Array(18), 3)];
    expect(weldGeometry(g, 1e-3).getAttribute('position').count).toBe(4);
  });

  it('keeps name, userData (a copy), morphTargetsRelative, draw range and attribute names; Uint32 index past 65536 vertices', () => {
    const g = quad();
    g.name = 'quad';
    g.userData = { a: 1 };
    g.morphTargetsRelative = true;
    g.setDrawRange(3, 3);
    g.getAttribute('position').name = 'P';
    const out = weldGeometry(g, 0);
    expect(out.name).toBe('quad');
    expect(out.userData).toEqual({ a: 1 });
    expect(out.userData).not.toBe(g.userData);
    expect(out.morphTargetsRelative).toBe(true);
    expect(out.drawRange).toEqual({ start: 3, count: 3 });
    expect(out.getAttribute('position').name).toBe('P');
    const big = new BufferGeometry();
    const many = new Float32Array(3 * 70002);
    for (let k = 0; k < many.length; k++) many[k] = k;
    big.setAttribute('position', new BufferAttribute(many, 3));
    const welded = weldGeometry(big, 0);
    expect(welded.getIndex()?.array).toBeInstanceOf(Uint32Array);
    expect(welded.getAttribute('position').count).toBe(70002);
  });

  it('vertices with a NaN attribute value merge with none (NaN equals nothing)', () => {
    const g = quad();
    const uv = new Float32Array(12).fill(Number.NaN);
    g.setAttribute('uv', new BufferAttribute(uv, 2));
    expect(weldGeometry(g, 0).getAttribute('position').count).toBe(6);
  });
});

describe('weldGeometry rejects bad input, naming the argument', () => {
  const good = () => {
    const g = new BufferGeometry();
    g.setAttribute('position', new BufferAttribute(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), 3));
    g.setAttribute('normal', new BufferAttribute(new Float32Array(9), 3));
    return g;
  };
  const call = (g: unknown, tolerance: unknown, options?: unknown) => () =>
    weldGeometry(g as BufferGeometry, tolerance as number, options as WeldGeometryOptions);

  it('geometry, position attribute, tolerance', () => {
    expect(call(undefined, 0)).toThrow(/geometry must be a three.js BufferGeometry, got undefined/);
    expect(call(new BufferGeometry(), 0)).toThrow(RangeError);
    expect(call(new BufferGeometry(), 0)).toThrow(/geometry.attributes.position is missing/);
    const flat4 = new BufferGeometry();
    flat4.setAttribute('position', new BufferAttribute(new Float32Array(8), 4));
    expect(call(flat4, 0)).toThrow(/position.itemSize must be 2 or 3, got 4/);
    expect(call(good(), -1)).toThrow(/tolerance .*-1/);
    expect(call(good(), Number.NaN)).toThrow(/tolerance .*NaN/);
    expect(call(good(), undefined)).toThrow(/tolerance .*undefined/);
    const nan = good();
    nan.getAttribute('position').setY(2, Number.NaN);
    expect(call(nan, 0)).toThrow(/geometry.attributes.position: point 2 has a non-finite y coordinate \(NaN\)/);
  });

  it('options', () => {
    expect(call(good(), 0, 5)).toThrow(/options must be an object, got 5/);
    expect(call(good(), 0, { attributeTolerances: { uv: 0.1 } })).toThrow(
      /options.attributeTolerances.uv: the geometry has no such attribute \(position, normal\)/,
    );
    expect(call(good(), 0, { attributeTolerances: { normal: -0.1 } })).toThrow(
      /options.attributeTolerances.normal .*-0.1/,
    );
    expect(call(good(), 0, { attributeTolerances: { normal: Number.NaN } })).toThrow(/normal .*NaN/);
    expect(call(good(), 0, { attributeTolerances: { position: 0.1 } })).toThrow(/tolerance argument/);
    expect(call(good(), 0, { ignore: ['uv2'] })).toThrow(/options.ignore\[0\] is not an attribute .*"?uv2/);
    expect(call(good(), 0, { ignore: ['position'] })).toThrow(/options.ignore cannot hold position/);
    expect(call(good(), 0, { ignore: 'normal' })).toThrow(/options.ignore must be an array/);
    expect(call(good(), 0, { ignore: ['normal'], attributeTolerances: { normal: 0.1 } })).toThrow(
      /normal is also in options.ignore/,
    );
    expect(call(good(), 0, { removeDegenerate: 1 })).toThrow(/options.removeDegenerate must be a boolean, got 1/);
  });

  it('counts and indices', () => {
    const short = good();
    short.setAttribute('uv', new BufferAttribute(new Float32Array(4), 2));
    expect(call(short, 0)).toThrow(/geometry.attributes.uv.count must equal the position count \(3\), got 2/);
    const morph = good();
    morph.morphAttributes.position = [new BufferAttribute(new Float32Array(6), 3)];
    expect(call(morph, 0)).toThrow(/geometry.morphAttributes.position\[0\].count .* got 2/);
    const indexed = good();
    indexed.setIndex([0, 1, 3]);
    expect(call(indexed, 0)).toThrow(/geometry.index\[2\] must be a vertex index in \[0, 2\], got 3/);
    const lines = good();
    lines.setIndex([0, 1]);
    expect(weldGeometry(lines, 0).getIndex()?.count).toBe(2);
    expect(call(lines, 0, { removeDegenerate: true })).toThrow(/needs triangles: the geometry has 2 corners/);
  });
});
