import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const demoDir = fileURLToPath(new URL('.', import.meta.url));
const page = (name: string): string => fileURLToPath(new URL(`./${name}.html`, import.meta.url));

/**
 * SharedArrayBuffer (the particles page's threads control) needs a
 * cross-origin isolated page: these two headers on every response.
 */
const CROSS_ORIGIN_ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * The demo is a multi-page app rooted in demo/ that imports the library from
 * src/ directly, so `npm start` needs no build step and edits to src/ reload live.
 */
export default defineConfig({
  root: demoDir,
  // Relative asset URLs let demo-dist/ be served from any path or opened by the e2e server.
  base: './',
  build: {
    outDir: fileURLToPath(new URL('../demo-dist', import.meta.url)),
    emptyOutDir: true,
    // The demo shows the library's speed: keep the bundle readable in devtools profiles.
    minify: false,
    target: 'es2022',
    rollupOptions: {
      input: {
        index: page('index'),
        particles: page('particles'),
        grid: page('grid'),
        fluid: page('fluid'),
        gpu: page('gpu'),
        d3: page('d3'),
      },
    },
  },
  server: { open: false, headers: CROSS_ORIGIN_ISOLATION },
  preview: { headers: CROSS_ORIGIN_ISOLATION },
  // The PointGridWorkers worker imports modules of its own: bundle it as an ES module worker.
  worker: { format: 'es' },
});
