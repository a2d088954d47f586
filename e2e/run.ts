/**
 * End-to-end test of the built demo (demo-dist/) in headless Chromium.
 *
 * Serves demo-dist/ on 127.0.0.1 at a free port, opens every page in Debian's
 * Chromium driven by playwright-core (no browser download), and fails on any
 * console error, page error or failed request. Each page is checked through
 * the read-only `window.__demo` hook: the simulation advances, the ray
 * traverses and draws its cells, queries match a brute-force answer. Screenshots
 * go to test-results/e2e/. The README's screenshot, docs/screenshot.png, is made
 * here too and checked to show the demo as it is (e2e/screenshot.ts): a stale one
 * fails the run under CI and is rewritten elsewhere; `--update-screenshot`
 * rewrites it in any case.
 *
 * Run with `npm run test:e2e` (builds first), or `npx tsx e2e/run.ts grid fluid` for
 * some pages of an existing build; `--dev` tests `npm start`'s dev server instead
 * of the build. CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { fingerprint, SCREENSHOT_KEY, staleness, textOf, withText } from './screenshot.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, serve } from './serve.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const distDir = join(root, 'demo-dist');
const outputDir = join(root, 'test-results', 'e2e');
const updateScreenshot = process.argv.includes('--update-screenshot');
const devMode = process.argv.includes('--dev');
/** Generous: the CI machine has 2 shared cores and no GPU. */
const WAIT_MS = 30_000;

async function serveBuild(): Promise<{ origin: string; close: () => Promise<void> }> {
  const { server, origin } = await serve(distDir);
  return { origin, close: () => new Promise((done) => server.close(() => done())) };
}

