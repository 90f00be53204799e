import type { FastifyInstance } from 'fastify';
import { API_SECURITY } from '../docs/security-schemes.js';
import { apiErrors } from '../errors.js';
import { strictQuery } from '../http/strict-query.js';
import type { AccessReads } from '../access/access-cache.js';
import type { Store } from '../store/store.js';
import { isoTime } from './iso-time.js';
import { listSessionResults } from './list-session-results.js';
import type { SessionPageReader } from './session-pages.js';
import { resolvePaging, type Paging } from './paging.js';
import { apiResponses } from './responses.js';
import {
  SessionResultsPage,
  SessionResultsQuery,
  WorkspaceDetail,
  WorkspaceList,
  WorkspaceParams,
} from './schemas.js';


/**
 * The Results API. Each operation is served on its `/api` path and on the earlier path
 * without the prefix; both forms of authentication work on every path.
 */
export function registerResultsRoutes(scope: FastifyInstance, deps: { store: Store; reads: AccessReads; pages: SessionPageReader }): void {
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

  for (const prefix of ['/api/v1', '/v1']) {
    const primary = prefix === '/api/v1';
    scope.get(
      `${prefix}/workspaces`,
      {
        schema: {
          summary: `List the workspaces where the caller is a team member${primary ? '' : ' (earlier path)'}`,
          tags: ['Legacy (v1)'],
          operationId: primary ? 'listWorkspaces' : 'listWorkspacesEarlierPath',
          security: API_SECURITY,
          response: apiResponses({ description: 'The workspaces where the caller is a team member.', schema: WorkspaceList }),
        },
      },
      async (request) => {
        const workspaces = await deps.store.directory.listWorkspacesForMember(request.caller.email);
        return { workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, createdAt: isoTime(w.createdAt) })) };
      },
    );

    scope.get<{ Params: WorkspaceParams }>(
      `${prefix}/workspaces/:workspaceId`,
      {
        schema: {
          summary: `A workspace and its tests (ids to use as testId)${primary ? '' : ' (earlier path)'}`,
          tags: ['Legacy (v1)'],
          operationId: primary ? 'getWorkspace' : 'getWorkspaceEarlierPath',
          security: API_SECURITY,
          params: WorkspaceParams,
          response: apiResponses(
            { description: 'The workspace and its tests.', schema: WorkspaceDetail },
            { notFound: 'Workspace not found: no such workspace, or the caller is not a member (the same answer for both).' },
          ),
        },
      },
      async (request) => {
        const workspaceId = request.params.workspaceId.toLowerCase();
        const workspace = await deps.store.directory.getWorkspace(workspaceId);
        // Same answer for a missing workspace and another team's, so existence does not leak.
        if (!workspace || !(await deps.store.directory.isMember(workspaceId, request.caller.email))) {
          throw apiErrors.workspaceNotFound(`workspace ${workspaceId} missing or caller not a member`);
        }
        const tests = await deps.store.directory.listTests(workspaceId);
        return {
          id: workspace.id,
          name: workspace.name,
          createdAt: isoTime(workspace.createdAt),
          tests: tests.map((t) => ({
            id: t.id,
            title: t.title,
            productType: t.productType,
            createdAt: isoTime(t.createdAt),
            sessionCount: t.sessionCount,
          })),
        };
      },
    );
  }
}
