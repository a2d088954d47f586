/**
 * The cell runs of SpatialHash2D / SpatialHash3D: slot pool growth and
 * compaction, empty cells kept in the table and purged, forEachPair's in-place
 * sort, the lowest-shared-cell dedup on cell borders, zero-size, huge and far
 * boxes, and the skipped filter reads when no filter is set. Every answer is
 * compared with brute force and validate() runs after each step.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_CELLS_PER_ITEM_LIMIT, SpatialHash2D, SpatialHash3D } from '../../src/index.js';
import { type Box, boxesIntersect } from '../support/box-oracle.js';

type AnyHash = SpatialHash2D<number> | SpatialHash3D<number>;

function make(dim: 2 | 3, options: ConstructorParameters<typeof SpatialHash2D>[0]): AnyHash {
  return dim === 2 ? new SpatialHash2D<number>(options) : new SpatialHash3D<number>(options);
}

function put(hash: AnyHash, item: number, box: Box): void {
  if (hash instanceof SpatialHash2D) hash.insert(item, box[0], box[1], box[2], box[3]);
  else hash.insert(item, box[0], box[1], box[2], box[3], box[4], box[5]);
}

function move(hash: AnyHash, item: number, box: Box): void {
  if (hash instanceof SpatialHash2D) hash.update(item, box[0], box[1], box[2], box[3]);
  else hash.update(item, box[0], box[1], box[2], box[3], box[4], box[5]);
}

/** forEachPair's pairs as sorted "a|b" keys; a pair reported twice shows up twice. */
function pairsOf(hash: AnyHash): string[] {
  const keys: string[] = [];
  hash.forEachPair((a, b) => keys.push(a < b ? `${a}|${b}` : `${b}|${a}`));
  return keys.sort();
}

/** Every intersecting pair of the stored boxes whose filters accept each other. */
function brutePairs(boxes: Map<number, Box>, filters?: Map<number, [number, number]>): string[] {
  const keys: string[] = [];
  const list = [...boxes.entries()];
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      const [a, boxA] = list[i];
      const [b, boxB] = list[j];
      if (!boxesIntersect(boxA, boxB)) continue;
      const [ca, ma] = filters?.get(a) ?? [1, -1];
      const [cb, mb] = filters?.get(b) ?? [1, -1];
      if ((ca & mb) === 0 || (cb & ma) === 0) continue;
      keys.push(a < b ? `${a}|${b}` : `${b}|${a}`);
    }
  }
  return keys.sort();
}

