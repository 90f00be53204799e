import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ResultsClient } from '@results-api/client';
import { seed, type Seeded } from '../helpers/seed.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientFor, hang, recordingFetch, reply, startStub } from './helpers.js';

const testId = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';

describe('abort and timeout against the real server', () => {
  let t: TestApp;
  let s: Seeded;

  beforeAll(async () => {
    t = await startTestApp();
    s = await seed(t.runtime, { sessions: 25 });
  });
  afterAll(() => t.close());

  it('an already aborted signal rejects with its reason and sends nothing', async () => {
    const rec = recordingFetch();
    const client = clientFor(t, s, 'B', { fetch: rec.fetch });
    const error = await client.listSessionResults({ testId: s.testId }, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(rec.sent).toHaveLength(0);
  });

  it('aborting between pages ends the iteration with the abort reason', async () => {
    const client = clientFor(t, s, 'A');
    const controller = new AbortController();
    const seen: string[] = [];
    const iterate = async () => {
      for await (const session of client.sessionResults(s.testId, { pageSize: 10, signal: controller.signal })) {
        seen.push(session.sessionId);
        if (seen.length === 10) controller.abort(new Error('user pressed ctrl-c'));
      }
    };
    await expect(iterate()).rejects.toThrow('user pressed ctrl-c');
    expect(seen).toHaveLength(10);
  });
});

describe('abort and timeout while the server does not answer (a stub)', () => {
  let stub: Awaited<ReturnType<typeof startStub>> | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  const stubClient = (url: string, extra: Partial<ConstructorParameters<typeof ResultsClient>[0]> = {}) =>
    new ResultsClient({ authUrl: url, baseUrl: url, clientId: 'id', clientSecret: 'secret', authorizationServerId: 'ausStub', ...extra });

  it('aborting a request in flight rejects with AbortError', async () => {
    const controller = new AbortController();
    stub = await startStub([hang(() => controller.abort())]);
    const error = await stubClient(stub.url).listSessionResults({ testId }, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
  });

  it('a call that outlasts its timeoutMs rejects with TimeoutError', async () => {
    stub = await startStub([hang()]);
    const error = await stubClient(stub.url).workspaces({ timeoutMs: 50 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TimeoutError' });
  });

  it('the client-wide timeoutMs applies when a call sets none', async () => {
    stub = await startStub([hang()]);
    const error = await stubClient(stub.url, { timeoutMs: 50 }).studies(testId).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TimeoutError' });
  });

  it('aborting during a wait before a retry rejects at once with the reason', async () => {
    const controller = new AbortController();
    stub = await startStub([
      (req, res) => {
        reply(429, { title: 'Too many requests', status: 429 }, { 'retry-after': '3600' })(req, res);
        setImmediate(() => controller.abort(new Error('stop waiting')));
      },
    ]);
    const client = stubClient(stub.url, { timeoutMs: 0 });
    const error = await client.listSessionResults({ testId }, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toEqual(new Error('stop waiting'));
    expect(stub.apiHits()).toBe(1);
  });
});
