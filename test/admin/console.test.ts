import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../src/admin/app.js';
import { registerAdminConsole } from '../../src/admin/console-route.js';
import { createAdminWithLink } from '../../src/admin/setup-links.js';
import { totpCode } from '../../src/sign-in/totp.js';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import { importVideo } from '../../src/media/import-video.js';
import { registerApp } from '../../src/operations/apps.js';
import { generateTestVideo } from '../../src/media/ffmpeg/test-video.js';
import { DETAILS_PLAN, detailsInput, PARTICIPANT_A } from '../helpers/details.js';
import { freePort, within } from '../helpers/net.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { skipWithoutChromium, warnIfSkippedWithoutChromium } from '../helpers/chromium.js';
import { FormBrowser } from '../helpers/form-browser.js';
import { signIn } from '../helpers/users.js';
import { openConsoleBrowser, type ConsoleBrowser } from './console-browser.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PASSWORD = 'a long enough console password';

warnIfSkippedWithoutChromium('test/admin/console.test.ts');

/**
 * The support journeys of issue 17 in a real browser against the real admin listener (its API
 * and the console bundle `npm run build` makes), in order: each step starts where the last ended.
 */
describe.skipIf(skipWithoutChromium)('the admin console in headless Chromium', { timeout: 120_000 }, () => {
  let t: TestApp;
  let admin: FastifyInstance;
  let adminUrl: string;
  let browser: ConsoleBrowser;
  let buildDir: string | undefined;
  const email = `ops-${Date.now()}@example.com`;

  beforeAll(async () => {
    // The bundle under test is built from this checkout's console sources, into a directory of
    // this run's own (the sqlite and postgres projects run this file at the same time).
    buildDir = mkdtempSync(join(tmpdir(), 'results-api-console-build-'));
    execFileSync(process.execPath, ['scripts/build-console.mjs', buildDir], { cwd: ROOT, stdio: 'pipe' });
    const port = await freePort();
    adminUrl = `http://127.0.0.1:${port}`;
    // The token URL the console shows must be the one that works: the public app's real address.
    const publicPort = await freePort();
    t = await startTestApp({ port: publicPort, env: { PUBLIC_URL: `http://127.0.0.1:${publicPort}`, ADMIN_PORT: '0', ADMIN_URL: adminUrl } });
    admin = await buildAdminApp({ ...t.runtime, logger: undefined }, [(app) => registerAdminConsole(app, { buildDir })]);
    await admin.listen({ host: '127.0.0.1', port });
    browser = await openConsoleBrowser(adminUrl);
  });

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') {
      await browser?.screenshot(`failure-${task.name.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
      console.error(`console problems: ${JSON.stringify(browser?.problems)}`);
    }
  });

  afterAll(async () => {
    await browser?.close();
    // The browser is gone: a connection its media player left open must not hold the listener's close.
    admin?.server.closeAllConnections();
    await admin?.close();
    await t?.close();
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  /** Every page is checked the same way: no serious accessibility violation, nothing the CSP blocked, nothing off-host. */
  async function checkPage(name: string): Promise<void> {
    await browser.screenshot(name);
    expect(await browser.accessibilityViolations()).toEqual([]);
    expect(browser.problems).toEqual([]);
  }

  const heading = (name: string | RegExp) => browser.page.getByRole('heading', { level: 1, name });

  it('serves the console with its strict policy: own scripts only, Trusted Types, never framed', async () => {
    const response = await fetch(`${adminUrl}/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("require-trusted-types-for 'script'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await response.text();
    const script = /<script type="module" src="(\/console\/main-[A-Z0-9]+\.js)" integrity="sha384-/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${adminUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('has an accessibility check that can fail: an unlabelled field on the page is reported', async () => {
    await browser.page.goto(`${adminUrl}/`);
    await heading('Sign in').waitFor();
    expect(await browser.accessibilityViolations()).toEqual([]);
    await browser.page.evaluate(() => document.querySelector('form')?.append(document.createElement('input')));
    await expect(browser.accessibilityViolations()).resolves.toEqual([expect.stringMatching(/^critical label /)]);
    await browser.page.reload();
    await heading('Sign in').waitFor();
  });

  it('first sign-in: the setup link from `admins create` sets the password and signs in', async () => {
    const { setupLink } = await createAdminWithLink(t.runtime, { email, role: 'operator' }, { actor: 'cli:test' });
    expect(setupLink.startsWith(`${adminUrl}/setup#token=`)).toBe(true);
    await browser.page.goto(setupLink);
    await heading('Set up your account').waitFor();
    await checkPage('setup');
    // The browser enforces the policy: a string cannot become HTML (a DOM-XSS sink), even from the page's own script.
    await expect(
      browser.page.evaluate(() => {
        try {
          document.createElement('div').innerHTML = '<img src=x>';
          return 'allowed';
        } catch (error) {
          return (error as Error).name;
        }
      }),
    ).resolves.toBe('TypeError');
    browser.problems.length = 0; // the refusal above is logged as a CSP violation, as it should be

    await browser.page.getByLabel('New password').fill(PASSWORD);
    await browser.page.getByLabel('Repeat the password').fill(PASSWORD);
    await browser.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await heading('Workspaces').waitFor();
    // The used token is gone from the address bar.
    expect(browser.page.url()).toBe(`${adminUrl}/#/`);
    await expect(browser.page.getByRole('banner').textContent()).resolves.toContain(email);
    await checkPage('workspaces-empty');
  });

  it('is usable from the keyboard: the skip link moves the focus to the page, the navigation follows the tab order', async () => {
    const { page } = browser;
    await page.goto(`${adminUrl}/#/workspaces`);
    await heading('Workspaces').waitFor();
    // A new page focuses its heading. The skip link comes first in the tab order, and shows when focused.
    await expect(page.evaluate(() => document.querySelector('a[href], button, input, select')?.textContent)).resolves.toBe('Skip to content');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await skip.focus();
    await expect(skip.isVisible()).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');
    // Following a navigation link by keyboard opens the page and moves the focus to its heading.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).focus();
    await page.keyboard.press('Enter');
    await heading('Audit log').waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === 'Audit log');
    await expect(
      page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).getAttribute('aria-current'),
    ).resolves.toBe('page');
  });

  it('signs out (the session really ends: the CSRF token went with the request), and signs in again with the password', async () => {
    await browser.page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    await browser.page.reload();
    await heading('Sign in').waitFor();
    await browser.page.getByLabel('Email').fill(email);
    await browser.page.getByLabel('Password').fill('not the password at all');
    await browser.page.getByRole('button', { name: 'Sign in' }).click();
    await browser.page.getByRole('alert').filter({ hasText: 'wrong' }).waitFor();
    await checkPage('sign-in-refused');
    await browser.page.getByLabel('Password').fill(PASSWORD);
    await browser.page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Workspaces').waitFor();
  });

  it('shows each role only its sections: support staff get API users, apps, webhooks and their own account', async () => {
    const supportEmail = `support-${Date.now()}@example.com`;
    const { setupLink } = await createAdminWithLink(t.runtime, { email: supportEmail, role: 'support' }, { actor: 'cli:test' });
    await browser.page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    await browser.page.goto(setupLink);
    await browser.page.getByLabel('New password').fill(PASSWORD);
    await browser.page.getByLabel('Repeat the password').fill(PASSWORD);
    await browser.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await heading('API users').waitFor();
    const sections = await browser.page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();
    expect(sections).toEqual(['API users', 'Apps', 'Webhooks', 'Your account']);
    // An address of a section the role may not use shows "not found", as the API's answer would.
    await browser.page.goto(`${adminUrl}/#/keys`);
    await heading('Page not found').waitFor();
    await browser.page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
  });

  it('turns on the TOTP second factor, and then signing in asks for the code', async () => {
    const { page } = browser;
    const totpEmail = `totp-${Date.now()}@example.com`;
    const { setupLink } = await createAdminWithLink(t.runtime, { email: totpEmail, role: 'account-admin' }, { actor: 'cli:test' });
    await page.goto(setupLink);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Your account' }).click();
    await heading('Your account').waitFor();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = await page.getByLabel('Secret', { exact: true }).inputValue();
    await page.getByLabel('Code from the app').fill(totpCode(secret, Date.now()));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.getByRole('status').filter({ hasText: 'Two-factor sign-in is on' }).waitFor();
    await checkPage('account-totp-on');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    await page.getByLabel('Email').fill(totpEmail);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel('Authentication code');
    await code.waitFor();
    await checkPage('sign-in-totp');
    // The enrolment used this step's code; an authenticator shows the next one 30 s later (one step of drift is accepted).
    await code.fill(totpCode(secret, Date.now() + 30_000));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Workspaces').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
  });

  describe('a support day, operator signed in', () => {
    const userEmail = `ana-${Date.now()}@example.com`;
    const workspaceName = `Research ${Date.now()}`;
    const testTitle = 'Checkout usability';
    let workspaceId: string;
    let testId: string;
    let issued: { clientId: string; clientSecret: string; tokenUrl: string };
    let token: string;
    const nav = (name: string) => browser.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name });

    beforeAll(async () => {
      const { page } = browser;
      await page.goto(`${adminUrl}/`);
      await heading('Sign in').waitFor();
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await heading('Workspaces').waitFor();
    });

    it('creates a workspace', async () => {
      const { page } = browser;
      await page.getByLabel('New workspace name').fill(workspaceName);
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await page.getByRole('status').filter({ hasText: `Created workspace ${workspaceName}` }).waitFor();
      await page.getByRole('cell', { name: workspaceName }).waitFor();
      await checkPage('workspaces');
      await page.getByRole('link', { name: workspaceName }).first().click();
      await heading(`Workspace ${workspaceName}`).waitFor();
      workspaceId = new URL(page.url()).hash.split('/')[2]!;
      expect((await t.runtime.store.directory.listWorkspaces()).map((w) => w.name)).toContain(workspaceName);
    });

    it('registers an API user, adds it as a member and creates a test', async () => {
      const { page } = browser;
      await nav('API users').click();
      await heading('API users').waitFor();
      await page.getByLabel("New API user's email").fill(userEmail);
      await page.getByRole('button', { name: 'Register user' }).click();
      await page.getByRole('link', { name: userEmail }).waitFor();
      await checkPage('users');

      await page.goto(`${adminUrl}/#/workspaces/${workspaceId}`);
      await heading(`Workspace ${workspaceName}`).waitFor();
      await page.getByLabel('Member email').fill(userEmail);
      await page.getByRole('button', { name: 'Add member' }).click();
      await page.getByRole('cell', { name: userEmail, exact: true }).waitFor();
      await page.getByLabel('New test title').fill(testTitle);
      await page.getByRole('button', { name: 'Create test' }).click();
      await page.getByRole('link', { name: testTitle }).waitFor();
      await checkPage('workspace');
      testId = (await t.runtime.store.directory.listTests(workspaceId))[0]!.id;
      expect((await t.runtime.store.directory.listMembers(workspaceId)).map((m) => m.email)).toEqual([userEmail]);
    });

    it('makes a one-time sign-in link for the API user (issue 34), which opens the password page', async () => {
      const { page } = browser;
      await page.goto(`${adminUrl}/#/users/${userEmail}`);
      await heading(`API user ${userEmail}`).waitFor();
      await page.getByRole('button', { name: 'Make a sign-in link' }).click();
      const link = await page.getByLabel('Sign-in link').inputValue();
      expect(link).toMatch(new RegExp(`/account/setup#token=[A-Za-z0-9_-]{43}$`));
      await checkPage('user-sign-in-link');
      const setup = await fetch(`${t.url}/account/setup`);
      expect(setup.status).toBe(200);
    });

    it("sets the API user's password (issue 34), with which the user signs in, lists the apps the user approved and revokes one", async () => {
      const { page } = browser;
      await page.goto(`${adminUrl}/#/users/${userEmail}`);
      await heading(`API user ${userEmail}`).waitFor();
      await page.getByText('This user has approved no app.').waitFor();
      const userPassword = 'a password set by support';
      await page.getByLabel('New password').fill(userPassword);
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.getByRole('status').filter({ hasText: `Password set for ${userEmail}` }).waitFor();
      expect((await signIn(new FormBrowser(t.url), userEmail, userPassword)).status).toBe(303);

      // An approval as the authorization endpoint and the code exchange record it.
      const { app } = await registerApp(t.runtime, { name: 'Approved App', redirectUris: ['http://127.0.0.1/cb'], scopes: ['sessions:read', 'clips:read'], clientType: 'public' }, { actor: 'test' });
      const user = (await t.runtime.store.credentials.findUserByEmail(userEmail))!;
      const codeHash = randomUUID();
      await t.runtime.store.apps.createCode({ codeHash, clientId: app.clientId, userId: user.id, redirectUri: 'http://127.0.0.1/cb', codeChallenge: 'c', scopes: ['sessions:read'], resource: null, expiresAt: Date.now() + 60_000 });
      await t.runtime.store.apps.exchangeCode(codeHash, () => null, { grantId: randomUUID(), refreshHash: randomUUID(), refreshExpiresAt: Date.now() + 60_000 });
      await page.reload();
      await page.getByRole('table', { name: 'Apps this user approved' }).getByRole('cell', { name: 'Approved App', exact: true }).waitFor();
      await page.getByRole('cell', { name: 'sessions:read', exact: true }).waitFor();
      await checkPage('user-approvals');

      // Support takes the approval back for the user: the grant is revoked, the table empties.
      await page.getByRole('button', { name: 'Revoke Approved App' }).click();
      await page.getByRole('button', { name: 'Confirm: revoke Approved App' }).click();
      await page.getByRole('status').filter({ hasText: `Revoked Approved App for ${userEmail}` }).waitFor();
      await page.getByText('This user has approved no app.').waitFor();
      expect(await t.runtime.store.apps.approvedApps(user.id)).toEqual([]);
    });

    it('registers a partner app (issue 34): its secret shown once; revokes it', async () => {
      const { page } = browser;
      await page.goto(`${adminUrl}/#/apps`);
      await heading('Apps').waitFor();
      await page.getByLabel('App name').fill('Console App');
      await page.getByLabel('Redirect URIs').fill('https://console-app.example.com/cb');
      await page.getByLabel('Scopes').fill('sessions:read clips:read');
      await page.getByRole('button', { name: 'Register app' }).click();
      const secret = await page.getByLabel('App client secret').inputValue();
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const clientId = await page.getByLabel('App client id').inputValue();
      expect((await t.runtime.store.apps.findApp(clientId))?.scopes).toEqual(['sessions:read', 'clips:read']);
      await checkPage('apps');
      await page.getByRole('button', { name: 'Revoke Console App' }).click();
      await page.getByRole('button', { name: 'Confirm: revoke Console App' }).click();
      await page.getByText('Revoked Console App').waitFor();
      expect((await t.runtime.store.apps.findApp(clientId))?.revokedAt).not.toBeNull();
    });

    it('issues a credential: the secret shown once, with copy buttons, the token URL and the server id; a token is minted with it', async () => {
      const { page } = browser;
      await page.goto(`${adminUrl}/#/users/${userEmail}`);
      await heading(`API user ${userEmail}`).waitFor();
      await page.getByRole('button', { name: 'Issue a credential' }).click();
      const panel = page.getByRole('region', { name: 'Copy the secret now: it is shown only once' });
      await panel.waitFor();
      await page.waitForFunction(() => document.activeElement?.id === 'secret-heading');
      issued = {
        clientId: await panel.getByLabel('Client id').inputValue(),
        clientSecret: await panel.getByLabel('Client secret').inputValue(),
        tokenUrl: await panel.getByLabel('Token URL').inputValue(),
      };
      await expect(panel.getByLabel('Authorization server id').inputValue()).resolves.toBe(t.runtime.servers.custom.id);
      expect(issued.tokenUrl).toBe(`${t.url}/oauth2/${t.runtime.servers.custom.id}/v1/token`);
      await panel.getByRole('button', { name: 'Copy Client secret' }).click();
      await panel.getByRole('status').filter({ hasText: 'Client secret copied.' }).waitFor();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(issued.clientSecret);
      await checkPage('credential-issued');

      const response = await fetch(issued.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: issued.clientId, client_secret: issued.clientSecret, scope: 'studies:read' }),
      });
      expect(response.status).toBe(200);
      token = ((await response.json()) as { access_token: string }).access_token;
      const listed = await fetch(`${t.url}/api/v2/sessionResults?testId=${testId}`, { headers: { authorization: `Bearer ${token}` } });
      expect(listed.status).toBe(200);

      // Hidden once copied; the list shows the credential, never its secret.
      await panel.getByRole('button', { name: 'I have copied it: hide the secret' }).click();
      await panel.waitFor({ state: 'detached' });
      await page.getByRole('cell', { name: issued.clientId, exact: true }).waitFor();
      await expect(page.content()).resolves.not.toContain(issued.clientSecret);
    });

    it('rotates the secret: a new one shown once, the previous one working for the grace period', async () => {
      const { page } = browser;
      await page.getByRole('button', { name: `Rotate secret of ${issued.clientId}` }).click();
      const panel = page.getByRole('region', { name: 'Copy the secret now: it is shown only once' });
      await panel.getByText('The previous secret keeps working until').waitFor();
      const rotated = await panel.getByLabel('Client secret').inputValue();
      expect(rotated).not.toBe(issued.clientSecret);
      await page.getByRole('cell', { name: 'active (2 secrets)' }).waitFor();
      await panel.getByRole('button', { name: 'I have copied it: hide the secret' }).click();
      // Ending the grace period at once: only the new secret works.
      await page.getByRole('button', { name: `Retire previous secret of ${issued.clientId}` }).click();
      await page.getByRole('button', { name: `Confirm: retire previous secret of ${issued.clientId}` }).click();
      await page.getByRole('cell', { name: 'active (1 secret)' }).waitFor();
      const old = await fetch(issued.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: issued.clientId, client_secret: issued.clientSecret, scope: 'studies:read' }),
      });
      expect(old.status).toBe(401);
    });

    it('revokes the credential, and the API refuses its token', async () => {
      const { page } = browser;
      await page.getByRole('button', { name: `Revoke ${issued.clientId}` }).click();
      await page.getByRole('button', { name: `Confirm: revoke ${issued.clientId}` }).click();
      await page.getByRole('status').filter({ hasText: `Revoked ${issued.clientId}` }).waitFor();
      await page.getByRole('cell', { name: /^revoked / }).waitFor();
      await checkPage('credential-revoked');
      const refused = await fetch(`${t.url}/api/v2/sessionResults?testId=${testId}`, { headers: { authorization: `Bearer ${token}` } });
      expect(refused.status).toBe(401);

      // Disabling the user (and enabling it again) is on the same page.
      await page.getByRole('button', { name: 'Disable user' }).click();
      await page.getByRole('button', { name: 'Confirm: disable user' }).click();
      await page.getByRole('status').filter({ hasText: `Disabled ${userEmail}` }).waitFor();
      expect((await t.runtime.store.credentials.findUserByEmail(userEmail))?.status).toBe('disabled');
      await page.getByRole('button', { name: 'Enable user' }).click();
      await page.getByRole('status').filter({ hasText: `Enabled ${userEmail}` }).waitFor();
      expect((await t.runtime.store.credentials.findUserByEmail(userEmail))?.status).toBe('active');
    });

    it('imports a file with a bad line: nothing imported, the line and its problem shown; then the fixed file', async () => {
      const { page } = browser;
      const good = (id: string, status = 'COMPLETE', minute = 0) =>
        JSON.stringify({ sessionId: id, audienceId: null, status, startTime: `2026-11-01T10:${String(minute).padStart(2, '0')}:00Z`, finishTime: '2026-11-01T11:00:00Z' });
      const file = (lines: string[]) => ({ name: 'sessions.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(`${lines.join('\n')}\n`) });
      const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];

      await nav('Imports').click();
      await heading('Import sessions').waitFor();
      await page.getByLabel('Workspace').selectOption(workspaceId);
      await page.getByLabel('Test').selectOption(testId);
      await page.getByLabel('Session file').setInputFiles(file([good(ids[0]!), '{"sessionId": "not-a-uuid", "status": "COMPLETE"}', good(ids[1]!)]));
      await page.getByRole('button', { name: 'Upload and import' }).click();
      const badLines = page.getByRole('table', { name: /bad line/ });
      await badLines.waitFor();
      await expect(badLines.getByRole('row').nth(1).getByRole('cell').first().textContent()).resolves.toBe('2');
      expect(await badLines.getByRole('row').count()).toBe(2);
      await page.getByRole('alert').filter({ hasText: 'nothing was imported' }).waitFor();
      await checkPage('import-bad-line');
      expect(await t.runtime.store.sessions.countSessions(testId, 'COMPLETE')).toBe(0);

      // 27 sessions, two of them abandoned: two pages of 25, and a status to filter by.
      const many = Array.from({ length: 27 }, (_, i) => good(`00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`, i < 2 ? 'ABANDONED' : 'COMPLETE', i));
      await page.getByLabel('Session file').setInputFiles(file(many));
      // Held for a moment on its way, so the progress bar can be seen (a local upload is instant).
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/sessions/import', async (route) => {
        await held;
        await route.continue();
      });
      await page.getByRole('button', { name: 'Upload and import' }).click();
      const progress = page.getByRole('progressbar', { name: /Upload/ });
      await progress.waitFor();
      await expect(page.getByRole('button', { name: 'Upload and import' }).isDisabled()).resolves.toBe(true);
      await checkPage('import-progress');
      release();
      await page.getByRole('status').filter({ hasText: 'Imported: 27 new' }).waitFor();
      await progress.waitFor({ state: 'detached' });
      await page.unroute('**/sessions/import');
      await page.getByRole('link', { name: "See the test's sessions" }).click();
      await heading(`Test ${testTitle}`).waitFor();
      await page.getByText('27 sessions', { exact: true }).waitFor();
      await checkPage('test-sessions');
      const sessionRows = page.getByRole('table', { name: 'Sessions' }).getByRole('row');
      expect(await sessionRows.count()).toBe(26);
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('Page 2', { exact: true }).waitFor();
      await within(10_000, async () => expect(await sessionRows.count()).toBe(3));
      expect(new URL(page.url()).hash).toContain('page=2');

      await page.getByLabel('Status').selectOption('ABANDONED');
      await page.getByText('2 sessions with status ABANDONED', { exact: true }).waitFor();
      await within(10_000, async () => expect(await sessionRows.count()).toBe(3));
      await page.getByRole('link', { name: ids[1] }).click();
      await heading('Session').waitFor();
      await expect(page.locator('dl.details').textContent()).resolves.toContain('ABANDONED');
      await checkPage('session');
    });

    it('opens a session with details, transcript and video: the video plays, a clip is made from the player and listed, then a reel of it', async () => {
      const { page } = browser;
      const store = t.runtime.store;
      const by = { actor: 'cli:test' };
      const sessionId = '00000000-0000-4000-8000-0000000000ff';
      await store.directory.setTestPlan(testId, DETAILS_PLAN, by);
      const record = { sessionId, status: 'COMPLETE', startTime: '2026-11-02T10:00:00Z', finishTime: '2026-11-02T10:20:00Z', details: detailsInput({ ...PARTICIPANT_A }) };
      const parsed = parseSessionFile(JSON.stringify(record), 'ndjson', DETAILS_PLAN);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      await store.sessions.importSessions(testId, parsed.sessions, by);
      await store.transcripts.importTranscripts(testId, [{ sessionId, vtt: 'WEBVTT\n\n00:00:00.500 --> 00:00:02.000\nWhere is the basket?\n' }], by);
      const dir = mkdtempSync(join(tmpdir(), 'results-api-console-video-'));
      try {
        await generateTestVideo(join(dir, 'session.mp4'), { seconds: 4 });
        await importVideo({ sessions: store.sessions, videos: store.videos, storage: t.runtime.media.storage }, { sessionId, file: join(dir, 'session.mp4') }, by);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }

      await page.goto(`${adminUrl}/#/tests/${testId}/sessions/${sessionId}`);
      await heading('Session').waitFor();
      const tasks = page.getByRole('table', { name: 'Tasks' });
      await tasks.getByRole('cell', { name: DETAILS_PLAN.tasks[0]!.text }).waitFor();
      expect(await tasks.getByRole('row').count()).toBe(DETAILS_PLAN.tasks.length + 1);
      await page.getByRole('table', { name: 'Task groups' }).getByRole('cell', { name: 'BALANCED_COMPARISON' }).waitFor();
      const cue = page.getByRole('list', { name: 'Transcript' }).getByRole('listitem').first();
      await expect(cue.textContent()).resolves.toMatch(/0:00\.5.*0:02\.0.*Where is the basket\?/);

      // The player: its link is on this listener, it has the poster, and it reaches HAVE_CURRENT_DATA.
      const video = page.locator('video');
      await expect(video.getAttribute('src')).resolves.toMatch(/^\/admin\/media\/videos\//);
      await expect(video.getAttribute('poster')).resolves.toMatch(/\.poster\.jpg\?/);
      await within(20_000, async () => expect(await video.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(2));
      await checkPage('session-media');

      // The transcript's time moves the player; the clip starts where the player is.
      await cue.getByRole('button', { name: 'Play from 0:00.5' }).click();
      await within(10_000, async () => expect(await video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeCloseTo(0.5, 1));
      await page.getByRole('button', { name: "Start at the player's position" }).click();
      await expect(page.getByLabel('Start (s)').inputValue()).resolves.toBe('0.5');
      await expect(page.getByLabel('End (s)').inputValue()).resolves.toBe('4.0');
      await page.getByLabel('End (s)').fill('2.5');
      await page.getByLabel('Clip name').fill('Looking for the basket');
      await page.getByRole('button', { name: 'Make clip' }).click();
      await page.getByRole('status').filter({ hasText: 'Clip “Looking for the basket” (0:00.5–0:02.5) created' }).waitFor();
      const clipRow = page.getByRole('table', { name: 'Clips' }).getByRole('row', { name: /Looking for the basket/ });
      await clipRow.waitFor();
      await expect(clipRow.textContent()).resolves.toMatch(/GENERATING|GENERATED|ERROR/);
      const [clip] = await store.clips.listClips(sessionId);
      expect(clip).toMatchObject({ startMs: 500, endMs: 2500, name: 'Looking for the basket' });
      // A refusal is shown in the server's words.
      await page.getByLabel('Start (s)').fill('3');
      await page.getByLabel('End (s)').fill('1');
      await page.getByLabel('Clip name').fill('Backwards');
      await page.getByRole('button', { name: 'Make clip' }).click();
      await page.getByRole('alert').filter({ hasText: 'a clip must end after it starts' }).waitFor();
      expect(await store.clips.listClips(sessionId)).toHaveLength(1);
      await checkPage('session-clip');

      // The test page: a highlight reel of the chosen clip.
      await page.getByRole('link', { name: "Back to the test's sessions" }).click();
      await heading(`Test ${testTitle}`).waitFor();
      await page.getByRole('checkbox', { name: /Looking for the basket/ }).check();
      await page.getByLabel('Reel name').fill('Basket moments');
      await page.getByRole('button', { name: 'Make highlight reel' }).click();
      await page.getByRole('status').filter({ hasText: 'Highlight reel “Basket moments” of 1 clips created' }).waitFor();
      await page.getByRole('table', { name: 'Highlight reels' }).getByRole('cell', { name: 'Basket moments' }).waitFor();
      expect((await store.reels.listReels(testId)).map((r) => r.clipIds)).toEqual([[clip!.id]]);
      await checkPage('test-reels');
    });

    it('reads the revocation in the audit log, by the acting admin', async () => {
      const { page } = browser;
      await nav('Audit log').click();
      await heading('Audit log').waitFor();
      await page.getByLabel('Since').fill('1h');
      await page.getByLabel('Action').fill('credential.revoke');
      await page.getByRole('button', { name: 'Filter' }).click();
      // The filtered list: one event, the revocation.
      await page.getByRole('table', { name: '1 event, newest first' }).waitFor();
      const row = page.getByRole('row', { name: new RegExp(issued.clientId) });
      await expect(row.getByRole('cell').nth(2).textContent()).resolves.toBe('credential.revoke');
      await expect(row.textContent()).resolves.toContain(`admin:${email}`);
      expect(new URL(page.url()).hash).toContain('action=credential.revoke');
      await checkPage('audit');
    });

    it('shows the signing keys', async () => {
      const { page } = browser;
      await nav('Signing keys').click();
      await heading('Signing keys').waitFor();
      await page.getByRole('cell', { name: 'signs new tokens' }).waitFor();
      await checkPage('keys');
    });

    it('creates an account admin, hands over its setup link, and assigns it a workspace it alone then sees', async () => {
      const { page } = browser;
      const accountAdmin = `account-admin-${Date.now()}@example.com`;
      await nav('Admins').click();
      await heading('Admins').waitFor();
      await page.getByLabel("New admin's email").fill(accountAdmin);
      await page.getByLabel('Role').selectOption('account-admin');
      await page.getByRole('button', { name: 'Create admin' }).click();
      const setupLink = await page.getByLabel('Setup link', { exact: true }).inputValue();
      expect(setupLink.startsWith(`${adminUrl}/setup#token=`)).toBe(true);
      const row = page.getByRole('row', { name: new RegExp(accountAdmin) });
      await row.getByLabel(`Workspace for ${accountAdmin}`).selectOption(workspaceId);
      await row.getByRole('button', { name: 'Assign' }).click();
      await page.getByRole('status').filter({ hasText: `Assigned ${accountAdmin} to ${workspaceName}` }).waitFor();
      await checkPage('admins');

      // Their first sign-in: the one workspace, and no operator sections.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await heading('Sign in').waitFor();
      await page.goto(setupLink);
      await page.getByLabel('New password').fill(PASSWORD);
      await page.getByLabel('Repeat the password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await heading('Workspaces').waitFor();
      await expect(page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents()).resolves.toEqual([
        'Workspaces',
        'Tests and sessions',
        'Imports',
        'Your account',
      ]);
      await expect(page.getByRole('table').getByRole('link').allTextContents()).resolves.toEqual([workspaceName]);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await heading('Sign in').waitFor();
    });
  });
});