/** `npm start`'s Vite dev server instead of the build: checks that the demo runs from src/ unbundled. */
async function serveDev(): Promise<{ origin: string; close: () => Promise<void> }> {
  const { createServer: createViteServer } = await import('vite');
  const vite = await createViteServer({
    configFile: join(root, 'demo', 'vite.config.ts'),
    logLevel: 'warn',
    server: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  await vite.listen();
  const address = vite.httpServer?.address() as AddressInfo | null;
  if (address === null || address === undefined) throw new Error('the Vite dev server did not start');
  return { origin: `http://127.0.0.1:${address.port}`, close: () => vite.close() };
}

class Failure extends Error {}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Failure(message);
}

type Hook = Record<string, unknown> & { frame: number };

/** Reads a value from the page's `window.__demo` hook. */
async function hook<T = Hook>(page: Page, read = 'h'): Promise<T> {
  return page.evaluate(`(() => { const h = window.__demo; return ${read}; })()`) as Promise<T>;
}

async function waitForFrames(page: Page, frames: number): Promise<number> {
  const start = await hook<number>(page, 'h ? h.frame : -1');
  await page.waitForFunction(`window.__demo !== undefined && window.__demo.frame >= ${start + frames}`, undefined, {
    timeout: WAIT_MS,
    polling: 50,
  });
  return hook<number>(page, 'h.frame');
}

/** Fails unless the page's positions change between two frames. */
async function checkAdvances(page: Page, what: string): Promise<void> {
  await waitForFrames(page, 2);
  const before = await hook<number[]>(page, 'h.positions(32)');
  await waitForFrames(page, 3);
  const after = await hook<number[]>(page, 'h.positions(32)');
  check(before.length > 0 && before.length === after.length, `${what}: the hook returned no positions`);
  check(
    before.some((value, i) => value !== after[i]),
    `${what}: positions did not change between frames`,
  );
  check(
    after.every((value) => Number.isFinite(value)),
    `${what}: a position is not finite`,
  );
}

async function setRange(page: Page, selector: string, value: number): Promise<void> {
  await page.locator(selector).fill(String(value));
}

async function testIndex(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/index.html`);
  const links = await page.locator('a.card').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')));
  check(
    ['./particles.html', './grid.html', './fluid.html'].every((href) => links.includes(href)),
    `index: expected links to the three pages, got ${JSON.stringify(links)}`,
  );
  await page.screenshot({ path: join(outputDir, 'index.png') });
}

interface Figures {
  fps: number;
  searchMs: number;
  candidates: number;
  hits: number;
  hitRate: number;
}

/**
 * With bouncing off, the last frame's pairs were found on the positions the page
 * holds between frames: they must be exactly the pairs closer than one diameter.
 */
async function checkPairs(page: Page, method: string): Promise<void> {
  const state = await hook<{ positions: number[]; pairs: number[]; radius: number }>(
    page,
    '({ positions: h.positions(h.count), pairs: h.pairs(), radius: h.radius })',
  );
  const { positions, pairs, radius } = state;
  const n = positions.length / 2;
  const limit = (2 * radius) ** 2;
  const expected = new Set<number>();
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = positions[2 * j] - positions[2 * i];
      const dy = positions[2 * j + 1] - positions[2 * i + 1];
      if (dx * dx + dy * dy <= limit) expected.add(i * n + j);
    }
  }
  const found = new Set<number>();
  for (let p = 0; p < pairs.length; p += 2) {
    const i = Math.min(pairs[p], pairs[p + 1]);
    const j = Math.max(pairs[p], pairs[p + 1]);
    check(i !== j && !found.has(i * n + j), `particles: ${method} reported pair (${i}, ${j}) twice or with itself`);
    found.add(i * n + j);
  }
  const missing = [...expected].filter((key) => !found.has(key));
  const extra = [...found].filter((key) => !expected.has(key));
  check(
    missing.length === 0 && extra.length === 0 && expected.size > 0,
    `particles: ${method} pairs differ from brute force over ${n} balls: ${missing.length} missing, ${extra.length} extra, ${expected.size} expected`,
  );
}

async function testParticles(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/particles.html`);
  await checkAdvances(page, 'particles (PointGrid2D)');
  await waitForFrames(page, 20);
  let figures = await hook<Figures>(page, 'h.figures');
  check(figures.hits > 0, `particles: no touching pairs among 2,000 balls (${JSON.stringify(figures)})`);
  check(
    figures.candidates >= figures.hits,
    `particles: fewer candidates (${figures.candidates}) than touching pairs (${figures.hits})`,
  );
  await page.screenshot({ path: join(outputDir, 'particles-grid.png') });

  // Basic Spatial Hashing with Boost: for uniformly scattered balls and cells one diameter wide, about pi/9 of the candidates touch.
  await page.locator('#collide').uncheck();
  await waitForFrames(page, 40);
  figures = await hook<Figures>(page, 'h.figures');
  check(
    Math.abs(figures.hitRate - Math.PI / 9) < 0.05,
    `particles: without bouncing the hit rate is ${figures.hitRate}, the articles' pi/9 is ${Math.PI / 9}`,
  );
  await checkPairs(page, 'PointGrid2D');

  // SpatialHash2D's candidates are pairs of overlapping bounding boxes: pi/4 of them touch.
  await page.locator('input[name="method"][value="hash"]').check();
  await waitForFrames(page, 40);
  figures = await hook<Figures>(page, 'h.figures');
  check(
    Math.abs(figures.hitRate - Math.PI / 4) < 0.05,
    `particles: SpatialHash2D hit rate without bouncing is ${figures.hitRate}, boxes predict pi/4 = ${Math.PI / 4}`,
  );
  await checkPairs(page, 'SpatialHash2D');

  await page.locator('#collide').check();
  await checkAdvances(page, 'particles (SpatialHash2D)');
  await waitForFrames(page, 10);
  figures = await hook<Figures>(page, 'h.figures');
  check(figures.hits > 0, `particles: SpatialHash2D found no touching pairs (${JSON.stringify(figures)})`);
  check(figures.candidates >= figures.hits, 'particles: SpatialHash2D reported fewer candidates than touching pairs');
  await page.screenshot({ path: join(outputDir, 'particles-hash.png') });

  // The naive loop must stay capped however many balls are asked for.
  await page.locator('input[name="method"][value="naive"]').check();
  await setRange(page, '#count', 1000);
  const naive = await hook<{ count: number; requested: number }>(page, '({ count: h.count, requested: h.requested })');
  check(
    naive.requested === 100_000 && naive.count === 5_000,
    `particles: naive mode at 100,000 should simulate 5,000, got ${JSON.stringify(naive)}`,
  );
  check(
    (await page.locator('#notice').textContent())?.includes('capped') === true,
    'particles: no notice that the naive loop is capped',
  );
  await checkAdvances(page, 'particles (naive)');
  figures = await hook<Figures>(page, 'h.figures');
  check(figures.candidates === (5000 * 4999) / 2, `particles: naive candidates ${figures.candidates} != n(n-1)/2`);

  // The library at the top of the slider.
  await page.locator('input[name="method"][value="grid"]').check();
  const full = await hook<number>(page, 'h.count');
  check(full === 100_000, `particles: PointGrid2D mode should simulate 100,000 balls, got ${full}`);
  await checkAdvances(page, 'particles (100,000 balls)');
  await page.screenshot({ path: join(outputDir, 'particles-100k.png') });
}

/**
 * The particles page's threads control: the page must be cross-origin
 * isolated, and the pairs the PointGridWorkers pool finds on two workers
 * must be exactly the brute-force pairs of the snapshot it searched.
 */
