import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { OperationDeps } from '../../operations/deps.js';
import { listTestSessions, SessionsPage } from '../../operations/sessions.js';
import { adminResponses, Uuid } from '../schemas.js';
import { requireTestAccess } from './access.js';

const TestParams = Type.Object({ testId: Uuid });
const SessionsQuery = Type.Object(
  {
    status: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only sessions of this status (e.g. COMPLETE).' })),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    offset: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 }),
  },
  { additionalProperties: false },
);

/** A test's sessions of every status, a page at a time: the console's sessions table. */
export function registerTestSessionRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.get<{ Params: Static<typeof TestParams>; Querystring: Static<typeof SessionsQuery> }>(
    '/admin/api/tests/:testId/sessions',
    {
      schema: {
        tags: ['Tests'],
        summary: "A page of a test's sessions of every status (or one), newest first",
        params: TestParams,
        querystring: SessionsQuery,
        response: adminResponses({ 200: SessionsPage }, [404]),
      },
    },
    async (request) => {
      const { test } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      return listTestSessions(deps, test, request.query);
    },
  );
}
