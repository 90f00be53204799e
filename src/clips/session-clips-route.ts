import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiResponses } from '../results/responses.js';
import type { ClipRepository } from '../store/clips.js';
import { sessionClips } from './clip-views.js';
import { CLIP_VISIBILITY, ClipsResponse, SessionClipsParams } from './schemas.js';

/** GET /api/v2/sessionResults/{sessionId}/clips: the clips cut from a session's video. */
export function registerSessionClipsRoute(scope: FastifyInstance, deps: { access: ResourceAccess; store: { clips: Pick<ClipRepository, 'listClips'> } }): void {
  scope.get<{ Params: SessionClipsParams }>(
    '/api/v2/sessionResults/:sessionId/clips',
    {
      schema: {
        summary: 'List the clips of a session video',
        description:
          'The clips cut from the session\'s video, in the order they start, with their timing, sound and camera flags and ' +
          'layout, and the video\'s screen and camera regions.' + CLIP_VISIBILITY,
        tags: [TAG.videoData],
        operationId: 'SessionResultsController_getClips',
        security: API_SECURITY,
        params: SessionClipsParams,
        response: apiResponses(
          { description: 'The session video\'s clips.', schema: ClipsResponse },
          { notFound: 'Session not found (no such session, or none the caller may see), or the session has no video.' },
        ),
      },
    },
    async (request) => {
      const video = await deps.access.videoOfSession(request.caller, request.params.sessionId, 'clips');
      return sessionClips(deps.store.clips, video);
    },
  );
}
