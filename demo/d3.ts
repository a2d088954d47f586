/**
 * d3 forces: one seeded beeswarm laid out live by two d3-force simulations,
 * one with spatialhash/d3's forceCollide and one with d3-force's own, each in
 * its worker (d3-worker.ts), drawn side by side with their ticks per second.
 * After the check tick both report their overlapping pairs, which the e2e
 * test compares.
 */

import { forceSimulation, forceX, forceY } from 'd3-force';
import { forceCollide } from '../src/d3/index.js';
import { byId, createSurface, exposeHook, formatFixed, formatInteger, type Surface, setText } from './common.js';
import { beeswarm, countOverlaps, countOverlapsBruteForce, HEIGHT, type SwarmNode, WIDTH } from './d3-scene.js';
import type { SwarmStart, SwarmTick } from './d3-worker.js';

type Side = 'ours' | 'd3';
const SIDES: Side[] = ['ours', 'd3'];
/** The tick after which both sides count their overlapping pairs (early: d3's ticks take seconds at 100,000). */
const CHECK_TICK = 2;

interface SideState {
  surface: Surface;
  worker: Worker | undefined;
  ticks: number;
  lastMs: number;
  /** Tick times, for the rate: the mean of the last ten. */
  recent: number[];
  positions: Float32Array | undefined;
  overlapsAtCheck: number | undefined;
  overlapsAtEnd: number | undefined;
  dirty: boolean;
}

const countInput = byId<HTMLSelectElement>('count');
let count = Number(countInput.value);
let radii = new Float64Array(0);
let frame = 0;

/** A side's figures before its first tick. */
function fresh(): Omit<SideState, 'surface' | 'worker'> {
  return {
    ticks: 0,
    lastMs: Number.NaN,
    recent: [],
    positions: undefined,
    overlapsAtCheck: undefined,
    overlapsAtEnd: undefined,
    dirty: true,
  };
}

function sideState(side: Side): SideState {
  return { surface: createSurface(byId<HTMLCanvasElement>(side), () => markDirty()), worker: undefined, ...fresh() };
}

const sides: Partial<Record<Side, SideState>> = {};
sides.ours = sideState('ours');
sides.d3 = sideState('d3');
const state = (side: Side): SideState => sides[side] as SideState;

function markDirty(): void {
  for (const side of SIDES) {
    const s = sides[side];
    if (s !== undefined) s.dirty = true;
  }
}

