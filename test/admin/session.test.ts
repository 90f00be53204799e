import { describe, expect, it } from 'vitest';
import { createAdminWithLink, renewSetupLink } from '../../src/admin/setup-links.js';
import { totpCode } from '../../src/sign-in/totp.js';
import { ManualClock } from '../../src/clock.js';
import { AdminSession, PASSWORD, signedInAdmin, startAdminTestApp } from '../helpers/admin-app.js';

const clock = new ManualClock(Date.UTC(2026, 10, 23, 9));
// Fewer failures per address than the default 20, so the test hashes a handful of passwords, not dozens.
// TRUST_PROXY: the IPv6 test names its source addresses in X-Forwarded-For.
const app = await startAdminTestApp({ clock, env: { ADMIN_SIGN_IN_FAILURES_ADDRESS: '8', TRUST_PROXY: 'true' } });
const by = { actor: 'test' };
const tokenOf = (link: string) => new URL(link).hash.slice('#token='.length);
let n = 0;
const email = () => `admin-${++n}@example.com`;

describe('setup link', () => {
  it('is printed under ADMIN_URL with the token in the fragment, works once, and signs in afterwards', async () => {
    const { setupLink } = await createAdminWithLink(app.t.runtime, { email: email(), role: 'support' }, by);
    expect(setupLink).toMatch(/^http:\/\/127\.0\.0\.1:8081\/setup#token=[A-Za-z0-9_-]{43}$/);
    const s = new AdminSession(app.adminUrl);
    const first = await s.request('POST', '/admin/api/setup', { token: tokenOf(setupLink), password: PASSWORD });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ role: 'support', passwordSet: true, totpEnabled: false });
    const again = await s.request('POST', '/admin/api/setup', { token: tokenOf(setupLink), password: 'another long password' });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { detail: string }).detail).toMatch(/unknown, already used or expired/);
  });

  it('expires after 24 hours', async () => {
    const { setupLink } = await createAdminWithLink(app.t.runtime, { email: email(), role: 'support' }, by);
    clock.advance(24 * 3600_000);
    const res = await new AdminSession(app.adminUrl).request('POST', '/admin/api/setup', { token: tokenOf(setupLink), password: PASSWORD });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('a renewed link replaces the earlier one', async () => {
    const address = email();
    const first = await createAdminWithLink(app.t.runtime, { email: address, role: 'operator' }, by);
    const second = await renewSetupLink(app.t.runtime, address, by);
    const s = new AdminSession(app.adminUrl);
    expect((await s.request('POST', '/admin/api/setup', { token: tokenOf(first.setupLink), password: PASSWORD })).status).toBe(400);
    expect((await s.request('POST', '/admin/api/setup', { token: tokenOf(second.setupLink), password: PASSWORD })).status).toBe(200);
  });

  it('refuses a short password and keeps the link usable', async () => {
    const { setupLink } = await createAdminWithLink(app.t.runtime, { email: email(), role: 'support' }, by);
    const s = new AdminSession(app.adminUrl);
    const weak = await s.request('POST', '/admin/api/setup', { token: tokenOf(setupLink), password: 'short' });
    expect(weak.status).toBe(400);
    expect(((await weak.json()) as { detail: string }).detail).toBe('the password must be at least 12 characters long.');
    expect((await s.request('POST', '/admin/api/setup', { token: tokenOf(setupLink), password: PASSWORD })).status).toBe(200);
  });

  it('an admin awaiting setup cannot sign in', async () => {
    const address = email();
    await createAdminWithLink(app.t.runtime, { email: address, role: 'operator' }, by);
    expect((await new AdminSession(app.adminUrl).signIn(address, '')).status).toBe(400);
    expect((await new AdminSession(app.adminUrl).signIn(address, PASSWORD)).status).toBe(401);
  });
});

