import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import { clipRangeProblem } from './clip-range.js';
import { cutVideoOf, STATUS_OF_JOB, VIDEO_COLUMNS, WITH_VIDEO, type ClipStatus } from './clips.js';
import { conflict, StoreConflictError } from './conflicts.js';
import type { Database, Row, Transaction } from './database.js';
import { enqueueJob, restartJob, type JobState } from './jobs.js';
import type { Actor } from './store.js';
import { recordWebhookEvent } from './webhook-events.js';

/** The job kind that joins a reel's clips into one video. */
export const REEL_JOB = 'reel.generate';

export interface HighlightReel {
  id: string;
  testId: string;
  name: string;
  /** What the legacy v1 family finds it by (20 hex characters, random: not guessable from its id). */
  token: string;
  /** In playing order. */
  clipIds: string[];
  /** The clips' lengths added up. */
  durationMs: number;
  jobId: string;
  /** Its job's state, as for clips. */
  status: ClipStatus;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface ReelInput {
  testId: string;
  name: string;
  clipIds: readonly string[];
}

/** Where a reel's video and poster frame are kept in the media storage (three segments: linkable). */
export const reelObjectKey = (reelId: string) => `reels/${reelId}/reel.mp4`;
export const reelPosterKey = (reelId: string) => `reels/${reelId}/poster.jpg`;

const COLUMNS = `r.id, r.test_id, r.name, r.token, r.clip_ids, r.duration_ms, r.job_id, r.created_at, r.updated_at,
  j.state AS job_state, j.last_error AS job_error`;
const FROM = 'highlight_reels r JOIN jobs j ON j.id = r.job_id';

const reelOf = (r: Row): HighlightReel => ({
  id: r.id as string,
  testId: r.test_id as string,
  name: r.name as string,
  token: r.token as string,
  clipIds: (typeof r.clip_ids === 'string' ? JSON.parse(r.clip_ids) : r.clip_ids) as string[],
  durationMs: Number(r.duration_ms),
  jobId: r.job_id as string,
  status: STATUS_OF_JOB[r.job_state as JobState],
  lastError: r.job_state === 'error' ? ((r.job_error as string | null) ?? null) : null,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/**
 * The length of a reel of `clipIds`: clips of the test's sessions, each once, each of which
 * ffmpeg can still cut from its session's video (the clip may predate that rule, or its video
 * have been replaced); refused naming the first part that is not.
 */
async function partsLength(tx: Transaction, testId: string, clipIds: readonly string[]): Promise<number> {
  let durationMs = 0;
  const seen = new Set<string>();
  for (const [index, clipId] of clipIds.entries()) {
    if (seen.has(clipId)) throw conflict.clipListedTwice(clipId);
    seen.add(clipId);
    const clip = await tx.one(`SELECT c.session_id, c.test_id, c.start_ms, c.end_ms, ${VIDEO_COLUMNS} FROM clips c ${WITH_VIDEO} WHERE c.id = @clipId`, { clipId });
    if (!clip) throw conflict.noClip(clipId);
    if (clip.test_id !== testId) throw conflict.clipOfAnotherTest(clipId, testId);
    const range = { startMs: Number(clip.start_ms), endMs: Number(clip.end_ms) };
    const video = cutVideoOf(clip);
    const problem = video ? clipRangeProblem(range, video) : conflict.noVideo(clip.session_id as string);
    if (problem) throw conflict.reelPartUncut(index, clipId, problem);
    durationMs += range.endMs - range.startMs;
  }
  return durationMs;
}

/**
 * Highlight reels: clips of one test joined into one video by a job written with the reel.
 * Nothing cached depends on reels: writes announce nothing.
 */
export class ReelRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Records a reel of `clipIds` (clips of the test's sessions, each once) and queues its making. */
  createReel(input: ReelInput, by: Actor): Promise<HighlightReel> {
    return this.db.write(null, async (tx) => {
      if (!(await tx.one('SELECT 1 AS found FROM tests WHERE id = @testId', { testId: input.testId }))) throw conflict.noTest(input.testId);
      const durationMs = await partsLength(tx, input.testId, input.clipIds);
      const id = randomUUID();
      const token = randomBytes(10).toString('hex');
      const job = await enqueueJob(tx, this.clock, { kind: REEL_JOB, subject: id, payload: { reelId: id } });
      const now = this.clock.now();
      await tx.run(
        `INSERT INTO highlight_reels (id, test_id, name, token, clip_ids, duration_ms, job_id, created_at, updated_at)
         VALUES (@id, @testId, @name, @token, @clipIds, @durationMs, @jobId, @now, @now)`,
        { id, testId: input.testId, name: input.name, token, clipIds: JSON.stringify(input.clipIds), durationMs, jobId: job.id, now },
      );
      await audit(tx, this.clock, by, 'reel.create', id, { testId: input.testId, clips: input.clipIds.length });
      return {
        id,
        testId: input.testId,
        name: input.name,
        token,
        clipIds: [...input.clipIds],
        durationMs,
        jobId: job.id,
        status: 'GENERATING',
        lastError: null,
        createdAt: now,
        updatedAt: now,
      } satisfies HighlightReel;
    });
  }

  /** `highlightreel.generated`, in the transaction that marks the reel's job done. */
  async recordGenerated(tx: Transaction, reel: HighlightReel): Promise<void> {
    await recordWebhookEvent(tx, this.clock, { type: 'highlightreel.generated', testId: reel.testId, data: { reelId: reel.id } });
  }

  async findReel(id: string): Promise<HighlightReel | null> {
    const r = await this.db.one(`SELECT ${COLUMNS} FROM ${FROM} WHERE r.id = @id`, { id });
    return r ? reelOf(r) : null;
  }

  async findReelByToken(token: string): Promise<HighlightReel | null> {
    const r = await this.db.one(`SELECT ${COLUMNS} FROM ${FROM} WHERE r.token = @token`, { token });
    return r ? reelOf(r) : null;
  }

  /** The test's reels, oldest first. */
  async listReels(testId: string): Promise<HighlightReel[]> {
    const rows = await this.db.all(`SELECT ${COLUMNS} FROM ${FROM} WHERE r.test_id = @testId ORDER BY r.created_at, r.id`, { testId });
    return rows.map(reelOf);
  }

  /** How many clips the test's sessions have. */
  async countClipsOfTest(testId: string): Promise<number> {
    const r = await this.db.one('SELECT COUNT(*) AS n FROM clips WHERE test_id = @testId', { testId });
    return Number(r?.n ?? 0);
  }

  /**
   * Starts a reel in ERROR over (a new set of attempts), audited. Refused when there is no such
   * reel, when it is not in ERROR, or when one of its parts can no longer be cut (partsLength).
   */
  restartReel(id: string, by: Actor): Promise<HighlightReel> {
    return this.db.write(null, async (tx) => {
      const row = await tx.one(`SELECT ${COLUMNS} FROM ${FROM} WHERE r.id = @id`, { id });
      if (!row) throw conflict.noReel(id);
      const reel = reelOf(row);
      if (reel.status !== 'ERROR') throw conflict.notFailed('highlight reel', id, reel.status);
      await partsLength(tx, reel.testId, reel.clipIds);
      if (!(await restartJob(tx, this.clock, reel.jobId))) throw conflict.notFailed('highlight reel', id, 'GENERATING');
      await audit(tx, this.clock, by, 'reel.retry', id);
      return { ...reel, status: 'GENERATING', lastError: null } satisfies HighlightReel;
    });
  }

  /** restartReel, answering whether the reel was started over (false for each of its refusals). */
  async retryReel(id: string, by: Actor): Promise<boolean> {
    try {
      await this.restartReel(id, by);
      return true;
    } catch (error) {
      if (error instanceof StoreConflictError) return false;
      throw error;
    }
  }
}