async function testThreads(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/particles.html`);
  await waitForFrames(page, 2);
  check(
    (await page.evaluate('globalThis.crossOriginIsolated')) === true,
    'threads: the page is not cross-origin isolated',
  );
  // Without bouncing the page's own pairs are those of the positions between frames, so the pool's are compared too.
  await page.locator('#collide').uncheck();
  await page.locator('#threads').selectOption('2');
  await page.waitForFunction(
    'window.__threads !== undefined && (window.__threads.runs >= 3 || window.__threads.error !== "")',
    undefined,
    {
      timeout: WAIT_MS,
      polling: 50,
    },
  );
  const error = await page.evaluate('window.__threads.error');
  check(error === '', `threads: the parallel search failed: ${error}`);
  const last = (await page.evaluate('window.__threads.last()')) as {
    positions: number[];
    pairs: number[];
    radius: number;
    agrees: boolean;
  };
  check(last.agrees, "threads: the pool found other pairs than the page's own PointGrid2D search");
  const { positions, pairs, radius } = last;
  const n = positions.length / 2;
  const limit = (2 * radius) ** 2;
  let expected = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = positions[2 * j] - positions[2 * i];
      const dy = positions[2 * j + 1] - positions[2 * i + 1];
      if (dx * dx + dy * dy <= limit) expected++;
    }
  }
  const seen = new Set<number>();
  for (let p = 0; p < pairs.length; p += 2) {
    const [i, j] = [pairs[p], pairs[p + 1]];
    const dx = positions[2 * j] - positions[2 * i];
    const dy = positions[2 * j + 1] - positions[2 * i + 1];
    check(i < j && !seen.has(i * n + j), `threads: pair (${i}, ${j}) out of order or twice`);
    check(dx * dx + dy * dy <= limit, `threads: pair (${i}, ${j}) is farther apart than one diameter`);
    seen.add(i * n + j);
  }
  check(
    seen.size === expected && expected > 0,
    `threads: the pool found ${seen.size} pairs over ${n} balls, brute force ${expected}`,
  );
  await page.screenshot({ path: join(outputDir, 'particles-threads.png') });
}

interface RayState {
  cellList: number[];
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  length: number;
  cells: number;
  hits: Array<{ item: number; distance: number }>;
}

async function testGrid(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/grid.html`);
  await checkAdvances(page, 'grid explorer (moving items)');
  // Freeze the scene so hook reads and brute-force checks see one state.
  await page.locator('#moving').uncheck();
  await waitForFrames(page, 2);

  const box = await page.locator('#canvas').boundingBox();
  check(box !== null, 'grid: canvas has no layout box');
  const transform = await hook<{ scale: number; offsetX: number; offsetY: number }>(page, 'h.view');
  const toScreen = (x: number, y: number): [number, number] => [
    box.x + transform.offsetX + x * transform.scale,
    box.y + transform.offsetY + y * transform.scale,
  ];

  const drag = async (x0: number, y0: number, x1: number, y1: number): Promise<RayState> => {
    const [sx, sy] = toScreen(x0, y0);
    const [ex, ey] = toScreen(x1, y1);
    await page.mouse.move(sx, sy);
    await page.mouse.down();
    await page.mouse.move(ex, ey, { steps: 12 });
    await page.mouse.up();
    await waitForFrames(page, 2);
    return hook<RayState>(page, 'h.ray');
  };

  // A short ray along the bottom first, and a copy of the canvas with it.
  const before = await drag(990, 630, 640, 630);
  check(before.cells > 0, 'grid: a dragged ray traversed no cells');
  await page.evaluate(() => {
    const canvas = document.getElementById('canvas') as HTMLCanvasElement;
    const pixels = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height);
    (window as unknown as Record<string, unknown>).e2eBefore = pixels;
  });

  // Then a ray across the whole world.
  const ray = await drag(40, 610, 960, 40);
  check(Math.abs(ray.x0 - 40) < 2 && Math.abs(ray.y0 - 610) < 2, `grid: ray starts at (${ray.x0}, ${ray.y0})`);
  const cellSize = await hook<number>(page, 'h.cellSize');
  const boxes = await hook<number[]>(page, 'h.positions(h.itemCount)');
  const length = Math.hypot(ray.x1 - ray.x0, ray.y1 - ray.y0);
  const dir = [(ray.x1 - ray.x0) / length, (ray.y1 - ray.y0) / length];
  const start = [ray.x0, ray.y0];
  /** Closed-box slab test of the ray segment [0, ray.length]: [tEnter, tExit], or undefined for a miss. */
  const slab = (lo: number[], hi: number[]): [number, number] | undefined => {
    let enter = 0;
    let exit = ray.length;
    for (let a = 0; a < 2; a++) {
      if (dir[a] === 0) {
        if (start[a] < lo[a] || start[a] > hi[a]) return undefined;
        continue;
      }
      const t0 = (lo[a] - start[a]) / dir[a];
      const t1 = (hi[a] - start[a]) / dir[a];
      enter = Math.max(enter, Math.min(t0, t1));
      exit = Math.min(exit, Math.max(t0, t1));
    }
    return enter <= exit ? [enter, exit] : undefined;
  };

  // Every cell the segment really passes through is traversed, in order, and nothing far from it.
  const traversed = new Map<string, number>();
  for (let c = 0; c < ray.cellList.length; c += 4) {
    traversed.set(`${ray.cellList[c]},${ray.cellList[c + 1]}`, ray.cellList[c + 2]);
    check(
      c === 0 || ray.cellList[c + 2] >= ray.cellList[c - 2] - 1e-9,
      `grid: cell ${c / 4} on the ray is entered before the previous one was left`,
    );
  }
  const columns = Math.ceil(1000 / cellSize) + 1;
  const rows = Math.ceil(640 / cellSize) + 1;
  for (let cx = -1; cx <= columns; cx++) {
    for (let cy = -1; cy <= rows; cy++) {
      const span = slab([cx * cellSize, cy * cellSize], [(cx + 1) * cellSize, (cy + 1) * cellSize]);
      const key = `${cx},${cy}`;
      if (span !== undefined && span[1] - span[0] > 1e-6) {
        check(traversed.has(key), `grid: the ray crosses cell (${key}) but forEachCellOnRay skipped it`);
      }
      if (traversed.has(key)) {
        check(span !== undefined, `grid: forEachCellOnRay visited cell (${key}), which the ray does not touch`);
      }
    }
  }

  // Hits: exactly the boxes the segment meets, in order of distance, at the right distance.
  check(ray.hits.length > 0, 'grid: a ray across the whole scene hit nothing');
  check(
    ray.hits.every((hit, i) => i === 0 || hit.distance >= ray.hits[i - 1].distance),
    'grid: ray hits are not in order of distance',
  );
  const expectedHits = new Map<number, number>();
  for (let i = 0; i < boxes.length / 4; i++) {
    const span = slab([boxes[4 * i], boxes[4 * i + 1]], [boxes[4 * i + 2], boxes[4 * i + 3]]);
    if (span !== undefined) expectedHits.set(i, span[0]);
  }
  check(
    ray.hits.length === expectedHits.size,
    `grid: raycastAll found ${ray.hits.length} hits, brute force ${expectedHits.size}`,
  );
  for (const hit of ray.hits) {
    const distance = expectedHits.get(hit.item);
    check(
      distance !== undefined && Math.abs(distance - hit.distance) < 1e-6,
      `grid: hit ${hit.item} at ${hit.distance}, brute force says ${distance}`,
    );
  }

  // The ray's cells are drawn: inside each newly traversed cell, away from the ray line (and its labels),
  // the canvas got warmer than it was with the first ray.
  const fresh: Array<[number, number]> = [];
  const old = new Set<string>();
  for (let c = 0; c < before.cellList.length; c += 4) old.add(`${before.cellList[c]},${before.cellList[c + 1]}`);
  for (let c = 0; c < ray.cellList.length; c += 4) {
    const cx = ray.cellList[c];
    const cy = ray.cellList[c + 1];
    if (old.has(`${cx},${cy}`)) continue;
    let best: [number, number] = [0, 0];
    let bestDistance = -1;
    for (const [fx, fy] of [
      [0.2, 0.2],
      [0.8, 0.2],
      [0.2, 0.8],
      [0.8, 0.8],
    ]) {
      const x = (cx + fx) * cellSize;
      const y = (cy + fy) * cellSize;
      const distance = Math.abs((x - start[0]) * dir[1] - (y - start[1]) * dir[0]);
      if (distance > bestDistance) {
        bestDistance = distance;
        best = [x, y];
      }
    }
    fresh.push(best);
  }
  const warmer = await page.evaluate(
    ({ points, t }) => {
      const canvas = document.getElementById('canvas') as HTMLCanvasElement;
      const context = canvas.getContext('2d');
      const saved = (window as unknown as Record<string, unknown>).e2eBefore as ImageData | undefined;
      if (context === null || saved === undefined) return -1;
      const ratio = canvas.width / canvas.getBoundingClientRect().width;
      const now = context.getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (const [x, y] of points) {
        const px = Math.round((t.offsetX + x * t.scale) * ratio);
        const py = Math.round((t.offsetY + y * t.scale) * ratio);
        const i = (py * canvas.width + px) * 4;
        const warmthBefore = saved.data[i] - saved.data[i + 2];
        const warmthNow = now.data[i] - now.data[i + 2];
        if (warmthNow - warmthBefore > 30) count++;
      }
      return count;
    },
    { points: fresh, t: transform },
  );
  check(fresh.length >= 10, `grid: only ${fresh.length} newly traversed cells to sample`);
  check(
    warmer >= 0.8 * fresh.length,
    `grid: only ${warmer} of ${fresh.length} newly traversed cells are drawn in the ray's colour`,
  );

  // Click for a radius query and the k nearest; compare with brute force over the same boxes.
  const [cx, cy] = toScreen(520, 300);
  await page.mouse.click(cx, cy);
  await waitForFrames(page, 2);
  const query = await hook<{ x: number; y: number; radius: number; k: number; within: number[]; nearest: number[] }>(
    page,
    'h.query',
  );
  check(Math.abs(query.x - 520) < 2 && Math.abs(query.y - 300) < 2, `grid: query at (${query.x}, ${query.y})`);
  const distances: number[] = [];
  for (let i = 0; i < boxes.length / 4; i++) {
    const dx = Math.max(boxes[4 * i] - query.x, 0, query.x - boxes[4 * i + 2]);
    const dy = Math.max(boxes[4 * i + 1] - query.y, 0, query.y - boxes[4 * i + 3]);
    distances.push(Math.hypot(dx, dy));
  }
  const expected = distances.flatMap((d, i) => (d <= query.radius ? [i] : [])).sort((a, b) => a - b);
  const got = [...query.within].sort((a, b) => a - b);
  check(
    JSON.stringify(expected) === JSON.stringify(got),
    `grid: queryRadius returned ${JSON.stringify(got)}, brute force ${JSON.stringify(expected)}`,
  );
  check(query.nearest.length === Math.min(query.k, distances.length), 'grid: nearest returned the wrong count');
  const kth = [...distances].sort((a, b) => a - b)[query.k - 1];
  check(
    query.nearest.every((item) => distances[item] <= kth + 1e-9),
    `grid: nearest ${JSON.stringify(query.nearest)} includes an item farther than the k-th distance ${kth}`,
  );
  await page.screenshot({ path: join(outputDir, 'grid.png') });

  // Collision layers: with the toggle on, the radius query sees only blue items (category 2), exactly.
  await page.locator('#layers').check();
  await waitForFrames(page, 2);
  const layered = await hook<{ within: number[]; radius: number }>(page, 'h.query');
  const layers = await hook<{ mask: number; categories: number[] }>(page, 'h.layers');
  const expectedBlue = expected.filter((i) => (layers.categories[i] & layers.mask) !== 0);
  check(
    layered.radius === query.radius &&
      JSON.stringify([...layered.within].sort((a, b) => a - b)) === JSON.stringify(expectedBlue),
    `grid: with layers on, queryRadius returned ${JSON.stringify(layered.within)}, brute force ${JSON.stringify(expectedBlue)}`,
  );
  await page.locator('#layers').uncheck();

  // The measured multiplier table reproduces the "avg. cells to search" of Bitsquid's "Finding nearby stuff".
  const table = await hook<Array<{ multiplier: number; article: number; cells: number }>>(page, 'h.table');
  check(table.length === 6, `grid: multiplier table has ${table.length} rows`);
  for (const row of table) {
    check(
      Math.abs(row.cells - row.article) <= 0.05 * row.article,
      `grid: at m = ${row.multiplier} measured ${row.cells} cells per query, article says ${row.article}`,
    );
  }

  // The library's occupied-cell count agrees with the page's own count from the boxes.
  const counts = await hook<Record<string, number>>(page, 'h.cellCounts');
  check(
    counts.library === counts.page && counts.overflow === counts.pageOverflow,
    `grid: occupied cells / overflow items differ between the hash and the boxes: ${JSON.stringify(counts)}`,
  );

  // A new cell size rebuilds the hash with every item.
  await setRange(page, '#cell-size', 8);
  await waitForFrames(page, 2);
  const after = await hook<{ cellSize: number; itemCount: number }>(
    page,
    '({ cellSize: h.cellSize, itemCount: h.itemCount })',
  );
  check(
    after.cellSize === 8 && after.itemCount === boxes.length / 4,
    `grid: after the cell-size change got ${JSON.stringify(after)}`,
  );
  const counts2 = await hook<Record<string, number>>(page, 'h.cellCounts');
  check(
    counts2.library === counts2.page && counts2.overflow === counts2.pageOverflow && counts2.overflow > 0,
    `grid: at cell size 8 expected matching counts and some overflow items, got ${JSON.stringify(counts2)}`,
  );
  const ray2 = await hook<RayState>(page, 'h.ray');
  check(ray2.cells > ray.cells, `grid: smaller cells should put more cells on the ray (${ray2.cells} vs ${ray.cells})`);
  await page.screenshot({ path: join(outputDir, 'grid-small-cells.png') });
}

