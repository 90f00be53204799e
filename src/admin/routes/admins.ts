import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { isoTime } from '../../iso-time.js';
import type { OperationDeps } from '../../operations/deps.js';
import type { Admin, AdminRole } from '../../store/admins.js';
import { adminConflict } from '../../store/admins.js';
import { requireRole } from '../caller.js';
import { emailField } from '../fields.js';
import { adminProblems } from '../problems.js';
import { adminResponses, AdminView, adminView, Email, Role } from '../schemas.js';
import { createAdminWithLink, renewSetupLink, setupLinkUnavailable, type SetupLink } from '../setup-links.js';

const SetupLinkView = Type.Object(
  { ...AdminView.properties, setupLink: Type.String({ description: 'One-time link (shown only this once).' }), setupLinkExpiresAt: Type.String({ format: 'date-time' }) },
  { title: 'AdminSetupLink' },
);
const setupLinkView = (l: SetupLink) => ({ ...adminView(l.admin), setupLink: l.setupLink, setupLinkExpiresAt: isoTime(l.expiresAt) });

const CreateAdminBody = Type.Object({ email: Email, role: Role }, { additionalProperties: false });
const AdminParams = Type.Object({ adminId: Type.String({ format: 'uuid' }) });
const AssignmentParams = Type.Object({ adminId: Type.String({ format: 'uuid' }), workspaceId: Type.String({ format: 'uuid' }) });
const ListedAdmin = Type.Object({ ...AdminView.properties, workspaces: Type.Array(Type.String({ format: 'uuid' })) }, { title: 'ListedAdmin' });
const listedAdmin = async (deps: OperationDeps, admin: Admin) => ({ ...adminView(admin), workspaces: await deps.store.admins.assignedWorkspaces(admin.id) });

/** Admin accounts, their setup links and the workspaces account admins administer (`results-api admins`): operators only. */
export function registerAdminAccountRoutes(app: FastifyInstance, deps: OperationDeps): void {
  const tags = ['Admins'];
  app.get('/admin/api/admins', { schema: { tags, summary: 'List admin accounts', response: adminResponses({ 200: Type.Array(ListedAdmin) }) } }, async (request) => {
    requireRole(request, 'operator');
    return Promise.all((await deps.store.admins.listAdmins()).map((admin) => listedAdmin(deps, admin)));
  });

  app.post<{ Body: Static<typeof CreateAdminBody> }>(
    '/admin/api/admins',
    { schema: { tags, summary: 'Create an admin account and its one-time setup link', body: CreateAdminBody, response: adminResponses({ 201: SetupLinkView }, [409]) } },
    async (request, reply) => {
      const caller = requireRole(request, 'operator');
      const unavailable = setupLinkUnavailable(deps.config);
      if (unavailable) throw adminProblems.invalid(unavailable);
      const link = await createAdminWithLink(deps, { email: emailField('email', request.body.email), role: request.body.role as AdminRole }, caller);
      return reply.code(201).send(setupLinkView(link));
    },
  );

  app.post<{ Params: Static<typeof AdminParams> }>(
    '/admin/api/admins/:adminId/setup-link',
    { schema: { tags, summary: 'A new one-time setup link (the earlier one stops working)', params: AdminParams, response: adminResponses({ 200: SetupLinkView }, [404]) } },
    async (request) => {
      const caller = requireRole(request, 'operator');
      const admin = await deps.store.admins.getAdmin(request.params.adminId.toLowerCase());
      if (!admin) throw adminConflict.noAdmin(`with id ${request.params.adminId}`);
      return setupLinkView(await renewSetupLink(deps, admin.email, caller));
    },
  );

  for (const verb of ['assign', 'unassign'] as const) {
    const route = verb === 'assign' ? app.put.bind(app) : app.delete.bind(app);
    route<{ Params: Static<typeof AssignmentParams> }>(
      '/admin/api/admins/:adminId/workspaces/:workspaceId',
      {
        schema: {
          tags,
          summary: verb === 'assign' ? 'Let an account admin administer a workspace' : 'Stop an account admin administering a workspace',
          params: AssignmentParams,
          response: adminResponses({ 200: ListedAdmin }, [404, 409]),
        },
      },
      async (request) => {
        const caller = requireRole(request, 'operator');
        const adminId = request.params.adminId.toLowerCase();
        const workspaceId = request.params.workspaceId.toLowerCase();
        if (verb === 'assign') await deps.store.admins.assignWorkspace(adminId, workspaceId, caller);
        else await deps.store.admins.unassignWorkspace(adminId, workspaceId, caller);
        return listedAdmin(deps, (await deps.store.admins.getAdmin(adminId))!);
      },
    );
  }
}
