/**
 * Hand-written cases shared by SpatialHash2D and SpatialHash3D, each a corner
 * the random sequences might reach only rarely: closed borders, negative cells,
 * the update fast path, `out` reuse, items of any type, far-away and huge
 * coordinates, queries over far more cells than exist, churn, and every kind
 * of rejected argument. Written once over flat box / point arrays; the 3D
 * versions put a third coordinate after y everywhere.
 *
 * @module
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoxOracle, boxWithinRadius } from './box-oracle.js';
import {
  argumentNames,
  CELL_SIZES,
  everythingBox,
  expectLogicError,
  expectRangeError,
  expectSameItems,
  type HashFactory,
  type HashUnderTest,
  ItemIds,
  makeItemPool,
  nextDown,
  nextUp,
} from './hash-properties.js';

/** Declares the hand-written cases for one dimension. */
export function describeHashExamples(dimension: 2 | 3, factory: HashFactory): void {
  const names = argumentNames(dimension);
  /** A point with every coordinate `v` (or the given ones, padded with the last). */
  const at = (...v: number[]): number[] => Array.from({ length: dimension }, (_, a) => v[Math.min(a, v.length - 1)]);
  /** A box from two corners given as `at` arguments. */
  const box = (min: number[], max: number[]): number[] => [...at(...min), ...at(...max)];
  const make = (cellSize: number, more: Record<string, unknown> = {}): HashUnderTest => factory({ cellSize, ...more });
  const sorted = (items: unknown[]) => [...items].sort();

  describe(`SpatialHash${dimension}D examples`, () => {
    it('reports its options and starts empty', () => {
      const hash = make(2.5);
      expect(hash.cellSize).toBe(2.5);
      expect(hash.size).toBe(0);
      expect(hash.iterate()).toEqual([]);
      expect(hash.forEachItems()).toEqual([]);
      expect(hash.queryBox(everythingBox(dimension))).toEqual([]);
      expect(hash.queryPoint(at(0))).toEqual([]);
      expect(hash.queryRadius(at(0), 1e9)).toEqual([]);
      expect(hash.remove('nothing')).toBe(false);
      expect(hash.has('nothing')).toBe(false);
      hash.validate();
    });

    it('treats boxes as closed: touching faces, edges and corners count, one ulp away does not', () => {
      for (const cellSize of [10, 1, 0.3, 7]) {
        const hash = make(cellSize);
        hash.insert('a', box([0], [10]));
        hash.insert('b', box([-10], [0]));
        expect(sorted(hash.queryPoint(at(10)))).toEqual(['a']);
        expect(sorted(hash.queryPoint(at(0)))).toEqual(['a', 'b']);
        expect(sorted(hash.queryPoint(at(-10)))).toEqual(['b']);
        expect(hash.queryPoint(at(nextUp(10)))).toEqual([]);
        expect(hash.queryPoint(at(10, nextUp(10)))).toEqual([]);
        expect(hash.queryPoint(at(nextDown(-10)))).toEqual([]);
        expect(sorted(hash.queryBox(box([10], [20])))).toEqual(['a']);
        expect(sorted(hash.queryBox(box([-20], [-10])))).toEqual(['b']);
        expect(hash.queryBox(box([nextUp(10)], [20]))).toEqual([]);
        expect(sorted(hash.queryBox(box([0, nextUp(0)], [0, 5])))).toEqual(['a']);
        // A 3-4-5 triangle (and 2-3-6-7 in 3D) puts the query exactly at distance r.
        const onCircle = dimension === 2 ? [13, 14] : [12, 13, 16];
        const r = dimension === 2 ? 5 : 7;
        expect(hash.queryRadius(onCircle, r)).toEqual(['a']);
        expect(hash.queryRadius(onCircle, nextDown(r))).toEqual([]);
        expect(
          hash.queryRadius(
            onCircle.map((v) => -v),
            r,
          ),
        ).toEqual(['b']);
        expect(sorted(hash.queryRadius(at(0), 0))).toEqual(['a', 'b']);
        expect(sorted(hash.queryRadius(at(0), -0))).toEqual(['a', 'b']);
        hash.validate();
      }
    });

    it('puts points on negative cell borders in their own cells (floor, not truncation)', () => {
      for (const cellSize of [1, 10, 0.1, 1 / 3]) {
        const hash = make(cellSize);
        const xs: number[] = [];
        for (let k = -6; k <= 6; k++) {
          xs.push(k * cellSize, k * cellSize + cellSize / 2);
          // Just below 0 is the underflow case, tested on its own below.
          if (k !== 0) xs.push(nextDown(k * cellSize));
        }
        xs.forEach((x, i) => {
          hash.insert(i, at(x));
        });
        xs.forEach((x, i) => {
          const same = xs.flatMap((other, j) => (other === x ? [j] : []));
          expect(hash.queryPoint(at(x)).sort((p, q) => Number(p) - Number(q))).toEqual(same);
          const within = xs.flatMap((other, j) => (boxWithinRadius(box([other], [other]), at(x), 0) ? [j] : []));
          expect(hash.queryRadius(at(x), 0).sort((p, q) => Number(p) - Number(q))).toEqual(within);
          expect(hash.has(i)).toBe(true);
        });
        // A query box between two borders finds exactly what lies inside it.
        const inside = xs.flatMap((x, i) => (x >= -2 * cellSize && x <= cellSize ? [i] : []));
        expect(hash.queryBox(box([-2 * cellSize], [cellSize])).sort((p, q) => Number(p) - Number(q))).toEqual(inside);
        hash.validate();
      }
    });

    it('applies the radius formula literally where squares underflow (just below 0 is within 0 of 0)', () => {
      // (5e-324)^2 and (1e-170)^2 underflow to 0, so by the documented formula
      // dx*dx + dy*dy <= r*r these points are within radius 0 of the origin,
      // though they sit in cell -1 and the query point in cell 0.
      for (const cellSize of [1, 10, 0.1]) {
        const hash = make(cellSize);
        const oracle = new BoxOracle<unknown>(dimension);
        const ids = new ItemIds(['zero', 'ulp below', 'tiny below']);
        const places: [string, number][] = [
          ['zero', 0],
          ['ulp below', -Number.MIN_VALUE],
          ['tiny below', -1e-170],
        ];
        for (const [item, x] of places) {
          hash.insert(item, at(x));
          oracle.insert(item, box([x], [x]));
        }
        for (const [, x] of places) {
          for (const r of [0, 1e-170]) {
            const what = `queryRadius(${at(x)}, ${r}), cellSize ${cellSize}`;
            expectSameItems(ids, hash.queryRadius(at(x), r), oracle.queryRadius(at(x), r), what);
          }
        }
      }
    });

    it('applies the radius formula literally where r*r overflows: radius 1e200 reaches every item', () => {
      // 1e200 * 1e200 is Infinity, so dx*dx + dy*dy <= r*r holds for every
      // box, in cells or in the overflow list alike: the answer must not
      // depend on where an item happens to be stored.
      for (const maxCellsPerItem of [256, 1]) {
        const hash = make(1, { maxCellsPerItem });
        const oracle = new BoxOracle<unknown>(dimension);
        const ids = new ItemIds(['origin', 'box', 'far']);
        const boxes: [string, number[]][] = [
          ['origin', box([0], [0])],
          ['box', box([-2], [3])],
          ['far', box([1e300], [1e300])],
        ];
        for (const [item, b] of boxes) {
          hash.insert(item, b);
          oracle.insert(item, b);
        }
        for (const p of [at(0), at(1e300), at(0, 1e300), at(-1e300, 5)]) {
          for (const r of [1e150, 1e200, Number.MAX_VALUE]) {
            const what = `queryRadius(${p}, ${r}), maxCellsPerItem ${maxCellsPerItem}`;
            expectSameItems(ids, hash.queryRadius(p, r), oracle.queryRadius(p, r), what);
          }
        }
      }
    });

    const roundingSeed = 0x5eed7000 + dimension;
    it(`finds items a radius query reaches only by float rounding: x - r or x + r rounded past a cell border (seed ${roundingSeed})`, () => {
      // With r = fl(x - maxX), the item passes dx*dx <= r*r exactly, yet
      // fl(x - r) can round above maxX and past the cell border just above it;
      // likewise fl(x + r) below an item's minX. The query's cell range must be
      // padded or such items are missed.
      fc.assert(
        fc.property(
          fc.constantFrom(...CELL_SIZES),
          fc.integer({ min: -(2 ** 51), max: 2 ** 51 }),
          fc.integer({ min: 0, max: 60 }),
          fc.double({ min: -1, max: 1, noNaN: true }),
          (cellSize, border, exponent, fraction) => {
            const x = fraction * 2 ** exponent * cellSize;
            const edge = border * cellSize;
            const left = nextDown(edge);
            const right = edge;
            const hash = make(cellSize);
            const oracle = new BoxOracle<unknown>(dimension);
            const ids = new ItemIds(['left', 'right']);
            hash.insert('left', box([left, 0], [left, 0]));
            oracle.insert('left', box([left, 0], [left, 0]));
            hash.insert('right', box([right, 0], [right, 0]));
            oracle.insert('right', box([right, 0], [right, 0]));
            const q = at(x, 0);
            for (const r of [Math.abs(x - left), Math.abs(right - x)]) {
              expectSameItems(ids, hash.queryRadius(q, r), oracle.queryRadius(q, r), `queryRadius(${q}, ${r})`);
            }
          },
        ),
        { seed: roundingSeed, numRuns: 400 },
      );
    });

    it('finds coincident items once each and removes them one by one', () => {
      const hash = make(1);
      const items = ['p', 'q', 'r', 's'];
      for (const item of items) hash.insert(item, at(-1));
      expect(sorted(hash.queryPoint(at(-1)))).toEqual(items);
      expect(hash.remove('q')).toBe(true);
      expect(hash.remove('q')).toBe(false);
      expect(sorted(hash.queryRadius(at(-1.5, -1), 0.5))).toEqual(['p', 'r', 's']);
      expect(hash.queryRadius(at(-1.5), 0.5)).toEqual([]);
      hash.validate();
    });

    it('keeps the update fast path correct: moves inside a cell, across cells, into and out of overflow', () => {
      const hash = make(10, { maxCellsPerItem: 4 });
      hash.insert('mover', at(1));
      hash.insert('still', at(2));
      const oracle = new BoxOracle<unknown>(dimension);
      oracle.insert('mover', box([1], [1]));
      oracle.insert('still', box([2], [2]));
      const ids = new ItemIds(['mover', 'still']);
      const check = (where: number[][]) => {
        hash.validate();
        for (const p of where) {
          expectSameItems(ids, hash.queryPoint(p), oracle.queryPoint(p), `queryPoint(${p})`);
          expectSameItems(ids, hash.queryRadius(p, 0.25), oracle.queryRadius(p, 0.25), `queryRadius(${p}, 0.25)`);
        }
        const all = everythingBox(dimension);
        expectSameItems(ids, hash.queryBox(all), oracle.queryBox(all), 'everything');
      };
      const moves: number[][] = [
        box([1], [1]), // unchanged
        box([3], [4]), // same cell, grows
        box([0], [9.75]), // still the same cell, touching its lower border
        box([0], [10]), // now touches the next cell
        box([5], [5]), // back to one cell
        box([-5], [5]), // spans cell -1 and 0
        box([-5], [-5]), // only cell -1
        box([-40], [40]), // too many cells: overflow
        box([-39], [40]), // overflow to overflow
        box([7], [7]), // back into cells
        box([7], [7]), // unchanged again
        box([-1e300], [1e300]), // enormous
        box([1e300], [1e300]), // far away
        box([7.5], [7.5]),
      ];
      let previous = at(1);
      for (const move of moves) {
        hash.update('mover', move);
        oracle.update('mover', move);
        const min = move.slice(0, dimension);
        const max = move.slice(dimension);
        check([previous, min, max, at(2), at(-5), at(10), at(0)]);
        previous = min;
      }
      expect(hash.size).toBe(2);
      // One side at a time across a border: each of the 2 * dimension box
      // arguments alone decides whether the item changes cells.
      const base = box([1], [5]);
      for (let slot = 0; slot < 2 * dimension; slot++) {
        for (const across of slot < dimension ? [-1, -10, -10.5] : [10, 11, 19.5]) {
          for (const move of [base, base.map((v, i) => (i === slot ? across : v)), base]) {
            hash.update('mover', move);
            oracle.update('mover', move);
            check([at(-1), at(1), at(5), at(10), at(11), at(-10, 3), at(3, -10), at(3, 10), at(10, 3), at(3, 3, 11)]);
          }
        }
      }
      // The point form of update moves a box back to a point.
      hash.update('mover', box([0], [30]));
      hash.updatePoint('mover', at(25));
      oracle.update('mover', box([25], [25]));
      check([at(0), at(25), at(30)]);
    });

    it('empties, fills and returns the given out array for every query', () => {
      const hash = make(4);
      hash.insert('a', at(1));
      hash.insert('b', box([-3], [3]));
      const out: unknown[] = ['stale', 'stale', 'stale', 'stale'];
      expect(hash.queryPoint(at(1), out)).toBe(out);
      expect(sorted(out)).toEqual(['a', 'b']);
      expect(hash.queryBox(box([2], [9]), out)).toBe(out);
      expect(sorted(out)).toEqual(['b']);
      expect(hash.queryRadius(at(100), 1, out)).toBe(out);
      expect(out).toEqual([]);
      expect(hash.queryBox(everythingBox(dimension), out)).toBe(out);
      expect(sorted(out)).toEqual(['a', 'b']);
      // Without out, each query gets a fresh array.
      const first = hash.queryPoint(at(1));
      expect(hash.queryPoint(at(1))).not.toBe(first);
    });

    it('stores items of any type, compared like Map keys', () => {
      const hash = make(1);
      const pool = makeItemPool();
      const ids = new ItemIds(pool);
      pool.forEach((item, i) => {
        hash.insert(item, at(i));
      });
      expect(hash.has(undefined)).toBe(true);
      expect(hash.has(Number.NaN)).toBe(true);
      expect(hash.has(1)).toBe(true);
      expect(hash.has('1')).toBe(true);
      expect(hash.has({ name: 'a' })).toBe(false);
      expect(hash.remove(1)).toBe(true);
      expect(hash.has('1')).toBe(true);
      expectSameItems(ids, hash.iterate(), pool.slice(0, 4).concat(pool.slice(5)), 'for...of after remove(1)');
      for (let i = 0; i < pool.length; i++) {
        expect(ids.sorted(hash.queryPoint(at(i)))).toEqual(i === 4 ? [] : [i]);
      }
      expectLogicError(() => hash.update(1, at(0)), 'update of the removed number 1');
      expectLogicError(() => hash.insert(pool[0], at(0)), 'insert of a present object');
      expectLogicError(() => hash.insert(pool[10], at(0)), 'insert of a present symbol');
      expectLogicError(() => hash.insert(pool[9], at(0)), 'insert of a present null-prototype object');
      expectLogicError(() => hash.insert(undefined, at(0)), 'insert of a present undefined');
      expect(hash.remove(Number.NaN)).toBe(true);
      expect(hash.queryPoint(at(14))).toEqual([]);
      expectLogicError(() => hash.update(4, at(0)), 'update of a removed number');
      hash.validate();
    });

    it('keeps cells apart far from the origin: 1e12 cells, past 2^52 cells, up to the largest double', () => {
      const cases: [number, number[]][] = [
        [1, [1e12, 1e12 + 1, 1e12 + 0.5, -1e12, -1e12 - 1, nextDown(-1e12)]],
        [1e-3, [1e9, 1e9 + 1e-3, -1e9, nextUp(1e9)]],
        [1, [2 ** 60, 2 ** 60 + 256, -(2 ** 60), 2 ** 53, 2 ** 53 + 2, 2 ** 52 + 1]],
        [1, [1e300, nextUp(1e300), -1e300, Number.MAX_VALUE, -Number.MAX_VALUE, 1e-300]],
        [1e6, [1e300, 1e16 * 1e6, 1e16 * 1e6 + 2e6, 0]],
      ];
      for (const [cellSize, xs] of cases) {
        const hash = make(cellSize);
        xs.forEach((x, i) => {
          hash.insert(i, at(x));
        });
        hash.validate();
        xs.forEach((x, i) => {
          expect(hash.queryPoint(at(x)), `queryPoint at ${x}, cellSize ${cellSize}`).toEqual([i]);
          expect(hash.queryBox(box([x], [x])), `queryBox at ${x}`).toEqual([i]);
          expect(hash.queryRadius(at(x), 0), `queryRadius at ${x}`).toEqual([i]);
        });
        const ids = new ItemIds(xs.map((_, i) => i));
        expectSameItems(ids, hash.iterate(), ids.pool, `for...of, cellSize ${cellSize}`);
        expectSameItems(ids, hash.forEachItems(), ids.pool, `forEach, cellSize ${cellSize}`);
        expectSameItems(ids, hash.queryBox(everythingBox(dimension)), ids.pool, `everything, cellSize ${cellSize}`);
        xs.forEach((_, i) => {
          expect(hash.remove(i)).toBe(true);
          hash.validate();
        });
        expect(hash.size).toBe(0);
      }
    });

    it('answers queries covering far more cells than exist, and radius queries reaching past the float range', () => {
      const hash = make(1e-3);
      hash.insert('origin', at(0));
      hash.insert('far', at(1e9));
      hash.insert('farther', at(-1e300));
      hash.insert('edge', at(Number.MAX_VALUE));
      expect(sorted(hash.queryBox(box([-1e9], [1e9])))).toEqual(['far', 'origin']);
      expect(sorted(hash.queryBox(everythingBox(dimension)))).toEqual(['edge', 'far', 'farther', 'origin']);
      expect(sorted(hash.queryRadius(at(0), 1e9))).toEqual(['origin']);
      expect(sorted(hash.queryRadius(at(0), 1e10))).toEqual(['far', 'origin']);
      expect(sorted(hash.queryRadius(at(Number.MAX_VALUE), 1e150))).toEqual(['edge']);
      expect(sorted(hash.queryRadius(at(-Number.MAX_VALUE), 1e150))).toEqual([]);
      expect(sorted(hash.queryRadius(at(0), Number.POSITIVE_INFINITY))).toEqual(['edge', 'far', 'farther', 'origin']);
      hash.validate();
    });

    it('stores a box over millions of cells (tiny cell size) without walking them', () => {
      const hash = make(1e-3);
      hash.insert('huge', box([-5], [5]));
      hash.insert('dot', at(4.9995));
      expect(sorted(hash.queryPoint(at(4.9995)))).toEqual(['dot', 'huge']);
      expect(sorted(hash.queryPoint(at(-5)))).toEqual(['huge']);
      expect(hash.queryPoint(at(nextUp(5)))).toEqual([]);
      hash.update('huge', box([-6], [4]));
      expect(sorted(hash.queryPoint(at(4.9995)))).toEqual(['dot']);
      expect(hash.queryRadius(at(4.5, 4), 0.5)).toEqual(['huge']);
      expect(hash.queryRadius(at(4.5), 0.5)).toEqual([]);
      expect(hash.remove('huge')).toBe(true);
      hash.validate();
      // A huge cell size puts everything in a handful of cells.
      const coarse = make(1e6);
      for (let i = 0; i < 50; i++) coarse.insert(i, at(i * 1e4 - 2.5e5));
      expect(coarse.queryRadius(at(0), 2e4).sort((p, q) => Number(p) - Number(q))).toEqual([24, 25, 26]);
      coarse.validate();
    });

    it('reuses memory through churn and stays consistent after clear', () => {
      const hash = make(2, { maxCellsPerItem: 16 });
      for (let round = 0; round < 20; round++) {
        for (let i = 0; i < 200; i++) hash.insert(i, box([i % 17, -i % 5], [(i % 17) + (i % 7), 3]));
        for (let i = 0; i < 200; i += 2) expect(hash.remove(i)).toBe(true);
        expect(hash.size).toBe(100);
        for (let i = 1; i < 200; i += 2) hash.update(i, at(-i));
        if (round % 5 === 0) hash.validate();
        for (let i = 1; i < 200; i += 2) expect(hash.queryPoint(at(-i))).toEqual([i]);
        if (round % 2 === 0) hash.clear();
        else for (let i = 1; i < 200; i += 2) hash.remove(i);
        expect(hash.size).toBe(0);
        expect(hash.queryBox(everythingBox(dimension))).toEqual([]);
      }
      hash.validate();
      hash.insert('after', at(3));
      expect(hash.queryPoint(at(3))).toEqual(['after']);
      expect(hash.iterate()).toEqual(['after']);
    });

    it('rejects bad options (cellSize, maxCellsPerItem, initialCapacity, none at all) with a RangeError naming them', () => {
      for (const cellSize of [
        0,
        -1,
        -0,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        Number.NEGATIVE_INFINITY,
        '3',
        undefined,
      ]) {
        expectRangeError(() => make(cellSize as number), ['cellSize'], [cellSize]);
      }
      expectRangeError(() => factory({}), ['cellSize'], [undefined]);
      expectRangeError(() => factory(undefined), ['cellSize'], []);
      expectRangeError(() => factory(null), ['cellSize'], []);
      for (const initialCapacity of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '8']) {
        expectRangeError(() => make(1, { initialCapacity }), ['initialCapacity'], [initialCapacity]);
      }
      for (const maxCellsPerItem of [0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY, '4']) {
        expectRangeError(() => make(1, { maxCellsPerItem }), ['maxCellsPerItem'], [maxCellsPerItem]);
      }
      // Accepted extremes.
      expect(make(Number.MIN_VALUE).cellSize).toBe(Number.MIN_VALUE);
      expect(make(Number.MAX_VALUE).cellSize).toBe(Number.MAX_VALUE);
      expect(make(1, { maxCellsPerItem: 1 }).size).toBe(0);
      expect(make(1, { initialCapacity: 0 }).size).toBe(0);
    });

    it('rejects every bad argument with a RangeError naming it, and changes nothing', () => {
      const hash = make(1, { maxCellsPerItem: 4 });
      hash.insert('a', box([0], [2]));
      hash.insert('b', at(-1));
      hash.insert('big', box([-100], [100]));
      const everything = everythingBox(dimension);
      const state = () => ({
        size: hash.size,
        items: sorted(hash.iterate()),
        all: sorted(hash.queryBox(everything)),
        a: sorted(hash.queryPoint(at(1))),
        b: sorted(hash.queryPoint(at(-1))),
        far: sorted(hash.queryPoint(at(99))),
      });
      const before = state();
      const good = box([0], [1]);
      const goodPoint = at(0);
      for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        for (let slot = 0; slot < 2 * dimension; slot++) {
          const bad = good.slice();
          bad[slot] = value;
          expectRangeError(() => hash.insert('new', bad), [names.box[slot]], [value]);
          expectRangeError(() => hash.update('a', bad), [names.box[slot]], [value]);
          expectRangeError(() => hash.update('big', bad), [names.box[slot]], [value]);
          expectRangeError(() => hash.queryBox(bad), [names.box[slot]], [value]);
        }
        for (let axis = 0; axis < dimension; axis++) {
          const bad = goodPoint.slice();
          bad[axis] = value;
          expectRangeError(() => hash.insertPoint('new', bad), [names.box[axis]], [value]);
          expectRangeError(() => hash.updatePoint('b', bad), [names.box[axis]], [value]);
          expectRangeError(() => hash.queryPoint(bad), [names.point[axis]], [value]);
          expectRangeError(() => hash.queryRadius(bad, 1), [names.point[axis]], [value]);
        }
      }
      for (let axis = 0; axis < dimension; axis++) {
        const unordered = good.slice();
        unordered[axis] = 2;
        unordered[axis + dimension] = -3;
        const pair = [names.box[axis], names.box[axis + dimension]];
        expectRangeError(() => hash.insert('new', unordered), pair, [2, -3]);
        expectRangeError(() => hash.update('a', unordered), pair, [2, -3]);
        expectRangeError(() => hash.queryBox(unordered), pair, [2, -3]);
      }
      for (const radius of [-1, -Number.MIN_VALUE, Number.NaN, Number.NEGATIVE_INFINITY, -1e300]) {
        expectRangeError(() => hash.queryRadius(goodPoint, radius), ['radius'], [radius]);
      }
      expectLogicError(() => hash.insert('a', good), 'insert of a present item');
      expectLogicError(() => hash.update('missing', good), 'update of an absent item');
      expect(hash.has('new')).toBe(false);
      expect(hash.has('missing')).toBe(false);
      hash.validate();
      expect(state()).toEqual(before);
    });
  });
}
