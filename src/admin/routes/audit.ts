import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AUDIT_ACTION_RULE, DEFAULT_AUDIT_LIMIT, isAuditActionFilter, listAudit, MAX_AUDIT_LIMIT } from '../../operations/audit.js';
import type { OperationDeps } from '../../operations/deps.js';
import { AuditEventView } from '../../operations/views.js';
import { requireRole } from '../caller.js';
import { adminProblems } from '../problems.js';
import { adminResponses } from '../schemas.js';

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

/** The audit log (`results-api audit`): operators only. */
export function registerAuditRoutes(app: FastifyInstance, deps: OperationDeps): void {
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
}
