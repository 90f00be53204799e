import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliSandbox, type CliSandbox } from './run-cli.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CLIENT_ID = /^0oa[0-9A-Za-z]{17}$/;

interface UserJson {
  id: string;
  email: string;
  status: string;
  createdAt: string;
}

describe('results-api users', () => {
  let cli: CliSandbox;
  beforeAll(() => {
    cli = cliSandbox();
  });
  afterAll(() => cli.cleanup());

  it('refuses a bad email before opening the database', async () => {
    const result = await cli.run(['users', 'create', '--email', 'not-an-email']);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: 'error: --email must be an email address (got "not-an-email")\n' });
    expect(existsSync(cli.dbPath)).toBe(false);
  });

  it('creates a user (human output)', async () => {
    const result = await cli.run(['users', 'create', '--email', 'Ada@Example.com']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^created user Ada@Example\.com \(id [0-9a-f-]{36}\)\n$/);
    expect(result.stderr).toBe('');
  });

  it('creates a user (--json)', async () => {
    const user = await cli.json<UserJson>(['users', 'create', '--email', 'grace@example.com']);
    expect(user).toEqual({ id: expect.stringMatching(UUID), email: 'grace@example.com', status: 'active', createdAt: expect.stringMatching(ISO) });
  });

  it('refuses a duplicate email, case-insensitively, and changes nothing', async () => {
    const result = await cli.run(['users', 'create', '--email', 'ada@example.COM']);
    expect(result).toMatchObject({ code: 1, stdout: '', stderr: 'error: a user with email ada@example.COM already exists\n' });
    const users = await cli.json<UserJson[]>(['users', 'list']);
    expect(users.map((u) => u.email)).toEqual(['Ada@Example.com', 'grace@example.com']);
  });

  it('lists users as a table', async () => {
    const result = await cli.run(['users', 'list']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^EMAIL\s+STATUS\s+CREATED\s+ID$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
      ['Ada@Example.com', 'active'],
      ['grace@example.com', 'active'],
    ]);
  });

  it('disables and enables a user', async () => {
    expect(await cli.run(['users', 'disable', '--email', 'grace@example.com'])).toMatchObject({
      code: 0,
      stdout: 'grace@example.com is now disabled\n',
    });
    const users = await cli.json<UserJson[]>(['users', 'list']);
    expect(users.find((u) => u.email === 'grace@example.com')?.status).toBe('disabled');
    const enabled = await cli.json<UserJson>(['users', 'enable', '--email', 'grace@example.com']);
    expect(enabled.status).toBe('active');
  });

  it('says so when disabling an unknown user', async () => {
    const result = await cli.run(['users', 'disable', '--email', 'nobody@example.com']);
    expect(result).toMatchObject({ code: 1, stdout: '', stderr: 'error: no user with email nobody@example.com\n' });
  });
});

interface IssuedJson {
  clientId: string;
  clientSecret: string;
  email: string;
  createdAt: string;
}
interface CredentialJson {
  clientId: string;
  email: string;
  status: string;
  activeSecrets: number;
  revokedAt: string | null;
}

