import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiResponses } from '../results/responses.js';
import { reelDetails, type GeneratedMediaDeps } from './clip-views.js';
import { ReelDetailsResponse, ReelParams } from './schemas.js';

/** GET /api/v2/testResults/{testId}/highlightreels/{reelId}: a reel's state, and its download link once made. */
export function registerReelDetailsRoute(scope: FastifyInstance, deps: { access: ResourceAccess; generated: GeneratedMediaDeps }): void {
  scope.get<{ Params: ReelParams }>(
    '/api/v2/testResults/:testId/highlightreels/:reelId',
    {
      schema: {
        summary: 'Get a highlight reel\'s state and download link',
        description:
          'GENERATING while the reel is being made (ask again every few seconds), GENERATED with a `reelUrl` that ' +
          'downloads it for 15 minutes (ask again for a fresh one), or ERROR when making it failed: that answer also ' +
          'starts a new attempt, so ask again. A reel of a test the caller may not see gets the same 404 as none.',
        tags: [TAG.videoData],
        operationId: 'TestResultsController_getReelDetails',
        security: API_SECURITY,
        params: ReelParams,
        response: apiResponses(
          { description: 'The reel\'s state, and its download link once made.', schema: ReelDetailsResponse },
          { notFound: 'Highlight reel not found: no such reel of this test, or a test the caller may not see (the same answer).' },
        ),
      },
    },
    async (request) => {
      const reel = await deps.access.reel(request.caller, request.params.testId, request.params.reelId);
      return reelDetails(deps.generated, reel, request.caller);
    },
  );
}
