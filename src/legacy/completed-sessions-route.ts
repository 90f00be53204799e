import type { FastifyInstance } from 'fastify';
import { strictQuery } from '../http/strict-query.js';
import { NOT_FOUND } from '../results/responses.js';
import { legacyOperation, type LegacyDeps, type LegacyPrefix } from './legacy-operation.js';
import { legacyResponses } from './responses.js';
import { COMPLETED_PAGE_SIZE, CompletedSessions, CompletedSessionsQuery, StudyParams } from './schemas.js';

/** GET /usertesting/api/v1/studies/{studyUuid}/completed-sessions: a study's completed sessions by keyset cursor. */
export function registerCompletedSessionsRoute(scope: FastifyInstance, prefix: LegacyPrefix, deps: LegacyDeps): void {
  scope.get<{ Params: StudyParams; Querystring: CompletedSessionsQuery }>(
    `${prefix}/studies/:studyUuid/completed-sessions`,
    {
      preValidation: strictQuery(CompletedSessionsQuery),
      schema: {
        ...legacyOperation(prefix, {
          summary: `The completed sessions of a test, ${COMPLETED_PAGE_SIZE} per page by cursor`,
          operationId: 'getStudyCompletedSessions',
        }),
        description:
          'Only COMPLETE sessions, newest first. Pass the `cursor` of the last session as `after` for the next page ' +
          '(an empty page means done), or of the first as `before` for the previous one. Cursors are signed, belong to ' +
          'their test, and stay valid while sessions arrive: pages never shift, at any depth.',
        params: StudyParams,
        querystring: CompletedSessionsQuery,
        response: legacyResponses(
          { description: 'One page of completed sessions.', schema: CompletedSessions },
          {
            notFound: NOT_FOUND.study,
            badRequest: 'A cursor that this listing did not issue (changed, forged, or of another study), `after` with `before`',
          },
        ),
      },
    },
    async (request) => {
      const test = await deps.access.study(request.caller, request.params.studyUuid, 'sessions');
      return deps.completedSessions.page(test, request.query);
    },
  );
}
