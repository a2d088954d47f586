/**
 * SpatialHash2D ray casts, k-nearest and pairs against brute force: the seeded
 * properties of test/support/query-oracle.ts through a flat-array view, then
 * hand-written cases (corners, far and sparse data, bad input, reuse).
 */

import { describe, expect, it } from 'vitest';
import { type RayHit, SpatialHash2D } from '../../src/index.js';
import {
  type CellOnRay,
  checkPairs,
  checkRay,
  describeQueryProperties,
  expectNearest,
  type QueryHash,
  type QueryHashFactory,
} from '../support/query-oracle.js';

/** The 2D hash behind the flat-array interface of the shared properties. */
function wrap(hash: SpatialHash2D<number>): QueryHash {
  return {
    get size() {
      return hash.size;
    },
    insert: (item, b) => hash.insert(item, b[0], b[1], b[2], b[3]),
    update: (item, b) => hash.update(item, b[0], b[1], b[2], b[3]),
    remove: (item) => hash.remove(item),
    clear: () => hash.clear(),
    raycast: (o, d, max) =>
      max === undefined ? hash.raycast(o[0], o[1], d[0], d[1]) : hash.raycast(o[0], o[1], d[0], d[1], max),
    raycastAll: (o, d, max, out) =>
      max === undefined ? hash.raycastAll(o[0], o[1], d[0], d[1]) : hash.raycastAll(o[0], o[1], d[0], d[1], max, out),
    cellsOnRay: (o, d, max, stopAfter) => {
      const cells: CellOnRay[] = [];
      hash.forEachCellOnRay(o[0], o[1], d[0], d[1], max, (cx, cy, enter, exit) => {
        cells.push({ cell: [cx, cy], enter, exit });
        return cells.length === stopAfter;
      });
      return cells;
    },
    nearest: (p, k, max, out) => (k === undefined ? hash.nearest(p[0], p[1]) : hash.nearest(p[0], p[1], k, max, out)),
    pairs: (query) => {
      const pairs: [number, number][] = [];
      hash.forEachPair((a, b) => {
        pairs.push([a, b]);
        // Queries inside the visitor must not disturb the walk.
        if (query) hash.queryBox(-5, -5, 5, 5);
      });
      return pairs;
    },
    validate: () => hash.validate(),
  };
}

const factory: QueryHashFactory = (options) => wrap(new SpatialHash2D<number>(options));

describeQueryProperties(2, factory);

