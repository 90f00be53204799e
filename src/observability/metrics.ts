import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** The service's Prometheus metrics; one instance per process. */
export class Metrics {
  readonly registry = new Registry();
  readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by route template and status, with latency.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly tokensIssued = new Counter({
    name: 'oauth_tokens_issued_total',
    help: 'Access tokens signed, by authorization server.',
    labelNames: ['server'] as const,
    registers: [this.registry],
  });
  readonly tokensReused = new Counter({
    name: 'oauth_tokens_reused_total',
    help: 'Token requests answered with the client\'s recent token instead of a new one (TOKEN_REUSE_SECONDS).',
    labelNames: ['server'] as const,
    registers: [this.registry],
  });
  readonly authFailures = new Counter({
    name: 'auth_failures_total',
    help: 'Failed client authentications and rejected access tokens, by reason.',
    labelNames: ['kind', 'reason'] as const,
    registers: [this.registry],
  });
  readonly changesHeard = new Counter({
    name: 'changes_heard_total',
    help: 'Committed changes announced by any process (this one included), each of which emptied this process\'s caches, by topic.',
    labelNames: ['topic'] as const,
    registers: [this.registry],
  });
  readonly rateLimitRejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429, by limit.',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });
  readonly guessingAlerts = new Counter({
    name: 'auth_guessing_alerts_total',
    help: 'Distributed guessing reported: an account\'s failed authentications from all addresses reached the alert threshold in a window, by endpoint.',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });

  readonly jobsRunning = new Gauge({
    name: 'jobs_running',
    help: 'Background jobs (clips, reels) this process is running now, by kind.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly jobAttempts = new Histogram({
    name: 'job_attempt_duration_seconds',
    help: 'Background job attempts by kind and outcome (done, retry, error, lost_lease, released), with their duration.',
    labelNames: ['kind', 'outcome'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retry, failed, disabled, skipped, lost_lease).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  /** Feeds the job metrics; hand it to the JobRunner. */
  readonly jobObserver = {
    started: (kind: string) => this.jobsRunning.inc({ kind }),
    finished: (kind: string, outcome: string, seconds: number) => {
      this.jobsRunning.dec({ kind });
      this.jobAttempts.observe({ kind, outcome }, seconds);
    },
  };

  constructor(poolStats?: () => PoolStats | undefined) {
    collectDefaultMetrics({ register: this.registry });
    if (poolStats) {
      new Gauge({
        name: 'db_pool_connections',
        help: 'Database pool connections by state.',
        labelNames: ['state'] as const,
        registers: [this.registry],
        collect() {
          const stats = poolStats();
          if (!stats) return;
          this.set({ state: 'total' }, stats.total);
          this.set({ state: 'idle' }, stats.idle);
          this.set({ state: 'waiting' }, stats.waiting);
        },
      });
    }
  }
}

/**
 * Times every request. The registry is served by the operations listener (metrics-listener.ts),
 * never by this app: the public port must not tell why an authentication failed.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.requestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
