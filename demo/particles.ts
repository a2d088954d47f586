/**
 * Particles: balls bouncing and colliding in a box. Each frame the chosen
 * neighbour search lists the pairs closer than one diameter, then those pairs
 * bounce. The figures compare how much work each search does for the same answer.
 */
import { PointGrid2D, SpatialHash2D } from '../src/index.js';
import {
  byId,
  createSurface,
  exposeHook,
  FrameRate,
  formatFixed,
  formatInteger,
  Smoothed,
  type Surface,
  seededRandom,
  setText,
} from './common.js';
import { attachThreads } from './threads.js';

type Method = 'grid' | 'hash' | 'naive';

const MIN_COUNT = 300;
const MAX_COUNT = 100_000;
/** 12.5 million pair tests a frame: about 25 ms in headless Chromium on the 2-core CI machine, still interactive. */
const NAIVE_CAP = 5_000;
/** Share of the box covered by balls, whatever their number. */
const FILL = 0.25;
const STEP = 1 / 60;

/** Hash mode's forEachPair tests the circles itself: the visitor only lists the pairs. */
const HASH_PAIRS = { shape: 'ball' } as const;

/** Hash mode's cell size, in diameters (see reset). */
const HASH_CELL = 12;

/** Balls drawn as vector circles up to this count, as pixel stamps above it. */
const VECTOR_LIMIT = 6_000;
const PALETTE = ['#3b6fd8', '#3f9fe0', '#4fc3c7', '#8fd46a', '#f2c14e', '#ff8a3d'];

const canvas = byId<HTMLCanvasElement>('canvas');
const countInput = byId<HTMLInputElement>('count');
const collideInput = byId<HTMLInputElement>('collide');
const view = {
  count: byId('count-value'),
  notice: byId('notice'),
  fps: byId('fps'),
  simulated: byId('simulated'),
  searchMs: byId('search-ms'),
  candidates: byId('candidates'),
  allPairs: byId('all-pairs'),
  hits: byId('hits'),
  hitRate: byId('hit-rate'),
  otherMs: byId('other-ms'),
  candidateNote: byId('candidate-note'),
  referenceMs: byId('reference-ms'),
};

let requested = 2_000;
let method: Method = 'grid';
let frame = 0;

// Simulation state: flat arrays sized to exactly the simulated count, because
// PointGrid2D reads its point count from the positions array's length.
let count = 0;
let radius = 1;
let positions = new Float64Array(0);
let velocities = new Float64Array(0);
let grid: PointGrid2D | undefined;
let hash: SpatialHash2D<number> | undefined;
/** Hash mode: each ball's id in the hash, so moves go through updateById with no Map lookup. */
let hashIds = new Int32Array(0);
/** Hash mode: a PointGrid2D over the same balls, timed now and then so the page shows both costs. */
let referenceGrid: PointGrid2D | undefined;
let referencePairs = 0;
const countReferencePair = (): void => {
  referencePairs++;
};

// Pairs found this frame, flat (i, j), grown by doubling and reused across frames.
let pairs = new Uint32Array(1 << 16);
let pairCount = 0;
let candidateCount = 0;

const fps = new FrameRate();
const searchMs = new Smoothed();
const otherMs = new Smoothed();
const referenceMs = new Smoothed();
const hitRate = new Smoothed();

const surface = createSurface(canvas, (resized) => {
  if (count > 0) keepInside(resized);
});

function countFromSlider(value: number): number {
  const raw = MIN_COUNT * (MAX_COUNT / MIN_COUNT) ** (value / 1000);
  // Two significant digits: the readout stays friendly while the slider stays logarithmic.
  const magnitude = 10 ** Math.max(0, Math.floor(Math.log10(raw)) - 1);
  return Math.min(MAX_COUNT, Math.max(MIN_COUNT, Math.round(raw / magnitude) * magnitude));
}

function sliderFromCount(n: number): number {
  return Math.round((1000 * Math.log(n / MIN_COUNT)) / Math.log(MAX_COUNT / MIN_COUNT));
}

