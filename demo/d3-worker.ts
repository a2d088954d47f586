/**
 * One of the d3 page's two simulations, in a worker of its own so that both
 * run at their own pace and the page stays responsive: d3-force's
 * forceSimulation with forceX, forceY and a collision force, ours
 * (spatialhash/d3) or d3's own. It ticks until the simulation cools down
 * (d3's 300 ticks), posting every tick's positions and time, and at the
 * check tick the count of overlapping pairs.
 */
import { forceCollide as d3ForceCollide, forceSimulation, forceX, forceY } from 'd3-force';
import { forceCollide } from '../src/d3/index.js';
import { beeswarm, countOverlaps, HEIGHT, type SwarmNode } from './d3-scene.js';

/** What the page sends: which force, how many nodes, when to count overlaps. */
export interface SwarmStart {
  force: 'ours' | 'd3';
  count: number;
  checkTick: number;
}

/** What the worker posts after each tick. */
export interface SwarmTick {
  tick: number;
  ms: number;
  /** x, y per node (float32: enough to draw). */
  positions: Float32Array;
  /** Overlapping pairs after the check tick (and after the last), else undefined. */
  overlaps?: number;
  done: boolean;
}

const TICKS = 300;

function run({ force, count, checkTick }: SwarmStart): void {
  const nodes = beeswarm(count);
  const collide = force === 'ours' ? forceCollide<SwarmNode>((d) => d.r) : d3ForceCollide<SwarmNode>((d) => d.r);
  const simulation = forceSimulation(nodes)
    .force(
      'x',
      forceX<SwarmNode>((d) => d.tx),
    )
    .force('y', forceY<SwarmNode>(HEIGHT / 2))
    .force('collide', collide)
    .stop();
  const x = new Float64Array(count);
  const y = new Float64Array(count);
  const r = Float64Array.from(nodes, (d) => d.r);
  let tick = 0;
  const step = (): void => {
    const start = performance.now();
    simulation.tick();
    const ms = performance.now() - start;
    tick++;
    const positions = new Float32Array(2 * count);
    for (let i = 0; i < count; i++) {
      const node = nodes[i] as SwarmNode;
      positions[2 * i] = node.x;
      positions[2 * i + 1] = node.y;
      x[i] = node.x;
      y[i] = node.y;
    }
    const done = tick >= TICKS;
    const message: SwarmTick = { tick, ms, positions, done };
    if (tick === checkTick || done) message.overlaps = countOverlaps(x, y, r);
    postMessage(message, { transfer: [positions.buffer] });
    // A macrotask between ticks, so that the worker can be terminated between them.
    if (!done) setTimeout(step, 0);
  };
  step();
}

addEventListener('message', (event: MessageEvent<SwarmStart>) => run(event.data));
