import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import { requireCuttable, type CutVideo } from './clip-range.js';
import { conflict, StoreConflictError } from './conflicts.js';
import type { Database, Row, Transaction } from './database.js';
import { enqueueJob, restartJob, type JobState } from './jobs.js';
import type { Actor } from './store.js';
import { recordWebhookEvent } from './webhook-events.js';

/** The job kind that cuts a clip out of its session video. */
export const CLIP_JOB = 'clip.generate';

/** The real API's clip states. */
export type ClipStatus = 'GENERATING' | 'GENERATED' | 'ERROR';

/** How a player shows the clip (the real ClipLayoutDto). */
export interface ClipLayout {
  mainStream: 'SCREEN' | 'CAMERA';
  pipPosition: 'TOP_LEFT' | 'TOP_RIGHT' | 'BOTTOM_LEFT' | 'BOTTOM_RIGHT';
  pipState: 'OPENED' | 'CLOSED';
}

export interface Clip {
  id: string;
  sessionId: string;
  testId: string;
  name: string;
  description: string | null;
  /** What its creator felt it shows (the Legacy v1 sentimentTag); null when not given. */
  sentiment: ClipSentiment | null;
  /** From the start of the session video. */
  startMs: number;
  endMs: number;
  layout: ClipLayout;
  /** The job that cuts it; its state is the clip's status. */
  jobId: string;
  status: ClipStatus;
  /** Why the last attempt failed, while there is one to tell. */
  lastError: string | null;
  createdAt: number;
}

/** The sentiments the real v1 document allows a clip. */
export const CLIP_SENTIMENTS = ['positive', 'negative'] as const;
export type ClipSentiment = (typeof CLIP_SENTIMENTS)[number];

export interface ClipInput {
  sessionId: string;
  name: string;
  description?: string;
  sentiment?: ClipSentiment;
  startMs: number;
  endMs: number;
  layout?: ClipLayout;
}

/** Where a clip's cut and its poster frame are kept in the media storage (three segments: linkable). */
export const clipObjectKey = (clipId: string) => `clips/${clipId}/clip.mp4`;
export const clipPosterKey = (clipId: string) => `clips/${clipId}/poster.jpg`;

/** A clip's (or reel's) status, from its job's state. */
export const STATUS_OF_JOB: Record<JobState, ClipStatus> = { queued: 'GENERATING', running: 'GENERATING', done: 'GENERATED', error: 'ERROR' };

const COLUMNS = `c.id, c.session_id, c.test_id, c.name, c.description, c.sentiment, c.start_ms, c.end_ms, c.layout, c.job_id, c.created_at,
  j.state AS job_state, j.last_error AS job_error`;
const FROM = 'clips c JOIN jobs j ON j.id = c.job_id';

/** The session video a clip is cut from, as clip-range.ts reads it, from a row with `video_duration_ms` and `video_last_frame_ms`. */
export const cutVideoOf = (r: Row): CutVideo | null =>
  r.video_duration_ms === null || r.video_duration_ms === undefined
    ? null
    : { durationMs: Number(r.video_duration_ms), lastFrameMs: r.video_last_frame_ms === null ? null : Number(r.video_last_frame_ms) };
/** Joins a clip (`c`) to its session's video, for cutVideoOf. */
export const WITH_VIDEO = 'LEFT JOIN videos v ON v.session_id = c.session_id';
export const VIDEO_COLUMNS = 'v.duration_ms AS video_duration_ms, v.last_frame_ms AS video_last_frame_ms';

const clipOf = (r: Row): Clip => ({
  id: r.id as string,
  sessionId: r.session_id as string,
  testId: r.test_id as string,
  name: r.name as string,
  description: (r.description as string | null) ?? null,
  sentiment: (r.sentiment as ClipSentiment | null) ?? null,
  startMs: Number(r.start_ms),
  endMs: Number(r.end_ms),
  // PostgreSQL's jsonb arrives parsed, SQLite's text does not.
  layout: (typeof r.layout === 'string' ? JSON.parse(r.layout) : r.layout) as ClipLayout,
  jobId: r.job_id as string,
  status: STATUS_OF_JOB[r.job_state as JobState],
  lastError: r.job_state === 'error' ? ((r.job_error as string | null) ?? null) : null,
  createdAt: Number(r.created_at),
});

/**
 * Clips of session videos. A clip and the job that cuts it are written together; the clip's
 * status is read from the job. Nothing cached depends on clips: writes announce nothing.
 */
