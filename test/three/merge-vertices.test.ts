/**
 * weldGeometry beside three.js's own mergeVertices (BufferGeometryUtils): the
 * same vertices where mergeVertices is right (TorusKnot, Box with groups, a
 * glTF-like interleaved mesh), and the pairs it misses across its rounding
 * grid that weldGeometry merges.
 */

import {
  BoxGeometry,
  type BufferAttribute,
  BufferGeometry,
  Float32BufferAttribute,
  InterleavedBuffer,
  InterleavedBufferAttribute,
  TorusKnotGeometry,
} from 'three';
import { mergeVertices } from 'three/examples/jsm/utils/BufferGeometryUtils.js';
import { describe, expect, it } from 'vitest';
import { weldGeometry } from '../../src/three/index.js';
import { random } from '../support/random.js';

const TOLERANCE = 1e-4;

/** Each corner's values of attribute `name`, read through the index: what gets drawn. */
function drawn(geometry: BufferGeometry, name: string): number[][] {
  const attribute = geometry.getAttribute(name);
  const index = geometry.getIndex();
  const corners = index === null ? attribute.count : index.count;
  const out: number[][] = [];
  for (let k = 0; k < corners; k++) {
    const v = index === null ? k : index.getX(k);
    const values: number[] = [];
    for (let c = 0; c < attribute.itemSize; c++) values.push(attribute.getComponent(v, c));
    out.push(values);
  }
  return out;
}

/** glTF-like: position, normal and uv in one InterleavedBuffer (stride 8), no index. */
function interleave(geometry: BufferGeometry): BufferGeometry {
  const position = geometry.getAttribute('position');
  const normal = geometry.getAttribute('normal');
  const uv = geometry.getAttribute('uv');
  const data = new Float32Array(position.count * 8);
  for (let i = 0; i < position.count; i++) {
    data.set([position.getX(i), position.getY(i), position.getZ(i)], i * 8);
    data.set([normal.getX(i), normal.getY(i), normal.getZ(i)], i * 8 + 3);
    data.set([uv.getX(i), uv.getY(i)], i * 8 + 6);
  }
  const buffer = new InterleavedBuffer(data, 8);
  const out = new BufferGeometry();
  out.setAttribute('position', new InterleavedBufferAttribute(buffer, 3, 0));
  out.setAttribute('normal', new InterleavedBufferAttribute(buffer, 3, 3));
  out.setAttribute('uv', new InterleavedBufferAttribute(buffer, 2, 6));
  return out;
}

/** Pairs of vertices within `tolerance` of each other, brute force. */
function pairsWithin(geometry: BufferGeometry, tolerance: number): number {
  const p = geometry.getAttribute('position');
  let pairs = 0;
  for (let i = 0; i < p.count; i++) {
    for (let j = i + 1; j < p.count; j++) {
      const dx = p.getX(i) - p.getX(j);
      const dy = p.getY(i) - p.getY(j);
      const dz = p.getZ(i) - p.getZ(j);
      if (dx * dx + dy * dy + dz * dz <= tolerance * tolerance) pairs++;
    }
  }
  return pairs;
}

