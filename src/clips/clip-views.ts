import type { Caller } from '../access/caller.js';
import type { MediaStorage } from '../media/storage/media-storage.js';
import { clipObjectKey, type Clip, type ClipRepository, type ClipStatus } from '../store/clips.js';
import { reelObjectKey, type HighlightReel, type ReelRepository } from '../store/reels.js';
import type { Test } from '../store/store.js';
import type { Video } from '../store/videos.js';
import type { ClipDetailsResponse, ClipsResponse, HighlightReelsResponse, ReelDetailsResponse } from './schemas.js';

/** The real API's clip (and reel) links last 15 minutes. */
export const CLIP_LINK_SECONDS = 15 * 60;

/** How the "Video Data" operations show the clips and highlight reels the caller may see (ResourceAccess). */

/** The clips of a session's video, in the order they start, with the video's regions. */
export async function sessionClips(clips: Pick<ClipRepository, 'listClips'>, video: Video): Promise<ClipsResponse> {
  const body: ClipsResponse = { studyUuid: video.testId, clips: (await clips.listClips(video.sessionId)).map((c) => clipView(c, video)) };
  if (video.regions.screen || video.regions.camera) body.videoRegions = video.regions;
  return body;
}

function clipView(clip: Clip, video: Video) {
  return {
    uuid: clip.id,
    name: clip.name,
    ...(clip.description === null ? {} : { description: clip.description }),
    timeStartMs: clip.startMs,
    timeEndMs: clip.endMs,
    videoUuid: video.sessionId,
    hasAudio: video.hasAudio,
    hasCamera: video.regions.camera !== undefined,
    layout: clip.layout,
  };
}

/** A test's highlight reels, oldest first, and whether the test has clips at all. */
export async function testReels(reels: Pick<ReelRepository, 'listReels' | 'countClipsOfTest'>, test: Test): Promise<HighlightReelsResponse> {
  const [list, clipCount] = await Promise.all([reels.listReels(test.id), reels.countClipsOfTest(test.id)]);
  return {
    reels: list.map((r) => ({
      uuid: r.id,
      highlightReelToken: r.token,
      name: r.name,
      durationMs: r.durationMs,
      lastUpdatedAtMs: r.updatedAt,
      numClips: r.clipIds.length,
      // Clips are never deleted and a reel lists each once: all are in it when the counts agree.
      areAllClipsInReel: clipCount > 0 && r.clipIds.length === clipCount,
    })),
    studyWithClips: clipCount > 0,
  };
}

export interface GeneratedMediaDeps {
  clips: Pick<ClipRepository, 'retryClip'>;
  reels: Pick<ReelRepository, 'retryReel'>;
  storage: MediaStorage;
}

/** A clip's state, with its download link once cut. */
export async function clipDetails(deps: GeneratedMediaDeps, clip: Clip, caller: Caller): Promise<ClipDetailsResponse> {
  const clipUrl = await generatedLink(deps.storage, clip, clipObjectKey(clip.id), (by) => deps.clips.retryClip(clip.id, by), caller);
  return { clipUuid: clip.id, status: clip.status, clipUrl };
}

/** A highlight reel's state, with its download link once made. */
export async function reelDetails(deps: GeneratedMediaDeps, reel: HighlightReel, caller: Caller): Promise<ReelDetailsResponse> {
  const reelUrl = await generatedLink(deps.storage, reel, reelObjectKey(reel.id), (by) => deps.reels.retryReel(reel.id, by), caller);
  return { reelId: reel.id, status: reel.status, reelUrl };
}

/**
 * The download link of a clip or reel once its job made it (null before). Asking about one in
 * ERROR starts a new attempt, on the caller's behalf: the real API's "ask again".
 */
async function generatedLink(
  storage: MediaStorage,
  item: { status: ClipStatus },
  objectKey: string,
  retry: (by: { actor: string }) => Promise<boolean>,
  caller: Caller,
): Promise<string | null> {
  if (item.status === 'ERROR') await retry({ actor: `api:${caller.clientId}` });
  if (item.status !== 'GENERATED') return null;
  return (await storage.signedUrl(objectKey, { expiresInSeconds: CLIP_LINK_SECONDS })).url;
}