describe.each([2, 3] as const)('%iD cell runs', (dim) => {
  it('grow, move to the pool end and compact while one cell fills up and empties again', () => {
    // initialCapacity 0: the smallest pool, so runs relocate and the pool repacks many times.
    const hash = make(dim, { cellSize: 100, initialCapacity: 0 });
    const boxes = new Map<number, Box>();
    const boxOf = (i: number): Box => {
      const lo = Array.from({ length: dim }, (_, a) => (i * (7 + a)) % 97);
      return [...lo, ...lo.map((v, a) => v + 1 + ((i + a) % 5))];
    };
    for (let i = 0; i < 400; i++) {
      boxes.set(i, boxOf(i));
      put(hash, i, boxOf(i));
      if (i % 50 === 0) hash.validate();
    }
    hash.validate();
    expect(pairsOf(hash)).toEqual(brutePairs(boxes));
    // Spread half of them over other cells, remove a quarter, refill.
    for (let i = 0; i < 400; i += 2) {
      const box = boxOf(i).map((v) => v + (i % 3) * 150 - 150);
      boxes.set(i, box);
      move(hash, i, box);
    }
    for (let i = 1; i < 400; i += 4) {
      hash.remove(i);
      boxes.delete(i);
    }
    hash.validate();
    expect(pairsOf(hash)).toEqual(brutePairs(boxes));
    for (let i = 400; i < 600; i++) {
      boxes.set(i, boxOf(i));
      put(hash, i, boxOf(i));
    }
    hash.validate();
    expect(pairsOf(hash)).toEqual(brutePairs(boxes));
    // A second call finds the runs sorted and reports the same pairs.
    expect(pairsOf(hash)).toEqual(brutePairs(boxes));
    hash.validate();
  });

  it("clear() keeps the runs for the cell ids handed out again; a repack drops those past the table's limit", () => {
    const hash = make(dim, { cellSize: 1, initialCapacity: 0 });
    const point = (x: number, y: number): Box => {
      const at = dim === 2 ? [x, y] : [x, y, 0.5];
      return [...at, ...at];
    };
    // 200 cells of 3 items each.
    for (let i = 0; i < 600; i++) put(hash, i, point((i % 200) + 0.5, 0.5));
    hash.validate();
    hash.clear();
    hash.validate();
    expect(hash.cellCount).toBe(0);
    // Refill 20 cells: ids 0..19 again, each with its run; ids 20..199 keep theirs unused.
    const boxes = new Map<number, Box>();
    for (let i = 0; i < 60; i++) {
      boxes.set(i, point((i % 20) + 0.5, 5.5));
      put(hash, i, boxes.get(i) as Box);
    }
    hash.validate();
    // One cell fills up until its run reaches the pool's end and the pool is repacked.
    for (let i = 60; i < 2000; i++) {
      boxes.set(i, point(0.25 + (i % 7) / 10, 5.25 + (i % 5) / 10));
      put(hash, i, boxes.get(i) as Box);
      if (i % 200 === 0) hash.validate();
    }
    hash.validate();
    // Ids past the old limit are handed out again, with or without runs.
    for (let i = 2000; i < 2400; i++) {
      boxes.set(i, point(100 + (i % 300) + 0.5, 9.5));
      put(hash, i, boxes.get(i) as Box);
    }
    hash.validate();
    expect(pairsOf(hash)).toEqual(brutePairs(boxes));
    const all = hash instanceof SpatialHash2D ? hash.queryBox(-1, -1, 500, 20) : hash.queryBox(-1, -1, 0, 500, 20, 1);
    expect(all.sort((a, b) => a - b)).toEqual([...boxes.keys()]);
  });

  it('keeps emptied cells listed but not counted, purges them when they outnumber the occupied, and holds none when empty', () => {
    const hash = make(dim, { cellSize: 1 });
    const zero = Array.from({ length: dim }, () => 0.5);
    put(hash, 0, [...zero, ...zero]);
    expect(hash.cellCount).toBe(1);
    // One point walking along x through 300 cells: each cell it leaves empties.
    for (let step = 1; step <= 300; step++) {
      const at = [step + 0.5, ...zero.slice(1)];
      move(hash, 0, [...at, ...at]);
      expect(hash.cellCount).toBe(1);
      if (step % 37 === 0) hash.validate();
    }
    // Purged along the way: never more than occupied + 64 empty cells listed.
    expect(hash.cells.size).toBeLessThanOrEqual(1 + 64 + 1);
    hash.validate();
    const far = [300.5, ...zero.slice(1)];
    const found =
      hash instanceof SpatialHash2D ? hash.queryPoint(far[0], far[1]) : hash.queryPoint(far[0], far[1], far[2]);
    expect(found).toEqual([0]);
    hash.remove(0);
    expect(hash.cellCount).toBe(0);
    expect(hash.cells.size).toBe(0);
    hash.validate();
  });

  it('refuses forEachPair inside a predicate or a forEachOverlap visitor and stays unchanged', () => {
    const hash = make(dim, { cellSize: 1 });
    const unit = (v: number): Box => [...Array(dim).fill(v), ...Array(dim).fill(v + 2)];
    put(hash, 1, unit(0));
    put(hash, 2, unit(1));
    const nested = () => hash.forEachPair(() => {});
    if (hash instanceof SpatialHash2D) {
      expect(() =>
        hash.forEachOverlap(-1, -1, 5, 5, () => {
          nested();
        }),
      ).toThrow(/forEachPair cannot run inside/);
      const callsNested = (): boolean => {
        nested();
        return true;
      };
      expect(() => hash.nearest(0, 0, 1, Number.POSITIVE_INFINITY, [], -1, callsNested)).toThrow(
        /forEachPair cannot run inside/,
      );
      expect(() => hash.raycast(-1, -1, 1, 1, Number.POSITIVE_INFINITY, -1, callsNested)).toThrow(
        /forEachPair cannot run inside/,
      );
    } else {
      expect(() =>
        hash.forEachOverlap(-1, -1, -1, 5, 5, 5, () => {
          nested();
        }),
      ).toThrow(/forEachPair cannot run inside/);
    }
    hash.validate();
    // A forEachPair nested in a forEachPair visitor is fine: the runs it sorts are sorted already.
    const outer: string[] = [];
    hash.forEachPair((a, b) => {
      outer.push(`${Math.min(a, b)}|${Math.max(a, b)}`);
      expect(pairsOf(hash)).toEqual(['1|2']);
    });
    expect(outer).toEqual(['1|2']);
    hash.validate();
  });

  it('shows a move within the same cells to the next query and pair pass, however many moves came first', () => {
    const hash = make(dim, { cellSize: 10 });
    const at = (lo: number, hi: number): Box => [...Array(dim).fill(lo), ...Array(dim).fill(hi)];
    put(hash, 1, at(9, 11));
    put(hash, 2, at(5, 6));
    // Many moves inside cells 0 and 1 on each axis before anything reads the runs.
    for (let k = 0; k < 20; k++) move(hash, 1, at(9 - k * 0.04, 11 - k * 0.04));
    expect(hash.movedCount).toBe(1);
    hash.validate();
    // An item in one cell is listed too, once however often it moves.
    move(hash, 2, at(5.5, 6.5));
    move(hash, 2, at(5, 6));
    expect(hash.movedCount).toBe(2);
    hash.validate();
    expect(pairsOf(hash)).toEqual([]);
    expect(hash.movedCount).toBe(0);
    hash.validate();
    move(hash, 1, at(1, 2));
    expect(pairsOf(hash)).toEqual([]);
    move(hash, 1, at(4, 5));
    expect(pairsOf(hash)).toEqual(['1|2']);
    move(hash, 2, at(7, 8));
    const point = Array(dim).fill(7.5);
    const found =
      hash instanceof SpatialHash2D
        ? hash.queryPoint(point[0], point[1])
        : hash.queryPoint(point[0], point[1], point[2]);
    expect(found).toEqual([2]);
    move(hash, 2, at(8, 9));
    const hits =
      hash instanceof SpatialHash2D ? hash.queryBox(4.5, 4.5, 8.5, 8.5) : hash.queryBox(4.5, 4.5, 4.5, 8.5, 8.5, 8.5);
    expect(hits.sort()).toEqual([1, 2]);
    expect(hash.movedCount).toBe(0);
    // A moved item that is then removed, and its id reused, leaves nothing stale.
    move(hash, 2, at(8.5, 9.5));
    hash.remove(2);
    put(hash, 3, at(0, 0.5));
    hash.validate();
    expect(pairsOf(hash)).toEqual([]);
    hash.validate();
  });

  it('moves an item from one cell to several and back, losing and regaining its home cell, against brute force', () => {
    const hash = make(dim, { cellSize: 10 });
    const at = (lo: number[], hi: number[]): Box => [...lo, ...hi];
    const fill = (v: number) => Array(dim).fill(v);
    const boxes = new Map<number, Box>();
    // Neighbours in the cells the mover passes through, so every step has pairs to find.
    const neighbours: Box[] = [
      at(fill(2), fill(3)),
      at(fill(12), fill(13)),
      at(fill(25), fill(26)),
      at(fill(-5), fill(-4)),
    ];
    neighbours.forEach((box, i) => {
      put(hash, i + 1, box);
      boxes.set(i + 1, box);
    });
    const path: Box[] = [
      at(fill(1), fill(4)), // one cell: the home only
      at(fill(1), fill(14)), // 2^dim cells: home kept, entries added
      at(fill(11), fill(24)), // home cell left: a kept entry becomes the home
      at(fill(12.5), fill(13.5)), // back to one cell, which was an entry's
      at(fill(22), fill(28)), // a disjoint cell: dropped and refiled
      at(fill(-6), fill(27)), // many cells at once
      at(fill(-6), fill(-3)), // one cell far left
      at(fill(5), fill(5)), // a point
    ];
    put(hash, 0, path[0]);
    boxes.set(0, path[0]);
    for (const box of path) {
      move(hash, 0, box);
      boxes.set(0, box);
      hash.validate();
      expect(pairsOf(hash)).toEqual(brutePairs(boxes));
      hash.validate();
      const hits =
        hash instanceof SpatialHash2D
          ? hash.queryBox(-100, -100, 100, 100)
          : hash.queryBox(-100, -100, -100, 100, 100, 100);
      expect(hits.sort()).toEqual([0, 1, 2, 3, 4]);
    }
    hash.remove(0);
    hash.validate();
    expect(hash.size).toBe(4);
  });

  it('skips the filter reads only while no item has a filter', () => {
    const hash = make(dim, { cellSize: 1 });
    const boxes = new Map<number, Box>();
    const filters = new Map<number, [number, number]>();
    for (let i = 0; i < 6; i++) {
      const box = [...Array(dim).fill(i * 0.4), ...Array(dim).fill(i * 0.4 + 1)];
      boxes.set(i, box);
      put(hash, i, box);
    }
    expect(hash.filteredCount).toBe(0);
    expect(pairsOf(hash)).toEqual(brutePairs(boxes));
    hash.setFilterById(2, 2, ~2);
    filters.set(2, [2, ~2]);
    hash.setFilterById(3, 2, -1);
    filters.set(3, [2, -1]);
    expect(hash.filteredCount).toBe(2);
    expect(pairsOf(hash)).toEqual(brutePairs(boxes, filters));
    hash.setFilterById(2, 1, -1);
    filters.delete(2);
    hash.removeById(3);
    boxes.delete(3);
    filters.delete(3);
    expect(hash.filteredCount).toBe(0);
    hash.validate();
    expect(pairsOf(hash)).toEqual(brutePairs(boxes, filters));
  });

  it('pairs the slots that start left of a cell on x only with those starting in it, whatever the order of insertion', () => {
    // Cell x = 1 of size 10 holds items reaching in from cell 0 (some from
    // its right edge, some wide), items starting on its left border and
    // inside it, and coincident ones; inserted interleaved and then moved so
    // the runs must be re-sorted before the sweep skips over the leading part.
    const hash = make(dim, { cellSize: 10, initialCapacity: 0 });
    const boxes = new Map<number, Box>();
    const spanX = (x0: number, x1: number, k: number): Box => {
      const lo = Array.from({ length: dim }, (_, a) => (a === 0 ? x0 : (k % 3) * 3));
      const hi = Array.from({ length: dim }, (_, a) => (a === 0 ? x1 : (k % 3) * 3 + 4));
      return [...lo, ...hi];
    };
    const xs: [number, number][] = [
      [9, 10],
      [10, 12],
      [5, 15],
      [10, 10],
      [2, 19],
      [12, 13],
      [9.5, 11],
      [10, 12],
      [0, 30],
      [19, 21],
      [9, 10],
      [15, 15],
    ];
    xs.forEach(([x0, x1], k) => {
      boxes.set(k, spanX(x0, x1, k));
      put(hash, k, spanX(x0, x1, k));
    });
    hash.validate();
    expect(pairsOf(hash)).toEqual(brutePairs(boxes));
    // Swap sides: those reaching in from the left now start in the cell and the reverse.
    xs.forEach(([x0, x1], k) => {
      const box = x0 < 10 ? spanX(10 + (x0 % 3), Math.max(x1, 10 + (x0 % 3)), k) : spanX(x0 - 6, x1, k);
      boxes.set(k, box);
      move(hash, k, box);
    });
    hash.validate();
    expect(pairsOf(hash)).toEqual(brutePairs(boxes));
  });

  it('reports each pair once on cell borders, with zero-size, huge and far boxes (seeded)', () => {
    const cellSize = 4;
    // Coordinates on and next to cell borders, around the origin and far from it.
    const coordinate = fc
      .tuple(fc.constantFrom(0, 1e9, -1e12), fc.integer({ min: -6, max: 6 }), fc.constantFrom(0, 0.5, 1, 2))
      .map(([origin, cell, part]) => origin + cell * cellSize + (part === 0 ? 0 : cellSize / (part * 2)));
    const span = fc.constantFrom(0, 0, cellSize, cellSize * 2, 2.5, 1e3);
    const boxArb = fc
      .tuple(
        fc.array(coordinate, { minLength: dim, maxLength: dim }),
        fc.array(span, { minLength: dim, maxLength: dim }),
      )
      .map(([lo, size]) => [...lo, ...lo.map((v, a) => v + size[a])]);
    const op = fc.tuple(fc.nat(19), boxArb, fc.boolean());
    const limit = fc.constantFrom(4, 64, MAX_CELLS_PER_ITEM_LIMIT);
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), limit, (ops, maxCells) => {
        const hash = make(dim, { cellSize, maxCellsPerItem: maxCells, initialCapacity: 0 });
        const boxes = new Map<number, Box>();
        for (const [item, box, remove] of ops) {
          if (boxes.has(item) && remove) {
            hash.remove(item);
            boxes.delete(item);
          } else if (boxes.has(item)) {
            move(hash, item, box);
            boxes.set(item, box);
          } else {
            put(hash, item, box);
            boxes.set(item, box);
          }
          hash.validate();
          expect(pairsOf(hash)).toEqual(brutePairs(boxes));
        }
      }),
      { seed: 0x5eed13 + dim, numRuns: dim === 2 ? 60 : 25 },
    );
  });
});
