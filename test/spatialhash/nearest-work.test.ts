/**
 * What nearest() costs, asserted on the work it reports (nearestWork: ring
 * and plane steps, cell lookups, cell ids scanned, slots scored), never on
 * time: at most about O(cell ids + slots + overflow items), whatever the
 * geometry. Issue 31: in 3D the ring walk counted the cells of each shell
 * plane by plane, so a query 1e8 cells from the stored cells spent 4 s on
 * 1e8 planes of empty cells before it switched to the scan of the occupied
 * cells. Every answer is checked against brute force as well.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpatialHash2D, SpatialHash3D } from '../../src/index.js';
import { nearestWork } from '../../src/spatialhash/nearest.js';
import { answerDistances, expectedNearestDistances, type Scene, sceneArb } from './far-geometry.js';

type AnyHash = SpatialHash2D<number> | SpatialHash3D<number>;

/** The internals the bound is stated in: cell ids handed out, slots in use. */
interface Internals {
  cells: { idLimit: number };
  entryCount: number;
  overflowCount: number;
}

/** Everything nearest() did in its last call. */
function work(): number {
  return nearestWork.steps + nearestWork.lookups + nearestWork.scanned + nearestWork.scored;
}

/** The bound: a few times the cell ids, slots and overflow items, plus a constant. */
function bound(hash: AnyHash): number {
  const h = hash as unknown as Internals;
  return 4 * (h.cells.idLimit + h.entryCount + h.overflowCount) + 16;
}

function build(scene: Scene): AnyHash {
  const hash =
    scene.dim === 2
      ? new SpatialHash2D<number>({ cellSize: scene.cellSize })
      : new SpatialHash3D<number>({ cellSize: scene.cellSize });
  const insert = hash.insert as (item: number, ...box: number[]) => number;
  for (let i = 0; i < scene.boxes.length; i++) insert.call(hash, i, ...scene.boxes[i]);
  for (let i = 0; i < scene.removed.length; i++) if (scene.removed[i]) hash.remove(i);
  return hash;
}

function nearestOf(hash: AnyHash, scene: Scene): number[] {
  const q = scene.query;
  return scene.dim === 2
    ? (hash as SpatialHash2D<number>).nearest(q[0], q[1], scene.k, scene.maxDistance)
    : (hash as SpatialHash3D<number>).nearest(q[0], q[1], q[2], scene.k, scene.maxDistance);
}

describe('SpatialHash nearest() cost', () => {
  it('3D: a query 1e8 empty cells away from everything scans the occupied cells (issue 31)', () => {
    const hash = new SpatialHash3D<string>({ cellSize: 1 });
    hash.insert('a', 1e8, 0, 1e8);
    hash.insert('b', 5e8, 0, 0);
    expect(hash.nearest(0, 0, 0, 1)).toEqual(['a']);
    expect(work()).toBeLessThanOrEqual(bound(hash as unknown as AnyHash));
    expect(hash.nearest(0, 0, 0, 2)).toEqual(['a', 'b']);
    expect(work()).toBeLessThanOrEqual(bound(hash as unknown as AnyHash));
  });

  it('3D: a thin slab of cells far along z, with the query level with it', () => {
    const hash = new SpatialHash3D<string>({ cellSize: 1 });
    for (let i = 0; i < 10; i++) hash.insert(`z${i}`, 0, 0, i * 1e7);
    hash.insert('x', 3e8, 0, 0);
    expect(hash.nearest(5e7, 0, 5e7, 1)).toEqual(['z5']);
    expect(work()).toBeLessThanOrEqual(bound(hash as unknown as AnyHash));
  });

  it('2D: the same geometry costs the same bound', () => {
    const hash = new SpatialHash2D<string>({ cellSize: 1 });
    hash.insert('a', 1e8, 1e8);
    hash.insert('b', 5e8, 0);
    expect(hash.nearest(0, 0, 1)).toEqual(['a']);
    expect(work()).toBeLessThanOrEqual(bound(hash as unknown as AnyHash));
  });

  it('a gap that overflows is a bound, not "no stored cell outside" (cell size near the largest double)', () => {
    // Cells 0 and 1 of a 1.2e308 grid; the query is in cell -1, so the gap
    // past the first ring is 1.2e308 + 6e307, which overflows to Infinity.
    // It once read as "nothing outside", and the second item was never seen.
    const cs = 1.1984620899082105e308;
    const two = new SpatialHash2D<string>({ cellSize: cs });
    two.insert('origin', 0, 0);
    two.insert('top', 0, cs);
    // Both squared distances overflow to Infinity: a tie, in any order.
    expect(two.nearest(0, -5.992310449541053e307, 100).sort()).toEqual(['origin', 'top']);
    expect(work()).toBeLessThanOrEqual(bound(two as unknown as AnyHash));
    const three = new SpatialHash3D<string>({ cellSize: cs });
    three.insert('near', 0, 0, -1e306);
    three.insert('far', 0, 0, -1.2084620899082105e308);
    expect(three.nearest(0, 0, 8.888465674311579e307, 3).sort()).toEqual(['far', 'near']);
  });

  for (const dim of [2, 3] as const) {
    const seed = dim === 2 ? 3101 : 3102;
    it(`${dim}D: random far-apart clusters, huge and tiny cells, maxDistance: brute force and the bound (seed ${seed})`, () => {
      fc.assert(
        fc.property(sceneArb(dim, false), (scene) => {
          const hash = build(scene);
          const got = nearestOf(hash, scene);
          expect(work(), 'work').toBeLessThanOrEqual(bound(hash));
          expect(new Set(got).size).toBe(got.length);
          for (const i of got) expect(scene.removed[i]).toBe(false);
          expect(answerDistances(scene, got)).toEqual(expectedNearestDistances(scene));
        }),
        { seed: Number(process.env.SEED ?? seed), numRuns: Number(process.env.RUNS ?? 400) },
      );
    });
  }
});
