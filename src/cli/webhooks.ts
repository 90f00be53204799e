import type { Command } from 'commander';
import { deleteWebhook, listWebhooks, setWebhookDisabled, showWebhook } from '../operations/webhooks.js';
import { uuidArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';
import { registerWebhooksDeliveriesCommand, WEBHOOK_OPTION } from './webhooks-deliveries.js';

type WebhookRow = Awaited<ReturnType<typeof listWebhooks>>[number];


const describe = (w: WebhookRow): string =>
  [
    `webhook ${w.id} (${w.status}${w.disabledReason ? `: ${w.disabledReason}` : ''})`,
    `  owner: ${w.ownerEmail ?? '-'} (credential ${w.clientId})`,
    `  url: ${w.url}`,
    `  events: ${w.events.join(', ')}`,
    `  only test: ${w.testId ?? '-'}; only workspace: ${w.workspaceId ?? '-'}`,
    `  failing since: ${w.failingSince ?? '-'}`,
    `  created: ${w.createdAt}; updated: ${w.updatedAt}`,
  ].join('\n');

/** `webhooks`: the event subscriptions API users make, as operators see and manage them. */
export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').description("API users' webhook subscriptions and their delivery logs");

  webhooks
    .command('list')
    .description('every subscription (or one user\'s), oldest first, with its owner, url, events and state; never secrets')
    .option('--user <email>', 'only this user\'s subscriptions')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { user?: string }) => {
      const list = await withRuntime((rt) => listWebhooks(rt, options.user === undefined ? {} : { email: options.user }));
      emit(options, list, () =>
        table(
          list,
          [
            { header: 'WEBHOOK', value: (w) => w.id },
            { header: 'OWNER', value: (w) => w.ownerEmail ?? '-' },
            { header: 'STATUS', value: (w) => w.status },
            { header: 'EVENTS', value: (w) => w.events.join(',') },
            { header: 'URL', value: (w) => w.url },
            { header: 'FAILING_SINCE', value: (w) => w.failingSince ?? '-' },
          ],
          'no webhook subscriptions',
        ),
      );
    });

  webhooks
    .command('show')
    .description('one subscription: owner, url, events, filters, state and since when it fails')
    .requiredOption(...WEBHOOK_OPTION)
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { webhook: string }) => {
      const id = uuidArgument('--webhook', options.webhook);
      const w = await withRuntime((rt) => showWebhook(rt, id));
      emit(options, w, () => describe(w));
    });

  for (const [verb, disabled, help] of [
    ['disable', true, 'stop sending to a subscription (audited as webhook.disable); its due deliveries are skipped'],
    ['enable', false, 'resume a disabled subscription, forgetting its past failures (audited as webhook.enable)'],
  ] as const) {
    webhooks
      .command(verb)
      .description(help)
      .requiredOption(...WEBHOOK_OPTION)
      .option(JSON_FLAG, JSON_FLAG_HELP)
      .action(async (options: OutputOptions & { webhook: string }) => {
        const id = uuidArgument('--webhook', options.webhook);
        const w = await withRuntime((rt, by) => setWebhookDisabled(rt, id, disabled, by));
        emit(options, w, () => `webhook ${w.id} is ${w.status}`);
      });
  }

  webhooks
    .command('delete')
    .description('delete a subscription and its delivery log: nothing more is sent to it (audited as webhook.delete)')
    .requiredOption(...WEBHOOK_OPTION)
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { webhook: string }) => {
      const id = uuidArgument('--webhook', options.webhook);
      const result = await withRuntime((rt, by) => deleteWebhook(rt, id, by));
      emit(options, result, () => `deleted webhook ${result.deleted}`);
    });
  registerWebhooksDeliveriesCommand(webhooks);
}
