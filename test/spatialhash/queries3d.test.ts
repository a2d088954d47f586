/**
 * SpatialHash3D ray casts, k-nearest and pairs against brute force: the seeded
 * properties of test/support/query-oracle.ts through a flat-array view, then
 * hand-written 3D cases (edges and vertices of cells, far and sparse data, bad
 * input, reuse).
 */

import { describe, expect, it } from 'vitest';
import { type RayHit, SpatialHash3D } from '../../src/index.js';
import {
  type CellOnRay,
  checkPairs,
  checkRay,
  describeQueryProperties,
  expectNearest,
  type QueryHash,
  type QueryHashFactory,
} from '../support/query-oracle.js';

/** The 3D hash behind the flat-array interface of the shared properties. */
function wrap(hash: SpatialHash3D<number>): QueryHash {
  return {
    get size() {
      return hash.size;
    },
    insert: (item, b) => hash.insert(item, b[0], b[1], b[2], b[3], b[4], b[5]),
    update: (item, b) => hash.update(item, b[0], b[1], b[2], b[3], b[4], b[5]),
    remove: (item) => hash.remove(item),
    clear: () => hash.clear(),
    raycast: (o, d, max) =>
      max === undefined
        ? hash.raycast(o[0], o[1], o[2], d[0], d[1], d[2])
        : hash.raycast(o[0], o[1], o[2], d[0], d[1], d[2], max),
    raycastAll: (o, d, max, out) =>
      max === undefined
        ? hash.raycastAll(o[0], o[1], o[2], d[0], d[1], d[2])
        : hash.raycastAll(o[0], o[1], o[2], d[0], d[1], d[2], max, out),
    cellsOnRay: (o, d, max, stopAfter) => {
      const cells: CellOnRay[] = [];
      hash.forEachCellOnRay(o[0], o[1], o[2], d[0], d[1], d[2], max, (cx, cy, cz, enter, exit) => {
        cells.push({ cell: [cx, cy, cz], enter, exit });
        return cells.length === stopAfter;
      });
      return cells;
    },
    nearest: (p, k, max, out) =>
      k === undefined ? hash.nearest(p[0], p[1], p[2]) : hash.nearest(p[0], p[1], p[2], k, max, out),
    pairs: (query) => {
      const pairs: [number, number][] = [];
      hash.forEachPair((a, b) => {
        pairs.push([a, b]);
        // Queries inside the visitor must not disturb the walk.
        if (query) hash.nearest(0, 0, 0, 3);
      });
      return pairs;
    },
    validate: () => hash.validate(),
  };
}

const factory: QueryHashFactory = (options) => wrap(new SpatialHash3D<number>(options));

describeQueryProperties(3, factory);

