import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApprovalRevokedView, ApprovalView, listUserApprovals, revokeUserApproval } from '../../operations/apps.js';
import type { OperationDeps } from '../../operations/deps.js';
import { requireRole } from '../caller.js';
import { emailField } from '../fields.js';
import { adminResponses, Email } from '../schemas.js';

const EmailParams = Type.Object({ email: Email });
const ApprovalParams = Type.Object({ email: Email, clientId: Type.String({ minLength: 1, maxLength: 2048 }) });

/** The apps an API user approved: support staff see them and take one back for the user (`results-api users approvals`). */
export function registerUserApprovalRoutes(app: FastifyInstance, deps: OperationDeps): void {
  const users = { tags: ['API users'] };

  app.get<{ Params: Static<typeof EmailParams> }>(
    '/admin/api/users/:email/approvals',
    {
      schema: {
        ...users,
        summary: 'The apps an API user approved and has not revoked, with their scopes and when each last got a token',
        params: EmailParams,
        response: adminResponses({ 200: Type.Array(ApprovalView) }, [404]),
      },
    },
    async (request) => {
      requireRole(request, 'support');
      return listUserApprovals(deps, emailField('email', request.params.email));
    },
  );

  app.post<{ Params: Static<typeof ApprovalParams> }>(
    '/admin/api/users/:email/approvals/:clientId/revoke',
    {
      schema: {
        ...users,
        summary: "Revoke an API user's approval of an app: every token the app got for that user stops working within a second (the user may approve it again)",
        params: ApprovalParams,
        response: adminResponses({ 200: ApprovalRevokedView }, [404]),
      },
    },
    async (request) => {
      const caller = requireRole(request, 'support');
      return revokeUserApproval(deps, emailField('email', request.params.email), request.params.clientId, caller);
    },
  );
}
