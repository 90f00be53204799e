import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import { recordWebhookEvent, SessionEventWriter } from './webhook-events.js';
import { conflict } from './conflicts.js';
import type { Database, Row } from './database.js';
import type { Actor } from './store.js';

/** A rectangle of the video frame, in pixels (the real ClipVideoRegionDto). */
export interface VideoRegion {
  topLeftPoint: { x: number; y: number };
  widthPx: number;
  heightPx: number;
}

/** Where the participant's screen and camera appear in a session video (ClipVideoRegionsDto). */
export interface VideoRegions {
  screen?: VideoRegion;
  camera?: VideoRegion;
}

/** A session's video: what ffprobe found, and where its bytes and poster frame are stored. */
export interface Video {
  sessionId: string;
  testId: string;
  /** The media storage key of the video's bytes. */
  objectKey: string;
  /** The media storage key of its poster frame (JPEG), when one could be extracted. */
  posterKey: string | null;
  /** Hex SHA-256 of the bytes: the same file imported again is recognised. */
  contentSha256: string;
  contentType: string;
  sizeBytes: number;
  durationMs: number;
  /** When its last frame starts, from the start (the latest start a clip may have); null when not recorded (imported before it was). */
  lastFrameMs: number | null;
  width: number;
  height: number;
  hasAudio: boolean;
  regions: VideoRegions;
  importedAt: number;
}

export type VideoInput = Omit<Video, 'testId' | 'importedAt' | 'lastFrameMs'> & { lastFrameMs?: number | null };

/** A stored video file as any number of sessions may name it: everything of a video but its session. */
export type VideoObjects = Omit<VideoInput, 'sessionId'>;

/**
 * Makes sure the named media objects exist (storing any that went missing). Called inside the
 * transaction that makes rows name them, while it holds their locks, so no release deletes
 * them between the check and the commit.
 */
export type EnsureStored = () => Promise<void>;

/** What attaching a stored video to sessions did. */
export interface AttachResult {
  inserted: number;
  /** Sessions that already had a video: theirs is kept. */
  kept: number;
}

/**
 * The lock held by a writer that makes a row name a media object, and by a release that deletes
 * an object no row names: the two take turns, so an object a row names is never deleted.
 */
const objectLock = (key: string) => `media-object:${key}`;
const objectKeys = (v: VideoObjects): string[] => [...new Set([v.objectKey, ...(v.posterKey ? [v.posterKey] : [])])].sort();

/** Session ids bound per statement when attaching (within both engines' parameter limits). */
const ATTACH_CHUNK = 1000;

export interface SavedVideo {
  outcome: 'inserted' | 'updated' | 'unchanged';
  video: Video;
  /** The video this one replaced (its objects are no longer referenced), on `updated`. */
  replaced: Video | null;
}

const COLUMNS =
  'session_id, test_id, object_key, poster_key, content_sha256, content_type, size_bytes, duration_ms, last_frame_ms, width, height, has_audio, regions, imported_at';

const videoOf = (r: Row): Video => ({
  sessionId: r.session_id as string,
  testId: r.test_id as string,
  objectKey: r.object_key as string,
  posterKey: (r.poster_key as string | null) ?? null,
  contentSha256: r.content_sha256 as string,
  contentType: r.content_type as string,
  sizeBytes: Number(r.size_bytes),
  durationMs: Number(r.duration_ms),
  lastFrameMs: r.last_frame_ms === null || r.last_frame_ms === undefined ? null : Number(r.last_frame_ms),
  width: Number(r.width),
  height: Number(r.height),
  hasAudio: Number(r.has_audio) === 1,
  // PostgreSQL's jsonb arrives parsed, SQLite's text does not.
  regions: (typeof r.regions === 'string' ? JSON.parse(r.regions) : r.regions) as VideoRegions,
  importedAt: Number(r.imported_at),
});

/**
 * Session videos, one per session. Nothing any process caches depends on them (every read
 * goes to the database), so saving one announces nothing. Their objects are named by content
 * (src/media/import-video.ts), so sessions with the same bytes share them: an object is
 * deleted only by releaseObjects, when no row names it.
 */
