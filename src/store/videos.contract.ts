/**
 * The videos repository's contract, run unchanged on every database (wired in beside
 * describeStoreContract). `makeStore` returns an unmigrated store over a fresh database.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import type { Announce } from './database.js';
import { StoreConflictError } from './conflicts.js';
import type { Store } from './open-store.js';
import type { VideoInput, VideoObjects } from './videos.js';

const T0 = Date.UTC(2026, 0, 1);
const by = { actor: 'cli:admin' };
const uuid = (n: number, prefix = '00000000'): string => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const testId = uuid(1, '7e570000');
const sessionId = (n: number) => uuid(n, '5e55105e');

const video = (n: number, sha = 'a'.repeat(64), extra: Partial<VideoInput> = {}): VideoInput => ({
  sessionId: sessionId(n),
  objectKey: `videos/${sessionId(n)}/${sha}.mp4`,
  posterKey: `videos/${sessionId(n)}/${sha}.jpg`,
  contentSha256: sha,
  contentType: 'video/mp4',
  sizeBytes: 3_000_000_000,
  durationMs: 4_000,
  lastFrameMs: 3_960,
  width: 1280,
  height: 720,
  hasAudio: true,
  regions: { screen: { topLeftPoint: { x: 0, y: 0 }, widthPx: 1280, heightPx: 720 } },
  ...extra,
});

export function describeVideoContract(name: string, makeStore: (clock: ManualClock, announce: Announce) => Promise<Store>): void {
  describe(`Video repository contract: ${name}`, () => {
    let clock: ManualClock;
    let store: Store;
    let announced: unknown[];

    beforeEach(async () => {
      clock = new ManualClock(T0);
      announced = [];
      store = await makeStore(clock, async (change) => void announced.push(change));
      await store.database.migrate();
      await store.directory.createWorkspace({ id: uuid(1, 'a0c0ffee'), name: 'W' }, by);
      await store.directory.createTest({ id: testId, workspaceId: uuid(1, 'a0c0ffee'), title: 'T', productType: 'THINK_OUT_LOUD' }, by);
      await store.sessions.importSessions(
        testId,
        [1, 2].map((n) => ({ sessionId: sessionId(n), audienceId: null, status: 'COMPLETE', startTime: T0 + n, finishTime: null })),
        by,
      );
      announced.length = 0;
    });
    afterEach(async () => {
      await store.database.close();
    });

    it('saves a video and reads it back whole (sizes past 2^31, regions, booleans)', async () => {
      const saved = await store.videos.saveVideo(video(1), by);
      expect(saved.outcome).toBe('inserted');
      expect(saved.replaced).toBeNull();
      const found = await store.videos.findVideo(sessionId(1));
      expect(found).toEqual({ ...video(1), testId, importedAt: T0 });
      expect(await store.videos.findVideo(sessionId(2))).toBeNull();
      expect((await store.audit.list()).at(-1)).toMatchObject({ action: 'video.import', subject: sessionId(1), actor: 'cli:admin' });
      // Nothing cached depends on videos.
      expect(announced).toEqual([]);
    });

    it('the same bytes again change nothing and are not audited', async () => {
      await store.videos.saveVideo(video(1), by);
      const events = (await store.audit.list()).length;
      clock.advance(1000);
      const again = await store.videos.saveVideo(video(1), by);
      expect(again.outcome).toBe('unchanged');
      expect(again.video.importedAt).toBe(T0);
      expect((await store.audit.list()).length).toBe(events);
    });

    it('other bytes replace the video and report the one replaced', async () => {
      await store.videos.saveVideo(video(1), by);
      clock.advance(1000);
      const replaced = await store.videos.saveVideo(video(1, 'b'.repeat(64), { hasAudio: false, regions: {} }), by);
      expect(replaced.outcome).toBe('updated');
      expect(replaced.replaced?.contentSha256).toBe('a'.repeat(64));
      expect(await store.videos.findVideo(sessionId(1))).toMatchObject({ contentSha256: 'b'.repeat(64), hasAudio: false, regions: {}, importedAt: T0 + 1000 });
    });

    it("keeps when the last frame starts; a video saved without it reads null, and the same bytes with it record it", async () => {
      const { lastFrameMs: _, ...unrecorded } = video(1);
      expect((await store.videos.saveVideo(unrecorded, by)).video.lastFrameMs).toBeNull();
      expect((await store.videos.findVideo(sessionId(1)))?.lastFrameMs).toBeNull();
      const recorded = await store.videos.saveVideo(video(1), by);
      expect(recorded.outcome).toBe('updated');
      expect((await store.videos.findVideo(sessionId(1)))?.lastFrameMs).toBe(3_960);
      expect((await store.videos.saveVideo(video(1), by)).outcome).toBe('unchanged');
    });

    it('tells which of a page of sessions have a video and which a transcript', async () => {
      await store.videos.saveVideo(video(1), by);
      await store.transcripts.importTranscripts(testId, [{ sessionId: sessionId(2), vtt: 'WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n' }], by);
      const media = await store.sessions.mediaOf([sessionId(1), sessionId(2), sessionId(9)]);
      expect(media).toEqual({ videos: new Set([sessionId(1)]), transcripts: new Set([sessionId(2)]) });
      expect(await store.sessions.mediaOf([])).toEqual({ videos: new Set(), transcripts: new Set() });
    });

    it('refuses a video for a session that does not exist', async () => {
      const error = await store.videos.saveVideo(video(9), by).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreConflictError);
      expect((error as StoreConflictError).code).toBe('not_found');
      expect(await store.videos.findVideo(sessionId(9))).toBeNull();
    });

    it("lists a test's videos by session id", async () => {
      await store.videos.saveVideo(video(2, 'c'.repeat(64), { posterKey: null }), by);
      await store.videos.saveVideo(video(1), by);
      expect((await store.videos.listVideos(testId)).map((v) => [v.sessionId, v.posterKey])).toEqual([
        [sessionId(1), video(1).posterKey],
        [sessionId(2), null],
      ]);
      expect(await store.videos.listVideos(uuid(9))).toEqual([]);
    });
    describe('shared objects (named by content): deleted only when no row names them', () => {
      const shared: VideoObjects = (({ sessionId: _, ...objects }) => ({ ...objects, objectKey: 'videos/ab/shared.mp4', posterKey: 'videos/ab/shared.poster.jpg' }))(video(1));
      const removing = () => {
        const removed: string[] = [];
        return { removed, remove: async (key: string) => void removed.push(key) };
      };

      it('attaches one stored video to many sessions by reference; a session with a video keeps it; one audit entry', async () => {
        await store.sessions.importSessions(testId, [3, 4].map((n) => ({ sessionId: sessionId(n), audienceId: null, status: 'COMPLETE', startTime: T0 + n, finishTime: null })), by);
        await store.videos.saveVideo(video(2, 'c'.repeat(64)), by);
        announced.length = 0;
        let ensured = 0;
        const result = await store.videos.attachVideo(testId, [1, 2, 3, 4].map(sessionId), shared, by, async () => void ensured++);
        expect(result).toEqual({ inserted: 3, kept: 1 });
        expect(ensured).toBe(1);
        for (const n of [1, 3, 4]) expect(await store.videos.findVideo(sessionId(n))).toEqual({ ...shared, sessionId: sessionId(n), testId, importedAt: T0 });
        expect((await store.videos.findVideo(sessionId(2)))?.contentSha256).toBe('c'.repeat(64));
        expect((await store.audit.list({ action: 'video.attach' })).map((e) => [e.subject, e.details])).toEqual([[testId, { sha256: shared.contentSha256, inserted: 3, kept: 1 }]]);
        // Again: nothing to give, nothing audited.
        expect(await store.videos.attachVideo(testId, [1, 3].map(sessionId), shared, by)).toEqual({ inserted: 0, kept: 2 });
        expect(await store.audit.list({ action: 'video.attach' })).toHaveLength(1);
        expect(announced).toEqual([]);
      });

      it('refuses, all or nothing, a session that is not of the test', async () => {
        const error = await store.videos.attachVideo(testId, [sessionId(1), sessionId(9)], shared, by).catch((e: unknown) => e);
        expect((error as StoreConflictError).code).toBe('not_found');
        expect(await store.videos.findVideo(sessionId(1))).toBeNull();
      });

      it('keeps an object while any row names it, as a video or as a poster, and deletes it once none does', async () => {
        await store.videos.attachVideo(testId, [1, 2].map(sessionId), shared, by);
        const { removed, remove } = removing();
        expect(await store.videos.releaseObjects([shared.objectKey, shared.posterKey, null], remove)).toEqual({ removed: [], failed: [] });
        // Session 1 moves on; session 2 still names both objects.
        await store.videos.saveVideo(video(1, 'b'.repeat(64)), by);
        expect(await store.videos.releaseObjects([shared.objectKey, shared.posterKey], remove)).toEqual({ removed: [], failed: [] });
        // A poster named by another row is kept though the video it came with goes.
        await store.videos.saveVideo({ ...video(2, 'd'.repeat(64)), posterKey: shared.posterKey }, by);
        expect(await store.videos.releaseObjects([shared.objectKey, shared.posterKey], remove)).toEqual({ removed: [shared.objectKey], failed: [] });
        await store.videos.saveVideo(video(2, 'd'.repeat(64)), by);
        expect(await store.videos.releaseObjects([shared.posterKey, shared.posterKey], remove)).toEqual({ removed: [shared.posterKey], failed: [] });
        expect(removed).toEqual([shared.objectKey, shared.posterKey]);
      });

      it('reports an object it could not delete, and goes on with the others', async () => {
        const result = await store.videos.releaseObjects(['videos/ab/a.mp4', 'videos/ab/b.mp4'], async (key) => {
          if (key.endsWith('a.mp4')) throw new Error('storage down');
        });
        expect(result).toEqual({ removed: ['videos/ab/b.mp4'], failed: ['videos/ab/a.mp4'] });
      });

      it('a writer naming an object waits for a release deleting it, then makes sure it is stored again', async () => {
        let deleted = false;
        let releaseHolds!: () => void;
        const holding = new Promise<void>((resolve) => (releaseHolds = resolve));
        let letGo!: () => void;
        const gone = new Promise<void>((resolve) => (letGo = resolve));
        const release = store.videos.releaseObjects([shared.objectKey], async () => {
          releaseHolds();
          await gone;
          deleted = true;
        });
        await holding;
        let sawDeleted: boolean | undefined;
        const save = store.videos.attachVideo(testId, [sessionId(1)], shared, by, async () => void (sawDeleted = deleted));
        // Give the writer every chance to run ahead of the release, were the lock missing.
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(sawDeleted).toBeUndefined();
        letGo();
        expect(await release).toEqual({ removed: [shared.objectKey], failed: [] });
        expect(await save).toEqual({ inserted: 1, kept: 0 });
        expect(sawDeleted).toBe(true);
      });
    });
  });
}
