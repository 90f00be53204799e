import type { FastifyInstance } from 'fastify';
import type { AccessReads } from '../access/access-cache.js';
import type { Caller } from '../access/authenticate-request.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiErrors } from '../errors.js';
import { isoTime } from '../results/iso-time.js';
import { apiResponses } from '../results/responses.js';
import type { SessionRepository } from '../store/sessions.js';
import type { Video, VideoRepository } from '../store/videos.js';
import { SessionVideoParams, VideoDownloadResponse } from './schemas.js';
import type { MediaStorage } from './storage/media-storage.js';

/** The real contract: a video link is valid for one hour. */
export const VIDEO_LINK_SECONDS = 3600;

export interface VideoRouteDeps {
  reads: AccessReads;
  store: { sessions: Pick<SessionRepository, 'findSession'>; videos: Pick<VideoRepository, 'findVideo'> };
  media: { storage: MediaStorage };
}

/**
 * The session's video, if the caller may see it. A session that does not exist, one in a
 * test outside the caller's workspaces, and one without a video get the same answer.
 */
export async function findVisibleVideo(deps: VideoRouteDeps, sessionId: string, caller: Caller): Promise<Video | null> {
  const session = await deps.store.sessions.findSession(sessionId);
  if (!session || !(await deps.reads.findVisibleTest(session.testId, caller.email))) return null;
  return deps.store.videos.findVideo(sessionId);
}

/** GET /api/v2/sessionResults/{sessionId}/videoDownloadUrl (the real "Video Data" operation). */
export function registerVideoDownloadUrl(scope: FastifyInstance, deps: VideoRouteDeps): void {
  scope.get<{ Params: SessionVideoParams }>(
    '/api/v2/sessionResults/:sessionId/videoDownloadUrl',
    {
      schema: {
        summary: 'Obtain a video download link',
        description:
          "A link to download the session's video, valid for one hour; after it expires, ask again. The session must be " +
          'in a test of a workspace where the caller is a team member. The link needs no token: with S3 storage it is a ' +
          'presigned URL, otherwise a link to this server signed for this video alone, which answers Range requests ' +
          '(a browser can seek) and 403 once expired or altered.',
        tags: [TAG.videoData],
        operationId: 'SessionResultsController_getVideoDownloadUrl',
        security: API_SECURITY,
        params: SessionVideoParams,
        response: apiResponses(
          { description: 'The link and when it expires.', schema: VideoDownloadResponse },
          { notFound: 'Video not found: no such session, none in a workspace where the caller is a member, or no video for it (the same answer for all).' },
        ),
      },
    },
    async (request) => {
      const sessionId = request.params.sessionId.toLowerCase();
      const video = await findVisibleVideo(deps, sessionId, request.caller);
      if (!video) throw apiErrors.videoNotFound(`video of session ${sessionId} missing or outside the workspaces of ${request.caller.clientId}`);
      const extension = video.objectKey.slice(video.objectKey.lastIndexOf('.') + 1);
      const link = await deps.media.storage.signedUrl(video.objectKey, { expiresInSeconds: VIDEO_LINK_SECONDS, downloadName: `${sessionId}.${extension}` });
      return { videoUrl: link.url, sessionId, expiresAt: isoTime(link.expiresAt) };
    },
  );
}