describe('SpatialHash3D rays: cases', () => {
  it('nearest keeps what queryRadius keeps when squared distances overflow', () => {
    const hash = new SpatialHash3D<string>({ cellSize: 1e300 });
    hash.insert('origin', 0, 0, 0);
    hash.insert('here', 0, 0, -5e303);
    // Out of range under the distance rule (decision 2), though both squares overflow float64.
    expect(hash.queryRadius(0, 0, -5e303, 1e300)).toEqual(['here']);
    expect(hash.nearest(0, 0, -5e303, 2, 1e300)).toEqual(['here']);
    expect(hash.queryRadius(0, 0, -5e303, 1e304).sort()).toEqual(['here', 'origin']);
    expect(hash.nearest(0, 0, -5e303, 2, 1e304)).toEqual(['here', 'origin']);
    expect(hash.nearest(0, 0, -5e303, 2, 1e150)).toEqual(['here']);
  });

  it('visits every cell around an edge or a vertex the ray crosses', () => {
    const hash = new SpatialHash3D<string>({ cellSize: 1 });
    const cells: string[] = [];
    // Through the vertex (1, 1, 1): the 6 cells touched there, then the diagonal one.
    hash.forEachCellOnRay(0.5, 0.5, 0.5, 1, 1, 1, 1, (cx, cy, cz, enter, exit) => {
      cells.push(`${cx},${cy},${cz}`);
      if (cells.length > 1 && cells.length < 8) expect(exit).toBe(enter);
    });
    expect(cells).toEqual(['0,0,0', '1,0,0', '0,1,0', '0,0,1', '1,1,0', '1,0,1', '0,1,1', '1,1,1']);
    cells.length = 0;
    // Along an edge crossing: z constant, x and y cross together.
    hash.forEachCellOnRay(0.5, 0.5, 0.5, 1, 1, 0, 1, (cx, cy, cz) => {
      cells.push(`${cx},${cy},${cz}`);
    });
    expect(cells).toEqual(['0,0,0', '1,0,0', '0,1,0', '1,1,0']);
    // A box touching the ray only at the vertex, filed in one of those side cells only.
    hash.insert('vertex', 1, 0.5, 0.5, 1.5, 1, 1);
    expect(hash.raycast(0.5, 0.5, 0.5, 1, 1, 1)?.item).toBe('vertex');
    expect(hash.raycast(0.5, 0.5, 0.5, 1, 1, 1)?.distance).toBeCloseTo(Math.sqrt(0.75), 12);
    expect(hash.raycast(1.5, 1.5, 1.5, -1, -1, -1)?.distance).toBeCloseTo(Math.sqrt(0.75), 12);
  });

  it('keeps walking past a box met early but entered late, and nearest past a far corner', () => {
    const hash = new SpatialHash3D<string>({ cellSize: 1 });
    // Filed in the ray's first cell, but the ray z = 0.5 + 0.05 x only enters it at x = 8.
    hash.insert('late', 0, 0, 0.9, 10, 1, 1);
    hash.insert('between', 6, 0, 0, 6.5, 1, 1);
    expect(hash.raycast(0, 0.5, 0.5, 1, 0, 0.05)?.item).toBe('between');
    // The first item found (shell 2, a vertex) is farther than one in shell 3 straight ahead.
    const near = new SpatialHash3D<string>({ cellSize: 1 });
    near.insert('vertex', 2.9, 2.9, 2.9);
    near.insert('ahead', 0.5, 0.5, 3.6);
    // Enough occupied cells far along x that the shells are searched, not the occupied cells.
    for (let i = 0; i < 200; i++) near.insert(`filler ${i}`, 100 + i, 0, 0);
    expect(near.nearest(0.5, 0.5, 0.5)).toEqual(['ahead']);
    expect(near.nearest(0.5, 0.5, 0.5, 2)).toEqual(['ahead', 'vertex']);
  });

  it('reports distance 0 from inside, honours maxDistance, and casts along each axis', () => {
    const hash = new SpatialHash3D<string>({ cellSize: 2 });
    hash.insert('around', -1, -1, -1, 1, 1, 1);
    hash.insert('x', 4, -1, -1, 5, 1, 1);
    hash.insert('y', -1, 6, -1, 1, 7, 1);
    hash.insert('z', 0, 0, -9);
    expect(hash.raycast(0, 0, 0, 1, 0, 0)).toEqual({ item: 'around', distance: 0 });
    expect(hash.raycastAll(0, 0, 0, 3, 0, 0)).toEqual([
      { item: 'around', distance: 0 },
      { item: 'x', distance: 4 },
    ]);
    expect(hash.raycastAll(0, 0, 0, 0, 1, 0, 0)).toEqual([{ item: 'around', distance: 0 }]);
    expect(hash.raycast(0, 2, 0, 0, 1e-200, 0)).toEqual({ item: 'y', distance: 4 });
    expect(hash.raycast(0, 0, -2, 0, 0, -1e200)).toEqual({ item: 'z', distance: 7 });
    expect(hash.raycast(0, 0, -2, 0, 0, -1, 6.5)).toBeUndefined();
    expect(hash.raycast(0, 0, -2, 0, 0, -1, 7)).toEqual({ item: 'z', distance: 7 });
  });

  it('finds far items on sparse data, overflow items included', () => {
    const hash = new SpatialHash3D<string>({ cellSize: 1, maxCellsPerItem: 8 });
    hash.insert('a', -1e12, 0, 0);
    hash.insert('b', 1e12, 0, 0);
    hash.insert('c', 0, 0, 5e8);
    hash.insert('slab', -100, -100, 1e9, 100, 100, 1e9 + 1);
    hash.insert('far', 0, 0, -1e300);
    expect(hash.overflowSize).toBe(2);
    expect(hash.raycast(0, 0, 0, 1, 0, 0)).toEqual({ item: 'b', distance: 1e12 });
    expect(hash.raycast(0, 0, 0, 0, 0, 1)).toEqual({ item: 'c', distance: 5e8 });
    expect(hash.raycastAll(0, 0, -2e12, 0, 0, 1).map((h) => h.item)).toEqual(['c', 'slab']);
    expect(hash.raycast(0, 0, 0, 0, 0, -1)).toEqual({ item: 'far', distance: 1e300 });
    expect(hash.raycast(0, 0, 1, 1, 1, 0)).toBeUndefined();
    expect(hash.nearest(3e11, 0, 0, 3)).toEqual(['c', 'slab', 'b']);
    expect(hash.nearest(0, 0, 2e9, 1)).toEqual(['slab']);
    expect(hash.nearest(1, 0, -1e300, 1)).toEqual(['far']);
    expect(hash.nearest(-9e11, 0, 0, 1, 1e11)).toEqual(['a']);
    expect(hash.nearest(-9e11, 0, 0, 1, 1e11 - 1)).toEqual([]);
  });

  it('reuses the RayHit objects of out', () => {
    const hash = new SpatialHash3D<number>({ cellSize: 1 });
    for (let i = 0; i < 4; i++) hash.insert(i, 0, 0, i);
    const kept: RayHit<number> = { item: -1, distance: -1 };
    const out = [kept, { item: -2, distance: -2 }];
    expect(hash.raycastAll(0, 0, -1, 0, 0, 1, Number.POSITIVE_INFINITY, out)).toBe(out);
    expect(out[0]).toBe(kept);
    expect(out.map((h) => [h.item, h.distance])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
  });

  it('rejects bad arguments with a RangeError naming them, and changes nothing', () => {
    const hash = new SpatialHash3D<number>({ cellSize: 1 });
    hash.insert(1, 0, 0, 0, 1, 1, 1);
    const bad: [() => unknown, RegExp][] = [
      [() => hash.raycast(0, 0, Number.NaN, 1, 0, 0), /oz.*NaN/],
      [() => hash.raycast(0, 0, 0, 1, 0, Number.POSITIVE_INFINITY), /dz.*Infinity/],
      [() => hash.raycastAll(0, 0, 0, 0, 0, 0), /direction.*\(0, 0, 0\)/],
      [() => hash.raycast(0, 0, 0, 0, 0, 1, -0.5), /maxDistance.*-0\.5/],
      [() => hash.forEachCellOnRay(0, 0, 0, 1, 0, 0, Number.NaN, () => {}), /maxDistance.*NaN/],
      [() => hash.nearest(0, 0, Number.NEGATIVE_INFINITY), /z.*-Infinity/],
      [() => hash.nearest(0, 0, 0, 2 ** 53), /k/],
      [() => hash.nearest(0, 0, 0, 1, Number.NaN), /maxDistance.*NaN/],
      [() => hash.forEachPair(42 as never), /visit.*42/],
    ];
    for (const [call, message] of bad) {
      expect(call).toThrow(RangeError);
      expect(call).toThrow(message);
    }
    hash.validate();
    expect(hash.raycast(-1, 0.5, 0.5, 1, 0, 0)).toEqual({ item: 1, distance: 1 });
  });

  it('nearest: ties on a cube of points, k = 0 and k > size', () => {
    const hash = new SpatialHash3D<number>({ cellSize: 1 });
    const entries: [number, number[]][] = [];
    let item = 0;
    for (const x of [-1, 0, 1]) {
      for (const y of [-1, 0, 1]) {
        for (const z of [-1, 0, 1]) {
          hash.insert(item, x, y, z);
          entries.push([item++, [x, y, z, x, y, z]]);
        }
      }
    }
    expect(hash.nearest(0, 0, 0, 0)).toEqual([]);
    for (const k of [1, 2, 7, 8, 19, 27, 40])
      expectNearest(hash.nearest(0, 0, 0, k), entries, [0, 0, 0], k, Number.POSITIVE_INFINITY);
    expectNearest(hash.nearest(0.5, 0.5, 0.5, 40, 1), entries, [0.5, 0.5, 0.5], 40, 1);
  });

  it('forEachPair with multi-cell, coincident and overflow items', () => {
    const hash = new SpatialHash3D<number>({ cellSize: 1, maxCellsPerItem: 4 });
    const boxes = [
      [0, 0, 0, 1.5, 0.5, 0.5],
      [0, 0, 0, 1.5, 0.5, 0.5],
      [1.5, 0.5, 0.5, 1.5, 0.5, 0.5],
      [-1, -1, -1, 0, 0, 0],
      [-5, -5, -5, 5, 5, 5],
      [-5, -5, -5, 5, 5, 5],
      [3, 3, 3, 3, 3, 3],
      [1, 1, -3, 1, 1, 3],
    ];
    const entries: [number, number[]][] = boxes.map((b, i) => [i, b]);
    for (const [i, b] of entries) hash.insert(i, b[0], b[1], b[2], b[3], b[4], b[5]);
    checkPairs(wrap(hash), entries);
    checkRay(
      wrap(hash),
      entries,
      { cellSize: 1, maxCellsPerItem: 4, boxes },
      {
        origin: [-2, -2, -2],
        direction: [1, 1, 1],
        maxDistance: 10,
      },
    );
  });
});
