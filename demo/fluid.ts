/** Fluid (3D): draws the Fluid simulation in a slowly turning, rocking tank. */
import { byId, createSurface, exposeHook, FrameRate, formatFixed, formatInteger, Smoothed, setText } from './common.js';
import { Fluid } from './fluid-sim.js';

const TANK_WIDTH = 420;
const TANK_HEIGHT = 170;
const TANK_DEPTH = 120;
const RADIUS = 14;
/** Particles are sorted into this many depth layers, drawn back to front with one path each. */
const LAYERS = 16;
const SPEED_BANDS = 3;

const canvas = byId<HTMLCanvasElement>('canvas');
const countInput = byId<HTMLInputElement>('count');
const view = {
  count: byId('count-value'),
  fps: byId('fps'),
  searchMs: byId('search-ms'),
  pairs: byId('pairs'),
  perParticle: byId('per-particle'),
  frameMs: byId('frame-ms'),
};

let fluid = makeFluid();
let frame = 0;
let time = 0;
const fps = new FrameRate();
const searchMs = new Smoothed();
const frameMs = new Smoothed();
const surface = createSurface(canvas, () => {});

function makeFluid(): Fluid {
  const count = Number(countInput.value);
  setText(view.count, formatInteger(count));
  // More particles fill the same tank: shrink the radius to keep the fluid about as deep.
  const radius = RADIUS * Math.cbrt(4000 / count);
  return new Fluid({ count, width: TANK_WIDTH, height: TANK_HEIGHT, depth: TANK_DEPTH, radius });
}

// Projection: a gentle perspective from slightly above, turned to show the depth.
let screenX = new Float32Array(0);
let screenY = new Float32Array(0);
let screenDepth = new Float32Array(0);
let layerOf = new Uint8Array(0);

function project(
  x: number,
  y: number,
  z: number,
  tilt: number,
  scale: number,
  cx: number,
  cy: number,
): [number, number, number] {
  // Centre the tank, rock it by the gravity tilt (so the fluid stays level on screen), then turn and look down.
  let px = x - TANK_WIDTH / 2;
  let py = y - TANK_HEIGHT / 2;
  const pz = z - TANK_DEPTH / 2;
  const cosT = Math.cos(-tilt);
  const sinT = Math.sin(-tilt);
  [px, py] = [px * cosT - py * sinT, px * sinT + py * cosT];
  const yaw = 0.5;
  const pitch = 0.32;
  const rx = px * Math.cos(yaw) + pz * Math.sin(yaw);
  const rz = -px * Math.sin(yaw) + pz * Math.cos(yaw);
  const ry = py * Math.cos(pitch) - rz * Math.sin(pitch);
  const depth = py * Math.sin(pitch) + rz * Math.cos(pitch);
  const perspective = 900 / (900 + depth);
  return [cx + rx * scale * perspective, cy + ry * scale * perspective, depth];
}

