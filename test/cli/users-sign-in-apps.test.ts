import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime } from '../../src/runtime.js';
import { CLI_PATH, cliSandbox, type CliResult, type CliSandbox } from './run-cli.js';

/** Runs the CLI with `input` on its standard input, as `printf … | results-api …` does. */
function withStdin(cli: CliSandbox, args: string[], input: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { env: cli.env, cwd: cli.dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('results-api users invite / reset-link / set-password, apps register / list / revoke', () => {
  let cli: CliSandbox;
  beforeAll(() => {
    cli = cliSandbox();
  });
  afterAll(() => cli.cleanup());

  it('invite prints a one-time setup link under AUTH_URL and creates the user', async () => {
    const result = await cli.run(['users', 'invite', '--email', 'ada@example.com'], { AUTH_URL: 'https://auth.example.com' });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Invited ada@example\.com \(new user\)\. One-time link, valid until \S+:\n {2}https:\/\/auth\.example\.com\/account\/setup#token=[A-Za-z0-9_-]{43}\n/);
    const link = await cli.json<{ created: boolean; setupLink: string }>(['users', 'reset-link', '--email', 'ada@example.com']);
    expect(link.created).toBe(false);
    expect((await cli.run(['users', 'reset-link', '--email', 'nobody@example.com'])).stderr).toBe('error: no user with email nobody@example.com\n');
  });

  it('set-password reads the password from standard input, and refuses a short or empty one', async () => {
    const set = await withStdin(cli, ['users', 'set-password', '--email', 'ada@example.com'], 'correct horse battery staple\n');
    expect(set).toMatchObject({ code: 0, stdout: 'password set for ada@example.com\n' });
    expect((await withStdin(cli, ['users', 'set-password', '--email', 'ada@example.com'], 'short\n')).stderr).toBe('error: the password must be at least 12 characters long\n');
    expect((await withStdin(cli, ['users', 'set-password', '--email', 'ada@example.com'], '')).stderr).toBe('error: stdin was empty; pipe the password into the command\n');
  });

  it('apps register prints a confidential app\'s secret once; list and revoke', async () => {
    const registered = await cli.json<{ app: { clientId: string; clientType: string; scopes: string[] }; clientSecret: string }>([
      'apps', 'register', '--name', 'Insights Hub', '--redirect-uri', 'https://hub.example.com/cb', '--scope', 'sessions:read videos:read',
    ]);
    expect(registered.app).toMatchObject({ clientType: 'confidential', scopes: ['sessions:read', 'videos:read'] });
    expect(registered.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const pub = await cli.run(['apps', 'register', '--name', 'Desk', '--redirect-uri', 'http://127.0.0.1/cb', '--scope', 'studies:read', '--public']);
    expect(pub.stdout).toMatch(/^Registered public app Desk:\n {2}client_id: {5}0oa/);
    expect(pub.stdout).not.toContain('client_secret');
    const list = await cli.run(['apps', 'list']);
    expect(list.stdout).toContain('Insights Hub');
    expect(list.stdout).not.toContain(registered.clientSecret);
    const revoked = await cli.run(['apps', 'revoke', '--client-id', registered.app.clientId]);
    expect(revoked.stdout).toBe(`app Insights Hub (${registered.app.clientId}) is now revoked\n`);
  });

  it("users approvals lists what a user approved; revoke-approval takes it back, its refresh token with it", async () => {
    const none = await cli.run(['users', 'approvals', '--email', 'ada@example.com']);
    expect(none).toMatchObject({ code: 0, stdout: 'ada@example.com has approved no app\n' });
    const { app } = await cli.json<{ app: { clientId: string } }>(['apps', 'register', '--name', 'Desk App', '--redirect-uri', 'http://127.0.0.1/cb', '--scope', 'sessions:read', '--public']);
    // An approval as the authorization endpoint and the code exchange record it.
    const refreshHash = randomUUID();
    const rt = await openRuntime(loadConfig({ DATABASE_URL: cli.databaseUrl, LOG_LEVEL: 'silent' }));
    try {
      const user = (await rt.store.credentials.findUserByEmail('ada@example.com'))!;
      const codeHash = randomUUID();
      await rt.store.apps.createCode({ codeHash, clientId: app.clientId, userId: user.id, redirectUri: 'http://127.0.0.1/cb', codeChallenge: 'c', scopes: ['sessions:read'], resource: null, expiresAt: Date.now() + 60_000 });
      await rt.store.apps.exchangeCode(codeHash, () => null, { grantId: randomUUID(), refreshHash, refreshExpiresAt: Date.now() + 60_000 });

      const listed = await cli.json<{ clientId: string; name: string; scopes: string[] }[]>(['users', 'approvals', '--email', 'ada@example.com']);
      expect(listed).toEqual([expect.objectContaining({ clientId: app.clientId, name: 'Desk App', scopes: ['sessions:read'] })]);
      expect((await cli.run(['users', 'approvals', '--email', 'ada@example.com'])).stdout).toMatch(/^APP +CLIENT ID +SCOPES +APPROVED +LAST TOKEN\nDesk App +0oa\S+ +sessions:read +\S+Z +\S+Z\n$/);

      const revoked = await cli.run(['users', 'revoke-approval', '--email', 'ada@example.com', '--client-id', app.clientId]);
      expect(revoked).toMatchObject({ code: 0, stdout: `revoked ada@example.com's approval of ${app.clientId} (1 grant): its tokens no longer work\n` });
      expect(await rt.store.apps.findLiveRefreshToken(refreshHash, app.clientId)).toBeNull();
      expect(await cli.json(['users', 'approvals', '--email', 'ada@example.com'])).toEqual([]);
      const audit = await cli.json<{ action: string; subject: string; details: { userId?: string } }[]>(['audit', '--limit', '1']);
      expect(audit[0]).toMatchObject({ action: 'app.unauthorize', subject: app.clientId, details: { userId: user.id, grants: 1 } });
    } finally {
      await rt.close();
    }
    const again = await cli.run(['users', 'revoke-approval', '--email', 'ada@example.com', '--client-id', app.clientId]);
    expect(again).toMatchObject({ code: 1, stderr: `error: ada@example.com has no approval of app ${app.clientId} to revoke (never approved, or already revoked)\n` });
    expect((await cli.run(['users', 'approvals', '--email', 'nobody@example.com'])).stderr).toBe('error: no user with email nobody@example.com\n');
  });

  it.each([
    [['--redirect-uri', 'http://hub.example.com/cb', '--scope', 'studies:read'], /must be https, http on a loopback address/],
    [['--redirect-uri', 'https://hub.example.com/cb#x', '--scope', 'studies:read'], /fragment/],
    [['--redirect-uri', 'https://hub.example.com/cb', '--scope', 'admin'], /unknown scope admin/],
  ])('apps register refuses %j, naming what is wrong, with exit 1', async (args, message) => {
    const result = await cli.run(['apps', 'register', '--name', 'Bad', ...args]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
  });
});
