// spatialhash/d3 under the strictest consumer settings with d3-force's own types (@types/d3-force), run from the
// packed tarball in Node inside d3-force's simulation: the force must be one d3's types accept, built from a
// SimulationNodeDatum, and one tick must move the nodes as d3's own forceCollide does.
import {
  type ForceCollide as D3ForceCollide,
  forceCollide as d3ForceCollide,
  forceSimulation,
  forceX,
  forceY,
  type SimulationNodeDatum,
} from 'd3-force';
import { type CollideNode, type CollideStats, type ForceCollide, forceCollide } from 'spatialhash/d3';

interface Bubble extends SimulationNodeDatum {
  value: number;
  r: number;
}

function bubbles(): Bubble[] {
  return Array.from({ length: 600 }, (_, i) => ({ value: (i * 7) % 30, r: 2 + (i % 4) }));
}

// Ours where d3's type is asked for, and d3's node type where ours is.
const collide: ForceCollide<Bubble> = forceCollide<Bubble>((d) => d.r).strength(0.9);
const asTheirs: D3ForceCollide<Bubble> = collide;
const datum: CollideNode = bubbles()[0] as SimulationNodeDatum;

function beeswarm(force: D3ForceCollide<Bubble>, ticks: number): Bubble[] {
  const nodes = bubbles();
  forceSimulation(nodes)
    .force(
      'x',
      forceX<Bubble>((d) => d.value * 12),
    )
    .force('y', forceY<Bubble>(0))
    .force('collide', force)
    .stop()
    .tick(ticks);
  return nodes;
}

const want = beeswarm(d3ForceCollide<Bubble>((d) => d.r).strength(0.9), 1);
const got = beeswarm(asTheirs, 1);
for (let i = 0; i < want.length; i++) {
  const a = got[i];
  const b = want[i];
  if (a === undefined || b === undefined) throw new Error('spatialhash/d3 consumer: a node went missing');
  for (const key of ['x', 'y', 'vx', 'vy'] as const) {
    const x = a[key] ?? Number.NaN;
    const y = b[key] ?? Number.NaN;
    if (!(Math.abs(x - y) <= 1e-12 + 1e-12 * Math.abs(y))) {
      throw new Error(`spatialhash/d3 consumer: node ${i} ${key} is ${x}, d3's forceCollide gives ${y}`);
    }
  }
}
const stats: CollideStats = collide.stats();
if (stats.pairs === 0 || datum.x !== undefined) throw new Error('spatialhash/d3 consumer: no pair was corrected');
const settled = beeswarm(
  forceCollide<Bubble>((d) => d.r),
  120,
);
if (!settled.every((d) => Number.isFinite(d.x) && Number.isFinite(d.y))) {
  throw new Error('spatialhash/d3 consumer: a position is not finite after 120 ticks');
}
console.log(`spatialhash/d3 consumer: ok (${stats.pairs} pairs in the first tick)`);
