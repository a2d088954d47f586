/**
 * Issue 31: no walk in the hash may run forever, whatever its memory holds.
 * An item's cell entries are chained through entryItemNext; a cycle there
 * (only overwritten memory makes one) used to send remove, a move and the
 * sync of moved boxes round it forever. Each walk now stops after as many
 * steps as there are entries and throws an Error saying the memory was
 * overwritten. (The cell table's and item index's probes have tests of
 * their own.)
 */
import { describe, expect, it } from 'vitest';
import { SpatialHash2D, SpatialHash3D } from '../../src/index.js';

interface Chains {
  itemLinks: Int32Array;
  entryItemNext: Int32Array;
  freeEntry: number;
}

/** Makes the first entry of id `h` point at itself, and (`freeList`) heads the free entry list with it too. */
function loopChain(hash: SpatialHash2D<string> | SpatialHash3D<string>, h: number, freeList = false): void {
  const c = hash as unknown as Chains;
  const first = c.itemLinks[h * 4 + 2];
  expect(first).toBeGreaterThanOrEqual(0);
  c.entryItemNext[first] = first;
  if (freeList) c.freeEntry = first;
}

describe.each([2, 3] as const)('SpatialHash%iD entry chains', (dim) => {
  const make = () => {
    const hash = dim === 2 ? new SpatialHash2D<string>({ cellSize: 1 }) : new SpatialHash3D<string>({ cellSize: 1 });
    const insert = hash.insert as (item: string, ...box: number[]) => number;
    // Three cells along x: a home and two entries.
    const id = insert.call(hash, 'long', ...Array(dim).fill(0.5), 2.5, ...Array(dim - 1).fill(0.5));
    // Enough other slots that a sync rewrites the moved item's own slots, not every slot.
    for (let i = 0; i < 40; i++) insert.call(hash, `dot${i}`, 100 + i, ...Array(dim - 1).fill(0));
    return { hash, id };
  };
  const update = (hash: SpatialHash2D<string> | SpatialHash3D<string>, ...box: number[]) =>
    (hash.update as (item: string, ...box: number[]) => void).call(hash, 'long', ...box);

  it('remove stops on a cycle with an Error', () => {
    const { hash, id } = make();
    // remove relinks each entry it frees onto the free list, so only a cycle through both loops.
    loopChain(hash, id, true);
    expect(() => hash.remove('long')).toThrow(/cell entries of id 0 form a cycle/);
  });

  it('a move to overlapping cells stops on a cycle with an Error', () => {
    const { hash, id } = make();
    loopChain(hash, id);
    // One cell to the right: cells 1 and 2 are kept, so the chain is walked.
    expect(() => update(hash, 1.5, ...Array(dim - 1).fill(0.5), 3.5, ...Array(dim - 1).fill(0.5))).toThrow(
      /form a cycle/,
    );
  });

  it('the sync of moved boxes stops on a cycle with an Error', () => {
    const { hash, id } = make();
    loopChain(hash, id);
    // Same cells: the box copies are written at the next read.
    update(hash, ...Array(dim).fill(0.6), 2.6, ...Array(dim - 1).fill(0.6));
    const query = hash.queryBox as unknown as (...box: number[]) => string[];
    expect(() => query.call(hash, ...Array(dim).fill(0), ...Array(dim).fill(1))).toThrow(/form a cycle/);
  });
});
