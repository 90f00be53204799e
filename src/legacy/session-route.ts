import type { FastifyInstance } from 'fastify';
import { NOT_FOUND } from '../results/responses.js';
import { legacyOperation, type LegacyDeps, type LegacyPrefix } from './legacy-operation.js';
import { legacyResponses } from './responses.js';
import { Session, SessionParams } from './schemas.js';
import { sessionView } from './views.js';

/** GET /usertesting/api/v1/session/{sessionUuid}: one session, whatever its status. */
export function registerSessionRoute(scope: FastifyInstance, prefix: LegacyPrefix, deps: LegacyDeps): void {
  scope.get<{ Params: SessionParams }>(
    `${prefix}/session/:sessionUuid`,
    {
      schema: {
        ...legacyOperation(prefix, { summary: 'One session, whatever its status', operationId: 'getSession' }),
        params: SessionParams,
        response: legacyResponses({ description: 'The session.', schema: Session }, { notFound: NOT_FOUND.session }),
      },
    },
    async (request) => {
      const { session, test } = await deps.access.session(request.caller, request.params.sessionUuid);
      return sessionView(session, test);
    },
  );
}
