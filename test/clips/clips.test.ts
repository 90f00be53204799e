/**
 * Clips end to end, on SQLite and on PostgreSQL: a real session video (ffmpeg's test
 * pattern), a clip cut by ffmpeg in a job, the real "Video Data" clip operations over HTTP,
 * a retry after ERROR, and visibility (the same 404 for missing and foreign) on both routes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { FilesystemMediaStorage } from '../../src/media/storage/filesystem-storage.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { jobHandlers } from '../../src/serve/start-job-runner.js';
import { clipObjectKey, clipPosterKey } from '../../src/store/clips.js';
import { retryDelayMs } from '../../src/store/jobs.js';
import { generateTestVideo } from '../../src/media/ffmpeg/test-video.js';
import { attachVideo, probeDurationMs } from '../helpers/clip-videos.js';
import { freshPostgresSchema } from '../helpers/postgres.js';
import { seed, seedClient, seedTest, seedWorkspace, makeSessions, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';
import { until } from '../helpers/until.js';
import { hasFfmpeg } from '../helpers/videos.js';

/** Real ffmpeg: without it these suites skip with a warning, and fail in CI. */
const haveFfmpeg = hasFfmpeg();

const dir = mkdtempSync(join(tmpdir(), 'results-api-clips-'));
const sourceVideo = join(dir, 'session.mp4');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  if (haveFfmpeg) await generateTestVideo(sourceVideo, { seconds: 4 });
}, 60_000);

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const by = { actor: 'test' };



