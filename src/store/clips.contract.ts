/**
 * The clip and highlight reel repositories' contract, run unchanged on every database (wired
 * in next to describeStoreContract). `makeStore` returns an unmigrated store over a fresh database.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { CLIP_JOB } from './clips.js';
import { StoreConflictError } from './conflicts.js';
import type { Announce } from './database.js';
import type { Store } from './open-store.js';
import { REEL_JOB } from './reels.js';
import type { VideoInput } from './videos.js';
import { rejectionOf } from '../../test/helpers/rejection.js';

const T0 = Date.UTC(2026, 0, 1);
const admin = { actor: 'cli:admin' };
const LEASE = 30_000;
const uuid = (n: number, prefix: string) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const refusal = (promise: Promise<unknown>) => rejectionOf(promise, StoreConflictError);

export function describeClipsContract(name: string, makeStore: (clock: ManualClock, announce: Announce) => Promise<Store>): void {
  describe(`Clips and reels contract: ${name}`, () => {
    let clock: ManualClock;
    let store: Store;
    const testId = uuid(1, 'eeeeeee0');
    const otherTestId = uuid(2, 'eeeeeee0');
    const session = (n: number) => uuid(n, '5e55105e');
    /** A minute of video, its last frame's time unrecorded (as for a video imported before it was). */
    const videoOf = (n: number, extra: Partial<VideoInput> = {}): VideoInput => ({
      sessionId: session(n), objectKey: `videos/${session(n)}/v.mp4`, posterKey: null, contentSha256: String(n).repeat(64), contentType: 'video/mp4',
      sizeBytes: 10, durationMs: 60_000, width: 1280, height: 720, hasAudio: n !== 2,
      regions: n === 1 ? { camera: { topLeftPoint: { x: 960, y: 540 }, widthPx: 320, heightPx: 180 } } : {},
      ...extra,
    });
    /** Fails the job's every attempt (each claimed in turn). */
    const failAll = async (jobId: string) => {
      for (let attempt = 1; attempt <= 3; attempt++) {
        expect((await store.jobs.claim('w', LEASE))?.id).toBe(jobId);
        await store.jobs.fail(jobId, 'w', `failure ${attempt}`);
        clock.advance(10 * 60_000);
      }
    };

    beforeEach(async () => {
      clock = new ManualClock(T0);
      store = await makeStore(clock, async () => undefined);
      await store.database.migrate();
      await store.directory.createWorkspace({ id: uuid(1, 'ccccccc0'), name: 'W' }, admin);
      for (const [id, sessions] of [[testId, [1, 2, 3]], [otherTestId, [4]]] as const) {
        await store.directory.createTest({ id, workspaceId: uuid(1, 'ccccccc0'), title: 'T', productType: 'THINK_OUT_LOUD' }, admin);
        await store.sessions.importSessions(
          id,
          sessions.map((n) => ({ sessionId: session(n), audienceId: null, status: 'COMPLETE', startTime: T0 - n * 60_000, finishTime: T0 })),
          admin,
        );
      }
      // Sessions 1, 2 and 4 have videos (session 1 with a camera region); session 3 has none.
      for (const n of [1, 2, 4]) await store.videos.saveVideo(videoOf(n), admin);
    });
    afterEach(async () => {
      await store.database.close();
    });

    it('creates a clip with its job in one transaction, and lists a session\'s clips in the order they start', async () => {
      const late = await store.clips.createClip({ sessionId: session(1), startMs: 5000, endMs: 9000, name: 'Late', description: 'a note' }, admin);
      const early = await store.clips.createClip({ sessionId: session(1), startMs: 1000, endMs: 2000, name: 'Early' }, admin);
      expect(late).toMatchObject({ testId, status: 'GENERATING', description: 'a note', createdAt: T0, layout: { mainStream: 'SCREEN', pipPosition: 'BOTTOM_RIGHT', pipState: 'OPENED' } });
      expect(early.layout.pipState).toBe('OPENED');
      expect(await store.clips.findClip(late.id)).toEqual(late);
      expect((await store.clips.listClips(session(1))).map((c) => c.id)).toEqual([early.id, late.id]);
      expect((await store.clips.listClipsOfTest(testId, 10)).map((c) => c.id).sort()).toEqual([early.id, late.id].sort());
      expect(await store.clips.listClipsOfTest(testId, 1)).toHaveLength(1);
      expect(await store.clips.listClipsOfTest(uuid(98, '7e577e57'), 10)).toEqual([]);
      expect(await store.jobs.get(late.jobId)).toMatchObject({ kind: CLIP_JOB, subject: late.id, payload: { clipId: late.id }, state: 'queued' });
      expect((await store.audit.list({ action: 'clip.create' })).map((e) => e.subject)).toEqual([late.id, early.id]);
      expect((await store.clips.createClip({ sessionId: session(2), startMs: 0, endMs: 1, name: 'No camera' }, admin)).layout.pipState).toBe('CLOSED');
    });

    it('refuses a clip of a missing session, of a session without a video, or past the video\'s end, writing nothing', async () => {
      expect((await refusal(store.clips.createClip({ sessionId: uuid(99, '5e55105e'), startMs: 0, endMs: 1000, name: 'x' }, admin))).code).toBe('not_found');
      expect((await refusal(store.clips.createClip({ sessionId: session(3), startMs: 0, endMs: 1000, name: 'x' }, admin))).message).toContain('has no video');
      expect((await refusal(store.clips.createClip({ sessionId: session(1), startMs: 0, endMs: 60_001, name: 'x' }, admin))).code).toBe('out_of_range');
      expect(await store.jobs.list()).toEqual([]);
      expect(await store.audit.list({ action: 'clip' })).toEqual([]);
    });

    it('a clip\'s status is its job\'s; only a clip in ERROR is started over, and that is audited', async () => {
      const clip = await store.clips.createClip({ sessionId: session(1), startMs: 0, endMs: 1000, name: 'C' }, admin);
      expect(await store.clips.retryClip(clip.id, admin)).toBe(false);
      for (let attempt = 1; attempt <= 3; attempt++) {
        await store.jobs.claim('w', LEASE);
        expect((await store.clips.findClip(clip.id))?.status).toBe('GENERATING');
        await store.jobs.fail(clip.jobId, 'w', `failure ${attempt}`);
        clock.advance(10 * 60_000);
      }
      expect(await store.clips.findClip(clip.id)).toMatchObject({ status: 'ERROR', lastError: 'failure 3' });
      expect(await store.clips.retryClip(clip.id, admin)).toBe(true);
      expect(await store.clips.retryClip(clip.id, admin)).toBe(false);
      expect(await store.clips.findClip(clip.id)).toMatchObject({ status: 'GENERATING', lastError: null });
      await store.jobs.claim('w', LEASE);
      await store.jobs.complete(clip.jobId, 'w');
      expect((await store.clips.findClip(clip.id))?.status).toBe('GENERATED');
      expect((await store.audit.list({ action: 'clip.retry' })).map((e) => e.subject)).toEqual([clip.id]);
      expect(await store.clips.retryClip(uuid(99, 'c1c1c1c1'), admin)).toBe(false);
    });

    it('refuses a range ffmpeg cannot cut: empty, past the end, or starting after the last frame (unrecorded: within the last second)', async () => {
      await store.videos.saveVideo(videoOf(2, { lastFrameMs: 59_960 }), admin);
      const refused = async (n: number, startMs: number, endMs: number) => (await refusal(store.clips.createClip({ sessionId: session(n), startMs, endMs, name: 'x' }, admin))).message;
      expect(await refused(2, 59_961, 60_000)).toBe(
        "a clip must start at or before the video's last frame, at 59960 ms: startMs 59961 is after it, so the clip would have no picture",
      );
      expect(await refused(1, 59_001, 60_000)).toBe(
        "a clip must start at least a second before the video's end (60000 ms) while the time of its last frame is not recorded: startMs 59001 is after 59000 (importing the video again records it)",
      );
      expect(await refused(1, 3000, 3000)).toBe('a clip must end after it starts: endMs 3000 is not after startMs 3000');
      expect(await store.jobs.list()).toEqual([]);
      expect((await store.clips.createClip({ sessionId: session(2), startMs: 59_960, endMs: 60_000, name: 'Last frame' }, admin)).startMs).toBe(59_960);
      expect((await store.clips.createClip({ sessionId: session(1), startMs: 59_000, endMs: 60_000, name: 'Last second' }, admin)).startMs).toBe(59_000);
    });

    it('restartClip starts a failed clip over, audited, and says why it will not: not failed, missing, or no longer cuttable', async () => {
      const clip = await store.clips.createClip({ sessionId: session(1), startMs: 50_000, endMs: 55_000, name: 'C' }, admin);
      expect((await refusal(store.clips.restartClip(clip.id, admin))).message).toBe(`clip ${clip.id} is GENERATING, not ERROR: only a failed clip can be retried`);
      expect((await refusal(store.clips.restartClip(uuid(99, 'c1c1c1c1'), admin))).code).toBe('not_found');
      await failAll(clip.jobId);
      // The video replaced by a shorter one: the clip can never be cut again, so it stays ERROR.
      await store.videos.saveVideo(videoOf(1, { contentSha256: 'f'.repeat(64), durationMs: 10_000 }), admin);
      expect((await refusal(store.clips.restartClip(clip.id, admin))).message).toBe('the clip must end within the video: --end-ms 55000 is past its end at 10000 ms');
      expect(await store.clips.retryClip(clip.id, admin)).toBe(false);
      expect((await store.clips.findClip(clip.id))?.status).toBe('ERROR');
      await store.videos.saveVideo(videoOf(1), admin);
      expect(await store.clips.restartClip(clip.id, admin)).toMatchObject({ id: clip.id, status: 'GENERATING', lastError: null });
      expect((await store.clips.findClip(clip.id))?.status).toBe('GENERATING');
      expect((await store.audit.list({ action: 'clip.retry' })).map((e) => e.subject)).toEqual([clip.id]);
    });

    it('refuses a reel, and its restart, when one of its clips can no longer be cut, naming it', async () => {
      const first = await store.clips.createClip({ sessionId: session(2), startMs: 0, endMs: 1000, name: 'First' }, admin);
      const late = await store.clips.createClip({ sessionId: session(1), startMs: 50_000, endMs: 55_000, name: 'Late' }, admin);
      const reel = await store.reels.createReel({ testId, name: 'R', clipIds: [first.id, late.id] }, admin);
      await store.videos.saveVideo(videoOf(1, { contentSha256: 'f'.repeat(64), durationMs: 10_000 }), admin);
      const uncut = `clipIds[1]: clip ${late.id} cannot be cut from its session's video: the clip must end within the video: --end-ms 55000 is past its end at 10000 ms`;
      expect(await refusal(store.reels.createReel({ testId, name: 'x', clipIds: [first.id, late.id] }, admin))).toMatchObject({ code: 'out_of_range', message: uncut });
      expect((await store.reels.listReels(testId)).map((r) => r.id)).toEqual([reel.id]);
      // Every attempt of every job fails, whichever is claimed first, until the reel is in ERROR.
      for (let round = 0; round < 30 && (await store.reels.findReel(reel.id))?.status !== 'ERROR'; round++) {
        const job = await store.jobs.claim('w', LEASE);
        if (job) await store.jobs.fail(job.id, 'w', 'broken');
        else clock.advance(10 * 60_000);
      }
      expect((await store.reels.findReel(reel.id))?.status).toBe('ERROR');
      expect((await refusal(store.reels.restartReel(reel.id, admin))).message).toBe(uncut);
      expect(await store.reels.retryReel(reel.id, admin)).toBe(false);
      expect((await refusal(store.reels.restartReel(uuid(99, 'eeeeeee0'), admin))).code).toBe('not_found');
      expect(await store.audit.list({ action: 'reel.retry' })).toEqual([]);
    });

    it('creates a reel of clips of one test in the order given, with a random token, and counts the test\'s clips', async () => {
      const a = await store.clips.createClip({ sessionId: session(1), startMs: 0, endMs: 1500, name: 'A' }, admin);
      const b = await store.clips.createClip({ sessionId: session(2), startMs: 2000, endMs: 4500, name: 'B' }, admin);
      const reel = await store.reels.createReel({ testId, name: 'Highlights', clipIds: [b.id, a.id] }, admin);
      expect(reel).toMatchObject({ testId, name: 'Highlights', clipIds: [b.id, a.id], durationMs: 4000, status: 'GENERATING', createdAt: T0, updatedAt: T0 });
      expect(reel.token).toMatch(/^[0-9a-f]{20}$/);
      expect(await store.reels.findReel(reel.id)).toEqual(reel);
      expect(await store.reels.findReelByToken(reel.token)).toEqual(reel);
      expect(await store.reels.findReelByToken('0'.repeat(20))).toBeNull();
      expect(await store.jobs.get(reel.jobId)).toMatchObject({ kind: REEL_JOB, subject: reel.id });
      clock.advance(1);
      const second = await store.reels.createReel({ testId, name: 'Second', clipIds: [a.id] }, admin);
      expect(second.token).not.toBe(reel.token);
      expect((await store.reels.listReels(testId)).map((r) => r.id)).toEqual([reel.id, second.id]);
      expect(await store.reels.listReels(otherTestId)).toEqual([]);
      expect(await store.reels.countClipsOfTest(testId)).toBe(2);
      expect(await store.reels.countClipsOfTest(otherTestId)).toBe(0);
    });

    it('refuses a reel of a missing test, a missing clip, another test\'s clip or a clip listed twice, writing nothing', async () => {
      const mine = await store.clips.createClip({ sessionId: session(1), startMs: 0, endMs: 1000, name: 'Mine' }, admin);
      const theirs = await store.clips.createClip({ sessionId: session(4), startMs: 0, endMs: 1000, name: 'Theirs' }, admin);
      const jobsBefore = (await store.jobs.list()).length;
      expect((await refusal(store.reels.createReel({ testId: uuid(99, 'eeeeeee0'), name: 'x', clipIds: [mine.id] }, admin))).code).toBe('not_found');
      expect((await refusal(store.reels.createReel({ testId, name: 'x', clipIds: [uuid(99, 'c1c1c1c1')] }, admin))).code).toBe('not_found');
      expect((await refusal(store.reels.createReel({ testId, name: 'x', clipIds: [mine.id, theirs.id] }, admin))).code).toBe('foreign_session');
      expect((await refusal(store.reels.createReel({ testId, name: 'x', clipIds: [mine.id, mine.id] }, admin))).code).toBe('duplicate');
      expect(await store.reels.listReels(testId)).toEqual([]);
      expect(await store.jobs.list()).toHaveLength(jobsBefore);
    });

    it('only a reel in ERROR is started over', async () => {
      const clip = await store.clips.createClip({ sessionId: session(1), startMs: 0, endMs: 1000, name: 'C' }, admin);
      const reel = await store.reels.createReel({ testId, name: 'R', clipIds: [clip.id] }, admin);
      expect(await store.reels.retryReel(reel.id, admin)).toBe(false);
      // Both jobs are due at the same instant, so they are claimed in either order: claim both,
      // take the clip's out of the way, then fail the reel's three times.
      expect(new Set([(await store.jobs.claim('w', LEASE))?.id, (await store.jobs.claim('w', LEASE))?.id])).toEqual(new Set([clip.jobId, reel.jobId]));
      await store.jobs.complete(clip.jobId, 'w');
      for (let attempt = 1; attempt <= 3; attempt++) {
        if (attempt > 1) expect((await store.jobs.claim('w', LEASE))?.id).toBe(reel.jobId);
        await store.jobs.fail(reel.jobId, 'w', `broken ${attempt}`);
        clock.advance(10 * 60_000);
      }
      expect(await store.reels.findReel(reel.id)).toMatchObject({ status: 'ERROR', lastError: 'broken 3' });
      expect(await store.reels.retryReel(reel.id, admin)).toBe(true);
      expect((await store.reels.findReel(reel.id))?.status).toBe('GENERATING');
      expect((await store.audit.list({ action: 'reel.retry' })).map((e) => e.subject)).toEqual([reel.id]);
    });
  });
}
