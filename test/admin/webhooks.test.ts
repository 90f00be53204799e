import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { AdminSession, signedInAdmin, startAdminTestApp } from '../helpers/admin-app.js';
import { seedClient } from '../helpers/seed.js';

const app = await startAdminTestApp();
const by = { actor: 'test' };

type Session = Awaited<ReturnType<typeof signedInAdmin>>;
let operator: Session;
let support: Session;
let accountAdmin: Session;
let owner: string; // the subscriber's email
let webhookId: string;
let eventIds: string[];

const json = async <T = Record<string, unknown>>(res: Response): Promise<T> => (await res.json()) as T;

/** A subscription of a fresh API user, with `events` test events queued for it (newest last). */
async function subscription(events: number): Promise<{ id: string; email: string; eventIds: string[] }> {
  const store = app.t.runtime.store;
  const client = await seedClient(app.t.runtime);
  const user = (await store.credentials.findUserByEmail(client.email))!;
  const created = await store.webhooks.create({ userId: user.id, clientId: client.clientId, url: 'https://hooks.example.com/in', events: ['session.completed'], secret: 'whsec_c2VjcmV0c2VjcmV0' }, by);
  const ids: string[] = [];
  for (let i = 0; i < events; i++) ids.push(await store.webhooks.sendTest(created.id, by));
  return { id: created.id, email: client.email, eventIds: ids };
}

beforeAll(async () => {
  [operator, support, accountAdmin] = await Promise.all([signedInAdmin(app, 'operator'), signedInAdmin(app, 'support'), signedInAdmin(app, 'account-admin')]);
  ({ id: webhookId, email: owner, eventIds } = await subscription(3));
});