/**
 * The README's screenshot: the grid explorer with its seeded items at rest (`?still`), a ray dragged across the
 * world and a radius query clicked, always the same scene. Written to test-results/e2e/screenshot.png with what it
 * shows (e2e/screenshot.ts); compared with docs/screenshot.png, which is rewritten when stale, or under CI fails.
 */
async function testScreenshot(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/grid.html?still`);
  await waitForFrames(page, 2);
  check(!(await page.locator('#moving').isChecked()), 'screenshot: the items move despite ?still');
  const box = await page.locator('#canvas').boundingBox();
  check(box !== null, 'screenshot: canvas has no layout box');
  const { scale, offsetX, offsetY } = await hook<{ scale: number; offsetX: number; offsetY: number }>(page, 'h.view');
  const at = (x: number, y: number): [number, number] => [box.x + offsetX + x * scale, box.y + offsetY + y * scale];
  await page.mouse.move(...at(40, 610));
  await page.mouse.down();
  await page.mouse.move(...at(960, 40), { steps: 12 });
  await page.mouse.up();
  await page.mouse.click(...at(520, 300));
  await waitForFrames(page, 12); // the summaries refresh every sixth frame
  const scene = await hook<unknown>(
    page,
    `({ cellSize: h.cellSize, items: h.itemCount,
        ray: { cells: h.ray.cells, hits: h.ray.hits.map((hit) => [hit.item, Math.round(hit.distance * 1000) / 1000]) },
        query: { within: [...h.query.within].sort((a, b) => a - b), nearest: h.query.nearest, k: h.query.k } })`,
  );
  const shows = fingerprint(root, join(root, 'demo'), 'grid', scene);
  const png = withText(await page.screenshot(), SCREENSHOT_KEY, JSON.stringify(shows));
  await writeFile(join(outputDir, 'screenshot.png'), png);
  const committed = join(root, 'docs', 'screenshot.png');
  const held = await readFile(committed).then(
    (bytes) => textOf(bytes, SCREENSHOT_KEY),
    () => undefined,
  );
  const stale = staleness(held, shows);
  if (stale.length === 0 && !updateScreenshot) return;
  check(
    process.env.CI === undefined || updateScreenshot,
    `screenshot: docs/screenshot.png is stale (${stale.join('; ')}): run npm run test:e2e outside CI, which rewrites it, and commit it`,
  );
  await writeFile(committed, png);
  console.log(`e2e: rewrote docs/screenshot.png (${stale.length > 0 ? stale.join('; ') : '--update-screenshot'})`);
}

async function testFluid(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/fluid.html`);
  await checkAdvances(page, 'fluid');
  // Let the dam break before the screenshot.
  await waitForFrames(page, 120);
  // PointGrid3D's pairs of the last step equal brute force over the positions it searched.
  const search = await hook<{ positions: number[]; pairs: number[]; radius: number }>(
    page,
    '({ ...h.lastSearch(), radius: h.radius })',
  );
  const { positions, pairs, radius } = search;
  const n = positions.length / 3;
  const r2 = radius * radius;
  const found = new Set<number>();
  for (let p = 0; p < pairs.length; p += 2) {
    const i = Math.min(pairs[p], pairs[p + 1]);
    const j = Math.max(pairs[p], pairs[p + 1]);
    check(i !== j && !found.has(i * n + j), `fluid: PointGrid3D reported pair (${i}, ${j}) twice or with itself`);
    found.add(i * n + j);
  }
  let expected = 0;
  let missing = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = positions[3 * j] - positions[3 * i];
      const dy = positions[3 * j + 1] - positions[3 * i + 1];
      const dz = positions[3 * j + 2] - positions[3 * i + 2];
      const d2 = dx * dx + dy * dy + dz * dz;
      // A pair within rounding of the radius may fall either way.
      if (Math.abs(d2 - r2) <= 1e-9 * r2) {
        found.delete(i * n + j);
        continue;
      }
      if (d2 < r2) {
        expected++;
        if (!found.delete(i * n + j)) missing++;
      }
    }
  }
  check(
    expected > 0 && missing === 0 && found.size === 0,
    `fluid: PointGrid3D pairs differ from brute force over ${n} particles: ${missing} missing, ${found.size} extra, ${expected} expected`,
  );
  await page.screenshot({ path: join(outputDir, 'fluid.png') });
}

