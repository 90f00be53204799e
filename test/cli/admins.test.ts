import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliSandbox, type CliSandbox } from './run-cli.js';

describe('results-api admins', () => {
  let cli: CliSandbox;
  beforeAll(() => {
    cli = cliSandbox();
  });
  afterAll(() => cli.cleanup());

  it('create prints a one-time setup link under ADMIN_URL; setup-link replaces it; list shows who awaits setup', async () => {
    const created = await cli.run(['admins', 'create', '--email', 'ana@example.com', '--role', 'support'], { ADMIN_URL: 'https://admin.example.com' });
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(
      /^created admin ana@example\.com \(support\)\n\nSetup link for ana@example\.com \(support\), usable once until \d{4}-\d{2}-\d{2}T[\d:.]+Z:\n\n {2}https:\/\/admin\.example\.com\/setup#token=[A-Za-z0-9_-]{43}\n\nHand it to them/,
    );
    const renewed = await cli.json<{ setupLink: string; passwordSet: boolean }>(['admins', 'setup-link', '--email', 'ANA@example.com']);
    expect(renewed.passwordSet).toBe(false);
    expect(renewed.setupLink).toMatch(/^http:\/\/localhost:0\/setup#token=/);
    const list = await cli.run(['admins', 'list']);
    expect(list.stdout).toMatch(/^EMAIL +ROLE +PASSWORD +TOTP +ID\nana@example\.com +support +awaiting setup +off +[0-9a-f-]{36}\n$/);
  });

  it('refuses a bad role, a duplicate, an unknown admin, and assigning a workspace to a non-account admin', async () => {
    expect(await cli.run(['admins', 'create', '--email', 'x@example.com', '--role', 'root'])).toMatchObject({
      code: 2,
      stderr: 'error: --role must be one of operator, support, account-admin (got "root")\n',
    });
    await cli.json(['admins', 'create', '--email', 'dup@example.com', '--role', 'operator']);
    expect((await cli.run(['admins', 'create', '--email', 'DUP@example.com', '--role', 'operator'])).stderr).toBe(
      'error: an admin with email DUP@example.com already exists\n',
    );
    expect((await cli.run(['admins', 'totp-reset', '--email', 'nobody@example.com'])).stderr).toBe('error: no admin with email nobody@example.com\n');
    const workspace = await cli.json<{ id: string }>(['workspaces', 'create', '--name', 'W']);
    expect((await cli.run(['admins', 'assign', '--email', 'dup@example.com', '--workspace', workspace.id])).stderr).toBe(
      'error: dup@example.com is an operator: only account admins are assigned workspaces\n',
    );
    await cli.json(['admins', 'create', '--email', 'acc@example.com', '--role', 'account-admin']);
    expect(await cli.json(['admins', 'assign', '--email', 'acc@example.com', '--workspace', workspace.id])).toEqual({
      email: 'acc@example.com',
      workspaces: [workspace.id],
    });
    expect((await cli.run(['admins', 'off-and-away'])).code).toBe(2);
  });

  it('clients create prints the secret once; list never shows it; revoke is audited', async () => {
    await cli.json(['admins', 'create', '--email', 'ops@example.com', '--role', 'operator']);
    const client = await cli.json<{ clientId: string; clientSecret: string; role: string; tokenUrl: string }>(['admins', 'clients', 'create', '--email', 'ops@example.com']);
    expect(client.clientId).toMatch(/^adm[0-9A-Za-z]{17}$/);
    expect(client.role).toBe('operator');
    expect(client.tokenUrl).toBe('http://localhost:0/admin/oauth2/v1/token');
    const listed = await cli.run(['admins', 'clients', 'list', '--json']);
    expect(listed.stdout).toContain(client.clientId);
    expect(listed.stdout).not.toContain(client.clientSecret);
    expect(await cli.json(['admins', 'clients', 'revoke', '--client-id', client.clientId])).toMatchObject({ status: 'revoked' });
    expect((await cli.run(['admins', 'clients', 'revoke', '--client-id', 'nope'])).code).toBe(2);
    const audit = await cli.json<{ action: string }[]>(['audit', '--action', 'admin_client']);
    expect(audit.map((e) => e.action)).toEqual(['admin_client.create', 'admin_client.revoke']);
  });
});