describe('admin API: webhook subscriptions', () => {
  it('lists every subscription with its owner and status, filters by user, shows one; never a secret', async () => {
    const list = await json<{ id: string; ownerEmail: string; status: string; url: string; events: string[] }[]>(await support.request('GET', '/admin/api/webhooks'));
    expect(list).toContainEqual(expect.objectContaining({ id: webhookId, ownerEmail: owner, status: 'enabled', url: 'https://hooks.example.com/in', events: ['session.completed'] }));
    expect(await json(await support.request('GET', `/admin/api/webhooks?user=${encodeURIComponent(owner)}`))).toMatchObject([{ id: webhookId }]);
    expect(await json(await support.request('GET', '/admin/api/webhooks?user=nobody%40example.com'))).toEqual([]);
    const shown = await support.request('GET', `/admin/api/webhooks/${webhookId.toUpperCase()}`);
    expect(shown.status).toBe(200);
    const text = await shown.text();
    expect(JSON.parse(text)).toMatchObject({ id: webhookId, ownerEmail: owner, disabledReason: null });
    expect(text + JSON.stringify(list)).not.toContain('whsec_');
  });

  it('pages the delivery log newest first, filters by status, refuses a foreign cursor', async () => {
    const first = await json<{ deliveries: { eventId: string; type: string; status: string; attempts: number; responseCode: null; durationMs: null }[]; next: string }>(
      await operator.request('GET', `/admin/api/webhooks/${webhookId}/deliveries?limit=2`),
    );
    expect(first.deliveries).toHaveLength(2);
    expect(first.deliveries[0]).toMatchObject({ type: 'webhook.test', status: 'pending', attempts: 0, responseCode: null, durationMs: null });
    const second = await json<{ deliveries: { eventId: string }[]; next: string | null }>(
      await operator.request('GET', `/admin/api/webhooks/${webhookId}/deliveries?limit=2&before=${first.next}`),
    );
    expect(second.next).toBeNull();
    expect([...first.deliveries, ...second.deliveries].map((d) => d.eventId).sort()).toEqual([...eventIds].sort());
    expect(await json(await operator.request('GET', `/admin/api/webhooks/${webhookId}/deliveries?status=failed`))).toEqual({ deliveries: [], next: null });
    const foreign = await operator.request('GET', `/admin/api/webhooks/${webhookId}/deliveries?before=${randomUUID()}`);
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toContain('before');
    expect((await operator.request('GET', `/admin/api/webhooks/${webhookId}/deliveries?status=lost`)).status).toBe(400);
  });

  it('disables (shown with why) and enables, each audited with the admin', async () => {
    const disabled = await json(await support.request('POST', `/admin/api/webhooks/${webhookId}/disable`));
    expect(disabled).toMatchObject({ id: webhookId, status: 'disabled', disabledReason: 'disabled by its owner or an operator' });
    expect(disabled.disabledAt).toEqual(expect.any(String));
    const listed = await json<{ id: string; status: string }[]>(await support.request('GET', '/admin/api/webhooks'));
    expect(listed.find((w) => w.id === webhookId)).toMatchObject({ status: 'disabled' });
    expect(await json(await support.request('POST', `/admin/api/webhooks/${webhookId}/enable`))).toMatchObject({ status: 'enabled', disabledReason: null, disabledAt: null });
    const audit = await json<{ action: string; actor: string; subject: string }[]>(await operator.request('GET', '/admin/api/audit?action=webhook'));
    const mine = audit.filter((e) => e.subject === webhookId && e.actor.includes(support.email));
    expect(mine.map((e) => e.action)).toEqual(['webhook.disable', 'webhook.enable']);
  });

  it('answers 404 for a missing id on every route and 400 for one that is not a UUID', async () => {
    const missing = randomUUID();
    for (const [method, path] of [
      ['GET', `/admin/api/webhooks/${missing}`],
      ['GET', `/admin/api/webhooks/${missing}/deliveries`],
      ['POST', `/admin/api/webhooks/${missing}/disable`],
      ['POST', `/admin/api/webhooks/${missing}/enable`],
      ['DELETE', `/admin/api/webhooks/${missing}`],
    ] as const) {
      const res = await operator.request(method, path);
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect(await res.text()).toContain(`no webhook subscription with id ${missing}`);
    }
    expect((await operator.request('GET', '/admin/api/webhooks/nope')).status).toBe(400);
  });

  it('refuses account admins (403) and callers without a session (401); a change needs the CSRF token', async () => {
    const routes = [
      ['GET', '/admin/api/webhooks'],
      ['GET', `/admin/api/webhooks/${webhookId}`],
      ['GET', `/admin/api/webhooks/${webhookId}/deliveries`],
      ['POST', `/admin/api/webhooks/${webhookId}/disable`],
      ['POST', `/admin/api/webhooks/${webhookId}/enable`],
      ['DELETE', `/admin/api/webhooks/${webhookId}`],
    ] as const;
    for (const [method, path] of routes) {
      expect([method, path, (await accountAdmin.request(method, path)).status]).toEqual([method, path, 403]);
      expect([method, path, (await new AdminSession(app.adminUrl).request(method, path)).status]).toEqual([method, path, 401]);
    }
    expect((await support.request('POST', `/admin/api/webhooks/${webhookId}/disable`, undefined, { csrf: false })).status).toBe(403);
    expect(await json(await support.request('GET', `/admin/api/webhooks/${webhookId}`))).toMatchObject({ status: 'enabled' });
  });

  it('deletes a subscription (audited); it and its log are gone', async () => {
    const doomed = await subscription(1);
    expect(await json(await support.request('DELETE', `/admin/api/webhooks/${doomed.id}`))).toEqual({ deleted: doomed.id });
    expect((await support.request('GET', `/admin/api/webhooks/${doomed.id}`)).status).toBe(404);
    expect((await support.request('GET', `/admin/api/webhooks/${doomed.id}/deliveries`)).status).toBe(404);
    const audit = await json<{ action: string; subject: string }[]>(await operator.request('GET', '/admin/api/audit?action=webhook.delete'));
    expect(audit.map((e) => e.subject)).toContain(doomed.id);
  });
});
