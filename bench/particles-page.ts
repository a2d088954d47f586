/**
 * `npm run bench:page`: the particles page's own comparison (issue 13), in
 * headless Chromium. The page, at 100,000 balls in SpatialHash2D mode, times
 * every frame's updates + forEachPair and, every tenth frame, PointGrid2D's
 * rebuild + forEachPair over the same balls, and shows both (smoothed). This
 * reads the two figures from the page's `window.__demo` hook every few seconds
 * and prints each sample with its ratio, then the median and the range.
 *
 * Builds nothing itself: the npm script runs `demo:build` first. Samples and
 * spacing: `SAMPLES` (default 12) and `EVERY_MS` (default 2500). The times are
 * Chromium's V8 on this machine's CPU; the page draws too, which the timed
 * parts exclude.
 *
 * @module
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, serve } from '../e2e/serve.js';
import { environment, median } from './harness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const distDir = join(root, 'demo-dist');
const samples = Number(process.env.SAMPLES ?? 12);
const everyMs = Number(process.env.EVERY_MS ?? 2500);

interface Figures {
  searchMs: number;
  referenceMs: number | undefined;
}

async function main(): Promise<number> {
  if ((await stat(join(distDir, 'particles.html')).catch(() => undefined)) === undefined) {
    console.error(
      `bench:page: ${distDir} has no particles.html; run "npm run demo:build" first (npm run bench:page does).`,
    );
    return 2;
  }
  const { server, origin } = await serve(distDir);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 800 } });
    await page.goto(`${origin}/particles.html`);
    // The count slider's top end is 100,000 balls.
    await page.locator('#count').fill('1000');
    await page.locator('input[name="method"][value="hash"]').check();
    const count = await page.evaluate('window.__demo.count');
    if (count !== 100_000) throw new Error(`bench:page: the page simulates ${count} balls, not 100,000`);
    // Warm-up: both timings are smoothed averages, and the JIT settles first.
    await page.waitForTimeout(4000);
    console.log(
      `# particles page, SpatialHash2D mode, 100,000 balls\n\n${environment()}; Chromium ${browser.version()}\n`,
    );
    console.log('| sample | SpatialHash2D updates + forEachPair ms | PointGrid2D rebuild + forEachPair ms | ratio |');
    console.log('| --- | --- | --- | --- |');
    const ratios: number[] = [];
    for (let k = 1; k <= samples; k++) {
      await page.waitForTimeout(everyMs);
      const f = (await page.evaluate('window.__demo.figures')) as Figures;
      if (f.referenceMs === undefined || !(f.referenceMs > 0))
        throw new Error('bench:page: the page shows no PointGrid2D time');
      const ratio = f.searchMs / f.referenceMs;
      ratios.push(ratio);
      console.log(`| ${k} | ${f.searchMs.toFixed(2)} | ${f.referenceMs.toFixed(2)} | ${ratio.toFixed(2)} |`);
    }
    console.log(
      `\nratio median ${median(ratios).toFixed(2)}, range ${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)} (issue 13 asks for at most 2)`,
    );
    return 0;
  } finally {
    await browser.close();
    await new Promise<void>((done) => server.close(() => done()));
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('bench:page: could not run:', error);
    process.exitCode = 2;
  },
);
