import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiResponses, NOT_FOUND } from '../results/responses.js';
import type { SessionDetailsReader } from './details-reader.js';
import { QxScoreResponse, TestIdParams } from './schemas.js';

/** GET /api/v2/testResults/{testId}/qxScores: the QXscores of a test, from its completed sessions' answers. */
export function registerQxScoresRoute(scope: FastifyInstance, deps: { access: ResourceAccess; details: SessionDetailsReader }): void {
  scope.get<{ Params: TestIdParams }>(
    '/api/v2/testResults/:testId/qxScores',
    {
      schema: {
        summary: 'Obtain QXscores for a test',
        description:
          "The QXscore of each QX_SCORE task group of the test's plan, computed from the answers of its completed " +
          'sessions: the behavioral component (navigational task success), the attitudinal one (top-2-box shares of ' +
          'the usability, trust, appearance and loyalty questions) and their mean. The method is in docs/QXSCORE.md.',
        tags: [TAG.qxScores],
        operationId: 'TestResultsController_getQxScoreResponse',
        security: API_SECURITY,
        params: TestIdParams,
        response: apiResponses({ description: 'The QXscores of the test.', schema: QxScoreResponse }, { notFound: NOT_FOUND.test }),
      },
    },
    async (request, reply) => {
      const test = await deps.access.test(request.caller, request.params.testId, 'studies');
      const serialize = reply.getSerializationFunction('200', 'application/json')!;
      return reply.type('application/json; charset=utf-8').send(await deps.details.qxScoreBody(test, serialize));
    },
  );
}
