import { Type, type Static } from '@sinclair/typebox';
import { isoTime } from '../iso-time.js';
import { CLIP_SENTIMENTS, type Clip, type ClipSentiment } from '../store/clips.js';
import { conflict } from '../store/conflicts.js';
import { JOB_STATES, type Job, type JobFilter } from '../store/jobs.js';
import type { HighlightReel } from '../store/reels.js';
import type { Actor } from '../store/store.js';
import type { OperationDeps } from './deps.js';

/**
 * Clips, highlight reels and the jobs that make them. Shared by `results-api clips|reels|jobs`
 * and the admin API, so both refuse alike and answer with the same documents.
 */

const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);
const Status = Type.Union([Type.Literal('GENERATING'), Type.Literal('GENERATED'), Type.Literal('ERROR')], {
  description: 'GENERATING until its job has run, then GENERATED, or ERROR once every attempt failed.',
});

/** Milliseconds from the start of a video: up to 24 hours. */
export const MAX_CLIP_MS = 24 * 3_600_000;
/**
 * The shortest clip people may ask for: a second. Shorter is most likely seconds typed as
 * milliseconds, and a range shorter than the gap between two frames (a screen recording at
 * a frame or two a second) may hold no frame to cut.
 */
export const MIN_CLIP_MS = 1000;
/** How many clips one reel may join. */
export const MAX_REEL_CLIPS = 100;

export const ClipView = Type.Object(
  {
    clipUuid: Type.String({ format: 'uuid' }),
    sessionId: Type.String({ format: 'uuid' }),
    testId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    sentiment: Type.Union([Type.Union(CLIP_SENTIMENTS.map((s) => Type.Literal(s))), Type.Null()], { description: 'What its creator felt it shows; null when not given.' }),
    startMs: Type.Integer({ minimum: 0 }),
    endMs: Type.Integer({ minimum: 0 }),
    status: Status,
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: Time,
  },
  { title: 'Clip' },
);
export const clipView = (c: Clip): Static<typeof ClipView> => ({
  clipUuid: c.id,
  sessionId: c.sessionId,
  testId: c.testId,
  name: c.name,
  description: c.description,
  sentiment: c.sentiment,
  startMs: c.startMs,
  endMs: c.endMs,
  status: c.status,
  lastError: c.lastError,
  createdAt: isoTime(c.createdAt),
});

export const ReelView = Type.Object(
  {
    reelId: Type.String({ format: 'uuid' }),
    testId: Type.String({ format: 'uuid' }),
    token: Type.String({ description: 'What GET /usertesting/api/v1/highlightreel/{highlightReelToken} finds the reel by.' }),
    name: Type.String(),
    clipIds: Type.Array(Type.String({ format: 'uuid' }), { description: 'In playing order.' }),
    durationMs: Type.Integer({ minimum: 0 }),
    status: Status,
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: Time,
  },
  { title: 'HighlightReel' },
);
export const reelView = (r: HighlightReel): Static<typeof ReelView> => ({
  reelId: r.id,
  testId: r.testId,
  token: r.token,
  name: r.name,
  clipIds: r.clipIds,
  durationMs: r.durationMs,
  status: r.status,
  lastError: r.lastError,
  createdAt: isoTime(r.createdAt),
});

export const JobView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    kind: Type.String({ description: 'clip.generate or reel.generate.' }),
    subject: Type.String({ description: 'The clip or reel the job makes.' }),
    state: Type.Union(JOB_STATES.map((s) => Type.Literal(s))),
    attempts: Type.Integer({ minimum: 0 }),
    maxAttempts: Type.Integer({ minimum: 1 }),
    runAt: Time,
    leaseOwner: Type.Union([Type.String(), Type.Null()], { description: 'The server process running it, while one is.' }),
    leaseUntil: NullableTime,
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: Time,
    updatedAt: Time,
  },
  { title: 'Job' },
);
export const jobView = (j: Job): Static<typeof JobView> => ({
  id: j.id,
  kind: j.kind,
  subject: j.subject,
  state: j.state,
  attempts: j.attempts,
  maxAttempts: j.maxAttempts,
  runAt: isoTime(j.runAt),
  leaseOwner: j.leaseOwner,
  leaseUntil: isoTime(j.leaseUntil),
  lastError: j.lastError,
  createdAt: isoTime(j.createdAt),
  updatedAt: isoTime(j.updatedAt),
});

export interface ClipRequest {
  sessionId: string;
  startMs: number;
  endMs: number;
  name: string;
  /** The API's clip description (the CLI's --note). */
  description?: string | undefined;
  /** The Legacy v1 sentimentTag (the CLI's --sentiment). */
  sentiment?: ClipSentiment | undefined;
}

/**
 * A clip of the session's video, cut by a running server. It lasts at least MIN_CLIP_MS; the
 * store refuses what ffmpeg could not cut from the video (store/clip-range.ts), and a session
 * without a video.
 */
export async function createClip(d: Pick<OperationDeps, 'store'>, input: ClipRequest, by: Actor): Promise<Static<typeof ClipView>> {
  // An empty or backwards range is the store's refusal (it cannot be cut at all).
  if (input.endMs > input.startMs && input.endMs - input.startMs < MIN_CLIP_MS) throw conflict.clipTooShort(input.startMs, input.endMs, MIN_CLIP_MS);
  const clip = await d.store.clips.createClip(
    {
      sessionId: input.sessionId,
      startMs: input.startMs,
      endMs: input.endMs,
      name: input.name,
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.sentiment === undefined ? {} : { sentiment: input.sentiment }),
    },
    by,
  );
  return clipView(clip);
}

/** A failed clip cut again (its job's attempts start over), if its range can still be cut: audited as clip.retry. */
export const retryClip = async (d: Pick<OperationDeps, 'store'>, clipId: string, by: Actor): Promise<Static<typeof ClipView>> =>
  clipView(await d.store.clips.restartClip(clipId, by));

export const listClips = async (d: Pick<OperationDeps, 'store'>, sessionId: string): Promise<Static<typeof ClipView>[]> =>
  (await d.store.clips.listClips(sessionId)).map(clipView);

/** How many of a test's clips the console offers for a reel. */
export const MAX_TEST_CLIPS = 500;

/** The test's clips, newest first (at most MAX_TEST_CLIPS): what a highlight reel is made of. */
export const listClipsOfTest = async (d: Pick<OperationDeps, 'store'>, testId: string): Promise<Static<typeof ClipView>[]> =>
  (await d.store.clips.listClipsOfTest(testId, MAX_TEST_CLIPS)).map(clipView);

/** A highlight reel of clips of the test's sessions (each once, in playing order), joined by a running server. */
export const createReel = async (
  d: Pick<OperationDeps, 'store'>,
  input: { testId: string; name: string; clipIds: string[] },
  by: Actor,
): Promise<Static<typeof ReelView>> => reelView(await d.store.reels.createReel(input, by));

/** A failed highlight reel made again, if every clip of it can still be cut: audited as reel.retry. */
export const retryReel = async (d: Pick<OperationDeps, 'store'>, reelId: string, by: Actor): Promise<Static<typeof ReelView>> =>
  reelView(await d.store.reels.restartReel(reelId, by));

export const listReels = async (d: Pick<OperationDeps, 'store'>, testId: string): Promise<Static<typeof ReelView>[]> =>
  (await d.store.reels.listReels(testId)).map(reelView);

/** The newest jobs first. */
export const listJobs = async (d: Pick<OperationDeps, 'store'>, filter: JobFilter): Promise<Static<typeof JobView>[]> =>
  (await d.store.jobs.list(filter)).map(jobView);
