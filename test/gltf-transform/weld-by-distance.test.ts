/**
 * weldByDistance against the brute-force rule (test/three/oracle.ts, applied
 * per primitive to the vertices in first-use order) on seeded random
 * documents: dyadic values so that distances land exactly on the tolerances,
 * coincident vertices, normals, UVs, normalized colours, skinning, morph
 * targets, indexed and non-indexed primitives of three modes, primitives
 * sharing some or all of their accessors. Then glTF-Transform's own exact
 * weld() as a second oracle at tolerance 0, the document-level promises
 * (compaction, extras, a rejected transform changes nothing) and every
 * documented rejection.
 */

import {
  type Accessor,
  Document,
  Logger,
  type Primitive,
  type PrimitiveTarget,
  type TypedArray,
} from '@gltf-transform/core';
import { weld } from '@gltf-transform/functions';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type WeldByDistanceOptions, weldByDistance } from '../../src/gltf-transform/index.js';
import { withinRule } from '../support/exact-distance.js';
import { channelWithin, type OracleChannel, oracleWeld } from '../three/oracle.js';

const SEED = 0x6e1d;
const RUNS = 150;

type Tolerance = number | 'ignore' | undefined;

/** One block of vertices (accessors that primitives may share). */
interface Block {
  positions: number[][];
  normals: number[][] | undefined;
  uvs: number[][];
  colors: number[][] | undefined; // Uint8 normalized VEC4
  joints: number[][] | undefined; // Uint16 VEC4 (with weights)
  weights: number[][] | undefined;
  morphs: { position: number[][]; normal: number[][] | undefined }[];
}

interface PrimitiveSpec {
  block: number;
  mode: 0 | 1 | 4;
  index: number[] | undefined;
  /** Reuse every accessor of an earlier primitive (its number) instead of this spec's own index. */
  sameAs: number | undefined;
}

interface Scene {
  tolerance: number;
  normalTolerance: Tolerance;
  uvTolerance: Tolerance;
  colorTolerance: Tolerance;
  removeDegenerate: boolean;
  blocks: Block[];
  primitives: PrimitiveSpec[];
}

/** Multiples of `step` in [-range, range] * step: dyadic, so float32 holds them and distances are exact. */
const grid = (range: number, step: number, size: number) =>
  fc.array(
    fc.integer({ min: -range, max: range }).map((k) => k * step),
    { minLength: size, maxLength: size },
  );

const rows = <T>(n: number, row: fc.Arbitrary<T>) => fc.array(row, { minLength: n, maxLength: n });
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

const block = (n: number, morphCount: number): fc.Arbitrary<Block> =>
  fc.record({
    // Few distinct values: many coincident vertices and many exactly-on-tolerance pairs.
    positions: rows(n, grid(2, 0.125, 3)),
    normals: maybe(rows(n, grid(1, 0.125, 3))),
    uvs: rows(n, grid(2, 0.0625, 2)),
    colors: maybe(rows(n, fc.array(fc.constantFrom(0, 1, 2, 255), { minLength: 4, maxLength: 4 }))),
    joints: maybe(rows(n, fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 4, maxLength: 4 }))),
    weights: maybe(rows(n, grid(1, 0.5, 4))),
    morphs: fc.array(fc.record({ position: rows(n, grid(1, 0.125, 3)), normal: maybe(rows(n, grid(1, 0.5, 3))) }), {
      minLength: morphCount,
      maxLength: morphCount,
    }),
  });

const toleranceOption = (values: number[]) =>
  fc.oneof(fc.constant<Tolerance>(undefined), fc.constant<Tolerance>('ignore'), fc.constantFrom<Tolerance>(...values));