/** Builds a fresh box of `n` balls, and the structures the chosen method needs. */
function reset(): void {
  const n = method === 'naive' ? Math.min(requested, NAIVE_CAP) : requested;
  const random = seededRandom(n * 7919 + 1);
  const { width, height } = surface;
  count = n;
  radius = Math.min(12, Math.max(0.6, Math.sqrt((FILL * width * height) / (n * Math.PI))));
  positions = new Float64Array(2 * n);
  velocities = new Float64Array(2 * n);
  const speed = Math.min(160, radius * 30);
  for (let i = 0; i < n; i++) {
    positions[2 * i] = radius + random() * Math.max(0, width - 2 * radius);
    positions[2 * i + 1] = radius + random() * Math.max(0, height - 2 * radius);
    const angle = random() * Math.PI * 2;
    const s = speed * (0.3 + random() * 0.7);
    velocities[2 * i] = Math.cos(angle) * s;
    velocities[2 * i + 1] = Math.sin(angle) * s;
  }
  const diameter = 2 * radius;
  grid = undefined;
  hash = undefined;
  if (method === 'grid') {
    grid = new PointGrid2D(positions, { cellSize: diameter });
  } else if (method === 'hash') {
    // Cells twelve diameters wide, not the usual "about twice the item size": every ball moves every frame, and
    // a move that stays in its cells only rewrites the box, while a border crossing relinks cells. Wide cells make
    // crossings rare (a ball spans 1.17 cells on average instead of 2.25), and the longer runs cost forEachPair
    // little because it sweeps them sorted. At 100k balls this took updates + pairs from about 5.5x to about
    // 2.8x PointGrid2D's rebuild + pairs (2 diameters: 5.5x, 4: 3.5x, 8: 2.7-2.9x, node, same process); with
    // the balls tested inside forEachPair, 10-12 diameters came out about 4.5% faster than 8 (same process,
    // frames alternated), 14 slower again.
    hash = new SpatialHash2D<number>({ cellSize: HASH_CELL * diameter, initialCapacity: n });
    hashIds = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const x = positions[2 * i];
      const y = positions[2 * i + 1];
      hashIds[i] = hash.insert(i, x - radius, y - radius, x + radius, y + radius);
    }
  }
  referenceGrid = method === 'hash' ? new PointGrid2D(positions, { cellSize: diameter }) : undefined;
  referenceMs.reset();
  searchMs.reset();
  otherMs.reset();
  hitRate.reset();
  hashCandidates = 0;
  setText(view.count, formatInteger(requested));
  setText(
    view.notice,
    method === 'naive' && requested > NAIVE_CAP
      ? `The naive loop is capped at ${formatInteger(NAIVE_CAP)} balls (${formatInteger((NAIVE_CAP * (NAIVE_CAP - 1)) / 2)} pair tests a frame); simulating ${formatInteger(n)} of ${formatInteger(requested)}.`
      : '',
  );
  setText(
    view.candidateNote,
    method === 'grid'
      ? 'Candidates: pairs of balls in the same or adjacent cells (cell = one diameter), the pairs a 3×3-cell search compares.'
      : method === 'hash'
        ? "Balls are stored as their bounding boxes in cells twelve diameters wide (everything moves every frame, so wide cells mean fewer border crossings). forEachPair with shape 'ball' tests the circles inside its sweep and reports touching pairs only. Candidates: pairs whose boxes overlap (counted every tenth frame, outside the timing); for scattered balls π/4 of them really touch."
        : 'Candidates: every pair, n(n−1)/2.',
  );
}

function keepInside(s: Surface): void {
  for (let i = 0; i < count; i++) {
    positions[2 * i] = Math.min(Math.max(positions[2 * i], radius), Math.max(radius, s.width - radius));
    positions[2 * i + 1] = Math.min(Math.max(positions[2 * i + 1], radius), Math.max(radius, s.height - radius));
  }
}

function pushPair(i: number, j: number): void {
  if (pairCount * 2 + 2 > pairs.length) {
    const grown = new Uint32Array(pairs.length * 2);
    grown.set(pairs);
    pairs = grown;
  }
  pairs[pairCount * 2] = i;
  pairs[pairCount * 2 + 1] = j;
  pairCount++;
}

const collectPair = (i: number, j: number): void => pushPair(i, j);

