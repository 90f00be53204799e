/**
 * Webhook delivery end to end: events written by real imports, delivered by the worker over
 * real HTTP to a receiver that verifies each request with the standardwebhooks library; the
 * receiver down, slow, failing, gone or redirecting; visibility lost before delivery; SSRF
 * refused after resolution. On SQLite, and on PostgreSQL in the `postgres` project.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { WebhookEventType } from '../../src/store/webhook-events.js';
import type { WebhookSubscription } from '../../src/store/webhooks.js';
import { newSigningSecret } from '../../src/webhooks/signing.js';
import { startDeliveryWorker, type RunningDeliveryWorker } from '../../src/serve/start-delivery-worker.js';
import type { NameLookup } from '../../src/webhooks/target-policy.js';
import { makeSessions, seedClient, seedTest, seedWorkspace, type SeededClient } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { startReceiver, type Answer, type Received } from '../helpers/webhook-receiver.js';

const by = { actor: 'test' };
const quiet = { info: () => undefined, warn: () => undefined };

describe('webhook delivery', () => {
  const clock = new ManualClock(Date.now());
  let t: TestApp;
  let owner: SeededClient;
  let workspaceId: string;
  let testId: string;
  let secret: string;
  let answer: (r: Received) => Answer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let worker: RunningDeliveryWorker | undefined;

  const startWorker = (lookup?: NameLookup, env: 'private' | 'public' = 'private') => {
    const runtime = env === 'private' ? t.runtime : { ...t.runtime, config: { ...t.runtime.config, webhooks: { ...t.runtime.config.webhooks, allowPrivateTargets: false, allowHttp: true } } };
    worker = startDeliveryWorker(runtime, quiet, undefined, { timeoutMs: 500, pollMs: 20, ...(lookup ? { lookup } : {}) });
  };
  const subscribe = (events: WebhookEventType[] = ['session.completed'], url = receiver.url): Promise<WebhookSubscription> =>
    t.runtime.store.webhooks.create({ userId: userIdOf(owner), clientId: owner.clientId, url, events, secret }, by);
  const userIds = new Map<string, string>();
  const userIdOf = (c: SeededClient) => userIds.get(c.email)!;
  const log = (s: WebhookSubscription) => t.runtime.store.webhooks.listDeliveries(s.id, { limit: 100 });
  /** Whether the subscription's one delivery failed its first attempt and waits for the next. */
  const retried = async (s: WebhookSubscription, attempts = 1) => {
    const [d] = await log(s);
    return d?.status === 'pending' && d.attempts === attempts;
  };

  beforeEach(async () => {
    t = await startTestApp({ clock, env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' } });
    owner = await seedClient(t.runtime);
    userIds.set(owner.email, (await t.runtime.store.credentials.findUserByEmail(owner.email))!.id);
    workspaceId = await seedWorkspace(t.runtime, [owner.email]);
    testId = await seedTest(t.runtime, workspaceId, []);
    secret = newSigningSecret();
    answer = () => ({ status: 204 });
    receiver = await startReceiver(() => secret, (r) => answer(r));
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await receiver.close();
    await t.close();
  });

  it('an import of mixed statuses delivers exactly the completed sessions, each signed and verifiable, once', async () => {
    await subscribe();
    const sessions = makeSessions(12, { statuses: ['COMPLETE', 'IN_PROGRESS', 'ABANDONED'] });
    await t.runtime.store.sessions.importSessions(testId, sessions, by);
    startWorker();
    const completed = sessions.filter((s) => s.status === 'COMPLETE').map((s) => s.sessionId).sort();
    await until('every completed session delivered', () => receiver.received.length >= completed.length);
    // Imported again: nothing new happened, nothing more is sent.
    await t.runtime.store.sessions.importSessions(testId, sessions, by);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.every((r) => r.verified !== null)).toBe(true);
    expect(receiver.received.map((r) => r.verified!.data.sessionId).sort()).toEqual(completed);
    const first = receiver.received[0]!.verified!;
    expect(first).toMatchObject({ type: 'session.completed', data: { testId, workspaceId } });
    expect(Object.keys(first.data).sort()).toEqual(['links', 'sessionId', 'testId', 'workspaceId']);
    expect((first.data.links as Record<string, string>).session).toBe(`${t.runtime.config.baseUrl}/api/v3/sessionResults/${first.data.sessionId}`);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(completed.length);
  });

  it("an import's events whose expansion fails are set aside, retried beside the claims once due, logged once, and delivered once it succeeds", async () => {
    await subscribe();
    const sessions = makeSessions(3, { statuses: ['COMPLETE'] });
    await t.runtime.store.sessions.importSessions(testId, sessions, by);
    const db = t.runtime.store.database;
    const fail = db.dialect === 'sqlite'
      ? ["CREATE TRIGGER expansion_fails BEFORE INSERT ON webhook_events BEGIN SELECT RAISE(ABORT, 'disk full'); END"]
      : ["CREATE FUNCTION expansion_fails() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RAISE EXCEPTION ''disk full''; END'", 'CREATE TRIGGER expansion_fails BEFORE INSERT ON webhook_events EXECUTE FUNCTION expansion_fails()'];
    const heal = db.dialect === 'sqlite' ? ['DROP TRIGGER expansion_fails'] : ['DROP TRIGGER expansion_fails ON webhook_events', 'DROP FUNCTION expansion_fails()'];
    const runAll = (statements: string[]) => db.write(null, async (tx) => { for (const sql of statements) await tx.run(sql); });
    await runAll(fail);
    const lines: { level: string; msg: string; reason?: string }[] = [];
    const log = { info: (o: object, msg: string) => lines.push({ level: 'info', msg, ...o }), warn: (o: object, msg: string) => lines.push({ level: 'warn', msg, ...o }) };
    worker = startDeliveryWorker(t.runtime, log, undefined, { timeoutMs: 500, pollMs: 20 });
    await new Promise((r) => setTimeout(r, 300));
    expect(lines).toEqual([expect.objectContaining({ level: 'warn', msg: "webhooks: could not expand an import's events; retrying", reason: expect.stringMatching(/^pending batch \d+ \(failure 1\): .*disk full/) })]);
    expect(receiver.received).toEqual([]);
    await runAll(heal);
    // Set aside for a second (of the store's clock, which stands still here): not tried before.
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received).toEqual([]);
    clock.advance(1000);
    await until('the import delivered', () => receiver.received.length >= sessions.length);
    expect(receiver.received.map((r) => r.verified!.data.sessionId).sort()).toEqual(sessions.map((x) => x.sessionId).sort());
    expect(lines.slice(1)).toEqual([expect.objectContaining({ level: 'info', msg: "webhooks: the import's events are expanded again" })]);
  });

  it('stopped while its last request is in flight: every answered attempt is recorded (ends are recorded after their slots free)', async () => {
    const s = await subscribe();
    const sessions = makeSessions(12, { statuses: ['COMPLETE'] });
    await t.runtime.store.sessions.importSessions(testId, sessions, by);
    // Records take a while: a stop that did not wait for them would leave deliveries 'delivering'.
    const deliveries = t.runtime.store.webhookDeliveries;
    const record = deliveries.record.bind(deliveries);
    deliveries.record = async (owner, ends) => {
      await new Promise((r) => setTimeout(r, 200));
      return record(owner, ends);
    };
    // Stopped as the last request arrives, before it is answered.
    let stopped: Promise<void> | undefined;
    let arrived = 0;
    answer = () => {
      if (++arrived === sessions.length) stopped = worker!.stop();
      return { status: 204 };
    };
    startWorker();
    await until('every session received', () => stopped !== undefined);
    await stopped;
    worker = undefined;
    expect((await log(s)).map((d) => d.status)).toEqual(sessions.map(() => 'succeeded'));
  });

  it('retries a 500 with the same webhook-id, honours Retry-After, and records each attempt', async () => {
    const sub = await subscribe();
    let calls = 0;
    answer = () => (++calls === 1 ? { status: 500 } : calls === 2 ? { status: 503, headers: { 'retry-after': '120' } } : { status: 200 });
    await t.runtime.store.sessions.importSessions(testId, makeSessions(1), by);
    startWorker();
    await until('first attempt', () => calls === 1);
    await until('a retry is scheduled', () => retried(sub));
    const [afterFirst] = await log(sub);
    expect(afterFirst).toMatchObject({ responseCode: 500, lastError: 'HTTP 500' });
    // The first retry comes within 30 s.
    expect(afterFirst!.nextAttemptAt! - clock.now()).toBeLessThanOrEqual(30_000);
    clock.advance(30_000);
    await until('second attempt', () => calls === 2);
    await until('Retry-After recorded', () => retried(sub, 2));
    expect((await log(sub))[0]!.nextAttemptAt! - clock.now()).toBe(120_000);
    clock.advance(120_000);
    await until('third attempt succeeds', async () => (await log(sub))[0]!.status === 'succeeded');
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(1);
    expect(receiver.received.every((r) => r.verified !== null)).toBe(true);
    expect((await t.runtime.store.webhooks.get(sub.id))!.failingSince).toBeNull();
  });

  it('a receiver that is down or too slow fails the attempt and is retried', async () => {
    const down = await subscribe(['session.completed'], 'http://127.0.0.1:9/hooks');
    const slow = await subscribe();
    answer = () => ({ hangMs: 2000 });
    await t.runtime.store.sessions.importSessions(testId, makeSessions(1), by);
    startWorker();
    await until('both attempts recorded', async () => (await retried(down)) && (await retried(slow)));
    expect((await log(down))[0]!.lastError).toMatch(/could not connect/);
    expect((await log(slow))[0]).toMatchObject({ responseCode: null, lastError: 'no answer within 0.5 s' });
  });

  it('410 Gone disables the subscription, audited; nothing more is sent to it', async () => {
    const sub = await subscribe();
    answer = () => ({ status: 410 });
    await t.runtime.store.sessions.importSessions(testId, makeSessions(1), by);
    startWorker();
    await until('disabled', async () => (await t.runtime.store.webhooks.get(sub.id))!.disabledAt !== null);
    expect((await t.runtime.store.webhooks.get(sub.id))!.disabledReason).toBe('the receiver answered 410 Gone');
    expect((await t.runtime.store.audit.list({ action: 'webhook.disable' })).map((e) => [e.subject, e.actor])).toEqual([[sub.id, 'webhooks']]);
    await t.runtime.store.sessions.importSessions(testId, makeSessions(3, { newest: Date.UTC(2020, 0, 1) }), by);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received).toHaveLength(1);
  });

  it('three days of failures disable the subscription', async () => {
    const sub = await subscribe();
    answer = () => ({ status: 500 });
    await t.runtime.store.sessions.importSessions(testId, makeSessions(1), by);
    await t.runtime.store.database.write(null, (tx) => tx.run('UPDATE webhook_subscriptions SET failing_since = @at WHERE id = @id', { at: clock.now() - 3 * 86_400_000, id: sub.id }));
    startWorker();
    await until('disabled', async () => (await t.runtime.store.webhooks.get(sub.id))!.disabledAt !== null);
    expect((await t.runtime.store.webhooks.get(sub.id))!.disabledReason).toBe('its deliveries failed for three days');
  });

  it('a redirect is not followed', async () => {
    const target = await startReceiver(() => secret);
    const sub = await subscribe();
    answer = () => ({ status: 307, headers: { location: target.url } });
    await t.runtime.store.sessions.importSessions(testId, makeSessions(1), by);
    startWorker();
    await until('attempt recorded', () => retried(sub));
    expect((await log(sub))[0]!.lastError).toBe('HTTP 307 (redirects are not followed)');
    expect(target.received).toHaveLength(0);
    await target.close();
  });

  it('delivers nothing once the owner left the workspace, the credential is revoked or the subscription deleted', async () => {
    const left = await subscribe();
    const other = await seedClient(t.runtime);
    userIds.set(other.email, (await t.runtime.store.credentials.findUserByEmail(other.email))!.id);
    await t.runtime.store.directory.addMember(workspaceId, other.email, by);
    const revoked = await t.runtime.store.webhooks.create({ userId: userIdOf(other), clientId: other.clientId, url: receiver.url, events: ['session.completed'], secret }, by);
    const deleted = await subscribe();
    await t.runtime.store.sessions.importSessions(testId, makeSessions(2), by);
    await t.runtime.store.directory.removeMember(workspaceId, owner.email, by);
    await t.runtime.store.credentials.revokeCredential(other.clientId, by);
    await t.runtime.store.webhooks.delete(deleted.id, by);
    startWorker();
    // Two deliveries each (the import's outbox expanded by the worker), every one skipped.
    await until('every delivery settled', async () => {
      const settled = [...(await log(left)), ...(await log(revoked))];
      return settled.length === 4 && settled.every((d) => d.status === 'skipped');
    });
    expect(receiver.received).toHaveLength(0);
    expect((await log(left))[0]!.lastError).toMatch(/not visible to the subscription's owner/);
    expect((await log(revoked))[0]!.lastError).toMatch(/credential was revoked/);
  });

  it('refuses, after resolution, a name that resolves to a private address, and a private literal', async () => {
    const byName = await subscribe(['session.completed'], `http://hooks.example.test:${receiver.port}/in`);
    const byLiteral = await subscribe(['session.completed'], `http://[::ffff:127.0.0.1]:${receiver.port}/in`);
    await t.runtime.store.sessions.importSessions(testId, makeSessions(1), by);
    startWorker(async () => [{ address: '127.0.0.1', family: 4 }], 'public');
    await until('both refused', async () => (await retried(byName)) && (await retried(byLiteral)));
    expect(receiver.received).toHaveLength(0);
    expect((await log(byName))[0]!.lastError).toMatch(/^refused: hooks\.example\.test resolves to a non-public address \(127\.0\.0\.1 is a loopback address\)/);
    expect((await log(byLiteral))[0]!.lastError).toBe("refused: the url's host is not a public address (::ffff:7f00:1 is a loopback address)");
  });

  it('sends a webhook.test event on request, signed with both secrets during a rotation', async () => {
    const sub = await subscribe(['clip.generated']);
    const old = secret;
    secret = newSigningSecret();
    await t.runtime.store.webhooks.rotateSecret(sub.id, secret, 86_400_000, by);
    const eventId = await t.runtime.store.webhooks.sendTest(sub.id, by);
    startWorker();
    await until('test event received', () => receiver.received.length === 1);
    const [r] = receiver.received;
    expect(r!.id).toBe(eventId);
    expect(r!.verified).toMatchObject({ type: 'webhook.test', data: { webhookId: sub.id } });
    expect(r!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    // A receiver still holding the old secret verifies too.
    secret = old;
    const { Webhook } = await import('standardwebhooks');
    expect(() => new Webhook(old).verify(r!.body, r!.headers)).not.toThrow();
  });
});
