/**
 * At-least-once delivery across crashes, with real server processes on PostgreSQL: a server
 * SIGKILLed right after an import commits (its events not yet sent), and one SIGKILLed while
 * its requests are in flight. Two other servers then deliver everything: no event is lost, and
 * a repeat carries the same webhook-id. Every request is verified with standardwebhooks.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { newSigningSecret } from '../../src/webhooks/signing.js';
import { describeIfPostgres, freshPostgresSchema } from '../helpers/postgres.js';
import { makeSessions, seed, type Seeded } from '../helpers/seed.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { until } from '../helpers/until.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const by = { actor: 'test' };

await describeIfPostgres('webhook delivery survives SIGKILL (PostgreSQL, two processes)', () => {
  let schema: Awaited<ReturnType<typeof freshPostgresSchema>>;
  let runtime: Runtime;
  let s: Seeded;
  const secret = newSigningSecret();
  // Each request waits a little before its answer, so a kill finds some in flight.
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const servers: ServerProcess[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    schema = await freshPostgresSchema('t_hook_kill');
    env = { DATABASE_URL: schema!.url, WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_LEASE_SECONDS: '2', JOB_CONCURRENCY: '0' };
    runtime = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    s = await seed(runtime);
    receiver = await startReceiver(() => secret, () => ({ hangMs: 150 }));
    const user = (await runtime.store.credentials.findUserByEmail(s.email))!;
    await runtime.store.webhooks.create({ userId: user.id, clientId: s.clientId, url: receiver.url, events: ['session.completed'], secret }, by);
  });
  afterAll(async () => {
    await Promise.all(servers.map((p) => p.stop('SIGKILL')));
    await receiver?.close();
    await runtime?.close();
    await schema?.drop();
  });

  const start = async () => {
    const server = await startServerProcess(env);
    servers.push(server);
    return server;
  };
  /** The event ids of every session.completed the outbox holds. */
  const eventIds = async () =>
    (await runtime.store.database.all<{ id: string }>("SELECT id FROM webhook_events WHERE type = 'session.completed'")).map((r) => r.id).sort();
  const allSucceeded = async () => {
    // The import's outbox is expanded into deliveries first (its batches gone).
    if (await runtime.store.webhookBatches.waiting()) return false;
    const counts = await runtime.store.webhookDeliveries.countByStatus();
    return Object.keys(counts).every((status) => status === 'succeeded');
  };

  it.each([
    ['between the commit and any delivery', 0],
    ['with deliveries in flight', 1],
  ])('a server killed %s: two others deliver every event, repeats with the same id', { timeout: 120_000 }, async (_when, inFlight) => {
    const victim = await start();
    const before = receiver.received.length;
    const sessions = makeSessions(40, { newest: Date.UTC(2026, inFlight, 1) });
    await runtime.store.sessions.importSessions(s.testId, sessions, by);
    if (inFlight) await until('requests in flight', () => receiver.received.length > before);
    await victim.stop('SIGKILL');
    servers.splice(servers.indexOf(victim), 1);

    await Promise.all([start(), start()]);
    await until('every delivery succeeded', allSucceeded, 60_000);
    // Every event of the outbox arrived (this import's and the earlier ones), and nothing else.
    const expected = await eventIds();
    expect(expected).toHaveLength(40 * (inFlight + 1));
    expect(receiver.received.every((r) => r.verified !== null)).toBe(true);
    expect([...new Set(receiver.received.map((r) => r.id))].sort()).toEqual(expected);
    // The requests in flight when it died were never recorded: they were sent again.
    if (inFlight) expect(receiver.received.length).toBeGreaterThan(expected.length);
    // A repeat is the same event: same id, same body.
    const bodies = new Map<string, string>();
    for (const r of receiver.received) {
      expect(bodies.get(r.id) ?? r.body).toBe(r.body);
      bodies.set(r.id, r.body);
    }
    await Promise.all(servers.splice(0).map((p) => p.stop('SIGTERM')));
  });
});
