/**
 * Grid explorer: items of mixed sizes in a SpatialHash2D. Drag to cast a ray
 * (every traversed cell and every hit, in order), click for a radius query and
 * the k nearest, and measure how the cell size trades cells searched against
 * items per cell (the multiplier table of Bitsquid's "Finding nearby stuff").
 */
import { DEFAULT_MAX_CELLS_PER_ITEM, type RayHit, SpatialHash2D } from '../src/index.js';
import { byId, createSurface, exposeHook, formatFixed, formatInteger, seededRandom, setText } from './common.js';

/** The scene lives in world units; the canvas shows all of it, scaled to fit. */
const WORLD_WIDTH = 1000;
const WORLD_HEIGHT = 640;
const ITEM_COUNT = 320;
const MULTIPLIERS = [1, 1.5, 2, 3, 5, 10];
/** Bitsquid's "Avg. cells to search" column, quoted for comparison. */
const ARTICLE_CELLS = [4.0, 2.78, 2.25, 1.78, 1.44, 1.21];
const DRAG_THRESHOLD = 4;

const canvas = byId<HTMLCanvasElement>('canvas');
const cellSizeInput = byId<HTMLInputElement>('cell-size');
const radiusInput = byId<HTMLInputElement>('radius');
const kInput = byId<HTMLInputElement>('k');
const movingInput = byId<HTMLInputElement>('moving');
const layersInput = byId<HTMLInputElement>('layers');
const view = {
  cellSize: byId('cell-size-value'),
  radius: byId('radius-value'),
  k: byId('k-value'),
  items: byId('items'),
  cells: byId('cells'),
  overflow: byId('overflow'),
  perCell: byId('per-cell'),
  cellsPerItem: byId('cells-per-item'),
  multiplier: byId('multiplier'),
  searched: byId('searched'),
  candidates: byId('candidates'),
  found: byId('found'),
  queryTime: byId('query-time'),
  ray: byId('ray-summary'),
  query: byId('query-summary'),
  table: byId<HTMLTableElement>('table'),
};

// Items as flat boxes; item i is the integer i in the hash.
const minX = new Float64Array(ITEM_COUNT);
const minY = new Float64Array(ITEM_COUNT);
const maxX = new Float64Array(ITEM_COUNT);
const maxY = new Float64Array(ITEM_COUNT);
const velocityX = new Float64Array(ITEM_COUNT);
const velocityY = new Float64Array(ITEM_COUNT);

function makeScene(): void {
  const random = seededRandom(2024);
  const clusters = [
    [230, 180],
    [720, 430],
    [520, 140],
    [180, 500],
  ];
  for (let i = 0; i < ITEM_COUNT; i++) {
    const roll = random();
    // Mostly small things, some medium, a few large ones and a few bare points: a typical game level.
    const size =
      roll < 0.03 ? 0 : roll < 0.62 ? 4 + random() * 10 : roll < 0.93 ? 16 + random() * 34 : 60 + random() * 90;
    const aspect = 0.5 + random();
    const w = size * aspect;
    const h = size / aspect;
    let cx: number;
    let cy: number;
    if (random() < 0.45) {
      const [x, y] = clusters[Math.floor(random() * clusters.length)];
      const spread = 40 + random() * 60;
      cx = x + (random() + random() + random() - 1.5) * spread * 2;
      cy = y + (random() + random() + random() - 1.5) * spread * 2;
    } else {
      cx = random() * WORLD_WIDTH;
      cy = random() * WORLD_HEIGHT;
    }
    cx = Math.min(Math.max(cx, w / 2), WORLD_WIDTH - w / 2);
    cy = Math.min(Math.max(cy, h / 2), WORLD_HEIGHT - h / 2);
    minX[i] = cx - w / 2;
    minY[i] = cy - h / 2;
    maxX[i] = cx + w / 2;
    maxY[i] = cy + h / 2;
    if (i % 7 === 0 && size < 60) {
      const angle = random() * Math.PI * 2;
      velocityX[i] = Math.cos(angle) * 0.6;
      velocityY[i] = Math.sin(angle) * 0.6;
    }
  }
}