/**
 * d3 page: both simulations of the 100,000-node beeswarm advance in their
 * workers, and after the same ticks ours leaves no more overlapping pairs
 * than d3-force's own forceCollide. The workers count the pairs with a grid;
 * the grid count must equal brute force on a smaller beeswarm, counted both
 * ways in the page. d3's two ticks take a few seconds at 100,000 nodes.
 */
async function testD3(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/d3.html`);
  await waitForFrames(page, 2);
  const count = await hook<number>(page, 'h.count');
  check(count === 100_000, `d3: the page lays out ${count} nodes, expected 100,000`);
  const counter = await hook<{ grid: number; brute: number }>(page, 'h.verifyCounter(3000, 2)');
  check(
    counter.grid === counter.brute && counter.brute > 0,
    `d3: the grid counted ${counter.grid} overlapping pairs where brute force counts ${counter.brute}`,
  );
  await page.waitForFunction('window.__demo.ticks.ours >= 1', undefined, { timeout: WAIT_MS, polling: 50 });
  const before = await hook<number[]>(page, 'h.positions(32)');
  await page.waitForFunction(
    'window.__demo.overlaps.ours !== undefined && window.__demo.overlaps.d3 !== undefined',
    undefined,
    { timeout: WAIT_MS, polling: 100 },
  );
  const { overlaps, ticks, checkTick } = await hook<{
    overlaps: { ours: number; d3: number };
    ticks: { ours: number; d3: number };
    checkTick: number;
  }>(page, '({ overlaps: h.overlaps, ticks: h.ticks, checkTick: h.checkTick })');
  check(
    overlaps.d3 > 0,
    `d3: d3's forceCollide left no overlapping pair after tick ${checkTick}: the comparison says nothing`,
  );
  check(
    overlaps.ours <= overlaps.d3,
    `d3: after tick ${checkTick} ours leaves ${overlaps.ours} overlapping pairs, d3's forceCollide ${overlaps.d3}`,
  );
  check(ticks.ours >= checkTick && ticks.d3 >= checkTick, `d3: ticks ${JSON.stringify(ticks)}`);
  const after = await hook<number[]>(page, 'h.positions(32)');
  check(
    before.length === 64 && after.some((value, i) => value !== before[i]) && after.every(Number.isFinite),
    'd3: the nodes did not move, or a position is not finite',
  );
  const rates = await hook<{ ours: number; d3: number }>(page, 'h.rates');
  check(rates.ours > 0 && rates.d3 > 0, `d3: ticks per second not shown: ${JSON.stringify(rates)}`);
  await page.screenshot({ path: join(outputDir, 'd3.png') });
}

