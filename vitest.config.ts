import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration suites each start their own server and database; two cores, so keep it modest.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
