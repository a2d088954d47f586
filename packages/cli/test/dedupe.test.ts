/**
 * `spatialhash dedupe` on PLY, XYZ, CSV and LAS (1.2 and 1.4): the counts are
 * weld's on the same coordinates (the rule is weld's, checked against the
 * brute-force oracle in test/weld), every kept record is an input record
 * unchanged, `--mean` moves each kept point to its cluster's mean, and the
 * LAS header's counts and bounds follow.
 */

import { readFileSync } from 'node:fs';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { describe, expect, it } from 'vitest';
import { oracleWeld } from '../../../test/three/oracle.js';
import { bunnyMesh, las, laz, ply, random, soupOf, xyz } from './fixtures.js';
import { arrayBufferOf, cli, put, workspace } from './helpers.js';

const dir = workspace();
const points = soupOf(bunnyMesh(), 2e-4, 9);
const RADIUS = 1e-3;

async function dedupe(input: string, output: string, radius: number, ...extra: string[]) {
  const { code, stdout, stderr } = await cli(
    'dedupe',
    input,
    '-o',
    output,
    '--radius',
    String(radius),
    '--json',
    ...extra,
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout);
}

describe('dedupe', () => {
  it('XYZ and CSV: representatives are input lines, in order; a header is kept', async () => {
    for (const [name, data] of [
      ['points.xyz', xyz(points, ' ', false)],
      ['points.csv', xyz(points, ',', true)],
    ] as const) {
      const input = put(dir, name, data);
      const output = `${dir}/deduped-${name}`;
      const summary = await dedupe(input, output, RADIUS);
      expect(summary.out).toBe(1839);
      const inLines = data.trimEnd().split('\n');
      const outLines = readFileSync(output, 'utf8').trimEnd().split('\n');
      expect(outLines.length).toBe(1839 + (name.endsWith('.csv') ? 1 : 0));
      // A subsequence of the input's lines.
      let k = 0;
      for (const line of outLines) {
        while (k < inLines.length && inLines[k] !== line) k++;
        expect(k).toBeLessThan(inLines.length);
        k++;
      }
    }
  });

  it('PLY point clouds in each encoding agree with the brute-force rule', async () => {
    const rand = random(5);
    const cloud = Float64Array.from({ length: 3 * 200 }, () => Math.floor(rand() * 8) * 0.25);
    const rows = Array.from({ length: 200 }, (_, i) => Array.from(cloud.subarray(i * 3, i * 3 + 3)));
    const expected = oracleWeld(rows, 0.25, []);
    for (const format of ['ascii', 'binary_little_endian', 'binary_big_endian'] as const) {
      const input = put(dir, `cloud-${format}.ply`, ply(cloud, [], format));
      const output = `${dir}/cloud-${format}-deduped.ply`;
      const summary = await dedupe(input, output, 0.25);
      expect(summary.out).toBe(expected.representatives.length);
      const geometry = new PLYLoader().parse(arrayBufferOf(output));
      const kept = Array.from(geometry.getAttribute('position').array);
      expect(kept).toEqual(expected.representatives.flatMap((r) => rows[r]!));
    }
  });

  it('--mean moves each kept point to its cluster mean, other columns kept', async () => {
    const input = put(dir, 'mean.xyz', '# three points\n0 0 0 7\n0.5 0 0 8\n5 5 5 9\n');
    await dedupe(input, `${dir}/mean-out.xyz`, 1, '--mean');
    expect(readFileSync(`${dir}/mean-out.xyz`, 'utf8')).toBe('# three points\n0.25 0 0 7\n5 5 5 9\n');
    const plyInput = put(
      dir,
      'mean.ply',
      ply([0, 0, 0, 0.5, 0, 0, 5, 5, 5], [], 'binary_little_endian', [1, 2, 3, 4, 5, 6, 7, 8, 9]),
    );
    await dedupe(plyInput, `${dir}/mean-out.ply`, 1, '--mean');
    const out = readFileSync(`${dir}/mean-out.ply`);
    const body = out.subarray(out.indexOf('end_header\n') + 11);
    expect(body.length).toBe(2 * 15);
    const record = (at: number) => [
      body.readFloatLE(at),
      body.readFloatLE(at + 4),
      body.readFloatLE(at + 8),
      ...body.subarray(at + 12, at + 15),
    ];
    expect([record(0), record(15)]).toEqual([
      [0.25, 0, 0, 1, 2, 3],
      [5, 5, 5, 7, 8, 9],
    ]);
    expect(out.toString('latin1')).toContain('element vertex 2\n');
  });

  for (const version of ['1.2', '1.4'] as const) {
    it(`LAS ${version}: kept records byte for byte, header counts, returns and bounds updated, VLR kept`, async () => {
      const data = las(points, version);
      const input = put(dir, `points-${version}.las`, data);
      const output = `${dir}/points-${version}-deduped.las`;
      const summary = await dedupe(input, output, RADIUS);
      const out = readFileSync(output);
      const pointOffset = out.readUInt32LE(96);
      const recordLength = out.readUInt16LE(105);
      expect(pointOffset).toBe(data.readUInt32LE(96));
      expect(out.length).toBe(pointOffset + summary.out * recordLength);
      const count = version === '1.4' ? Number(out.readBigUInt64LE(247)) : out.readUInt32LE(107);
      expect(count).toBe(summary.out);
      expect(out.subarray(out.readUInt16LE(94), pointOffset)).toEqual(
        data.subarray(data.readUInt16LE(94), pointOffset),
      );
      // Every kept record is one of the input's; the coordinates they hold are weld's representatives on the quantized points.
      const inputRecords = new Set<string>();
      for (let at = pointOffset; at < data.length; at += recordLength)
        inputRecords.add(data.subarray(at, at + recordLength).toString('hex'));
      let ones = 0;
      let maxX = Number.NEGATIVE_INFINITY;
      for (let at = pointOffset; at < out.length; at += recordLength) {
        expect(inputRecords.has(out.subarray(at, at + recordLength).toString('hex'))).toBe(true);
        const returnNumber = out.readUInt8(at + 14) & (version === '1.4' ? 0x0f : 0x07);
        if (returnNumber === 1) ones++;
        maxX = Math.max(maxX, out.readInt32LE(at) * 0.001 + 1000);
      }
      const returnsOne = version === '1.4' ? Number(out.readBigUInt64LE(255)) : out.readUInt32LE(111);
      expect(returnsOne).toBe(ones);
      expect(out.readDoubleLE(179)).toBe(maxX);
      const quantized = Array.from({ length: points.length / 3 }, (_, i) =>
        [0, 1, 2].map(
          (axis) =>
            Math.round((points[i * 3 + axis]! - [1000, 2000, 0][axis]!) / 0.001) * 0.001 + [1000, 2000, 0][axis]!,
        ),
      );
      expect(summary.out).toBe(oracleWeld(quantized, RADIUS, []).representatives.length);
    });
  }

  it('LAZ (decoded by laz-perf) comes out as the LAS the same points make, LASzip VLR and compression bits gone', async () => {
    // Few points: the test file stores one point per chunk, and each chunk starts a decompressor.
    const few = points.subarray(0, 3 * 300);
    const fromLas = await dedupe(put(dir, 'few.las', las(few, '1.2')), `${dir}/few-deduped.las`, RADIUS);
    const fromLaz = await dedupe(put(dir, 'few.laz', laz(few)), `${dir}/few-from-laz.las`, RADIUS);
    expect(fromLaz.out).toBe(fromLas.out);
    expect(fromLaz.format).toBe('LAZ 1.2');
    expect(readFileSync(`${dir}/few-from-laz.las`)).toEqual(readFileSync(`${dir}/few-deduped.las`));
  });
});