const TESTS: Array<[string, (page: Page, origin: string) => Promise<void>]> = [
  ['index', testIndex],
  ['particles', testParticles],
  ['threads', testThreads],
  ['grid', testGrid],
  ['screenshot', testScreenshot],
  ['fluid', testFluid],
  ['gpu', testGpu],
  ['d3', testD3],
];

/**
 * GPU page: WebGPU on SwiftShader must be found, frames must advance, the
 * grid's pairs (read back from the GPU) must equal a brute-force search over
 * the positions the grid was built from, and so must the density pass's sums;
 * the canvas is drawn at its layout size, the particles spread across it.
 */
async function testGpu(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/gpu.html`);
  await page.waitForFunction('window.__demo !== undefined && window.__demo.webgpu', undefined, { timeout: 30_000 });
  await waitForFrames(page, 3);
  const { count, radius } = await hook<{ count: number; radius: number }>(
    page,
    '({ count: h.count, radius: h.radius })',
  );
  const { positions, density, pairs } = await hook<{ positions: number[]; density: number[]; pairs: number[] }>(
    page,
    'h.snapshot()',
  );
  if (positions.length !== 4 * count) throw new Failure(`gpu: ${positions.length / 4} positions, expected ${count}`);
  // Pairs within float32 rounding of the radius may go either way (the GPU tests in float32): "maybe".
  const sure = new Set<number>();
  const maybe = new Set<number>();
  for (let i = 0; i < count; i++) {
    for (let j = i + 1; j < count; j++) {
      const dx = positions[4 * i] - positions[4 * j];
      const dy = positions[4 * i + 1] - positions[4 * j + 1];
      const dz = positions[4 * i + 2] - positions[4 * j + 2];
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 <= radius * radius - 1e-5) sure.add(i * count + j);
      else if (d2 <= radius * radius + 1e-5) maybe.add(i * count + j);
    }
  }
  if (sure.size === 0) throw new Failure('gpu: no pairs within the radius, the check would be empty');
  const got = new Set<number>();
  for (let k = 0; k < pairs.length; k += 2) {
    const key = pairs[k] * count + pairs[k + 1];
    if (pairs[k] >= pairs[k + 1] || got.has(key))
      throw new Failure(`gpu: pair ${pairs[k]}, ${pairs[k + 1]} out of order or twice`);
    if (!sure.has(key) && !maybe.has(key))
      throw new Failure(`gpu: pair ${pairs[k]}, ${pairs[k + 1]} is farther than the radius`);
    got.add(key);
  }
  for (const key of sure) {
    if (!got.has(key))
      throw new Failure(`gpu: pair ${Math.floor(key / count)}, ${key % count} missing from the GPU grid`);
  }
  // The GPU guide's density pass (nested loops, one invocation per sorted slot), mass 1: the poly6 kernel's
  // 315 / (64 pi h^9) times the sum of (h^2 - d^2)^3 over every particle within h, itself included, in float32.
  const r2 = radius * radius;
  const poly6 = 315 / (64 * Math.PI * radius ** 9);
  for (let i = 0; i < count; i++) {
    let rho = 0;
    for (let j = 0; j < count; j++) {
      const dx = positions[4 * i] - positions[4 * j];
      const dy = positions[4 * i + 1] - positions[4 * j + 1];
      const dz = positions[4 * i + 2] - positions[4 * j + 2];
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 <= r2) rho += poly6 * (r2 - d2) ** 3;
    }
    if (!(Math.abs(density[i] - rho) <= 1e-4 * Math.max(1, rho)))
      throw new Failure(`gpu: particle ${i}'s density is ${density[i]}, brute force ${rho}`);
  }
  // Drawn at the canvas's layout size, not a fixed backing store stretched to it, with the particles across it.
  const drawn = await page.evaluate(() => {
    const canvas = document.getElementById('canvas') as HTMLCanvasElement;
    const box = canvas.getBoundingClientRect();
    const pixels = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
    let left = canvas.width;
    let right = -1;
    let topmost = canvas.height;
    let bottom = -1;
    for (let y = 0; y < canvas.height; y++) {
      for (let x = 0; x < canvas.width; x++) {
        if (pixels[4 * (y * canvas.width + x)] === 0x0b) continue; // the background, #0b1020
        left = Math.min(left, x);
        right = Math.max(right, x);
        topmost = Math.min(topmost, y);
        bottom = Math.max(bottom, y);
      }
    }
    return {
      width: canvas.width,
      height: canvas.height,
      boxWidth: box.width,
      boxHeight: box.height,
      left,
      right,
      topmost,
      bottom,
    };
  });
  if (drawn.width !== Math.round(drawn.boxWidth) || drawn.height !== Math.round(drawn.boxHeight))
    throw new Failure(
      `gpu: a ${drawn.width}x${drawn.height} canvas drawn into a ${drawn.boxWidth}x${drawn.boxHeight} box`,
    );
  const spreadX = (drawn.right - drawn.left) / drawn.width;
  const spreadY = (drawn.bottom - drawn.topmost) / drawn.height;
  if (!(spreadX > 0.9 && spreadY > 0.9))
    throw new Failure(
      `gpu: the particles cover ${spreadX.toFixed(2)} of the width and ${spreadY.toFixed(2)} of the height`,
    );
  await page.screenshot({ path: join(outputDir, 'gpu.png') });
}

