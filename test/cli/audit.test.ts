import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime } from '../../src/runtime.js';
import { cliSandbox, type CliSandbox } from './run-cli.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface EventJson {
  id: number;
  at: string;
  actor: string;
  action: string;
  subject: string;
  details: Record<string, unknown>;
}

describe('results-api audit', () => {
  const actor = `cli:${userInfo().username}`;
  let cli: CliSandbox;
  let clientId: string;
  let newKid: string;
  /** Every secret issued, and the hashes the store keeps of them. */
  const secretMaterial: string[] = [];

  beforeAll(async () => {
    cli = cliSandbox();
    await cli.json(['users', 'create', '--email', 'ada@example.com']);
    const issued = await cli.json<{ clientId: string; clientSecret: string }>(['credentials', 'issue', '--email', 'ada@example.com']);
    const rotated = await cli.json<{ clientSecret: string }>(['credentials', 'rotate', '--client-id', issued.clientId]);
    newKid = (await cli.json<{ kid: string }>(['keys', 'rotate'])).kid;
    clientId = issued.clientId;
    const rt = await openRuntime(loadConfig({ DATABASE_URL: cli.databaseUrl, LOG_LEVEL: 'silent' }));
    try {
      const stored = (await rt.store.credentials.findClientForAuth(clientId))!.secrets.map((s) => s.hash);
      expect(stored.sort()).toEqual([issued.clientSecret, rotated.clientSecret].map((s) => rt.hasher.hash(s)).sort());
      secretMaterial.push(issued.clientSecret, rotated.clientSecret, ...stored);
      secretMaterial.push(...(await rt.store.signingKeys.list()).map((k) => k.privateKeyPem.split('\n')[1]!));
    } finally {
      await rt.close();
    }
  });
  afterAll(() => cli.cleanup());

  it('lists who did what to which subject, oldest first (--json)', async () => {
    const events = await cli.json<EventJson[]>(['audit']);
    expect(events.map((e) => [e.actor, e.action, e.subject])).toEqual([
      // The first process to open the database made the first signing key.
      ['system', 'key.add', expect.any(String)],
      [actor, 'user.create', 'ada@example.com'],
      [actor, 'credential.issue', clientId],
      [actor, 'credential.rotate', clientId],
      [actor, 'key.add', newKid],
    ]);
    for (const event of events) {
      expect(event).toEqual({
        id: expect.any(Number),
        at: expect.stringMatching(ISO),
        actor: expect.any(String),
        action: expect.any(String),
        subject: expect.any(String),
        details: expect.any(Object),
      });
    }
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => a - b));
    expect(events.map((e) => e.at)).toEqual([...events.map((e) => e.at)].sort());
    expect(events[2]!.details).toEqual({ email: 'ada@example.com' });
    expect(events[3]!.details).toEqual({ previousSecretExpiresAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) });
  });

  it('prints a table with columns at, actor, action, subject, details', async () => {
    const result = await cli.run(['audit']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const [header, ...rows] = result.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^AT\s+ACTOR\s+ACTION\s+SUBJECT\s+DETAILS$/);
    const cells = rows.map((row) => row.split(/ {2,}/));
    expect(cells.map((c) => c.slice(1, 4))).toEqual([
      ['system', 'key.add', expect.any(String)],
      [actor, 'user.create', 'ada@example.com'],
      [actor, 'credential.issue', clientId],
      [actor, 'credential.rotate', clientId],
      [actor, 'key.add', newKid],
    ]);
    expect(cells.map((c) => c[0])).toEqual(rows.map(() => expect.stringMatching(ISO)));
    expect(cells[2]![4]).toBe('{"email":"ada@example.com"}');
    expect(cells[4]![4]).toBe('-');
  });

  it('--limit N shows the newest N events, still oldest first', async () => {
    const events = await cli.json<EventJson[]>(['audit', '--limit', '2']);
    expect(events.map((e) => e.action)).toEqual(['credential.rotate', 'key.add']);
    expect((await cli.run(['audit', '--limit', '1'])).stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('filters by action (or its noun), actor, subject and time; filters combine', async () => {
    const actions = async (...args: string[]) => (await cli.json<EventJson[]>(['audit', ...args])).map((e) => e.action);
    expect(await actions('--action', 'credential.rotate')).toEqual(['credential.rotate']);
    expect(await actions('--action', 'credential')).toEqual(['credential.issue', 'credential.rotate']);
    expect(await actions('--action', 'key')).toEqual(['key.add', 'key.add']);
    expect(await actions('--actor', 'system')).toEqual(['key.add']);
    expect(await actions('--subject', clientId)).toEqual(['credential.issue', 'credential.rotate']);
    expect(await actions('--subject', clientId, '--action', 'credential.issue')).toEqual(['credential.issue']);
    expect(await actions('--actor', 'cli:nobody')).toEqual([]);
    const all = await cli.json<EventJson[]>(['audit']);
    expect(await actions('--since', all[3]!.at)).toEqual(['credential.rotate', 'key.add']);
    expect(await actions('--since', '10m')).toEqual(all.map((e) => e.action));
    expect(await actions('--since', '2999-01-01T00:00:00Z')).toEqual([]);
  });

  it.each([
    [['--action', 'credential.steal'], /^error: --action must be one of user\.create, .*, or one of their nouns \(user, credential, /],
    [['--since', 'yesterday'], /^error: --since must be an ISO 8601 time such as 2026-11-23T09:00:00Z, or a time ago such as 30m, 24h or 7d \(got "yesterday"\)/],
    [['--since', '2026-13-45T00:00:00Z'], /^error: --since must be an ISO 8601 time/],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await cli.run(['audit', ...args]);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(message);
  });

  it('never shows a secret, a secret hash or a private key', async () => {
    expect(secretMaterial).toHaveLength(6);
    for (const output of [(await cli.run(['audit'])).stdout, (await cli.run(['audit', '--json'])).stdout]) {
      for (const material of secretMaterial) expect(output).not.toContain(material);
      expect(output).not.toMatch(/secretHash|"hash"|PRIVATE/i);
    }
  });
});

describe('results-api audit --limit: bad values', () => {
  let cli: CliSandbox;
  beforeAll(() => {
    cli = cliSandbox();
  });
  afterAll(() => cli.cleanup());

  it.each(['0', '-1', 'abc', '1.5', '1e3', '100001', ''])('refuses --limit "%s" before opening the database', async (value) => {
    const result = await cli.run(['audit', '--limit', value]);
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `error: --limit must be a whole number from 1 to 100000 (got "${value}")\n`,
    });
    expect(existsSync(cli.dbPath)).toBe(false);
  });

  it('refuses a missing value', async () => {
    const result = await cli.run(['audit', '--limit']);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^error: option '--limit <n>' argument missing$/m) });
    expect(existsSync(cli.dbPath)).toBe(false);
  });
});