for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(!haveFfmpeg)(`clips on ${dialect}`, () => {
    const clock = new ManualClock(Date.now());
    let t: TestApp;
    let pgDatabase: { url: string; drop(): Promise<void> } | null = null;
    let runner: JobRunner;
    let s: Seeded;
    let token: string;
    let sessionId: string;
    let skip = false;

    beforeAll(async () => {
      if (dialect === 'postgres') {
        pgDatabase = await freshPostgresSchema('t_clips');
        if (!pgDatabase) {
          skip = true;
          return;
        }
      }
      const media = join(dir, `media-${dialect}`);
      t = await startTestApp({ clock, env: { MEDIA_URL: `file:${media}`, ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}) } });
      runner = new JobRunner(t.runtime.store.jobs, jobHandlers(t.runtime), { concurrency: 1, leaseMs: 30_000, pollMs: 20, log: silent });
      runner.start();
      s = await seed(t.runtime, { sessions: 2 });
      sessionId = s.sessions[0]!.sessionId;
      await attachVideo(t.runtime, sessionId, sourceVideo);
      token = await mintToken(t, s);
    }, 60_000);

    afterAll(async () => {
      await runner?.stop();
      await t?.close();
      await pgDatabase?.drop();
    });

    const get = (path: string, bearer = token) => fetch(`${t.url}${path}`, { headers: authHeaders(bearer) });
    const clipsPath = (session: string) => `/api/v2/sessionResults/${session}/clips`;
    // Polled in the store: polling over HTTP would spend the rate limit of a frozen clock's window.
    const statusOf = async (clipId: string) => (await t.runtime.store.clips.findClip(clipId))?.status;

    it('cuts a clip in a job: GENERATING, then GENERATED with a 15-minute link to an MP4 of the right length and a poster', { timeout: 120_000 }, async (ctx) => {
      if (skip) return ctx.skip();
      const clip = await t.runtime.store.clips.createClip({ sessionId, startMs: 1000, endMs: 2500, name: 'Checkout hesitation', description: 'Pauses at the total' }, by);

      const list = await get(clipsPath(sessionId));
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual({
        studyUuid: s.testId,
        clips: [
          {
            uuid: clip.id,
            name: 'Checkout hesitation',
            description: 'Pauses at the total',
            timeStartMs: 1000,
            timeEndMs: 2500,
            videoUuid: sessionId,
            hasAudio: true,
            hasCamera: false,
            layout: { mainStream: 'SCREEN', pipPosition: 'BOTTOM_RIGHT', pipState: 'CLOSED' },
          },
        ],
        videoRegions: { screen: { topLeftPoint: { x: 0, y: 0 }, widthPx: 320, heightPx: 240 } },
      });

      await until('the clip is generated', async () => (await statusOf(clip.id)) === 'GENERATED');
      const res = await get(`${clipsPath(sessionId)}/${clip.id}`);
      const body = (await res.json()) as { clipUuid: string; status: string; clipUrl: string };
      expect(body).toMatchObject({ clipUuid: clip.id, status: 'GENERATED' });
      const link = new URL(body.clipUrl);
      const check = t.runtime.media.links.check(link.pathname.replace(/^\/media\//, ''), Object.fromEntries(link.searchParams));
      expect(check).toMatchObject({ ok: true, key: clipObjectKey(clip.id) });
      expect(Number(link.searchParams.get('expires')) * 1000 - clock.now()).toBeLessThanOrEqual(15 * 60_000);
      expect(Number(link.searchParams.get('expires')) * 1000 - clock.now()).toBeGreaterThan(14 * 60_000);

      // Served by this server's media link route (the link names BASE_URL; the test app listens elsewhere).
      const download = await fetch(`${t.url}${link.pathname}${link.search}`);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('video/mp4');
      const bytes = (await download.arrayBuffer()).byteLength;
      const storage = t.runtime.media.storage as FilesystemMediaStorage;
      expect(bytes).toBe((await storage.stat(clipObjectKey(clip.id)))?.size);
      expect(Math.abs((await probeDurationMs(storage.pathOf(clipObjectKey(clip.id)))) - 1500)).toBeLessThan(150);
      expect((await storage.stat(clipPosterKey(clip.id)))?.contentType).toBe('image/jpeg');
      expect((await t.runtime.store.jobs.get(clip.jobId))).toMatchObject({ state: 'done', attempts: 1 });
    });

    it('a clip whose cut fails ends in ERROR; a GET then starts a new attempt', { timeout: 120_000 }, async (ctx) => {
      if (skip) return ctx.skip();
      // A second session whose stored video is not a video: ffmpeg refuses it on every attempt.
      const broken = s.sessions[1]!.sessionId;
      const video = await attachVideo(t.runtime, broken, sourceVideo);
      const storage = t.runtime.media.storage as FilesystemMediaStorage;
      writeFileSync(storage.pathOf(video.objectKey), 'not a video');
      const clip = await t.runtime.store.clips.createClip({ sessionId: broken, startMs: 0, endMs: 1000, name: 'Broken' }, by);
      const details = () => get(`${clipsPath(broken)}/${clip.id}`).then((r) => r.json() as Promise<{ status: string; clipUrl?: string | null }>);
      for (let attempt = 1; attempt <= 3; attempt++) {
        await until(`attempt ${attempt} failed`, async () => {
          const job = await t.runtime.store.jobs.get(clip.jobId);
          return job!.attempts === attempt && job!.state !== 'running';
        });
        clock.advance(retryDelayMs(attempt));
      }
      expect(await t.runtime.store.jobs.get(clip.jobId)).toMatchObject({ state: 'error', lastError: expect.stringMatching(/^ffmpeg failed: .*Invalid data/) as string });
      expect((await t.runtime.store.audit.list({ action: 'job.fail' })).map((e) => e.details.subject)).toContain(clip.id);

      // The video is imported again; the GET that reports ERROR starts a new attempt, which succeeds.
      await attachVideo(t.runtime, broken, sourceVideo);
      expect(await details()).toEqual({ clipUuid: clip.id, status: 'ERROR', clipUrl: null });
      await until('the new attempt generated the clip', async () => (await statusOf(clip.id)) === 'GENERATED');
      expect((await details()).status).toBe('GENERATED');
      expect((await t.runtime.store.audit.list({ action: 'clip.retry' })).map((e) => e.subject)).toEqual([clip.id]);
    });

    it('the same 404 for a missing session and one outside the caller\'s workspaces; 404 for a clip of another session', async (ctx) => {
      if (skip) return ctx.skip();
      const clip = await t.runtime.store.clips.createClip({ sessionId, startMs: 0, endMs: 500, name: 'Visible' }, by);
      // Another workspace's session with a video and a clip.
      const stranger = await seedClient(t.runtime);
      const otherWorkspace = await seedWorkspace(t.runtime, [stranger.email]);
      const otherSessions = makeSessions(1);
      await seedTest(t.runtime, otherWorkspace, otherSessions, { productType: 'THINK_OUT_LOUD' });
      const foreignSession = otherSessions[0]!.sessionId;
      await attachVideo(t.runtime, foreignSession, sourceVideo);
      const foreignClip = await t.runtime.store.clips.createClip({ sessionId: foreignSession, startMs: 0, endMs: 500, name: 'Foreign' }, by);

      const missing = crypto.randomUUID();
      const answers = await Promise.all([
        get(clipsPath(foreignSession)),
        get(clipsPath(missing)),
        get(`${clipsPath(foreignSession)}/${foreignClip.id}`),
        get(`${clipsPath(missing)}/${clip.id}`),
      ]);
      const bodies = await Promise.all(answers.map((r) => r.json()));
      expect(answers.map((r) => r.status)).toEqual([404, 404, 404, 404]);
      for (const body of bodies) expect(body).toEqual(bodies[0]);
      expect(bodies[0]).toMatchObject({ status: 404, detail: 'Session not found' });

      // A clip asked for under a session it is not of, even a visible one.
      const wrongSession = await get(`${clipsPath(sessionId)}/${foreignClip.id}`);
      expect(wrongSession.status).toBe(404);
      expect(await wrongSession.json()).toMatchObject({ detail: 'Clip not found' });
      // The stranger sees its own clip, never ours.
      const strangerToken = await mintToken(t, stranger);
      expect((await get(`${clipsPath(foreignSession)}/${foreignClip.id}`, strangerToken)).status).toBe(200);
      expect((await get(`${clipsPath(sessionId)}/${clip.id}`, strangerToken)).status).toBe(404);
      // A visible session without a video.
      const noVideo = await seedTest(t.runtime, s.workspaceId, makeSessions(1));
      const [bare] = await t.runtime.store.sessions.listSessions(noVideo, 0, 1);
      const bareAnswer = await get(clipsPath(bare!.sessionId));
      expect(bareAnswer.status).toBe(404);
      expect(await bareAnswer.json()).toMatchObject({ detail: 'Video not found' });
    });

    it('refuses a malformed id with 400 and an anonymous caller with 401', async (ctx) => {
      if (skip) return ctx.skip();
      expect((await get(clipsPath('not-a-uuid'))).status).toBe(400);
      expect((await get(`${clipsPath(sessionId)}/not-a-uuid`)).status).toBe(400);
      expect((await fetch(`${t.url}${clipsPath(sessionId)}`)).status).toBe(401);
    });
  });
}