describe('weldGeometry and mergeVertices agree where mergeVertices is right', () => {
  it('TorusKnot, de-indexed: the same vertices, the same drawn mesh', () => {
    const soup = new TorusKnotGeometry(1, 0.3, 64, 8).toNonIndexed();
    const ours = weldGeometry(soup, TOLERANCE);
    const theirs = mergeVertices(soup, TOLERANCE);
    expect(ours.getAttribute('position').count).toBe(theirs.getAttribute('position').count);
    expect(ours.getAttribute('position').count).toBeLessThan(soup.getAttribute('position').count / 4);
    for (const name of ['position', 'normal', 'uv']) expect(drawn(ours, name)).toEqual(drawn(soup, name));
  });

  it('TorusKnot, already indexed: nothing to merge for either (the uv seam keeps its copies)', () => {
    const knot = new TorusKnotGeometry(1, 0.3, 64, 8);
    const count = knot.getAttribute('position').count;
    expect(weldGeometry(knot, TOLERANCE).getAttribute('position').count).toBe(count);
    expect(mergeVertices(knot, TOLERANCE).getAttribute('position').count).toBe(count);
    // Ignoring uv (and normal), the seam's copies merge: fewer vertices than mergeVertices can reach.
    const seamless = weldGeometry(knot, TOLERANCE, { ignore: ['uv', 'normal'] }).getAttribute('position').count;
    expect(seamless).toBeLessThan(count);
    expect(seamless).toBe(64 * 8);
  });

  it('Box with its six groups: 24 vertices, groups and each triangle in its group kept', () => {
    const box = new BoxGeometry(1, 2, 3, 2, 2, 2).toNonIndexed();
    expect(box.groups.length).toBe(6);
    const ours = weldGeometry(box, TOLERANCE);
    const theirs = mergeVertices(box, TOLERANCE);
    expect(ours.getAttribute('position').count).toBe(theirs.getAttribute('position').count);
    expect(ours.groups).toEqual(box.groups);
    for (const name of ['position', 'normal', 'uv']) expect(drawn(ours, name)).toEqual(drawn(box, name));
    // Corners of different faces share a position but not a normal: kept apart. Ignoring normals and uvs, the
    // 6 x 9 face vertices collapse to the 26 distinct points of a 2 x 2 x 2 subdivided box.
    expect(weldGeometry(box, TOLERANCE, { ignore: ['normal', 'uv'] }).getAttribute('position').count).toBe(26);
  });

  it('a glTF-like interleaved mesh: the same vertices as the plain one, attributes de-interleaved', () => {
    const soup = new TorusKnotGeometry(1, 0.3, 48, 6).toNonIndexed();
    const gltf = interleave(soup);
    const ours = weldGeometry(gltf, TOLERANCE, { attributeTolerances: { normal: 1e-3 } });
    const plain = weldGeometry(soup, TOLERANCE, { attributeTolerances: { normal: 1e-3 } });
    expect(ours.getAttribute('position').count).toBe(plain.getAttribute('position').count);
    expect(ours.getAttribute('position').count).toBe(mergeVertices(gltf, TOLERANCE).getAttribute('position').count);
    const normal = ours.getAttribute('normal') as BufferAttribute;
    expect(normal.isBufferAttribute).toBe(true);
    expect(normal.array).toBeInstanceOf(Float32Array);
    for (const name of ['position', 'normal', 'uv']) expect(drawn(ours, name)).toEqual(drawn(soup, name));
  });
});

describe('where mergeVertices misses pairs and weldGeometry does not', () => {
  it('two copies of a vertex 2e-6 apart on either side of its rounding boundary (x = 0.5e-4)', () => {
    // Two triangles sharing the edge (a, b); a's copies straddle the boundary at x = 0.5 * tolerance.
    const a0 = [0.49e-4, 0, 0];
    const a1 = [0.51e-4, 0, 0];
    const b = [0, 1, 0];
    const soup = new BufferGeometry();
    soup.setAttribute('position', new Float32BufferAttribute([...a0, ...b, 1, 0, 0, ...a1, -1, 0, 0, ...b], 3));
    expect(mergeVertices(soup, TOLERANCE).getAttribute('position').count).toBe(5);
    expect(weldGeometry(soup, TOLERANCE).getAttribute('position').count).toBe(4);
  });

  it('a jittered torus soup: mergeVertices leaves pairs within tolerance, weldGeometry none', () => {
    const rand = random(24621);
    const knot = new TorusKnotGeometry(1, 0.3, 40, 6);
    const soup = knot.toNonIndexed();
    soup.deleteAttribute('normal');
    soup.deleteAttribute('uv');
    const position = soup.getAttribute('position') as BufferAttribute;
    for (let k = 0; k < position.array.length; k++) position.array[k] += (rand() - 0.5) * 0.4 * TOLERANCE;
    const theirs = mergeVertices(soup, TOLERANCE);
    const ours = weldGeometry(soup, TOLERANCE);
    expect(pairsWithin(theirs, TOLERANCE)).toBeGreaterThan(0);
    expect(pairsWithin(ours, TOLERANCE)).toBe(0);
    expect(ours.getAttribute('position').count).toBeLessThan(theirs.getAttribute('position').count);
  });
});
