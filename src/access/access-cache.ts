import type { Clock } from '../clock.js';
import type { ChangeFeed } from '../changes/change-feed.js';
import type { Principal, Store, Test } from '../store/store.js';

export type AccessReads = Pick<Store, 'findPrincipal' | 'findVisibleTest' | 'isAccessTokenRevoked'>;

/**
 * What every API request reads (the caller's credential and user, the test's visibility,
 * the token's revocation), cached per process. Any change announced on the feed empties
 * the cache at once; on SQLite, so does a commit by another process (PRAGMA data_version).
 * Entries also expire after `ttlMs`, which bounds staleness if an announcement is lost, and
 * is the only bound when processes share PostgreSQL without Redis.
 */
export class CachedAccessReads implements AccessReads {
  private readonly principals = new Map<string, { value: Principal | null; expiresAt: number }>();
  private readonly tests = new Map<string, { value: Test | null; expiresAt: number }>();
  private readonly revoked = new Map<string, { value: boolean; expiresAt: number }>();
  private externalVersion: number | undefined;

  constructor(
    private readonly store: Store,
    feed: ChangeFeed,
    private readonly clock: Clock,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 50_000,
  ) {
    feed.subscribe(() => this.clear());
  }

  clear(): void {
    this.principals.clear();
    this.tests.clear();
    this.revoked.clear();
  }

  private noticeExternalChanges(): void {
    const version = this.store.externalChangeVersion?.();
    if (version !== this.externalVersion) {
      this.externalVersion = version;
      this.clear();
    }
  }

  private async cached<T>(map: Map<string, { value: T; expiresAt: number }>, key: string, load: () => Promise<T>): Promise<T> {
    this.noticeExternalChanges();
    const now = this.clock.now();
    const hit = map.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = await load();
    if (map.size >= this.maxEntries) map.clear();
    map.set(key, { value, expiresAt: now + this.ttlMs });
    return value;
  }

  findPrincipal(clientId: string): Promise<Principal | null> {
    return this.cached(this.principals, clientId, () => this.store.findPrincipal(clientId));
  }

  findVisibleTest(testId: string, email: string): Promise<Test | null> {
    return this.cached(this.tests, `${testId} ${email}`, () => this.store.findVisibleTest(testId, email));
  }

  isAccessTokenRevoked(jti: string, now: number): Promise<boolean> {
    return this.cached(this.revoked, jti, () => this.store.isAccessTokenRevoked(jti, now));
  }
}
