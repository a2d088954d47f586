/**
 * The types of spatialhash/d3 against @types/d3-force's, checked by the
 * compiler (`npm run typecheck` covers test/): d3's SimulationNodeDatum goes
 * in, and the force comes out as one d3's simulation and d3's ForceCollide
 * type accept, with its accessors' types. A line marked @ts-expect-error must
 * stay an error. The run-time side only makes sure the calls are made.
 * test-consumer/d3.ts checks the same through the packed declarations on
 * TypeScript 5.0, 5.9 and 7 (npm run test:package).
 */
import { type ForceCollide as D3ForceCollide, type Force, forceSimulation, type SimulationNodeDatum } from 'd3-force';
import { expect, it } from 'vitest';
import { type CollideNode, type CollideRadius, type ForceCollide, forceCollide } from '../../src/d3/index.js';

interface Bubble extends SimulationNodeDatum {
  id: string;
  size: number;
}

it('takes d3 node types and gives back a force d3 accepts', () => {
  const nodes: Bubble[] = [
    { id: 'a', size: 2 },
    { id: 'b', size: 3 },
  ];
  // The node type is inferred from the radius accessor, as with d3's forceCollide.
  const collide = forceCollide((d: Bubble, i: number, all: Bubble[]) => d.size + i / all.length);
  const asD3: D3ForceCollide<Bubble> = collide;
  const asForce: Force<Bubble, undefined> = collide;
  const simulation = forceSimulation(nodes).force('collide', collide).stop();
  const back: ForceCollide<Bubble> = collide.strength(0.5).iterations(2).radius(4);
  const accessor: CollideRadius<Bubble> = back.radius();
  const datum: CollideNode = nodes[0] as SimulationNodeDatum;
  // @ts-expect-error a radius is a number, not a string
  forceCollide<Bubble>((d) => d.id);
  // @ts-expect-error strength takes a number
  collide.strength('strong');
  simulation.tick(1);
  expect([asD3, asForce, accessor, datum].every((x) => x !== undefined)).toBe(true);
  expect(collide.stats().pairs).toBeGreaterThanOrEqual(0);
});
