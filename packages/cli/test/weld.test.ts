/**
 * `spatialhash weld` on every mesh format, read back with independent
 * readers (three's STL, OBJ and PLY loaders, glTF-Transform): the jittered
 * soup of the Stanford bunny must come back as the bunny (its 1,839 vertices
 * and 3,674 triangles, the known answer), a small random soup as the
 * brute-force rule says (test/three/oracle.ts), and collapsed triangles must
 * be dropped and counted.
 */

import { readFileSync } from 'node:fs';
import { NodeIO } from '@gltf-transform/core';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { describe, expect, it } from 'vitest';
import { oracleWeld } from '../../../test/three/oracle.js';
import { bunnyMesh, glb, gridMesh, obj, ply, random, soupOf, stlAscii, stlBinary } from './fixtures.js';
import { arrayBufferOf, cli, distinctPoints, put, temporaries, workspace } from './helpers.js';

const dir = workspace();
const bunny = bunnyMesh();
const TOLERANCE = 1e-3;
const soup = soupOf(bunny, 2e-4, 34);
const soupIndex = Uint32Array.from({ length: soup.length / 3 }, (_, i) => i);

/** Runs weld and checks the summary's counts. */
async function weld(input: string, output: string, tolerance: number, expected: { out: number; dropped: number }) {
  const { code, stdout, stderr } = await cli('weld', input, '-o', output, '--tolerance', String(tolerance), '--json');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  const summary = JSON.parse(stdout);
  expect({ out: summary.out, dropped: summary.dropped }).toEqual(expected);
  expect(summary.merged).toBe(summary.in - summary.out - (summary.unused ?? 0));
  return summary;
}

/** Every output corner sits on a welded vertex within the tolerance of its input corner (float32 output). */
function expectCornersMoved(input: Float64Array, output: ArrayLike<number>, tolerance: number) {
  expect(output.length).toBe(input.length);
  for (let k = 0; k < input.length; k += 3) {
    const d = Math.hypot(output[k]! - input[k]!, output[k + 1]! - input[k + 1]!, output[k + 2]! - input[k + 2]!);
    expect(d).toBeLessThanOrEqual(tolerance * 1.0001);
  }
}

describe('weld recovers the bunny from its jittered soup', () => {
  it('binary STL: corners moved onto 1,839 welded vertices, header and attribute bytes kept', async () => {
    const input = put(dir, 'bunny.stl', stlBinary(soup));
    const output = `${dir}/bunny-welded.stl`;
    await weld(input, output, TOLERANCE, { out: 1839, dropped: 0 });
    const geometry = new STLLoader().parse(arrayBufferOf(output));
    const positions = geometry.getAttribute('position').array;
    expect(distinctPoints(positions).size).toBe(1839);
    expectCornersMoved(Float64Array.from(Float32Array.from(soup)), positions, TOLERANCE);
    const bytes = readFileSync(output);
    expect(bytes.toString('latin1', 0, 20)).toBe('binary STL written b');
    expect(bytes.readUInt16LE(84 + 50 * 7 + 48)).toBe(7);
    // Normals recomputed: unit length.
    const normal = [bytes.readFloatLE(84), bytes.readFloatLE(88), bytes.readFloatLE(92)];
    expect(Math.hypot(...normal)).toBeCloseTo(1, 5);
  });

  it('ASCII STL', async () => {
    const input = put(dir, 'bunny-ascii.stl', stlAscii(soup, 'bunny'));
    const output = `${dir}/bunny-ascii-welded.stl`;
    await weld(input, output, TOLERANCE, { out: 1839, dropped: 0 });
    const text = readFileSync(output, 'latin1');
    expect(text.startsWith('solid bunny\n')).toBe(true);
    expect(text.trimEnd().endsWith('endsolid bunny')).toBe(true);
    const geometry = new STLLoader().parse(text);
    expect(distinctPoints(geometry.getAttribute('position').array).size).toBe(1839);
    expectCornersMoved(soup, geometry.getAttribute('position').array, TOLERANCE);
  });

  it('OBJ soup: 1,839 v lines, every face kept with its texture references', async () => {
    const input = put(dir, 'bunny-soup.obj', obj({ positions: soup, triangles: soupIndex }));
    const output = `${dir}/bunny-soup-welded.obj`;
    await weld(input, output, TOLERANCE, { out: 1839, dropped: 0 });
    const text = readFileSync(output, 'utf8');
    const lines = text.split('\n');
    expect(lines.filter((l) => l.startsWith('v ')).length).toBe(1839);
    expect(lines.filter((l) => l.startsWith('vt ')).length).toBe(soup.length / 3);
    expect(lines.filter((l) => l.startsWith('f ')).length).toBe(3674);
    expect(lines.slice(0, 3)).toEqual(['# written by the spatialhash-cli tests', 'o part', 'g body']);
    const group = new OBJLoader().parse(text);
    const geometry = (group.children[0] as unknown as { geometry: import('three').BufferGeometry }).geometry;
    expect(distinctPoints(geometry.getAttribute('position').array).size).toBe(1839);
    expect(geometry.getAttribute('uv').count).toBe(3674 * 3);
  });

  for (const format of ['ascii', 'binary_little_endian', 'binary_big_endian'] as const) {
    it(`PLY soup (${format}): an indexed bunny`, async () => {
      const input = put(dir, `bunny-${format}.ply`, ply(soup, soupIndex, format));
      const output = `${dir}/bunny-${format}-welded.ply`;
      await weld(input, output, TOLERANCE, { out: 1839, dropped: 0 });
      const geometry = new PLYLoader().parse(arrayBufferOf(output));
      expect(geometry.getAttribute('position').count).toBe(1839);
      expect(geometry.getIndex()?.count).toBe(3674 * 3);
      expect(readFileSync(output, 'latin1')).toContain(
        `format ${format} 1.0\ncomment written by the spatialhash-cli tests\n`,
      );
    });
  }

  it('GLB soup: an indexed bunny, material kept', async () => {
    const input = put(dir, 'bunny.glb', await glb(soup, undefined));
    const output = `${dir}/bunny-welded.glb`;
    await weld(input, output, TOLERANCE, { out: 1839, dropped: 0 });
    const document = await new NodeIO().read(output);
    const primitive = document.getRoot().listMeshes()[0]!.listPrimitives()[0]!;
    expect(primitive.getAttribute('POSITION')!.getCount()).toBe(1839);
    expect(primitive.getIndices()!.getCount()).toBe(3674 * 3);
    expect(primitive.getMaterial()?.getName()).toBe('clay');
  });

  it('glTF (JSON + .bin) in and out', async () => {
    const source = await new NodeIO().readBinary(await glb(soup, undefined));
    await new NodeIO().write(`${dir}/bunny.gltf`, source);
    const output = `${dir}/bunny-welded.gltf`;
    const summary = await weld(`${dir}/bunny.gltf`, output, TOLERANCE, { out: 1839, dropped: 0 });
    expect(summary.format).toBe('glTF');
    const document = await new NodeIO().read(output);
    expect(document.getRoot().listAccessors()[0]!.getCount()).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(output, 'utf8')).buffers[0].uri).toBe('bunny-welded.bin');
    // The input and its .bin are untouched.
    const again = await new NodeIO().read(`${dir}/bunny.gltf`);
    expect(again.getRoot().listMeshes()[0]!.listPrimitives()[0]!.getAttribute('POSITION')!.getCount()).toBe(3674 * 3);
    expect(temporaries(dir)).toEqual([]);
  });
});

