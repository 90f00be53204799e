import type { FastifyInstance } from 'fastify';
import { API_SECURITY } from '../docs/security-schemes.js';
import { EXTENSION } from '../docs/extension.js';
import { TAG } from '../docs/tags.js';
import { strictQuery } from '../http/strict-query.js';
import type { AccessReads } from '../access/access-cache.js';
import { listSessionResults } from './list-session-results.js';
import type { SessionPageReader } from './session-pages.js';
import { resolvePaging, type Paging } from './paging.js';
import { apiResponses, NOT_FOUND } from './responses.js';
import { SessionSummaryResultsResponse, SessionResultsQuery } from './schemas.js';

/**
 * The Results API. Each operation is served on its `/api` path and on the earlier path
 * without the prefix; both forms of authentication work on every path.
 */
export function registerResultsRoutes(scope: FastifyInstance, deps: { reads: AccessReads; pages: SessionPageReader }): void {
  const sessionPaths: [string, Paging['form']][] = [
    ['/api/v2/sessionResults', 'page'],
    ['/v2/sessionResults', 'offset'],
  ];
  for (const [path, defaultForm] of sessionPaths) {
    const real = path.startsWith('/api');
    scope.get<{ Querystring: SessionResultsQuery }>(
      path,
      {
        preValidation: strictQuery(SessionResultsQuery),
        schema: {
          summary: `List the completed sessions of a test${real ? '' : ' (earlier path, an extension)'}`,
          description:
            'One page of the completed sessions (status COMPLETE) of a test in a workspace where the caller is a team ' +
            'member; sessions of other statuses are kept but never listed or counted. ' +
            'Page with limit/offset, or with the rowsPerPage/pageNumber extension, not both. ' +
            `Without either, ${defaultForm === 'page' ? 'rowsPerPage/pageNumber' : 'limit/offset'} applies on this path.` +
            (real ? '' : ' The same operation as GET /api/v2/sessionResults, served without the /api prefix.'),
          tags: [TAG.results],
          // The real contract's operationId, so generated clients name the method alike.
          operationId: real ? 'SessionResultsController_getSessionSummaryResults' : 'SessionResultsController_getSessionSummaryResultsEarlierPath',
          ...(real ? {} : EXTENSION),
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
        // The 200 response schema's compiled serializer (fast-json-stringify).
        const serialize = reply.getSerializationFunction('200', 'application/json')!;
        const body = await listSessionResults(deps, request.caller, request.query.testId.toLowerCase(), paging, serialize);
        // Already serialized by the route's response schema (or taken from the page cache).
        return reply.type('application/json; charset=utf-8').send(body);
      },
    );
  }
}
