import type { KeyObject } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { rotateSigningKey } from '../../src/oauth/signing-keys.js';
import { openRuntime } from '../../src/runtime.js';
import { storeActor } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { callApi, EXPIRED_TOKEN_PROBLEM, INVALID_TOKEN_PROBLEM, introspection } from '../helpers/token-operations.js';
import { authHeaders, decodeJws, forgeToken, mintToken } from '../helpers/tokens.js';

/**
 * Signing-key rotation without downtime: new tokens carry the new kid at once, tokens signed
 * before keep working until they expire, and the JWKS publishes a retired key exactly as long
 * as a token it signed can still be valid (retiredAt + token lifetime).
 */

const START = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const TTL_MS = 3600_000;
// KeyRing's default: how stale this process's view of the keys may get.
const REFRESH_INTERVAL_MS = 10_000;

const clock = new ManualClock(START);
const { t, client } = await startSeededApp({ clock });
// Each test starts two token lifetimes after the last: every key retired before then is
// unpublished, so exactly one key (the active one) is published, as on a fresh server.
beforeEach(() => clock.advance(2 * TTL_MS));

const kidOf = (token: string): unknown => decodeJws(token).header.kid;

async function publishedKids(): Promise<string[]> {
  const res = await fetch(`${t.url}/oauth2/default/v1/keys`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid).sort();
}

async function expectAccepted(token: string): Promise<void> {
  for (const scheme of ['bearer', 'token'] as const) expect((await callApi(t, authHeaders(token, scheme))).status).toBe(200);
}

async function expectRefused(token: string): Promise<void> {
  for (const scheme of ['bearer', 'token'] as const) {
    const res = await callApi(t, authHeaders(token, scheme));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(INVALID_TOKEN_PROBLEM);
  }
}

