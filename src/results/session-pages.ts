import type { Clock } from '../clock.js';
import { FreshCache, type ChangeWatcher } from '../changes/fresh-cache.js';
import type { SessionRepository } from '../store/sessions.js';
import type { Session, SessionKey } from '../store/store.js';
import { OFFSET_MAX } from './schemas.js';

/** One anchor per this many sessions: a deep page skips fewer than this many rows. */
const ANCHOR_EVERY = 100;

/** Serialized pages kept per process: a few thousand typical pages, whatever their number. */
const BODY_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * Reads pages of a test's sessions at a cost that does not grow with the offset. A database
 * skips OFFSET rows one by one (~400 µs for 10,000 in SQLite); instead we keep, per test, the
 * key of every 100th session up to the deepest reachable offset, seek past the nearest
 * anchor and skip fewer than 100 rows. Anchors are rebuilt after any change.
 *
 * Dashboards and pipelines ask for the same pages again and again, so the serialized
 * response bodies are cached too (bounded by bytes), until anything changes.
 */
export class SessionPageReader {
  private readonly anchors: FreshCache<SessionKey[]>;
  private readonly bodies: FreshCache<string>;
  private readonly completedCounts: FreshCache<number>;

  constructor(
    private readonly sessions: Pick<SessionRepository, 'listSessions' | 'listSessionKeys' | 'countCompletedSessions'>,
    watcher: ChangeWatcher,
    clock: Clock,
  ) {
    this.anchors = new FreshCache(watcher, clock);
    this.bodies = new FreshCache(watcher, clock, { maxSize: BODY_CACHE_BYTES, sizeOf: (body) => body.length });
    this.completedCounts = new FreshCache(watcher, clock);
  }

  /** COMPLETE sessions of a test, counted once per change rather than once per page of a long listing. */
  completedCount(testId: string): Promise<number> {
    return this.completedCounts.get(testId, () => this.sessions.countCompletedSessions(testId));
  }

  /** The serialized body of a page, from the cache or rendered (and kept) now. */
  cachedBody(key: string, render: () => Promise<string>): Promise<string> {
    return this.bodies.get(key, render);
  }

  async read(testId: string, offset: number, limit: number): Promise<Session[]> {
    if (offset < ANCHOR_EVERY) return this.sessions.listSessions(testId, offset, limit);
    const anchors = await this.anchors.get(testId, () =>
      this.sessions.listSessionKeys(testId, ANCHOR_EVERY, OFFSET_MAX + ANCHOR_EVERY),
    );
    const k = Math.min(Math.floor(offset / ANCHOR_EVERY), anchors.length);
    if (k === 0) return this.sessions.listSessions(testId, offset, limit);
    // anchors[k - 1] is the session at position k·ANCHOR_EVERY − 1; the page starts past it.
    return this.sessions.listSessions(testId, offset - k * ANCHOR_EVERY, limit, anchors[k - 1]);
  }
}
