/**
 * Highlight reels end to end, on SQLite and on PostgreSQL: clips of two sessions (one video
 * without sound, another of another size) joined by ffmpeg in a job, the real "Video Data"
 * reel operations over HTTP, and visibility (the same 404 for missing and foreign).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { jobHandlers } from '../../src/serve/start-job-runner.js';
import type { FilesystemMediaStorage } from '../../src/media/storage/filesystem-storage.js';
import { StoreConflictError } from '../../src/store/conflicts.js';
import { reelObjectKey, reelPosterKey } from '../../src/store/reels.js';
import { generateTestVideo } from '../../src/media/ffmpeg/test-video.js';
import { attachVideo, probeDurationMs } from '../helpers/clip-videos.js';
import { freshPostgresSchema } from '../helpers/postgres.js';
import { makeSessions, seed, seedClient, seedTest, seedWorkspace, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';
import { until } from '../helpers/until.js';
import { hasFfmpeg } from '../helpers/videos.js';

/** Real ffmpeg: without it these suites skip with a warning, and fail in CI. */
const haveFfmpeg = hasFfmpeg();

const dir = mkdtempSync(join(tmpdir(), 'results-api-reels-'));
const withSound = join(dir, 'with-sound.mp4');
const silentWide = join(dir, 'silent-wide.mp4');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  if (haveFfmpeg) await Promise.all([generateTestVideo(withSound, { seconds: 4 }), generateTestVideo(silentWide, { seconds: 4, audio: false, size: '480x270' })]);
}, 60_000);

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const by = { actor: 'test' };