function start(): void {
  radii = Float64Array.from(beeswarm(count), (d) => d.r);
  setText(byId('count-value'), formatInteger(count));
  for (const element of document.querySelectorAll('.check-tick')) element.textContent = String(CHECK_TICK);
  for (const side of SIDES) {
    const current = state(side);
    current.worker?.terminate();
    Object.assign(current, fresh());
    const worker = new Worker(new URL('./d3-worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<SwarmTick>) => {
      const message = event.data;
      current.ticks = message.tick;
      current.lastMs = message.ms;
      current.recent.push(message.ms);
      if (current.recent.length > 10) current.recent.shift();
      current.positions = message.positions;
      if (message.tick === CHECK_TICK) current.overlapsAtCheck = message.overlaps;
      if (message.done) current.overlapsAtEnd = message.overlaps;
      current.dirty = true;
    };
    worker.onerror = (event) => {
      throw new Error(`d3 page: the ${side} worker failed: ${event.message}`);
    };
    current.worker = worker;
    const message: SwarmStart = { force: side, count, checkTick: CHECK_TICK };
    worker.postMessage(message);
  }
}

const COLORS = { ours: 0xff_e0_a0_3f, d3: 0xff_3d_8a_ff } as const;

/** Draws one side's latest positions as pixels (discs of their radius where it is a pixel or more). */
function draw(side: Side): void {
  const { context, canvas } = state(side).surface;
  const width = canvas.width;
  const height = canvas.height;
  if (width === 0 || height === 0) return;
  const image = context.createImageData(width, height);
  const pixels = new Uint32Array(image.data.buffer);
  pixels.fill(0xff_1a_14_11);
  const positions = state(side).positions;
  if (positions !== undefined) {
    const scale = Math.min(width / WIDTH, height / HEIGHT);
    const ox = (width - WIDTH * scale) / 2;
    const oy = (height - HEIGHT * scale) / 2;
    const color = COLORS[side];
    for (let i = 0; i < positions.length / 2; i++) {
      const px = ox + positions[2 * i] * scale;
      const py = oy + positions[2 * i + 1] * scale;
      const reach = Math.max(0, Math.floor(radii[i] * scale - 0.5));
      const cx = Math.floor(px);
      const cy = Math.floor(py);
      for (let dy = -reach; dy <= reach; dy++) {
        const y = cy + dy;
        if (y < 0 || y >= height) continue;
        for (let dx = -reach; dx <= reach; dx++) {
          const x = cx + dx;
          if (x < 0 || x >= width || dx * dx + dy * dy > reach * reach) continue;
          pixels[y * width + x] = color;
        }
      }
    }
  }
  context.putImageData(image, 0, 0);
}

function rate(side: Side): number {
  const { recent } = state(side);
  if (recent.length === 0) return Number.NaN;
  return 1000 / (recent.reduce((a, b) => a + b, 0) / recent.length);
}

function render(): void {
  frame++;
  for (const side of SIDES) {
    const current = state(side);
    if (current.dirty) {
      // putImageData ignores the context's transform: it writes device pixels.
      draw(side);
      current.dirty = false;
    }
    setText(byId(`${side}-rate`), formatFixed(rate(side), 1));
    setText(byId(`${side}-ticks`), `${formatInteger(current.ticks)} of 300`);
    setText(byId(`${side}-ms`), `${formatFixed(current.lastMs, 1)} ms`);
    const end = current.overlapsAtEnd === undefined ? '' : ` (${formatInteger(current.overlapsAtEnd)} at the end)`;
    setText(byId(`${side}-overlaps`), `${formatInteger(current.overlapsAtCheck ?? Number.NaN)}${end}`);
  }
  requestAnimationFrame(render);
}

countInput.addEventListener('change', () => {
  count = Number(countInput.value);
  start();
});
byId('restart').addEventListener('click', start);

/**
 * The check of the overlap count the workers report: the grid count against
 * brute force on a smaller beeswarm after the same ticks (for the e2e test).
 */
function verifyCounter(n: number, ticks: number): { grid: number; brute: number } {
  const nodes = beeswarm(n, 7);
  const simulation = forceSimulation(nodes)
    .force(
      'x',
      forceX<SwarmNode>((d) => d.tx),
    )
    .force('y', forceY<SwarmNode>(HEIGHT / 2))
    .force('collide', forceCollide<SwarmNode>((d) => d.r).strength(0.2))
    .stop();
  simulation.tick(ticks);
  const x = Float64Array.from(nodes, (d) => d.x);
  const y = Float64Array.from(nodes, (d) => d.y);
  const r = Float64Array.from(nodes, (d) => d.r);
  return { grid: countOverlaps(x, y, r), brute: countOverlapsBruteForce(x, y, r) };
}

exposeHook({
  page: 'd3',
  get frame() {
    return frame;
  },
  get count() {
    return count;
  },
  checkTick: CHECK_TICK,
  get ticks() {
    return { ours: state('ours').ticks, d3: state('d3').ticks };
  },
  get overlaps() {
    return { ours: state('ours').overlapsAtCheck, d3: state('d3').overlapsAtCheck };
  },
  get rates() {
    return { ours: rate('ours'), d3: rate('d3') };
  },
  /** Up to `n` positions of one side, flat x, y, for checks that the layout moves. */
  positions(n: number, side: Side = 'ours') {
    return Array.from((state(side).positions ?? new Float32Array(0)).subarray(0, 2 * n));
  },
  verifyCounter,
});

start();
requestAnimationFrame(render);