describe('weld follows the brute-force rule on random soups', () => {
  it('STL, OBJ, PLY and GLB agree with the oracle, collapsed triangles dropped and counted (seeded)', async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const rand = random(seed);
      // Corners on a coarse dyadic grid: many coincident and exactly-at-tolerance pairs, some triangles collapse.
      const corners = Float64Array.from({ length: 9 * 40 }, () => Math.floor(rand() * 6) * 0.25);
      const tolerance = [0, 0.25, 0.5][seed % 3]!;
      const points = Array.from({ length: corners.length / 3 }, (_, i) =>
        Array.from(corners.subarray(i * 3, i * 3 + 3)),
      );
      const expected = oracleWeld(points, tolerance, []);
      let kept = 0;
      for (let t = 0; t < points.length / 3; t++) {
        const [a, b, c] = [0, 1, 2].map((k) => expected.remap[t * 3 + k]);
        if (a !== b && b !== c && a !== c) kept++;
      }
      const counts = { out: expected.representatives.length, dropped: points.length / 3 - kept };
      const index = Uint32Array.from({ length: points.length }, (_, i) => i);
      const cases: [string, string | Uint8Array][] = [
        ['stl', stlBinary(corners)],
        ['obj', obj({ positions: corners, triangles: index })],
        ['ply', ply(corners, index, 'binary_little_endian')],
        ['glb', await glb(corners, undefined)],
      ];
      for (const [extension, data] of cases) {
        const input = put(dir, `random-${seed}.${extension}`, data);
        const output = `${dir}/random-${seed}-welded.${extension}`;
        // glTF compaction also drops the vertices only collapsed triangles used: its own count.
        if (extension === 'glb') {
          const { code, stdout } = await cli('weld', input, '-o', output, '--tolerance', String(tolerance), '--json');
          expect(code).toBe(0);
          expect(JSON.parse(stdout).dropped).toBe(counts.dropped);
        } else await weld(input, output, tolerance, counts);
        if (extension === 'stl') {
          const out = new STLLoader().parse(arrayBufferOf(output)).getAttribute('position').array;
          const welded = expected.representatives.map((r) => points[r]!.join(','));
          for (let k = 0; k < out.length; k += 3) expect(welded).toContain(`${out[k]},${out[k + 1]},${out[k + 2]}`);
        }
      }
    }
  });

  it('keeps vertices whose colours differ apart, unless told to ignore or tolerate them (OBJ and PLY)', async () => {
    const mesh = gridMesh(1);
    // Vertex 0 again as vertex 4, another colour: a duplicate position only a colour tells apart.
    const positions = Float64Array.from([...mesh.positions, 0, 0, 0]);
    const triangles = Uint32Array.from([4, 1, 2, 0, 2, 3]);
    const colors = [10, 20, 30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11, 20, 30];
    for (const extension of ['obj', 'ply'] as const) {
      const data =
        extension === 'obj' ? obj({ positions, triangles }, colors) : ply(positions, triangles, 'ascii', colors);
      const input = put(dir, `colors.${extension}`, data);
      await weld(input, `${dir}/colors-exact.${extension}`, 0, { out: 5, dropped: 0 });
      const ignore = await cli(
        'weld',
        input,
        '-o',
        `${dir}/colors-ignored.${extension}`,
        '-t',
        '0',
        '--ignore',
        'color',
        '--json',
      );
      expect(JSON.parse(ignore.stdout).out).toBe(4);
      const near = await cli(
        'weld',
        input,
        '-o',
        `${dir}/colors-near.${extension}`,
        '-t',
        '0',
        '--attribute-tolerance',
        'color=1',
        '--json',
      );
      expect(JSON.parse(near.stdout).out).toBe(4);
    }
  });
});
