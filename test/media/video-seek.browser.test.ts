/**
 * A real browser plays and seeks a session video through the signed link: headless Chromium
 * (Debian's /usr/bin/chromium) loads it in a <video> element, reaches readyState >= 2, sees the
 * whole duration as seekable (it is only when the server answers byte ranges), and seeks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importVideo } from '../../src/media/import-video.js';
import { launchChromium, skipWithoutChromium, warnIfSkippedWithoutChromium, type Browser } from '../helpers/chromium.js';
import { freePort } from '../helpers/net.js';
import { seed, storeActor, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';
import { hasFfmpeg, makeVideo } from '../helpers/videos.js';

warnIfSkippedWithoutChromium('test/media/video-seek.browser.test.ts');

describe.skipIf(skipWithoutChromium || !hasFfmpeg())('a session video in headless Chromium', { timeout: 90_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-video-browser-'));
  let t: TestApp;
  let owner: Seeded;
  let browser: Browser;

  beforeAll(async () => {
    // The link names PUBLIC_URL: the server listens exactly there.
    const port = await freePort();
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
    owner = await seed(t.runtime, { sessions: 1 });
    const file = await makeVideo(dir, 'session.mp4', { seconds: 6 });
    await importVideo({ ...t.runtime.store, storage: t.runtime.media.storage }, { sessionId: owner.sessions[0]!.sessionId, file }, storeActor);
    browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('plays (readyState >= 2), knows the whole video is seekable, and seeks', async () => {
    const token = await mintToken(t, owner, 'B');
    const res = await fetch(`${t.url}/api/v2/sessionResults/${owner.sessions[0]!.sessionId}/videoDownloadUrl`, { headers: { authorization: `Bearer ${token}` } });
    const { videoUrl } = (await res.json()) as { videoUrl: string };
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.url}/healthz`);
      await page.setContent(`<video id="v" muted preload="auto" src="${videoUrl.replace(/&/g, '&amp;')}"></video>`);
      const loaded = await page.evaluate(
        () =>
          new Promise<{ readyState: number; duration: number; seekableEnd: number; error: string | null }>((resolve) => {
            const video = document.getElementById('v') as HTMLVideoElement;
            const report = () =>
              resolve({
                readyState: video.readyState,
                duration: video.duration,
                seekableEnd: video.seekable.length ? video.seekable.end(video.seekable.length - 1) : 0,
                error: video.error ? `${video.error.code} ${video.error.message}` : null,
              });
            if (video.readyState >= 2) report();
            video.addEventListener('loadeddata', report, { once: true });
            video.addEventListener('error', report, { once: true });
          }),
      );
      expect(loaded.error).toBeNull();
      expect(loaded.readyState).toBeGreaterThanOrEqual(2);
      expect(loaded.duration).toBeGreaterThan(5.5);
      expect(loaded.seekableEnd).toBeCloseTo(loaded.duration, 0);

      const seeked = await page.evaluate(
        () =>
          new Promise<{ currentTime: number; readyState: number }>((resolve) => {
            const video = document.getElementById('v') as HTMLVideoElement;
            video.addEventListener('seeked', () => resolve({ currentTime: video.currentTime, readyState: video.readyState }), { once: true });
            video.currentTime = 4.5;
          }),
      );
      expect(seeked.currentTime).toBeCloseTo(4.5, 0);
      expect(seeked.readyState).toBeGreaterThanOrEqual(1);
    } finally {
      await page.close();
    }
  });
});
