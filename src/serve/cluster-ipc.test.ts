import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Counter, Registry } from 'prom-client';
import type { RateLimitDecision, RateLimiter } from '../http/rate-limiter.js';
import { PrimaryRateLimiter, answerMetricsRequests, type PrimaryChannel } from './cluster-ipc.js';
import { IpcRequests, IpcTimeoutError } from './ipc-requests.js';

/** A primary that receives everything and answers only when the test says so. */
class FakePrimary implements PrimaryChannel {
  readonly sent: { type: string; id: number }[] = [];
  private listener: (message: unknown) => void = () => {};
  send(message: unknown, done: (err: Error | null) => void): void {
    this.sent.push(message as { type: string; id: number });
    done(null);
  }
  onMessage(listener: (message: unknown) => void): void {
    this.listener = listener;
  }
  reply(message: unknown): void {
    this.listener(message);
  }
}

const settled = async (promise: Promise<unknown>): Promise<boolean> => {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
};

const decision = (allowed: boolean): RateLimitDecision => ({ allowed, limit: 1, remaining: 0, resetSeconds: 60 });

describe('IPC requests', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('a request nobody answers is refused once its deadline passes, and a late reply is dropped', async () => {
    const requests = new IpcRequests<{ id: number }>(1000, 'test request');
    let sentId = -1;
    const request = requests.send((id) => (sentId = id));
    const outcome = request.catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(request)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toEqual(new IpcTimeoutError('test request: no reply within 1000 ms'));
    expect(requests.settle({ id: sentId })).toBe(false);
  });

  it('a reply in time settles its own request only; a failed send refuses at once', async () => {
    const requests = new IpcRequests<{ id: number; value?: string; error?: string }>(1000, 'test request');
    const ids: number[] = [];
    const first = requests.send((id) => ids.push(id));
    const second = requests.send((id) => ids.push(id));
    expect(requests.settle({ id: ids[1]!, value: 'two' })).toBe(true);
    expect(await second).toEqual({ id: ids[1], value: 'two' });
    expect(await settled(first)).toBe(false);
    expect(requests.settle({ id: ids[0]!, error: 'broken' })).toBe(true);
    await expect(first).rejects.toThrow('broken');
    await expect(requests.send((_id, fail) => fail(new Error('channel closed')))).rejects.toThrow('channel closed');
  });
});

describe('PrimaryRateLimiter', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  const localCounters = (): RateLimiter & { hits: number } => ({
    hits: 0,
    async hit() {
      this.hits++;
      return decision(true);
    },
    async refund() {},
  });

  it('asks the primary and uses its decision', async () => {
    const primary = new FakePrimary();
    const local = localCounters();
    const limiter = new PrimaryRateLimiter(local, () => {}, primary, 1000);
    const hit = limiter.hit('api:c1', 1, 60);
    expect(primary.sent).toEqual([{ type: 'results-api:rate-limit', id: 0, key: 'api:c1', limit: 1, windowSeconds: 60 }]);
    primary.reply({ type: 'results-api:rate-limit-reply', id: 0, decision: decision(false) });
    expect(await hit).toEqual(decision(false));
    expect(local.hits).toBe(0);
  });

  it('when the primary does not answer within the deadline, counts locally, and says so once per outage', async () => {
    const primary = new FakePrimary();
    const local = localCounters();
    const unanswered: Error[] = [];
    const limiter = new PrimaryRateLimiter(local, (err) => unanswered.push(err), primary, 1000);
    const hits = [limiter.hit('api:c1', 1, 60), limiter.hit('api:c1', 1, 60)];
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(hits[0]!)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await Promise.all(hits)).toEqual([decision(true), decision(true)]);
    expect(local.hits).toBe(2);
    expect(unanswered.map((e) => e.message)).toEqual(['rate-limit request to the cluster primary: no reply within 1000 ms']);

    // Answering again, then silent again: a second outage is reported again.
    const answered = limiter.hit('api:c1', 1, 60);
    primary.reply({ type: 'results-api:rate-limit-reply', id: 2, decision: decision(false) });
    expect(await answered).toEqual(decision(false));
    const silent = limiter.hit('api:c1', 1, 60);
    await vi.advanceTimersByTimeAsync(1000);
    await silent;
    expect(unanswered).toHaveLength(2);
  });
});

describe('PrimaryRateLimiter.refund', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('asks the primary to take back a hit; when the primary does not answer, takes it back locally', async () => {
    const primary = new FakePrimary();
    let localRefunds = 0;
    const local: RateLimiter = { hit: async () => decision(true), refund: async () => void localRefunds++ };
    const limiter = new PrimaryRateLimiter(local, () => {}, primary, 1000);

    const answered = limiter.refund('token:fail:client:c1', 60);
    expect(primary.sent).toEqual([
      { type: 'results-api:rate-limit', id: 0, key: 'token:fail:client:c1', limit: 0, windowSeconds: 60, refund: true },
    ]);
    primary.reply({ type: 'results-api:rate-limit-reply', id: 0 });
    await answered;
    expect(localRefunds).toBe(0);

    const unanswered = limiter.refund('token:fail:client:c1', 60);
    await vi.advanceTimersByTimeAsync(1000);
    await unanswered;
    expect(localRefunds).toBe(1);
  });
});

describe('answerMetricsRequests', () => {
  it("answers the primary's request with this worker's registry, by request id", async () => {
    const registry = new Registry();
    new Counter({ name: 'things_total', help: 'Things.', registers: [registry] }).inc(3);
    const primary = new FakePrimary();
    answerMetricsRequests(registry, primary);
    primary.reply({ type: 'results-api:rate-limit-reply', id: 1 }); // not for it
    primary.reply({ type: 'results-api:metrics', id: 7 });
    await vi.waitFor(() => expect(primary.sent).toHaveLength(1));
    expect(primary.sent[0]).toMatchObject({
      type: 'results-api:metrics-reply',
      id: 7,
      metrics: [{ name: 'things_total', values: [{ value: 3 }] }],
    });
  });
});
