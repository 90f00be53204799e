/**
 * The videos repository's contract, run unchanged on every database (wired in beside
 * describeStoreContract). `makeStore` returns an unmigrated store over a fresh database.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import type { Announce } from './database.js';
import { StoreConflictError } from './conflicts.js';
import type { Store } from './open-store.js';
import type { VideoInput } from './videos.js';

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
  });
}
