/**
 * The job queue's contract, run unchanged on every database (wired in next to
 * describeStoreContract). `makeStore` returns an unmigrated store over a fresh database.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import type { Announce } from './database.js';
import { enqueueJob, restartJob, retryDelayMs, type JobInput } from './jobs.js';
import type { Store } from './open-store.js';

const T0 = Date.UTC(2026, 0, 1);
const LEASE = 30_000;

export function describeJobsContract(name: string, makeStore: (clock: ManualClock, announce: Announce) => Promise<Store>): void {
  describe(`Jobs contract: ${name}`, () => {
    let clock: ManualClock;
    let store: Store;

    beforeEach(async () => {
      clock = new ManualClock(T0);
      store = await makeStore(clock, async () => undefined);
      await store.database.migrate();
    });
    afterEach(async () => {
      await store.database.close();
    });

    const enqueue = (input: Partial<JobInput> = {}) =>
      store.database.write(null, (tx) => enqueueJob(tx, clock, { kind: 'test.work', subject: 'subject-1', payload: { n: 1 }, ...input }));

    it('queues a job, and a claim starts its first attempt under a lease', async () => {
      const queued = await enqueue({ maxAttempts: 2 });
      expect(queued).toMatchObject({ kind: 'test.work', subject: 'subject-1', payload: { n: 1 }, state: 'queued', attempts: 0, maxAttempts: 2, runAt: T0 });
      const claimed = await store.jobs.claim('worker-a', LEASE);
      expect(claimed).toMatchObject({ id: queued.id, state: 'running', attempts: 1, leaseOwner: 'worker-a', leaseUntil: T0 + LEASE });
      expect(await store.jobs.get(queued.id)).toEqual(claimed);
      expect(await store.jobs.claim('worker-b', LEASE)).toBeNull();
    });

    it('claims the oldest due job first and never one claimed already', async () => {
      const first = await enqueue({ subject: 'one' });
      clock.advance(1);
      const second = await enqueue({ subject: 'two' });
      expect((await store.jobs.claim('a', LEASE))?.id).toBe(first.id);
      expect((await store.jobs.claim('b', LEASE))?.id).toBe(second.id);
      expect(await store.jobs.claim('c', LEASE)).toBeNull();
    });

    it('concurrent claims take different jobs', async () => {
      for (let i = 0; i < 6; i++) await enqueue({ subject: `s${i}` });
      const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => store.jobs.claim(`w${i}`, LEASE)));
      const ids = claims.filter((j) => j !== null).map((j) => j.id);
      expect(ids).toHaveLength(6);
      expect(new Set(ids).size).toBe(6);
    });

    it('completes only under its own lease, with the handler writes in the same transaction', async () => {
      const job = await enqueue();
      await store.jobs.claim('a', LEASE);
      expect(await store.jobs.complete(job.id, 'b')).toBe(false);
      expect(await store.jobs.complete(job.id, 'a', (tx) => tx.run("INSERT INTO settings (key, value) VALUES ('done-by', 'a')").then(() => undefined))).toBe(true);
      expect(await store.jobs.get(job.id)).toMatchObject({ state: 'done', leaseOwner: null, leaseUntil: null });
      expect(await store.settings.getOrSet('done-by', 'other')).toBe('a');
      // Done is final: neither a second completion nor a claim touches it.
      expect(await store.jobs.complete(job.id, 'a')).toBe(false);
      clock.advance(LEASE * 10);
      expect(await store.jobs.claim('c', LEASE)).toBeNull();
    });

    it('a heartbeat keeps the lease; a lease that runs out is claimed again and the old owner can no longer finish', async () => {
      const job = await enqueue();
      await store.jobs.claim('a', LEASE);
      clock.advance(LEASE - 1);
      expect(await store.jobs.heartbeat(job.id, 'a', LEASE)).toBe(true);
      clock.advance(LEASE - 1);
      expect(await store.jobs.claim('b', LEASE)).toBeNull();
      clock.advance(1);
      const again = await store.jobs.claim('b', LEASE);
      expect(again).toMatchObject({ id: job.id, attempts: 2, leaseOwner: 'b' });
      expect(await store.jobs.heartbeat(job.id, 'a', LEASE)).toBe(false);
      expect(await store.jobs.complete(job.id, 'a')).toBe(false);
      expect(await store.jobs.fail(job.id, 'a', 'late')).toBe('lost_lease');
      expect(await store.jobs.complete(job.id, 'b')).toBe(true);
    });

    it('a failed attempt is retried after a growing delay, then ends in error with the reason in the audit log', async () => {
      const job = await enqueue({ maxAttempts: 3 });
      await store.jobs.claim('a', LEASE);
      expect(await store.jobs.fail(job.id, 'a', 'ffmpeg exited with 1')).toBe('retry');
      expect(await store.jobs.get(job.id)).toMatchObject({ state: 'queued', attempts: 1, runAt: T0 + retryDelayMs(1), lastError: 'ffmpeg exited with 1' });
      expect(await store.jobs.claim('a', LEASE)).toBeNull();
      clock.advance(retryDelayMs(1));
      expect((await store.jobs.claim('a', LEASE))?.attempts).toBe(2);
      expect(await store.jobs.fail(job.id, 'a', 'again')).toBe('retry');
      expect(retryDelayMs(2)).toBe(2 * retryDelayMs(1));
      clock.advance(retryDelayMs(2));
      expect((await store.jobs.claim('a', LEASE))?.attempts).toBe(3);
      expect(await store.jobs.fail(job.id, 'a', 'the input video is gone')).toBe('error');
      expect(await store.jobs.get(job.id)).toMatchObject({ state: 'error', attempts: 3, lastError: 'the input video is gone', leaseOwner: null });
      const events = await store.audit.list({ action: 'job.fail' });
      expect(events).toMatchObject([
        { actor: 'jobs', subject: job.id, details: { kind: 'test.work', subject: 'subject-1', attempts: 3, reason: 'the input video is gone' } },
      ]);
      clock.advance(retryDelayMs(10));
      expect(await store.jobs.claim('a', LEASE)).toBeNull();
    });

    it('a lease that runs out on the last attempt ends the job in error instead of running it again', async () => {
      const job = await enqueue({ maxAttempts: 1 });
      await store.jobs.claim('a', LEASE);
      clock.advance(LEASE);
      expect(await store.jobs.claim('b', LEASE)).toBeNull();
      expect(await store.jobs.get(job.id)).toMatchObject({ state: 'error', lastError: expect.stringContaining('lease ran out') });
      expect((await store.audit.list({ action: 'job.fail' })).map((e) => e.subject)).toEqual([job.id]);
    });

    it('a released job is claimable at once and its attempt is not counted', async () => {
      const job = await enqueue({ maxAttempts: 1 });
      await store.jobs.claim('a', LEASE);
      expect(await store.jobs.release(job.id, 'b')).toBe(false);
      expect(await store.jobs.release(job.id, 'a')).toBe(true);
      expect(await store.jobs.claim('b', LEASE)).toMatchObject({ id: job.id, attempts: 1, leaseOwner: 'b' });
    });

    it('restartJob starts an errored job over; a queued or running job is left alone', async () => {
      const job = await enqueue({ maxAttempts: 1 });
      expect(await store.database.write(null, (tx) => restartJob(tx, clock, job.id))).toBe(false);
      await store.jobs.claim('a', LEASE);
      expect(await store.database.write(null, (tx) => restartJob(tx, clock, job.id))).toBe(false);
      await store.jobs.fail(job.id, 'a', 'broken');
      clock.advance(1000);
      expect(await store.database.write(null, (tx) => restartJob(tx, clock, job.id))).toBe(true);
      expect(await store.jobs.get(job.id)).toMatchObject({ state: 'queued', attempts: 0, runAt: T0 + 1000 });
      expect(await store.jobs.claim('b', LEASE)).toMatchObject({ id: job.id, attempts: 1 });
    });

    it('lists the newest jobs first, by state and kind, and counts them by state', async () => {
      const a = await enqueue({ kind: 'clip.generate' });
      clock.advance(1);
      const b = await enqueue({ kind: 'reel.generate' });
      clock.advance(1);
      const c = await enqueue({ kind: 'clip.generate' });
      await store.jobs.claim('w', LEASE);
      expect((await store.jobs.list()).map((j) => j.id)).toEqual([c.id, b.id, a.id]);
      expect((await store.jobs.list({ state: 'running' })).map((j) => j.id)).toEqual([a.id]);
      expect((await store.jobs.list({ kind: 'clip.generate', limit: 1 })).map((j) => j.id)).toEqual([c.id]);
      expect(await store.jobs.countByState()).toEqual({ queued: 2, running: 1 });
      expect(await store.jobs.get('no-such-job')).toBeNull();
    });
  });
}
