import type { Clock } from '../clock.js';
import type { Store } from '../store/store.js';
import type { ChangeFeed } from './change-feed.js';

/**
 * Counts changes this process has heard of: every announcement on the feed, and (SQLite)
 * every commit by another connection, which PRAGMA data_version reveals without a feed.
 */
export class ChangeWatcher {
  private epoch = 0;
  private externalVersion: number | undefined;

  constructor(
    private readonly store: Pick<Store, 'externalChangeVersion'>,
    feed: ChangeFeed,
  ) {
    feed.subscribe(() => this.epoch++);
  }

  current(): number {
    const version = this.store.externalChangeVersion?.();
    if (version !== this.externalVersion) {
      this.externalVersion = version;
      this.epoch++;
    }
    return this.epoch;
  }
}

/**
 * A bounded cache whose entries are dropped on any change the watcher hears of, and expire
 * after `ttlMs` regardless: the bound on staleness if an announcement is lost, and the only
 * one when processes share PostgreSQL without Redis.
 */
export class FreshCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private epoch = -1;

  constructor(
    private readonly watcher: ChangeWatcher,
    private readonly clock: Clock,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 50_000,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const epoch = this.watcher.current();
    if (epoch !== this.epoch) {
      this.entries.clear();
      this.epoch = epoch;
    }
    const now = this.clock.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = await load();
    // Only cache what was loaded under the current epoch: a change during the load wins.
    if (this.epoch === epoch) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { value, expiresAt: now + this.ttlMs });
    }
    return value;
  }
}
