/**
 * Clips and reels with the S3 media backend (against s3rver): ffmpeg reads the session video
 * through a presigned link, the cut goes up to the bucket, and clipUrl / reelUrl are
 * presigned GETs of the bucket that download the MP4.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { jobHandlers } from '../../src/serve/start-job-runner.js';
import { generateTestVideo } from '../../src/media/ffmpeg/test-video.js';
import { attachVideo, probeDurationMs } from '../helpers/clip-videos.js';
import { startTestS3, type TestS3 } from '../helpers/s3.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';
import { hasFfmpeg } from '../helpers/videos.js';

/** Real ffmpeg: without it these suites skip with a warning, and fail in CI. */
const haveFfmpeg = hasFfmpeg();

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const by = { actor: 'test' };

describe.skipIf(!haveFfmpeg)('clips and reels on S3-compatible storage', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-clips-s3-'));
  let s3: TestS3;
  let t: TestApp;
  let runner: JobRunner;
  let s: Seeded;

  beforeAll(async () => {
    const video = join(dir, 'session.mp4');
    await generateTestVideo(video, { seconds: 4 });
    s3 = await startTestS3('clips-media');
    t = await startTestApp({ env: { MEDIA_URL: s3.mediaUrl } });
    runner = new JobRunner(t.runtime.store.jobs, jobHandlers(t.runtime), { concurrency: 1, leaseMs: 30_000, pollMs: 20, log: quiet });
    runner.start();
    s = await seed(t.runtime, { sessions: 1 });
    await attachVideo(t.runtime, s.sessions[0]!.sessionId, video);
  }, 60_000);

  afterAll(async () => {
    await runner?.stop();
    await t?.close();
    await s3?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cuts a clip and joins a reel from the bucket, and links to them with presigned GETs', async () => {
    const sessionId = s.sessions[0]!.sessionId;
    const clip = await t.runtime.store.clips.createClip({ sessionId, startMs: 1000, endMs: 2500, name: 'S3' }, by);
    const reel = await t.runtime.store.reels.createReel({ testId: s.testId, name: 'S3 reel', clipIds: [clip.id] }, by);
    const deadline = Date.now() + 90_000;
    while ((await t.runtime.store.reels.findReel(reel.id))?.status !== 'GENERATED' || (await t.runtime.store.clips.findClip(clip.id))?.status !== 'GENERATED') {
      const failed = [(await t.runtime.store.clips.findClip(clip.id))?.lastError, (await t.runtime.store.reels.findReel(reel.id))?.lastError].filter(Boolean);
      if (failed.length > 0 || Date.now() > deadline) throw new Error(`not made: ${failed.join('; ') || 'timed out'}`);
      await sleep(50);
    }
    const token = await mintToken(t, s);
    const details = (await (await fetch(`${t.url}/api/v2/sessionResults/${sessionId}/clips/${clip.id}`, { headers: authHeaders(token) })).json()) as { clipUrl: string };
    const reelDetails = (await (await fetch(`${t.url}/api/v2/testResults/${s.testId}/highlightreels/${reel.id}`, { headers: authHeaders(token) })).json()) as { reelUrl: string };
    for (const [url, ms] of [[details.clipUrl, 1500], [reelDetails.reelUrl, 1500]] as const) {
      expect(url.startsWith(`${s3.endpoint}/clips-media/`)).toBe(true);
      expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('900');
      const res = await fetch(url);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(Math.abs((await probeDurationMs(url)) - ms)).toBeLessThan(200);
    }
  });
});
