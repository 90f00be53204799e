/** The SDK's clip and highlight reel methods against the real app, in both request forms. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultsApiError } from '@results-api/client';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientFor } from './helpers.js';

const by = { actor: 'test' };
// Only the record: with no running job the clip stays GENERATING, and no bytes are needed.
const video = (sessionId: string) => ({
  sessionId, objectKey: `videos/${sessionId}.mp4`, posterKey: null, contentSha256: 'f'.repeat(64), contentType: 'video/mp4',
  sizeBytes: 1, durationMs: 10_000, width: 640, height: 480, hasAudio: false, regions: {},
});

describe('ResultsClient clips and highlight reels', () => {
  let t: TestApp;
  let s: Seeded;
  let other: Seeded;
  let clipId: string;
  let reelId: string;

  beforeAll(async () => {
    t = await startTestApp();
    s = await seed(t.runtime, { sessions: 1 });
    other = await seed(t.runtime, { sessions: 1 });
    for (const x of [s, other]) await t.runtime.store.videos.saveVideo(video(x.sessions[0]!.sessionId), by);
    clipId = (await t.runtime.store.clips.createClip({ sessionId: s.sessions[0]!.sessionId, startMs: 0, endMs: 4000, name: 'Intro' }, by)).id;
    reelId = (await t.runtime.store.reels.createReel({ testId: s.testId, name: 'Best of', clipIds: [clipId] }, by)).id;
  });
  afterAll(() => t.close());

  for (const form of ['A', 'B'] as const) {
    it(`lists a session video's clips and a test's reels, and reads one of each (form ${form})`, async () => {
      const client = clientFor(t, s, form);
      const sessionId = s.sessions[0]!.sessionId;
      expect(await client.clips(sessionId)).toEqual({
        studyUuid: s.testId,
        clips: [{ uuid: clipId, name: 'Intro', timeStartMs: 0, timeEndMs: 4000, videoUuid: sessionId, hasAudio: false, hasCamera: false, layout: { mainStream: 'SCREEN', pipPosition: 'BOTTOM_RIGHT', pipState: 'CLOSED' } }],
      });
      expect(await client.clip(sessionId, clipId)).toEqual({ clipUuid: clipId, status: 'GENERATING', clipUrl: null });
      expect(await client.highlightReels(s.testId)).toEqual({
        reels: [
          {
            uuid: reelId,
            name: 'Best of',
            durationMs: 4000,
            lastUpdatedAtMs: expect.any(Number),
            numClips: 1,
            areAllClipsInReel: true,
            highlightReelToken: expect.stringMatching(/^[0-9a-f]{20}$/),
          },
        ],
        studyWithClips: true,
      });
      expect(await client.highlightReel(s.testId, reelId)).toEqual({ reelId, status: 'GENERATING', reelUrl: null });
    });
  }

  it("throws a 404 ResultsApiError for another team's session", async () => {
    const error = await clientFor(t, s, 'B').clips(other.sessions[0]!.sessionId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultsApiError);
    expect((error as ResultsApiError).status).toBe(404);
  });
});