describe('SpatialHash2D rays: cases', () => {
  it('finds a box touching the ray only at a cell corner, whichever way the ray goes', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1 });
    // The line x + y = 3 passes the corner (1, 2); this box touches it only there, in cell (1, 2).
    hash.insert('corner', 1, 2, 1.5, 2.5);
    expect(hash.raycast(0.5, 2.5, 1, -1)?.item).toBe('corner');
    expect(hash.raycast(0.5, 2.5, 1, -1)?.distance).toBeCloseTo(Math.SQRT1_2, 12);
    expect(hash.raycast(2.5, 0.5, -1, 1)?.distance).toBeCloseTo(Math.SQRT1_2 * 3, 12);
    expect(hash.raycast(1.5, 1.5, -1, 1)?.distance).toBeCloseTo(Math.SQRT1_2, 12);
    // And the walk reports both cells beside the corner, with enter === exit.
    const cells: number[][] = [];
    hash.forEachCellOnRay(0.5, 2.5, 1, -1, 2, (cx, cy, enter, exit) => {
      cells.push([cx, cy, enter, exit]);
    });
    expect(cells.map((c) => `${c[0]},${c[1]}`)).toEqual(['0,2', '1,2', '0,1', '1,1']);
    expect(cells[1][2]).toBe(cells[1][3]);
  });

  it('keeps walking past a box met early but entered late, and nearest past a far corner', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1 });
    // Filed in the ray's first cell, but the ray y = 0.5 + 0.05 x only enters it at x = 8.
    hash.insert('late', 0, 0.9, 10, 1);
    hash.insert('between', 6, 0, 6.5, 1);
    expect(hash.raycast(0, 0.5, 1, 0.05)?.item).toBe('between');
    expect(hash.raycast(0, 0.5, 1, 0.05, 6)).toBeUndefined();
    // The first item found (ring 2, a corner) is farther than one in ring 3 straight ahead.
    const near = new SpatialHash2D<string>({ cellSize: 1 });
    near.insert('corner', 2.9, 2.9);
    near.insert('ahead', 0.5, 3.6);
    expect(near.nearest(0.5, 0.5)).toEqual(['ahead']);
    expect(near.nearest(0.5, 0.5, 2)).toEqual(['ahead', 'corner']);
  });

  it('reports distance 0 from inside a box, and maxDistance 0 keeps only those', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 2 });
    hash.insert('around', -1, -1, 1, 1);
    hash.insert('ahead', 3, -1, 4, 1);
    expect(hash.raycast(0, 0, 1, 0)).toEqual({ item: 'around', distance: 0 });
    expect(hash.raycastAll(0, 0, 5, 0)).toEqual([
      { item: 'around', distance: 0 },
      { item: 'ahead', distance: 3 },
    ]);
    expect(hash.raycastAll(0, 0, 1, 0, 0)).toEqual([{ item: 'around', distance: 0 }]);
    expect(hash.raycastAll(0, 0, 1, 0, 3)).toHaveLength(2);
    expect(hash.raycastAll(0, 0, 1, 0, 2.999)).toHaveLength(1);
    expect(hash.raycast(2, 0, 1, 0, 1)).toEqual({ item: 'ahead', distance: 1 });
    expect(hash.raycast(2, 0, -1, 0)).toEqual({ item: 'around', distance: 1 });
  });

  it('finds far items on sparse data and stops infinite rays past everything stored', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1 });
    hash.insert('west', -1e15, 0);
    hash.insert('east', 1e15, 0, 1e15 + 1, 1);
    hash.insert('north', 0, 3e9);
    expect(hash.raycast(0, 0, 1, 0)).toEqual({ item: 'east', distance: 1e15 });
    expect(hash.raycast(0, 0, -3, 0)).toEqual({ item: 'west', distance: 1e15 });
    expect(hash.raycastAll(-2e15, 0.5, 1, 0).map((h) => h.item)).toEqual(['east']);
    expect(hash.raycast(0, 0, 0, 1e-300)).toEqual({ item: 'north', distance: 3e9 });
    expect(hash.raycast(0, 0, 1, 1)).toBeUndefined();
    expect(hash.raycast(5, 5, 1, 0)).toBeUndefined();
    // Infinite rays end where they leave the stored cells: here after a few cells, as y goes past 3e9.
    let visited = 0;
    hash.forEachCellOnRay(0, 3e9 - 2.5, 0.001, 1, Number.POSITIVE_INFINITY, () => {
      visited++;
    });
    expect(visited).toBeLessThanOrEqual(5);
    visited = 0;
    hash.forEachCellOnRay(0, 0, -1, -1, Number.POSITIVE_INFINITY, () => {
      visited++;
    });
    expect(visited).toBeLessThanOrEqual(8);
    expect(hash.nearest(1e15 - 1e6, 0, 2).map(String)).toEqual(['east', 'north']);
    expect(hash.nearest(-5e14, 0, 1)).toEqual(['west']);
    // west and east are 1e15 away, equal in float: either order.
    const three = hash.nearest(0, 1e12, 3);
    expect(three[0]).toBe('north');
    expect(three.slice(1).sort()).toEqual(['east', 'west']);
  });

  it('walks from an origin so far away that its start point rounds across many cells', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1 });
    for (let x = -5; x <= 5; x++) hash.insert(`p${x}`, x, 0.5);
    for (const ox of [-1e300, -1e17, -1e9]) expect(hash.raycastAll(ox, 0.5, 1, 0)).toHaveLength(11);
    expect(hash.raycastAll(1e300, 0.5, -1, 0)).toHaveLength(11);
  });

  it('considers overflow items and items beyond the last cell index', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1, maxCellsPerItem: 4 });
    hash.insert('wall', 10, -100, 11, 100);
    hash.insert('far', 1e300, 0);
    hash.insert('small', 5, 0);
    expect(hash.overflowSize).toBe(2);
    expect(hash.raycastAll(0, 0, 1, 0).map((h) => h.item)).toEqual(['small', 'wall', 'far']);
    expect(hash.raycast(6, 0, 1, 0)).toEqual({ item: 'wall', distance: 4 });
    expect(hash.nearest(0, 50, 2)).toEqual(['wall', 'small']);
    expect(hash.nearest(1e300, 1)).toEqual(['far']);
    const pairs: string[] = [];
    hash.insert('crossing', 9, 0, 12, 0);
    hash.insert('wide', -1e300, -1, 1e300, 1);
    hash.forEachPair((a, b) => {
      pairs.push([a, b].sort().join('+'));
    });
    expect(pairs.sort()).toEqual(['crossing+wall', 'crossing+wide', 'far+wide', 'small+wide', 'wall+wide']);
  });

  it('nearest keeps what queryRadius keeps when squared distances overflow', () => {
    // maxDistance 1e300 squares to Infinity in float64, and so does the distance of the item at 0 from
    // (5e303, 0); under the distance rule (decision 2) it is out of range in both, and within 1e304.
    const hash = new SpatialHash2D<string>({ cellSize: 1e300 });
    hash.insert('origin', 0, 0);
    hash.insert('here', 5e303, 0);
    expect(hash.queryRadius(5e303, 0, 1e300)).toEqual(['here']);
    expect(hash.nearest(5e303, 0, 2, 1e300)).toEqual(['here']);
    expect(hash.queryRadius(5e303, 0, 1e304).sort()).toEqual(['here', 'origin']);
    expect(hash.nearest(5e303, 0, 2, 1e304)).toEqual(['here', 'origin']);
    // With a radius whose square is finite, the far item is out of range again.
    expect(hash.nearest(5e303, 0, 2, 1e150)).toEqual(['here']);
  });

  it('walks a finite segment cell by cell and stops when the visitor returns true', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 10 });
    const cells: string[] = [];
    hash.forEachCellOnRay(-5, 5, 1, 0, 30, (cx, cy, enter, exit) => {
      cells.push(`${cx},${cy}:${enter}-${exit}`);
    });
    expect(cells).toEqual(['-1,0:0-5', '0,0:5-15', '1,0:15-25', '2,0:25-30']);
    let n = 0;
    hash.forEachCellOnRay(-5, 5, 1, 0, 30, () => ++n === 2);
    expect(n).toBe(2);
    // An infinite ray on an empty hash visits nothing.
    hash.forEachCellOnRay(0, 0, 1, 0, Number.POSITIVE_INFINITY, () => {
      n++;
    });
    expect(n).toBe(2);
  });

  it('reuses the RayHit objects of out and may be nested in a visitor', () => {
    const hash = new SpatialHash2D<number>({ cellSize: 1 });
    for (let i = 0; i < 5; i++) hash.insert(i, i, 0);
    const first: RayHit<number> = { item: -1, distance: -1 };
    const out = [first];
    const got = hash.raycastAll(-1, 0, 1, 0, Number.POSITIVE_INFINITY, out);
    expect(got).toBe(out);
    expect(got[0]).toBe(first);
    expect(got.map((h) => h.item)).toEqual([0, 1, 2, 3, 4]);
    expect(hash.raycastAll(-1, 0, 1, 0, 2.5, out).map((h) => h.distance)).toEqual([1, 2]);
    expect(out).toHaveLength(2);
    const hits: (number | undefined)[] = [];
    hash.forEachCellOnRay(0, 0.5, 1, 0, 3, (cx) => {
      hits.push(hash.raycast(cx, 0, 0, -1)?.item);
      hash.forEachCellOnRay(cx, 0, 0, 1, 1, () => true);
    });
    expect(hits).toEqual([0, 1, 2, 3]);
  });

  it('rejects bad rays with a RangeError naming the argument, and changes nothing', () => {
    const hash = new SpatialHash2D<number>({ cellSize: 1 });
    hash.insert(1, 0, 0, 1, 1);
    const bad: [() => unknown, RegExp][] = [
      [() => hash.raycast(Number.NaN, 0, 1, 0), /ox.*NaN/],
      [() => hash.raycast(0, Number.POSITIVE_INFINITY, 1, 0), /oy.*Infinity/],
      [() => hash.raycast(0, 0, Number.NaN, 0), /dx.*NaN/],
      [() => hash.raycastAll(0, 0, 1, Number.NEGATIVE_INFINITY), /dy.*-Infinity/],
      [() => hash.raycast(0, 0, 0, 0), /direction.*\(0, 0\)/],
      [() => hash.raycast(0, 0, -0, 0), /direction.*-0/],
      [() => hash.raycast(0, 0, 1, 0, -1), /maxDistance.*-1/],
      [() => hash.raycastAll(0, 0, 1, 0, Number.NaN), /maxDistance.*NaN/],
      [() => hash.forEachCellOnRay(0, 0, 0, 0, 1, () => {}), /direction/],
      [() => hash.forEachCellOnRay(0, 0, 1, 0, 1, null as never), /visit/],
      [() => hash.nearest(Number.NaN, 0), /x.*NaN/],
      [() => hash.nearest(0, 0, -1), /k.*-1/],
      [() => hash.nearest(0, 0, 1.5), /k.*1\.5/],
      [() => hash.nearest(0, 0, Number.NaN), /k.*NaN/],
      [() => hash.nearest(0, 0, 1, -2), /maxDistance.*-2/],
      [() => hash.forEachPair(undefined as never), /visit/],
    ];
    for (const [call, message] of bad) {
      expect(call).toThrow(RangeError);
      expect(call).toThrow(message);
    }
    hash.validate();
    expect(hash.size).toBe(1);
    expect(hash.raycast(-1, 0.5, 1, 0)).toEqual({ item: 1, distance: 1 });
  });

  it('nearest: k = 0, k > size, ties, maxDistance and reuse of out', () => {
    const hash = new SpatialHash2D<number>({ cellSize: 1 });
    const entries: [number, number[]][] = [];
    // A ring of 8 points at distance 2 around the origin (4 of them on cell borders) and one inside.
    const points = [
      [2, 0],
      [-2, 0],
      [0, 2],
      [0, -2],
      [1, 1],
      [-1, -1],
      [1, -1],
      [-1, 1],
      [0, 0],
    ];
    points.forEach(([x, y], i) => {
      hash.insert(i, x, y);
      entries.push([i, [x, y, x, y]]);
    });
    expect(hash.nearest(0, 0, 0)).toEqual([]);
    expect(hash.nearest(0, 0)).toEqual([8]);
    for (const k of [1, 3, 5, 9, 20])
      expectNearest(hash.nearest(0, 0, k), entries, [0, 0], k, Number.POSITIVE_INFINITY);
    expectNearest(hash.nearest(0, 0, 20, Math.SQRT2), entries, [0, 0], 20, Math.SQRT2);
    expect(hash.nearest(0, 0, 20, 1.4)).toEqual([8]);
    const out = [99, 98];
    expect(hash.nearest(5, 5, 1, 2, out)).toBe(out);
    expect(out).toEqual([]);
    hash.clear();
    expect(hash.nearest(0, 0, 3)).toEqual([]);
    expect(hash.raycast(0, 0, 1, 0)).toBeUndefined();
  });

  it('forEachPair with multi-cell, coincident and overflow items', () => {
    const hash = new SpatialHash2D<number>({ cellSize: 1, maxCellsPerItem: 3 });
    const entries: [number, number[]][] = [];
    const boxes = [
      [0, 0, 2.5, 0.5],
      [0, 0, 2.5, 0.5],
      [2.5, 0.5, 2.5, 0.5],
      [-1, -1, 0, 0],
      [-5, -5, 5, 5],
      [-5, -5, 5, 5],
      [3, 3, 3, 3],
      [1, -3, 1, 3],
    ];
    boxes.forEach((b, i) => {
      hash.insert(i, b[0], b[1], b[2], b[3]);
      entries.push([i, b]);
    });
    checkPairs(wrap(hash), entries);
    checkRay(
      wrap(hash),
      entries,
      { cellSize: 1, maxCellsPerItem: 3, boxes },
      { origin: [-2, -2], direction: [1, 1], maxDistance: 10 },
    );
  });
});

