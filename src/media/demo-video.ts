import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../store/open-store.js';
import type { Actor } from '../store/store.js';
import { MediaToolError } from './ffmpeg/run-tool.js';
import { generateTestVideo } from './ffmpeg/test-video.js';
import { importVideo } from './import-video.js';
import type { OpenedMediaStorage } from './storage/open-media-storage.js';

/**
 * Gives `sessionId` a short generated video (ffmpeg's testsrc picture and a tone), as
 * `demo` seeds it. Without ffmpeg the demo goes on without a video: returns false.
 */
export async function seedDemoVideo(rt: { store: Store; media: OpenedMediaStorage }, sessionId: string, by: Actor): Promise<boolean> {
  const dir = await mkdtemp(join(tmpdir(), 'results-api-demo-video-'));
  try {
    const file = join(dir, 'demo.mp4');
    await generateTestVideo(file, { seconds: 6, size: '640x360' });
    await importVideo({ sessions: rt.store.sessions, videos: rt.store.videos, storage: rt.media.storage }, { sessionId, file }, by);
    return true;
  } catch (error) {
    if (error instanceof MediaToolError && error.reason === 'missing') return false;
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