for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(!haveFfmpeg)(`highlight reels on ${dialect}`, () => {
    let t: TestApp;
    let pgDatabase: { url: string; drop(): Promise<void> } | null = null;
    let runner: JobRunner;
    let s: Seeded;
    let token: string;
    let skip = false;

    beforeAll(async () => {
      if (dialect === 'postgres') {
        pgDatabase = await freshPostgresSchema('t_reels');
        if (!pgDatabase) {
          skip = true;
          return;
        }
      }
      t = await startTestApp({ env: { MEDIA_URL: `file:${join(dir, `media-${dialect}`)}`, ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}) } });
      runner = new JobRunner(t.runtime.store.jobs, jobHandlers(t.runtime), { concurrency: 1, leaseMs: 30_000, pollMs: 20, log: quiet });
      runner.start();
      s = await seed(t.runtime, { sessions: 2 });
      await attachVideo(t.runtime, s.sessions[0]!.sessionId, withSound);
      await attachVideo(t.runtime, s.sessions[1]!.sessionId, silentWide, 4000, { hasAudio: false, width: 480, height: 270 });
      token = await mintToken(t, s);
    }, 60_000);

    afterAll(async () => {
      await runner?.stop();
      await t?.close();
      await pgDatabase?.drop();
    });

    const get = (path: string, bearer = token) => fetch(`${t.url}${path}`, { headers: authHeaders(bearer) });
    const reelsPath = (testId: string) => `/api/v2/testResults/${testId}/highlightreels`;

    it('joins clips of two sessions into one reel: GENERATING, then GENERATED with a 15-minute link', { timeout: 120_000 }, async (ctx) => {
      if (skip) return ctx.skip();
      const a = await t.runtime.store.clips.createClip({ sessionId: s.sessions[0]!.sessionId, startMs: 500, endMs: 2000, name: 'A' }, by);
      const b = await t.runtime.store.clips.createClip({ sessionId: s.sessions[1]!.sessionId, startMs: 1000, endMs: 2000, name: 'B' }, by);
      const reel = await t.runtime.store.reels.createReel({ testId: s.testId, name: 'Checkout highlights', clipIds: [b.id, a.id] }, by);
      expect(reel).toMatchObject({ durationMs: 2500, status: 'GENERATING' });

      const list = await get(reelsPath(s.testId));
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual({
        reels: [{ uuid: reel.id, highlightReelToken: reel.token, name: 'Checkout highlights', durationMs: 2500, lastUpdatedAtMs: reel.updatedAt, numClips: 2, areAllClipsInReel: true }],
        studyWithClips: true,
      });
      expect(await (await get(`${reelsPath(s.testId)}/${reel.id}`)).json()).toEqual({ reelId: reel.id, status: 'GENERATING', reelUrl: null });

      await until('the reel is made', async () => (await t.runtime.store.reels.findReel(reel.id))?.status === 'GENERATED');
      const details = (await (await get(`${reelsPath(s.testId)}/${reel.id}`)).json()) as { status: string; reelUrl: string };
      expect(details.status).toBe('GENERATED');
      const link = new URL(details.reelUrl);
      expect(Number(link.searchParams.get('expires')) * 1000 - Date.now()).toBeLessThanOrEqual(15 * 60_000);
      const download = await fetch(`${t.url}${link.pathname}${link.search}`);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('video/mp4');
      await download.arrayBuffer();
      const storage = t.runtime.media.storage as FilesystemMediaStorage;
      expect(Math.abs((await probeDurationMs(storage.pathOf(reelObjectKey(reel.id)))) - 2500)).toBeLessThan(200);
      expect(await storage.stat(reelPosterKey(reel.id))).not.toBeNull();

      // A third clip of the test: the reel no longer holds them all.
      await t.runtime.store.clips.createClip({ sessionId: s.sessions[0]!.sessionId, startMs: 0, endMs: 500, name: 'C' }, by);
      const after = (await (await get(reelsPath(s.testId))).json()) as { reels: { areAllClipsInReel: boolean }[] };
      expect(after.reels[0]!.areAllClipsInReel).toBe(false);
    });

    it('the v1 highlightreel operation is reached by the token the v2 list shows; its id is numeric, editUrlPath the console page; a uuid is a 404', async (ctx) => {
      if (skip) return ctx.skip();
      const { reels } = (await (await get(reelsPath(s.testId))).json()) as { reels: { uuid: string; highlightReelToken: string }[] };
      const listed = reels[0]!;
      expect(listed.highlightReelToken).toMatch(/^[0-9a-f]{20}$/);
      for (const prefix of ['/usertesting/api/v1', '/v1']) {
        const res = await get(`${prefix}/highlightreel/${listed.highlightReelToken}`);
        expect(res.status).toBe(200);
        const reel = (await res.json()) as { id: string; token: string; editUrlPath: string; title: string };
        expect(reel.token).toBe(listed.highlightReelToken);
        expect(reel.id).toMatch(/^[1-9][0-9]*$/);
        expect(reel.id).not.toContain(listed.uuid);
        expect(reel.editUrlPath).toBe(`/#/tests/${s.testId}?reel=${listed.uuid}`);
        // A reel's uuid (or any text that is no token) is answered as an unknown token, never as a malformed parameter.
        for (const wrong of [listed.uuid, 'not-a-token', listed.highlightReelToken.toUpperCase()]) {
          const missing = await get(`${prefix}/highlightreel/${wrong}`);
          expect(missing.status, wrong).toBe(404);
          expect(await missing.json()).toEqual({ errorCode: 'NOT_FOUND', errorMessage: 'Highlight reel not found' });
        }
      }
    });

    it('refuses a reel of an unknown clip, of another test\'s clip, or of a clip listed twice, writing nothing', async (ctx) => {
      if (skip) return ctx.skip();
      const mine = await t.runtime.store.clips.createClip({ sessionId: s.sessions[0]!.sessionId, startMs: 0, endMs: 1000, name: 'Mine' }, by);
      const other = await seed(t.runtime, { sessions: 1 });
      await attachVideo(t.runtime, other.sessions[0]!.sessionId, withSound);
      const theirs = await t.runtime.store.clips.createClip({ sessionId: other.sessions[0]!.sessionId, startMs: 0, endMs: 1000, name: 'Theirs' }, by);
      const before = (await t.runtime.store.reels.listReels(s.testId)).length;
      for (const clipIds of [[crypto.randomUUID()], [mine.id, theirs.id], [mine.id, mine.id]]) {
        await expect(t.runtime.store.reels.createReel({ testId: s.testId, name: 'x', clipIds }, by)).rejects.toBeInstanceOf(StoreConflictError);
      }
      expect(await t.runtime.store.reels.listReels(s.testId)).toHaveLength(before);
    });

    it('the same 404 for a missing test and one outside the caller\'s workspaces, and for a reel of another test', async (ctx) => {
      if (skip) return ctx.skip();
      const stranger = await seedClient(t.runtime);
      const otherWorkspace = await seedWorkspace(t.runtime, [stranger.email]);
      const sessions = makeSessions(1);
      const foreignTest = await seedTest(t.runtime, otherWorkspace, sessions, { productType: 'THINK_OUT_LOUD' });
      await attachVideo(t.runtime, sessions[0]!.sessionId, withSound);
      const clip = await t.runtime.store.clips.createClip({ sessionId: sessions[0]!.sessionId, startMs: 0, endMs: 500, name: 'F' }, by);
      const foreignReel = await t.runtime.store.reels.createReel({ testId: foreignTest, name: 'Theirs', clipIds: [clip.id] }, by);

      const lists = await Promise.all([get(reelsPath(foreignTest)), get(reelsPath(crypto.randomUUID()))]);
      expect(lists.map((r) => r.status)).toEqual([404, 404]);
      const [first, second] = await Promise.all(lists.map((r) => r.json()));
      expect(first).toEqual(second);
      const details = await Promise.all([
        get(`${reelsPath(foreignTest)}/${foreignReel.id}`),
        get(`${reelsPath(s.testId)}/${foreignReel.id}`),
        get(`${reelsPath(s.testId)}/${crypto.randomUUID()}`),
      ]);
      expect(details.map((r) => r.status)).toEqual([404, 404, 404]);
      const bodies = await Promise.all(details.map((r) => r.json()));
      for (const body of bodies) expect(body).toEqual(bodies[0]);
      expect(bodies[0]).toMatchObject({ detail: 'Highlight reel not found' });
      // A test with no clips at all.
      const bare = await seedTest(t.runtime, s.workspaceId);
      expect(await (await get(reelsPath(bare))).json()).toEqual({ reels: [], studyWithClips: false });
      expect((await get(`${reelsPath('nope')}`)).status).toBe(400);
    });
  });
}
