import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { strictQuery } from '../http/strict-query.js';
import { legacyOperation, type LegacyDeps, type LegacyPrefix } from './legacy-operation.js';
import { legacyResponses } from './responses.js';
import { STUDIES_PAGE_SIZE, StudiesQuery, WorkspaceParams, WorkspaceStudy } from './schemas.js';
import { workspaceStudiesPage } from './views.js';

/** GET /usertesting/api/v1/workspaces/{workspaceUuid}: the tests (studies) of a workspace, by cursor. */
export function registerWorkspaceStudiesRoute(scope: FastifyInstance, prefix: LegacyPrefix, deps: LegacyDeps): void {
  scope.get<{ Params: WorkspaceParams; Querystring: StudiesQuery }>(
    `${prefix}/workspaces/:workspaceUuid`,
    {
      preValidation: strictQuery(StudiesQuery),
      schema: {
        ...legacyOperation(prefix, { summary: 'List the tests (studies) of a workspace', operationId: 'getWorkspaceStudies' }),
        description: 'Keep the entries whose `type` is STUDYV2: their `uuid` is the testId of the v2 API.',
        params: WorkspaceParams,
        querystring: StudiesQuery,
        response: legacyResponses(
          { description: `Up to ${STUDIES_PAGE_SIZE} tests of the workspace, oldest first; an empty page means done.`, schema: Type.Array(WorkspaceStudy) },
          { notFound: 'Workspace not found: no such workspace, or the caller is not a member (the same answer for both).' },
        ),
      },
    },
    async (request) => workspaceStudiesPage(await deps.access.testsOfWorkspace(request.caller, request.params.workspaceUuid), request.query),
  );
}
