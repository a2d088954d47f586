// webpack 5's plain setup: src/main.js bundled into public/, next to index.html, which the dev server serves.
import { resolve } from 'node:path';

export default {
  entry: './src/main.js',
  output: { path: resolve(import.meta.dirname, 'public') },
  devServer: {
    // SharedArrayBuffer (the pool's shared mode) needs a cross-origin isolated page.
    headers: {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    },
  },
};
