import { isoTime } from '../iso-time.js';
import type { Video } from '../store/videos.js';
import type { VideoDownloadResponse } from './schemas.js';
import type { MediaStorage } from './storage/media-storage.js';

/** The real contract: a video link is valid for one hour. */
export const VIDEO_LINK_SECONDS = 3600;

/** A link to a video the caller may see, offered for download as `<sessionId>.<extension>`. */
export async function videoDownloadLink(storage: MediaStorage, video: Video): Promise<VideoDownloadResponse> {
  const extension = video.objectKey.slice(video.objectKey.lastIndexOf('.') + 1);
  const link = await storage.signedUrl(video.objectKey, { expiresInSeconds: VIDEO_LINK_SECONDS, downloadName: `${video.sessionId}.${extension}` });
  return { videoUrl: link.url, sessionId: video.sessionId, expiresAt: isoTime(link.expiresAt) };
}
