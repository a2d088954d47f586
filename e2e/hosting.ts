/**
 * The worker pool as pages are really hosted, in headless Chromium: the
 * built package (dist/esm, bundled for the page by esbuild as a user's
 * `esbuild --bundle --format=esm` would) served with and without
 * cross-origin isolation and under Content-Security-Policies, checking what
 * docs/guides/threads.md says:
 *
 * - isolated (COOP/COEP): shared mode, results equal the one-thread calls;
 * - not isolated: copy mode, the same results; `shared: true` grids throw an Error naming both headers;
 * - `worker-src 'self'` (no blob:): a clear Error naming the blob: URL and the CSP to allow;
 * - `worker-src 'self' blob:`, or `script-src 'self' blob:` without worker-src: the default workers run;
 * - createWorker with a served copy of dist/esm/workers/worker.js runs under `worker-src 'self'`.
 *
 * Part of `npm run test:e2e` (which builds dist/ first); alone: `npx tsx e2e/hosting.ts` after `npm run build`.
 * CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './serve.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The page's script: builds grids, runs a pool, and reports what happened as JSON in document.title. */
const pageScript = `
import { PointGrid2D, PointGrid3D } from './dist/esm/index.js';
import { PointGridWorkers } from './dist/esm/workers/index.js';

const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

async function run() {
  const options = JSON.parse(new URLSearchParams(location.search).get('options') ?? '{}');
  const report = { isolated: globalThis.crossOriginIsolated === true };
  if (options.createWorker) options.createWorker = () => new Worker('/worker.js');
  let pool;
  try {
    pool = new PointGridWorkers({ threads: 2, ...options });
  } catch (error) {
    report.constructorError = String(error);
    return report;
  }
  report.shared = pool.shared;
  try {
    const n = 4000;
    const positions = new Float64Array(3 * n).map((_, k) => ((k * 7919) % 1000) / 60);
    try {
      new PointGrid2D(new Float64Array([0, 0, 1, 1]), { cellSize: 1, shared: true });
      report.sharedGrid = 'built';
    } catch (error) {
      report.sharedGrid = String(error);
    }
    const grid = new PointGrid3D(positions, { cellSize: 1, shared: pool.shared });
    await pool.rebuild(grid, positions.map((v) => v * 0.9));
    const want = grid.neighbors(1);
    const got = await pool.neighbors(grid, 1);
    report.neighborsEqual = same(got.offsets, want.offsets) && same(got.indices, want.indices);
    report.pairsEqual = same(await pool.pairs(grid, 1), grid.pairs(1));
    report.entries = want.indices.length;
  } catch (error) {
    report.callError = String(error);
  } finally {
    pool.close();
  }
  return report;
}

run().then(
  (report) => { document.title = JSON.stringify(report); },
  (error) => { document.title = JSON.stringify({ unexpected: String(error) }); },
);
`;

interface Report {
  isolated?: boolean;
  shared?: boolean;
  constructorError?: string;
  callError?: string;
  sharedGrid?: string;
  neighborsEqual?: boolean;
  pairsEqual?: boolean;
  entries?: number;
  unexpected?: string;
}

interface Case {
  name: string;
  headers: Record<string, string>;
  options?: Record<string, unknown>;
  check(report: Report): string | undefined;
}

const ISOLATED = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
const works = (shared: boolean) => (r: Report) =>
  r.shared === shared && r.neighborsEqual === true && r.pairsEqual === true && (r.entries ?? 0) > 0
    ? undefined
    : 'expected the pool to run and match the one-thread calls';

const cases: Case[] = [
  { name: 'cross-origin isolated: shared mode', headers: ISOLATED, check: works(true) },
  {
    name: 'not isolated: copy mode, shared grids refused with the headers named',
    headers: {},
    check: (r) =>
      works(false)(r) ??
      (/Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp/.test(r.sharedGrid ?? '')
        ? undefined
        : 'expected shared: true grids to throw naming both headers'),
  },
  {
    name: "CSP worker-src 'self' (no blob:): an Error naming the blob: URL and what to allow",
    headers: { ...ISOLATED, 'content-security-policy': "worker-src 'self'" },
    check: (r) =>
      /blob:http:\/\/127\.0\.0\.1.*worker-src blob:/.test(`${r.constructorError ?? ''}${r.callError ?? ''}`)
        ? undefined
        : 'expected an Error naming the blob: URL and worker-src blob:',
  },
  {
    name: "CSP worker-src 'self' blob:: the default workers run",
    headers: { ...ISOLATED, 'content-security-policy': "worker-src 'self' blob:" },
    check: works(true),
  },
  {
    name: "CSP script-src 'self' blob: without worker-src: the default workers run",
    headers: { ...ISOLATED, 'content-security-policy': "script-src 'self' blob:" },
    check: works(true),
  },
  {
    name: "createWorker with the package's worker.js served by the page's origin, under worker-src 'self'",
    headers: { ...ISOLATED, 'content-security-policy': "worker-src 'self'" },
    options: { createWorker: true },
    check: works(true),
  },
  {
    name: 'createWorker with the same, not isolated: copy mode',
    headers: {},
    options: { createWorker: true },
    check: works(false),
  },
];

async function main(): Promise<void> {
  const bundled = await build({
    stdin: { contents: pageScript, resolveDir: root, loader: 'js' },
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'warning',
  });
  const pageJs = bundled.outputFiles[0].text;
  const workerJs = await readFile(join(root, 'dist/esm/workers/worker.js'));
  let headers: Record<string, string> = {};
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const body =
      path === '/page.js'
        ? pageJs
        : path === '/worker.js'
          ? workerJs
          : '<!doctype html><script type="module" src="/page.js"></script>';
    const type = path.endsWith('.js') ? 'text/javascript' : 'text/html';
    response.writeHead(200, { 'content-type': type, ...headers }).end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  let failures = 0;
  try {
    for (const c of cases) {
      headers = c.headers;
      const page = await browser.newPage();
      try {
        const query = encodeURIComponent(JSON.stringify(c.options ?? {}));
        await page.goto(`${origin}/?options=${query}`);
        await page.waitForFunction(() => document.title.startsWith('{'), undefined, { timeout: 30_000 });
        const report = JSON.parse(await page.title()) as Report;
        const problem = report.unexpected ?? c.check(report);
        if (problem === undefined) {
          console.log(`ok   ${c.name}`);
        } else {
          failures++;
          console.log(`FAIL ${c.name}: ${problem}\n     ${JSON.stringify(report)}`);
        }
      } finally {
        await page.close();
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  if (failures > 0) {
    console.error(`${failures} of ${cases.length} hosting checks failed`);
    process.exit(1);
  }
  console.log(`all ${cases.length} hosting checks passed`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