/** Hash mode's candidates (pairs of overlapping boxes), counted every tenth frame outside the timing. */
let hashCandidates = 0;
const countHashCandidate = (): void => {
  hashCandidates++;
};

function move(): void {
  const { width, height } = surface;
  const maxX = Math.max(radius, width - radius);
  const maxY = Math.max(radius, height - radius);
  for (let i = 0; i < count; i++) {
    let x = positions[2 * i] + velocities[2 * i] * STEP;
    let y = positions[2 * i + 1] + velocities[2 * i + 1] * STEP;
    if (x < radius) {
      x = radius;
      velocities[2 * i] = Math.abs(velocities[2 * i]);
    } else if (x > maxX) {
      x = maxX;
      velocities[2 * i] = -Math.abs(velocities[2 * i]);
    }
    if (y < radius) {
      y = radius;
      velocities[2 * i + 1] = Math.abs(velocities[2 * i + 1]);
    } else if (y > maxY) {
      y = maxY;
      velocities[2 * i + 1] = -Math.abs(velocities[2 * i + 1]);
    }
    positions[2 * i] = x;
    positions[2 * i + 1] = y;
  }
}

/** The timed part: everything the method needs to list this frame's touching pairs. */
function searchPairs(): void {
  pairCount = 0;
  candidateCount = 0;
  const diameter = 2 * radius;
  if (grid !== undefined) {
    grid.rebuild(positions);
    grid.forEachPair(diameter, collectPair);
  } else if (hash !== undefined) {
    for (let i = 0; i < count; i++) {
      const x = positions[2 * i];
      const y = positions[2 * i + 1];
      hash.updateById(hashIds[i], x - radius, y - radius, x + radius, y + radius);
    }
    hash.forEachPair(collectPair, HASH_PAIRS);
  } else {
    const d2 = diameter * diameter;
    for (let i = 0; i < count; i++) {
      const x = positions[2 * i];
      const y = positions[2 * i + 1];
      for (let j = i + 1; j < count; j++) {
        const dx = positions[2 * j] - x;
        const dy = positions[2 * j + 1] - y;
        if (dx * dx + dy * dy <= d2) pushPair(i, j);
      }
    }
    candidateCount = (count * (count - 1)) / 2;
  }
}

// Scratch for counting grid-mode candidates: cell occupancy over the box, reused.
let cellCounts = new Int32Array(0);

/**
 * PointGrid2D reports only the pairs that touch, so the candidates a 3×3-cell
 * search compares are counted here from cell occupancy (outside the timed part):
 * pairs inside a cell plus pairs with the four cells ahead of it, each pair once.
 */
function countGridCandidates(): void {
  const cell = 2 * radius;
  const columns = Math.floor(surface.width / cell) + 2;
  const rows = Math.floor(surface.height / cell) + 2;
  if (cellCounts.length < columns * rows) cellCounts = new Int32Array(columns * rows);
  else cellCounts.fill(0, 0, columns * rows);
  for (let i = 0; i < count; i++) {
    const cx = Math.floor(positions[2 * i] / cell);
    const cy = Math.floor(positions[2 * i + 1] / cell);
    cellCounts[cy * columns + cx]++;
  }
  let candidates = 0;
  for (let cy = 0; cy < rows; cy++) {
    for (let cx = 0; cx < columns; cx++) {
      const n = cellCounts[cy * columns + cx];
      if (n === 0) continue;
      candidates += (n * (n - 1)) / 2;
      if (cx + 1 < columns) candidates += n * cellCounts[cy * columns + cx + 1];
      if (cy + 1 < rows) {
        const below = (cy + 1) * columns + cx;
        candidates += n * cellCounts[below];
        if (cx > 0) candidates += n * cellCounts[below - 1];
        if (cx + 1 < columns) candidates += n * cellCounts[below + 1];
      }
    }
  }
  candidateCount = candidates;
}

