import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiResponses } from '../results/responses.js';
import { clipDetails, type GeneratedMediaDeps } from './clip-views.js';
import { CLIP_VISIBILITY, ClipDetailsResponse, ClipParams } from './schemas.js';

/** GET /api/v2/sessionResults/{sessionId}/clips/{clipUuid}: a clip's state, and its download link once cut. */
export function registerClipDetailsRoute(scope: FastifyInstance, deps: { access: ResourceAccess; generated: GeneratedMediaDeps }): void {
  scope.get<{ Params: ClipParams }>(
    '/api/v2/sessionResults/:sessionId/clips/:clipUuid',
    {
      schema: {
        summary: 'Get a clip\'s state and download link',
        description:
          'GENERATING while the clip is being cut (ask again every few seconds), GENERATED with a `clipUrl` that downloads ' +
          'it for 15 minutes (ask again for a fresh one), or ERROR when cutting failed: that answer also starts a new ' +
          'attempt, so ask again.' + CLIP_VISIBILITY,
        tags: [TAG.videoData],
        operationId: 'SessionResultsController_getClipDetails',
        security: API_SECURITY,
        params: ClipParams,
        response: apiResponses(
          { description: 'The clip\'s state, and its download link once generated.', schema: ClipDetailsResponse },
          { notFound: 'Clip not found: no such clip in this session, or a session the caller may not see (the same answer).' },
        ),
      },
    },
    async (request) => {
      const clip = await deps.access.clipOfSession(request.caller, request.params.sessionId, request.params.clipUuid);
      return clipDetails(deps.generated, clip, request.caller);
    },
  );
}
