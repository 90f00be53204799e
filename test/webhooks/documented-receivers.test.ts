/**
 * The two receivers docs/WEBHOOKS.md shows (examples/webhooks/receiver.ts and receiver.py), run
 * exactly as written against real deliveries: the page shows the files unchanged; a user
 * subscribes over the REST API with its own token, an import of mixed statuses is delivered,
 * and each receiver verifies every request (the TypeScript one with the standardwebhooks
 * package, then reading each completed session with the token; the Python one with the
 * standard library only), answers 204, and refuses a forged or stale request with 400. On
 * SQLite, and on PostgreSQL in the `postgres` project.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/webhooks/signing.js';
import { startDeliveryWorker, type RunningDeliveryWorker } from '../../src/serve/start-delivery-worker.js';
import { freePort } from '../helpers/net.js';
import { makeSessions, seedClient, seedTest, seedWorkspace } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { authHeaders, requestToken } from '../helpers/tokens.js';
import { until } from '../helpers/until.js';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLES = join(ROOT, 'examples', 'webhooks');
const by = { actor: 'test' };
const quiet = { info: () => undefined, warn: () => undefined };

/** The page's fenced blocks of `language`, in order. */
function blocksOf(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

describe('the receivers docs/WEBHOOKS.md shows', () => {
  let t: TestApp;
  let token: string;
  let testId: string;
  let worker: RunningDeliveryWorker | undefined;
  /** Where the TypeScript receiver, compiled as written, runs: inside the repository, so it finds standardwebhooks. */
  const compiled = join(ROOT, 'node_modules', '.cache');

  beforeAll(async () => {
    const port = await freePort();
    // The events' links must lead back to this app: its public URL is the port it listens on.
    // A short lease: an attempt whose end could not be recorded (a transient database error) is
    // sent again, with the same id, within the test's time rather than after the default two minutes.
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}`, WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_LEASE_SECONDS: '10' } });
    const owner = await seedClient(t.runtime);
    testId = await seedTest(t.runtime, await seedWorkspace(t.runtime, [owner.email]));
    const res = await requestToken(t, owner, { scope: 'studies:read webhooks:manage' });
    token = ((await res.json()) as { access_token: string }).access_token;
  });
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
  });

  it('shows the example files unchanged', () => {
    const page = readFileSync(join(ROOT, 'docs', 'WEBHOOKS.md'), 'utf8');
    expect(blocksOf(page, 'ts')).toContain(readFileSync(join(EXAMPLES, 'receiver.ts'), 'utf8'));
    expect(blocksOf(page, 'python')).toContain(readFileSync(join(EXAMPLES, 'receiver.py'), 'utf8'));
  });

  /** Starts a receiver on a free port with the subscription's secret; resolves once it answers. */
  async function startDocumented(language: 'ts' | 'python', secret: string): Promise<{ url: string; output: () => string; stop: () => void }> {
    const port = await freePort();
    const env = { ...process.env, PORT: String(port), WEBHOOK_SECRET: secret, RESULTS_API_TOKEN: token };
    let child: ChildProcess;
    let dir: string | undefined;
    if (language === 'ts') {
      mkdirSync(compiled, { recursive: true });
      dir = mkdtempSync(join(compiled, 'webhook-receiver-'));
      const source = readFileSync(join(EXAMPLES, 'receiver.ts'), 'utf8');
      const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
      writeFileSync(join(dir, 'receiver.mjs'), js);
      child = spawn(process.execPath, [join(dir, 'receiver.mjs')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    } else {
      child = spawn('python3', [join(EXAMPLES, 'receiver.py')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    }
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const url = `http://127.0.0.1:${port}/hooks`;
    await until(`the ${language} receiver listens`, async () => (await fetch(url, { method: 'POST', body: '{}' }).catch(() => null))?.status === 400, 20_000);
    return {
      url,
      output: () => output,
      stop: () => {
        child.kill();
        if (dir) rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...authHeaders(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> & { secret?: string; id: string } };
  };

  // Room for one retry (the first comes within 30 s) when an attempt fails on a busy machine:
  // deliveries are at least once, and the receivers must end up with every event.
  it.each([['ts'], ['python']] as const)('the %s receiver verifies real deliveries and refuses forged ones', { timeout: 180_000 }, async (language) => {
    // The secret is known only once the subscription exists, and the receiver needs it to start:
    // subscribed first with a placeholder address, then pointed at the receiver.
    const created = await call('POST', '/api/v2/webhooks', { url: 'http://127.0.0.1:9/', events: ['session.completed'], testId });
    expect(created.status).toBe(201);
    const subscription = created.body;
    const receiver = await startDocumented(language, subscription.secret!);
    try {
      expect((await call('PATCH', `/api/v2/webhooks/${subscription.id}`, { url: receiver.url })).status).toBe(200);
      const sessions = makeSessions(9, { statuses: ['COMPLETE', 'IN_PROGRESS', 'ABANDONED'], newest: Date.UTC(2026, language === 'ts' ? 1 : 2, 1) });
      await t.runtime.store.sessions.importSessions(testId, sessions, by);
      worker ??= startDeliveryWorker(t.runtime, quiet, undefined, { pollMs: 20 });
      const completed = sessions.filter((s) => s.status === 'COMPLETE').map((s) => s.sessionId);
      const log = async () => (await t.runtime.store.webhooks.listDeliveries(subscription.id, { limit: 100 })).filter((d) => d.status !== 'pending' && d.status !== 'delivering');
      await until('every completed session delivered', async () => (await log()).length === completed.length);
      expect((await log()).map((d) => [d.status, d.responseCode])).toEqual(completed.map(() => ['succeeded', 204]));
      // What each receiver did with them: the TypeScript one read each session with the token.
      const lines = completed.map((id) => (language === 'ts' ? `session ${id} completed, ` : `session.completed {'sessionId': '${id}'`));
      await until('each completed session handled', () => lines.every((line) => receiver.output().includes(line)));

      // A request not signed with the secret, and one signed too long ago, are refused.
      const body = JSON.stringify({ type: 'session.completed', timestamp: new Date().toISOString(), data: { sessionId: completed[0] } });
      const now = Math.floor(Date.now() / 1000);
      const forged = signedHeaders(['whsec_' + Buffer.from('not the secret').toString('base64')], 'msg_forged', now, body);
      const stale = signedHeaders([subscription.secret!], 'msg_stale', now - 600, body);
      for (const headers of [forged, stale]) {
        expect((await fetch(receiver.url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })).status).toBe(400);
      }
      const test = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { webhookId: subscription.id } });
      const fresh = signedHeaders([subscription.secret!], 'msg_fresh', now, test);
      expect((await fetch(receiver.url, { method: 'POST', headers: { ...fresh, 'content-type': 'application/json' }, body: test })).status).toBe(204);
    } finally {
      receiver.stop();
      await call('DELETE', `/api/v2/webhooks/${subscription.id}`);
    }
  });
});
