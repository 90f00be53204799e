import type { Store } from '../store/open-store.js';
import type { Actor } from '../store/store.js';

/**
 * `demo`: a clip of the demo session's video and a highlight reel of it, once (a second run
 * changes nothing; a demo seeded before the media moved to the newest session gets them there
 * too). A server cuts and joins them in the background. Nothing is made when the session has
 * no video (ffmpeg missing).
 */
export async function seedDemoClipAndReel(rt: { store: Store }, sessionId: string, by: Actor): Promise<{ clipId: string; reelId: string } | undefined> {
  const { store } = rt;
  const video = await store.videos.findVideo(sessionId);
  if (!video) return undefined;
  const clips = await store.clips.listClips(sessionId);
  const clip =
    clips[0] ??
    (await store.clips.createClip(
      { sessionId, startMs: 0, endMs: Math.min(video.durationMs, 3000), name: 'Demo clip: the first seconds', description: 'Made by results-api demo' },
      by,
    ));
  const reels = await store.reels.listReels(video.testId);
  const reel = reels.find((r) => r.clipIds.includes(clip.id)) ?? (await store.reels.createReel({ testId: video.testId, name: 'Demo highlight reel', clipIds: [clip.id] }, by));
  return { clipId: clip.id, reelId: reel.id };
}