// Collision layers: every third item is blue (category 2), the rest amber (category 1).
const AMBER = 1;
const BLUE = 2;
const categoryOf = (i: number): number => (i % 3 === 0 ? BLUE : AMBER);
/** Each item's id in the hash (moves go through updateById). */
const ids = new Int32Array(ITEM_COUNT);

/** The mask the ray and radius/nearest queries use: only blue items while the layers toggle is on. */
function queryMask(): number {
  return layersInput.checked ? BLUE : -1;
}

let cellSize = Number(cellSizeInput.value);
let queryRadius = Number(radiusInput.value);
let k = Number(kInput.value);
let hash = buildHash(cellSize);
let frame = 0;

function buildHash(size: number): SpatialHash2D<number> {
  const h = new SpatialHash2D<number>({ cellSize: size, initialCapacity: ITEM_COUNT });
  for (let i = 0; i < ITEM_COUNT; i++) {
    ids[i] = h.insert(i, minX[i], minY[i], maxX[i], maxY[i], { category: categoryOf(i) });
  }
  return h;
}

/** Cells each item covers, the same floor() rule the hash uses. */
function cellSpan(lo: number, hi: number, size: number): number {
  return Math.floor(hi / size) - Math.floor(lo / size) + 1;
}

interface Occupancy {
  /** Occupied cells as flat (cx, cy, count). */
  cells: number[];
  entries: number;
  maxPerCell: number;
  /** Items covering more than DEFAULT_MAX_CELLS_PER_ITEM cells: the hash keeps them in its overflow list instead. */
  overflow: number;
}

/** Packs a cell into one Map key; cells of this page stay well within ±1024 on each axis. */
function cellKey(cx: number, cy: number): number {
  return (cy + 1024) * 4096 + (cx + 1024);
}

function occupancy(size: number): Occupancy {
  const counts = new Map<number, number>();
  let entries = 0;
  let overflow = 0;
  for (let i = 0; i < ITEM_COUNT; i++) {
    const x0 = Math.floor(minX[i] / size);
    const x1 = Math.floor(maxX[i] / size);
    const y0 = Math.floor(minY[i] / size);
    const y1 = Math.floor(maxY[i] / size);
    if ((x1 - x0 + 1) * (y1 - y0 + 1) > DEFAULT_MAX_CELLS_PER_ITEM) {
      overflow++;
      continue;
    }
    for (let cy = y0; cy <= y1; cy++) {
      for (let cx = x0; cx <= x1; cx++) {
        const key = cellKey(cx, cy);
        counts.set(key, (counts.get(key) ?? 0) + 1);
        entries++;
      }
    }
  }
  const cells: number[] = [];
  let maxPerCell = 0;
  for (const [key, n] of counts) {
    cells.push((key % 4096) - 1024, Math.floor(key / 4096) - 1024, n);
    maxPerCell = Math.max(maxPerCell, n);
  }
  return { cells, entries, maxPerCell, overflow };
}

interface Measurement {
  cellsSearched: number;
  candidates: number;
  found: number;
  microseconds: number;
  itemsPerCell: number;
}

/**
 * Measures radius queries at one cell size on this scene: cells a query box
 * overlaps, items listed in those cells, items found, and the library's time.
 */
function measure(size: number, radius: number, samples: number, seed: number): Measurement {
  const h = size === cellSize ? hash : buildHash(size);
  const occupied = occupancy(size);
  const perCell = new Map<number, number>();
  for (let c = 0; c < occupied.cells.length; c += 3) {
    perCell.set(cellKey(occupied.cells[c], occupied.cells[c + 1]), occupied.cells[c + 2]);
  }
  const random = seededRandom(seed);
  const xs = new Float64Array(samples);
  const ys = new Float64Array(samples);
  let cellsSearched = 0;
  let candidates = 0;
  for (let s = 0; s < samples; s++) {
    const x = random() * WORLD_WIDTH;
    const y = random() * WORLD_HEIGHT;
    xs[s] = x;
    ys[s] = y;
    const x0 = Math.floor((x - radius) / size);
    const x1 = Math.floor((x + radius) / size);
    const y0 = Math.floor((y - radius) / size);
    const y1 = Math.floor((y + radius) / size);
    cellsSearched += (x1 - x0 + 1) * (y1 - y0 + 1);
    for (let cy = y0; cy <= y1; cy++) {
      for (let cx = x0; cx <= x1; cx++) candidates += perCell.get(cellKey(cx, cy)) ?? 0;
    }
  }
  const out: number[] = [];
  let found = 0;
  // Best of three passes: the first warms the JIT, and a garbage collection mid-pass would swamp microseconds.
  let elapsed = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < 3; pass++) {
    found = 0;
    const start = performance.now();
    for (let s = 0; s < samples; s++) found += h.queryRadius(xs[s], ys[s], radius, out).length;
    elapsed = Math.min(elapsed, performance.now() - start);
  }
  return {
    cellsSearched: cellsSearched / samples,
    candidates: candidates / samples,
    found: found / samples,
    microseconds: (elapsed * 1000) / samples,
    itemsPerCell: occupied.entries / Math.max(1, occupied.cells.length / 3),
  };
}

