/**
 * What the end-to-end test and the demo page's bench share: which Chromium
 * to drive and with which flags on these machines, and a static server for
 * the built demo, with the cross-origin isolation headers the threads
 * control needs.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, normalize, resolve, sep } from 'node:path';

/** Debian's Chromium, which the e2e test and the page bench drive (never a downloaded browser); CHROMIUM_PATH overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Chromium flags for these machines: no network (without them Chromium tries to reach Google and stalls or logs errors), WebGPU on SwiftShader. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // WebGPU for gpu.html, on SwiftShader (a CPU emulation: no GPU needed).
  '--enable-unsafe-webgpu',
  '--use-webgpu-adapter=swiftshader',
];

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

/**
 * A static file server for `dir` (demo-dist/) on 127.0.0.1, at a port the OS picks; `isolated: false` leaves
 * out the cross-origin isolation headers, as a static host that sets none would.
 */
export async function serve(dir: string, { isolated = true } = {}): Promise<{ server: Server; origin: string }> {
  const isolation = isolated
    ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' }
    : {};
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    let path = decodeURIComponent(url.pathname);
    if (path.endsWith('/')) path += 'index.html';
    const file = resolve(dir, normalize(`.${path}`));
    if (file !== dir && !file.startsWith(dir + sep)) {
      response.writeHead(403).end();
      return;
    }
    readFile(file).then(
      (body) => {
        response.writeHead(200, {
          'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
          // Cross-origin isolation, as the Vite server and preview send it: SharedArrayBuffer for the threads control.
          ...isolation,
        });
        response.end(body);
      },
      () => response.writeHead(404).end('not found'),
    );
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', done);
  });
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}` };
}
