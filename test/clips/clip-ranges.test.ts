/**
 * Issue 30 item 4: ranges ffmpeg cannot cut are refused before anything is written. On a real
 * 6,000 ms video at 25 frames a second (last frame at 5,960 ms, as the import records it), a
 * clip starting after the last frame gives ffmpeg nothing to keep: the cut has no picture and
 * its poster fails ("Output file #0 does not contain any stream"), three times over. One
 * starting on the last frame is cut. Through the CLI and the admin API, a clip lasts at least
 * a second, so the issue's `--start-ms 5990 --end-ms 6000` is refused there, naming the rule.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clipJobHandler, cutClipArgs, posterArgs } from '../../src/clips/clip-job.js';
import { runFfmpeg } from '../../src/clips/run-ffmpeg.js';
import { importVideo } from '../../src/media/import-video.js';
import { generateTestVideo } from '../../src/media/ffmpeg/test-video.js';
import type { FilesystemMediaStorage } from '../../src/media/storage/filesystem-storage.js';
import { clipObjectKey, clipPosterKey } from '../../src/store/clips.js';
import { StoreConflictError } from '../../src/store/conflicts.js';
import type { Video } from '../../src/store/videos.js';
import { signedInAdmin, startAdminTestApp } from '../helpers/admin-app.js';
import { rejectionOf } from '../helpers/rejection.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { hasFfmpeg } from '../helpers/videos.js';
import { runCli } from '../cli/run-cli.js';

const haveFfmpeg = hasFfmpeg();
const dir = mkdtempSync(join(tmpdir(), 'results-api-clip-ranges-'));
const sixSeconds = join(dir, 'six-seconds.mp4');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  if (haveFfmpeg) await generateTestVideo(sixSeconds, { seconds: 6 });
}, 60_000);

const by = { actor: 'test' };
const media = join(dir, 'media');
const app = haveFfmpeg ? await startAdminTestApp({ env: { MEDIA_URL: `file:${media}` } }) : undefined;

describe.skipIf(!haveFfmpeg)('clip ranges ffmpeg can cut', () => {
  let s: Seeded;
  let video: Video;

  beforeAll(async () => {
    const { runtime } = app!.t;
    s = await seed(runtime, { sessions: 1 });
    const imported = await importVideo({ sessions: runtime.store.sessions, videos: runtime.store.videos, storage: runtime.media.storage }, { sessionId: s.sessions[0]!.sessionId, file: sixSeconds }, by);
    video = imported.video;
  }, 60_000);

  /** Cuts [startMs, endMs) of the stored video as the clip job does: the cut, then its poster. */
  const cut = async (startMs: number, endMs: number) => {
    const out = mkdtempSync(join(dir, 'cut-'));
    const signal = new AbortController().signal;
    await runFfmpeg(cutClipArgs(sixSeconds, startMs, endMs, join(out, 'clip.mp4')), signal);
    await runFfmpeg(posterArgs(join(out, 'clip.mp4'), join(out, 'poster.jpg')), signal);
  };

  it('records when the last frame starts at import: 5,960 ms of a 6,000 ms video at 25 frames a second', () => {
    expect(video).toMatchObject({ durationMs: 6000, lastFrameMs: 5960 });
  });

  it('refuses a clip starting after the last frame, which ffmpeg cannot cut; one starting on it is cut by the job', { timeout: 60_000 }, async () => {
    const { runtime } = app!.t;
    const sessionId = s.sessions[0]!.sessionId;
    const refused = await rejectionOf(runtime.store.clips.createClip({ sessionId, startMs: 5961, endMs: 6000, name: 'After the last frame' }, by), StoreConflictError);
    expect(refused).toMatchObject({
      code: 'out_of_range',
      message: "a clip must start at or before the video's last frame, at 5960 ms: startMs 5961 is after it, so the clip would have no picture",
    });
    await expect(cut(5961, 6000)).rejects.toThrow(/does not contain any stream/);
    expect(await runtime.store.clips.listClips(sessionId)).toEqual([]);

    const lastFrame = await runtime.store.clips.createClip({ sessionId, startMs: 5960, endMs: 6000, name: 'The last frame' }, by);
    const job = (await runtime.store.jobs.get(lastFrame.jobId))!;
    await clipJobHandler({ clips: runtime.store.clips, videos: runtime.store.videos, media: runtime.media.storage })(job, { signal: new AbortController().signal });
    const storage = runtime.media.storage as FilesystemMediaStorage;
    expect((await storage.stat(clipObjectKey(lastFrame.id)))?.size).toBeGreaterThan(0);
    expect((await storage.stat(clipPosterKey(lastFrame.id)))?.contentType).toBe('image/jpeg');
  });

  it('the admin API refuses the issue\'s range with a 400 naming the rule, and takes a second that ends the video', async () => {
    const operator = await signedInAdmin(app!, 'operator');
    const path = `/admin/api/sessions/${s.sessions[0]!.sessionId}/clips`;
    const refused = await operator.request('POST', path, { startMs: 5990, endMs: 6000, name: 'Too late' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      type: 'urn:results-api:admin:out-of-range',
      detail: 'a clip must last at least 1000 ms: endMs 6000 is only 10 ms after startMs 5990',
    });
    const lastSecond = await operator.request('POST', path, { startMs: 4960, endMs: 6000, name: 'The last second' });
    expect(lastSecond.status).toBe(201);
  });

  it('the CLI refuses the issue\'s command with exit 1, naming the rule, and creates nothing', { timeout: 60_000 }, async () => {
    const result = await runCli(
      ['clips', 'create', '--session', s.sessions[0]!.sessionId, '--start-ms', '5990', '--end-ms', '6000', '--name', 'Too late'],
      { PATH: process.env.PATH ?? '', HOME: dir, LOG_LEVEL: 'silent', DATABASE_URL: app!.t.databaseUrl, MEDIA_URL: `file:${media}` },
      dir,
    );
    expect(result).toMatchObject({ code: 1, stdout: '', stderr: 'error: a clip must last at least 1000 ms: endMs 6000 is only 10 ms after startMs 5990\n' });
    expect((await app!.t.runtime.store.clips.listClips(s.sessions[0]!.sessionId)).map((c) => c.name).sort()).toEqual(['The last frame', 'The last second']);
  });
});