describe('sign-in, session cookie and CSRF', () => {
  it('sets an HttpOnly SameSite=Strict cookie (not Secure over http), stores only its hash, and /me answers', async () => {
    const s = await signedInAdmin(app, 'support');
    const res = await s.request('GET', '/admin/api/me');
    expect(res.status).toBe(200);
    const me = (await res.json()) as { admin: { email: string; role: string }; csrfToken: string };
    expect(me).toMatchObject({ admin: { email: s.email, role: 'support' }, workspaces: [], csrfToken: s.csrfToken });
    const signIn = await new AdminSession(app.adminUrl).signIn(s.email);
    const cookie = signIn.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/^admin_session=[A-Za-z0-9_-]{43}; Max-Age=28800; Path=\/; HttpOnly; SameSite=Strict$/);
    const value = cookie.split(';')[0]!.split('=')[1]!;
    const rows = await app.t.runtime.store.database.all('SELECT id_hash FROM admin_sessions');
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(value);
  });

  it('answers 401 without a session, and after sign-out the cookie no longer works', async () => {
    expect((await new AdminSession(app.adminUrl).request('GET', '/admin/api/me')).status).toBe(401);
    const s = await signedInAdmin(app, 'operator');
    const cookie = s.cookie;
    const out = await s.request('POST', '/admin/api/sign-out');
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()[0]).toMatch(/^admin_session=; Max-Age=0/);
    const reused = await fetch(`${app.adminUrl}/admin/api/me`, { headers: { cookie: cookie! } });
    expect(reused.status).toBe(401);
  });

  it('refuses a change made with the cookie but without the CSRF token, or with another session\'s', async () => {
    const s = await signedInAdmin(app, 'operator');
    const other = await signedInAdmin(app, 'operator');
    const without = await s.request('POST', '/admin/api/sign-out', undefined, { csrf: false });
    expect(without.status).toBe(403);
    expect(((await without.json()) as { type: string }).type).toBe('urn:results-api:admin:csrf-token-missing');
    const foreign = await s.request('POST', '/admin/api/sign-out', undefined, { csrf: false, headers: { 'x-csrf-token': other.csrfToken! } });
    expect(foreign.status).toBe(403);
    expect((await s.request('GET', '/admin/api/me')).status).toBe(200);
  });

  it('a session ends after eight hours', async () => {
    const s = await signedInAdmin(app, 'operator');
    clock.advance(8 * 3600_000 - 1);
    expect((await s.request('GET', '/admin/api/me')).status).toBe(200);
    clock.advance(1);
    expect((await s.request('GET', '/admin/api/me')).status).toBe(401);
  });

  it('wrong password and unknown account get the same answer', async () => {
    const s = await signedInAdmin(app, 'support');
    const wrong = await new AdminSession(app.adminUrl).signIn(s.email, 'not the password at all');
    const unknown = await new AdminSession(app.adminUrl).signIn('nobody@example.com', PASSWORD);
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  it('sends a strict Content-Security-Policy and no-store on every answer', async () => {
    for (const path of ['/admin/api/me', '/admin/api/nowhere', '/admin/api/openapi.json']) {
      const res = await fetch(`${app.adminUrl}${path}`);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'; script-src 'self'");
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });
});

describe('throttling', () => {
  it('after 5 failures from an address the account is refused from there for the window, even with the right password, unless from its known device', async () => {
    const s = await signedInAdmin(app, 'support');
    for (let i = 0; i < 5; i++) expect((await new AdminSession(app.adminUrl).signIn(s.email, `wrong password ${i}`)).status).toBe(401);
    const refused = await new AdminSession(app.adminUrl).signIn(s.email);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The browser that signed in before holds the account's device cookie: it gets through.
    const device = new AdminSession(app.adminUrl);
    device.cookies.set('admin_device', s.cookies.get('admin_device')!);
    expect((await device.signIn(s.email)).status).toBe(200);
    clock.advance(15 * 60_000);
    expect((await new AdminSession(app.adminUrl).signIn(s.email)).status).toBe(200);
  });

  it('successful sign-ins do not count', async () => {
    const s = await signedInAdmin(app, 'support');
    for (let i = 0; i < 7; i++) expect((await new AdminSession(app.adminUrl).signIn(s.email)).status).toBe(200);
  });

  it('after ADMIN_SIGN_IN_FAILURES_ADDRESS failures from one address, every account is refused from it', async () => {
    clock.advance(15 * 60_000);
    const victims = await Promise.all([1, 2].map(() => signedInAdmin(app, 'support')));
    for (const v of victims) for (let i = 0; i < 4; i++) expect((await new AdminSession(app.adminUrl).signIn(v.email, 'wrong password!!')).status).toBe(401);
    const fresh = await signedInAdmin(app, 'support').catch((e: Error) => e);
    expect(fresh).toBeInstanceOf(Error);
    expect((fresh as Error).message).toMatch(/sign-in failed: 429/);
    clock.advance(15 * 60_000);
  });

  it('failures from addresses of one IPv6 /64 count as from one address; another /64 is not refused', { timeout: 120_000 }, async () => {
    clock.advance(15 * 60_000);
    const signInFrom = (address: string, who: string, password = 'wrong password!!') =>
      new AdminSession(app.adminUrl).request('POST', '/admin/api/sign-in', { email: who, password }, { headers: { 'x-forwarded-for': address } });
    const victims = await Promise.all([1, 2].map(() => signedInAdmin(app, 'support')));
    let host = 0;
    for (const v of victims) for (let i = 0; i < 4; i++) expect((await signInFrom(`2001:db8:7:8::${++host}`, v.email)).status).toBe(401);
    const fresh = await signedInAdmin(app, 'support');
    expect((await signInFrom('2001:db8:7:8:ffff::1', fresh.email, PASSWORD)).status).toBe(429);
    expect((await signInFrom('2001:db8:7:9::1', fresh.email, PASSWORD)).status).toBe(200);
    clock.advance(15 * 60_000);
  });
});

describe('TOTP', () => {
  it('enrols with a confirmed code, then requires a fresh code at sign-in, once only', async () => {
    const s = await signedInAdmin(app, 'operator');
    const start = await s.request('POST', '/admin/api/me/totp');
    expect(start.status).toBe(200);
    const { secret, uri } = (await start.json()) as { secret: string; uri: string };
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect((await s.request('POST', '/admin/api/me/totp/confirm', { code: '000000' === totpCode(secret, clock.now()) ? '111111' : '000000' })).status).toBe(400);
    expect((await s.request('POST', '/admin/api/me/totp/confirm', { code: totpCode(secret, clock.now()) })).status).toBe(200);

    const withoutCode = await new AdminSession(app.adminUrl).signIn(s.email);
    expect(withoutCode.status).toBe(401);
    expect(((await withoutCode.json()) as { type: string }).type).toBe('urn:results-api:admin:totp-required');
    // The code used to confirm cannot be replayed in the same step.
    expect((await new AdminSession(app.adminUrl).signIn(s.email, PASSWORD, totpCode(secret, clock.now()))).status).toBe(401);
    clock.advance(30_000);
    const code = totpCode(secret, clock.now());
    expect((await new AdminSession(app.adminUrl).signIn(s.email, PASSWORD, code)).status).toBe(200);
    expect((await new AdminSession(app.adminUrl).signIn(s.email, PASSWORD, code)).status).toBe(401);
    expect((await new AdminSession(app.adminUrl).signIn(s.email, 'wrong password!!', totpCode(secret, clock.now() + 30_000))).status).toBe(401);
  });
});
