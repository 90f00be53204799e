import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../src/admin/app.js';
import { adminConsole } from '../../src/admin/console-route.js';
import { createAdminWithLink } from '../../src/admin/setup-links.js';
import { totpCode } from '../../src/admin/totp.js';
import { freePort } from '../helpers/net.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { CHROMIUM, haveChromium, openConsoleBrowser, type ConsoleBrowser } from './console-browser.js';

const IN_CI = process.env.CI === 'true';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PASSWORD = 'a long enough console password';

if (!haveChromium && !IN_CI) {
  console.warn(`\n⚠ SKIPPED test/admin/console.test.ts: no Chromium at ${CHROMIUM}. Install it with \`apt-get install -y chromium\`.\n`);
}

/**
 * The support journeys of issue 17 in a real browser against the real admin listener (its API
 * and the console bundle `npm run build` makes), in order: each step starts where the last ended.
 */
describe.skipIf(!haveChromium && !IN_CI)('the admin console in headless Chromium', { timeout: 120_000 }, () => {
  let t: TestApp;
  let admin: FastifyInstance;
  let adminUrl: string;
  let browser: ConsoleBrowser;
  const email = `ops-${Date.now()}@example.com`;

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs the Debian package chromium.`);
    // The bundle under test is the one built from this checkout's console sources.
    execFileSync(process.execPath, ['scripts/build-console.mjs'], { cwd: ROOT, stdio: 'pipe' });
    const port = await freePort();
    adminUrl = `http://127.0.0.1:${port}`;
    t = await startTestApp({ env: { ADMIN_PORT: '0', ADMIN_URL: adminUrl } });
    admin = await buildAdminApp({ ...t.runtime, logger: undefined }, [adminConsole]);
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
    await admin?.close();
    await t?.close();
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

  it('first sign-in: the setup link from `admins create` sets the password and signs in', async () => {
    const { setupLink } = await createAdminWithLink(t.runtime, { email, role: 'operator' }, { actor: 'cli:test' });
    expect(setupLink.startsWith(`${adminUrl}/setup#token=`)).toBe(true);
    await browser.page.goto(setupLink);
    await heading('Set up your account').waitFor();
    await checkPage('setup');

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
    await expect(page.evaluate(() => document.activeElement?.tagName)).resolves.toBe('H1');
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

  it('shows each role only its sections: support staff get API users and their own account', async () => {
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
    expect(sections).toEqual(['API users', 'Your account']);
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
});
