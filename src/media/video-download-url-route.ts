import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiResponses } from '../results/responses.js';
import { SessionVideoParams, VideoDownloadResponse } from './schemas.js';
import type { MediaStorage } from './storage/media-storage.js';
import { videoDownloadLink } from './video-download-link.js';

/** GET /api/v2/sessionResults/{sessionId}/videoDownloadUrl (the real "Video Data" operation). */
export function registerVideoDownloadUrlRoute(scope: FastifyInstance, deps: { access: ResourceAccess; media: { storage: MediaStorage } }): void {
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
      const video = await deps.access.video(request.caller, request.params.sessionId);
      return videoDownloadLink(deps.media.storage, video);
    },
  );
}
