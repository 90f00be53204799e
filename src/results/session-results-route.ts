import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { strictQuery } from '../http/strict-query.js';
import { documentedOn, V2_PREFIXES, type V2Prefix } from './earlier-path.js';
import { listSessionResults } from './list-session-results.js';
import { resolvePaging, type Paging } from './paging.js';
import { apiResponses, NOT_FOUND } from './responses.js';
import { SessionResultsQuery, SessionSummaryResultsResponse } from './schemas.js';
import type { SessionPageReader } from './session-pages.js';

/** The paging form that applies when a request gives neither: the current one on /api/v2, the earlier on /v2. */
const DEFAULT_FORM: Record<V2Prefix, Paging['form']> = { '/api/v2': 'page', '/v2': 'offset' };

/**
 * GET /api/v2/sessionResults (and the earlier path without /api): one page of the completed
 * sessions of a test the caller may see. Both forms of authentication work on both paths.
 */
export function registerSessionResultsRoute(scope: FastifyInstance, deps: { access: ResourceAccess; pages: SessionPageReader }): void {
  for (const prefix of V2_PREFIXES) {
    const defaultForm = DEFAULT_FORM[prefix];
    scope.get<{ Querystring: SessionResultsQuery }>(
      `${prefix}/sessionResults`,
      {
        preValidation: strictQuery(SessionResultsQuery),
        schema: {
          ...documentedOn(prefix, {
            path: '/sessionResults',
            summary: 'List the completed sessions of a test',
            description:
              'One page of the completed sessions (status COMPLETE) of a test in a workspace where the caller is a team ' +
              'member; sessions of other statuses are kept but never listed or counted. ' +
              'Page with limit/offset, or with the rowsPerPage/pageNumber extension, not both. ' +
              `Without either, ${defaultForm === 'page' ? 'rowsPerPage/pageNumber' : 'limit/offset'} applies on this path.`,
            operationId: 'SessionResultsController_getSessionSummaryResults',
          }),
          tags: [TAG.results],
          security: API_SECURITY,
          querystring: SessionResultsQuery,
          response: apiResponses(
            { description: 'One page of completed sessions, newest first.', schema: SessionSummaryResultsResponse },
            { notFound: NOT_FOUND.test },
          ),
        },
      },
      async (request, reply) => {
        const paging = resolvePaging(request.query, defaultForm);
        const test = await deps.access.test(request.caller, request.query.testId, 'sessions');
        // The 200 response schema's compiled serializer (fast-json-stringify); the body may come from the page cache.
        const serialize = reply.getSerializationFunction('200', 'application/json')!;
        return reply.type('application/json; charset=utf-8').send(await listSessionResults(deps.pages, test, paging, serialize));
      },
    );
  }
}
