import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import { recordWebhookEvent } from './webhook-events.js';
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
 * goes to the database), so saving one announces nothing.
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
   * SHA-256) change nothing and are not audited. The session must exist.
   */
  saveVideo(input: VideoInput, by: Actor): Promise<SavedVideo> {
    return this.db.write(null, async (tx) => {
      const session = await tx.one<{ test_id: string }>('SELECT test_id FROM sessions WHERE session_id = @sessionId', { sessionId: input.sessionId });
      if (!session) throw conflict.noSession(input.sessionId);
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
}
