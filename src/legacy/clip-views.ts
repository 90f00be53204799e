import { PLAYER_LINK_SECONDS, playerLink } from '../clips/player.js';
import type { OpenedMediaStorage } from '../media/storage/open-media-storage.js';
import { isoTime } from '../iso-time.js';
import { clipPosterKey, type Clip, type ClipRepository } from '../store/clips.js';
import type { HighlightReel } from '../store/reels.js';
import type { Test } from '../store/store.js';
import type { LegacyClip, LegacyReel } from './clip-schemas.js';
import { legacyNumericId } from './numeric-id.js';

/**
 * Where a reel is edited: the admin console's page of its test (on the admin listener), which
 * lists the test's reels and makes new ones; a path, as the real `editUrlPath` is.
 */
export const reelEditPath = (reel: Pick<HighlightReel, 'id' | 'testId'>): string => `/#/tests/${reel.testId}?reel=${reel.id}`;

/** How clips and highlight reels look in the Legacy (v1) family: metadata and embeddable player links (src/clips/player.ts). */

/** A cut clip's poster frame, behind a signed link as long-lived as the player's. */
async function posterLink(media: OpenedMediaStorage, clip: Clip): Promise<string | undefined> {
  if (clip.status !== 'GENERATED') return undefined;
  return (await media.storage.signedUrl(clipPosterKey(clip.id), { expiresInSeconds: PLAYER_LINK_SECONDS })).url;
}

export async function legacyClipView(media: OpenedMediaStorage, clip: Clip, test: Test): Promise<LegacyClip> {
  const securePoster = await posterLink(media, clip);
  return {
    typeName: 'Clip',
    createdAt: isoTime(clip.createdAt),
    duration: Math.round((clip.endMs - clip.startMs) / 1000),
    embeddableUrl: playerLink(media.links, 'clip', clip.id),
    isImportant: false,
    note: clip.description ?? '',
    noteTags: [],
    ...(securePoster ? { securePoster } : {}),
    ...(clip.sentiment ? { sentimentTag: clip.sentiment } : {}),
    study: { title: test.title },
  };
}

/** A reel the caller may see, with each of its clips that still exists, in playing order. */
export async function legacyReelView(media: OpenedMediaStorage, clips: Pick<ClipRepository, 'findClip'>, reel: HighlightReel): Promise<LegacyReel> {
  const nodes = [];
  for (const clipId of reel.clipIds) {
    const clip = await clips.findClip(clipId);
    if (!clip) continue;
    const securePosterFullUrl = await posterLink(media, clip);
    nodes.push({
      duration: (clip.endMs - clip.startMs) / 1000,
      id: clip.id,
      ...(securePosterFullUrl ? { securePosterFullUrl } : {}),
      url: playerLink(media.links, 'clip', clip.id),
    });
  }
  return {
    clips: { nodes, totalCount: nodes.length },
    createdAt: isoTime(reel.createdAt),
    duration: reel.durationMs / 1000,
    editUrlPath: reelEditPath(reel),
    id: String(legacyNumericId(reel.id)),
    shareUrl: playerLink(media.links, 'highlightreel', reel.id),
    title: reel.name,
    token: reel.token,
    updatedAt: isoTime(reel.updatedAt),
  };
}
