/**
 * The bucket stamps of forceCollide's hashed grids (src/d3/grids.ts): a
 * query of a hashed class stamps each bucket it scans, so that two of its
 * cells sharing a bucket scan it once. The stamps stay from tick to tick,
 * and when the counter wraps they must all be cleared, or a bucket stamped
 * 4 billion queries ago with the number a query now draws is skipped and its
 * pairs are lost. The force keeps its grids to itself, so the ticks here run
 * the grids as force-collide.ts does, with the counter moved next to the wrap
 * and the buckets holding stamps that queries from before it may have left
 * (4 billion queries are too many for a test: they are written in).
 */
import { describe, expect, it } from 'vitest';
import { radiusClasses } from '../../src/d3/classes.js';
import { CollideGrids } from '../../src/d3/grids.js';
import { readNodes, writeNodes } from '../../src/d3/nodes.js';
import { pass2 } from '../../src/d3/pass2d.js';
import { pass3 } from '../../src/d3/pass3d.js';
import type { CollideNode } from '../../src/d3/types.js';
import { random } from '../support/random.js';

/** 20 clusters of 12 overlapping nodes, 1000 apart along x: their bounding box is far too sparse for a dense grid. */
function clusters(dims: 2 | 3, seed: number): CollideNode[] {
  const next = random(seed);
  return Array.from({ length: 240 }, (_, i) => ({
    index: i,
    x: 1000 * Math.floor(i / 12) + 3 * next(),
    y: 3 * next(),
    z: dims === 3 ? 3 * next() : 0,
    vx: 0,
    vy: 0,
    vz: 0,
  }));
}

/** One force's grids over `nodes` (radius 1 each), as forceCollide's initialize sets them up. */
function gridsFor(dims: 2 | 3, nodes: CollideNode[]): CollideGrids {
  const n = nodes.length;
  const radii = new Float64Array(n).fill(1);
  const g = new CollideGrids(dims);
  g.setClasses(n, radii, radiusClasses(radii, n, new Int32Array(n)));
  return g;
}

/** One tick of one pass, as forceCollide's tick runs it; returns the pairs it corrected. */
function tick(g: CollideGrids, nodes: CollideNode[], dims: 2 | 3): number {
  const n = nodes.length;
  g.pairs = 0;
  g.n = n;
  readNodes(g, nodes, n, dims);
  if (dims === 3) pass3(g, 1, random(7));
  else pass2(g, 1, random(7), true);
  g.flush();
  writeNodes(g, nodes, n, dims);
  return g.pairs;
}

describe("forceCollide's bucket stamps", () => {
  for (const dims of [2, 3] as const)
    it(`${dims}D: a tick whose stamps wrap past 2^32 - 1 corrects every pair a fresh force's tick does (seed 91)`, () => {
      const reference = clusters(dims, 91);
      const wrapped = clusters(dims, 91);
      const probed = clusters(dims, 91);
      const fresh = gridsFor(dims, reference);
      const moved = gridsFor(dims, wrapped);
      const probe = gridsFor(dims, probed);
      const first = tick(fresh, reference, dims);
      expect(tick(moved, wrapped, dims)).toBe(first);
      expect(tick(probe, probed, dims)).toBe(first);
      expect(fresh.hashedClasses(), 'the class is hashed').toBe(1);
      // The stamps the next tick's queries leave, counted from 1: one query a node but the last, in index order, so
      // cluster k's buckets end up with 12k + 1 to 12k + 12.
      probe.stamps.fill(0);
      probe.stamp = 0;
      tick(probe, probed, dims);
      // Counted from 2^32 - 2, the tick's queries draw 2^32 - 1, then (the counter wrapped) 1, 2...: cluster k's first
      // node draws 12k. Each of its buckets is left holding 12k, as queries of 2^32 ago may have left it.
      for (let b = 0; b < moved.stamps.length; b++) {
        const s = probe.stamps[b] as number;
        moved.stamps[b] = s === 0 ? 0 : 12 * Math.floor((s - 1) / 12);
      }
      moved.stamp = 0xffffffff - 1;
      const pairs = tick(fresh, reference, dims);
      expect(pairs).toBeGreaterThan(200);
      expect(tick(moved, wrapped, dims)).toBe(pairs);
      expect(moved.stamp, 'the counter wrapped').toBeLessThan(1000);
      expect(wrapped).toEqual(reference);
    });
});
