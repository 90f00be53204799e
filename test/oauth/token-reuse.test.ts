import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { rotateSigningKey } from '../../src/oauth/signing-keys.js';
import { seedClient, storeActor, type SeededClient } from '../helpers/seed.js';
import { startSeededApp, startTestApp, type TestApp } from '../helpers/test-app.js';
import { revoke } from '../helpers/token-operations.js';
import { decodeJws, requestToken, type TokenForm } from '../helpers/tokens.js';

/**
 * TOKEN_REUSE_SECONDS: a client asking again soon is handed the token it was just issued, as
 * long as that token is young, signed by the current key and not revoked; otherwise a new one.
 */

const START = Date.UTC(2026, 0, 1, 12, 0, 0, 0);

interface Issued {
  jti: string;
  kid: string;
  expiresIn: number;
  accessToken: string;
}

async function issue(t: TestApp, client: SeededClient, form: TokenForm = 'B'): Promise<Issued> {
  const res = await requestToken(t, client, { form });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { access_token: string; expires_in: number };
  const { header, payload } = decodeJws(body.access_token);
  return { jti: payload.jti as string, kid: header.kid as string, expiresIn: body.expires_in, accessToken: body.access_token };
}

const metric = async (t: TestApp, name: string): Promise<number> => {
  const text = await (await fetch(t.metricsUrl)).text();
  return Number(new RegExp(`^${name}\\{server="custom"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
};

describe('token reuse (TOKEN_REUSE_SECONDS=30, the default; lifetime 3600 s)', async () => {
  const clock = new ManualClock(START);
  const { t, client } = await startSeededApp({ clock });
  afterEach(() => clock.advance(60_000)); // every test starts with no recent token

  it('a request within the window gets the same token, with expires_in counting down', async () => {
    const signedBefore = await metric(t, 'oauth_tokens_issued_total');
    const reusedBefore = await metric(t, 'oauth_tokens_reused_total');
    const first = await issue(t, client);
    expect(first.expiresIn).toBe(3600);
    clock.advance(29_000);
    const again = await issue(t, client);
    expect(again.accessToken).toBe(first.accessToken);
    expect(again.expiresIn).toBe(3600 - 29);
    expect(await metric(t, 'oauth_tokens_issued_total')).toBe(signedBefore + 1);
    expect(await metric(t, 'oauth_tokens_reused_total')).toBe(reusedBefore + 1);
  });

  it('once the window has passed, a new token is signed', async () => {
    const first = await issue(t, client);
    clock.advance(30_000);
    const next = await issue(t, client);
    expect(next.jti).not.toBe(first.jti);
    expect(next.expiresIn).toBe(3600);
  });

  it('concurrent requests share one signature', async () => {
    const tokens = await Promise.all(Array.from({ length: 8 }, () => issue(t, client)));
    expect(new Set(tokens.map((token) => token.jti)).size).toBe(1);
  });

  it('each authorization server and each client has its own token', async () => {
    const other = await seedClient(t.runtime);
    const b = await issue(t, client, 'B');
    const a = await issue(t, client, 'A');
    const otherB = await issue(t, other, 'B');
    expect(new Set([a.jti, b.jti, otherB.jti]).size).toBe(3);
    expect(decodeJws(otherB.accessToken).payload.client_id).toBe(other.clientId);
  });

  it('a revoked token is never handed out again', async () => {
    const first = await issue(t, client);
    expect((await revoke(t, client, first.accessToken)).status).toBe(200);
    const next = await issue(t, client);
    expect(next.jti).not.toBe(first.jti);
  });

  it('after a key rotation, the next token is signed by the new key', async () => {
    const first = await issue(t, client);
    const newKid = await rotateSigningKey(t.runtime.store.signingKeys, clock, storeActor);
    const next = await issue(t, client);
    expect(first.kid).not.toBe(newKid);
    expect(next.kid).toBe(newKid);
  });
});

describe('the reuse window', () => {
  it('is at most a tenth of the token lifetime (expires_in stays >= 90% of it)', async () => {
    const clock = new ManualClock(START);
    const t = await startTestApp({ clock, env: { TOKEN_TTL_SECONDS: '100', TOKEN_REUSE_SECONDS: '30' } });
    try {
      const client = await seedClient(t.runtime);
      const first = await issue(t, client);
      clock.advance(9_000);
      expect((await issue(t, client)).jti).toBe(first.jti);
      clock.advance(1_000);
      expect((await issue(t, client)).jti).not.toBe(first.jti);
    } finally {
      await t.close();
    }
  });

  it('TOKEN_REUSE_SECONDS=0 signs every request', async () => {
    const t = await startTestApp({ clock: new ManualClock(START), env: { TOKEN_REUSE_SECONDS: '0' } });
    try {
      const client = await seedClient(t.runtime);
      const first = await issue(t, client);
      expect((await issue(t, client)).jti).not.toBe(first.jti);
    } finally {
      await t.close();
    }
  });
});

describe('a freshly signed token', () => {
  /** A clock that moves on 400 ms each time it is read, so signing a token crosses a second. */
  class TickingClock extends ManualClock {
    override now(): number {
      this.advance(400);
      return super.now();
    }
  }

  it('answers its whole lifetime as expires_in, even when a second passed while it was signed', async () => {
    const t = await startTestApp({ clock: new TickingClock(START), env: { TOKEN_REUSE_SECONDS: '0' } });
    try {
      const client = await seedClient(t.runtime);
      for (let i = 0; i < 3; i++) expect((await issue(t, client)).expiresIn).toBe(3600);
    } finally {
      await t.close();
    }
  });
});