export class VideoRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  async findVideo(sessionId: string): Promise<Video | null> {
    const r = await this.db.one(`SELECT ${COLUMNS} FROM videos WHERE session_id = @sessionId`, { sessionId });
    return r ? videoOf(r) : null;
  }

  /** The test's videos, by session id. */
  async listVideos(testId: string): Promise<Video[]> {
    const rows = await this.db.all(`SELECT ${COLUMNS} FROM videos WHERE test_id = @testId ORDER BY session_id`, { testId });
    return rows.map(videoOf);
  }

  /**
   * Records the session's video, replacing the one it had. The same bytes again (same
   * SHA-256) change nothing and are not audited. The session must exist. `ensureStored`, when
   * given, runs while the video's objects are locked (see EnsureStored); the replaced video's
   * objects are then the caller's to release.
   */
  saveVideo(input: VideoInput, by: Actor, ensureStored?: EnsureStored): Promise<SavedVideo> {
    return this.db.write(null, async (tx) => {
      const session = await tx.one<{ test_id: string }>('SELECT test_id FROM sessions WHERE session_id = @sessionId', { sessionId: input.sessionId });
      if (!session) throw conflict.noSession(input.sessionId);
      for (const key of objectKeys(input)) await tx.lock(objectLock(key));
      await ensureStored?.();
      const existingRow = await tx.one(`SELECT ${COLUMNS} FROM videos WHERE session_id = @sessionId FOR UPDATE`, { sessionId: input.sessionId });
      const existing = existingRow ? videoOf(existingRow) : null;
      const lastFrameMs = input.lastFrameMs ?? null;
      if (
        existing &&
        existing.contentSha256 === input.contentSha256 &&
        existing.objectKey === input.objectKey &&
        existing.posterKey === input.posterKey &&
        existing.lastFrameMs === lastFrameMs
      ) {
        return { outcome: 'unchanged', video: existing, replaced: null } satisfies SavedVideo;
      }
      const video: Video = { ...input, lastFrameMs, testId: session.test_id, importedAt: this.clock.now() };
      const params = { ...video, hasAudio: video.hasAudio ? 1 : 0, regions: JSON.stringify(video.regions) };
      if (existing) {
        await tx.run(
          `UPDATE videos SET object_key = @objectKey, poster_key = @posterKey, content_sha256 = @contentSha256, content_type = @contentType,
             size_bytes = @sizeBytes, duration_ms = @durationMs, last_frame_ms = @lastFrameMs, width = @width, height = @height, has_audio = @hasAudio,
             regions = @regions, imported_at = @importedAt
           WHERE session_id = @sessionId`,
          params,
        );
      } else {
        await tx.run(
          `INSERT INTO videos (${COLUMNS}) VALUES (@sessionId, @testId, @objectKey, @posterKey, @contentSha256, @contentType,
             @sizeBytes, @durationMs, @lastFrameMs, @width, @height, @hasAudio, @regions, @importedAt)`,
          params,
        );
      }
      await audit(tx, this.clock, by, 'video.import', input.sessionId, {
        testId: video.testId,
        sha256: video.contentSha256,
        sizeBytes: video.sizeBytes,
        durationMs: video.durationMs,
        replaced: existing !== null,
      });
      await recordWebhookEvent(tx, this.clock, { type: 'video.ready', testId: video.testId, data: { sessionId: input.sessionId } });
      return { outcome: existing ? 'updated' : 'inserted', video, replaced: existing } satisfies SavedVideo;
    });
  }

  /**
   * Gives every session of `sessionIds` (all of `testId`) that has no video the stored video
   * `objects`, by reference: one row each, no copy. Sessions with a video keep theirs. One
   * transaction, one audit entry; a `video.ready` webhook event per session given one.
   */
  attachVideo(testId: string, sessionIds: readonly string[], objects: VideoObjects, by: Actor, ensureStored?: EnsureStored): Promise<AttachResult> {
    return this.db.write(null, async (tx) => {
      for (const key of objectKeys(objects)) await tx.lock(objectLock(key));
      await ensureStored?.();
      const params = { ...objects, lastFrameMs: objects.lastFrameMs ?? null, hasAudio: objects.hasAudio ? 1 : 0, regions: JSON.stringify(objects.regions), importedAt: this.clock.now(), testId };
      const events = await SessionEventWriter.start(tx, this.clock, 'video.ready', testId);
      const result: AttachResult = { inserted: 0, kept: 0 };
      for (let from = 0; from < sessionIds.length; from += ATTACH_CHUNK) {
        const chunk = sessionIds.slice(from, from + ATTACH_CHUNK);
        const ids: Record<string, string> = {};
        const list = chunk.map((id, i) => ((ids[`s${i}`] = id), `@s${i}`)).join(', ');
        const sessions = await tx.all<{ session_id: string; test_id: string }>(`SELECT session_id, test_id FROM sessions WHERE session_id IN (${list})`, ids);
        const testOf = new Map(sessions.map((r) => [r.session_id, r.test_id]));
        const foreign = chunk.find((id) => testOf.get(id) !== testId);
        if (foreign !== undefined) throw conflict.noSessionInTest(foreign, testId);
        // VALUES, not INSERT ... SELECT: PostgreSQL types a VALUES row's parameters by their columns.
        const rows = chunk.map((_, i) => `(@s${i}, @testId, @objectKey, @posterKey, @contentSha256, @contentType, @sizeBytes, @durationMs, @lastFrameMs, @width, @height, @hasAudio, @regions, @importedAt)`);
        const inserted = await tx.all<{ session_id: string }>(
          `INSERT INTO videos (${COLUMNS}) VALUES ${rows.join(', ')} ON CONFLICT (session_id) DO NOTHING RETURNING session_id`,
          { ...ids, ...params },
        );
        result.inserted += inserted.length;
        result.kept += chunk.length - inserted.length;
        await events?.record(inserted.map((r) => r.session_id));
      }
      if (result.inserted > 0) await audit(tx, this.clock, by, 'video.attach', testId, { sha256: objects.contentSha256, ...result });
      return result;
    });
  }

  /**
   * Deletes, with `remove`, each of `keys` that no video row names any more, holding its lock
   * so that no writer makes a row name it meanwhile. A failed removal leaves that object
   * behind (unreferenced, harmless) and is reported in `failed`. Returns what was removed.
   */
  releaseObjects(keys: readonly (string | null)[], remove: (key: string) => Promise<void>): Promise<{ removed: string[]; failed: string[] }> {
    const distinct = [...new Set(keys.filter((k): k is string => k !== null))].sort();
    return this.db.write(null, async (tx) => {
      const removed: string[] = [];
      const failed: string[] = [];
      for (const key of distinct) {
        await tx.lock(objectLock(key));
        const named = await tx.one('SELECT 1 AS named FROM videos WHERE object_key = @key OR poster_key = @key LIMIT 1', { key });
        if (named) continue;
        try {
          await remove(key);
          removed.push(key);
        } catch {
          failed.push(key);
        }
      }
      return { removed, failed };
    });
  }
}