function sceneOf(modes: (0 | 1 | 4)[], tolerances: number[]): fc.Arbitrary<Scene> {
  return fc
    .record({
      tolerance: fc.constantFrom(...tolerances),
      normalTolerance: toleranceOption([0, 0.125, 0.25]),
      uvTolerance: toleranceOption([0.0625, 0.125]),
      colorTolerance: toleranceOption([1 / 255, 2 / 255]),
      removeDegenerate: fc.boolean(),
      sizes: fc.array(fc.tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 2 })), {
        minLength: 1,
        maxLength: 2,
      }),
    })
    .chain(({ sizes, ...rest }) =>
      fc.record({
        ...Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, fc.constant(v)])),
        blocks: fc.tuple(...sizes.map(([t, morphs]) => block(t * 3, morphs))),
        primitives: fc.array(
          fc.record({
            block: fc.nat(sizes.length - 1),
            mode: fc.constantFrom(...modes),
            indexed: fc.boolean(),
            triangles: fc.integer({ min: 1, max: 10 }),
            seed: fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
            sameAs: maybe(fc.nat(3)),
          }),
          { minLength: 1, maxLength: 4 },
        ),
      }),
    )
    .map((raw) => {
      const r = raw as unknown as Omit<Scene, 'primitives'> & {
        primitives: {
          block: number;
          mode: 0 | 1 | 4;
          indexed: boolean;
          triangles: number;
          seed: number[];
          sameAs: number | undefined;
        }[];
      };
      const primitives = r.primitives.map((p, k): PrimitiveSpec => {
        const n = r.blocks[p.block].positions.length;
        // Corners in [0, n): a multiple of 6, so both triangles and lines are whole.
        const index = p.indexed
          ? p.seed.slice(0, p.triangles * 3 - ((p.triangles * 3) % 6)).map((v) => v % n)
          : undefined;
        const sameAs = p.sameAs !== undefined && p.sameAs < k ? p.sameAs : undefined;
        return { block: p.block, mode: p.mode, index: index?.length === 0 ? undefined : index, sameAs };
      });
      return { ...r, primitives };
    });
}

function optionsOf(s: Scene): WeldByDistanceOptions {
  const attributeTolerances: Record<string, number> = {};
  const ignore: string[] = [];
  const entries: [string, Tolerance][] = [
    ['NORMAL', s.normalTolerance],
    ['TEXCOORD_0', s.uvTolerance],
    ['COLOR_0', s.colorTolerance],
  ];
  for (const [name, t] of entries) {
    if (t === 'ignore') ignore.push(name);
    else if (t !== undefined) attributeTolerances[name] = t;
  }
  return { tolerance: s.tolerance, attributeTolerances, ignore, removeDegenerate: s.removeDegenerate };
}

