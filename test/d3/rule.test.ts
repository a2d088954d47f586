/**
 * forceCollide against the brute-force rule (test/d3/oracle.ts) on seeded
 * scenes of every kind, in 1, 2 and 3 dimensions: one tick's velocities must
 * agree within 1e-12 absolute plus 1e-12 relative. The random source is the
 * simulation's LCG where no visit draws twice (then the draws are the
 * rule's whatever the order a visit meets its pairs in), else a constant.
 * Also the paths the scenes must reach: many refiled nodes (a rebuild
 * within the pass), hashed grids, several radius classes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CollideStats, forceCollide } from '../../src/d3/index.js';
import { copyNodes, firstDifference, KINDS, lcg, oracleTick, scene, type TestNode } from './oracle.js';

interface Run {
  ours: TestNode[];
  want: TestNode[];
  stats: CollideStats;
  report: ReturnType<typeof oracleTick>;
}

/** One tick of ours and of the rule on copies of `nodes`. */
function tick(nodes: TestNode[], dims: 1 | 2 | 3, strength: number, iterations: number): Run {
  // A trial run on the rule decides the random source (see the file's comment).
  const trial = oracleTick(
    copyNodes(nodes),
    nodes.map((d) => d.r),
    dims,
    strength,
    lcg(),
    iterations,
  );
  const source = trial.mostDrawsPerVisit <= 1 ? lcg : () => () => 0.3;
  const want = copyNodes(nodes);
  const report = oracleTick(
    want,
    want.map((d) => d.r),
    dims,
    strength,
    source(),
    iterations,
  );
  const ours = copyNodes(nodes);
  const force = forceCollide<TestNode>((d) => d.r)
    .strength(strength)
    .iterations(iterations);
  force.initialize(ours, source(), dims);
  force(1);
  return { ours, want, stats: force.stats(), report };
}

describe('forceCollide follows the sequential rule', () => {
  for (const dims of [1, 2, 3] as const) {
    for (const kind of KINDS) {
      it(`${kind}, ${dims}D, seeds 1-6, cover 0.3 to 0.8, 1 to 3 iterations`, () => {
        for (let seed = 1; seed <= 6; seed++) {
          const cover = [0.3, 0.5, 0.8][seed % 3] as number;
          const nodes = scene({ kind, n: 150 + 40 * seed, dims, seed, cover });
          const iterations = 1 + (seed % 3);
          const strength = seed % 2 === 0 ? 1 : 0.7;
          const run = tick(nodes, dims, strength, iterations);
          expect(firstDifference(run.ours, run.want, dims), `seed ${seed}`).toBeUndefined();
          // Within one pass every number either side reads is computed alike, so the pairs are the same;
          // a later pass starts from velocities summed in another order (ours by cell, the rule's by
          // index), a few ulps apart, which can tip a pair that touches to within them.
          if (iterations === 1) expect(run.stats.pairs, `seed ${seed}`).toBe(run.report.pairs);
          // A scene where nothing overlaps would prove nothing.
          expect(run.report.pairs).toBeGreaterThan(0);
        }
      });
    }
  }

  it('reaches its paths: refiled nodes, a rebuild within a pass, hashed grids, several classes (seed 7)', () => {
    // Heavy overlap at strength 1: many nodes move past their skin, more than n refilings in one pass.
    const crowded = tick(scene({ kind: 'uniform', n: 300, dims: 2, seed: 7, cover: 3 }), 2, 1, 1);
    expect(firstDifference(crowded.ours, crowded.want, 2)).toBeUndefined();
    expect(crowded.stats.refiled).toBeGreaterThan(300);
    expect(crowded.stats.builds).toBeGreaterThan(1);
    const far = tick(scene({ kind: 'far', n: 400, dims: 3, seed: 7 }), 3, 1, 1);
    expect(firstDifference(far.ours, far.want, 3)).toBeUndefined();
    expect(far.stats.hashed).toBeGreaterThan(0);
    const mixed = tick(scene({ kind: 'power law', n: 400, dims: 2, seed: 7 }), 2, 1, 1);
    expect(firstDifference(mixed.ours, mixed.want, 2)).toBeUndefined();
    expect(mixed.stats.classes).toBeGreaterThan(2);
  });

  it('fast-check: any scene, dimension, strength and iteration count (seed 0xd3)', () => {
    fc.assert(
      fc.property(
        fc.record({
          kind: fc.constantFrom(...KINDS),
          n: fc.integer({ min: 0, max: 120 }),
          dims: fc.constantFrom(1 as const, 2 as const, 3 as const),
          seed: fc.integer({ min: 1, max: 1e6 }),
          cover: fc.constantFrom(0.1, 0.5, 1, 2),
          speed: fc.constantFrom(0, 0.3, 3),
          strength: fc.constantFrom(0, 0.5, 1, 1.5),
          iterations: fc.constantFrom(0, 1, 2, 2.5),
        }),
        ({ kind, n, dims, seed, cover, speed, strength, iterations }) => {
          const nodes = scene({ kind, n, dims, seed, cover, speed });
          const run = tick(nodes, dims, strength, iterations);
          expect(firstDifference(run.ours, run.want, dims)).toBeUndefined();
        },
      ),
      { seed: 0xd3, numRuns: 150 },
    );
  });
});
