import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Tests exercise the SDK's sources, never a stale build of packages/client (processes spawned
  // from dist/ use the built package; the package test checks the packed tarball itself).
  resolve: { alias: { '@results-api/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)) } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration suites each start their own server and database; two cores, so keep it modest.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] } },
      {
        // The API integration suites again, every app on PostgreSQL (skipped with a warning
        // when PostgreSQL is unreachable outside CI).
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/smoke.test.ts', 'test/results/**/*.test.ts', 'test/contract/**/*.test.ts', 'test/legacy/**/*.test.ts', 'test/details/**/*.test.ts', 'test/access/**/*.test.ts', 'test/oauth/token-endpoint*.test.ts', 'test/media/**/*.test.ts', 'test/admin/**/*.test.ts', 'test/user-auth/**/*.test.ts', 'test/webhooks/api.test.ts', 'test/webhooks/delivery.test.ts', 'test/webhooks/documented-receivers.test.ts', 'test/mcp/**/*.test.ts', 'test/search/**/*.test.ts', 'test/scale/mcp-workers.test.ts'],
          env: { RESULTS_API_TEST_STORE: 'postgres' },
        },
      },
    ],
  },
});