describe('query stamps (an item in several cells is reported once a query)', () => {
  it('clear when their counter wraps, so that no item stamped 4 billion queries ago is taken for one seen now', () => {
    const queries: [string, (hash: SpatialHash2D<string>) => string[]][] = [
      ['queryBox', (hash) => hash.queryBox(0, 0, 2, 2)],
      ['queryRadius', (hash) => hash.queryRadius(1, 1, 1)],
      ['nearest', (hash) => hash.nearest(1, 1, 1)],
      ['raycastAll', (hash) => hash.raycastAll(-1, 1, 1, 0, 5).map((hit) => hit.item)],
    ];
    for (const [name, query] of queries) {
      const hash = new SpatialHash2D<string>({ cellSize: 1 });
      // Each in four cells: a query meets each up to four times and reports it once (nearest and the ray casts tell
      // by its stamp; the box and radius queries need none, but take one: they are checked across the wrap too).
      hash.insert('a', 0.5, 0.5, 1.5, 1.5);
      hash.insert('b', 10.5, 0.5, 11.5, 1.5);
      // 'a' takes the hash's first stamp; 4,294,967,294 queries later (the counter set there), one meets 'b' only,
      // with the last stamp; the next query takes the first stamp again, which 'a' still holds unless the wrap
      // cleared it.
      expect(query(hash), `${name} before the wrap`).toEqual(['a']);
      (hash as unknown as { stamp: number }).stamp = 0xffffffff - 1;
      expect(hash.queryBox(10, 0, 12, 2)).toEqual(['b']);
      expect(query(hash), `${name} right after the wrap`).toEqual(['a']);
      hash.validate();
    }
  });
});