/** The scene as a Document: one mesh per two primitives, accessors shared as the specs say. */
function toDocument(s: Scene): { document: Document; primitives: Primitive[] } {
  const document = new Document().setLogger(new Logger(Logger.Verbosity.SILENT));
  const buffer = document.createBuffer();
  const accessor = (rows: number[][], type: 'VEC2' | 'VEC3' | 'VEC4', Type: new (v: number[]) => TypedArray) =>
    document.createAccessor('', buffer).setType(type).setArray(new Type(rows.flat()));
  // Made when a primitive first uses it: accessors nothing used before the transform are not its business.
  const made = new Map<number, { attributes: [string, Accessor][]; targets: PrimitiveTarget[] }>();
  const make = (k: number) => {
    const b = s.blocks[k];
    const attributes: [string, Accessor][] = [['POSITION', accessor(b.positions, 'VEC3', Float32Array)]];
    attributes[0][1].setName(`positions ${k}`).setExtras({ block: k });
    if (b.normals) attributes.push(['NORMAL', accessor(b.normals, 'VEC3', Float32Array)]);
    attributes.push(['TEXCOORD_0', accessor(b.uvs, 'VEC2', Float32Array)]);
    if (b.colors) attributes.push(['COLOR_0', accessor(b.colors, 'VEC4', Uint8Array).setNormalized(true)]);
    if (b.joints && b.weights) {
      attributes.push(['JOINTS_0', accessor(b.joints, 'VEC4', Uint16Array)]);
      attributes.push(['WEIGHTS_0', accessor(b.weights, 'VEC4', Float32Array)]);
    }
    const targets = b.morphs.map((m) => {
      const target = document.createPrimitiveTarget();
      target.setAttribute('POSITION', accessor(m.position, 'VEC3', Float32Array));
      if (m.normal) target.setAttribute('NORMAL', accessor(m.normal, 'VEC3', Float32Array));
      return target;
    });
    made.set(k, { attributes, targets });
    return { attributes, targets };
  };
  const primitives: Primitive[] = [];
  let mesh = document.createMesh('mesh 0');
  for (const [k, p] of s.primitives.entries()) {
    if (k > 0 && k % 2 === 0) mesh = document.createMesh(`mesh ${k / 2}`);
    const primitive = document.createPrimitive().setMode(p.mode).setExtras({ primitive: k });
    const source = p.sameAs === undefined ? undefined : primitives[p.sameAs];
    if (source !== undefined) {
      for (const semantic of source.listSemantics()) primitive.setAttribute(semantic, source.getAttribute(semantic));
      for (const target of source.listTargets()) primitive.addTarget(target);
      primitive.setIndices(source.getIndices()).setMode(source.getMode());
    } else {
      const { attributes, targets } = made.get(p.block) ?? make(p.block);
      for (const [semantic, a] of attributes) primitive.setAttribute(semantic, a);
      for (const target of targets) primitive.addTarget(target);
      if (p.index !== undefined) {
        primitive.setIndices(document.createAccessor('', buffer).setType('SCALAR').setArray(new Uint32Array(p.index)));
      }
    }
    mesh.addPrimitive(primitive);
    primitives.push(primitive);
  }
  return { document, primitives };
}

/** The spec whose accessors primitive k has (following sameAs). */
function resolved(s: Scene, k: number): PrimitiveSpec {
  let spec = s.primitives[k];
  while (spec.sameAs !== undefined) spec = s.primitives[spec.sameAs];
  return spec;
}

/** What one primitive must become: the index and, per output vertex, the input vertex it copies. */
function expectedOf(s: Scene, k: number): { index: number[]; founders: number[] } | undefined {
  const spec = resolved(s, k);
  const b = s.blocks[spec.block];
  const corners = spec.index ?? b.positions.map((_, i) => i);
  const order: number[] = [];
  for (const v of corners) if (!order.includes(v)) order.push(v);
  const pick = (values: number[][]) => order.map((v) => values[v]);
  const channels: OracleChannel[] = [];
  const add = (values: number[][] | undefined, t: Tolerance) => {
    if (values !== undefined && t !== 'ignore') channels.push({ values: pick(values), tolerance: t ?? 0 });
  };
  add(b.normals, s.normalTolerance);
  add(b.uvs, s.uvTolerance);
  add(
    b.colors?.map((c) => c.map((v) => v / 255)),
    s.colorTolerance,
  );
  if (b.joints && b.weights) {
    add(b.joints, undefined);
    add(b.weights, undefined);
  }
  for (const m of b.morphs) {
    add(m.position, s.tolerance);
    add(m.normal, s.normalTolerance);
  }
  const welded = oracleWeld(pick(b.positions), s.tolerance, channels);
  let index = corners.map((v) => welded.remap[order.indexOf(v)]);
  const step = s.removeDegenerate ? (spec.mode === 4 ? 3 : spec.mode === 1 ? 2 : 0) : 0;
  // Not whole triangles or lines (an invalid primitive): nothing is dropped.
  if (step > 0 && index.length % step === 0) {
    const kept: number[] = [];
    for (let c = 0; c < index.length; c += step) {
      const element = index.slice(c, c + step);
      if (new Set(element).size === step) kept.push(...element);
    }
    index = kept;
  }
  if (index.length === 0) return undefined;
  // Compaction: representatives no kept element uses go, the rest keep their order.
  const live = welded.representatives.map((_, r) => r).filter((r) => index.includes(r));
  return {
    index: index.map((r) => live.indexOf(r)),
    founders: live.map((r) => order[welded.representatives[r]]),
  };
}

