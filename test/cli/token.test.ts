import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { runCli } from './run-cli.js';

describe('results-api token', () => {
  let t: TestApp;
  let s: Seeded;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    s = await seed(t.runtime, { sessions: 2 });
    env = {
      PATH: process.env.PATH ?? '',
      HOME: tmpdir(),
      XDG_CONFIG_HOME: join(tmpdir(), 'results-api-no-such-config'),
      RESULTS_API_CLIENT_ID: s.clientId,
      RESULTS_API_CLIENT_SECRET: s.clientSecret,
      RESULTS_API_AUTH_URL: t.url,
    };
  });
  afterAll(() => t.close());

  it('prints a token, and only the token, that the API accepts', async () => {
    const result = await runCli(['token'], env);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const res = await fetch(`${t.url}/v2/sessionResults?testId=${s.testId}`, { headers: { token: result.stdout.trim() } });
    expect(res.status).toBe(200);
  });

  it('--json prints the token response (form B with a server id)', async () => {
    const result = await runCli(['token', '--json'], { ...env, RESULTS_API_AUTH_SERVER_ID: t.runtime.servers.custom.id });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      access_token: expect.stringMatching(/^ey/),
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      scope: 'studies:read',
    });
  });

  it('form B without a server id is a usage error', async () => {
    const result = await runCli(['token'], { ...env, RESULTS_API_FORM: 'B' });
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: 'error: form B needs authorizationServerId (the custom authorization server id)\n' });
  });
});
