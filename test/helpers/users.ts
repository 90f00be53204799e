import type { Runtime } from '../../src/runtime.js';
import { issueUserSetupLink, setUserPassword } from '../../src/operations/user-sign-in.js';
import { FormBrowser } from './form-browser.js';

const by = { actor: 'test' };

export const USER_PASSWORD = 'correct horse battery staple';

/** An API user who can sign in (invited, password set as `users set-password` does). */
export async function seedUserWithPassword(runtime: Runtime, email: string, password = USER_PASSWORD): Promise<void> {
  await issueUserSetupLink(runtime, email, 'invite', by);
  await setUserPassword(runtime, email, password, by);
}

/** Signs a FormBrowser in through the sign-in form; returns the page the form led to. */
export async function signIn(browser: FormBrowser, email: string, password = USER_PASSWORD, extra: Record<string, string> = {}) {
  const form = await browser.get('/account/sign-in');
  return browser.post('/account/sign-in', { csrf: browser.formToken(form), email, password, ...extra });
}
