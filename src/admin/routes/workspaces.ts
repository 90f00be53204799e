import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { OperationDeps } from '../../operations/deps.js';
import { createWorkspace, listWorkspacesOf } from '../../operations/directory.js';
import { WorkspaceView } from '../../operations/views.js';
import { requireRole } from '../caller.js';
import { adminResponses, Text, Uuid } from '../schemas.js';

const CreateWorkspaceBody = Type.Object({ id: Type.Optional(Uuid), name: Text(200) }, { additionalProperties: false });
const tags = ['Workspaces'];

/** Workspaces: operators create them; account admins see those assigned to them (`results-api workspaces`). */
export function registerWorkspaceRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.get(
    '/admin/api/workspaces',
    { schema: { tags, summary: 'List workspaces (an account admin sees those assigned to them)', response: adminResponses({ 200: Type.Array(WorkspaceView) }) } },
    async (request) => listWorkspacesOf(deps, requireRole(request, 'account-admin').admin),
  );

  app.post<{ Body: Static<typeof CreateWorkspaceBody> }>(
    '/admin/api/workspaces',
    { schema: { tags, summary: 'Create a workspace (operators)', body: CreateWorkspaceBody, response: adminResponses({ 201: WorkspaceView }, [409]) } },
    async (request, reply) => {
      const caller = requireRole(request, 'operator');
      const workspace = await createWorkspace(deps, { id: request.body.id?.toLowerCase() ?? randomUUID(), name: request.body.name.trim() }, caller);
      return reply.code(201).send(workspace);
    },
  );
}
