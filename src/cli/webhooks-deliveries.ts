import type { Command } from 'commander';
import { webhookDeliveries } from '../operations/webhooks.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../store/webhooks.js';
import { positiveIntegerArgument, uuidArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, usageError, type OutputOptions } from './output.js';

export const WEBHOOK_OPTION = ['--webhook <uuid>', 'the subscription'] as const;
const MAX_DELIVERIES = 1000;

function statusArgument(value: string): DeliveryStatus {
  const status = value.trim().toLowerCase();
  if (!(DELIVERY_STATUSES as readonly string[]).includes(status)) throw usageError(`--status must be one of ${DELIVERY_STATUSES.join(', ')} (got "${value}")`);
  return status as DeliveryStatus;
}

/** `webhooks deliveries`: a subscription's delivery log. */
export function registerWebhooksDeliveriesCommand(webhooks: Command): void {
  webhooks
    .command('deliveries')
    .description("a subscription's delivery log, newest first: event, status, attempts, last response code, duration and error")
    .requiredOption(...WEBHOOK_OPTION)
    .option('--status <status>', `only deliveries in this status: ${DELIVERY_STATUSES.join(', ')}`)
    .option('--limit <n>', `how many (1-${MAX_DELIVERIES})`, '50')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { webhook: string; status?: string; limit: string }) => {
      const id = uuidArgument('--webhook', options.webhook);
      const filter = {
        limit: positiveIntegerArgument('--limit', options.limit, MAX_DELIVERIES),
        ...(options.status === undefined ? {} : { status: statusArgument(options.status) }),
      };
      const list = await withRuntime((rt) => webhookDeliveries(rt, id, filter));
      emit(options, list, () =>
        table(
          list,
          [
            { header: 'EVENT', value: (d) => d.eventId },
            { header: 'TYPE', value: (d) => d.type },
            { header: 'STATUS', value: (d) => d.status },
            { header: 'ATTEMPTS', value: (d) => String(d.attempts) },
            { header: 'CODE', value: (d) => (d.responseCode === null ? '-' : String(d.responseCode)) },
            { header: 'MS', value: (d) => (d.durationMs === null ? '-' : String(d.durationMs)) },
            { header: 'NEXT', value: (d) => d.nextAttemptAt ?? '-' },
            { header: 'ERROR', value: (d) => d.error ?? '-' },
          ],
          'no deliveries',
        ),
      );
    });
}
