import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { RateLimitDecision, RateLimiter } from '../http/rate-limiter.js';

/**
 * With several workers and no Redis, the primary process holds the rate-limit counters (so a
 * client has one budget however connections are spread) and gathers the workers' metrics (so
 * /metrics describes the whole server, whichever worker answers).
 */
const RATE_LIMIT = 'results-api:rate-limit';
const METRICS = 'results-api:metrics';

type Request =
  | { type: typeof RATE_LIMIT; id: number; key: string; limit: number; windowSeconds: number; refund?: true }
  | { type: typeof METRICS; id: number };
type Reply = { type: string; id: number; decision?: RateLimitDecision; metrics?: string; error?: string };

/** In the primary: answers the workers' rate-limit and metrics requests. */
export function servePrimaryIpc(limiter: RateLimiter): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, message: Request) => {
    const reply = (r: Omit<Reply, 'type' | 'id'>) => worker.isConnected() && worker.send({ type: message.type, id: message.id, ...r });
    if (message?.type === RATE_LIMIT && message.refund) {
      limiter.refund(message.key, message.windowSeconds).then(
        () => reply({}),
        (err: Error) => reply({ error: err.message }),
      );
    } else if (message?.type === RATE_LIMIT) {
      limiter.hit(message.key, message.limit, message.windowSeconds).then(
        (decision) => reply({ decision }),
        (err: Error) => reply({ error: err.message }),
      );
    } else if (message?.type === METRICS) {
      aggregator.clusterMetrics().then(
        (metrics) => reply({ metrics }),
        (err: Error) => reply({ error: err.message }),
      );
    }
  });
}

let nextId = 0;
let listening = false;
const pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();

function askPrimary(request: Request): Promise<Reply> {
  if (!listening) {
    listening = true;
    process.on('message', (reply: Reply) => {
      const waiter = pending.get(reply?.id);
      if (!waiter || (reply.type !== RATE_LIMIT && reply.type !== METRICS)) return;
      pending.delete(reply.id);
      if (reply.error) waiter.reject(new Error(reply.error));
      else waiter.resolve(reply);
    });
  }
  return new Promise((resolve, reject) => {
    pending.set(request.id, { resolve, reject });
    process.send!(request);
  });
}

/** In a worker: the rate limiter whose counters live in the primary. */
export class PrimaryRateLimiter implements RateLimiter {
  async hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const reply = await askPrimary({ type: RATE_LIMIT, id: nextId++, key, limit, windowSeconds });
    return reply.decision!;
  }

  async refund(key: string, windowSeconds: number): Promise<void> {
    await askPrimary({ type: RATE_LIMIT, id: nextId++, key, limit: 0, windowSeconds, refund: true });
  }
}

/** In a worker: exposes `registry` to the primary's aggregation and fetches the whole. */
export function clusterMetricsSource(registry: Registry): () => Promise<string> {
  new AggregatorRegistry(); // installs the worker-side listener
  AggregatorRegistry.setRegistries([registry]);
  return async () => (await askPrimary({ type: METRICS, id: nextId++ })).metrics ?? '';
}