export class ClipRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Records a clip of the session's video and queues its cut. The session must have a video
   * ffmpeg can cut the range from (clip-range.ts); the layout defaults to the screen, with the
   * camera (if the video has one) in a picture-in-picture at the bottom right.
   */
  createClip(input: ClipInput, by: Actor): Promise<Clip> {
    return this.db.write(null, async (tx) => {
      const video = await tx.one<{ test_id: string; regions: unknown }>(`SELECT v.test_id, v.regions, ${VIDEO_COLUMNS} FROM videos v WHERE v.session_id = @sessionId`, {
        sessionId: input.sessionId,
      });
      if (!video) {
        const session = await tx.one('SELECT 1 AS found FROM sessions WHERE session_id = @sessionId', { sessionId: input.sessionId });
        throw session ? conflict.noVideo(input.sessionId) : conflict.noSession(input.sessionId);
      }
      requireCuttable(input, cutVideoOf(video)!);
      const regions = (typeof video.regions === 'string' ? JSON.parse(video.regions) : video.regions) as { camera?: unknown };
      const layout: ClipLayout = input.layout ?? { mainStream: 'SCREEN', pipPosition: 'BOTTOM_RIGHT', pipState: regions.camera ? 'OPENED' : 'CLOSED' };
      const id = randomUUID();
      const job = await enqueueJob(tx, this.clock, { kind: CLIP_JOB, subject: id, payload: { clipId: id } });
      const createdAt = this.clock.now();
      await tx.run(
        `INSERT INTO clips (id, session_id, test_id, name, description, sentiment, start_ms, end_ms, layout, job_id, created_at)
         VALUES (@id, @sessionId, @testId, @name, @description, @sentiment, @startMs, @endMs, @layout, @jobId, @createdAt)`,
        {
          id,
          sessionId: input.sessionId,
          testId: video.test_id,
          name: input.name,
          description: input.description ?? null,
          sentiment: input.sentiment ?? null,
          startMs: input.startMs,
          endMs: input.endMs,
          layout: JSON.stringify(layout),
          jobId: job.id,
          createdAt,
        },
      );
      await audit(tx, this.clock, by, 'clip.create', id, { sessionId: input.sessionId, startMs: input.startMs, endMs: input.endMs });
      return {
        id,
        sessionId: input.sessionId,
        testId: video.test_id,
        name: input.name,
        description: input.description ?? null,
        startMs: input.startMs,
        endMs: input.endMs,
        layout,
        jobId: job.id,
        status: 'GENERATING',
        lastError: null,
        createdAt,
        sentiment: input.sentiment ?? null,
      } satisfies Clip;
    });
  }

  /** `clip.generated`, in the transaction that marks the clip's job done. */
  async recordGenerated(tx: Transaction, clip: Clip): Promise<void> {
    await recordWebhookEvent(tx, this.clock, { type: 'clip.generated', testId: clip.testId, data: { sessionId: clip.sessionId, clipUuid: clip.id } });
  }

  async findClip(id: string): Promise<Clip | null> {
    const r = await this.db.one(`SELECT ${COLUMNS} FROM ${FROM} WHERE c.id = @id`, { id });
    return r ? clipOf(r) : null;
  }

  /** The session's clips, in the order they start. */
  async listClips(sessionId: string): Promise<Clip[]> {
    const rows = await this.db.all(`SELECT ${COLUMNS} FROM ${FROM} WHERE c.session_id = @sessionId ORDER BY c.start_ms, c.id`, { sessionId });
    return rows.map(clipOf);
  }

  /** The test's clips (to choose a highlight reel's from), the newest first, at most `limit`. */
  async listClipsOfTest(testId: string, limit: number): Promise<Clip[]> {
    const rows = await this.db.all(`SELECT ${COLUMNS} FROM ${FROM} WHERE c.test_id = @testId ORDER BY c.created_at DESC, c.id LIMIT @limit`, { testId, limit });
    return rows.map(clipOf);
  }

  /**
   * Starts a clip in ERROR over (a new set of attempts), audited. Refused when there is no such
   * clip, when it is not in ERROR, or when its range can no longer be cut from its session's
   * video (created before the rule, or the video was replaced): another attempt would fail alike.
   */
  restartClip(id: string, by: Actor): Promise<Clip> {
    return this.db.write(null, async (tx) => {
      const row = await tx.one(`SELECT ${COLUMNS}, ${VIDEO_COLUMNS} FROM ${FROM} ${WITH_VIDEO} WHERE c.id = @id`, { id });
      if (!row) throw conflict.noClip(id);
      const clip = clipOf(row);
      if (clip.status !== 'ERROR') throw conflict.notFailed('clip', id, clip.status);
      const video = cutVideoOf(row);
      if (!video) throw conflict.noVideo(clip.sessionId);
      requireCuttable(clip, video);
      if (!(await restartJob(tx, this.clock, clip.jobId))) throw conflict.notFailed('clip', id, 'GENERATING');
      await audit(tx, this.clock, by, 'clip.retry', id);
      return { ...clip, status: 'GENERATING', lastError: null } satisfies Clip;
    });
  }

  /** restartClip, answering whether the clip was started over (false for each of its refusals). */
  async retryClip(id: string, by: Actor): Promise<boolean> {
    try {
      await this.restartClip(id, by);
      return true;
    } catch (error) {
      if (error instanceof StoreConflictError) return false;
      throw error;
    }
  }
}
