import type { AppDeps } from './app.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { MemoryRateLimiter, type RateLimiter } from './http/rate-limiter.js';
import { AccessTokenVerifier } from './oauth/access-tokens.js';
import { resolveAuthorizationServers } from './oauth/authorization-servers.js';
import { SecretHasher } from './oauth/client-secrets.js';
import { KeyRing } from './oauth/signing-keys.js';
import { openStore } from './store/open-store.js';

export type Runtime = Omit<AppDeps, 'logger'> & { close(): Promise<void> };

/**
 * Opens the database named by the config, migrates it, and loads what the service keeps
 * there (signing keys, the secret-hash key, the custom server's id). The server and every
 * CLI command start from here, so they always agree.
 */
export async function openRuntime(config: Config, options: { clock?: Clock } = {}): Promise<Runtime> {
  const clock = options.clock ?? systemClock;
  const store = await openStore(config.databaseUrl, clock);
  try {
    await store.migrate();
    const servers = await resolveAuthorizationServers(config, store);
    const hasher = await SecretHasher.load(store);
    const keys = new KeyRing(store, clock, config.tokenTtlSeconds * 1000);
    await keys.init();
    const rateLimiter: RateLimiter = new MemoryRateLimiter(clock);
    return {
      config,
      store,
      clock,
      keys,
      hasher,
      servers,
      rateLimiter,
      verifier: new AccessTokenVerifier(servers, keys, clock),
      close: async () => {
        await rateLimiter.close?.();
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
