import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll } from 'vitest';
import { buildApp, type AppDeps } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { Metrics } from '../../src/observability/metrics.js';
import { listenForMetrics } from '../../src/serve/metrics-listener.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { freshPostgresSchema } from './postgres.js';
import { recordResponseConformance } from './response-conformance.js';
import { seedClient, type SeededClient } from './seed.js';

/** In the `postgres` test project: a fresh schema per app (null elsewhere, or when skipping). */
async function postgresForThisProject(): Promise<{ url: string; drop(): Promise<void> } | null> {
  if (process.env.RESULTS_API_TEST_STORE !== 'postgres') return null;
  return freshPostgresSchema('t_app'); // throws in CI when unreachable; warns and skips elsewhere
}

export interface TestApp {
  app: FastifyInstance;
  runtime: Runtime;
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** The operations listener's /metrics, on its own port as in production. */
  metricsUrl: string;
  databaseUrl: string;
  close(): Promise<void>;
}

/**
 * Starts the real app on an ephemeral port (or `port`) over a fresh SQLite file, or a fresh
 * PostgreSQL schema when the suite runs in the `postgres` project (RESULTS_API_TEST_STORE), or
 * the given DATABASE_URL. `env` overrides configuration the way the environment would. Every response
 * is checked against the OpenAPI document; `close()` fails if any did not conform.
 */
export async function startTestApp(
  options: { env?: Record<string, string>; clock?: Clock; logger?: AppDeps['logger']; port?: number; onRoute?: AppDeps['onRoute'] } = {},
): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-test-'));
  const postgres = options.env?.DATABASE_URL ? null : await postgresForThisProject();
  const databaseUrl = options.env?.DATABASE_URL ?? postgres?.url ?? `sqlite:${join(dir, 'results.db')}`;
  // PUBLIC_URL is fixed before the port is known; tests use `url` to connect.
  // Media in the test's own directory, never the working tree's ./data/media.
  const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_URL: 'http://127.0.0.1:8080', MEDIA_URL: `file:${join(dir, 'media')}`, ...options.env, DATABASE_URL: databaseUrl });
  const runtime = await openRuntime(config, options.clock ? { clock: options.clock } : {});
  const metrics = new Metrics(() => runtime.store.database.poolStats?.());
  const app = await buildApp({ ...runtime, metrics, logger: options.logger, onRoute: options.onRoute });
  const conformance = recordResponseConformance(app);
  const address = await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const metricsListener = await listenForMetrics({ host: '127.0.0.1', port: 0 }, config.connections, () => metrics.registry.metrics(), app.log);
  return {
    app,
    runtime,
    url: address,
    metricsUrl: `${metricsListener.address}/metrics`,
    databaseUrl,
    close: async () => {
      await metricsListener.close();
      await app.close();
      await runtime.close();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
      const violations = conformance.violations();
      if (violations.length > 0) {
        throw new Error(`Responses that do not conform to the OpenAPI document:\n${violations.join('\n')}`);
      }
    },
  };
}

/**
 * The setup most suites share, called at a file's top level:
 * `const { t, client } = await startSeededApp({ clock });` starts one app for the file with one
 * seeded API user and credential, and closes it after the file's tests (failing them if any
 * response broke the OpenAPI document).
 */
export async function startSeededApp(options: Parameters<typeof startTestApp>[0] = {}): Promise<{ t: TestApp; client: SeededClient }> {
  const t = await startTestApp(options);
  afterAll(() => t.close());
  return { t, client: await seedClient(t.runtime) };
}
