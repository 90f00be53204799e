import type { Command } from 'commander';
import type { AuditEvent } from '../store/store.js';
import { AUDIT_ACTIONS, type AuditFilter } from '../store/audit-log.js';
import { positiveIntegerArgument, sinceArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { emit, isoTime, JSON_FLAG, JSON_FLAG_HELP, table, usageError, type OutputOptions } from './output.js';

const NOUNS = new Set(AUDIT_ACTIONS.map((a) => a.split('.')[0]!));

/** A known action, or the noun of some (`credential` for every credential.* action). */
function actionArgument(value: string): string {
  const action = value.trim();
  if ((AUDIT_ACTIONS as readonly string[]).includes(action) || NOUNS.has(action)) return action;
  throw usageError(`--action must be one of ${AUDIT_ACTIONS.join(', ')}, or one of their nouns (${[...NOUNS].join(', ')}) (got "${value}")`);
}

type AuditOptions = OutputOptions & { limit: string; since?: string; action?: string; actor?: string; subject?: string };

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 100_000;

/** The store records no secret, hash or key material in an event, so all of it may be shown. */
const eventJson = (e: AuditEvent) => ({
  id: e.id,
  at: isoTime(e.at),
  actor: e.actor,
  action: e.action,
  subject: e.subject,
  details: e.details,
});

const detailsText = (details: Record<string, unknown>): string =>
  Object.keys(details).length === 0 ? '-' : JSON.stringify(details);

/** `audit`: who changed credentials, users, membership, keys or data, and when. */
export function registerAudit(program: Command): void {
  program
    .command('audit')
    .description('the audit log: the newest events, oldest first (never a secret)')
    .option('--limit <n>', `how many of the newest matching events to show (1-${MAX_LIMIT})`, String(DEFAULT_LIMIT))
    .option('--since <when>', 'only events at or after: an ISO 8601 time (2026-11-23T09:00:00Z) or a time ago (30m, 24h, 7d)')
    .option('--action <action>', `only this action, or every action of a noun (credential): ${AUDIT_ACTIONS.join(', ')}`)
    .option('--actor <actor>', 'only events by this actor (e.g. cli:alice)')
    .option('--subject <subject>', 'only events about this subject (a client id, an email, a workspace or test id, a kid)')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: AuditOptions) => {
      const filter: AuditFilter = {
        limit: positiveIntegerArgument('--limit', options.limit, MAX_LIMIT),
        ...(options.since === undefined ? {} : { since: sinceArgument('--since', options.since, Date.now()) }),
        ...(options.action === undefined ? {} : { action: actionArgument(options.action) }),
        ...(options.actor === undefined ? {} : { actor: options.actor }),
        ...(options.subject === undefined ? {} : { subject: options.subject }),
      };
      const events = await withRuntime((rt) => rt.store.audit.list(filter));
      emit(options, events.map(eventJson), () =>
        table(
          events,
          [
            { header: 'AT', value: (e) => isoTime(e.at)! },
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
