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
 * - import, after the delivery run: `SessionRepository.importSessions` of M completed sessions
 *   into a fresh test of each of two databases that differ only in one subscription wanting
 *   `session.completed` (whose outbox batches the import then writes in its transaction), on
 *   the delivery run's database server for PostgreSQL. Each round imports the same
 *   sessions into both; a first round warms up and is not counted. Every import into a
 *   database is slower than the one before (it grows: 0.4 s for the first 100,000 sessions on
 *   SQLite, 1.5 s by the ninth), and the first import of a round is ~5 % slower than the
 *   second whichever it is, so: each import is compared with its round's other one (the same
 *   size), rounds come in pairs that take turns going first (the geometric mean of a pair's two
 *   ratios cancels the order), and the slowdown is the median over the pairs. (Medians of
 *   imports into one database taking turns counted its growth as cost: 1.00-1.06 with no
 *   subscription on either side; this method gives 0.98-1.02.)
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

/** Rounds of the import comparison (pairs of them): with the warm-up, 2 × 9 imports. */
const IMPORT_ROUNDS = 8;

/** The import's cost of a subscription (see the header): times, CPU per session and the median slowdown. */
async function measureImportCost({ openRuntime, loadConfig, newSigningSecret, env, receiverUrl, importSessions, importDatabaseUrls, dir, engine, log }) {
  const [withoutUrl, withUrl] = importDatabaseUrls ?? [`sqlite:${join(dir, 'import-without.db')}`, `sqlite:${join(dir, 'import-with.db')}`];
  const arms = [];
  try {
    for (const url of [withoutUrl, withUrl]) {
      const runtime = await openRuntime(loadConfig({ ...env, DATABASE_URL: url }));
      arms.push({ runtime, owner: await seedOwner(runtime, 'importer'), ms: [], cpuUs: [] });
    }
    const watched = arms[1];
    await watched.runtime.store.webhooks.create({ userId: watched.owner.userId, clientId: watched.owner.clientId, url: receiverUrl, events: ['session.completed'], workspaceId: watched.owner.workspaceId, secret: newSigningSecret() }, by);
    for (let round = -1; round < IMPORT_ROUNDS; round++) {
      const sessions = completedSessions(importSessions);
      for (const arm of round % 2 ? arms : [...arms].reverse()) {
        const testId = await newTest(arm.runtime, arm.owner.workspaceId);
        const cpuBefore = process.cpuUsage();
        const started = performance.now();
        await arm.runtime.store.sessions.importSessions(testId, sessions, by);
        const ms = performance.now() - started;
        const cpu = process.cpuUsage(cpuBefore);
        if (round < 0) continue;
        arm.ms.push(ms);
        arm.cpuUs.push((cpu.user + cpu.system) / importSessions);
      }
    }
  } finally {
    for (const arm of arms) await arm.runtime.close();
  }
  const [without, withSubscription] = arms;
  const ratios = withSubscription.ms.map((ms, round) => ms / without.ms[round]);
  const pairs = ratios.flatMap((ratio, round) => (round % 2 ? [Math.sqrt(ratios[round - 1] * ratio)] : []));
  const importMs = { without: Math.round(median(without.ms)), withSubscription: Math.round(median(withSubscription.ms)) };
  const importSlowdown = Number(median(pairs).toFixed(3));
  log(`webhooks (${engine}): import of ${importSessions} completed sessions ${importMs.without} ms without a subscription, ${importMs.withSubscription} ms with one (medians); slowdown ${importSlowdown} (median of ${pairs.length} pairs of rounds: ${pairs.map((r) => r.toFixed(3)).join(', ')}; rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})`);
  return {
    importMs,
    importSlowdown,
    importSlowdownByRound: ratios.map((r) => Number(r.toFixed(3))),
    importCpuUsPerSession: { without: Number(median(without.cpuUs).toFixed(2)), withSubscription: Number(median(withSubscription.cpuUs).toFixed(2)) },
  };
}

export async function runWebhooksBench({ cli, cwd, work, logLevel, events, importSessions, concurrency, log, databaseUrl: pgUrl, importDatabaseUrls, nodeArgs = [] }) {
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

    // After the delivery run: written before it, the comparison's 1.8M sessions had PostgreSQL checkpointing during it.
    const importCost = await measureImportCost({ openRuntime, loadConfig, newSigningSecret, env, receiverUrl: receiver.url, importSessions, importDatabaseUrls, dir, engine, log });
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
      ...importCost,
    };
  } finally {
    await receiver.close();
    await runtime.close();
  }
}