function draw(): void {
  const { context: g, width, height } = surface;
  g.fillStyle = '#0b0e13';
  g.fillRect(0, 0, width, height);
  const scale = Math.min(width / (TANK_WIDTH * 1.25), height / (TANK_HEIGHT * 1.7));
  const cx = width / 2;
  const cy = height / 2 + 10;
  const tilt = fluid.tilt;

  // Tank edges: back ones first, faint.
  const corners: Array<[number, number, number]> = [];
  for (let c = 0; c < 8; c++) {
    corners.push(
      project((c & 1) * TANK_WIDTH, ((c >> 1) & 1) * TANK_HEIGHT, ((c >> 2) & 1) * TANK_DEPTH, tilt, scale, cx, cy),
    );
  }
  const edges = [
    [0, 1],
    [2, 3],
    [4, 5],
    [6, 7],
    [0, 2],
    [1, 3],
    [4, 6],
    [5, 7],
    [0, 4],
    [1, 5],
    [2, 6],
    [3, 7],
  ];
  g.lineWidth = 1;
  const tank = new Path2D();
  for (const [a, b] of edges) {
    tank.moveTo(corners[a][0], corners[a][1]);
    tank.lineTo(corners[b][0], corners[b][1]);
  }
  g.strokeStyle = 'rgba(150, 175, 210, 0.35)';
  g.stroke(tank);

  const n = fluid.count;
  if (screenX.length !== n) {
    screenX = new Float32Array(n);
    screenY = new Float32Array(n);
    screenDepth = new Float32Array(n);
    layerOf = new Uint8Array(n);
  }
  let near = Number.POSITIVE_INFINITY;
  let far = Number.NEGATIVE_INFINITY;
  const p = fluid.positions;
  for (let i = 0; i < n; i++) {
    const [sx, sy, depth] = project(p[3 * i], p[3 * i + 1], p[3 * i + 2], tilt, scale, cx, cy);
    screenX[i] = sx;
    screenY[i] = sy;
    screenDepth[i] = depth;
    near = Math.min(near, depth);
    far = Math.max(far, depth);
  }
  const span = Math.max(1e-6, far - near);
  for (let i = 0; i < n; i++) layerOf[i] = Math.min(LAYERS - 1, Math.floor(((far - screenDepth[i]) / span) * LAYERS));
  const dot = Math.max(1.2, fluid.radius * 0.2 * scale);
  const v = fluid.velocities;
  // Depth layers back to front; inside each, slow particles deep blue and fast ones foam-white.
  for (let layer = 0; layer < LAYERS; layer++) {
    const closeness = layer / (LAYERS - 1);
    for (let band = 0; band < SPEED_BANDS; band++) {
      const light = 30 + closeness * 30 + band * 14;
      const saturation = 85 - band * 25;
      g.fillStyle = `hsl(${208 - band * 12}, ${saturation}%, ${light}%)`;
      g.beginPath();
      for (let i = 0; i < n; i++) {
        if (layerOf[i] !== layer || speedBand(v, i) !== band) continue;
        g.moveTo(screenX[i] + dot, screenY[i]);
        g.arc(screenX[i], screenY[i], dot, 0, Math.PI * 2);
      }
      g.fill();
    }
  }
  // The glass again, faintly, over the fluid: the front edges read as in front.
  g.strokeStyle = 'rgba(190, 210, 235, 0.22)';
  g.stroke(tank);
}

function speedBand(v: Float32Array, i: number): number {
  const speed2 = v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2];
  return speed2 < 2 ? 0 : speed2 < 6 ? 1 : 2;
}

function tick(now: number): void {
  fps.tick(now);
  const start = performance.now();
  fluid.step(time);
  time += 1 / 60;
  draw();
  frameMs.add(performance.now() - start);
  searchMs.add(fluid.searchMs);
  frame++;
  if (frame % 6 === 1) {
    setText(view.fps, formatFixed(fps.fps, 0));
    setText(view.searchMs, `${formatFixed(searchMs.value, 2)} ms`);
    setText(view.pairs, formatInteger(fluid.pairCount));
    setText(view.perParticle, formatFixed((2 * fluid.pairCount) / fluid.count, 1));
    setText(view.frameMs, `${formatFixed(frameMs.value, 2)} ms`);
  }
  requestAnimationFrame(tick);
}

function restart(): void {
  fluid = makeFluid();
  time = 0;
  searchMs.reset();
  frameMs.reset();
}

countInput.addEventListener('change', restart);
countInput.addEventListener('input', () => setText(view.count, formatInteger(Number(countInput.value))));
byId('restart').addEventListener('click', restart);

exposeHook({
  page: 'fluid',
  get frame() {
    return frame;
  },
  get count() {
    return fluid.count;
  },
  get pairs() {
    return fluid.pairCount;
  },
  get radius() {
    return fluid.radius;
  },
  /** The last step's neighbour search: its input positions and the pairs PointGrid3D reported. */
  lastSearch() {
    return fluid.lastSearch();
  },
  /** A copy of the first `n` particles' coordinates (x, y, z, ...). */
  positions(n = 32): number[] {
    return Array.from(fluid.positions.subarray(0, Math.min(fluid.positions.length, 3 * n)));
  },
});

requestAnimationFrame(tick);
