import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { legacyOperation, type LegacyDeps, type LegacyPrefix } from './legacy-operation.js';
import { legacyResponses } from './responses.js';
import { Workspace } from './schemas.js';
import { workspaceView } from './views.js';

/** GET /usertesting/api/v1/workspaces: the workspaces where the caller is a member. */
export function registerWorkspacesRoute(scope: FastifyInstance, prefix: LegacyPrefix, deps: LegacyDeps): void {
  scope.get(
    `${prefix}/workspaces`,
    {
      schema: {
        ...legacyOperation(prefix, { summary: 'List the workspaces where the caller is a member', operationId: 'getWorkspaces' }),
        response: legacyResponses({ description: 'The workspaces where the caller is a member, oldest first.', schema: Type.Array(Workspace) }),
      },
    },
    async (request) => (await deps.access.workspaces(request.caller)).map(workspaceView),
  );
}
