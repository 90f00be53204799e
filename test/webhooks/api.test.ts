/**
 * The webhooks extension over real HTTP with the user's own token: the webhooks:manage scope,
 * creating (secret shown once), listing, reading, updating, rotating, testing, the delivery
 * log and a replay, deleting; another user's subscription is a 404; SSRF refused at
 * subscription time. Every response is checked against the OpenAPI document.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeSessions, seedClient, seedTest, seedWorkspace } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { authHeaders, requestToken } from '../helpers/tokens.js';
import { until } from '../helpers/until.js';
import { startDeliveryWorker } from '../../src/serve/start-delivery-worker.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const { t, client } = await startSeededApp({ env: { WEBHOOKS_ALLOW_HTTP: '1' } });
const by = { actor: 'test' };

async function tokenFor(c: { clientId: string; clientSecret: string }, scope: string, form: 'A' | 'B' = 'B'): Promise<string> {
  const res = await requestToken(t, c, { form, scope });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const api = (token: string) => async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { ...authHeaders(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read loosely; the OpenAPI check holds their shape
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : null, headers: res.headers };
};

describe('webhooks API', () => {
  it('needs webhooks:manage: a read token is refused with 403 naming the scope; both servers grant it when asked', async () => {
    const read = api(await tokenFor(client, 'studies:read'));
    const refused = await read('GET', '/api/v2/webhooks');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('scope="webhooks:manage"');
    expect(refused.body!.detail).toBe('The access token does not grant webhooks:manage.');
    const formA = api(await tokenFor(client, 'public_api.read webhooks:manage', 'A'));
    expect((await formA('GET', '/api/v2/webhooks')).status).toBe(200);
    // A webhooks-only token reads no results.
    const only = api(await tokenFor(client, 'webhooks:manage'));
    expect((await only('GET', '/api/v2/webhooks')).status).toBe(200);
    const discovery = (await (await fetch(`${t.url}/oauth2/default/.well-known/oauth-authorization-server`)).json()) as { scopes_supported: string[] };
    // The read scope, the family scopes apps acting for users may be narrowed to, then webhooks.
    expect(discovery.scopes_supported).toEqual(['public_api.read', 'sessions:read', 'videos:read', 'clips:read', 'webhooks:manage']);
  });

  it('creates, lists, reads, updates, rotates, tests, logs, replays and deletes', async () => {
    const owner = await seedClient(t.runtime);
    const workspaceId = await seedWorkspace(t.runtime, [owner.email]);
    const testId = await seedTest(t.runtime, workspaceId);
    const call = api(await tokenFor(owner, 'studies:read webhooks:manage'));
    let secret = '';
    const receiver = await startReceiver(() => secret);
    // Loopback targets are refused here (WEBHOOKS_ALLOW_PRIVATE_TARGETS is not set), so the
    // receiver is reached through a subscription written with a public-looking name below.
    const created = await call('POST', '/api/v2/webhooks', { url: 'https://hooks.example.com/in', events: ['session.completed', 'video.ready'], testId, description: 'Slack' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: 'https://hooks.example.com/in', events: ['session.completed', 'video.ready'], testId, workspaceId: null, status: 'enabled', description: 'Slack' });
    expect(created.body!.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = created.body!.id as string;

    const listed = await call('GET', '/api/v2/webhooks');
    expect(listed.body!.webhooks.map((w: { id: string }) => w.id)).toEqual([id]);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    expect((await call('GET', `/api/v2/webhooks/${id.toUpperCase()}`)).body).toMatchObject({ id });

    // Point it at the local receiver (as an operator could with WEBHOOKS_ALLOW_PRIVATE_TARGETS) to see deliveries.
    await t.runtime.store.database.write(null, (tx) => tx.run('UPDATE webhook_subscriptions SET url = @url WHERE id = @id', { url: receiver.url, id }));
    const patched = await call('PATCH', `/api/v2/webhooks/${id}`, { events: ['session.completed'], description: null });
    expect(patched.body).toMatchObject({ events: ['session.completed'], description: null });

    const rotated = await call('POST', `/api/v2/webhooks/${id}/rotateSecret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body!.secret).not.toBe(created.body!.secret);
    expect(Date.parse(rotated.body!.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    secret = rotated.body!.secret;

    const tested = await call('POST', `/api/v2/webhooks/${id}/test`);
    expect(tested.status).toBe(202);
    await t.runtime.store.sessions.importSessions(testId, makeSessions(2), by);
    const running = startDeliveryWorker(
      { ...t.runtime, config: { ...t.runtime.config, webhooks: { ...t.runtime.config.webhooks, allowPrivateTargets: true } } },
      { info: () => undefined, warn: () => undefined },
      undefined,
      { pollMs: 20 },
    );
    try {
      await until('three deliveries', () => receiver.received.length === 3);
      expect(receiver.received.every((r) => r.verified !== null)).toBe(true);
      expect(receiver.received.find((r) => r.id === tested.body!.eventId)!.verified!.type).toBe('webhook.test');
      await until('logged', async () => (await call('GET', `/api/v2/webhooks/${id}/deliveries?status=succeeded`)).body!.deliveries.length === 3);
      const page = await call('GET', `/api/v2/webhooks/${id}/deliveries?limit=2`);
      expect(page.body!.deliveries).toHaveLength(2);
      expect(page.body!.deliveries[0]).toMatchObject({ status: 'succeeded', attempts: 1, responseCode: 200, error: null });
      const rest = await call('GET', `/api/v2/webhooks/${id}/deliveries?limit=2&before=${page.body!.next}`);
      expect(rest.body).toMatchObject({ next: null });
      expect(rest.body!.deliveries).toHaveLength(1);

      const replayed = await call('POST', `/api/v2/webhooks/${id}/deliveries/${page.body!.deliveries[0].eventId}/replay`);
      expect(replayed.status).toBe(202);
      expect(replayed.body).toMatchObject({ status: 'pending' });
      await until('replayed', () => receiver.received.length === 4);
      expect(receiver.received[3]!.id).toBe(page.body!.deliveries[0].eventId);
    } finally {
      await running!.stop();
      await receiver.close();
    }

    expect((await call('DELETE', `/api/v2/webhooks/${id}`)).status).toBe(204);
    expect((await call('GET', `/api/v2/webhooks/${id}`)).status).toBe(404);
  });

  it("another user's subscription, a missing one, and a test the caller cannot see are 404s alike", async () => {
    const owner = await seedClient(t.runtime);
    const stranger = await seedClient(t.runtime);
    const mine = api(await tokenFor(owner, 'webhooks:manage'));
    const theirs = api(await tokenFor(stranger, 'webhooks:manage'));
    const { body } = await mine('POST', '/api/v2/webhooks', { url: 'https://hooks.example.com/a', events: ['clip.generated'] });
    const foreign = await theirs('GET', `/api/v2/webhooks/${body!.id}`);
    const missing = await theirs('GET', '/api/v2/webhooks/00000000-0000-4000-8000-000000000000');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    for (const [method, path] of [['PATCH', ''], ['DELETE', ''], ['POST', '/rotateSecret'], ['POST', '/test'], ['GET', '/deliveries']] as const) {
      expect((await theirs(method, `/api/v2/webhooks/${body!.id}${path}`, method === 'PATCH' ? { disabled: true } : undefined)).status).toBe(404);
    }
    const hiddenTest = await seedTest(t.runtime, await seedWorkspace(t.runtime, []));
    const refused = await mine('POST', '/api/v2/webhooks', { url: 'https://hooks.example.com/a', events: ['clip.generated'], testId: hiddenTest });
    expect(refused.status).toBe(404);
    expect(refused.body!.detail).toBe('Test not found');
  });

  it.each([
    ['ftp://hooks.example.com/', 'url: the url must be http or https.'],
    ['https://127.0.0.1/', 'url: the url\'s host is not a public address (127.0.0.1 is a loopback address).'],
    ['https://2130706433/', 'url: the url\'s host is not a public address (127.0.0.1 is a loopback address).'],
    ['https://[::ffff:169.254.169.254]/', 'url: the url\'s host is not a public address (::ffff:a9fe:a9fe is a linkLocal address).'],
    ['https://localhost:8080/', "url: the url's host localhost is not a public name."],
    ['https://user:pw@hooks.example.com/', 'url: the url must not carry a user name or password.'],
  ])('refuses %s at subscription time', async (url, detail) => {
    const call = api(await tokenFor(client, 'webhooks:manage'));
    const res = await call('POST', '/api/v2/webhooks', { url, events: ['session.completed'] });
    expect(res.status).toBe(400);
    expect(res.body!.detail).toBe(detail);
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const call = api(await tokenFor(client, 'webhooks:manage'));
    expect((await call('POST', '/api/v2/webhooks', { url: 'https://hooks.example.com/', events: [] })).body!.detail).toMatch(/events/);
    expect((await call('POST', '/api/v2/webhooks', { url: 'https://hooks.example.com/', events: ['webhook.test'] })).status).toBe(400);
    expect((await call('POST', '/api/v2/webhooks', { events: ['session.completed'] })).body!.detail).toMatch(/url/);
    expect((await call('PATCH', '/api/v2/webhooks/00000000-0000-4000-8000-000000000000', {})).status).toBe(400);
    // A misspelt optional field is refused, not dropped (dropped, `testID` would subscribe to every test).
    const misspelt = await call('POST', '/api/v2/webhooks', { url: 'https://hooks.example.com/', events: ['session.completed'], testID: randomUUID() });
    expect(misspelt.status).toBe(400);
    expect(misspelt.body!.detail).toBe('body has a field this route does not take: testID');
    const patched = await call('PATCH', '/api/v2/webhooks/00000000-0000-4000-8000-000000000000', { descripton: 'x' });
    expect(patched.body!.detail).toBe('body has a field this route does not take: descripton');
  });
});
