/**
 * Redis for tests: like test/helpers/postgres.ts, unreachable means skipped with a visible
 * warning on a laptop, and a failure in CI (CI=true).
 */
import { Redis } from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export function redisUrlForTests(): string {
  const url = process.env.REDIS_URL;
  return url && /^rediss?:\/\//.test(url) ? url : DEFAULT_REDIS_URL;
}

let probe: Promise<string | null> | undefined;

export function requireRedis(): Promise<string | null> {
  probe ??= (async () => {
    const url = redisUrlForTests();
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 3000, retryStrategy: () => null });
    try {
      await client.connect();
      await client.ping();
      return url;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (process.env.CI === 'true') throw new Error(`Redis not reachable at ${url} (${reason}); CI=true, so this fails instead of skipping`);
      console.warn(`Redis not reachable at ${url} (${reason}), skipping`);
      return null;
    } finally {
      client.disconnect();
    }
  })();
  return probe;
}
