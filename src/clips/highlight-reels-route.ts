import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiResponses, NOT_FOUND } from '../results/responses.js';
import type { ReelRepository } from '../store/reels.js';
import { testReels } from './clip-views.js';
import { HighlightReelsResponse, TestReelsParams } from './schemas.js';

/** GET /api/v2/testResults/{testId}/highlightreels: a test's highlight reels. */
export function registerHighlightReelsRoute(
  scope: FastifyInstance,
  deps: { access: ResourceAccess; store: { reels: Pick<ReelRepository, 'listReels' | 'countClipsOfTest'> } },
): void {
  scope.get<{ Params: TestReelsParams }>(
    '/api/v2/testResults/:testId/highlightreels',
    {
      schema: {
        summary: 'List the highlight reels of a test',
        description:
          'The test\'s highlight reels, oldest first: name, length, when last changed, how many clips, whether it holds ' +
          'every clip of the test; and whether the test has clips at all. A test that does not exist and one outside ' +
          'the caller\'s workspaces get the same 404.',
        tags: [TAG.videoData],
        operationId: 'TestResultsController_getHighlightReels',
        security: API_SECURITY,
        params: TestReelsParams,
        response: apiResponses({ description: 'The test\'s highlight reels.', schema: HighlightReelsResponse }, { notFound: NOT_FOUND.test }),
      },
    },
    async (request) => {
      const test = await deps.access.test(request.caller, request.params.testId, 'clips');
      return testReels(deps.store.reels, test);
    },
  );
}