describe('rotation in the serving process', () => {
  it('new tokens of both servers carry the new kid; tokens signed before keep working', async () => {
    const oldKid = (await t.runtime.keys.currentSigningKey()).kid;
    const before = { A: await mintToken(t, client, 'A'), B: await mintToken(t, client, 'B') };
    expect(kidOf(before.A)).toBe(oldKid);

    const newKid = await rotateSigningKey(t.runtime.store.signingKeys, clock, storeActor);
    expect(newKid).not.toBe(oldKid);

    for (const form of ['A', 'B'] as const) {
      const after = await mintToken(t, client, form);
      expect(kidOf(after)).toBe(newKid);
      await expectAccepted(after);
      await expectAccepted(before[form]);
      expect(await introspection(t, client, before[form], { form })).toMatchObject({ active: true });
    }
  });

  it('the JWKS lists both keys until retiredAt + token lifetime, then only the new one', async () => {
    const oldKid = (await t.runtime.keys.currentSigningKey()).kid;
    clock.advance(5 * 60_000);
    const retiredAt = clock.now();
    const newKid = await rotateSigningKey(t.runtime.store.signingKeys, clock, storeActor);
    expect(await publishedKids()).toEqual([oldKid, newKid].sort());

    clock.set(retiredAt + TTL_MS - 1);
    expect(await publishedKids()).toEqual([oldKid, newKid].sort());
    clock.set(retiredAt + TTL_MS);
    expect(await publishedKids()).toEqual([newKid]);
    // Both servers share the key ring.
    const custom = await fetch(`${t.url}/oauth2/${t.runtime.servers.custom.id}/v1/keys`);
    expect(((await custom.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid)).toEqual([newKid]);
  });

  it('the last token the old key signed works to its last second, which is when the key leaves the JWKS', async () => {
    clock.advance(5 * 60_000);
    const last = await mintToken(t, client);
    const retiredAt = clock.now();
    await rotateSigningKey(t.runtime.store.signingKeys, clock, storeActor);
    clock.set(retiredAt + TTL_MS - 1000);
    await expectAccepted(last);
    clock.set(retiredAt + TTL_MS);
    // Its exp and its key's retirement fall on the same second: a server that verified it before
    // (and cached that) says "expired", one that has not can no longer check it and says
    // "invalid". Either way it is refused.
    for (const scheme of ['bearer', 'token'] as const) {
      const res = await callApi(t, authHeaders(last, scheme));
      expect(res.status).toBe(401);
      expect([INVALID_TOKEN_PROBLEM, EXPIRED_TOKEN_PROBLEM]).toContainEqual(await res.json());
    }
  });

  it('a token whose kid is no longer published is refused, even freshly dated and correctly signed', async () => {
    const old = await t.runtime.keys.currentSigningKey();
    const retiredAt = clock.now();
    await rotateSigningKey(t.runtime.store.signingKeys, clock, storeActor);
    clock.set(retiredAt + TTL_MS);
    // Only the holder of the retired private key could make this: it must still be refused.
    const token = await forgeToken(t, { clientId: client.clientId, key: old.privateKey, header: { kid: old.kid } });
    await expectRefused(token);
    // The same claims signed with the current key are fine, so only the key made the difference.
    await expectAccepted(await forgeToken(t, { clientId: client.clientId }));
  });

  it('rotating twice keeps all three keys published while any of their tokens may live', async () => {
    const first = (await t.runtime.keys.currentSigningKey()).kid;
    const firstToken = await mintToken(t, client);
    clock.advance(60_000);
    const second = await rotateSigningKey(t.runtime.store.signingKeys, clock, storeActor);
    const secondToken = await mintToken(t, client);
    clock.advance(60_000);
    const third = await rotateSigningKey(t.runtime.store.signingKeys, clock, storeActor);
    expect(await publishedKids()).toEqual([first, second, third].sort());
    await expectAccepted(firstToken);
    await expectAccepted(secondToken);
    expect(kidOf(await mintToken(t, client))).toBe(third);
  });

  it('every rotation is in the audit log, with no key material', async () => {
    const kid = await rotateSigningKey(t.runtime.store.signingKeys, clock, { actor: 'cli:operator' });
    const events = await t.runtime.store.audit.list();
    expect(events.filter((e) => e.action === 'key.add' && e.subject === kid)).toEqual([
      { id: expect.any(Number), at: clock.now(), actor: 'cli:operator', action: 'key.add', subject: kid, details: {} },
    ]);
    const keys = await t.runtime.store.signingKeys.list();
    for (const key of keys) expect(JSON.stringify(events)).not.toContain(key.privateKeyPem.split('\n')[1]);
  });
});

describe('rotation by another process (the CLI) on the same database', () => {
  async function rotateElsewhere(): Promise<{ kid: string; privateKey: KeyObject }> {
    const cli = await openRuntime(t.runtime.config, { clock });
    try {
      const kid = await rotateSigningKey(cli.store.signingKeys, clock, { actor: 'cli' });
      await cli.keys.reload();
      return { kid, privateKey: cli.keys.signingKey().privateKey };
    } finally {
      await cli.close();
    }
  }

  it('a token signed with the new key is accepted by the running server (it looks the unknown kid up)', async () => {
    const before = await mintToken(t, client);
    const rotated = await rotateElsewhere();
    // The lookup of unknown kids is throttled to one a second, so made-up kids cannot flood the database.
    clock.advance(1000);
    const token = await forgeToken(t, { clientId: client.clientId, key: rotated.privateKey, header: { kid: rotated.kid } });
    await expectAccepted(token);
    await expectAccepted(before);
  });

  it('the running server signs with the new key within its refresh interval, and publishes it first', async () => {
    const oldKid = (await t.runtime.keys.currentSigningKey()).kid;
    const before = await mintToken(t, client);
    const rotated = await rotateElsewhere();

    clock.advance(REFRESH_INTERVAL_MS);
    const token = await mintToken(t, client);
    expect(kidOf(token)).toBe(rotated.kid);
    expect(await publishedKids()).toEqual([oldKid, rotated.kid].sort());
    await expectAccepted(token);
    await expectAccepted(before);
  });
});
