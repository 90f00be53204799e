import type { FastifyInstance } from 'fastify';
import { API_SECURITY } from '../docs/security-schemes.js';
import { strictQuery } from '../http/strict-query.js';
import type { AccessReads } from '../access/access-cache.js';
import { listSessionResults } from './list-session-results.js';
import type { SessionPageReader } from './session-pages.js';
import { resolvePaging, type Paging } from './paging.js';
import { apiResponses } from './responses.js';
import { SessionResultsPage, SessionResultsQuery } from './schemas.js';


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
    scope.get<{ Querystring: SessionResultsQuery }>(
      path,
      {
        preValidation: strictQuery(SessionResultsQuery),
        schema: {
          summary: `List session results of a test${path.startsWith('/api') ? '' : ' (earlier path)'}`,
          description:
            'One page of the sessions of a test in a workspace where the caller is a team member. ' +
            'Page with limit/offset (earlier form) or rowsPerPage/pageNumber (current form), not both. ' +
            `Without either, ${defaultForm === 'page' ? 'the current form' : 'the earlier form'} applies on this path.`,
          tags: ['Results (v2)'],
          operationId: path.startsWith('/api') ? 'listSessionResults' : 'listSessionResultsEarlierPath',
          security: API_SECURITY,
          querystring: SessionResultsQuery,
          response: apiResponses(
            { description: 'One page of session results, newest first.', schema: SessionResultsPage },
            { notFound: 'Test not found: no such test, or none in a workspace where the caller is a member (the same answer for both).' },
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