describe('results-api credentials', () => {
  let cli: CliSandbox;
  const secrets: string[] = [];
  beforeAll(async () => {
    cli = cliSandbox();
    await cli.json(['users', 'create', '--email', 'ada@example.com']);
    await cli.json(['users', 'create', '--email', 'grace@example.com']);
  });
  afterAll(() => cli.cleanup());

  it('issues a client id and a secret, printed once with a warning', async () => {
    const result = await cli.run(['credentials', 'issue', '--email', 'ada@example.com']);
    expect(result.code).toBe(0);
    const match = /^ {2}client_id: +(0oa\w{17})\n {2}client_secret: +([\w-]{43})$/m.exec(result.stdout);
    expect(match).not.toBeNull();
    secrets.push(match![2]!);
    expect(result.stdout).toContain('Issued a credential to ada@example.com:');
    expect(result.stdout).toContain('The client secret is shown only this once: it is not stored');
    // What the user needs besides the secret: where to mint tokens and which server to name.
    const serverId = /^ {2}authorization server id: (aus\w{17})$/m.exec(result.stdout)?.[1];
    expect(serverId).toBeDefined();
    expect(result.stdout).toContain(`  token URL (Bearer, scope studies:read): http://localhost:8080/oauth2/${serverId}/v1/token\n`);
    expect(result.stdout).toContain('  token URL (token header, scope public_api.read): http://localhost:8080/oauth2/default/v1/token\n');
    expect(result.stdout).toContain('  Results API: http://localhost:8080\n');
  });

  it('issues with --json', async () => {
    const issued = await cli.json<IssuedJson>(['credentials', 'issue', '--email', 'grace@example.com']);
    expect(issued).toEqual({
      clientId: expect.stringMatching(CLIENT_ID),
      clientSecret: expect.stringMatching(/^[\w-]{43}$/),
      email: 'grace@example.com',
      createdAt: expect.stringMatching(ISO),
      authorizationServerId: expect.stringMatching(/^aus\w{17}$/),
      tokenUrl: expect.stringMatching(/^http:\/\/localhost:8080\/oauth2\/aus\w{17}\/v1\/token$/),
      defaultTokenUrl: 'http://localhost:8080/oauth2/default/v1/token',
      baseUrl: 'http://localhost:8080',
    });
    secrets.push(issued.clientSecret);
  });

  it('lists credentials without any secret or hash', async () => {
    const human = await cli.run(['credentials', 'list']);
    const json = await cli.run(['credentials', 'list', '--json']);
    for (const output of [human.stdout, json.stdout]) {
      for (const secret of secrets) expect(output).not.toContain(secret);
      expect(output.toLowerCase()).not.toContain('hash');
    }
    expect(human.stdout.split('\n')[0]).toMatch(/^CLIENT_ID\s+EMAIL\s+STATUS\s+SECRETS\s+CREATED\s+LAST_USED$/);
    const list = JSON.parse(json.stdout) as CredentialJson[];
    expect(list.map((c) => [c.email, c.status, c.activeSecrets])).toEqual([
      ['ada@example.com', 'active', 1],
      ['grace@example.com', 'active', 1],
    ]);
    expect(Object.keys(list[0]!).sort()).toEqual(
      ['activeSecrets', 'clientId', 'createdAt', 'email', 'lastUsedAt', 'revokedAt', 'status', 'userId'].sort(),
    );
  });

  it('refuses a second active credential for the same user, changing nothing', async () => {
    const result = await cli.run(['credentials', 'issue', '--email', 'ADA@example.com']);
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: ada@example.com already holds an active credential; rotate or revoke it instead\n',
    });
    expect(await cli.json<unknown[]>(['credentials', 'list'])).toHaveLength(2);
  });

  it('refuses to issue to an unknown user, naming the fix', async () => {
    const result = await cli.run(['credentials', 'issue', '--email', 'nobody@example.com']);
    expect(result).toMatchObject({
      code: 1,
      stderr: 'error: no user with email nobody@example.com (register it first: results-api users create --email nobody@example.com)\n',
    });
    expect(await cli.json<unknown[]>(['credentials', 'list'])).toHaveLength(2);
  });

  it('revokes a credential', async () => {
    const [ada] = await cli.json<CredentialJson[]>(['credentials', 'list']);
    const result = await cli.run(['credentials', 'revoke', '--client-id', ada!.clientId]);
    expect(result).toMatchObject({ code: 0, stdout: `revoked ${ada!.clientId} (ada@example.com); its tokens no longer work\n` });
    const list = await cli.json<CredentialJson[]>(['credentials', 'list']);
    expect(list[0]).toMatchObject({ clientId: ada!.clientId, status: 'revoked', activeSecrets: 0, revokedAt: expect.stringMatching(ISO) });
    expect(list[1]).toMatchObject({ status: 'active', revokedAt: null });
    // Again: nothing to do, and it says so.
    const again = await cli.run(['credentials', 'revoke', '--client-id', ada!.clientId]);
    expect(again).toMatchObject({ code: 0, stdout: `${ada!.clientId} (ada@example.com) was already revoked at ${list[0]!.revokedAt}; nothing changed\n` });
    expect(await cli.json(['credentials', 'revoke', '--client-id', ada!.clientId])).toMatchObject({ alreadyRevoked: true, revokedAt: list[0]!.revokedAt });
    // With the old one revoked, the user may hold a new one.
    expect((await cli.run(['credentials', 'issue', '--email', 'ada@example.com'])).code).toBe(0);
  });

  it('lists the credentials of one user with --email (any case)', async () => {
    const ada = await cli.json<CredentialJson[]>(['credentials', 'list', '--email', 'ADA@example.com']);
    expect(ada.map((c) => [c.email, c.status])).toEqual([
      ['ada@example.com', 'revoked'],
      ['ada@example.com', 'active'],
    ]);
    expect(await cli.json(['credentials', 'list', '--email', 'nobody@example.com'])).toEqual([]);
    expect(await cli.run(['credentials', 'list', '--email', 'nope'])).toMatchObject({ code: 2, stderr: 'error: --email must be an email address (got "nope")\n' });
  });

  it('refuses a malformed or unknown client id', async () => {
    expect(await cli.run(['credentials', 'revoke', '--client-id', 'abc'])).toMatchObject({
      code: 2,
      stderr: 'error: --client-id must be a client id: "0oa" followed by 17 letters or digits (got "abc")\n',
    });
    expect(await cli.run(['credentials', 'revoke', '--client-id', '0oaAAAAAAAAAAAAAAAAA'])).toMatchObject({
      code: 1,
      stderr: 'error: no credential with client id 0oaAAAAAAAAAAAAAAAAA\n',
    });
  });
});
