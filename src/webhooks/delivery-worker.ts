import type { AccessReads } from '../access/access-cache.js';
import type { ResourceAccess } from '../access/resource-access.js';
import type { Clock } from '../clock.js';
import { ClaimLoop, leaseOwnerName } from '../jobs/claim-loop.js';
import type { AttemptEnd, AttemptFollowUp, ClaimedDelivery, WebhookDeliveryRepository } from '../store/webhook-deliveries.js';
import { envelopeBody } from './envelope.js';
import { GroupCommit } from '../store/group-commit.js';
import { nextAttemptAt, RETRY_WINDOW_MS, retryAfterMs } from './retry-schedule.js';
import type { WebhookSender } from './sender.js';
import { signedHeaders } from './signing.js';
import { whyNotVisible } from './visibility.js';

export interface DeliveryWorkerDeps {
  deliveries: WebhookDeliveryRepository;
  access: ResourceAccess;
  reads: Pick<AccessReads, 'findPrincipal' | 'preloadSessions'>;
  sender: WebhookSender;
  clock: Clock;
  /** Where the links in an event point. */
  baseUrl: string;
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void };
  /** Told how each attempt ended (metrics). */
  observer?: (outcome: DeliveryOutcome) => void;
}

export interface DeliveryWorkerOptions {
  /** Deliveries in flight at once in this process. */
  concurrency: number;
  /** How long a claim stays this process's: a killed process's deliveries are sent again after it. */
  leaseMs: number;
  /** How often an idle worker looks for due deliveries. */
  pollMs: number;
}

/** What an attempt ended as, for the log line and metrics. */
export type DeliveryOutcome = 'succeeded' | 'retry' | 'failed' | 'disabled' | 'skipped' | 'lost_lease';
type Outcome = DeliveryOutcome;

/**
 * Delivers the outbox from this server process (every process runs one, so any may deliver):
 * claims due deliveries under a lease, checks that the subscription's owner may still see what
 * each names, signs and sends it, and records the attempt and what follows (success, a retry
 * after backoff or Retry-After, giving up after three days, disabling on 410 Gone or after
 * three days of failures). A process killed mid-send leaves its deliveries leased: they are
 * sent again, with the same webhook-id, once the lease runs out.
 */
export class WebhookDeliveryWorker {
  readonly owner = leaseOwnerName();
  private readonly loop: ClaimLoop<ClaimedDelivery>;
  private readonly ends: GroupCommit<AttemptEnd, boolean>;

  constructor(
    private readonly deps: DeliveryWorkerDeps,
    options: DeliveryWorkerOptions,
  ) {
    this.loop = new ClaimLoop({
      concurrency: options.concurrency,
      // Claims in batches (when half the slots are free, or all): a claim per finished attempt
      // would cost a write transaction per delivery.
      minClaim: Math.ceil(options.concurrency / 2),
      pollMs: options.pollMs,
      claim: async (limit) => this.withSessionsRead(await deps.deliveries.claim(this.owner, options.leaseMs, limit)),
      work: (d) => this.run(d),
      log: deps.log,
      words: { subject: 'webhooks', claims: 'claim deliveries', resumes: 'delivering' },
    });
    // Attempts that end together are recorded together: one transaction for all of them.
    this.ends = new GroupCommit((ends) => deps.deliveries.record(this.owner, ends), options.concurrency);
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for due deliveries now instead of at the next poll. */
  nudge(): void {
    this.loop.nudge();
  }

  /** Stops claiming, lets attempts in flight finish (each is bounded by the send timeout). */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Reads the sessions a claimed batch names in one query: each delivery's visibility check then finds its session cached. */
  private async withSessionsRead(claimed: ClaimedDelivery[]): Promise<ClaimedDelivery[]> {
    const ids = [...new Set(claimed.flatMap((d) => (d.eventData.sessionId ? [d.eventData.sessionId] : [])))];
    // On failure each check reads its own session, as without the batch.
    if (ids.length > 1) await this.deps.reads.preloadSessions(ids).catch(() => undefined);
    return claimed;
  }

  private async run(d: ClaimedDelivery): Promise<void> {
    try {
      await this.attempt(d);
    } catch (err) {
      // The lease runs out and the delivery is claimed again: nothing is lost.
      this.deps.log.warn({ eventId: d.eventId, webhookId: d.subscriptionId, reason: (err as Error).message }, 'webhooks: could not record an attempt');
    }
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const { outcome, status, error } = await this.deliver(d);
    this.deps.observer?.(outcome);
    const fields = { eventId: d.eventId, webhookId: d.subscriptionId, type: d.eventType, attempt: d.attempt, outcome, status, reason: error };
    if (outcome === 'disabled') this.deps.log.warn(fields, 'webhooks: subscription disabled');
    else if (outcome !== 'succeeded') this.deps.log.info(fields, `webhook delivery ${outcome}`);
  }

  private async deliver(d: ClaimedDelivery): Promise<{ outcome: Outcome; status?: number | null; error?: string }> {
    const { sender, clock } = this.deps;
    if (d.subscriptionDisabled) return this.skip(d, 'the subscription is disabled');
    const hidden = await whyNotVisible(this.deps.access, this.deps.reads, d);
    if (hidden) return this.skip(d, hidden);
    const body = envelopeBody(d.eventType, d.eventCreatedAt, d.eventData, this.deps.baseUrl);
    const sent = await sender.send(d.url, signedHeaders(d.secrets, d.eventId, Math.floor(clock.now() / 1000), body), body);
    const result = { responseCode: sent.status, durationMs: sent.durationMs, error: sent.ok ? null : sent.error };
    if (sent.ok) return { outcome: (await this.ends.add({ delivery: d, result, then: 'succeeded' })) ? 'succeeded' : 'lost_lease', status: sent.status };
    const now = clock.now();
    const failingFor = d.failingSince === null ? 0 : now - d.failingSince;
    let next: AttemptFollowUp;
    if (sent.status === 410) next = { then: 'disable', reason: 'the receiver answered 410 Gone' };
    else if (failingFor >= RETRY_WINDOW_MS) next = { then: 'disable', reason: 'its deliveries failed for three days' };
    else {
      const at = nextAttemptAt(d.attempt, d.createdAt, now, retryAfterMs(sent.retryAfter, now));
      next = at === null ? { then: 'give_up' } : { then: 'retry', at };
    }
    const held = await this.ends.add({ delivery: d, result, ...next });
    const outcome: Outcome = !held ? 'lost_lease' : next.then === 'retry' ? 'retry' : next.then === 'disable' ? 'disabled' : 'failed';
    return { outcome, status: sent.status, error: next.then === 'disable' ? next.reason : sent.error };
  }

  private async skip(d: ClaimedDelivery, reason: string): Promise<{ outcome: Outcome; error: string }> {
    const held = await this.ends.add({ delivery: d, result: { responseCode: null, durationMs: null, error: reason }, then: 'skipped' });
    return { outcome: held ? 'skipped' : 'lost_lease', error: reason };
  }
}
