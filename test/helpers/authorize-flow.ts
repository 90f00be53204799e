import { FormBrowser, type Page } from './form-browser.js';

const decode = (value: string): string =>
  value.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

/** The hidden fields of a page's form, as the browser would post them. */
export function hiddenFields(page: Page): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, name, value] of page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[decode(name!)] = decode(value!);
  return fields;
}

/**
 * A signed-in browser at the authorization endpoint: opens `authorizeUrl`, and on the consent
 * page presses `decision`; returns the consent page and the answer (a redirect to the app, or a page).
 */
export async function approve(browser: FormBrowser, authorizeUrl: string, decision: 'allow' | 'deny' = 'allow'): Promise<{ consent: Page; answer: Page }> {
  const url = new URL(authorizeUrl);
  const consent = await browser.get(`${url.pathname}${url.search}`);
  if (consent.status !== 200) return { consent, answer: consent };
  const answer = await browser.post(url.pathname, { ...hiddenFields(consent), decision });
  return { consent, answer };
}
