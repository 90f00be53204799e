import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, Gauge, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';
import type { RateLimitDecision, RateLimiter } from '../http/rate-limiter.js';
import { IpcRequests } from './ipc-requests.js';

/**
 * What the processes of `serve --workers N` ask each other. Without Redis, a worker asks the
 * primary for rate-limit decisions (one budget per client however connections are spread).
 * With or without Redis, the primary, which owns the metrics listener, asks every worker for
 * its metrics and adds them up. Every request has a deadline: nothing waits on a stopped process.
 */
const RATE_LIMIT = 'results-api:rate-limit';
const RATE_LIMIT_REPLY = 'results-api:rate-limit-reply';
const METRICS = 'results-api:metrics';
const METRICS_REPLY = 'results-api:metrics-reply';

/** A rate-limit decision is on every API request's path: wait briefly, then count locally. */
export const RATE_LIMIT_IPC_TIMEOUT_MS = 1000;
/** Well inside Prometheus' default 10 s scrape timeout. */
export const METRICS_IPC_TIMEOUT_MS = 2000;

type RateLimitRequest = {
  type: typeof RATE_LIMIT;
  id: number;
  key: string;
  limit: number;
  windowSeconds: number;
  /** Take back one hit (RateLimiter.refund) instead of counting one. */
  refund?: true;
};
type RateLimitReply = { type: typeof RATE_LIMIT_REPLY; id: number; decision?: RateLimitDecision; error?: string };
type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];
type MetricsReply = { type: typeof METRICS_REPLY; id: number; metrics?: WorkerMetrics; error?: string };

const isMessage = (message: unknown, type: string): boolean => (message as { type?: unknown } | null)?.type === type;

/** A worker's channel to its primary (an interface so tests can stand in for the primary). */
export interface PrimaryChannel {
  send(message: unknown, done: (err: Error | null) => void): void;
  onMessage(listener: (message: unknown) => void): void;
}

export const parentProcess: PrimaryChannel = {
  send(message, done) {
    if (!process.send || !process.connected) done(new Error('not connected to a cluster primary'));
    else process.send(message, undefined, undefined, done);
  },
  onMessage: (listener) => void process.on('message', listener),
};

/** In the primary, without Redis: answers the workers' rate-limit requests from `limiter`. */
export function serveRateLimits(limiter: RateLimiter): void {
  cluster.on('message', (worker: Worker, message: RateLimitRequest) => {
    if (!isMessage(message, RATE_LIMIT)) return;
    const reply = (r: Omit<RateLimitReply, 'type' | 'id'>) =>
      worker.isConnected() && worker.send({ type: RATE_LIMIT_REPLY, id: message.id, ...r });
    if (message.refund) {
      limiter.refund(message.key, message.windowSeconds).then(
        () => reply({}),
        (err: Error) => reply({ error: err.message }),
      );
      return;
    }
    limiter.hit(message.key, message.limit, message.windowSeconds).then(
      (decision) => reply({ decision }),
      (err: Error) => reply({ error: err.message }),
    );
  });
}

/**
 * In a worker, without Redis: the rate limiter whose counters live in the primary. When the
 * primary does not answer in time, this worker's own counters decide (a client's budget is then
 * per worker until the primary answers again); `onUnanswered` hears of it once per outage.
 */
export class PrimaryRateLimiter implements RateLimiter {
  private readonly requests: IpcRequests<RateLimitReply>;
  private answering = true;

  constructor(
    private readonly fallback: RateLimiter,
    private readonly onUnanswered: (err: Error) => void = () => {},
    private readonly channel: PrimaryChannel = parentProcess,
    timeoutMs = RATE_LIMIT_IPC_TIMEOUT_MS,
  ) {
    this.requests = new IpcRequests(timeoutMs, 'rate-limit request to the cluster primary');
    channel.onMessage((message) => {
      if (isMessage(message, RATE_LIMIT_REPLY)) this.requests.settle(message as RateLimitReply);
    });
  }

  async hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    try {
      const reply = await this.requests.send((id, fail) =>
        this.channel.send({ type: RATE_LIMIT, id, key, limit, windowSeconds } satisfies RateLimitRequest, (err) => err && fail(err)),
      );
      this.answering = true;
      return reply.decision!;
    } catch (err) {
      if (this.answering) this.onUnanswered(err as Error);
      this.answering = false;
      return this.fallback.hit(key, limit, windowSeconds);
    }
  }

  async refund(key: string, windowSeconds: number): Promise<void> {
    try {
      await this.requests.send((id, fail) =>
        this.channel.send(
          { type: RATE_LIMIT, id, key, limit: 0, windowSeconds, refund: true } satisfies RateLimitRequest,
          (err) => err && fail(err),
        ),
      );
      this.answering = true;
    } catch (err) {
      if (this.answering) this.onUnanswered(err as Error);
      this.answering = false;
      await this.fallback.refund(key, windowSeconds);
    }
  }
}

/** In a worker, with or without Redis: answers the primary's requests for `registry`. */
export function answerMetricsRequests(registry: Registry, channel: PrimaryChannel = parentProcess): void {
  channel.onMessage((message) => {
    if (!isMessage(message, METRICS)) return;
    const id = (message as { id: number }).id;
    const reply = (r: Omit<MetricsReply, 'type' | 'id'>) => channel.send({ type: METRICS_REPLY, id, ...r }, () => {});
    registry.getMetricsAsJSON().then(
      (metrics) => reply({ metrics: metrics as WorkerMetrics }),
      (err: Error) => reply({ error: err.message }),
    );
  });
}

/**
 * In the primary: the exposition of every worker's metrics added up. A worker that does not
 * answer within `timeoutMs` is left out and counted in `cluster_workers{state="missing"}`
 * (and named in `onMissing`), so one stopped worker never stalls a scrape.
 */
export function clusterMetrics(
  onMissing: (workerPids: number[]) => void,
  timeoutMs = METRICS_IPC_TIMEOUT_MS,
): () => Promise<string> {
  const requests = new IpcRequests<MetricsReply>(timeoutMs, 'metrics request to a worker');
  cluster.on('message', (_worker: Worker, message: MetricsReply) => {
    if (isMessage(message, METRICS_REPLY)) requests.settle(message);
  });
  return async () => {
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w?.isConnected());
    const replies = await Promise.allSettled(
      workers.map((worker) => requests.send((id, fail) => worker.send({ type: METRICS, id }, undefined, (err) => err && fail(err)))),
    );
    const answered = replies.flatMap((r) => (r.status === 'fulfilled' ? [r.value.metrics ?? []] : []));
    const missing = workers.filter((_, i) => replies[i]!.status === 'rejected').map((w) => w.process.pid ?? 0);
    if (missing.length > 0) onMissing(missing);
    const registry = AggregatorRegistry.aggregate(answered);
    const reporting = new Gauge({
      name: 'cluster_workers',
      help: 'Workers whose metrics this scrape includes (answered) or lacks (missing: no reply in time).',
      labelNames: ['state'] as const,
      registers: [registry],
    });
    reporting.set({ state: 'answered' }, answered.length);
    reporting.set({ state: 'missing' }, missing.length);
    return registry.metrics();
  };
}
