import type { Static } from '@sinclair/typebox';
import { AUDIT_ACTIONS, type AuditFilter } from '../store/audit-log.js';
import type { OperationDeps } from './deps.js';
import { auditEventView, type AuditEventView } from './views.js';

/** The audit log. Shared by `results-api audit` and the admin API. */

const NOUNS = [...new Set(AUDIT_ACTIONS.map((a) => a.split('.')[0]!))];

/** Whether `action` names a known action, or the noun of some (`credential` for every credential.* action). */
export const isAuditActionFilter = (action: string): boolean => (AUDIT_ACTIONS as readonly string[]).includes(action) || NOUNS.includes(action);

export const AUDIT_ACTION_RULE = `one of ${AUDIT_ACTIONS.join(', ')}, or one of their nouns (${NOUNS.join(', ')})`;

export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 100_000;

export const listAudit = async (d: OperationDeps, filter: AuditFilter): Promise<Static<typeof AuditEventView>[]> =>
  (await d.store.audit.list(filter)).map(auditEventView);
