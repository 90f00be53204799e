/**
 * The embeddable player pages behind the legacy v1 `highlightreel/{token}` and `clip/{uuid}`
 * links: a real reel and clip cut by ffmpeg, played in headless Chromium (the video element
 * reaches readyState >= 2 under the page's strict CSP), and refused when the link is altered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { jobHandlers } from '../../src/serve/start-job-runner.js';
import { launchChromium, skipWithoutChromium, warnIfSkippedWithoutChromium, type Browser } from '../helpers/chromium.js';
import { generateTestVideo } from '../../src/media/ffmpeg/test-video.js';
import { attachVideo } from '../helpers/clip-videos.js';
import { freePort } from '../helpers/net.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';
import { hasFfmpeg } from '../helpers/videos.js';

/** Real ffmpeg: without it these suites skip with a warning, and fail in CI. */
const haveFfmpeg = hasFfmpeg();

warnIfSkippedWithoutChromium('test/clips/player.test.ts');

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const by = { actor: 'test' };

describe.skipIf(skipWithoutChromium || !haveFfmpeg)('the embeddable player in headless Chromium', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-player-'));
  let t: TestApp;
  let runner: JobRunner;
  let browser: Browser;
  let s: Seeded;
  let token: string;
  let reelToken: string;
  let clipId: string;

  beforeAll(async () => {
    const video = join(dir, 'session.mp4');
    await generateTestVideo(video, { seconds: 4 });
    // The links name PUBLIC_URL: the app listens where they point.
    const port = await freePort();
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}`, MEDIA_URL: `file:${join(dir, 'media')}` } });
    runner = new JobRunner(t.runtime.store.jobs, jobHandlers(t.runtime), { concurrency: 1, leaseMs: 30_000, pollMs: 20, log: quiet });
    runner.start();
    s = await seed(t.runtime, { sessions: 1 });
    await attachVideo(t.runtime, s.sessions[0]!.sessionId, video);
    const clip = await t.runtime.store.clips.createClip({ sessionId: s.sessions[0]!.sessionId, startMs: 500, endMs: 3000, name: 'Pricing <confusion>' }, by);
    clipId = clip.id;
    const reel = await t.runtime.store.reels.createReel({ testId: s.testId, name: 'Highlights', clipIds: [clip.id] }, by);
    reelToken = reel.token;
    const deadline = Date.now() + 90_000;
    while ((await t.runtime.store.reels.findReel(reel.id))?.status !== 'GENERATED' || (await t.runtime.store.clips.findClip(clip.id))?.status !== 'GENERATED') {
      if (Date.now() > deadline) throw new Error('the clip and reel were not made within 90 s');
      await sleep(50);
    }
    token = await mintToken(t, s);
    browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await runner?.stop();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const legacy = async <T>(path: string) => (await (await fetch(`${t.url}/usertesting/api/v1${path}`, { headers: authHeaders(token) })).json()) as T;

  /** Opens `url` and resolves to the video element's readyState once it can play (or the time runs out). */
  async function play(url: string): Promise<{ readyState: number; violations: string[] }> {
    const page = await browser.context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    try {
      const response = await page.goto(url);
      expect(response?.status()).toBe(200);
      await page.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 2, undefined, { timeout: 30_000 });
      return { readyState: await page.evaluate(() => document.querySelector('video')!.readyState), violations };
    } finally {
      await page.close();
    }
  }

  it('plays a highlight reel from its shareUrl, under a CSP with no script', async () => {
    const reel = await legacy<{ shareUrl: string; clips: { nodes: { url: string; securePosterFullUrl: string }[] } }>(`/highlightreel/${reelToken}`);
    const page = await fetch(reel.shareUrl);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toMatch(/<video controls[^>]* poster="http[^"]+poster\.jpg\?[^"]+" src="http[^"]+reel\.mp4\?[^"]+"><\/video>/);
    expect(html).not.toContain('<script');
    const played = await play(reel.shareUrl);
    expect(played.readyState).toBeGreaterThanOrEqual(2);
    expect(played.violations).toEqual([]);
  });

  it('plays a clip from its embeddableUrl; its name is escaped', async () => {
    const clip = await legacy<{ embeddableUrl: string; securePoster: string; duration: number }>(`/clip/${clipId}`);
    expect(clip.duration).toBe(3);
    expect((await fetch(clip.securePoster)).headers.get('content-type')).toBe('image/jpeg');
    const html = await (await fetch(clip.embeddableUrl)).text();
    expect(html).toContain('<title>Pricing &lt;confusion&gt;</title>');
    expect((await play(clip.embeddableUrl)).readyState).toBeGreaterThanOrEqual(2);
  });

  it('refuses an altered or borrowed link with 403, and a link to a clip of another id', async () => {
    const { embeddableUrl } = await legacy<{ embeddableUrl: string }>(`/clip/${clipId}`);
    const url = new URL(embeddableUrl);
    const signature = url.searchParams.get('signature')!;
    const altered = new URL(url);
    altered.searchParams.set('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const otherClip = new URL(url);
    otherClip.pathname = `/player/clip/${crypto.randomUUID()}`;
    const asReel = new URL(url);
    asReel.pathname = asReel.pathname.replace('/player/clip/', '/player/highlightreel/');
    for (const bad of [altered, later, otherClip, asReel]) expect((await fetch(bad)).status, bad.pathname).toBe(403);
    expect((await fetch(`${url.origin}${url.pathname}`)).status).toBe(403);
  });
});
