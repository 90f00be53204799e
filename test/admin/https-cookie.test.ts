import { describe, expect, it } from 'vitest';
import { createAdminWithLink } from '../../src/admin/setup-links.js';
import { AdminSession, PASSWORD, startAdminTestApp } from '../helpers/admin-app.js';

// Behind an https proxy (ADMIN_URL https), the cookie is Secure and __Host- prefixed.
const app = await startAdminTestApp({ env: { ADMIN_URL: 'https://admin.example.com' } });

describe('the session cookie when admins reach the listener over https', () => {
  it('is __Host-admin_session; Secure; HttpOnly; SameSite=Strict; Path=/, and is what the listener reads', async () => {
    const { setupLink } = await createAdminWithLink(app.t.runtime, { email: 'https@example.com', role: 'support' }, { actor: 'test' });
    expect(setupLink.startsWith('https://admin.example.com/setup#token=')).toBe(true);
    const s = new AdminSession(app.adminUrl);
    await s.request('POST', '/admin/api/setup', { token: new URL(setupLink).hash.slice('#token='.length), password: PASSWORD });
    const res = await s.signIn('https@example.com');
    expect(res.headers.getSetCookie()[0]).toMatch(/^__Host-admin_session=[A-Za-z0-9_-]{43}; Max-Age=28800; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    // The device cookie (known-device sign-in throttling) is held to the same rules, for 30 days.
    expect(res.headers.getSetCookie()[1]).toMatch(/^__Host-admin_device=[A-Za-z0-9_.-]+; Max-Age=2592000; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    expect((await s.request('GET', '/admin/api/me')).status).toBe(200);
    // The unprefixed name (as a subdomain could plant it) is not read.
    const planted = await fetch(`${app.adminUrl}/admin/api/me`, { headers: { cookie: s.cookie!.replace('__Host-', '') } });
    expect(planted.status).toBe(401);
  });

  it('sign-in takes JSON only, so a form on another site cannot post it', async () => {
    const res = await fetch(`${app.adminUrl}/admin/api/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=https%40example.com&password=x',
    });
    expect(res.status).toBe(415);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
