import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaToolError } from './ffmpeg/run-tool.js';
import { generateTestVideo, type TestVideoOptions } from './ffmpeg/test-video.js';
import { storeVideoFile, type StoredVideoFile } from './import-video.js';
import type { MediaStorage } from './storage/media-storage.js';

/**
 * The videos `demo --sessions` gives its generated sessions: a few distinct ones, made by
 * ffmpeg once per run and stored once each (content-addressed, poster included), which every
 * session then names by reference, so a million sessions cost a million small rows and no
 * more video. What each shows and sounds follows from the seed; their bytes are ffmpeg's, so
 * another ffmpeg build may store other bytes under other keys for the same seed.
 */
export const GENERATED_VIDEO_COUNT = 4;

const PICTURES: NonNullable<TestVideoOptions['picture']>[] = ['testsrc', 'testsrc2', 'smptebars', 'rgbtestsrc'];

/** The `index`-th video of `seed`: its own picture, and a tone between 220 and 880 Hz picked by the seed. */
export const generatedVideoOptions = (seed: number, index: number, seconds: number): TestVideoOptions => ({
  seconds,
  // Small, one frame a second and a thin tone: a 15-minute video is ~5 MB, made in a few seconds.
  size: '320x180',
  rate: 1,
  audioSampleRate: 8000,
  audioKbps: 16,
  picture: PICTURES[index % PICTURES.length]!,
  toneHz: 220 + ((seed * 7919 + index * 104_729) % 661),
  timeoutMs: 10 * 60_000,
});

/**
 * Runs `use` with the run's videos, `seconds` long and stored in `storage`; with null when
 * ffmpeg is not installed. The files stay until `use` ends, so a video's writer can store an
 * object again if a concurrent release deleted it (StoredVideoFile.ensureStored).
 */
export async function withGeneratedVideos<T>(
  storage: MediaStorage,
  options: { seed: number; seconds: number },
  use: (videos: StoredVideoFile[] | null) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'results-api-generated-videos-'));
  try {
    const videos: StoredVideoFile[] = [];
    for (let index = 0; index < GENERATED_VIDEO_COUNT; index++) {
      const file = join(dir, `video-${index}.mp4`);
      try {
        await generateTestVideo(file, generatedVideoOptions(options.seed, index, options.seconds));
      } catch (error) {
        if (error instanceof MediaToolError && error.reason === 'missing') return await use(null);
        throw error;
      }
      videos.push(await storeVideoFile(storage, file));
    }
    return await use(videos);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
