/**
 * The job runner in one process, over a real SQLite file: concurrency bound, retry then
 * ERROR (with the audit event), hand-back on stop, and a lost lease recording nothing.
 * Times in the queue come from a manual clock; the runner's own polling is real.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { JobRunner, type JobHandler } from '../../src/jobs/job-runner.js';
import { enqueueJob, retryDelayMs, type JobInput } from '../../src/store/jobs.js';
import type { Store } from '../../src/store/open-store.js';
import { openSqliteStore } from '../helpers/stores.js';
import { until } from '../helpers/until.js';

const dir = mkdtempSync(join(tmpdir(), 'results-api-jobs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const LEASE = 10_000;


describe('JobRunner', () => {
  let clock: ManualClock;
  let store: Store;
  const runners: JobRunner[] = [];

  beforeEach(async () => {
    clock = new ManualClock();
    store = await openSqliteStore(join(dir, `jobs-${++n}.db`), clock);
    await store.database.migrate();
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    await store.database.close();
  });

  const enqueue = (input: Partial<JobInput> = {}) =>
    store.database.write(null, (tx) => enqueueJob(tx, clock, { kind: 'test.work', subject: 's', ...input }));
  const runner = (handlers: Record<string, JobHandler>, concurrency = 1) => {
    const r = new JobRunner(store.jobs, handlers, { concurrency, leaseMs: LEASE, pollMs: 10, log: silent });
    runners.push(r);
    r.start();
    return r;
  };

  it('runs a job once and records its result in the transaction that marks it done', async () => {
    const job = await enqueue({ payload: { value: 'cut' } });
    const seen: unknown[] = [];
    runner({
      'test.work': async (j) => {
        seen.push(j.payload);
        return (tx) => tx.run("INSERT INTO settings (key, value) VALUES ('result', 'cut')").then(() => undefined);
      },
    });
    await until('the job is done', async () => (await store.jobs.get(job.id))?.state === 'done', 10_000);
    expect(seen).toEqual([{ value: 'cut' }]);
    expect(await store.settings.getOrSet('result', 'none')).toBe('cut');
  });

  it('never runs more jobs at once than its concurrency', async () => {
    for (let i = 0; i < 6; i++) await enqueue({ subject: `s${i}` });
    let now = 0;
    let most = 0;
    runner(
      {
        'test.work': async () => {
          most = Math.max(most, ++now);
          await sleep(30);
          now--;
        },
      },
      2,
    );
    await until('every job is done', async () => (await store.jobs.countByState()).done === 6, 10_000);
    expect(most).toBe(2);
  });

  it('retries a failing job after its backoff, then ends it in ERROR with the reason in the audit log', async () => {
    const job = await enqueue({ maxAttempts: 2 });
    let calls = 0;
    runner({
      'test.work': async () => {
        calls++;
        throw new Error(`ffmpeg exited with code ${calls}`);
      },
    });
    await until('the first attempt failed', async () => (await store.jobs.get(job.id))?.attempts === 1 && (await store.jobs.get(job.id))?.state === 'queued', 10_000);
    await sleep(50);
    expect(calls).toBe(1); // not before its backoff
    clock.advance(retryDelayMs(1));
    await until('the job ended in error', async () => (await store.jobs.get(job.id))?.state === 'error', 10_000);
    expect(calls).toBe(2);
    expect(await store.jobs.get(job.id)).toMatchObject({ attempts: 2, lastError: 'ffmpeg exited with code 2' });
    expect((await store.audit.list({ action: 'job.fail' })).map((e) => [e.subject, e.details.reason])).toEqual([[job.id, 'ffmpeg exited with code 2']]);
  });

  it('a job of a kind nobody handles fails with that reason', async () => {
    const job = await enqueue({ kind: 'test.unknown', maxAttempts: 1 });
    runner({ 'test.work': async () => undefined });
    await until('the job ended in error', async () => (await store.jobs.get(job.id))?.state === 'error', 10_000);
    expect((await store.jobs.get(job.id))?.lastError).toBe('no handler for jobs of kind test.unknown');
  });

  it('stopping aborts the running handler and hands its job back uncounted', async () => {
    const job = await enqueue({ maxAttempts: 1 });
    let started = false;
    const r = runner({
      'test.work': (_, { signal }) =>
        new Promise((_resolve, reject) => {
          started = true;
          signal.addEventListener('abort', () => reject(signal.reason as Error));
        }),
    });
    await until('the handler started', () => started, 10_000);
    await r.stop();
    expect(await store.jobs.get(job.id)).toMatchObject({ state: 'queued', attempts: 0, leaseOwner: null });
  });

  it('a runner that lost the lease to another process aborts and records nothing', async () => {
    const job = await enqueue();
    let aborted = false;
    let release!: () => void;
    runner({
      'test.work': (_, { signal }) =>
        new Promise((resolve) => {
          release = () => resolve(async (tx) => void (await tx.run("INSERT INTO settings (key, value) VALUES ('winner', 'stale')")));
          signal.addEventListener('abort', () => (aborted = true));
        }),
    });
    await until('the job is running', async () => (await store.jobs.get(job.id))?.state === 'running', 10_000);
    // The process stalled past its lease: another one claims the job.
    clock.advance(LEASE);
    const other = await store.jobs.claim('other-process', LEASE);
    expect(other?.id).toBe(job.id);
    await until('the stale runner noticed', () => aborted, 10_000);
    release();
    await sleep(50);
    expect(await store.jobs.get(job.id)).toMatchObject({ state: 'running', leaseOwner: 'other-process' });
    expect(await store.settings.getOrSet('winner', 'none')).toBe('none');
  });
});
