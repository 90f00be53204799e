import type { Command } from 'commander';
import { AUDIT_ACTION_RULE, DEFAULT_AUDIT_LIMIT, isAuditActionFilter, listAudit, MAX_AUDIT_LIMIT } from '../operations/audit.js';
import { isoTime } from '../iso-time.js';
import { AUDIT_ACTIONS, type AuditFilter } from '../store/audit-log.js';
import { positiveIntegerArgument, sinceArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, usageError, type OutputOptions } from './output.js';

/** A known action, or the noun of some (`credential` for every credential.* action). */
function actionArgument(value: string): string {
  const action = value.trim();
  if (isAuditActionFilter(action)) return action;
  throw usageError(`--action must be ${AUDIT_ACTION_RULE} (got "${value}")`);
}

type AuditOptions = OutputOptions & EndpointOptions & { limit: string; since?: string; action?: string; actor?: string; subject?: string };

const detailsText = (details: Record<string, unknown>): string => (Object.keys(details).length === 0 ? '-' : JSON.stringify(details));

/** The filter as admin API query parameters (times as ISO 8601). */
function auditQuery(filter: AuditFilter): string {
  const query = new URLSearchParams();
  if (filter.limit !== undefined) query.set('limit', String(filter.limit));
  if (filter.since !== undefined) query.set('since', isoTime(filter.since));
  for (const key of ['action', 'actor', 'subject'] as const) if (filter[key] !== undefined) query.set(key, filter[key]);
  return query.toString();
}

/** `audit`: who changed credentials, users, membership, keys or data, and when. */
export function registerAudit(program: Command): void {
  endpointOptions(
    program
      .command('audit')
      .description('the audit log: the newest events, oldest first (never a secret)')
      .option('--limit <n>', `how many of the newest matching events to show (1-${MAX_AUDIT_LIMIT})`, String(DEFAULT_AUDIT_LIMIT))
      .option('--since <when>', 'only events at or after: an ISO 8601 time (2026-11-23T09:00:00Z) or a time ago (30m, 24h, 7d)')
      .option('--action <action>', `only this action, or every action of a noun (credential): ${AUDIT_ACTIONS.join(', ')}`)
      .option('--actor <actor>', 'only events by this actor (e.g. cli:alice, admin:ana@example.com)')
      .option('--subject <subject>', 'only events about this subject (a client id, an email, a workspace or test id, a kid)')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: AuditOptions) => {
    const filter: AuditFilter = {
      limit: positiveIntegerArgument('--limit', options.limit, MAX_AUDIT_LIMIT),
      ...(options.since === undefined ? {} : { since: sinceArgument('--since', options.since, Date.now()) }),
      ...(options.action === undefined ? {} : { action: actionArgument(options.action) }),
      ...(options.actor === undefined ? {} : { actor: options.actor }),
      ...(options.subject === undefined ? {} : { subject: options.subject }),
    };
    const events = await perform(options, (rt) => listAudit(rt, filter), { method: 'GET', path: `/admin/api/audit?${auditQuery(filter)}` });
    emit(options, events, () =>
      table(
        events,
        [
          { header: 'AT', value: (e) => e.at },
          { header: 'ACTOR', value: (e) => e.actor },
          { header: 'ACTION', value: (e) => e.action },
          { header: 'SUBJECT', value: (e) => e.subject },
          { header: 'DETAILS', value: (e) => detailsText(e.details) },
        ],
        'no audit events',
      ),
    );
  });
}
