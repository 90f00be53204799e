/** What the README shows of the service's answers is what the service answers. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../../src/version.js';
import { seed } from '../helpers/seed.js';
import { startTestApp } from '../helpers/test-app.js';
import { authHeaders, mintToken } from '../helpers/tokens.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('the README', () => {
  it("shows the API's error body exactly as the server sends it", async () => {
    const shown = /Errors are RFC 9457 problem details[^\n]*\n\n```json\n([\s\S]*?)\n```/.exec(README)?.[1];
    expect(shown).toBeDefined();
    const t = await startTestApp();
    try {
      const s = await seed(t.runtime, { sessions: 1 });
      const res = await fetch(`${t.url}/api/v2/sessionResults?testId=${s.testId}&limit=0`, { headers: authHeaders(await mintToken(t, s)) });
      expect(await res.json()).toEqual(JSON.parse(shown!));
    } finally {
      await t.close();
    }
  });

  it('and the OpenAPI document carry the version npm installed', async () => {
    const t = await startTestApp();
    try {
      const document = (await (await fetch(`${t.url}/openapi.json`)).json()) as { info: { version: string } };
      expect(document.info.version).toBe(PACKAGE_VERSION);
      expect(PACKAGE_VERSION).toBe((JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
    } finally {
      await t.close();
    }
  });
});
