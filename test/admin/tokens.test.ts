import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateAdminClientId } from '../../src/admin/admin-client-ids.js';
import { generateClientSecret } from '../../src/oauth/client-secrets.js';
import { seedClient } from '../helpers/seed.js';
import { signedInAdmin, startAdminTestApp, type AdminTestApp } from '../helpers/admin-app.js';

const app = await startAdminTestApp();
const by = { actor: 'test' };

async function adminClient(a: AdminTestApp, adminId: string) {
  const clientId = generateAdminClientId();
  const clientSecret = generateClientSecret();
  await a.t.runtime.store.admins.createClient({ clientId, adminId, secretHash: a.t.runtime.hasher.hash(clientSecret) }, by);
  return { clientId, clientSecret };
}

const tokenRequest = (clientId: string, clientSecret: string, extra: Record<string, string> = {}) =>
  fetch(`${app.adminUrl}/admin/oauth2/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...extra }),
  });

async function adminToken(clientId: string, clientSecret: string): Promise<string> {
  const res = await tokenRequest(clientId, clientSecret);
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const withToken = (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${app.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('admin API tokens', () => {
  it('client credentials give a short-lived token scoped to the admin\'s role; it works without a CSRF token and is audited as the admin', async () => {
    const operator = await signedInAdmin(app, 'operator');
    const { clientId, clientSecret } = await adminClient(app, operator.id);
    const res = await tokenRequest(clientId, clientSecret);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { access_token: string; token_type: string; expires_in: number; scope: string };
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'admin:operator' });
    const created = await withToken(body.access_token, 'POST', '/admin/api/workspaces', { name: 'By token' });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const events = await app.t.runtime.store.audit.list({ subject: id });
    expect(events.map((e) => e.actor)).toEqual([`admin:${operator.email}`]);
  });

  it('refuses a wrong secret, an unknown client, another scope, and a revoked client (at once, even its live tokens)', async () => {
    const support = await signedInAdmin(app, 'support');
    const { clientId, clientSecret } = await adminClient(app, support.id);
    const wrong = await tokenRequest(clientId, `${clientSecret}x`);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
    expect((await tokenRequest(generateAdminClientId(), clientSecret)).status).toBe(401);
    expect((await tokenRequest(clientId, clientSecret, { scope: 'admin:operator' })).status).toBe(400);
    expect((await tokenRequest(clientId, clientSecret, { grant_type: 'password' } as Record<string, string>)).status).toBe(400);

    const token = await adminToken(clientId, clientSecret);
    expect((await withToken(token, 'GET', '/admin/api/users')).status).toBe(200);
    // The role is the admin's: a support token may not read the audit log.
    expect((await withToken(token, 'GET', '/admin/api/audit')).status).toBe(403);
    await app.t.runtime.store.admins.revokeClient(clientId, by);
    expect((await withToken(token, 'GET', '/admin/api/users')).status).toBe(401);
    expect((await tokenRequest(clientId, clientSecret)).status).toBe(401);
  });

  it('an API user\'s token is refused by the admin API, and an admin token by the Results API', async () => {
    const seeded = await seedClient(app.t.runtime);
    const apiToken = await fetch(`${app.t.url}/oauth2/${app.t.runtime.servers.custom.id}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: seeded.clientId, client_secret: seeded.clientSecret }),
    }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);
    expect((await withToken(apiToken, 'GET', '/admin/api/users')).status).toBe(401);

    const operator = await signedInAdmin(app, 'operator');
    const { clientId, clientSecret } = await adminClient(app, operator.id);
    const token = await adminToken(clientId, clientSecret);
    const results = await fetch(`${app.t.url}/api/v2/sessionResults?testId=${randomUUID()}`, { headers: { authorization: `Bearer ${token}` } });
    expect(results.status).toBe(401);
  });

  it('a malformed or forged bearer token is refused', async () => {
    expect((await withToken('not-a-jwt', 'GET', '/admin/api/me')).status).toBe(401);
    const res = await fetch(`${app.adminUrl}/admin/api/me`, { headers: { authorization: 'Basic abc' } });
    expect(res.status).toBe(401);
  });
});

describe('admin token endpoint: RATE_LIMIT_TOKEN_ADDRESS=3 per source, an IPv6 source by its /64 (TRUST_PROXY)', async () => {
  const limited = await startAdminTestApp({ env: { TRUST_PROXY: 'true', RATE_LIMIT_TOKEN_ADDRESS: '3', RATE_LIMIT_TOKEN_CLIENT: '1000' } });
  const guessFrom = (address: string) =>
    fetch(`${limited.adminUrl}/admin/oauth2/v1/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${generateAdminClientId()}:guess`).toString('base64')}`,
        'x-forwarded-for': address,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });

  it('guesses from four addresses of one /64 share one budget; another /64 has its own', async () => {
    const statuses: number[] = [];
    for (const address of ['2001:db8:9:1::1', '2001:db8:9:1::2', '2001:db8:9:1:a::3', '2001:db8:9:1:ffff::4']) statuses.push((await guessFrom(address)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await guessFrom('2001:db8:9:2::1')).status).toBe(401);
  });
});