async function runTest(
  context: BrowserContext,
  origin: string,
  name: string,
  body: (page: Page, origin: string) => Promise<void>,
): Promise<string | undefined> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  // An uncaught exception usually stops the page's frame loop: fail at once rather than at the next wait's timeout.
  let stopOnPageError: (error: Error) => void = () => {};
  const pageFailed = new Promise<never>((_, reject) => {
    stopOnPageError = reject;
  });
  pageFailed.catch(() => {});
  page.on('pageerror', (error) => {
    problems.push(`page error: ${error.message}`);
    stopOnPageError(new Failure('stopped at the first page error'));
  });
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  let failure: string | undefined;
  try {
    await Promise.race([body(page, origin), pageFailed]);
  } catch (error) {
    failure = error instanceof Failure ? error.message : String(error instanceof Error ? error.stack : error);
    await page.screenshot({ path: join(outputDir, `${name}-failure.png`) }).catch(() => {});
  }
  await page.close();
  if (problems.length > 0) failure = [failure, ...problems].filter(Boolean).join('\n  ');
  return failure;
}

async function main(): Promise<number> {
  const built = devMode || (await stat(join(distDir, 'index.html')).catch(() => undefined)) !== undefined;
  if (!built) {
    console.error(`e2e: ${distDir} has no index.html; run "npm run demo:build" first (npm run test:e2e does).`);
    return 2;
  }
  if ((await stat(CHROMIUM_PATH).catch(() => undefined)) === undefined) {
    console.error(
      `e2e: no Chromium at ${CHROMIUM_PATH}; install it with "apt-get install -y chromium" or set CHROMIUM_PATH.`,
    );
    return 2;
  }
  await mkdir(outputDir, { recursive: true });
  const { origin, close } = devMode ? await serveDev() : await serveBuild();
  const profile = await mkdtemp(join(tmpdir(), 'spatialhash-e2e-'));
  let context: BrowserContext | undefined;
  let passed = 0;
  let failed = 0;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1360, height: 800 },
      deviceScaleFactor: 1,
    });
    // Page names on the command line run just those pages.
    const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
    for (const [name, body] of TESTS) {
      if (only.length > 0 && !only.includes(name)) continue;
      const started = Date.now();
      const failure = await runTest(context, origin, name, body);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (failure === undefined) {
        passed++;
        console.log(`ok   ${name} (${seconds} s)`);
      } else {
        failed++;
        console.log(`FAIL ${name} (${seconds} s)\n  ${failure}`);
      }
    }
  } finally {
    await context?.close();
    await close();
    await rm(profile, { recursive: true, force: true });
  }
  console.log('Screenshots are in test-results/e2e/.');
  // Alone on the last line, so CI logs show the count plainly.
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('e2e: could not run:', error);
    process.exitCode = 2;
  },
);