/** Equal masses, elastic: push overlapping balls apart and swap their normal velocities. */
function collide(): void {
  const diameter = 2 * radius;
  for (let p = 0; p < pairCount; p++) {
    const i = pairs[2 * p];
    const j = pairs[2 * p + 1];
    let dx = positions[2 * j] - positions[2 * i];
    let dy = positions[2 * j + 1] - positions[2 * i + 1];
    let distance = Math.sqrt(dx * dx + dy * dy);
    if (distance >= diameter) continue;
    if (distance === 0) {
      // Coincident balls: any direction separates them.
      dx = 1;
      dy = 0;
      distance = 1e-9;
    }
    const nx = dx / distance;
    const ny = dy / distance;
    const push = (diameter - Math.max(distance, 1e-9)) / 2;
    positions[2 * i] -= nx * push;
    positions[2 * i + 1] -= ny * push;
    positions[2 * j] += nx * push;
    positions[2 * j + 1] += ny * push;
    const approach =
      (velocities[2 * j] - velocities[2 * i]) * nx + (velocities[2 * j + 1] - velocities[2 * i + 1]) * ny;
    if (approach < 0) {
      velocities[2 * i] += approach * nx;
      velocities[2 * i + 1] += approach * ny;
      velocities[2 * j] -= approach * nx;
      velocities[2 * j + 1] -= approach * ny;
    }
  }
}

function speedBucket(i: number, scale: number): number {
  const s = Math.hypot(velocities[2 * i], velocities[2 * i + 1]) * scale;
  return Math.min(PALETTE.length - 1, s | 0);
}

const BACKGROUND = '#0b0e13';
// Pixel-stamp rendering state for large counts.
let image: ImageData | undefined;
let pixelPalette = new Uint32Array(0);

