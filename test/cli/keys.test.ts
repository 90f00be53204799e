import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { rotateSigningKey } from '../../src/oauth/signing-keys.js';
import { openRuntime } from '../../src/runtime.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { callApi } from '../helpers/token-operations.js';
import { authHeaders, decodeJws, mintToken } from '../helpers/tokens.js';
import { cliSandbox, type CliSandbox } from './run-cli.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KID = /^[\w-]{43}$/;
const HOUR = 3600_000;

interface KeyJson {
  kid: string;
  alg: string;
  createdAt: string;
  retiredAt: string | null;
  state: 'active' | 'published' | 'expired';
  publishedUntil: string | null;
}
type RotatedJson = KeyJson & { previous: KeyJson | null };

const plus = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

/** The private keys as stored, to prove no output carries any part of them. */
async function privateKeyBodies(cli: CliSandbox): Promise<string[]> {
  const rt = await openRuntime(loadConfig({ DATABASE_URL: cli.databaseUrl, LOG_LEVEL: 'silent' }));
  try {
    return (await rt.store.signingKeys.list()).map((k) => k.privateKeyPem.split('\n')[1]!);
  } finally {
    await rt.close();
  }
}

function expectNoPrivateKey(output: string, bodies: string[]): void {
  expect(output).not.toMatch(/PRIVATE|privateKey/i);
  for (const body of bodies) expect(output).not.toContain(body);
}

describe('results-api keys', () => {
  let cli: CliSandbox;
  beforeAll(() => {
    cli = cliSandbox();
  });
  afterAll(() => cli.cleanup());

  it('keys list on a new database shows its one active key', async () => {
    const human = await cli.run(['keys', 'list']);
    expect(human.code).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^KID\s+ALG\s+CREATED\s+RETIRED\s+STATE$/);
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^[\w-]{43} {2}RS256 {2}\S+Z {2}-\s+active$/)]);

    const keys = await cli.json<KeyJson[]>(['keys', 'list']);
    expect(keys).toEqual([
      { kid: expect.stringMatching(KID), alg: 'RS256', createdAt: expect.stringMatching(ISO), retiredAt: null, state: 'active', publishedUntil: null },
    ]);
  });

  it('keys rotate prints the new kid and until when the previous key stays published', async () => {
    const [before] = await cli.json<KeyJson[]>(['keys', 'list']);
    const result = await cli.run(['keys', 'rotate']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const [now, previous] = await cli.json<KeyJson[]>(['keys', 'list']);
    expect(previous!.kid).toBe(before!.kid);
    expect(result.stdout).toBe(
      [
        `Rotated the signing key: new tokens are signed with ${now!.kid}.`,
        `The previous key ${before!.kid} stays published until ${plus(previous!.retiredAt!, HOUR)}, when every token it signed has expired.`,
        'Running servers sign with it from their next token request (at most 10 seconds later); tokens signed before keep working until they expire.',
        '',
      ].join('\n'),
    );
  });

  it('keys rotate --json describes the new key and the one it retired', async () => {
    const [before] = await cli.json<KeyJson[]>(['keys', 'list']);
    const rotated = await cli.json<RotatedJson>(['keys', 'rotate']);
    expect(rotated).toEqual({
      kid: expect.stringMatching(KID),
      alg: 'RS256',
      createdAt: expect.stringMatching(ISO),
      retiredAt: null,
      state: 'active',
      publishedUntil: null,
      previous: { ...before, retiredAt: rotated.createdAt, state: 'published', publishedUntil: plus(rotated.createdAt, HOUR) },
    });
    expect(rotated.kid).not.toBe(before!.kid);
  });

  it('keys list: newest first, one active, the retired ones published until retiredAt + TOKEN_TTL_SECONDS', async () => {
    const keys = await cli.json<KeyJson[]>(['keys', 'list']);
    expect(keys.map((k) => k.state)).toEqual(['active', 'published', 'published']);
    expect(keys[1]!.retiredAt).toBe(keys[0]!.createdAt);
    expect(keys[2]!.retiredAt).toBe(keys[1]!.createdAt);
    for (const key of keys.slice(1)) expect(key.publishedUntil).toBe(plus(key.retiredAt!, HOUR));

    // The state follows the configured token lifetime, as the server's JWKS does.
    const shortLived = await cli.json<KeyJson[]>(['keys', 'list'], { TOKEN_TTL_SECONDS: '600' });
    for (const key of shortLived.slice(1)) expect(key.publishedUntil).toBe(plus(key.retiredAt!, 600_000));

    const human = (await cli.run(['keys', 'list'])).stdout.trimEnd().split('\n').slice(1);
    expect(human.map((line) => line.split(/\s{2,}/).at(-1))).toEqual([
      'active',
      `published until ${keys[1]!.publishedUntil}`,
      `published until ${keys[2]!.publishedUntil}`,
    ]);
  });

  it('never prints a private key', async () => {
    const bodies = await privateKeyBodies(cli);
    expect(bodies).toHaveLength(3);
    for (const args of [['keys', 'list'], ['keys', 'list', '--json'], ['keys', 'rotate'], ['keys', 'rotate', '--json']]) {
      expectNoPrivateKey((await cli.run(args)).stdout, [...bodies, ...(await privateKeyBodies(cli))]);
    }
  });

  it('refuses stray arguments and changes nothing', async () => {
    const before = await cli.json<KeyJson[]>(['keys', 'list']);
    const result = await cli.run(['keys', 'rotate', 'now']);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^error: too many arguments for 'rotate'/) });
    expect(await cli.json<KeyJson[]>(['keys', 'list'])).toEqual(before);
  });
});

