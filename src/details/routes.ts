import type { FastifyInstance } from 'fastify';
import type { AccessReads } from '../access/access-cache.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiResponses, NOT_FOUND } from '../results/responses.js';
import type { SessionPageReader } from '../results/session-pages.js';
import type { Store } from '../store/open-store.js';
import { SessionDetailsReader } from './details-reader.js';
import { QxScoreResponse, SessionIdParams, SessionResultsV3Response, TestIdParams } from './schemas.js';

/**
 * What a session contains (v3 session results) and a test's QXscores. Same rules as the list:
 * membership checked per request, one 404 for missing and foreign, both auth forms, the
 * caller's rate limit and `no-store` (the API guard of the scope these are registered in).
 */
export function registerDetailsRoutes(
  scope: FastifyInstance,
  deps: { store: Pick<Store, 'sessions' | 'sessionDetails'>; reads: AccessReads; pages: SessionPageReader },
): void {
  const reader = new SessionDetailsReader(deps.store, deps.reads, deps.pages.watcher, deps.pages.clock);

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
        response: apiResponses(
          { description: 'The session with its details.', schema: SessionResultsV3Response },
          { notFound: NOT_FOUND.session },
        ),
      },
    },
    async (request, reply) => {
      // JSON.stringify, not the schema's compiled serializer: the real schema's nullable models
      // and answer unions make that serializer validate every nested object against each branch
      // (several times the render's cost). The view builds exactly the schema's fields from a
      // document the import built field by field, so nothing else can reach the body; the
      // response conformance tests check it against the schema.
      const body = await reader.sessionResults(request.caller, request.params.sessionId.toLowerCase(), JSON.stringify);
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

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
        response: apiResponses(
          { description: 'The QXscores of the test.', schema: QxScoreResponse },
          { notFound: NOT_FOUND.test },
        ),
      },
    },
    async (request, reply) => {
      const serialize = reply.getSerializationFunction('200', 'application/json')!;
      const body = await reader.qxScoreBody(request.caller, request.params.testId.toLowerCase(), serialize);
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}
