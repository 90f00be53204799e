import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { generateClientSecret } from '../../src/oauth/client-secrets.js';
import { openRuntime } from '../../src/runtime.js';
import { seedClient, storeActor, type SeededClient } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { callApi, INVALID_CLIENT, INVALID_TOKEN_PROBLEM } from '../helpers/token-operations.js';
import { authHeaders, mintToken, requestToken, type ClientAuth } from '../helpers/tokens.js';

/**
 * Client-secret rotation: a second secret for the same client id, both working until the
 * old one's grace period ends; and credential revocation, which ends the client's live
 * tokens on the next API request.
 */

const START = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const GRACE_MS = 86_400_000;
const clock = new ManualClock(START);
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock });
});
afterAll(() => t.close());
afterEach(() => clock.set(START));

/** What `credentials rotate` does: a new secret; the others retire after the grace period. */
async function rotateSecret(client: SeededClient, graceMs = GRACE_MS): Promise<SeededClient> {
  const clientSecret = generateClientSecret();
  await t.runtime.store.credentials.addCredentialSecret(
    { clientId: client.clientId, secretHash: t.runtime.hasher.hash(clientSecret), retireOthersAt: clock.now() + graceMs },
    storeActor,
  );
  return { ...client, clientSecret };
}

async function expectTokenGranted(client: SeededClient, auth: ClientAuth = 'post'): Promise<void> {
  const res = await requestToken(t, client, { auth });
  expect(res.status).toBe(200);
}

async function expectInvalidClient(client: SeededClient, auth: ClientAuth = 'post'): Promise<void> {
  const res = await requestToken(t, client, { auth });
  expect(res.status).toBe(401);
  expect(await res.json()).toEqual(INVALID_CLIENT);
}

describe('secret rotation', () => {
  it.each(['post', 'basic'] as const)('both secrets mint tokens during the grace period (%s)', async (auth) => {
    const old = await seedClient(t.runtime);
    const rotated = await rotateSecret(old);
    expect(rotated.clientId).toBe(old.clientId);
    await expectTokenGranted(old, auth);
    await expectTokenGranted(rotated, auth);
    clock.advance(GRACE_MS - 1);
    await expectTokenGranted(old, auth);
  });

  it('after the grace period the old secret is invalid_client, the new one works', async () => {
    const old = await seedClient(t.runtime);
    const rotated = await rotateSecret(old);
    clock.advance(GRACE_MS);
    await expectInvalidClient(old, 'post');
    await expectInvalidClient(old, 'basic');
    await expectTokenGranted(rotated);
  });

  it('tokens minted with the old secret live out their own lifetime: retiring a secret is not revoking', async () => {
    const old = await seedClient(t.runtime);
    const rotated = await rotateSecret(old, 60_000);
    const token = await mintToken(t, old);
    clock.advance(60_000);
    await expectInvalidClient(old);
    expect((await callApi(t, authHeaders(token))).status).toBe(200);
    expect((await callApi(t, authHeaders(await mintToken(t, rotated)))).status).toBe(200);
  });

  it('a grace period of zero retires the old secret at once (the explicit retirement)', async () => {
    const old = await seedClient(t.runtime);
    const rotated = await rotateSecret(old, 0);
    await expectInvalidClient(old);
    await expectTokenGranted(rotated);
  });

  it('a promised grace period is kept: rotating again while it runs is refused, and both secrets keep working', async () => {
    const first = await seedClient(t.runtime);
    const second = await rotateSecret(first);
    await expect(rotateSecret(second)).rejects.toMatchObject({ code: 'secret_in_grace' });
    await expectTokenGranted(first);
    await expectTokenGranted(second);
    clock.advance(GRACE_MS);
    await expectInvalidClient(first);
    const third = await rotateSecret(second);
    await expectTokenGranted(second);
    await expectTokenGranted(third);
  });

  it('the audit log records the rotation without the secret or its hash', async () => {
    const old = await seedClient(t.runtime);
    const rotated = await rotateSecret(old);
    const events = (await t.runtime.store.audit.list()).filter((e) => e.subject === old.clientId);
    expect(events.map((e) => e.action)).toEqual(['credential.issue', 'credential.rotate']);
    const text = JSON.stringify(events);
    for (const secret of [old.clientSecret, rotated.clientSecret]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(t.runtime.hasher.hash(secret));
    }
  });

  it('a revoked credential cannot be given a new secret', async () => {
    const client = await seedClient(t.runtime);
    await t.runtime.store.credentials.revokeCredential(client.clientId, storeActor);
    await expect(rotateSecret(client)).rejects.toMatchObject({ code: 'revoked' });
  });
});

describe('credential revocation', () => {
  it('rejects the live tokens of both servers on the next request, and every secret', async () => {
    const client = await seedClient(t.runtime);
    const rotated = await rotateSecret(client);
    const other = await seedClient(t.runtime);
    const tokens = [await mintToken(t, client, 'A'), await mintToken(t, rotated, 'B')];
    const otherToken = await mintToken(t, other);
    for (const token of tokens) expect((await callApi(t, authHeaders(token))).status).toBe(200);

    await t.runtime.store.credentials.revokeCredential(client.clientId, storeActor);

    for (const token of tokens) {
      for (const scheme of ['bearer', 'token'] as const) {
        const res = await callApi(t, authHeaders(token, scheme));
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
        expect(await res.json()).toEqual(INVALID_TOKEN_PROBLEM);
      }
    }
    await expectInvalidClient(client);
    await expectInvalidClient(rotated, 'basic');
    expect((await callApi(t, authHeaders(otherToken))).status).toBe(200);
  });

  it('a revocation by another process (the CLI, same database) holds on the next request', async () => {
    const client = await seedClient(t.runtime);
    const token = await mintToken(t, client);
    expect((await callApi(t, authHeaders(token))).status).toBe(200);
    const cli = await openRuntime(t.runtime.config, { clock });
    try {
      await cli.store.credentials.revokeCredential(client.clientId, { actor: 'cli' });
    } finally {
      await cli.close();
    }
    expect((await callApi(t, authHeaders(token))).status).toBe(401);
    await expectInvalidClient(client);
  });

  it("disabling the user suspends the client's tokens and secrets on the next request", async () => {
    const client = await seedClient(t.runtime);
    const token = await mintToken(t, client);
    await t.runtime.store.credentials.setUserStatus(client.email, 'disabled', storeActor);
    expect((await callApi(t, authHeaders(token))).status).toBe(401);
    await expectInvalidClient(client);
  });
});
