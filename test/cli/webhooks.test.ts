import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime } from '../../src/runtime.js';
import { cliSandbox, type CliSandbox } from './run-cli.js';

interface WebhookJson {
  id: string;
  status: string;
  ownerEmail: string;
  disabledReason: string | null;
}

describe('results-api webhooks', () => {
  let cli: CliSandbox;
  let webhookId: string;
  let eventId: string;

  beforeAll(async () => {
    cli = cliSandbox();
    await cli.json(['users', 'create', '--email', 'ada@example.com']);
    const issued = await cli.json<{ clientId: string }>(['credentials', 'issue', '--email', 'ada@example.com']);
    const rt = await openRuntime(loadConfig({ DATABASE_URL: cli.databaseUrl, LOG_LEVEL: 'silent' }));
    try {
      const user = (await rt.store.credentials.findUserByEmail('ada@example.com'))!;
      const created = await rt.store.webhooks.create(
        { userId: user.id, clientId: issued.clientId, url: 'https://hooks.example.com/in', events: ['session.completed'], secret: 'whsec_c2VjcmV0c2VjcmV0' },
        { actor: 'test' },
      );
      webhookId = created.id;
      eventId = await rt.store.webhooks.sendTest(webhookId, { actor: 'test' });
    } finally {
      await rt.close();
    }
  });
  afterAll(() => cli.cleanup());

  it('lists and shows subscriptions with their owner, never their secret', async () => {
    const list = await cli.json<WebhookJson[]>(['webhooks', 'list']);
    expect(list).toMatchObject([{ id: webhookId, status: 'enabled', ownerEmail: 'ada@example.com' }]);
    expect(await cli.json(['webhooks', 'list', '--user', 'nobody@example.com'])).toEqual([]);
    const shown = await cli.run(['webhooks', 'show', '--webhook', webhookId]);
    expect(shown.stdout).toContain(`webhook ${webhookId} (enabled)`);
    expect(shown.stdout + JSON.stringify(list)).not.toContain('whsec_');
  });

  it('disables and enables, audited; shows the delivery log', async () => {
    expect(await cli.json<WebhookJson>(['webhooks', 'disable', '--webhook', webhookId])).toMatchObject({ status: 'disabled', disabledReason: 'disabled by its owner or an operator' });
    expect(await cli.json<WebhookJson>(['webhooks', 'enable', '--webhook', webhookId])).toMatchObject({ status: 'enabled', disabledReason: null });
    const audit = await cli.json<{ action: string }[]>(['audit', '--action', 'webhook']);
    expect(audit.map((e) => e.action)).toEqual(expect.arrayContaining(['webhook.create', 'webhook.test', 'webhook.disable', 'webhook.enable']));
    expect(await cli.json(['webhooks', 'deliveries', '--webhook', webhookId])).toMatchObject([{ eventId, type: 'webhook.test', status: 'pending', attempts: 0 }]);
    expect(await cli.json(['webhooks', 'deliveries', '--webhook', webhookId, '--status', 'failed'])).toEqual([]);
  });

  it('refuses a bad id (exit 2) and an unknown one (exit 1); deletes', async () => {
    const bad = await cli.run(['webhooks', 'show', '--webhook', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--webhook must be a UUID');
    const badStatus = await cli.run(['webhooks', 'deliveries', '--webhook', webhookId, '--status', 'lost']);
    expect(badStatus.code).toBe(2);
    const unknown = await cli.run(['webhooks', 'disable', '--webhook', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no webhook subscription with id 00000000-0000-4000-8000-000000000000');
    expect(await cli.json(['webhooks', 'delete', '--webhook', webhookId])).toEqual({ deleted: webhookId });
    expect((await cli.run(['webhooks', 'show', '--webhook', webhookId])).code).toBe(1);
  });
});