/** The values a block holds for `semantic` (a morph target's with `target`), as stored. */
function storedOf(b: Block, semantic: string, target?: number): number[][] | undefined {
  if (target !== undefined) {
    const m = b.morphs[target];
    return semantic === 'POSITION' ? m.position : m.normal;
  }
  const bySemantic: Record<string, number[][] | undefined> = {
    POSITION: b.positions,
    NORMAL: b.normals,
    TEXCOORD_0: b.uvs,
    COLOR_0: b.colors,
    JOINTS_0: b.joints && b.weights ? b.joints : undefined,
    WEIGHTS_0: b.joints && b.weights ? b.weights : undefined,
  };
  return bySemantic[semantic];
}

function expectAccessor(accessor: Accessor, stored: number[][], founders: number[], Type: unknown): void {
  const array = accessor.getArray();
  expect(array?.constructor).toBe(Type);
  expect(Array.from(array ?? [])).toEqual(founders.flatMap((f) => Array.from(new Float32Array(stored[f]))));
}

describe('weldByDistance matches the brute-force rule', () => {
  it(`per primitive, on random documents with values exactly at the tolerances (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(sceneOf([0, 1, 4, 4], [0, 0.125, 0.25, 0.5]), async (s) => {
        const { document, primitives } = toDocument(s);
        await document.transform(weldByDistance(optionsOf(s)));
        for (const [k, primitive] of primitives.entries()) {
          const expected = expectedOf(s, k);
          if (expected === undefined) {
            expect(primitive.isDisposed()).toBe(true);
            continue;
          }
          expect(primitive.isDisposed()).toBe(false);
          const index = primitive.getIndices();
          expect(Array.from(index?.getArray() ?? [])).toEqual(expected.index);
          expect(index?.getArray()).toBeInstanceOf(Uint16Array);
          const spec = resolved(s, k);
          const b = s.blocks[spec.block];
          for (const semantic of primitive.listSemantics()) {
            const accessor = primitive.getAttribute(semantic)!;
            const Type = { COLOR_0: Uint8Array, JOINTS_0: Uint16Array }[semantic] ?? Float32Array;
            expectAccessor(accessor, storedOf(b, semantic)!, expected.founders, Type);
            expect(accessor.getNormalized()).toBe(semantic === 'COLOR_0');
          }
          expect(primitive.getAttribute('POSITION')?.getExtras()).toEqual({ block: spec.block });
          expect(primitive.getExtras()).toEqual({ primitive: k });
          for (const [t, target] of primitive.listTargets().entries()) {
            for (const semantic of target.listSemantics()) {
              expectAccessor(
                target.getAttribute(semantic)!,
                storedOf(b, semantic, t)!,
                expected.founders,
                Float32Array,
              );
            }
          }
        }
        // Compacted: every accessor left is used by something other than the root.
        const root = document.getRoot();
        for (const accessor of root.listAccessors()) {
          expect(accessor.listParents().some((parent) => parent !== root)).toBe(true);
        }
        for (const mesh of root.listMeshes()) expect(mesh.listPrimitives().length).toBeGreaterThan(0);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it(`leaves no pair within every tolerance unmerged (seed ${SEED + 1})`, async () => {
    await fc.assert(
      fc.asyncProperty(sceneOf([4], [0.125, 0.25, 0.5]), async (s) => {
        const { document, primitives } = toDocument(s);
        const options = optionsOf(s);
        await document.transform(weldByDistance(options));
        for (const primitive of primitives.filter((p) => !p.isDisposed())) {
          const compared = primitive
            .listSemantics()
            .filter((semantic) => !options.ignore?.includes(semantic))
            .map((semantic) => ({
              accessor: primitive.getAttribute(semantic)!,
              tolerance: semantic === 'POSITION' ? s.tolerance : (options.attributeTolerances?.[semantic] ?? 0),
            }));
          const count = primitive.getAttribute('POSITION')!.getCount();
          for (let i = 0; i < count; i++) {
            for (let j = i + 1; j < count; j++) {
              const together = compared.every(({ accessor, tolerance }) => {
                const a = accessor.getElement(i, []);
                const b = accessor.getElement(j, []);
                return tolerance === 0 ? a.every((v, c) => v === b[c]) : withinRule(a, b, tolerance);
              });
              // Morph targets can keep a pair apart; only pairs they agree on must have merged.
              const morphsAgree = primitive.listTargets().every((target) =>
                target.listSemantics().every((semantic) => {
                  const accessor = target.getAttribute(semantic)!;
                  const a = accessor.getElement(i, []);
                  const b = accessor.getElement(j, []);
                  const tolerance =
                    semantic === 'POSITION' ? s.tolerance : (options.attributeTolerances?.[semantic] ?? 0);
                  if (options.ignore?.includes(semantic)) return true;
                  return tolerance === 0 ? a.every((v, c) => v === b[c]) : withinRule(a, b, tolerance);
                }),
              );
              expect(together && morphsAgree).toBe(false);
            }
          }
        }
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
  });

  it(`at tolerance 0 leaves as many vertices as glTF-Transform's exact weld() (seed ${SEED + 2})`, async () => {
    await fc.assert(
      fc.asyncProperty(sceneOf([1, 4], [0]), async (raw) => {
        // weld() compares every attribute bit for bit and keeps degenerate triangles.
        const s: Scene = {
          ...raw,
          normalTolerance: undefined,
          uvTolerance: undefined,
          colorTolerance: undefined,
          removeDegenerate: false,
        };
        const ours = toDocument(s);
        const theirs = toDocument(s);
        await ours.document.transform(weldByDistance({ tolerance: 0, removeDegenerate: false }));
        await theirs.document.transform(weld());
        const counts = (primitives: Primitive[]) =>
          primitives.map((p) => (p.isDisposed() ? 0 : p.getAttribute('POSITION')!.getCount()));
        expect(counts(ours.primitives)).toEqual(counts(theirs.primitives));
      }),
      { seed: SEED + 2, numRuns: RUNS },
    );
  });
});

