import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiResponses, NOT_FOUND } from '../results/responses.js';
import type { SessionDetailsReader } from './details-reader.js';
import { SessionIdParams, SessionResultsV3Response } from './schemas.js';

/** GET /api/v3/sessionResults/{sessionId}: what one session of any status contains. */
export function registerSessionDetailsRoute(scope: FastifyInstance, deps: { access: ResourceAccess; details: SessionDetailsReader }): void {
  scope.get<{ Params: SessionIdParams }>(
    '/api/v3/sessionResults/:sessionId',
    {
      schema: {
        summary: 'Retrieve session details (v3)',
        description:
          'What one session contains: its participant with demographics, every task group of the test plan with its ' +
          "response (a QX_SCORE group's score is the participant's QXscore, computed from their answers), and every " +
          'task with its prompt, type and response (start/end ms, skipped, the typed answer). The session may have any status.',
        tags: [TAG.results],
        operationId: 'SessionResultsV3Controller_getSessionResults',
        security: API_SECURITY,
        params: SessionIdParams,
        response: apiResponses({ description: 'The session with its details.', schema: SessionResultsV3Response }, { notFound: NOT_FOUND.session }),
      },
    },
    async (request, reply) => {
      const visible = await deps.access.session(request.caller, request.params.sessionId);
      // JSON.stringify, not the schema's compiled serializer: the real schema's nullable models
      // and answer unions make that serializer validate every nested object against each branch
      // (several times the render's cost). The view builds exactly the schema's fields from a
      // document the import built field by field, so nothing else can reach the body; the
      // response conformance tests check it against the schema.
      return reply.type('application/json; charset=utf-8').send(await deps.details.sessionResults(visible, 'v3', JSON.stringify));
    },
  );
}
