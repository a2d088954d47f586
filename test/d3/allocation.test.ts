/**
 * A warm tick of forceCollide allocates (next to) nothing: V8's sampling
 * heap profiler, counting the objects collected since too, must find less
 * than 32 KB a tick allocated by src/d3/ over 10 ticks of 5,000 nodes, in 2D
 * and 3D. Doubles handed to a call that V8 does not inline are boxed one by
 * one: that cost 1.9 MB a tick at 20,000 nodes (about 0.5 MB at 5,000) before
 * the passes' numbers went through a typed array (commit b0b052a).
 */
import { Session } from 'node:inspector/promises';
import { describe, expect, it } from 'vitest';
import { forceCollide } from '../../src/d3/index.js';
import { scene } from './oracle.js';

interface SampleNode {
  callFrame: { url: string };
  selfSize: number;
  children: SampleNode[];
}

/** Bytes sampled in functions of src/d3/. */
function bytesInD3(node: SampleNode): number {
  const own = /[\\/]src[\\/]d3[\\/]/.test(node.callFrame.url) ? node.selfSize : 0;
  return node.children.reduce((sum, child) => sum + bytesInD3(child), own);
}

describe('allocation', () => {
  for (const dims of [2, 3] as const) {
    it(`a warm ${dims}D tick allocates less than 32 KB (seed 51)`, async () => {
      const nodes = scene({ kind: 'uniform', n: 5000, dims, seed: 51, cover: 0.6 });
      const force = forceCollide<(typeof nodes)[number]>((d) => d.r);
      force.initialize(nodes, () => 0.5, dims);
      const tick = () => {
        force(1);
        for (const d of nodes) {
          d.x += d.vx *= 0.5;
          d.y += d.vy *= 0.5;
          d.z += d.vz *= 0.5;
        }
      };
      for (let k = 0; k < 20; k++) tick();
      const session = new Session();
      session.connect();
      try {
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: 1024,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        });
        for (let k = 0; k < 10; k++) tick();
        const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: SampleNode } };
        expect(force.stats().pairs).toBeGreaterThan(0);
        expect(bytesInD3(profile.head) / 10).toBeLessThan(32 * 1024);
      } finally {
        session.disconnect();
      }
    });
  }
});
