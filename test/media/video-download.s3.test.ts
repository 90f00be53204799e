/**
 * videoDownloadUrl with MEDIA_URL=s3://…: the link is a real presigned URL of the
 * S3-compatible test server (s3rver on a free port), which serves the video and its ranges.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importVideo } from '../../src/media/import-video.js';
import { startTestS3, type TestS3 } from '../helpers/s3.js';
import { seed, storeActor, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { mintToken } from '../helpers/tokens.js';
import { hasFfmpeg, makeVideo } from '../helpers/videos.js';

describe.skipIf(!hasFfmpeg())('session video downloads from S3 storage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'results-api-video-s3-'));
  let s3: TestS3;
  let t: TestApp;
  let owner: Seeded;
  let bytes: Buffer;

  beforeAll(async () => {
    s3 = await startTestS3('session-videos');
    t = await startTestApp({ env: { MEDIA_URL: `${s3.mediaUrl.replace('s3://session-videos', 's3://session-videos/deployment-a')}` } });
    owner = await seed(t.runtime, { sessions: 1 });
    const file = await makeVideo(dir, 'session.mp4', { seconds: 2 });
    bytes = readFileSync(file);
    await importVideo({ ...t.runtime.store, storage: t.runtime.media.storage }, { sessionId: owner.sessions[0]!.sessionId, file }, storeActor);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await s3?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hands out a presigned URL of the bucket that serves the video, whole and by range', async () => {
    const token = await mintToken(t, owner, 'B');
    const res = await fetch(`${t.url}/api/v2/sessionResults/${owner.sessions[0]!.sessionId}/videoDownloadUrl`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const { videoUrl, expiresAt } = (await res.json()) as { videoUrl: string; expiresAt: string };
    const url = new URL(videoUrl);
    expect(url.origin).toBe(s3.endpoint);
    expect(url.pathname).toMatch(new RegExp(`^/session-videos/deployment-a/videos/[0-9a-f]{2}/[0-9a-f]{64}\\.mp4$`));
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(3590_000);

    const whole = await fetch(videoUrl);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const range = await fetch(videoUrl, { headers: { range: 'bytes=100-199' } });
    expect(range.status).toBe(206);
    expect(Buffer.from(await range.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
  });
});