/** Monte Carlo cell count alone: cheap enough for 20,000 samples per table row. */
function averageCellsSearched(size: number, radius: number, samples: number, seed: number): number {
  const random = seededRandom(seed);
  let total = 0;
  for (let s = 0; s < samples; s++) {
    // Centres uniform over one cell: the table averages over every offset from the grid lines, which
    // centres drawn from a world that is not a whole number of cells wide would not.
    const x = random() * size;
    const y = random() * size;
    total += cellSpan(x - radius, x + radius, size) * cellSpan(y - radius, y + radius, size);
  }
  return total / samples;
}

let tableRows: Array<{
  multiplier: number;
  article: number;
  cells: number;
  area: number;
  itemsPerCell: number;
  microseconds: number;
}> = [];

function updateTable(): void {
  const diameter = 2 * queryRadius;
  tableRows = MULTIPLIERS.map((multiplier, row) => {
    const size = multiplier * diameter;
    const m = measure(size, queryRadius, 1500, 77 + row);
    return {
      multiplier,
      article: ARTICLE_CELLS[row],
      cells: averageCellsSearched(size, queryRadius, 20_000, 1234 + row),
      area: multiplier * multiplier,
      itemsPerCell: m.itemsPerCell,
      microseconds: m.microseconds,
    };
  });
  renderTable();
}

function renderTable(): void {
  const body = view.table.tBodies[0];
  const current = cellSize / (2 * queryRadius);
  let closest = 0;
  for (let r = 1; r < MULTIPLIERS.length; r++) {
    if (Math.abs(Math.log(MULTIPLIERS[r] / current)) < Math.abs(Math.log(MULTIPLIERS[closest] / current))) closest = r;
  }
  body.replaceChildren(
    ...tableRows.map((row, r) => {
      const tr = document.createElement('tr');
      if (r === closest) tr.className = 'current';
      for (const text of [
        formatFixed(row.multiplier, 1),
        formatFixed(row.article, 2),
        formatFixed(row.cells, 2),
        formatFixed(row.area, 2),
        formatFixed(row.itemsPerCell, 2),
        formatFixed(row.microseconds, 2),
      ]) {
        const td = document.createElement('td');
        td.textContent = text;
        tr.append(td);
      }
      return tr;
    }),
  );
}

let occupied = occupancy(cellSize);
let stats: Measurement | undefined;
let statsDirty = true;
let tableDirty = true;

function refreshStats(): void {
  stats = measure(cellSize, queryRadius, 2000, 99);
  statsDirty = false;
  setText(view.items, formatInteger(hash.size));
  setText(view.cells, formatInteger(hash.cellCount));
  setText(view.overflow, formatInteger(hash.overflowSize));
  setText(view.perCell, `${formatFixed(stats.itemsPerCell, 2)} (max ${occupied.maxPerCell})`);
  setText(view.cellsPerItem, formatFixed(occupied.entries / Math.max(1, ITEM_COUNT - occupied.overflow), 2));
  setText(view.multiplier, formatFixed(cellSize / (2 * queryRadius), 2));
  setText(view.searched, formatFixed(stats.cellsSearched, 2));
  setText(view.candidates, formatFixed(stats.candidates, 1));
  setText(view.found, formatFixed(stats.found, 1));
  setText(view.queryTime, `${formatFixed(stats.microseconds, 2)} µs`);
}

