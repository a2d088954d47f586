/**
 * Runs the GPU tests' page (page.ts) in Debian's headless Chromium on
 * SwiftShader (`--enable-unsafe-webgpu --use-webgpu-adapter=swiftshader`),
 * served from localhost (WebGPU needs a secure context). Chromium rather than
 * Dawn for Node (the `webgpu` package): on this Debian 12 machine, dawn.node
 * 0.6 on chromium's SwiftShader ICD crashed the process (SIGSEGV, futex and
 * mutex assertions) in most runs, even for an empty submit, while Chromium's
 * own GPU process runs the same shaders reliably. A likely cause, found
 * later: Dawn's instance dies when the object create() returned is
 * collected, and pending work then never settles or crashes; bench/gpu-dawn.ts
 * keeps it referenced and has run through SwiftShader in Node, but not often
 * enough to move the tests. No adapter is an error, never a skip.
 *
 * @module
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import type { GridAnswer, GridRequest } from './page.js';

/** Debian's chromium package; the tests never download a browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface GpuPage {
  answer(request: GridRequest): Promise<GridAnswer>;
  /** Calls the page's global function `name` with `arg` (JSON-copied both ways). */
  call<T>(name: string, arg?: unknown): Promise<T>;
  page: Page;
  close(): Promise<void>;
}

/** Bundles a page module (the tests' page.ts by default, with src/webgpu) into one ES module. */
async function bundle(entry: URL): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'spatialhash-gpu-test-'));
  try {
    await build({
      configFile: false,
      logLevel: 'silent',
      build: {
        outDir: out,
        emptyOutDir: true,
        minify: false,
        lib: { entry: fileURLToPath(entry), formats: ['es'], fileName: 'page' },
      },
    });
    return readFileSync(join(out, 'page.js'), 'utf8');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Starts the server and the browser and loads `entry` (the GPU tests' page by
 * default; bench/gpu.ts passes its own), ready once the page has put `ready`
 * on globalThis.
 */
export async function openGpuPage(
  entry = new URL('./page.ts', import.meta.url),
  ready = 'gridAnswer',
): Promise<GpuPage> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`The GPU tests need Debian's chromium package (${CHROMIUM} is missing): apt-get install chromium`);
  }
  const script = await bundle(entry);
  const server: Server = createServer((request, response) => {
    if (request.url === '/page.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      response.end(script);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>spatialhash GPU tests</title><script type="module" src="/page.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'],
    });
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction((name) => name in globalThis, ready);
    const opened = browser;
    return {
      page,
      answer: (request) =>
        page.evaluate(
          (r) => (globalThis as unknown as { gridAnswer(r: GridRequest): Promise<GridAnswer> }).gridAnswer(r),
          request,
        ),
      call: <T>(name: string, arg?: unknown) =>
        page.evaluate(
          ([n, a]) => (globalThis as unknown as Record<string, (a: unknown) => Promise<T>>)[n as string](a),
          [name, arg] as const,
        ) as Promise<T>,
      async close() {
        await opened.close();
        server.close();
      },
    };
  } catch (error) {
    await browser?.close();
    server.close();
    throw error;
  }
}
