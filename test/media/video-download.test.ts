/**
 * GET /api/v2/sessionResults/{sessionId}/videoDownloadUrl and the signed links it hands out
 * (filesystem storage): visibility, Range and seeking, expiry and tampering.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { importVideo } from '../../src/media/import-video.js';
import type { Video } from '../../src/store/videos.js';
import { seed, storeActor, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';
import { hasFfmpeg, makeVideo } from '../helpers/videos.js';

const dir = mkdtempSync(join(tmpdir(), 'results-api-video-download-'));
const clock = new ManualClock(Date.now());
let t: TestApp;
let owner: Seeded;
let stranger: Seeded;
let token: string;
let video: Video;
let otherVideo: Video;
let bytes: Buffer;

describe.skipIf(!hasFfmpeg())('session video downloads', () => {
  beforeAll(async () => {
    t = await startTestApp({ clock });
    owner = await seed(t.runtime, { sessions: 3 });
    stranger = await seed(t.runtime, { sessions: 1 });
    const file = await makeVideo(dir, 'session.mp4', { seconds: 3 });
    bytes = readFileSync(file);
    const deps = { sessions: t.runtime.store.sessions, videos: t.runtime.store.videos, storage: t.runtime.media.storage };
    video = (await importVideo(deps, { sessionId: owner.sessions[0]!.sessionId, file }, storeActor)).video;
    otherVideo = (await importVideo(deps, { sessionId: stranger.sessions[0]!.sessionId, file: await makeVideo(dir, 'other.mp4', { seconds: 1 }) }, storeActor)).video;
    token = await mintToken(t, owner, 'B');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = (sessionId: string, headers: Record<string, string> = { authorization: `Bearer ${token}` }) =>
    fetch(`${t.url}/api/v2/sessionResults/${sessionId}/videoDownloadUrl`, { headers });
  /** The link as handed out names the configured public URL; the test server listens elsewhere. */
  const onTestServer = (link: string) => `${t.url}${new URL(link).pathname}${new URL(link).search}`;
  const linkFor = async (sessionId = video.sessionId): Promise<string> => {
    const res = await ask(sessionId);
    expect(res.status).toBe(200);
    return onTestServer(((await res.json()) as { videoUrl: string }).videoUrl);
  };

  it('200: a link to the video, valid for one hour, per the real schema', async () => {
    const res = await ask(video.sessionId.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const body = (await res.json()) as { videoUrl: string; sessionId: string; expiresAt: string };
    expect(Object.keys(body).sort()).toEqual(['expiresAt', 'sessionId', 'videoUrl']);
    expect(body.sessionId).toBe(video.sessionId);
    expect(body.videoUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:8080/media/videos/${video.contentSha256.slice(0, 2)}/${video.contentSha256}\\.mp4\\?expires=\\d+&name=[^&]+&signature=[A-Za-z0-9_-]{43}$`));
    const expiresAt = Date.parse(body.expiresAt);
    expect(expiresAt).toBeGreaterThan(clock.now() + 3599_000);
    expect(expiresAt).toBeLessThanOrEqual(clock.now() + 3600_000);
  });

  it('the link serves the whole video with its type, length and a download name', async () => {
    const res = await fetch(await linkFor());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${video.sessionId}.mp4"; filename*=UTF-8''${video.sessionId}.mp4`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toMatch(/^private, max-age=(3599|3600)$/);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('206: byte ranges, as a browser asks them when it seeks', async () => {
    const link = await linkFor();
    for (const [range, start, end] of [
      ['bytes=0-1', 0, 1],
      ['bytes=1000-1999', 1000, 1999],
      [`bytes=${bytes.length - 500}-`, bytes.length - 500, bytes.length - 1],
      ['bytes=-300', bytes.length - 300, bytes.length - 1],
    ] as const) {
      const res = await fetch(link, { headers: { range } });
      expect(res.status, range).toBe(206);
      expect(res.headers.get('content-range'), range).toBe(`bytes ${start}-${end}/${bytes.length}`);
      expect(res.headers.get('content-length'), range).toBe(String(end - start + 1));
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(start, end + 1)), range).toBe(true);
    }
  });

  it('416 for a range past the end, with the size in Content-Range', async () => {
    const res = await fetch(await linkFor(), { headers: { range: `bytes=${bytes.length}-` } });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/outside the \d+ bytes/);
  });

  it('If-Range: the range only for the representation the client has', async () => {
    const link = await linkFor();
    const etag = (await fetch(link, { method: 'HEAD' })).headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await fetch(link, { headers: { range: 'bytes=0-9', 'if-range': etag } })).status).toBe(206);
    const stale = await fetch(link, { headers: { range: 'bytes=0-9', 'if-range': '"other"' } });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('content-length')).toBe(String(bytes.length));
    await stale.arrayBuffer();
  });

  it('HEAD: the headers without the body', async () => {
    const res = await fetch(await linkFor(), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('403 for a link altered in any part: signature, key, expiry, name, or missing a part', async () => {
    const link = new URL(await linkFor());
    const signature = link.searchParams.get('signature')!;
    const altered = (edit: (u: URL) => void) => {
      const u = new URL(link);
      edit(u);
      return u.href;
    };
    const cases: Record<string, string> = {
      signature: altered((u) => u.searchParams.set('signature', (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1))),
      'another video': altered((u) => (u.pathname = `/media/${otherVideo.objectKey}`)),
      'the poster': altered((u) => (u.pathname = `/media/${video.posterKey}`)),
      'a later expiry': altered((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 86_400))),
      'another name': altered((u) => u.searchParams.set('name', 'x.mp4')),
      'no name': altered((u) => u.searchParams.delete('name')),
      'no signature': altered((u) => u.searchParams.delete('signature')),
      'no expiry': altered((u) => u.searchParams.delete('expires')),
      'a path outside the media': `${t.url}/media/videos/..%2f..%2f/results.db?${link.searchParams}`,
    };
    for (const [what, url] of Object.entries(cases)) {
      const res = await fetch(url);
      expect(res.status, what).toBe(403);
      expect(((await res.json()) as { type: string }).type, what).toBe('urn:results-api:problem:link-refused');
    }
    // The untouched link still works.
    expect((await fetch(link)).status).toBe(200);
  });

  it('403 once the link has expired', async () => {
    const link = await linkFor();
    clock.advance(3600_000 - 2000);
    expect((await fetch(link, { headers: { range: 'bytes=0-0' } })).status).toBe(206);
    clock.advance(2000);
    const res = await fetch(link);
    expect(res.status).toBe(403);
    clock.set(Date.now());
    // A fresh token and link work again.
    token = await mintToken(t, owner, 'B');
    expect((await fetch(await linkFor())).status).toBe(200);
  });

  it('404 for a link whose file is gone (the video was replaced since)', async () => {
    const deps = { sessions: t.runtime.store.sessions, videos: t.runtime.store.videos, storage: t.runtime.media.storage };
    const sessionId = owner.sessions[2]!.sessionId;
    // Bytes no other session has: a video another session shares stays (see import-video.test.ts).
    await importVideo(deps, { sessionId, file: await makeVideo(dir, 'first.mp4', { seconds: 1, size: '240x180' }) }, storeActor);
    const old = await linkFor(sessionId);
    expect((await fetch(old, { method: 'HEAD' })).status).toBe(200);
    await importVideo(deps, { sessionId, file: await makeVideo(dir, 'second.mp4', { seconds: 1, size: '160x120' }) }, storeActor);
    const res = await fetch(old);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toBe('This file no longer exists; ask the API for a new link.');
    expect((await fetch(await linkFor(sessionId))).status).toBe(200);
  });

  it('404, the same answer, for a session without video, an unknown one, and one of another team', async () => {
    const bodies = [];
    for (const sessionId of [owner.sessions[1]!.sessionId, randomUUID(), stranger.sessions[0]!.sessionId]) {
      const res = await ask(sessionId);
      expect(res.status, sessionId).toBe(404);
      bodies.push(await res.json());
    }
    expect(bodies[0]).toEqual({ type: 'urn:results-api:problem:not-found', title: 'Not found', status: 404, detail: 'Video not found' });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  it('400 for a sessionId that is not a UUID; 401 without a token', async () => {
    const bad = await ask('not-a-uuid');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/sessionId/);
    expect((await ask(video.sessionId, {})).status).toBe(401);
  });
});