// Ray and query, in world units. Both stay on screen until replaced.
const ray = { active: true, x0: 70, y0: 590, x1: 930, y1: 90 };
const query = { active: true, x: 610, y: 330 };
const rayCells: number[] = []; // flat (cx, cy, tEnter, tExit)
let rayHits: RayHit<number>[] = [];
let rayLength = 0;
let within: number[] = [];
let nearest: number[] = [];

/** Distance from the ray origin to where it leaves the world: the sparse grid itself never ends. */
function distanceToWorldEdge(x: number, y: number, dx: number, dy: number): number {
  let t = Number.POSITIVE_INFINITY;
  if (dx > 0) t = Math.min(t, (WORLD_WIDTH - x) / dx);
  if (dx < 0) t = Math.min(t, -x / dx);
  if (dy > 0) t = Math.min(t, (WORLD_HEIGHT - y) / dy);
  if (dy < 0) t = Math.min(t, -y / dy);
  return Number.isFinite(t) ? Math.max(0, t) : 0;
}

function castRay(): void {
  rayCells.length = 0;
  rayHits = [];
  rayLength = 0;
  if (!ray.active) return;
  const length = Math.hypot(ray.x1 - ray.x0, ray.y1 - ray.y0);
  if (length === 0) return;
  const dx = (ray.x1 - ray.x0) / length;
  const dy = (ray.y1 - ray.y0) / length;
  rayLength = distanceToWorldEdge(ray.x0, ray.y0, dx, dy);
  hash.forEachCellOnRay(ray.x0, ray.y0, dx, dy, rayLength, (cx, cy, tEnter, tExit) => {
    rayCells.push(cx, cy, tEnter, tExit);
  });
  rayHits = hash.raycastAll(ray.x0, ray.y0, dx, dy, rayLength, [], queryMask());
}

function runQuery(): void {
  if (!query.active) {
    within = [];
    nearest = [];
    return;
  }
  within = hash.queryRadius(query.x, query.y, queryRadius, within, queryMask());
  nearest = hash.nearest(query.x, query.y, k, Number.POSITIVE_INFINITY, nearest, queryMask());
}

function moveItems(): void {
  for (let i = 0; i < ITEM_COUNT; i++) {
    const vx = velocityX[i];
    const vy = velocityY[i];
    if (vx === 0 && vy === 0) continue;
    if (minX[i] + vx < 0 || maxX[i] + vx > WORLD_WIDTH) velocityX[i] = -vx;
    if (minY[i] + vy < 0 || maxY[i] + vy > WORLD_HEIGHT) velocityY[i] = -vy;
    minX[i] += velocityX[i];
    maxX[i] += velocityX[i];
    minY[i] += velocityY[i];
    maxY[i] += velocityY[i];
    hash.updateById(ids[i], minX[i], minY[i], maxX[i], maxY[i]);
  }
}

// World-to-screen transform, refreshed on resize.
let scale = 1;
let offsetX = 0;
let offsetY = 0;
const surface = createSurface(canvas, (s) => {
  scale = Math.min((s.width - 16) / WORLD_WIDTH, (s.height - 16) / WORLD_HEIGHT);
  offsetX = (s.width - WORLD_WIDTH * scale) / 2;
  offsetY = (s.height - WORLD_HEIGHT * scale) / 2;
});

function toWorld(event: PointerEvent): [number, number] {
  const box = canvas.getBoundingClientRect();
  return [(event.clientX - box.left - offsetX) / scale, (event.clientY - box.top - offsetY) / scale];
}

