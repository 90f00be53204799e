import type { Command } from 'commander';
import type { AuditEvent } from '../store/store.js';
import { positiveIntegerArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { emit, isoTime, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

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
    .option('--limit <n>', `how many of the newest events to show (1-${MAX_LIMIT})`, String(DEFAULT_LIMIT))
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { limit: string }) => {
      const limit = positiveIntegerArgument('--limit', options.limit, MAX_LIMIT);
      const events = await withRuntime((rt) => rt.store.audit.list({ limit }));
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
