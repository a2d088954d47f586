import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./src', import.meta.url));

export default defineConfig({
  resolve: {
    // The docs' code blocks (test/docs/snippets.test.ts) import the package by name, as users do:
    // `spatialhash` and each subpath `spatialhash/<name>` resolve to the sources, src/<name>/index.ts.
    alias: [
      { find: /^spatialhash$/, replacement: `${src}/index.ts` },
      { find: /^spatialhash\/([\w-]+)$/, replacement: `${src}/$1/index.ts` },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'packages/cli/test/**/*.test.ts'],
    // Property tests run many seeded cases; the 2-core CI machine needs headroom.
    testTimeout: 60_000,
  },
});