function draw(): void {
  const { context: g, width, height } = surface;
  g.setTransform(surface.pixelRatio, 0, 0, surface.pixelRatio, 0, 0);
  g.fillStyle = '#0b0e13';
  g.fillRect(0, 0, width, height);
  g.save();
  g.translate(offsetX, offsetY);
  g.scale(scale, scale);
  const px = 1 / scale; // one CSS pixel in world units
  g.beginPath();
  g.rect(0, 0, WORLD_WIDTH, WORLD_HEIGHT);
  g.fillStyle = '#11151c';
  g.fill();
  g.clip();

  // Occupied cells, shaded by how many items they list.
  const cells = occupied.cells;
  const peak = Math.max(1, occupied.maxPerCell);
  for (let c = 0; c < cells.length; c += 3) {
    const share = cells[c + 2] / peak;
    g.fillStyle = `rgba(80, 110, 160, ${0.14 + 0.5 * share})`;
    g.fillRect(cells[c] * cellSize, cells[c + 1] * cellSize, cellSize, cellSize);
  }

  // Grid lines, skipped when cells would be a blur of lines.
  if (cellSize * scale >= 6) {
    g.beginPath();
    for (let x = 0; x <= WORLD_WIDTH; x += cellSize) {
      g.moveTo(x, 0);
      g.lineTo(x, WORLD_HEIGHT);
    }
    for (let y = 0; y <= WORLD_HEIGHT; y += cellSize) {
      g.moveTo(0, y);
      g.lineTo(WORLD_WIDTH, y);
    }
    g.strokeStyle = 'rgba(255, 255, 255, 0.07)';
    g.lineWidth = px;
    g.stroke();
  }

  // Ray cells, in traversal order from yellow to red.
  const cellTotal = rayCells.length / 4;
  for (let c = 0; c < cellTotal; c++) {
    const hue = 48 - (40 * c) / Math.max(1, cellTotal - 1);
    g.fillStyle = `hsla(${hue}, 100%, 60%, 0.32)`;
    g.fillRect(rayCells[4 * c] * cellSize, rayCells[4 * c + 1] * cellSize, cellSize, cellSize);
    g.strokeStyle = `hsla(${hue}, 100%, 60%, 0.9)`;
    g.lineWidth = px;
    g.strokeRect(rayCells[4 * c] * cellSize, rayCells[4 * c + 1] * cellSize, cellSize, cellSize);
  }
  if (cellSize * scale >= 22 && cellTotal <= 120) {
    g.fillStyle = 'rgba(255, 230, 180, 0.85)';
    g.font = `${10 * px}px system-ui, sans-serif`;
    g.textAlign = 'left';
    g.textBaseline = 'top';
    for (let c = 0; c < cellTotal; c++) {
      g.fillText(String(c + 1), rayCells[4 * c] * cellSize + 2 * px, rayCells[4 * c + 1] * cellSize + 2 * px);
    }
  }

  // Items.
  const withinSet = new Set(within);
  const hitOrder = new Map<number, number>();
  rayHits.forEach((hit, order) => {
    hitOrder.set(hit.item, order);
  });
  const layers = layersInput.checked;
  for (let i = 0; i < ITEM_COUNT; i++) {
    const w = maxX[i] - minX[i];
    const h = maxY[i] - minY[i];
    const isHit = hitOrder.has(i);
    const isWithin = withinSet.has(i);
    // With layers on, items show their category: blue (seen by the queries) or amber (filtered out).
    const idle = layers ? (categoryOf(i) === BLUE ? '#5b8cff' : '#d9a441') : '#c9d2e3';
    const idleStroke = layers ? idle : 'rgba(200, 212, 232, 0.75)';
    if (w === 0 && h === 0) {
      g.beginPath();
      g.arc(minX[i], minY[i], 2.5 * px, 0, Math.PI * 2);
      g.fillStyle = isHit ? '#ff6b6b' : isWithin ? '#4fc3f7' : idle;
      g.fill();
      continue;
    }
    g.fillStyle = isWithin
      ? 'rgba(79, 195, 247, 0.45)'
      : layers
        ? categoryOf(i) === BLUE
          ? 'rgba(91, 140, 255, 0.22)'
          : 'rgba(217, 164, 65, 0.16)'
        : 'rgba(180, 195, 220, 0.16)';
    g.fillRect(minX[i], minY[i], w, h);
    g.strokeStyle = isHit ? '#ff6b6b' : isWithin ? '#4fc3f7' : idleStroke;
    g.lineWidth = (isHit ? 2.5 : 1) * px;
    g.strokeRect(minX[i], minY[i], w, h);
  }

  if (ray.active && rayLength > 0) drawRay(g, px);
  if (query.active) drawQuery(g, px);
  g.restore();
}

