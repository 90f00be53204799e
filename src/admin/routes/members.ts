import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { OperationDeps } from '../../operations/deps.js';
import { addMember, listMembers, removeMember } from '../../operations/directory.js';
import { AddedMember, MemberView, RemovedMember } from '../../operations/views.js';
import { requireWorkspaceAccess } from '../caller.js';
import { emailField } from '../fields.js';
import { adminResponses, Email, Uuid } from '../schemas.js';

const WorkspaceParams = Type.Object({ workspaceId: Uuid });
const MemberParams = Type.Object({ workspaceId: Uuid, email: Email });
const EmailBody = Type.Object({ email: Email }, { additionalProperties: false });
const tags = ['Members'];

/** A workspace's members: the emails whose API tokens may read it (`results-api members`). */
export function registerMemberRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.get<{ Params: Static<typeof WorkspaceParams> }>(
    '/admin/api/workspaces/:workspaceId/members',
    { schema: { tags, summary: "List a workspace's members", params: WorkspaceParams, response: adminResponses({ 200: Type.Array(MemberView) }, [404]) } },
    async (request) => {
      const workspaceId = request.params.workspaceId.toLowerCase();
      await requireWorkspaceAccess(request, deps.store, workspaceId);
      return listMembers(deps, workspaceId);
    },
  );

  app.post<{ Params: Static<typeof WorkspaceParams>; Body: Static<typeof EmailBody> }>(
    '/admin/api/workspaces/:workspaceId/members',
    { schema: { tags, summary: 'Let an email read a workspace', params: WorkspaceParams, body: EmailBody, response: adminResponses({ 201: AddedMember }, [404, 409]) } },
    async (request, reply) => {
      const workspaceId = request.params.workspaceId.toLowerCase();
      const caller = await requireWorkspaceAccess(request, deps.store, workspaceId);
      return reply.code(201).send(await addMember(deps, workspaceId, emailField('email', request.body.email), caller));
    },
  );

  app.delete<{ Params: Static<typeof MemberParams> }>(
    '/admin/api/workspaces/:workspaceId/members/:email',
    { schema: { tags, summary: 'Stop an email reading a workspace', params: MemberParams, response: adminResponses({ 200: RemovedMember }, [404]) } },
    async (request) => {
      const workspaceId = request.params.workspaceId.toLowerCase();
      const caller = await requireWorkspaceAccess(request, deps.store, workspaceId);
      return removeMember(deps, workspaceId, emailField('email', request.params.email), caller);
    },
  );
}
