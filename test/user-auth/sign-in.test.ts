import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { issueUserSetupLink } from '../../src/operations/user-sign-in.js';
import { newTotpSecret, totpCode } from '../../src/sign-in/totp.js';
import { FormBrowser } from '../helpers/form-browser.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { seedUserWithPassword, signIn, USER_PASSWORD } from '../helpers/users.js';

const by = { actor: 'test' };
const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
let t: TestApp;

beforeAll(async () => {
  // TRUST_PROXY: the tests play several source addresses through X-Forwarded-For.
  t = await startTestApp({ clock, env: { TRUST_PROXY: 'true' } });
});
afterAll(() => t.close());

const from = (address: string) => new FormBrowser(t.url, { 'x-forwarded-for': address });

describe('an invited user sets a password through the one-time link, then signs in', () => {
  it('invite → setup page → password → sign-in → the account page', async () => {
    const link = await issueUserSetupLink(t.runtime, 'invitee@example.com', 'invite', by);
    expect(link.created).toBe(true);
    expect(link.setupLink).toMatch(/^http:\/\/127\.0\.0\.1:8080\/account\/setup#token=[A-Za-z0-9_-]{43}$/);
    const token = link.setupLink.split('#token=')[1]!;
    const browser = from('10.0.0.1');
    const setup = await browser.get('/account/setup');
    expect(setup.status).toBe(200);
    expect(setup.body).toContain('<label for="field-password">New password</label>');

    const short = await browser.post('/account/setup', { csrf: browser.formToken(setup), token, password: 'short', repeat: 'short' });
    expect(short.status).toBe(400);
    expect(short.body).toContain('at least 12 characters');

    const done = await browser.post('/account/setup', { csrf: browser.formToken(setup), token, password: USER_PASSWORD, repeat: USER_PASSWORD });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/account/sign-in?notice=password-set');

    const again = await browser.post('/account/setup', { csrf: browser.formToken(setup), token, password: USER_PASSWORD, repeat: USER_PASSWORD });
    expect(again.status).toBe(400);
    expect(again.body).toContain('expired or was already used');

    const signedIn = await signIn(browser, 'INVITEE@example.com');
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/account/apps');
    const home = await browser.get('/account/apps');
    expect(home.status).toBe(200);
    expect(home.body).toContain('Signed in as <strong>invitee@example.com</strong>');
  });

  it('an expired link sets nothing', async () => {
    const link = await issueUserSetupLink(t.runtime, 'late@example.com', 'invite', by);
    clock.advance(7 * 24 * 3600_000);
    const browser = from('10.0.0.2');
    const page = await browser.get('/account/setup');
    const token = link.setupLink.split('#token=')[1]!;
    const result = await browser.post('/account/setup', { csrf: browser.formToken(page), token, password: USER_PASSWORD, repeat: USER_PASSWORD });
    expect(result.status).toBe(400);
  });
});

describe('the pages', () => {
  it('sign-in form: fields labelled Email and Password, a Sign in button, strict CSP that forbids framing', async () => {
    const page = await from('10.0.0.3').get('/account/sign-in');
    expect(page.body).toContain('<label for="field-email">Email</label>');
    expect(page.body).toContain('<label for="field-password">Password</label>');
    expect(page.body).toMatch(/<button type="submit" class="primary">Sign in<\/button>/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
  });

  it('a form posted without the form token (CSRF) is refused and signs nobody in', async () => {
    await seedUserWithPassword(t.runtime, 'csrf@example.com');
    const victim = from('10.0.0.4');
    await victim.get('/account/sign-in');
    const forged = await victim.post('/account/sign-in', { csrf: 'forged', email: 'csrf@example.com', password: USER_PASSWORD });
    expect(forged.status).toBe(403);
    const noCookie = await from('10.0.0.4').post('/account/sign-in', { csrf: victim.cookies.get('results_form')!, email: 'csrf@example.com', password: USER_PASSWORD });
    expect(noCookie.status).toBe(403);
    const page = await victim.get('/account/sign-in');
    const otherSite = await victim.post('/account/sign-in', { csrf: victim.formToken(page), email: 'csrf@example.com', password: USER_PASSWORD }, { origin: 'https://evil.example' });
    expect(otherSite.status).toBe(403);
    expect(victim.cookies.has('results_user')).toBe(false);
  });

  it('a return path other than our own pages is dropped (no open redirect through sign-in)', async () => {
    await seedUserWithPassword(t.runtime, 'redirect@example.com');
    const browser = from('10.0.0.5');
    const page = await browser.get('/account/sign-in?return_to=https://evil.example/');
    expect(page.body).not.toContain('evil.example');
    const result = await browser.post('/account/sign-in', { csrf: browser.formToken(page), email: 'redirect@example.com', password: USER_PASSWORD, return_to: '//evil.example/' });
    expect(result.location).toBe('/account/apps');
  });
});

describe('sign-in brute force: throttled where it comes from, the owner never locked out', () => {
  it('an attacker is throttled after 5 failures, while the owner still signs in from elsewhere', async () => {
    await seedUserWithPassword(t.runtime, 'owner@example.com');
    const attacker = from('203.0.113.9');
    for (let i = 0; i < 5; i++) expect((await signIn(attacker, 'owner@example.com', `guess number ${i}!`)).status).toBe(401);
    const throttled = await signIn(attacker, 'owner@example.com', USER_PASSWORD);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(attacker.cookies.has('results_user')).toBe(false);
    const owner = from('198.51.100.7');
    expect((await signIn(owner, 'owner@example.com')).status).toBe(303);
  });

  it("many wrong passwords from many addresses: reported (audit, metric), and the owner's correct password signs in from a fresh address", { timeout: 120_000 }, async () => {
    await seedUserWithPassword(t.runtime, 'spread@example.com');
    // 5 addresses × 5 failures: 25 against the account, over the alert threshold (20), each address at its own limit.
    for (let a = 0; a < 5; a++) {
      const attacker = from(`203.0.114.${a}`);
      for (let i = 0; i < 5; i++) expect((await signIn(attacker, 'spread@example.com', `guess ${a}/${i}!`)).status).toBe(401);
    }
    const owner = from('198.51.100.20');
    const signedIn = await signIn(owner, 'spread@example.com');
    expect(signedIn.status).toBe(303);
    expect(owner.cookies.has('results_user')).toBe(true);
    const alerts = await t.runtime.store.audit.list({ action: 'guessing.alert', subject: 'spread@example.com' });
    expect(alerts.map((e) => e.details)).toEqual([expect.objectContaining({ endpoint: 'user-sign-in', failures: 20 })]);
    expect(await (await fetch(t.metricsUrl)).text()).toMatch(/^auth_guessing_alerts_total\{endpoint="user-sign-in"\} 1$/m);
  });

  it("the owner's browser (its device cookie) signs in at the attacker's throttled address; a stranger's cookie is worth nothing there", async () => {
    await seedUserWithPassword(t.runtime, 'device@example.com');
    const owner = from('198.51.100.30');
    expect((await signIn(owner, 'device@example.com')).status).toBe(303);
    expect(owner.cookies.get('results_device')).toMatch(/^[\w-]{22}\.\d+\.[\w-]{43}$/);
    // The attacker, at the office NAT, spends that address's budget for the account and for every account.
    const attacker = from('203.0.113.40');
    for (let i = 0; i < 20; i++) expect((await signIn(attacker, 'device@example.com', `office guess ${i}!`)).status).toBe(i < 5 ? 401 : 429);
    expect((await signIn(attacker, 'device@example.com')).status).toBe(429);
    // The owner arrives at the same address with the browser that signed in before.
    const ownerAtOffice = from('203.0.113.40');
    ownerAtOffice.cookies.set('results_device', owner.cookies.get('results_device')!);
    expect((await signIn(ownerAtOffice, 'device@example.com')).status).toBe(303);
    // The same cookie is no known device of another account.
    await seedUserWithPassword(t.runtime, 'other@example.com');
    const borrowed = from('203.0.113.40');
    borrowed.cookies.set('results_device', owner.cookies.get('results_device')!);
    expect((await signIn(borrowed, 'other@example.com')).status).toBe(429);
  });

  it('one address is throttled across accounts after 20 failures', { timeout: 120_000 }, async () => {
    const sprayer = from('203.0.113.10');
    for (let i = 0; i < 20; i++) expect((await signIn(sprayer, `nobody${i}@example.com`, 'not the password')).status).toBe(401);
    expect((await signIn(sprayer, 'nobody99@example.com', 'not the password')).status).toBe(429);
  });

  it('a success does not count: the owner signing in repeatedly is never throttled', async () => {
    await seedUserWithPassword(t.runtime, 'frequent@example.com');
    const owner = from('198.51.100.8');
    for (let i = 0; i < 7; i++) expect((await signIn(owner, 'frequent@example.com')).status).toBe(303);
  });
});

describe('two-step sign-in', () => {
  it('asks for the code once turned on, accepts it once', async () => {
    await seedUserWithPassword(t.runtime, 'totp@example.com');
    const user = (await t.runtime.store.userAccounts.findForSignIn('totp@example.com'))!;
    const { secret } = newTotpSecret(user.email, 'results-api');
    await t.runtime.store.userAccounts.setPendingTotp(user.id, secret);
    clock.advance(60_000);
    expect(await t.runtime.store.userAccounts.enableTotp(user, secret, Math.floor(clock.now() / 30_000) - 2)).toBe(true);
    const browser = from('10.0.0.6');
    const withoutCode = await signIn(browser, 'totp@example.com');
    expect(withoutCode.status).toBe(401);
    expect(withoutCode.body).toContain('Enter the code your authenticator app shows');
    const code = totpCode(secret, clock.now());
    expect((await signIn(browser, 'totp@example.com', USER_PASSWORD, { code })).status).toBe(303);
    expect((await signIn(from('10.0.0.7'), 'totp@example.com', USER_PASSWORD, { code })).status).toBe(401);
  });

  it('a user turns it on from the page with a code of the new key', async () => {
    await seedUserWithPassword(t.runtime, 'enrol@example.com');
    const browser = from('10.0.0.8');
    await signIn(browser, 'enrol@example.com');
    const page = await browser.get('/account/two-step');
    expect(page.body).toContain('Two-step sign-in is off');
    const started = await browser.post('/account/two-step/start', { csrf: browser.formToken(page) });
    const key = /Key: <code>([A-Z2-7]+)<\/code>/.exec(started.body)![1]!;
    const confirmed = await browser.post('/account/two-step/confirm', { csrf: browser.formToken(started), code: totpCode(key, clock.now()) });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toContain('Two-step sign-in is on');
  });
});

describe('signing out', () => {
  it('ends the session', async () => {
    await seedUserWithPassword(t.runtime, 'leaver@example.com');
    const browser = from('10.0.0.9');
    await signIn(browser, 'leaver@example.com');
    const home = await browser.get('/account/apps');
    const out = await browser.post('/account/sign-out', { csrf: browser.formToken(home) });
    expect(out.status).toBe(303);
    expect((await browser.get('/account/apps')).status).toBe(303);
  });
});