function label(g: CanvasRenderingContext2D, text: string, x: number, y: number, colour: string, px: number): void {
  const r = 8 * px;
  g.beginPath();
  g.arc(x, y, r, 0, Math.PI * 2);
  g.fillStyle = colour;
  g.fill();
  g.fillStyle = '#0b0e13';
  g.font = `bold ${10 * px}px system-ui, sans-serif`;
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText(text, x, y + 0.5 * px);
}

function drawRay(g: CanvasRenderingContext2D, px: number): void {
  const length = Math.hypot(ray.x1 - ray.x0, ray.y1 - ray.y0);
  const dx = (ray.x1 - ray.x0) / length;
  const dy = (ray.y1 - ray.y0) / length;
  g.beginPath();
  g.moveTo(ray.x0, ray.y0);
  g.lineTo(ray.x0 + dx * rayLength, ray.y0 + dy * rayLength);
  g.strokeStyle = '#ffb547';
  g.lineWidth = 2 * px;
  g.stroke();
  g.beginPath();
  g.arc(ray.x0, ray.y0, 4 * px, 0, Math.PI * 2);
  g.fillStyle = '#ffb547';
  g.fill();
  rayHits.forEach((hit, order) => {
    label(g, String(order + 1), ray.x0 + dx * hit.distance, ray.y0 + dy * hit.distance, '#ff6b6b', px);
  });
}

function nearestPointOnBox(i: number, x: number, y: number): [number, number] {
  return [Math.min(Math.max(x, minX[i]), maxX[i]), Math.min(Math.max(y, minY[i]), maxY[i])];
}

function drawQuery(g: CanvasRenderingContext2D, px: number): void {
  g.beginPath();
  g.arc(query.x, query.y, queryRadius, 0, Math.PI * 2);
  g.fillStyle = 'rgba(79, 195, 247, 0.08)';
  g.fill();
  g.strokeStyle = '#4fc3f7';
  g.lineWidth = 1.5 * px;
  g.setLineDash([6 * px, 4 * px]);
  g.stroke();
  g.setLineDash([]);
  nearest.forEach((item, order) => {
    const [nx, ny] = nearestPointOnBox(item, query.x, query.y);
    g.beginPath();
    g.moveTo(query.x, query.y);
    g.lineTo(nx, ny);
    g.strokeStyle = 'rgba(125, 220, 138, 0.8)';
    g.lineWidth = 1.5 * px;
    g.stroke();
    label(g, String(order + 1), nx, ny, '#7ddc8a', px);
  });
  g.beginPath();
  g.arc(query.x, query.y, 3.5 * px, 0, Math.PI * 2);
  g.fillStyle = '#4fc3f7';
  g.fill();
}

function describeItem(i: number): string {
  const w = maxX[i] - minX[i];
  const h = maxY[i] - minY[i];
  return w === 0 && h === 0 ? `point #${i}` : `#${i} (${formatFixed(w, 0)}×${formatFixed(h, 0)})`;
}

function showSummaries(): void {
  if (!ray.active || rayLength === 0) {
    setText(view.ray, 'Drag on the canvas.');
  } else {
    const first = rayHits[0];
    const list = rayHits
      .slice(0, 4)
      .map((hit, order) => `${order + 1}. ${describeItem(hit.item)} at ${formatFixed(hit.distance, 1)}`)
      .join(' · ');
    setText(
      view.ray,
      `${rayCells.length / 4} cells traversed, ${rayHits.length} hit${rayHits.length === 1 ? '' : 's'}` +
        (first === undefined ? '.' : `. ${list}${rayHits.length > 4 ? ' …' : ''}`),
    );
  }
  if (!query.active) {
    setText(view.query, 'Click on the canvas.');
  } else {
    const list = nearest.map((item, order) => `${order + 1}. ${describeItem(item)}`).join(' · ');
    setText(
      view.query,
      `${within.length} item${within.length === 1 ? '' : 's'} within ${queryRadius} of (${formatFixed(query.x, 0)}, ${formatFixed(query.y, 0)}). Nearest ${k}: ${list}`,
    );
  }
}

