import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { cliSandbox, type CliSandbox } from './run-cli.js';

const WS_ID = 'a3a7f2d4-0b7e-4a57-8f63-2f0d3c1a9e01';
const TEST_ID = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const EMAIL = 'ada@example.com';

/**
 * The CLI and a running server share one SQLite file. What the CLI changes must hold on the
 * server's very next request, for a token minted before the change.
 */
describe('CLI changes take effect on the running server at once', () => {
  let cli: CliSandbox;
  let t: TestApp;
  let clientId: string;
  let token: string;

  const listSessions = () =>
    fetch(`${t.url}/api/v2/sessionResults?testId=${TEST_ID}`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    cli = cliSandbox();
    t = await startTestApp({ env: { DATABASE_URL: cli.databaseUrl } });
    // Set up through the CLI while the server runs.
    await cli.json(['users', 'create', '--email', EMAIL]);
    const issued = await cli.json<{ clientId: string; clientSecret: string }>(['credentials', 'issue', '--email', EMAIL]);
    clientId = issued.clientId;
    await cli.json(['workspaces', 'create', '--name', 'Lab', '--id', WS_ID]);
    await cli.json(['members', 'add', '--workspace', WS_ID, '--email', EMAIL]);
    await cli.json(['tests', 'create', '--workspace', WS_ID, '--title', 'T', '--id', TEST_ID]);
    const file = cli.file('s.ndjson', JSON.stringify({ sessionId: '0b0c4a3e-1111-4c1a-9a55-2a6f4c0e7d10', status: 'COMPLETE', startTime: '2024-11-21T12:23:52.614Z' }));
    await cli.json(['sessions', 'import', '--test', TEST_ID, file]);

    const res = await fetch(`${t.url}/oauth2/${t.runtime.servers.custom.id}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: issued.clientId, client_secret: issued.clientSecret }),
    });
    expect(res.status).toBe(200);
    token = ((await res.json()) as { access_token: string }).access_token;
  });
  afterAll(async () => {
    await t?.close();
    cli.cleanup();
  });

  it('serves what the CLI imported', async () => {
    const res = await listSessions();
    expect(res.status).toBe(200);
    expect(((await res.json()) as { meta: { pagination: { totalCount: number } } }).meta.pagination.totalCount).toBe(1);
  });

  it('members remove: the next request is 404, members add: 200 again', async () => {
    await cli.json(['members', 'remove', '--workspace', WS_ID, '--email', EMAIL]);
    const res = await listSessions();
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 404, detail: 'Test not found' });

    await cli.json(['members', 'add', '--workspace', WS_ID, '--email', EMAIL]);
    expect((await listSessions()).status).toBe(200);
  });

  it('users disable: the next request is 401, users enable: 200 again', async () => {
    await cli.json(['users', 'disable', '--email', EMAIL]);
    const res = await listSessions();
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');

    await cli.json(['users', 'enable', '--email', EMAIL]);
    expect((await listSessions()).status).toBe(200);
  });

  it('credentials revoke: the next request is 401', async () => {
    await cli.json(['credentials', 'revoke', '--client-id', clientId]);
    const res = await listSessions();
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
