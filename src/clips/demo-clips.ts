import type { Runtime } from '../runtime.js';
import type { Actor } from '../store/store.js';

/**
 * `demo`: a clip of the demo session's video and a highlight reel of it, once (a second run
 * changes nothing). A server cuts and joins them in the background. Nothing is made when the
 * session has no video (ffmpeg missing).
 */
export async function seedDemoClipAndReel(rt: Pick<Runtime, 'store'>, sessionId: string, by: Actor): Promise<void> {
  const { store } = rt;
  const video = await store.videos.findVideo(sessionId);
  if (!video) return;
  const clips = await store.clips.listClips(sessionId);
  const clip =
    clips[0] ??
    (await store.clips.createClip(
      { sessionId, startMs: 0, endMs: Math.min(video.durationMs, 3000), name: 'Demo clip: the first seconds', description: 'Made by results-api demo' },
      by,
    ));
  if ((await store.reels.listReels(video.testId)).length === 0) {
    await store.reels.createReel({ testId: video.testId, name: 'Demo highlight reel', clipIds: [clip.id] }, by);
  }
}
