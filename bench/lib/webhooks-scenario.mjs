/**
 * The `webhooks.delivery` scenario (issue 35), on SQLite (or `pg.webhooks.delivery`, the same on
 * the PostgreSQL schema of `databaseUrl`):
 *
 * - delivery: N completed sessions imported into a test with one subscription (an outbox of N
 *   session.completed events, as batches the server expands), then `results-api serve` started
 *   and timed, from the moment it listens, until every delivery succeeded at a local receiver
 *   (a plain node:http server answering 204 after reading the body): events per second. The plain
 *   alternative on the same machine: the same N bodies POSTed by this process with undici at
 *   the worker's concurrency over keep-alive, nothing signed, read or recorded (the ceiling the
 *   receiver and HTTP allow).
 * - import: `SessionRepository.importSessions` of M completed sessions into a fresh test, with
 *   no subscription and with one (whose outbox batches are written in the import's transaction),
 *   interleaved, median of four each. Each import is slower than the one before (the database
 *   grows), so the two take turns going first.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { startServer } from './servers.mjs';
import { cpuSeconds, cpuSecondsBetween, stop } from './processes.mjs';

const by = { actor: 'bench' };
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function completedSessions(count, offset = 0) {
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, i) => ({
    sessionId: randomUUID(),
    audienceId: null,
    status: 'COMPLETE',
    startTime: start + (offset + i) * 1000,
    finishTime: start + (offset + i) * 1000 + 500,
  }));
}

async function startReceiver() {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/hooks`, received: () => received, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

async function seedOwner(runtime, name) {
  const email = `${name}@bench.example.com`;
  const user = await runtime.store.credentials.createUser(email, by);
  const clientId = `0oa${randomUUID().replace(/-/g, '').slice(0, 17)}`;
  await runtime.store.credentials.createCredential({ clientId, email, secretHash: 'bench' }, by);
  const workspace = await runtime.store.directory.createWorkspace({ id: randomUUID(), name }, by);
  await runtime.store.directory.addMember(workspace.id, email, by);
  return { userId: user.id, clientId, workspaceId: workspace.id };
}

async function newTest(runtime, workspaceId) {
  const testId = randomUUID();
  await runtime.store.directory.createTest({ id: testId, workspaceId, title: 'Bench', productType: 'SURVEY' }, by);
  return testId;
}

export async function runWebhooksBench({ cli, cwd, work, logLevel, events, importSessions, concurrency, log, databaseUrl: pgUrl, nodeArgs = [] }) {
  const { loadConfig } = await import('../../dist/config.js');
  const { openRuntime } = await import('../../dist/runtime.js');
  const { newSigningSecret } = await import('../../dist/webhooks/signing.js');
  const dir = join(work, pgUrl ? 'pg-webhooks' : 'webhooks');
  mkdirSync(dir, { recursive: true });
  const databaseUrl = pgUrl ?? `sqlite:${join(dir, 'results.db')}`;
  const engine = pgUrl ? 'PostgreSQL' : 'SQLite';
  const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_CONCURRENCY: String(concurrency), JOB_CONCURRENCY: '0' };
  const runtime = await openRuntime(loadConfig(env));
  const receiver = await startReceiver();
  try {
    // --- import cost, without and with a subscription (interleaved) ---
    const owner = await seedOwner(runtime, 'importer');
    const without = [];
    const withSubscription = [];
    const cpuWithout = [];
    const cpuWith = [];
    const watched = await seedOwner(runtime, 'watched');
    await runtime.store.webhooks.create({ userId: watched.userId, clientId: watched.clientId, url: receiver.url, events: ['session.completed'], workspaceId: watched.workspaceId, secret: newSigningSecret() }, by);
    for (let round = 0; round < 4; round++) {
      const pair = [[owner.workspaceId, without, cpuWithout], [watched.workspaceId, withSubscription, cpuWith]];
      for (const [ws, into, cpuInto] of round % 2 ? pair.reverse() : pair) {
        const testId = await newTest(runtime, ws);
        const sessions = completedSessions(importSessions);
        const cpuBefore = process.cpuUsage();
        const started = performance.now();
        await runtime.store.sessions.importSessions(testId, sessions, by);
        into.push(performance.now() - started);
        const cpu = process.cpuUsage(cpuBefore);
        cpuInto.push((cpu.user + cpu.system) / importSessions);
      }
    }
    const importMs = { without: median(without), withSubscription: median(withSubscription) };
    const importCpuUsPerSession = { without: Number(median(cpuWithout).toFixed(2)), withSubscription: Number(median(cpuWith).toFixed(2)) };
    log(`webhooks (${engine}): import of ${importSessions} completed sessions ${importMs.without.toFixed(0)} ms without a subscription, ${importMs.withSubscription.toFixed(0)} ms with one`);
    // Those events are not part of the delivery run (nor the import's outbox batches not yet expanded into them).
    await runtime.store.database.write(null, async (tx) => {
      await tx.run('DELETE FROM webhook_deliveries');
      await tx.run('DELETE FROM webhook_pending_batches');
    });

    // --- delivery throughput: an outbox of `events`, then a server delivers it ---
    const sender = await seedOwner(runtime, 'sender');
    await runtime.store.webhooks.create({ userId: sender.userId, clientId: sender.clientId, url: receiver.url, events: ['session.completed'], workspaceId: sender.workspaceId, secret: newSigningSecret() }, by);
    await runtime.store.sessions.importSessions(await newTest(runtime, sender.workspaceId), completedSessions(events), by);
    const base = receiver.received();
    const server = await startServer('webhooks', databaseUrl, { logDir: dir, logLevel, cwd, cli, workers: 1, adminListener: false, nodeArgs, env });
    // From the moment it listens (its worker starts with it): delivery, not the process's start.
    const started = performance.now();
    const cpuBefore = cpuSeconds(server.pid);
    let cpuUsed = 0;
    let succeeded = 0;
    try {
      // The receiver's count first (free), then the database's (a count of every delivery: asked
      // every 50 ms throughout, it took the database's CPU from the run it measures).
      const deadline = Date.now() + 600_000;
      while (receiver.received() - base < events && Date.now() < deadline) await sleep(20);
      for (; Date.now() < deadline; await sleep(20)) {
        succeeded = (await runtime.store.webhookDeliveries.countByStatus()).succeeded ?? 0;
        if (succeeded >= events) break;
      }
      cpuUsed = cpuSecondsBetween(cpuBefore, cpuSeconds(server.pid));
    } finally {
      await stop(server.handle);
    }
    const seconds = (performance.now() - started) / 1000;
    const oursPerSec = Math.round(events / seconds);
    const receivedRequests = receiver.received() - base;

    // --- the plain alternative: the same bodies POSTed at the same concurrency, unsigned, unrecorded ---
    const body = JSON.stringify({ type: 'session.completed', timestamp: new Date().toISOString(), data: { sessionId: randomUUID(), testId: randomUUID(), workspaceId: randomUUID(), links: { session: 'http://127.0.0.1/x' } } });
    const agent = new Agent({ connections: 16 });
    const plainStarted = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < events) {
          const res = await request(receiver.url, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher: agent });
          await res.body.dump();
        }
      }),
    );
    const plainPerSec = Math.round(events / ((performance.now() - plainStarted) / 1000));
    await agent.close();
    log(`webhooks (${engine}): delivered ${succeeded} events in ${seconds.toFixed(1)} s (${oursPerSec}/s, ${Math.round((cpuUsed * 1e6) / events)} µs CPU each); plain POSTs ${plainPerSec}/s`);
    return {
      engine,
      events,
      delivered: succeeded,
      receivedRequests,
      seconds: Number(seconds.toFixed(2)),
      eventsPerSec: oursPerSec,
      cpuUsPerEvent: Math.round((cpuUsed * 1e6) / events),
      plainPostsPerSec: plainPerSec,
      importSessions,
      importMs: { without: Math.round(importMs.without), withSubscription: Math.round(importMs.withSubscription) },
      importSlowdown: Number((importMs.withSubscription / importMs.without).toFixed(3)),
      importCpuUsPerSession,
    };
  } finally {
    await receiver.close();
    await runtime.close();
  }
}
