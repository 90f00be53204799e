import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { AdminSession, PASSWORD, signedInAdmin, startAdminTestApp } from '../helpers/admin-app.js';
import { capturedLogger } from '../helpers/captured-logs.js';
import { requireRedis } from '../helpers/redis.js';
import { startSeededApp } from '../helpers/test-app.js';
import { introspect } from '../helpers/token-operations.js';
import { requestToken } from '../helpers/tokens.js';

/**
 * Issue 30 item 3: a stranger cannot lock an owner out. Both attacks the red team ran, each a
 * test that fails if the owner is refused: wrong admin passwords from other addresses, and
 * 60 wrong client secrets from each of 30 addresses. The attacker's own address is throttled;
 * the guessing is reported (metric, audit entry, one log line), never answered with a lock.
 */

/** A source address as a trusted proxy (TRUST_PROXY=true) reports it; random, so runs sharing Redis never meet. */
const randomAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (address: string) => ({ 'x-forwarded-for': address });
const alertsIn = (metrics: string, endpoint: string) =>
  Number(new RegExp(`^auth_guessing_alerts_total\\{endpoint="${endpoint}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
const guessingLines = (lines: string[]) => lines.filter((line) => line.includes('distributed guessing'));

const redisUrl = await requireRedis();
const limiters = [
  { limiter: 'in memory', env: {} as Record<string, string> },
  ...(redisUrl ? [{ limiter: 'in Redis', env: { REDIS_URL: redisUrl } }] : []),
];

// The start of the next window in real time: Redis keys expire at their window's end in real
// time, so they live through the test however long it takes (within one window).
const alignedClock = (windowSeconds: number) => new ManualClock(Math.ceil(Date.now() / (windowSeconds * 1000)) * windowSeconds * 1000);

describe.each(limiters)('token endpoint: 60 wrong secrets from each of 30 addresses (defaults; counters $limiter)', async ({ env }) => {
  const windowSeconds = 3600;
  const { logger, lines } = capturedLogger();
  const { t, client } = await startSeededApp({
    clock: alignedClock(windowSeconds),
    logger,
    env: { ...env, TRUST_PROXY: 'true', RATE_LIMIT_WINDOW_SECONDS: String(windowSeconds) },
  });
  const attackers = Array.from({ length: 30 }, randomAddress);

  it('the owner\'s correct secret is then answered from any address, the attackers\' included; a guess from theirs is 429', async () => {
    const guess = { clientId: client.clientId, clientSecret: 'guess' };
    const guessFrom = async (address: string) => {
      const seen: number[] = [];
      for (let i = 0; i < 60; i++) seen.push((await requestToken(t, guess, { headers: from(address), auth: i % 2 ? 'basic' : 'post' })).status);
      return seen;
    };
    // Six addresses at a time: all thirty at once can hold a Redis command past its 500 ms bound
    // on a loaded machine, and the limiter then counts locally (an outage), not what is tested here.
    const statuses: number[][] = [];
    for (let from6 = 0; from6 < attackers.length; from6 += 6) statuses.push(...(await Promise.all(attackers.slice(from6, from6 + 6).map(guessFrom))));
    expect(new Set(statuses.flat())).toEqual(new Set([401]));

    const owner = await requestToken(t, client, { headers: from(randomAddress()) });
    expect(owner.status).toBe(200);
    const token = ((await owner.json()) as { access_token: string }).access_token;
    for (const address of attackers.slice(0, 3)) {
      expect((await requestToken(t, client, { headers: from(address), auth: 'basic' })).status).toBe(200);
      expect((await introspect(t, client, token, { headers: from(address) })).status).toBe(200);
    }

    const throttled = await requestToken(t, guess, { headers: from(attackers[0]!) });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await throttled.json()).toEqual({ error: 'slow_down', error_description: 'Too many requests to the authorization server; retry later.' });
  });

  it('the 1,800 failures reached the alert threshold (1,200) once: one metric increment, one audit entry, one log line', async () => {
    expect(alertsIn(await (await fetch(t.metricsUrl)).text(), 'token')).toBe(1);
    const entries = await t.runtime.store.audit.list({ action: 'guessing.alert' });
    expect(entries.map((e) => ({ actor: e.actor, subject: e.subject, details: e.details }))).toEqual([
      { actor: 'system', subject: client.clientId, details: { endpoint: 'token', failures: 1200, windowSeconds } },
    ]);
    const logged = guessingLines(lines);
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({ level: 40, guessing: { endpoint: 'token', account: client.clientId, failures: 1200 } });
    expect(logged[0]).not.toContain(client.clientSecret);
  });
});

describe('token endpoint: guessing at unknown client ids is throttled by address, never reported', async () => {
  const { logger, lines } = capturedLogger();
  const { t } = await startSeededApp({ logger, env: { TRUST_PROXY: 'true', RATE_LIMIT_TOKEN_CLIENT: '2', GUESSING_ALERT_TOKEN_CLIENT: '2' } });

  it('an unknown id draws no alert however often it is guessed', async () => {
    const unknown = { clientId: '0oaUNKNOWNunknown0001', clientSecret: 'guess' };
    for (let i = 0; i < 4; i++) await requestToken(t, unknown, { headers: from(randomAddress()) });
    expect(guessingLines(lines)).toEqual([]);
    expect(await t.runtime.store.audit.list({ action: 'guessing.alert' })).toEqual([]);
  });
});

describe.each(limiters)('admin sign-in: wrong passwords from other addresses (counters $limiter)', async ({ env }) => {
  const clock = alignedClock(15 * 60);
  const { logger, lines } = capturedLogger();
  // Alerts at 10 failures, so the test hashes a handful of passwords, not dozens.
  const app = await startAdminTestApp({ clock, logger, env: { ...env, TRUST_PROXY: 'true', ADMIN_SIGN_IN_GUESSING_ALERT: '10' } });
  const signIn = (session: AdminSession, address: string, email: string, password = PASSWORD) =>
    session.request('POST', '/admin/api/sign-in', { email, password }, { headers: from(address) });
  /** A browser that holds only the owner's device cookie (no session). */
  const ownersDevice = (owner: AdminSession) => {
    const browser = new AdminSession(app.adminUrl);
    browser.cookies.set('admin_device', owner.cookies.get('admin_device')!);
    return browser;
  };

  const owner = await signedInAdmin(app, 'support');
  const attackers = [randomAddress(), randomAddress()];

  it('5 wrong passwords from each of 2 addresses: the owner signs in from a fresh address, with or without the device cookie', async () => {
    for (const address of attackers) {
      for (let i = 0; i < 5; i++) expect((await signIn(new AdminSession(app.adminUrl), address, owner.email, `wrong password ${i}`)).status).toBe(401);
    }
    expect((await signIn(new AdminSession(app.adminUrl), randomAddress(), owner.email)).status).toBe(200);
    const withDevice = await signIn(ownersDevice(owner), randomAddress(), owner.email);
    expect(withDevice.status).toBe(200);
    expect(withDevice.headers.getSetCookie()[1]).toMatch(/^admin_device=[A-Za-z0-9_-]{22}\.\d+\.[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Strict$/);
  });

  it('the attacker\'s address is refused, the right password too, unless it comes from the owner\'s known device', async () => {
    const [attacker] = attackers;
    const refused = await signIn(new AdminSession(app.adminUrl), attacker!, owner.email);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signIn(ownersDevice(owner), attacker!, owner.email)).status).toBe(200);

    // A device cookie is the account's own: another account's, or a forged one, counts for nothing.
    const other = await signedInAdmin(app, 'support');
    expect((await signIn(ownersDevice(other), attacker!, owner.email)).status).toBe(429);
    const forged = new AdminSession(app.adminUrl);
    const [id, expires] = owner.cookies.get('admin_device')!.split('.');
    forged.cookies.set('admin_device', `${id}.${expires}.${'A'.repeat(43)}`);
    expect((await signIn(forged, attacker!, owner.email)).status).toBe(429);
  });

  it('a known device has a failure budget of its own: a stolen device cookie buys 5 guesses, then 429', async () => {
    const stolen = ownersDevice(owner);
    const address = randomAddress();
    for (let i = 0; i < 5; i++) expect((await signIn(stolen, address, owner.email, `wrong password ${i}`)).status).toBe(401);
    expect((await signIn(stolen, address, owner.email)).status).toBe(429);
    // Not a lock: the owner's own sign-in elsewhere still works.
    expect((await signIn(new AdminSession(app.adminUrl), randomAddress(), owner.email)).status).toBe(200);
  });

  it('the distributed guessing was reported once: metric, audit entry, one log line', async () => {
    expect(alertsIn(await app.metrics.registry.metrics(), 'admin-sign-in')).toBe(1);
    const entries = await app.t.runtime.store.audit.list({ action: 'guessing.alert', subject: owner.email });
    expect(entries.map((e) => e.details)).toEqual([{ endpoint: 'admin-sign-in', failures: 10, windowSeconds: 900 }]);
    const logged = guessingLines(lines);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(owner.email);
    expect(logged[0]).not.toContain('wrong password');
  });
});
