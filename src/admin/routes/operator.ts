import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { isoTime } from '../../cli/output.js';
import { AUDIT_ACTION_RULE, DEFAULT_AUDIT_LIMIT, isAuditActionFilter, listAudit, MAX_AUDIT_LIMIT } from '../../operations/audit.js';
import type { OperationDeps } from '../../operations/deps.js';
import { listKeys, rotateKey } from '../../operations/keys.js';
import { AuditEventView, KeyView, RotatedKey } from '../../operations/views.js';
import type { AdminRole } from '../../store/admins.js';
import { adminConflict } from '../../store/admins.js';
import { requireRole } from '../caller.js';
import { emailField } from '../fields.js';
import { adminProblems } from '../problems.js';
import { adminResponses, AdminView, adminView, Email, Role } from '../schemas.js';
import { createAdminWithLink, renewSetupLink, setupLinkUnavailable, type SetupLink } from '../setup-links.js';

const AuditQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: MAX_AUDIT_LIMIT, default: DEFAULT_AUDIT_LIMIT, description: 'How many of the newest matching events.' }),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Only events at or after this time.' })),
    action: Type.Optional(Type.String({ maxLength: 64, description: `Only this action, or every action of a noun: ${AUDIT_ACTION_RULE}.` })),
    actor: Type.Optional(Type.String({ maxLength: 300, description: 'e.g. cli:alice, admin:ana@example.com' })),
    subject: Type.Optional(Type.String({ maxLength: 300 })),
  },
  { additionalProperties: false },
);

const SetupLinkView = Type.Object(
  { ...AdminView.properties, setupLink: Type.String({ description: 'One-time link (shown only this once).' }), setupLinkExpiresAt: Type.String({ format: 'date-time' }) },
  { title: 'AdminSetupLink' },
);
const setupLinkView = (l: SetupLink) => ({ ...adminView(l.admin), setupLink: l.setupLink, setupLinkExpiresAt: isoTime(l.expiresAt)! });

const CreateAdminBody = Type.Object({ email: Email, role: Role }, { additionalProperties: false });
const AdminParams = Type.Object({ adminId: Type.String({ format: 'uuid' }) });
const AssignmentParams = Type.Object({ adminId: Type.String({ format: 'uuid' }), workspaceId: Type.String({ format: 'uuid' }) });
const ListedAdmin = Type.Object({ ...AdminView.properties, workspaces: Type.Array(Type.String({ format: 'uuid' })) }, { title: 'ListedAdmin' });

/** What only operators do: signing keys, the audit log, and admin accounts. */
export function registerOperatorRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.get('/admin/api/keys', { schema: { tags: ['Keys'], summary: 'List signing keys with their state', response: adminResponses({ 200: Type.Array(KeyView) }) } }, async (request) => {
    requireRole(request, 'operator');
    return listKeys(deps);
  });

  app.post(
    '/admin/api/keys/rotate',
    {
      schema: {
        tags: ['Keys'],
        summary: 'Add a new signing key and sign with it',
        description: 'The previous key stays published until every token it signed has expired.',
        response: adminResponses({ 200: RotatedKey }),
      },
    },
    async (request) => rotateKey(deps, requireRole(request, 'operator')),
  );

  app.get<{ Querystring: Static<typeof AuditQuery> }>(
    '/admin/api/audit',
    { schema: { tags: ['Audit'], summary: 'The newest audit events, oldest first (never a secret)', querystring: AuditQuery, response: adminResponses({ 200: Type.Array(AuditEventView) }) } },
    async (request) => {
      requireRole(request, 'operator');
      const { limit, since, action, actor, subject } = request.query;
      if (action !== undefined && !isAuditActionFilter(action)) throw adminProblems.invalid(`action must be ${AUDIT_ACTION_RULE} (got "${action.slice(0, 64)}")`);
      return listAudit(deps, {
        limit,
        ...(since === undefined ? {} : { since: Date.parse(since) }),
        ...(action === undefined ? {} : { action }),
        ...(actor === undefined ? {} : { actor }),
        ...(subject === undefined ? {} : { subject }),
      });
    },
  );

  const tags = ['Admins'];
  app.get('/admin/api/admins', { schema: { tags, summary: 'List admin accounts', response: adminResponses({ 200: Type.Array(ListedAdmin) }) } }, async (request) => {
    requireRole(request, 'operator');
    const admins = await deps.store.admins.listAdmins();
    return Promise.all(admins.map(async (a) => ({ ...adminView(a), workspaces: await deps.store.admins.assignedWorkspaces(a.id) })));
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
        const admin = (await deps.store.admins.getAdmin(adminId))!;
        return { ...adminView(admin), workspaces: await deps.store.admins.assignedWorkspaces(adminId) };
      },
    );
  }
}
