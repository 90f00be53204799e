import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../test/helpers/stores.js';
import { hasFfmpeg, makeVideo, truncatedCopy } from '../../test/helpers/videos.js';
import { ManualClock } from '../clock.js';
import { StoreConflictError } from '../store/conflicts.js';
import type { Store } from '../store/open-store.js';
import { NotAPlayableVideoError } from './ffmpeg/probe-video.js';
import { importVideo } from './import-video.js';
import { FilesystemMediaStorage } from './storage/filesystem-storage.js';
import { MediaLinkSigner } from './storage/media-links.js';

const by = { actor: 'cli:test' };
const dir = mkdtempSync(join(tmpdir(), 'results-api-video-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!hasFfmpeg())('importing a session video', () => {
  let good: string;
  let silentCamera: string;
  let other: string;
  let store: Store;
  let storage: FilesystemMediaStorage;
  let testId: string;
  let sessionId: string;
  let n = 0;

  beforeAll(async () => {
    [good, silentCamera, other] = await Promise.all([
      makeVideo(dir, 'good.mp4', { seconds: 2 }),
      makeVideo(dir, 'camera.mp4', { seconds: 2, audio: false, camera: true }),
      makeVideo(dir, 'other.mp4', { seconds: 3, size: '640x360' }),
    ]);
  }, 60_000);

  beforeEach(async () => {
    const clock = new ManualClock();
    store = await openSqliteStore(join(dir, `store-${++n}.db`), clock);
    await store.database.migrate();
    storage = new FilesystemMediaStorage(join(dir, `media-${n}`), new MediaLinkSigner(Buffer.alloc(32), 'http://x', clock));
    const workspaceId = randomUUID();
    testId = randomUUID();
    sessionId = randomUUID();
    await store.directory.createWorkspace({ id: workspaceId, name: 'W' }, by);
    await store.directory.createTest({ id: testId, workspaceId, title: 'T', productType: 'THINK_OUT_LOUD' }, by);
    await store.sessions.importSessions(testId, [{ sessionId, audienceId: null, status: 'COMPLETE', startTime: 1, finishTime: null }], by);
    return () => store.database.close();
  });

  const deps = () => ({ sessions: store.sessions, videos: store.videos, storage });

  it('probes, stores byte for byte with a JPEG poster, and records the video', async () => {
    const result = await importVideo(deps(), { sessionId, file: good }, by);
    expect(result.outcome).toBe('inserted');
    const video = result.video;
    expect(video).toMatchObject({ sessionId, testId, contentType: 'video/mp4', width: 320, height: 240, hasAudio: true });
    expect(video.durationMs).toBeGreaterThanOrEqual(1900);
    expect(video.durationMs).toBeLessThanOrEqual(2200);
    expect(video.regions).toEqual({ screen: { topLeftPoint: { x: 0, y: 0 }, widthPx: 320, heightPx: 240 } });
    expect(video.objectKey).toBe(`videos/${video.contentSha256.slice(0, 2)}/${video.contentSha256}.mp4`);
    expect(video.posterKey).toBe(`videos/${video.contentSha256.slice(0, 2)}/${video.contentSha256}.poster.jpg`);
    expect(readFileSync(storage.pathOf(video.objectKey)).equals(readFileSync(good))).toBe(true);
    expect(video.sizeBytes).toBe(readFileSync(good).length);
    const poster = readFileSync(storage.pathOf(video.posterKey!));
    expect(poster.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expect(await store.videos.findVideo(sessionId)).toEqual(video);
  });

  it('reads screen and camera regions from marked streams, and knows a silent video', async () => {
    const { video } = await importVideo(deps(), { sessionId, file: silentCamera }, by);
    expect(video.hasAudio).toBe(false);
    expect(video.regions).toEqual({
      screen: { topLeftPoint: { x: 0, y: 0 }, widthPx: 320, heightPx: 240 },
      camera: { topLeftPoint: { x: 0, y: 0 }, widthPx: 160, heightPx: 120 },
    });
  });

  it('reads the regions a composite recording tags (x,y,width,height)', async () => {
    const composite = await makeVideo(dir, 'composite.mp4', { seconds: 1, tags: { screen_region: '0,0,240,240', camera_region: '240,180,80,60' } });
    const { video } = await importVideo(deps(), { sessionId, file: composite }, by);
    expect(video.regions).toEqual({
      screen: { topLeftPoint: { x: 0, y: 0 }, widthPx: 240, heightPx: 240 },
      camera: { topLeftPoint: { x: 240, y: 180 }, widthPx: 80, heightPx: 60 },
    });
  });

  it('is idempotent: the same bytes again, under any name, change nothing', async () => {
    const first = await importVideo(deps(), { sessionId, file: good }, by);
    const renamed = join(dir, 'renamed.mp4');
    copyFileSync(good, renamed);
    const again = await importVideo(deps(), { sessionId, file: renamed }, by);
    expect(again).toEqual({ outcome: 'unchanged', video: first.video });
    expect((await store.audit.list({ action: 'video.import' })).length).toBe(1);
  });

  it('a different file replaces the video and removes the old objects', async () => {
    const first = await importVideo(deps(), { sessionId, file: good }, by);
    const second = await importVideo(deps(), { sessionId, file: other }, by);
    expect(second.outcome).toBe('updated');
    expect(second.video).toMatchObject({ width: 640, height: 360 });
    expect(await storage.stat(first.video.objectKey)).toBeNull();
    expect(await storage.stat(first.video.posterKey!)).toBeNull();
    expect(await storage.stat(second.video.objectKey)).not.toBeNull();
  });

  it('sessions with the same bytes share one object; replacing one video deletes an object only when no other session names it', async () => {
    const second = randomUUID();
    await store.sessions.importSessions(testId, [{ sessionId: second, audienceId: null, status: 'COMPLETE', startTime: 2, finishTime: null }], by);
    const a = await importVideo(deps(), { sessionId, file: good }, by);
    const b = await importVideo(deps(), { sessionId: second, file: good }, by);
    expect(b.video.objectKey).toBe(a.video.objectKey);
    expect(b.video.posterKey).toBe(a.video.posterKey);
    // The first session moves on to other bytes: the shared objects stay, for the second.
    await importVideo(deps(), { sessionId, file: other }, by);
    expect(await storage.stat(a.video.objectKey)).not.toBeNull();
    expect(await storage.stat(a.video.posterKey!)).not.toBeNull();
    // The second too: now nothing names them, and they go.
    await importVideo(deps(), { sessionId: second, file: other }, by);
    expect(await storage.stat(a.video.objectKey)).toBeNull();
    expect(await storage.stat(a.video.posterKey!)).toBeNull();
    expect((await store.videos.findVideo(second))?.objectKey).toBe((await store.videos.findVideo(sessionId))?.objectKey);
  });

  it('stores a lost object again when the same bytes are imported', async () => {
    const first = await importVideo(deps(), { sessionId, file: good }, by);
    await storage.delete(first.video.objectKey);
    const again = await importVideo(deps(), { sessionId, file: good }, by);
    expect(again.outcome).toBe('unchanged');
    expect(readFileSync(storage.pathOf(first.video.objectKey)).equals(readFileSync(good))).toBe(true);
  });

  it('refuses a truncated video and stores nothing', async () => {
    const cut = truncatedCopy(good, join(dir, 'cut.mp4'));
    const error = await importVideo(deps(), { sessionId, file: cut }, by).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotAPlayableVideoError);
    expect((error as Error).message).toMatch(/truncated/);
    expect(await store.videos.findVideo(sessionId)).toBeNull();
  });

  it('refuses what is not a video: text, an image', async () => {
    const text = join(dir, 'notes.mp4');
    writeFileSync(text, 'these are my notes, not a video\n'.repeat(100));
    const image = join(dir, 'poster.jpg');
    const { video } = await importVideo(deps(), { sessionId, file: good }, by);
    copyFileSync(storage.pathOf(video.posterKey!), image);
    const cases: [string, RegExp][] = [
      [text, /not a (playable video|video container)/],
      [image, /not a video container we serve/],
    ];
    for (const [file, message] of cases) {
      const error = await importVideo(deps(), { sessionId, file }, by).catch((e: unknown) => e);
      expect(error, file).toBeInstanceOf(NotAPlayableVideoError);
      expect((error as Error).message, file).toMatch(message);
    }
    // The refused files changed nothing.
    expect((await store.videos.findVideo(sessionId))?.contentSha256).toBe(video.contentSha256);
  });

  it('refuses a session that does not exist, or that belongs to another test', async () => {
    const missing = await importVideo(deps(), { sessionId: randomUUID(), file: good }, by).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(StoreConflictError);
    expect((missing as Error).message).toMatch(/no session/);
    const foreign = await importVideo(deps(), { sessionId, file: good, testId: randomUUID() }, by).catch((e: unknown) => e);
    expect((foreign as StoreConflictError).code).toBe('foreign_session');
  });
});
