import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { apiErrors } from '../errors.js';
import { strictQuery } from '../http/strict-query.js';
import type { AccessReads } from '../access/access-cache.js';
import type { Store } from '../store/store.js';
import { listSessionResults } from './list-session-results.js';
import type { SessionPageReader } from './session-pages.js';
import { resolvePaging, type Paging } from './paging.js';
import {
  Problem,
  SessionResultsPage,
  SessionResultsQuery,
  WorkspaceDetail,
  WorkspaceList,
  WorkspaceParams,
} from './schemas.js';

const iso = (ms: number): string => new Date(ms).toISOString();

const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit': Type.Integer({ description: 'Requests allowed per window for this client.' }),
  'x-ratelimit-remaining': Type.Integer({ description: 'Requests left in the current window.' }),
  'x-ratelimit-reset': Type.Integer({ description: 'Seconds until the window resets.' }),
};

const errorResponses = { 400: Problem, 401: Problem, 403: Problem, 404: Problem, 429: Problem };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { tokenHeader: [] }];

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
        preValidation: strictQuery,
        schema: {
          summary: 'List session results of a test',
          description:
            'One page of the sessions of a test in a workspace where the caller is a team member. ' +
            'Page with limit/offset (earlier form) or rowsPerPage/pageNumber (current form), not both. ' +
            `Without either, ${defaultForm === 'page' ? 'the current form' : 'the earlier form'} applies on this path.`,
          tags: ['Results (v2)'],
          operationId: path.startsWith('/api') ? 'listSessionResults' : 'listSessionResultsEarlierPath',
          security,
          querystring: SessionResultsQuery,
          response: { 200: { ...SessionResultsPage, headers: RATE_LIMIT_HEADERS }, ...errorResponses },
        },
      },
      async (request) => {
        const paging = resolvePaging(request.query, defaultForm);
        return listSessionResults(deps, request.caller, request.query.testId.toLowerCase(), paging);
      },
    );
  }

  for (const prefix of ['/api/v1', '/v1']) {
    const primary = prefix === '/api/v1';
    scope.get(
      `${prefix}/workspaces`,
      {
        schema: {
          summary: 'List the workspaces where the caller is a team member',
          tags: ['Legacy (v1)'],
          operationId: primary ? 'listWorkspaces' : 'listWorkspacesEarlierPath',
          security,
          response: { 200: WorkspaceList, ...errorResponses },
        },
      },
      async (request) => {
        const workspaces = await deps.store.listWorkspacesForMember(request.caller.email);
        return { workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, createdAt: iso(w.createdAt) })) };
      },
    );

    scope.get<{ Params: WorkspaceParams }>(
      `${prefix}/workspaces/:workspaceId`,
      {
        schema: {
          summary: 'A workspace and its tests (ids to use as testId)',
          tags: ['Legacy (v1)'],
          operationId: primary ? 'getWorkspace' : 'getWorkspaceEarlierPath',
          security,
          params: WorkspaceParams,
          response: { 200: WorkspaceDetail, ...errorResponses },
        },
      },
      async (request) => {
        const workspaceId = request.params.workspaceId.toLowerCase();
        const workspace = await deps.store.getWorkspace(workspaceId);
        // Same answer for a missing workspace and another team's, so existence does not leak.
        if (!workspace || !(await deps.store.isMember(workspaceId, request.caller.email))) {
          throw apiErrors.workspaceNotFound(`workspace ${workspaceId} missing or caller not a member`);
        }
        const tests = await deps.store.listTests(workspaceId);
        return {
          id: workspace.id,
          name: workspace.name,
          createdAt: iso(workspace.createdAt),
          tests: tests.map((t) => ({
            id: t.id,
            title: t.title,
            productType: t.productType,
            createdAt: iso(t.createdAt),
            sessionCount: t.sessionCount,
          })),
        };
      },
    );
  }
}
