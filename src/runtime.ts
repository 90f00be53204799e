import { CachedAccessReads } from './access/access-cache.js';
import { ResourceAccess } from './access/resource-access.js';
import { ChangeWatcher } from './changes/fresh-cache.js';
import { SessionPageReader } from './results/session-pages.js';
import type { AppDeps } from './app.js';
import type { ChangeFeed } from './changes/change-feed.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { MemoryRateLimiter, type RateLimiter } from './http/rate-limiter.js';
import { AccessTokenVerifier } from './oauth/access-tokens.js';
import { resolveAuthorizationServers } from './oauth/authorization-servers.js';
import { SecretHasher } from './oauth/client-secrets.js';
import { resolveProtectedResources } from './oauth/resource-indicators.js';
import { KeyRing } from './oauth/signing-keys.js';
import type { SharedRedis } from './redis/shared-redis.js';
import { openStoreWithFeed } from './store/open-store.js';
import { openMediaStorage, type OpenedMediaStorage } from './media/storage/open-media-storage.js';

export type Runtime = Omit<AppDeps, 'logger' | 'media' | 'onRoute'> & {
  /** Session videos and other media (MEDIA_URL). */
  media: OpenedMediaStorage;
  feed: ChangeFeed;
  /** Set when REDIS_URL is configured. */
  redis: SharedRedis | undefined;
  close(): Promise<void>;
};

/**
 * Opens the database named by the config, migrates it, and loads what the service keeps
 * there (signing keys, the secret-hash key, the custom server's id); connects Redis when
 * configured. The server and every CLI command start from here, so they always agree, and
 * every change either makes is announced to every process.
 */
export async function openRuntime(
  config: Config,
  options: { clock?: Clock; rateLimiter?: RateLimiter } = {},
): Promise<Runtime> {
  const clock = options.clock ?? systemClock;
  const { store, feed, redis, close: closeStore } = await openStoreWithFeed(config, clock);
  const closers: (() => Promise<void>)[] = [closeStore];
  const close = async () => {
    for (const closeOne of closers.reverse()) await closeOne().catch(() => {});
  };
  try {
    const rateLimiter: RateLimiter = options.rateLimiter ?? redis?.rateLimiter ?? new MemoryRateLimiter(clock);
    const servers = await resolveAuthorizationServers(config, store.settings);
    const resources = resolveProtectedResources(config);
    const hasher = await SecretHasher.load(store.settings);
    const media = await openMediaStorage(config.media, { settings: store.settings, baseUrl: config.baseUrl, clock });
    closers.push(async () => media.close());
    const watcher = new ChangeWatcher(store.database, feed);
    const keys = new KeyRing(store.signingKeys, clock, config.tokenTtlSeconds * 1000, { changes: watcher });
    const reads = new CachedAccessReads(store, watcher, clock);
    await keys.init();
    feed.subscribe((change) => {
      if (change.topic === 'keys') void keys.reload().catch(() => {});
    });
    return {
      config,
      store,
      clock,
      keys,
      hasher,
      servers,
      rateLimiter,
      feed,
      redis,
      resources,
      verifier: new AccessTokenVerifier(servers, keys, clock, resources.all.map((r) => r.identifier)),
      reads,
      access: new ResourceAccess(reads, store),
      pages: new SessionPageReader(store.sessions, watcher, clock),
      media,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