// Pointer: a press that moves more than a few pixels is a ray, otherwise a click.
let press: { x: number; y: number; screenX: number; screenY: number; dragging: boolean } | undefined;
canvas.addEventListener('pointerdown', (event) => {
  const [x, y] = toWorld(event);
  press = { x, y, screenX: event.clientX, screenY: event.clientY, dragging: false };
  canvas.setPointerCapture(event.pointerId);
});
canvas.addEventListener('pointermove', (event) => {
  if (press === undefined) return;
  if (!press.dragging && Math.hypot(event.clientX - press.screenX, event.clientY - press.screenY) < DRAG_THRESHOLD) {
    return;
  }
  press.dragging = true;
  const [x, y] = toWorld(event);
  ray.active = true;
  ray.x0 = press.x;
  ray.y0 = press.y;
  ray.x1 = x;
  ray.y1 = y;
});
canvas.addEventListener('pointerup', (event) => {
  if (press !== undefined && !press.dragging) {
    const [x, y] = toWorld(event);
    query.active = true;
    query.x = x;
    query.y = y;
  }
  press = undefined;
});
canvas.addEventListener('pointercancel', () => {
  press = undefined;
});

cellSizeInput.addEventListener('input', () => {
  cellSize = Number(cellSizeInput.value);
  hash = buildHash(cellSize);
  occupied = occupancy(cellSize);
  setText(view.cellSize, String(cellSize));
  statsDirty = true;
  renderTable();
});
radiusInput.addEventListener('input', () => {
  queryRadius = Number(radiusInput.value);
  setText(view.radius, String(queryRadius));
  statsDirty = true;
  tableDirty = true;
});
kInput.addEventListener('input', () => {
  k = Number(kInput.value);
  setText(view.k, String(k));
});

function tick(): void {
  if (movingInput.checked) {
    moveItems();
    // Occupancy follows the moving items; a few hundred items make this cheap.
    occupied = occupancy(cellSize);
  }
  castRay();
  runQuery();
  draw();
  if (tableDirty) {
    updateTable();
    tableDirty = false;
  }
  if (statsDirty || frame % 60 === 0) refreshStats();
  if (frame % 6 === 0) showSummaries();
  frame++;
  requestAnimationFrame(tick);
}

// `?still`: the items start at rest, so that the scene is the same on every visit (the README's screenshot).
if (new URLSearchParams(location.search).has('still')) movingInput.checked = false;
makeScene();
hash = buildHash(cellSize);
occupied = occupancy(cellSize);
setText(view.cellSize, String(cellSize));
setText(view.radius, String(queryRadius));
setText(view.k, String(k));

exposeHook({
  page: 'grid',
  get frame() {
    return frame;
  },
  get cellSize() {
    return cellSize;
  },
  get itemCount() {
    return hash.size;
  },
  /** Occupied cells as the library counts them and as this page counts them from the boxes. */
  get cellCounts() {
    return {
      library: hash.cellCount,
      page: occupied.cells.length / 3,
      overflow: hash.overflowSize,
      pageOverflow: occupied.overflow,
    };
  },
  get ray() {
    return {
      x0: ray.x0,
      y0: ray.y0,
      x1: ray.x1,
      y1: ray.y1,
      length: rayLength,
      cells: rayCells.length / 4,
      /** Traversed cells in order, flat (cx, cy, tEnter, tExit). */
      cellList: rayCells.slice(),
      hits: rayHits.map((hit) => ({ item: hit.item, distance: hit.distance })),
    };
  },
  get query() {
    return { x: query.x, y: query.y, radius: queryRadius, k, within: within.slice(), nearest: nearest.slice() };
  },
  /** Collision layers: whether the toggle is on, the queries' mask, and each item's category. */
  get layers() {
    return {
      on: layersInput.checked,
      mask: queryMask(),
      categories: Array.from({ length: ITEM_COUNT }, (_, i) => categoryOf(i)),
    };
  },
  get table() {
    return tableRows.map((row) => ({ ...row }));
  },
  /** World-to-CSS-pixel transform of the canvas, so the test can aim the mouse. */
  get view() {
    return { scale, offsetX, offsetY };
  },
  /** A copy of the first `n` items' boxes (minX, minY, maxX, maxY, ...). */
  positions(n = 32): number[] {
    const out: number[] = [];
    for (let i = 0; i < Math.min(n, ITEM_COUNT); i++) out.push(minX[i], minY[i], maxX[i], maxY[i]);
    return out;
  },
});

requestAnimationFrame(tick);