function packColour(hex: string): number {
  const r = Number.parseInt(hex.slice(1, 3), 16);
  const g = Number.parseInt(hex.slice(3, 5), 16);
  const b = Number.parseInt(hex.slice(5, 7), 16);
  // ImageData is RGBA in memory; a little-endian Uint32 view reads it as ABGR.
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

function draw(): void {
  const { context, width, height, pixelRatio } = surface;
  const typicalSpeed = Math.min(160, radius * 30);
  const scale = PALETTE.length / (typicalSpeed * 1.6);
  if (count <= VECTOR_LIMIT) {
    context.fillStyle = BACKGROUND;
    context.fillRect(0, 0, width, height);
    for (let bucket = 0; bucket < PALETTE.length; bucket++) {
      context.beginPath();
      for (let i = 0; i < count; i++) {
        if (speedBucket(i, scale) !== bucket) continue;
        const x = positions[2 * i];
        const y = positions[2 * i + 1];
        context.moveTo(x + radius, y);
        context.arc(x, y, radius, 0, Math.PI * 2);
      }
      context.fillStyle = PALETTE[bucket];
      context.fill();
    }
    return;
  }
  // Tens of thousands of arcs cost more than the physics: stamp pixels instead.
  const w = surface.canvas.width;
  const h = surface.canvas.height;
  if (image === undefined || image.width !== w || image.height !== h) {
    image = new ImageData(w, h);
    pixelPalette = Uint32Array.from(PALETTE, packColour);
  }
  const pixels = new Uint32Array(image.data.buffer);
  pixels.fill(packColour(BACKGROUND));
  const r = Math.max(0.5, radius * pixelRatio);
  const reach = Math.ceil(r - 0.5);
  for (let i = 0; i < count; i++) {
    const colour = pixelPalette[speedBucket(i, scale)];
    const px = Math.floor(positions[2 * i] * pixelRatio);
    const py = Math.floor(positions[2 * i + 1] * pixelRatio);
    for (let oy = -reach; oy <= reach; oy++) {
      const y = py + oy;
      if (y < 0 || y >= h) continue;
      for (let ox = -reach; ox <= reach; ox++) {
        const x = px + ox;
        if (x < 0 || x >= w || ox * ox + oy * oy > r * r + 0.5) continue;
        pixels[y * w + x] = colour;
      }
    }
  }
  context.putImageData(image, 0, 0);
}

/** The candidates to show: this frame's, or in hash mode the last counted (every tenth frame). */
function shownCandidates(): number {
  return method === 'hash' ? hashCandidates : candidateCount;
}

function showFigures(): void {
  setText(view.fps, formatFixed(fps.fps, 0));
  setText(view.simulated, formatInteger(count));
  setText(view.searchMs, `${formatFixed(searchMs.value, 2)} ms`);
  setText(view.candidates, formatInteger(shownCandidates()));
  setText(view.allPairs, formatInteger((count * (count - 1)) / 2));
  setText(view.hits, formatInteger(pairCount));
  setText(view.hitRate, shownCandidates() > 0 ? `${formatFixed(hitRate.value * 100, 1)} %` : '–');
  setText(view.otherMs, `${formatFixed(otherMs.value, 2)} ms`);
  setText(
    view.referenceMs,
    referenceGrid === undefined
      ? '–'
      : `${formatFixed(referenceMs.value, 2)} ms (${formatFixed(searchMs.value / Math.max(referenceMs.value, 1e-9), 2)}×)`,
  );
}

/**
 * Hash mode, every 10th frame: PointGrid2D's rebuild + pairs on the same
 * positions, for the comparison figure, and the hash's box pairs (the
 * candidates its ball test looked at), both outside the timed part.
 */
function timeReference(): void {
  if (referenceGrid === undefined || frame % 10 !== 0) return;
  const start = performance.now();
  referencePairs = 0;
  referenceGrid.rebuild(positions);
  referenceGrid.forEachPair(2 * radius, countReferencePair);
  referenceMs.add(performance.now() - start);
  if (hash === undefined) return;
  hashCandidates = 0;
  hash.forEachPair(countHashCandidate);
  candidateCount = hashCandidates;
}

function tick(now: number): void {
  fps.tick(now);
  const start = performance.now();
  move();
  const searchStart = performance.now();
  searchPairs();
  const searchEnd = performance.now();
  timeReference();
  if (method === 'grid') countGridCandidates();
  if (candidateCount > 0) hitRate.add(pairCount / candidateCount);
  const collideStart = performance.now();
  if (collideInput.checked) collide();
  draw();
  const end = performance.now();
  searchMs.add(searchEnd - searchStart);
  otherMs.add(end - collideStart + (searchStart - start));
  frame++;
  if (frame % 6 === 1) showFigures();
  requestAnimationFrame(tick);
}

// Browsers restore form state on reload: start from what the controls show.
const checked = document.querySelector<HTMLInputElement>('input[name="method"]:checked');
if (checked !== null) method = checked.value as Method;
countInput.value = String(sliderFromCount(requested));
countInput.addEventListener('input', () => {
  requested = countFromSlider(Number(countInput.value));
  reset();
});
// A fresh uniform scatter, so the hit rate without bouncing is the articles' figure from the first frame.
collideInput.addEventListener('change', reset);
for (const input of document.querySelectorAll<HTMLInputElement>('input[name="method"]')) {
  input.addEventListener('change', () => {
    if (!input.checked) return;
    method = input.value as Method;
    reset();
  });
}

exposeHook({
  page: 'particles',
  get frame() {
    return frame;
  },
  get count() {
    return count;
  },
  get requested() {
    return requested;
  },
  get method() {
    return method;
  },
  get radius() {
    return radius;
  },
  get collisions() {
    return collideInput.checked;
  },
  get figures() {
    return {
      fps: fps.fps,
      searchMs: searchMs.value,
      candidates: shownCandidates(),
      hits: pairCount,
      hitRate: hitRate.value,
      referenceMs: referenceGrid === undefined ? undefined : referenceMs.value,
      /** Pairs PointGrid2D found on the last timed reference frame (the same set the hash mode lists). */
      referencePairs: referenceGrid === undefined ? undefined : referencePairs,
    };
  },
  /** A copy of the last frame's touching pairs, flat (i, j, ...). */
  pairs(): number[] {
    return Array.from(pairs.subarray(0, 2 * pairCount));
  },
  /** A copy of the first `n` balls' coordinates (x0, y0, x1, y1, ...). */
  positions(n = 32): number[] {
    return Array.from(positions.subarray(0, Math.min(positions.length, 2 * n)));
  },
});

// The threads control (demo/threads.ts) searches snapshots of the same balls on a worker pool.
attachThreads({
  positions: () => positions,
  radius: () => radius,
  pairsNow: () => (collideInput.checked ? undefined : pairs.subarray(0, 2 * pairCount)),
});

reset();
requestAnimationFrame(tick);
