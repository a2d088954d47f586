import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Property tests run many seeded cases; the 2-core CI machine needs headroom.
    testTimeout: 60_000,
  },
});