/** A document with one mesh of two triangles sharing an edge, as a soup (6 vertices), and a material. */
function twoTriangles(): { document: Document; primitive: Primitive } {
  const document = new Document().setLogger(new Logger(Logger.Verbosity.SILENT));
  const buffer = document.createBuffer();
  const positions = [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0.001];
  const position = document
    .createAccessor('soup', buffer)
    .setType('VEC3')
    .setArray(new Float32Array(positions))
    .setExtras({ kept: true });
  const material = document.createMaterial('paint');
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', position)
    .setMaterial(material)
    .setExtras({ id: 7 });
  document.createMesh('quad').addPrimitive(primitive).setExtras({ targetNames: [] });
  return { document, primitive };
}

describe('weldByDistance reports what the attribute rule kept apart', () => {
  interface Soup {
    positions: number[][];
    normals: number[][];
    /** A morph target's NORMAL: counted under NORMAL, a vertex once however many of its channels differ. */
    targetNormals: number[][] | undefined;
    uvs: number[][] | undefined;
    uvTolerance: number;
    tolerance: number;
  }

  /** One non-indexed point primitive (nothing collapses): positions, NORMAL, maybe a NORMAL target, TEXCOORD_0. */
  function soupDocument(soup: Soup): Document {
    const document = new Document().setLogger(new Logger(Logger.Verbosity.SILENT));
    const primitive = document.createPrimitive().setMode(0);
    const accessor = (type: 'VEC2' | 'VEC3', rows: number[][]) =>
      document.createAccessor().setType(type).setArray(new Float32Array(rows.flat()));
    primitive
      .setAttribute('POSITION', accessor('VEC3', soup.positions))
      .setAttribute('NORMAL', accessor('VEC3', soup.normals));
    if (soup.uvs !== undefined) primitive.setAttribute('TEXCOORD_0', accessor('VEC2', soup.uvs));
    if (soup.targetNormals !== undefined) {
      primitive.addTarget(
        document.createPrimitiveTarget().setAttribute('NORMAL', accessor('VEC3', soup.targetNormals)),
      );
    }
    document.createMesh().addPrimitive(primitive);
    return document;
  }

  /**
   * The report's rule, literally: the weld by positions alone (the O(n^2)
   * oracle), where each vertex that joins another counts once for every
   * semantic in which one of its channels differs from that vertex's beyond
   * the channel's tolerance.
   */
  function keptApartByRule(soup: Soup): Record<string, number> {
    const semantics: [string, OracleChannel[]][] = [
      [
        'NORMAL',
        [
          { values: soup.normals, tolerance: 0 },
          ...(soup.targetNormals === undefined ? [] : [{ values: soup.targetNormals, tolerance: 0 }]),
        ],
      ],
    ];
    if (soup.uvs !== undefined) semantics.push(['TEXCOORD_0', [{ values: soup.uvs, tolerance: soup.uvTolerance }]]);
    const f32 = (rows: number[][]) => rows.map((row) => row.map(Math.fround));
    const positions = f32(soup.positions);
    for (const [, channels] of semantics)
      for (const channel of channels) channel.values = f32([...channel.values] as number[][]);
    const byPosition = oracleWeld(positions, soup.tolerance, []);
    const counts: Record<string, number> = {};
    for (let i = 0; i < positions.length; i++) {
      const founder = byPosition.representatives[byPosition.remap[i]!]!;
      if (founder === i) continue;
      for (const [semantic, channels] of semantics) {
        if (channels.some((c) => !channelWithin(c.values[i]!, c.values[founder]!, c.tolerance))) {
          counts[semantic] = (counts[semantic] ?? 0) + 1;
        }
      }
    }
    return counts;
  }

  it(`counts a vertex under every semantic it differs in from the vertex it joins by position, and ignoring them all welds by position (seed ${SEED + 9})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }).chain((n) =>
          fc.record({
            positions: rows(n, grid(2, 0.125, 3)),
            normals: rows(n, grid(1, 1, 3)),
            targetNormals: maybe(rows(n, grid(1, 1, 3))),
            uvs: maybe(rows(n, grid(1, 0.5, 2))),
            uvTolerance: fc.constantFrom(0, 0.5, 1),
            tolerance: fc.constantFrom(0, 0.125, 0.25),
          }),
        ),
        async (soup) => {
          let report: { keptApart: Record<string, number> } | undefined;
          await soupDocument(soup).transform(
            weldByDistance({
              tolerance: soup.tolerance,
              attributeTolerances: { TEXCOORD_0: soup.uvTolerance },
              report: (r) => (report = r),
            }),
          );
          expect(report!.keptApart).toEqual(keptApartByRule(soup));
          // Ignoring every semantic the report lists: the weld by positions alone, and nothing kept apart.
          const listed = Object.keys(report!.keptApart);
          const byPosition = oracleWeld(
            soup.positions.map((row) => row.map(Math.fround)),
            soup.tolerance,
            [],
          );
          let ignored: { keptApart: Record<string, number> } | undefined;
          const document = soupDocument(soup);
          await document.transform(
            weldByDistance({
              tolerance: soup.tolerance,
              ...(listed.includes('TEXCOORD_0') ? {} : { attributeTolerances: { TEXCOORD_0: soup.uvTolerance } }),
              ignore: listed,
              report: (r) => (ignored = r),
            }),
          );
          expect(ignored).toEqual({ keptApart: {} });
          const primitive = document.getRoot().listMeshes()[0]!.listPrimitives()[0]!;
          expect(primitive.getAttribute('POSITION')!.getCount()).toBe(byPosition.representatives.length);
        },
      ),
      { seed: SEED + 9, numRuns: RUNS },
    );
  });
});

describe('weldByDistance on documents', () => {
  it('welds within the tolerance, keeps material, extras and names, and disposes the replaced accessors', async () => {
    const { document, primitive } = twoTriangles();
    await document.transform(weldByDistance({ tolerance: 0.01 }));
    const position = primitive.getAttribute('POSITION')!;
    expect(position.getCount()).toBe(4);
    expect(Array.from(primitive.getIndices()!.getArray()!)).toEqual([0, 1, 2, 1, 3, 2]);
    expect(position.getName()).toBe('soup');
    expect(position.getExtras()).toEqual({ kept: true });
    expect(primitive.getMaterial()?.getName()).toBe('paint');
    expect(primitive.getExtras()).toEqual({ id: 7 });
    expect(document.getRoot().listAccessors()).toHaveLength(2);
    // Tolerance 0 keeps the vertex 0.001 off the plane apart.
    const exact = twoTriangles();
    await exact.document.transform(weldByDistance({ tolerance: 0 }));
    expect(exact.primitive.getAttribute('POSITION')!.getCount()).toBe(5);
  });

  it('drops collapsed triangles, then the primitive and the mesh they emptied', async () => {
    const { document, primitive } = twoTriangles();
    await document.transform(weldByDistance({ tolerance: 2 }));
    expect(primitive.isDisposed()).toBe(true);
    expect(document.getRoot().listMeshes()).toHaveLength(0);
    expect(document.getRoot().listAccessors()).toHaveLength(0);
    const kept = twoTriangles();
    await kept.document.transform(weldByDistance({ tolerance: 2, removeDegenerate: false }));
    expect(Array.from(kept.primitive.getIndices()!.getArray()!)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('writes a Uint32 index past 65,535 vertices and keeps normalized (quantized) positions as stored', async () => {
    const document = new Document();
    const n = 70_000;
    const quantized = new Int16Array(n * 3);
    for (let i = 0; i < n; i++) quantized.set([i % 32767, Math.floor(i / 32767), 0], i * 3);
    const position = document.createAccessor().setType('VEC3').setArray(quantized).setNormalized(true);
    const primitive = document.createPrimitive().setAttribute('POSITION', position).setMode(0);
    document.createMesh().addPrimitive(primitive);
    // One step of the quantization is 1 / 32767: a tolerance of half a step merges nothing.
    await document.transform(weldByDistance({ tolerance: 0.5 / 32767 }));
    const out = primitive.getAttribute('POSITION')!;
    expect(out.getCount()).toBe(n);
    expect(out.getArray()).toBeInstanceOf(Int16Array);
    expect(out.getNormalized()).toBe(true);
    expect(primitive.getIndices()!.getArray()).toBeInstanceOf(Uint32Array);
    // Two steps: every vertex joins one at most 1.5 steps away.
    await document.transform(weldByDistance({ tolerance: 1.5 / 32767 }));
    expect(primitive.getAttribute('POSITION')!.getCount()).toBeLessThan(n / 2);
  });

  it('gives a primitive its own copy of a morph target object another primitive of a different weld shares', async () => {
    const document = new Document();
    const position = document
      .createAccessor()
      .setType('VEC3')
      .setArray(new Float32Array([0, 0, 0, 0, 0, 0, 5, 5, 5]));
    const target = document.createPrimitiveTarget('bulge');
    target.setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(9).fill(1)));
    const index = (values: number[]) => document.createAccessor().setType('SCALAR').setArray(new Uint16Array(values));
    const a = document
      .createPrimitive()
      .setMode(0)
      .setAttribute('POSITION', position)
      .setIndices(index([0, 1]));
    const b = document
      .createPrimitive()
      .setMode(0)
      .setAttribute('POSITION', position)
      .setIndices(index([2, 0]));
    a.addTarget(target);
    b.addTarget(target);
    document.createMesh().addPrimitive(a).addPrimitive(b);
    await document.transform(weldByDistance({ tolerance: 0 }));
    expect(a.getAttribute('POSITION')!.getCount()).toBe(1);
    expect(b.getAttribute('POSITION')!.getCount()).toBe(2);
    expect(a.listTargets()[0].getAttribute('POSITION')!.getCount()).toBe(1);
    expect(b.listTargets()[0].getAttribute('POSITION')!.getCount()).toBe(2);
    expect(b.listTargets()[0].getName()).toBe('bulge');
  });

  it('rejects a bad primitive with an error naming it, and changes nothing', async () => {
    const { document, primitive } = twoTriangles();
    const second = document
      .createPrimitive()
      .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(9)))
      .setIndices(
        document
          .createAccessor()
          .setType('SCALAR')
          .setArray(new Uint16Array([0, 1, 3])),
      );
    document.createMesh('broken').addPrimitive(second);
    const before = primitive.getAttribute('POSITION');
    await expect(document.transform(weldByDistance({ tolerance: 0.01 }))).rejects.toThrow(
      'weldByDistance: mesh 1 ("broken"), primitive 0: indices[2] is 3, not a vertex (POSITION has 3 elements)',
    );
    expect(primitive.getAttribute('POSITION')).toBe(before);
    expect(primitive.getIndices()).toBeNull();
    expect(document.getRoot().listAccessors()).toHaveLength(3);

    const nan = twoTriangles();
    nan.primitive.getAttribute('POSITION')!.getArray()![4] = Number.NaN;
    await expect(nan.document.transform(weldByDistance({ tolerance: 0.01 }))).rejects.toThrow(
      'weldByDistance: mesh 0 ("quad"), primitive 0: POSITION of vertex 1 has a non-finite y (NaN)',
    );
    const short = twoTriangles();
    short.primitive.setAttribute(
      'NORMAL',
      short.document.createAccessor().setType('VEC3').setArray(new Float32Array(3)),
    );
    await expect(short.document.transform(weldByDistance({ tolerance: 0 }))).rejects.toThrow(
      'NORMAL has 1 elements, POSITION has 6',
    );
  });

  it('rejects bad options at once, naming them', () => {
    const bad: [unknown, string][] = [
      [undefined, 'options must be an object'],
      [{}, 'options.tolerance must be a finite number >= 0, got undefined'],
      [{ tolerance: -1 }, 'options.tolerance must be a finite number >= 0, got -1'],
      [{ tolerance: Number.NaN }, 'got NaN'],
      [{ tolerance: 0, attributeTolerances: { NORMAL: -0.5 } }, 'options.attributeTolerances.NORMAL must be'],
      [{ tolerance: 0, attributeTolerances: { POSITION: 1 } }, 'cannot hold POSITION'],
      [{ tolerance: 0, ignore: ['POSITION'] }, 'options.ignore cannot hold POSITION'],
      [{ tolerance: 0, ignore: 'NORMAL' }, 'options.ignore must be an array'],
      [{ tolerance: 0, ignore: ['NORMAL'], attributeTolerances: { NORMAL: 1 } }, 'also in options.ignore'],
      [{ tolerance: 0, removeDegenerate: 'yes' }, 'options.removeDegenerate must be a boolean'],
      [{ tolerance: 0, report: {} }, 'options.report must be a function'],
    ];
    for (const [options, message] of bad) {
      expect(() => weldByDistance(options as WeldByDistanceOptions)).toThrow(message);
    }
    expect(weldByDistance({ tolerance: 0 }).name).toBe('weldByDistance');
  });
});
