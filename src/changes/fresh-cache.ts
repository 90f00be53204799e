import type { Clock } from '../clock.js';
import type { ChangeFeed } from './change-feed.js';

/**
 * Counts changes this process has heard of: every announcement on the feed (this process's
 * own writes announce what they change), and (SQLite) every commit by another process, which
 * PRAGMA data_version reveals without a feed. A commit of this process's that announces
 * nothing (a refresh token's rotation) empties no cache.
 * The database is asked once per turn of the event loop, not once per cache lookup: requests
 * handled in the same turn arrived together, and a change committed before a request was
 * sent is seen by the turn that reads that request.
 */
export class ChangeWatcher {
  private epoch = 0;
  private externalVersion: number | undefined;
  private askedThisTurn = false;
  /**
   * Whether every commit that may change a cached value reaches this watcher, whoever made it
   * (SQLite: this process's by their announcements, other processes' by the data version).
   * Then nothing can go unheard, and cached entries need no expiry by time.
   */
  readonly hearsEveryCommit: boolean;

  constructor(
    private readonly database: { externalChangeVersion?(): number },
    feed: ChangeFeed,
  ) {
    feed.subscribe(() => this.epoch++);
    this.hearsEveryCommit = database.externalChangeVersion !== undefined;
  }

  current(): number {
    if (!this.askedThisTurn && this.database.externalChangeVersion) {
      this.askedThisTurn = true;
      setImmediate(() => (this.askedThisTurn = false));
      const version = this.database.externalChangeVersion();
      if (version !== this.externalVersion) {
        this.externalVersion = version;
        this.epoch++;
      }
    }
    return this.epoch;
  }
}

export interface FreshCacheOptions<V> {
  /**
   * Default 1000: how stale an entry may get if an announcement is lost. Not applied where the
   * watcher hears every commit: entries then live until a change (or the size bound).
   */
  ttlMs?: number;
  /** Bound on the cache's size, measured by `sizeOf` (default: entries). */
  maxSize?: number;
  sizeOf?: (value: V) => number;
  /**
   * Whether a value loaded again after its entry expired equals the one kept. If so, the kept
   * one stays: a cache refreshed every second under steady reads then makes no long-lived
   * garbage (each replaced value would have lived long enough to reach V8's old space, where
   * only a full collection frees it, and the process grows meanwhile).
   */
  sameValue?: (kept: V, loaded: V) => boolean;
  /**
   * Whether a loaded value is kept (default: every one). A lookup that may later succeed
   * without announcing it (an app registered after a miss) keeps only its hits.
   */
  keep?: (value: V) => boolean;
}

/**
 * A bounded cache whose entries are dropped on any change the watcher hears of. On PostgreSQL
 * they also expire after `ttlMs`: the bound on staleness if an announcement is lost, and the
 * only one when processes share PostgreSQL without Redis. On SQLite every commit is heard, so
 * an entry stays until a change: reloading it each second would only repeat work (for a big
 * test's page anchors, a pass over its index). Over its size bound, the oldest entries go
 * first. Concurrent misses of one key share one load (when an entry expires under load, fifty
 * requests would otherwise run fifty identical queries at once).
 */
export class FreshCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number; size: number }>();
  /** Loads under way, by key; joined only by requests that arrive under the same epoch. */
  private readonly loading = new Map<string, Promise<V>>();
  private epoch = -1;
  private size = 0;
  private readonly ttlMs: number;
  private readonly maxSize: number;
  private readonly sizeOf: (value: V) => number;
  private readonly sameValue: ((kept: V, loaded: V) => boolean) | undefined;
  private readonly keep: ((value: V) => boolean) | undefined;

  constructor(
    private readonly watcher: ChangeWatcher,
    private readonly clock: Clock,
    options: FreshCacheOptions<V> = {},
  ) {
    this.ttlMs = watcher.hearsEveryCommit ? Infinity : (options.ttlMs ?? 1000);
    this.maxSize = options.maxSize ?? 50_000;
    this.sizeOf = options.sizeOf ?? (() => 1);
    this.sameValue = options.sameValue;
    this.keep = options.keep;
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const epoch = this.watcher.current();
    if (epoch !== this.epoch) {
      this.entries.clear();
      this.loading.clear();
      this.size = 0;
      this.epoch = epoch;
    }
    const now = this.clock.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const loaded = this.load(key, load, epoch, now);
    this.loading.set(key, loaded);
    return loaded;
  }

  private async load(key: string, load: () => Promise<V>, epoch: number, now: number): Promise<V> {
    try {
      const value = await load();
      // Only cache what was loaded under the current epoch: a change during the load wins.
      if (this.watcher.current() !== epoch || (this.keep && !this.keep(value))) return value;
      const kept = this.entries.get(key);
      if (kept && this.sameValue?.(kept.value, value)) {
        kept.expiresAt = now + this.ttlMs;
        return kept.value;
      }
      this.remember(key, value, now);
      return value;
    } finally {
      if (this.epoch === epoch) this.loading.delete(key);
    }
  }

  private remember(key: string, value: V, now: number): void {
    const size = this.sizeOf(value);
    if (size > this.maxSize) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.size -= previous.size;
      this.entries.delete(key);
    }
    for (const [oldest, entry] of this.entries) {
      if (this.size + size <= this.maxSize) break;
      this.entries.delete(oldest);
      this.size -= entry.size;
    }
    this.entries.set(key, { value, expiresAt: now + this.ttlMs, size });
    this.size += size;
  }
}
