import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { seedClient, type SeededClient } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { callApi, INVALID_CLIENT } from '../helpers/token-operations.js';
import { authHeaders, mintToken, requestToken, type ClientAuth } from '../helpers/tokens.js';
import { cliSandbox, type CliSandbox } from './run-cli.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECRET = /^[\w-]{43}$/;
const SHOWN_ONCE =
  'The client secret is shown only this once: it is not stored (only a hash of it is). Hand it to the user through a secure channel.';

interface Client {
  clientId: string;
  clientSecret: string;
}
interface RotatedJson extends Client {
  email: string;
  rotatedAt: string;
  previousSecretExpiresAt: string;
}
interface CredentialJson {
  clientId: string;
  email: string;
  status: string;
  activeSecrets: number;
}
type RetiredJson = CredentialJson & { retired: number };

/** `count` users holding one credential each (`credentials issue` is tested elsewhere; seeding in-process is quicker). */
async function seedClients(runtime: Runtime, count: number): Promise<SeededClient[]> {
  const clients = [];
  for (let i = 1; i <= count; i++) clients.push(await seedClient(runtime, `user${i}@example.com`));
  return clients;
}

describe('results-api credentials rotate / retire-previous', () => {
  let cli: CliSandbox;
  let clients: SeededClient[];
  // The same database, also opened in-process: cheaper than another CLI run for each check.
  let rt: Runtime;
  beforeAll(async () => {
    cli = cliSandbox();
    cli.env.SECRET_ROTATION_GRACE_SECONDS = '3600';
    rt = await openRuntime(loadConfig({ DATABASE_URL: cli.databaseUrl, LOG_LEVEL: 'silent' }));
    clients = await seedClients(rt, 5);
  });
  afterAll(async () => {
    await rt?.close();
    cli.cleanup();
  });

  const activeSecrets = async (clientId: string): Promise<number | undefined> =>
    (await rt.store.credentials.listCredentials()).find((c) => c.clientId === clientId)?.activeSecrets;

  it('rotate prints the new secret once, as issue does, and when the previous one stops working', async () => {
    const { clientId } = clients[0]!;
    const result = await cli.run(['credentials', 'rotate', '--client-id', clientId]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      `Rotated the secret of ${clientId} (user1@example.com):`,
      '',
      `  client_id:     ${clientId}`,
      expect.stringMatching(/^ {2}client_secret: [\w-]{43}$/),
    ]);
    expect(lines[4]).toBe('');
    const until = /^The previous secret keeps working until (\S+); to end that sooner: results-api credentials retire-previous --client-id (\w+)$/.exec(
      lines[5]!,
    );
    expect(until?.[1]).toMatch(ISO);
    expect(until?.[2]).toBe(clientId);
    // The time the store was told, as the audit log recorded it.
    const [event] = await rt.store.audit.list({ limit: 1 });
    expect(event).toMatchObject({ action: 'credential.rotate', details: { previousSecretExpiresAt: until![1] } });
    expect(lines.slice(6)).toEqual([SHOWN_ONCE, '']);
    expect(lines[3]!.split(' ').at(-1)).not.toBe(clients[0]!.clientSecret);
    expect(await activeSecrets(clientId)).toBe(2);
  });

  it('rotate --json: the new secret, and when the previous one expires (rotatedAt + grace period)', async () => {
    const { clientId, clientSecret } = clients[1]!;
    const rotated = await cli.json<RotatedJson>(['credentials', 'rotate', '--client-id', clientId]);
    expect(rotated).toEqual({
      clientId,
      clientSecret: expect.stringMatching(SECRET),
      email: 'user2@example.com',
      rotatedAt: expect.stringMatching(ISO),
      previousSecretExpiresAt: expect.stringMatching(ISO),
    });
    expect(rotated.clientSecret).not.toBe(clientSecret);
    expect(Date.parse(rotated.previousSecretExpiresAt) - Date.parse(rotated.rotatedAt)).toBe(3600_000);
    expect(await activeSecrets(clientId)).toBe(2);
  });

  it('retire-previous ends the grace period; again, it changes nothing', async () => {
    const { clientId } = clients[1]!;
    expect(await cli.run(['credentials', 'retire-previous', '--client-id', clientId])).toMatchObject({
      code: 0,
      stdout: `retired the previous secret of ${clientId} (user2@example.com); only the newest one works now\n`,
    });
    expect(await activeSecrets(clientId)).toBe(1);
    expect(await cli.run(['credentials', 'retire-previous', '--client-id', clientId])).toMatchObject({
      code: 0,
      stdout: `${clientId} (user2@example.com) has no previous secret in a grace period; nothing changed\n`,
    });
  });

  it('retire-previous --json: the credential and how many secrets it retired', async () => {
    const { clientId } = clients[0]!;
    const retired = await cli.json<RetiredJson>(['credentials', 'retire-previous', '--client-id', clientId]);
    expect(retired).toMatchObject({ clientId, email: 'user1@example.com', status: 'active', activeSecrets: 1, retired: 1 });
    expect(await cli.json<RetiredJson>(['credentials', 'retire-previous', '--client-id', clientId])).toMatchObject({ retired: 0 });
  });

  it('rotate --retire-previous-now: the previous secret stops working at once', async () => {
    const { clientId } = clients[2]!;
    const human = await cli.run(['credentials', 'rotate', '--client-id', clientId, '--retire-previous-now']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`\n\nThe previous secret no longer works.\n${SHOWN_ONCE}\n`);
    expect(await activeSecrets(clientId)).toBe(1);

    const rotated = await cli.json<RotatedJson>(['credentials', 'rotate', '--client-id', clientId, '--retire-previous-now']);
    expect(rotated.previousSecretExpiresAt).toBe(rotated.rotatedAt);
    expect(await activeSecrets(clientId)).toBe(1);
  });

  describe('bad input: exit non-zero, print one error line, change nothing', () => {
    const state = async () => ({
      credentials: await rt.store.credentials.listCredentials(),
      secrets: await Promise.all(clients.map((c) => rt.store.credentials.findClientForAuth(c.clientId))),
      audit: await rt.store.audit.list({ limit: 100_000 }),
    });

    beforeAll(async () => {
      await cli.json(['credentials', 'rotate', '--client-id', clients[3]!.clientId]);
      await cli.json(['credentials', 'revoke', '--client-id', clients[3]!.clientId]);
    });

    it.each([
      [['rotate', '--client-id', 'abc'], 2, 'error: --client-id must be a client id: "0oa" followed by 17 letters or digits (got "abc")'],
      [['retire-previous', '--client-id', 'abc'], 2, 'error: --client-id must be a client id: "0oa" followed by 17 letters or digits (got "abc")'],
      [['rotate', '--client-id', '0oaAAAAAAAAAAAAAAAAA'], 1, 'error: no credential with client id 0oaAAAAAAAAAAAAAAAAA'],
      [['retire-previous', '--client-id', '0oaAAAAAAAAAAAAAAAAA'], 1, 'error: no credential with client id 0oaAAAAAAAAAAAAAAAAA'],
      [['rotate'], 2, "error: required option '--client-id <clientId>' not specified"],
    ])('credentials %j', async (args, code, message) => {
      const before = await state();
      const result = await cli.run(['credentials', ...args]);
      expect(result).toMatchObject({ code, stdout: '' });
      expect(result.stderr.split('\n')[0]).toBe(message);
      expect(await state()).toEqual(before);
    });

    it('a second rotate while the previous secret is in grace: refused, naming both secrets and the way out', async () => {
      const { clientId } = clients[4]!;
      await cli.json(['credentials', 'rotate', '--client-id', clientId]);
      const before = await state();
      const result = await cli.run(['credentials', 'rotate', '--client-id', clientId]);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toMatch(new RegExp(`^error: credential ${clientId} already has two live secrets: the current one \\(issued \\S+Z\\) and the previous one \\(issued \\S+Z, promised until \\S+Z\\)`));
      expect(result.stderr).toContain(`results-api credentials retire-previous --client-id ${clientId}`);
      expect(result.stderr).toContain('--retire-previous-now');
      expect(await state()).toEqual(before);
    });

    it.each([[['rotate']], [['rotate', '--retire-previous-now']], [['retire-previous']]])(
      'credentials %j of a revoked credential',
      async (verb) => {
        const { clientId } = clients[3]!;
        const before = await state();
        const result = await cli.run(['credentials', ...verb, '--client-id', clientId]);
        expect(result).toMatchObject({ code: 1, stdout: '', stderr: `error: credential ${clientId} is revoked\n` });
        expect(await state()).toEqual(before);
      },
    );
  });
});