describe('results-api keys list: a key retired longer than a token lifetime ago', () => {
  let cli: CliSandbox;
  let kids: { first: string; second: string };
  beforeAll(async () => {
    cli = cliSandbox();
    // Keys made two and three hours ago, by a runtime whose clock says so.
    const clock = new ManualClock(Date.now() - 3 * HOUR);
    const rt = await openRuntime(loadConfig({ DATABASE_URL: cli.databaseUrl, LOG_LEVEL: 'silent' }), { clock });
    try {
      const first = rt.keys.signingKey().kid;
      clock.advance(HOUR);
      kids = { first, second: await rotateSigningKey(rt.store.signingKeys, clock, { actor: 'test' }) };
    } finally {
      await rt.close();
    }
  });
  afterAll(() => cli.cleanup());

  it('is expired with the default one-hour tokens, published with day-long ones', async () => {
    const hourly = await cli.json<KeyJson[]>(['keys', 'list']);
    expect(hourly.map((k) => [k.kid, k.state])).toEqual([
      [kids.second, 'active'],
      [kids.first, 'expired'],
    ]);
    expect((await cli.run(['keys', 'list'])).stdout.trimEnd().split('\n')[2]).toMatch(/\s{2}expired$/);

    const daily = await cli.json<KeyJson[]>(['keys', 'list'], { TOKEN_TTL_SECONDS: '86400' });
    expect(daily[1]).toMatchObject({ kid: kids.first, state: 'published', publishedUntil: plus(daily[1]!.retiredAt!, 24 * HOUR) });
  });
});

describe('results-api keys rotate while the server runs on the same database', () => {
  let cli: CliSandbox;
  let t: TestApp;
  let client: { clientId: string; clientSecret: string };
  beforeAll(async () => {
    cli = cliSandbox();
    t = await startTestApp({ env: { DATABASE_URL: cli.databaseUrl } });
    await cli.json(['users', 'create', '--email', 'ada@example.com']);
    client = await cli.json(['credentials', 'issue', '--email', 'ada@example.com']);
  });
  afterAll(async () => {
    await t?.close();
    cli.cleanup();
  });

  const kidOf = (token: string): unknown => decodeJws(token).header.kid;

  async function publishedKids(): Promise<string[]> {
    const res = await fetch(`${t.url}/oauth2/default/v1/keys`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid).sort();
  }

  it('the next token carries the new kid; tokens signed before keep working; both keys are published', async () => {
    const before = await mintToken(t, client);
    const oldKid = kidOf(before) as string;

    const rotated = await cli.json<RotatedJson>(['keys', 'rotate']);
    expect(rotated.previous?.kid).toBe(oldKid);

    const after = await mintToken(t, client);
    expect(kidOf(after)).toBe(rotated.kid);
    for (const token of [before, after]) expect((await callApi(t, authHeaders(token))).status).toBe(200);
    expect(await publishedKids()).toEqual([oldKid, rotated.kid].sort());

    const keys = await cli.json<KeyJson[]>(['keys', 'list']);
    expect(keys.map((k) => [k.kid, k.state])).toEqual([
      [rotated.kid, 'active'],
      [oldKid, 'published'],
    ]);
  });
});
