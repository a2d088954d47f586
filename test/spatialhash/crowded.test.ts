import { describe, expect, it } from 'vitest';
import { SpatialHash2D, SpatialHash3D } from '../../src/index.js';

/** Every intersecting pair of closed boxes by brute force, as sorted "a|b" keys. */
function brutePairs(boxes: number[][]): string[] {
  const dim = boxes[0].length / 2;
  const keys: string[] = [];
  for (let a = 0; a < boxes.length; a++) {
    for (let b = a + 1; b < boxes.length; b++) {
      let hit = true;
      for (let k = 0; k < dim; k++) {
        if (boxes[a][k] > boxes[b][k + dim] || boxes[b][k] > boxes[a][k + dim]) hit = false;
      }
      if (hit) keys.push(`${a}|${b}`);
    }
  }
  return keys.sort();
}

function pairsOf(hash: SpatialHash2D<number> | SpatialHash3D<number>): string[] {
  const keys: string[] = [];
  hash.forEachPair((a, b) => keys.push(a < b ? `${a}|${b}` : `${b}|${a}`));
  return keys.sort();
}

describe('crowded cells', () => {
  // Cells keep their lists roughly sorted by minX with a capped walk; past the
  // cap, order is left to forEachPair's own sort. Hundreds of items in one
  // cell, inserted right to left and then shuffled by moves, cross the cap.
  it('report every pair once in 2D when one cell holds hundreds of items in any order', () => {
    const hash = new SpatialHash2D<number>({ cellSize: 1000 });
    const boxes: number[][] = [];
    for (let i = 0; i < 300; i++) {
      const x = 900 - i * 3;
      const box = [x, (i * 37) % 100, x + 4 + (i % 7), ((i * 37) % 100) + 5];
      boxes.push(box);
      hash.insert(i, box[0], box[1], box[2], box[3]);
    }
    expect(pairsOf(hash)).toEqual(brutePairs(boxes));
    for (let i = 0; i < 300; i += 3) {
      const x = (i * 131) % 950;
      boxes[i] = [x, boxes[i][1], x + 6, boxes[i][3]];
      hash.update(i, boxes[i][0], boxes[i][1], boxes[i][2], boxes[i][3]);
    }
    hash.validate();
    expect(pairsOf(hash)).toEqual(brutePairs(boxes));
  });

  it('report every pair once in 3D when one cell holds hundreds of items in any order', () => {
    const hash = new SpatialHash3D<number>({ cellSize: 1000 });
    const boxes: number[][] = [];
    for (let i = 0; i < 200; i++) {
      const x = 900 - i * 4;
      const y = (i * 37) % 100;
      const z = (i * 53) % 50;
      const box = [x, y, z, x + 5, y + 6, z + 7];
      boxes.push(box);
      hash.insert(i, box[0], box[1], box[2], box[3], box[4], box[5]);
    }
    hash.validate();
    expect(pairsOf(hash)).toEqual(brutePairs(boxes));
  });
});
