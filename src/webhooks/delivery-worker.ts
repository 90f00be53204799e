import type { AccessReads } from '../access/access-cache.js';
import type { ResourceAccess } from '../access/resource-access.js';
import type { Clock } from '../clock.js';
import { ClaimLoop, leaseOwnerName } from '../jobs/claim-loop.js';
import type { AttemptEnd, AttemptFollowUp, ClaimedDelivery, WebhookDeliveryRepository } from '../store/webhook-deliveries.js';
import type { WebhookPendingBatches } from '../store/webhook-pending-batches.js';
import { envelopeBody } from './envelope.js';
import { GroupCommit } from '../store/group-commit.js';
import { nextAttemptAt, RETRY_WINDOW_MS, retryAfterMs } from './retry-schedule.js';
import type { WebhookSender } from './sender.js';
import { signedHeaders } from './signing.js';
import { whyNotVisible } from './visibility.js';

export interface DeliveryWorkerDeps {
  deliveries: WebhookDeliveryRepository;
  /** The import's outbox, expanded into deliveries by this worker. */
  batches: Pick<WebhookPendingBatches, 'waiting' | 'expandNext'>;
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

/** How an attempt ended, before it is recorded: its end, and what the log says of it. */
interface Attempt {
  end: AttemptEnd;
  status?: number | null;
  error?: string | null;
}

/**
 * Delivers the outbox from this server process (every process runs one, so any may deliver):
 * expands the import's pending batches into events and deliveries (WebhookPendingBatches),
 * claims due deliveries under a lease, checks that the subscription's owner may still see
 * what each names, signs and sends it, and records the attempt and what follows (success, a
 * retry after backoff or Retry-After, giving up after three days, disabling on 410 Gone or
 * after three days of failures). A process killed mid-send leaves its deliveries leased: they
 * are sent again, with the same webhook-id, once the lease runs out.
 */
export class WebhookDeliveryWorker {
  readonly owner = leaseOwnerName();
  private readonly loop: ClaimLoop<ClaimedDelivery>;
  private readonly ends: GroupCommit<AttemptEnd, boolean>;
  /** Ends handed to `ends` and not yet recorded. */
  private readonly recording = new Set<Promise<void>>();
  private readonly concurrency: number;
  /** Whether the last claim found all it asked for: the next one then looks for due deliveries without a read first. */
  private busy = false;
  private readonly pollMs: number;
  /** The expansion of the import's waiting batches under way, if any; when this process last looked for them. */
  private expanding: Promise<void> | undefined;
  private lookedForBatchesAt = -Infinity;
  private expansionFailing = false;

