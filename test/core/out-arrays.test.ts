/**
 * Every query that fills an `out` array (the hashes' box, point, radius and
 * nearest queries and box or position getters, the grids' within and
 * nearest) refuses anything but an array with a RangeError naming `out`,
 * as every other argument is refused (issue 31's coercion class). Before,
 * null, a number, a string or a typed array failed inside the query with a
 * TypeError (its length cannot be set), and a plain object was filled as if
 * it were an array. An array is still emptied, filled and returned.
 */
import { describe, expect, it } from 'vitest';
import { PointGrid2D, PointGrid3D, PointHash2D, PointHash3D, SpatialHash2D, SpatialHash3D } from '../../src/index.js';

const NOT_ARRAYS: [unknown, string][] = [
  [null, 'null'],
  [1, '1'],
  ['x', '"x"'],
  [{}, 'an object'],
  [new Uint32Array(4), 'a Uint32Array'],
];

interface Query {
  name: string;
  /** Runs the query with `out` on a fresh structure holding one item 'a' (index 0) at the origin. */
  run: (out: unknown) => unknown;
}

function box2(): SpatialHash2D<string> {
  const h = new SpatialHash2D<string>({ cellSize: 1 });
  h.insert('a', 0, 0, 1, 1);
  return h;
}
function box3(): SpatialHash3D<string> {
  const h = new SpatialHash3D<string>({ cellSize: 1 });
  h.insert('a', 0, 0, 0, 1, 1, 1);
  return h;
}
function point2(): PointHash2D<string> {
  const h = new PointHash2D<string>({ cellSize: 1 });
  h.insert('a', 0, 0);
  return h;
}
function point3(): PointHash3D<string> {
  const h = new PointHash3D<string>({ cellSize: 1 });
  h.insert('a', 0, 0, 0);
  return h;
}
const grid2 = () => new PointGrid2D(new Float64Array([0, 0]), { cellSize: 1 });
const grid3 = () => new PointGrid3D(new Float64Array([0, 0, 0]), { cellSize: 1 });

// Plain JavaScript may pass anything: the queries are called through `never`.
const queries: Query[] = [
  { name: 'SpatialHash2D.queryPoint', run: (out) => box2().queryPoint(0.5, 0.5, out as never) },
  { name: 'SpatialHash2D.queryBox', run: (out) => box2().queryBox(0, 0, 1, 1, out as never) },
  { name: 'SpatialHash2D.queryRadius', run: (out) => box2().queryRadius(0, 0, 1, out as never) },
  { name: 'SpatialHash2D.nearest', run: (out) => box2().nearest(0, 0, 1, 5, out as never) },
  { name: 'SpatialHash2D.boxById', run: (out) => box2().boxById(0, out as never) },
  { name: 'SpatialHash2D.getBox', run: (out) => box2().getBox('a', out as never) },
  { name: 'SpatialHash3D.queryPoint', run: (out) => box3().queryPoint(0.5, 0.5, 0.5, out as never) },
  { name: 'SpatialHash3D.queryBox', run: (out) => box3().queryBox(0, 0, 0, 1, 1, 1, out as never) },
  { name: 'SpatialHash3D.queryRadius', run: (out) => box3().queryRadius(0, 0, 0, 1, out as never) },
  { name: 'SpatialHash3D.nearest', run: (out) => box3().nearest(0, 0, 0, 1, 5, out as never) },
  { name: 'SpatialHash3D.boxById', run: (out) => box3().boxById(0, out as never) },
  { name: 'SpatialHash3D.getBox', run: (out) => box3().getBox('a', out as never) },
  { name: 'PointHash2D.queryBox', run: (out) => point2().queryBox(0, 0, 1, 1, out as never) },
  { name: 'PointHash2D.queryRadius', run: (out) => point2().queryRadius(0, 0, 1, out as never) },
  { name: 'PointHash2D.nearest', run: (out) => point2().nearest(0, 0, 1, 5, out as never) },
  { name: 'PointHash2D.positionById', run: (out) => point2().positionById(0, out as never) },
  { name: 'PointHash2D.getPosition', run: (out) => point2().getPosition('a', out as never) },
  { name: 'PointHash3D.queryBox', run: (out) => point3().queryBox(0, 0, 0, 1, 1, 1, out as never) },
  { name: 'PointHash3D.queryRadius', run: (out) => point3().queryRadius(0, 0, 0, 1, out as never) },
  { name: 'PointHash3D.nearest', run: (out) => point3().nearest(0, 0, 0, 1, 5, out as never) },
  { name: 'PointHash3D.positionById', run: (out) => point3().positionById(0, out as never) },
  { name: 'PointHash3D.getPosition', run: (out) => point3().getPosition('a', out as never) },
  { name: 'PointGrid2D.within', run: (out) => grid2().within(0, 0, 1, out as never) },
  { name: 'PointGrid2D.nearest', run: (out) => grid2().nearest(0, 0, 1, 5, out as never) },
  { name: 'PointGrid3D.within', run: (out) => grid3().within(0, 0, 0, 1, out as never) },
  { name: 'PointGrid3D.nearest', run: (out) => grid3().nearest(0, 0, 0, 1, 5, out as never) },
];

/** `call` throws a RangeError (not merely an Error) with exactly `message`; `shown` names the case. */
function expectRangeError(call: () => unknown, message: string, shown: string): void {
  let thrown: unknown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, shown).toBeInstanceOf(RangeError);
  expect((thrown as Error).message, shown).toBe(message);
}

describe.each(queries)('$name', ({ run }) => {
  it('refuses an out that is not an array with a RangeError naming it', () => {
    for (const [value, shown] of NOT_ARRAYS) {
      expectRangeError(() => run(value), `out must be an array, got ${shown}`, shown);
    }
    // Nothing was written into the plain object (it used to be filled as if it were an array).
    const object: Record<string, unknown> = {};
    expect(() => run(object)).toThrow(RangeError);
    expect(Object.keys(object)).toEqual([]);
  });

  it('refuses a frozen, sealed or non-extensible array with a RangeError naming it', () => {
    // Their elements cannot be added (or their length set), so the query failed midway with a TypeError.
    const locked: [unknown, string][] = [
      [Object.freeze([]), 'frozen'],
      [Object.freeze(['stale']), 'frozen, not empty'],
      [Object.seal(['stale']), 'sealed'],
      [Object.preventExtensions([]), 'not extensible'],
    ];
    for (const [value, shown] of locked) {
      expectRangeError(
        () => run(value),
        'out must be an array that can grow, got a frozen, sealed or non-extensible array',
        shown,
      );
    }
  });

  it('empties, fills and returns an array', () => {
    const out: unknown[] = ['stale', 'stale', 'stale', 'stale', 'stale', 'stale', 'stale', 'stale'];
    const result = run(out) as unknown[];
    expect(result).toBe(out);
    expect(out.length).toBeGreaterThan(0);
    expect(out).not.toContain('stale');
  });
});
