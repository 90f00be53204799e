import type { Clock } from '../clock.js';
import { FreshCache, type ChangeWatcher } from '../changes/fresh-cache.js';
import type { SessionRepository } from '../store/sessions.js';
import { COMPLETED_STATUS, type Session, type SessionKey } from '../store/store.js';
import { bodyBytes, sameBytes } from '../http/body-bytes.js';
import { OFFSET_MAX, type SessionSummaryResultsResponse } from './schemas.js';

/** One anchor per this many sessions: a deep page skips fewer than this many rows. */
const ANCHOR_EVERY = 100;

/** Serialized pages kept per process: a few thousand typical pages, whatever their number. */
const BODY_CACHE_BYTES = 8 * 1024 * 1024;

/** Page objects kept per process (for the MCP tool, which answers objects), by the sessions they hold. */
const PAGE_CACHE_SESSIONS = 20_000;

const samePage = (kept: SessionSummaryResultsResponse, loaded: SessionSummaryResultsResponse) => JSON.stringify(kept) === JSON.stringify(loaded);

/** Whether two anchor lists are the same keys (a test's anchors reload each second under deep-page load). */
function sameKeys(kept: SessionKey[], loaded: SessionKey[]): boolean {
  return kept.length === loaded.length && kept.every((key, i) => key.startTime === loaded[i]!.startTime && key.sessionId === loaded[i]!.sessionId);
}

/**
 * Reads pages of a test's completed sessions (the only ones the Results API lists; the others
 * stay stored) at a cost that does not grow with the offset. A database
 * skips OFFSET rows one by one (~400 µs for 10,000 in SQLite); instead we keep, per test, the
 * key of every 100th completed session up to the deepest reachable offset, seek past the nearest
 * anchor and skip fewer than 100 rows. Anchors are rebuilt after any change.
 *
 * Dashboards and pipelines ask for the same pages again and again, so the serialized
 * response bodies are cached too (bounded by bytes), until anything changes; so are the pages
 * as objects, for MCP's list_sessions, which answers them inside a JSON-RPC message.
 */
export class SessionPageReader {
  private readonly anchors: FreshCache<SessionKey[]>;
  private readonly bodies: FreshCache<Buffer>;
  private readonly pages: FreshCache<SessionSummaryResultsResponse>;

  constructor(
    private readonly sessions: Pick<SessionRepository, 'listSessions' | 'listSessionKeys' | 'countSessions'>,
    /** What drops these caches; other readers of session data (src/details/) share it. */
    readonly watcher: ChangeWatcher,
    readonly clock: Clock,
  ) {
    this.anchors = new FreshCache(watcher, clock, { sameValue: sameKeys });
    this.bodies = new FreshCache(watcher, clock, { maxSize: BODY_CACHE_BYTES, sizeOf: (body) => body.length, sameValue: sameBytes });
    this.pages = new FreshCache(watcher, clock, { maxSize: PAGE_CACHE_SESSIONS, sizeOf: (page) => page.sessions.length + 1, sameValue: samePage });
  }

  /** A page as an object, from the cache or loaded (and kept) now; shared: never modify it. */
  cachedPage(key: string, load: () => Promise<SessionSummaryResultsResponse>): Promise<SessionSummaryResultsResponse> {
    return this.pages.get(key, load);
  }

  /** The serialized body of a page, from the cache or rendered (and kept) now. */
  cachedBody(key: string, render: () => Promise<string>): Promise<Buffer> {
    return this.bodies.get(key, async () => bodyBytes(await render()));
  }

  /** How many completed sessions the test holds (the stored count). */
  count(testId: string): Promise<number> {
    return this.sessions.countSessions(testId, COMPLETED_STATUS);
  }

  async read(testId: string, offset: number, limit: number): Promise<Session[]> {
    const status = COMPLETED_STATUS;
    if (offset < ANCHOR_EVERY) return this.sessions.listSessions(testId, offset, limit, { status });
    const anchors = await this.anchors.get(testId, () =>
      this.sessions.listSessionKeys(testId, ANCHOR_EVERY, OFFSET_MAX + ANCHOR_EVERY, status),
    );
    const k = Math.min(Math.floor(offset / ANCHOR_EVERY), anchors.length);
    if (k === 0) return this.sessions.listSessions(testId, offset, limit, { status });
    // anchors[k - 1] is the completed session at position k·ANCHOR_EVERY − 1; the page starts past it.
    return this.sessions.listSessions(testId, offset - k * ANCHOR_EVERY, limit, { status, after: anchors[k - 1]! });
  }
}