describe('secret rotation with the CLI while the server runs on the same database', () => {
  let cli: CliSandbox;
  let t: TestApp;
  let clients: Client[];
  beforeAll(async () => {
    cli = cliSandbox();
    t = await startTestApp({ env: { DATABASE_URL: cli.databaseUrl } });
    clients = await seedClients(t.runtime, 2);
  });
  afterAll(async () => {
    await t?.close();
    cli.cleanup();
  });

  async function expectGranted(client: Client, auth: ClientAuth): Promise<void> {
    expect((await requestToken(t, client, { auth })).status).toBe(200);
  }

  async function expectInvalidClient(client: Client, auth: ClientAuth): Promise<void> {
    const res = await requestToken(t, client, { auth });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(INVALID_CLIENT);
  }

  it('after rotate both secrets mint tokens; after retire-previous the old one is invalid_client', async () => {
    const old = clients[0]!;
    const tokenOfOld = await mintToken(t, old);
    const rotated = await cli.json<RotatedJson>(['credentials', 'rotate', '--client-id', old.clientId]);
    for (const auth of ['post', 'basic'] as const) {
      await expectGranted(old, auth);
      await expectGranted(rotated, auth);
    }

    await cli.json(['credentials', 'retire-previous', '--client-id', old.clientId]);
    for (const auth of ['post', 'basic'] as const) {
      await expectInvalidClient(old, auth);
      await expectGranted(rotated, auth);
    }
    // Retiring a secret is not revoking: tokens it minted live out their lifetime.
    expect((await callApi(t, authHeaders(tokenOfOld))).status).toBe(200);
    expect((await callApi(t, authHeaders(await mintToken(t, rotated)))).status).toBe(200);
  });

  it('after rotate --retire-previous-now only the new secret works', async () => {
    const old = clients[1]!;
    const rotated = await cli.json<RotatedJson>(['credentials', 'rotate', '--client-id', old.clientId, '--retire-previous-now']);
    await expectInvalidClient(old, 'post');
    await expectGranted(rotated, 'post');
  });
});