  constructor(
    private readonly deps: DeliveryWorkerDeps,
    options: DeliveryWorkerOptions,
  ) {
    this.concurrency = options.concurrency;
    this.pollMs = options.pollMs;
    this.loop = new ClaimLoop({
      concurrency: options.concurrency,
      // Claims in batches (when half the slots are free, or all): a claim per finished attempt
      // would cost a write transaction per delivery.
      minClaim: Math.ceil(options.concurrency / 2),
      pollMs: options.pollMs,
      claim: async (limit) => {
        this.expandWaitingBatches();
        const claimed = await deps.deliveries.claim(this.owner, options.leaseMs, limit, { busy: this.busy });
        this.busy = claimed.length === limit;
        return this.withSessionsRead(claimed);
      },
      work: (d) => this.run(d),
      log: deps.log,
      words: { subject: 'webhooks', claims: 'claim deliveries', resumes: 'delivering' },
    });
    // Attempts that end together are recorded together: one transaction for all of them. A batch
    // that fails (a dropped connection, a deadlock) is tried again attempt by attempt (GroupCommit):
    // otherwise every delivery in it would wait out its lease before being sent again.
    this.ends = new GroupCommit((ends) => deps.deliveries.record(this.owner, ends), options.concurrency);
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for due deliveries now instead of at the next poll. */
  nudge(): void {
    this.loop.nudge();
  }

  /** Stops claiming, lets attempts in flight finish (each is bounded by the send timeout) and be recorded. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.expanding;
    while (this.recording.size > 0) await Promise.all(this.recording);
  }

  /**
   * Expands the import's waiting batches, one transaction each, beside the claims: a claim that
   * waited for an expansion left the slots idle meanwhile. Looked for at most once a poll while
   * none waits, so a batch another process's import wrote is found as soon as an idle worker
   * would find a due delivery; each expanded batch wakes the claims.
   */
  private expandWaitingBatches(): void {
    // Real time (the deps' clock may be a test's, standing still); half a poll, as timers drift.
    const now = performance.now();
    if (this.expanding || now - this.lookedForBatchesAt < this.pollMs / 2) return;
    this.lookedForBatchesAt = now;
    this.expanding = this.expandBatches().finally(() => (this.expanding = undefined));
  }

  private async expandBatches(): Promise<void> {
    const { batches, log } = this.deps;
    try {
      if (!(await batches.waiting())) return;
      while (!this.loop.stopping && (await batches.expandNext()) !== null) this.loop.nudge();
      if (this.expansionFailing) log.info({}, "webhooks: the import's events are expanded again");
      this.expansionFailing = false;
    } catch (err) {
      // The failed batch is set aside for a while (WebhookPendingBatches.expandNext); the others are looked for at the next poll.
      if (!this.expansionFailing) log.warn({ reason: (err as Error).message }, "webhooks: could not expand an import's events; retrying");
      this.expansionFailing = true;
    }
  }

  /** Reads the sessions a claimed batch names in one query: each delivery's visibility check then finds its session cached. */
  private async withSessionsRead(claimed: ClaimedDelivery[]): Promise<ClaimedDelivery[]> {
    const ids = [...new Set(claimed.flatMap((d) => (d.eventData.sessionId ? [d.eventData.sessionId] : [])))];
    // On failure each check reads its own session, as without the batch.
    if (ids.length > 1) await this.deps.reads.preloadSessions(ids).catch(() => undefined);
    return claimed;
  }

  /**
   * One attempt: the slot frees as soon as the receiver has answered, and its end is recorded in
   * the background (group-committed with the others). A delivery counts as sent only once that
   * record commits: until then it stays leased to this process, so one killed meanwhile leaves
   * it to be sent again, with the same webhook-id, once the lease runs out. When as many ends as
   * there are slots already wait to be recorded, the attempt holds its slot until its own is:
   * what is unrecorded stays bounded while the database is slow.
   */
  private async run(d: ClaimedDelivery): Promise<void> {
    let attempt: Attempt;
    try {
      attempt = await this.deliver(d);
    } catch (err) {
      // The lease runs out and the delivery is claimed again: nothing is lost.
      this.couldNotRecord(d, err);
      return;
    }
    const recorded = this.record(attempt);
    if (this.recording.size > this.concurrency) await recorded;
  }

  private record(attempt: Attempt): Promise<void> {
    const recorded: Promise<void> = this.ends
      .add(attempt.end)
      .then(
        (held) => this.report(attempt, held),
        (err: unknown) => this.couldNotRecord(attempt.end.delivery, err),
      )
      .finally(() => this.recording.delete(recorded));
    this.recording.add(recorded);
    return recorded;
  }

  private couldNotRecord(d: ClaimedDelivery, err: unknown): void {
    this.deps.log.warn({ eventId: d.eventId, webhookId: d.subscriptionId, reason: (err as Error).message }, 'webhooks: could not record an attempt');
  }

  /** Tells the observer and the log how a recorded attempt ended (`held`: false when another process took its lease meanwhile). */
  private report({ end, status, error }: Attempt, held: boolean): void {
    const d = end.delivery;
    const outcome: Outcome = !held ? 'lost_lease' : OUTCOME_OF[end.then];
    this.deps.observer?.(outcome);
    const fields = { eventId: d.eventId, webhookId: d.subscriptionId, type: d.eventType, attempt: d.attempt, outcome, status, reason: error };
    if (outcome === 'disabled') this.deps.log.warn(fields, 'webhooks: subscription disabled');
    else if (outcome !== 'succeeded') this.deps.log.info(fields, `webhook delivery ${outcome}`);
  }

  /** Checks, signs and sends one claimed delivery; resolves to how it ended, not yet recorded. */
  private async deliver(d: ClaimedDelivery): Promise<Attempt> {
    const { sender, clock } = this.deps;
    if (d.subscriptionDisabled) return skipped(d, 'the subscription is disabled');
    const hidden = await whyNotVisible(this.deps.access, this.deps.reads, d);
    if (hidden) return skipped(d, hidden);
    const body = envelopeBody(d.eventType, d.eventCreatedAt, d.eventData, this.deps.baseUrl);
    const sent = await sender.send(d.url, signedHeaders(d.secrets, d.eventId, Math.floor(clock.now() / 1000), body), body);
    const result = { responseCode: sent.status, durationMs: sent.durationMs, error: sent.ok ? null : sent.error };
    if (sent.ok) return { end: { delivery: d, result, then: 'succeeded' }, status: sent.status };
    const now = clock.now();
    const failingFor = d.failingSince === null ? 0 : now - d.failingSince;
    let next: AttemptFollowUp;
    if (sent.status === 410) next = { then: 'disable', reason: 'the receiver answered 410 Gone' };
    else if (failingFor >= RETRY_WINDOW_MS) next = { then: 'disable', reason: 'its deliveries failed for three days' };
    else {
      const at = nextAttemptAt(d.attempt, d.createdAt, now, retryAfterMs(sent.retryAfter, now));
      next = at === null ? { then: 'give_up' } : { then: 'retry', at };
    }
    return { end: { delivery: d, result, ...next }, status: sent.status, error: next.then === 'disable' ? next.reason : sent.error };
  }
}

/** An attempt that sent nothing (the event's owner may no longer see it, the subscription is disabled). */
const skipped = (d: ClaimedDelivery, reason: string): Attempt => ({
  end: { delivery: d, result: { responseCode: null, durationMs: null, error: reason }, then: 'skipped' },
  error: reason,
});

/** What a recorded end is called in the log and metrics. */
const OUTCOME_OF: Record<AttemptEnd['then'], Outcome> = { succeeded: 'succeeded', skipped: 'skipped', retry: 'retry', give_up: 'failed', disable: 'disabled' };
