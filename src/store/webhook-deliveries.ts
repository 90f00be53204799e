import type { Clock } from '../clock.js';
import type { Database, Row, Transaction, WriteOptions } from './database.js';
import { inList, type WebhookEventData, type WebhookEventType } from './webhook-events.js';
import type { WebhookRepository } from './webhooks.js';

/** A delivery claimed for one attempt, with what sending it needs. */
export interface ClaimedDelivery {
  subscriptionId: string;
  eventId: string;
  eventType: WebhookEventType;
  eventData: WebhookEventData;
  eventCreatedAt: number;
  /** This attempt's number (from 1). */
  attempt: number;
  createdAt: number;
  url: string;
  /** The credential whose owner must still see what the event names. */
  clientId: string;
  subscriptionDisabled: boolean;
  /** The subscription's first failure since its last success (null: not failing). */
  failingSince: number | null;
  /** The secrets that sign this attempt: the current one, and the previous one while its rotation's grace lasts. */
  secrets: string[];
}

/** How an attempt ended, as the delivery log records it. */
export interface AttemptResult {
  responseCode: number | null;
  durationMs: number | null;
  /** Why it failed or was skipped (null: it succeeded). */
  error: string | null;
}

/** What a failed attempt leads to. */
export type AttemptFollowUp =
  | { then: 'retry'; at: number }
  | { then: 'give_up' }
  /** The receiver said 410 Gone, or failed for too long: no more deliveries to it. */
  | { then: 'disable'; reason: string };

/** How one attempt of a claimed delivery ended, and what follows. */
export type AttemptEnd = { delivery: ClaimedDelivery; result: AttemptResult } & ({ then: 'succeeded' } | { then: 'skipped' } | AttemptFollowUp);

const CLAIMED = `SELECT d.subscription_id, d.event_id, d.attempts, d.created_at, e.type, e.data, e.created_at AS event_created_at,
    s.url, s.client_id, s.disabled_at, s.failing_since, s.secret, s.previous_secret, s.previous_secret_expires_at
  FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id JOIN webhook_subscriptions s ON s.id = d.subscription_id`;

const claimedOf = (r: Row, now: number): ClaimedDelivery => ({
  subscriptionId: r.subscription_id as string,
  eventId: r.event_id as string,
  eventType: r.type as WebhookEventType,
  eventData: (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as WebhookEventData,
  eventCreatedAt: Number(r.event_created_at),
  attempt: Number(r.attempts),
  createdAt: Number(r.created_at),
  url: r.url as string,
  clientId: r.client_id as string,
  subscriptionDisabled: r.disabled_at !== null && r.disabled_at !== undefined,
  failingSince: r.failing_since === null || r.failing_since === undefined ? null : Number(r.failing_since),
  secrets: r.previous_secret && Number(r.previous_secret_expires_at) > now ? [r.secret as string, r.previous_secret as string] : [r.secret as string],
});

// Two seeks of the (status, next_attempt_at) index, never a scan: due pending deliveries in
// their order, and the few being delivered whose lease ran out (their process died).
// The limit is written into the statement: as a parameter, PostgreSQL's generic plan of the
// claim's UPDATE expects many rows and hash-joins them with a scan of every delivery.
const duePending = (limit: number) => `SELECT d.subscription_id, d.event_id FROM webhook_deliveries d
  WHERE d.status = 'pending' AND d.next_attempt_at <= @now ORDER BY d.next_attempt_at LIMIT ${Math.trunc(limit)}`;
const leaseRanOut = (limit: number) => `SELECT d.subscription_id, d.event_id FROM webhook_deliveries d
  WHERE d.status = 'delivering' AND d.lease_until <= @now LIMIT ${Math.trunc(limit)}`;
const HELD = `subscription_id = @subscriptionId AND event_id = @eventId AND status = 'delivering' AND lease_owner = @owner`;

/**
 * The worker's own bookkeeping (claims, attempts' ends) does not wait for PostgreSQL's WAL
 * flush at COMMIT (~3 ms here, per transaction). A crash may lose its last few hundred
 * milliseconds of commits, which leaves those deliveries as they were before: pending, or
 * leased to the dead process. They are sent again, with the same webhook-id, once due or once
 * the lease runs out: the at-least-once a crash mid-send already gives. A lost claim was never
 * sent; a lost end is sent again.
 */
const BOOKKEEPING: WriteOptions = { waitForDisk: false };

/**
 * The delivery side of the outbox, claimed as the job queue claims jobs: a due delivery is
 * taken under a lease (an owner and a time); one whose lease ran out (its process died
 * mid-send) is due again, with the same event id. PostgreSQL skips rows another process is
 * claiming (SKIP LOCKED); SQLite's write transaction holds the whole database. Only the
 * lease's owner records an attempt's end.
 */
export class WebhookDeliveryRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly subscriptions: Pick<WebhookRepository, 'disableIn'>,
  ) {}

  /**
   * Takes up to `limit` due deliveries for `owner` for `leaseMs`, each starting an attempt.
   * (The import's outbox batches become deliveries when expanded, WebhookPendingBatches.)
   * `busy`: the caller's last claim found all it asked for, so more is likely due (the read
   * that spares an idle caller a write transaction is skipped).
   */
  async claim(owner: string, leaseMs: number, limit: number, { busy = false } = {}): Promise<ClaimedDelivery[]> {
    // An idle worker asks often: reads first, so no write transaction is opened for nothing.
    // Plain reads: locking the row found would make each a transaction of its own, with a
    // commit that waits for the WAL flush.
    const probe = { now: this.clock.now() };
    if (!busy && !(await this.db.one(duePending(1), probe)) && !(await this.db.one(leaseRanOut(1), probe))) return [];
    return this.db.write(null, async (tx) => {
      const now = this.clock.now();
      const params = { owner, leaseUntil: now + leaseMs, now };
      // Both sets taken in one statement (leases run out first), their rows locked as the
      // UPDATE reads them, or passed over when another process is claiming them.
      const claimed = await tx.all<{ subscription_id: string; event_id: string }>(
        `UPDATE webhook_deliveries SET status = 'delivering', attempts = attempts + 1, lease_owner = @owner, lease_until = @leaseUntil, updated_at = @now
           FROM (SELECT * FROM (SELECT * FROM (${leaseRanOut(limit)} FOR UPDATE SKIP LOCKED) AS expired
                                UNION ALL SELECT * FROM (${duePending(limit)} FOR UPDATE SKIP LOCKED) AS pending) AS due_or_expired
                  LIMIT ${Math.trunc(limit)}) AS due
          WHERE webhook_deliveries.subscription_id = due.subscription_id AND webhook_deliveries.event_id = due.event_id
          RETURNING webhook_deliveries.subscription_id, webhook_deliveries.event_id`,
        params,
      );
      if (claimed.length === 0) return [];
      const keys: Record<string, unknown> = {};
      const pairs = claimed.map((r, i) => {
        keys[`s${i}`] = r.subscription_id;
        keys[`e${i}`] = r.event_id;
        return `(@s${i}, @e${i})`;
      });
      // A join with the pairs as VALUES: a primary-key seek each on both engines (PostgreSQL's
      // generic plan for a row-value IN list of parameters scanned the whole table).
      const rows = await tx.all(`${CLAIMED} JOIN (VALUES ${pairs.join(', ')}) AS k ON d.subscription_id = k.column1 AND d.event_id = k.column2`, keys);
      return rows.map((r) => claimedOf(r, now));
    }, BOOKKEEPING);
  }

  /**
   * Records how attempts ended, all in one transaction (a worker's attempts finish together:
   * one commit for all of them), each as its own method below would. Resolves, for each, to
   * whether `owner` still held its lease (false: nothing recorded for it).
   */
  async record(owner: string, ends: readonly AttemptEnd[]): Promise<boolean[]> {
    if (ends.length === 0) return [];
    return this.db.write(null, async (tx) => {
      // The batch's subscriptions first, in id order. Deleting a subscription locks it and then
      // its deliveries; this transaction locks deliveries and then (failing_since, disabling)
      // their subscriptions: taken the other way round the two deadlock, and PostgreSQL would end
      // this whole batch, whose deliveries would then wait out their leases. KEY SHARE waits only
      // for a deletion, never for another process recording.
      const ids = inList([...new Set(ends.map((e) => e.delivery.subscriptionId))].sort());
      const subscriptions = await tx.all<{ id: string; failing_since: number | null }>(
        `SELECT id, failing_since FROM webhook_subscriptions WHERE id IN (${ids.sql}) ORDER BY id FOR KEY SHARE`,
        ids.params,
      );
      const failing = new Set(subscriptions.filter((s) => s.failing_since !== null).map((s) => s.id));
      // Successes (nearly every end) set-wise: a statement per chunk, not two per delivery.
      const succeeded = await this.succeededIn(tx, owner, ends.filter((e) => e.then === 'succeeded'), failing);
      const held: boolean[] = [];
      for (const end of ends) held.push(end.then === 'succeeded' ? succeeded.has(pairKey(end.delivery)) : await this.recordIn(tx, owner, end));
      return held;
    }, BOOKKEEPING);
  }

  /** Records a 2xx; the subscription is no longer failing. False when `owner` lost the lease. */
  async succeeded(d: ClaimedDelivery, owner: string, result: AttemptResult): Promise<boolean> {
    return (await this.record(owner, [{ delivery: d, result, then: 'succeeded' }]))[0]!;
  }

  /** Records an attempt that sent nothing (the event's owner may no longer see it, the subscription is disabled). */
  async skipped(d: ClaimedDelivery, owner: string, reason: string): Promise<boolean> {
    return (await this.record(owner, [{ delivery: d, result: { responseCode: null, durationMs: null, error: reason }, then: 'skipped' }]))[0]!;
  }

  /** Records a failed attempt and what follows it; the subscription counts as failing from its first failure. */
  async failed(d: ClaimedDelivery, owner: string, result: AttemptResult, next: AttemptFollowUp): Promise<boolean> {
    return (await this.record(owner, [{ delivery: d, result, ...next }]))[0]!;
  }

  /** How many deliveries are in each status (for metrics and operators). */
  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db.all('SELECT status, COUNT(*) AS n FROM webhook_deliveries GROUP BY status ORDER BY status');
    return Object.fromEntries(rows.map((r) => [r.status as string, Number(r.n)]));
  }

  /**
   * Records 2xx answers, SUCCEEDED_CHUNK at a time: each a delivery `owner` still holds; their
   * subscriptions (those of them `failing`) are no longer failing. Resolves to the pairs
   * (pairKey) recorded.
   */
  private async succeededIn(tx: Transaction, owner: string, ends: readonly AttemptEnd[], failing: ReadonlySet<string>): Promise<Set<string>> {
    const held = new Set<string>();
    for (let from = 0; from < ends.length; from += SUCCEEDED_CHUNK) {
      const chunk = ends.slice(from, from + SUCCEEDED_CHUNK);
      const params: Record<string, unknown> = { owner, now: this.clock.now() };
      const rows = chunk.map(({ delivery: d, result }, i) => {
        Object.assign(params, { [`s${i}`]: d.subscriptionId, [`e${i}`]: d.eventId, [`c${i}`]: result.responseCode, [`m${i}`]: result.durationMs });
        return `(@s${i}, @e${i}, CAST(@c${i} AS INTEGER), CAST(@m${i} AS INTEGER))`;
      });
      const recorded = await tx.all<{ subscription_id: string; event_id: string }>(
        `UPDATE webhook_deliveries SET status = 'succeeded', lease_owner = NULL, lease_until = NULL, response_code = v.column3,
           duration_ms = v.column4, last_error = NULL, updated_at = @now
           FROM (VALUES ${rows.join(', ')}) AS v
          WHERE webhook_deliveries.subscription_id = v.column1 AND webhook_deliveries.event_id = v.column2
            AND webhook_deliveries.status = 'delivering' AND webhook_deliveries.lease_owner = @owner
          RETURNING webhook_deliveries.subscription_id, webhook_deliveries.event_id`,
        params,
      );
      for (const r of recorded) held.add(`${r.subscription_id} ${r.event_id}`);
      const recovered = [...new Set(recorded.map((r) => r.subscription_id))].filter((id) => failing.has(id));
      const subscriptions = inList(recovered);
      if (recovered.length > 0) {
        await tx.run(`UPDATE webhook_subscriptions SET failing_since = NULL WHERE id IN (${subscriptions.sql}) AND failing_since IS NOT NULL`, subscriptions.params);
      }
    }
    return held;
  }

  private async recordIn(tx: Transaction, owner: string, end: Exclude<AttemptEnd, { then: 'succeeded' }>): Promise<boolean> {
    const { delivery: d, result } = end;
    const now = this.clock.now();
    if (end.then === 'skipped') return this.end(tx, d, owner, 'skipped', result);
    const held =
      end.then === 'retry'
        ? (await tx.run(
            `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = @at, lease_owner = NULL, lease_until = NULL,
               response_code = @responseCode, duration_ms = @durationMs, last_error = @error, updated_at = @now WHERE ${HELD}`,
            { ...keyOf(d, owner), ...result, at: end.at, now },
          )) > 0
        : await this.end(tx, d, owner, 'failed', result);
    if (!held) return false;
    await tx.run('UPDATE webhook_subscriptions SET failing_since = COALESCE(failing_since, @now) WHERE id = @id', { id: d.subscriptionId, now });
    if (end.then === 'disable') await this.subscriptions.disableIn(tx, d.subscriptionId, end.reason, { actor: 'webhooks' });
    return true;
  }

  private async end(tx: Transaction, d: ClaimedDelivery, owner: string, status: 'failed' | 'skipped', result: AttemptResult): Promise<boolean> {
    const changed = await tx.run(
      `UPDATE webhook_deliveries SET status = @status, lease_owner = NULL, lease_until = NULL, response_code = @responseCode,
         duration_ms = @durationMs, last_error = @error, updated_at = @now WHERE ${HELD}`,
      { ...keyOf(d, owner), ...result, status, now: this.clock.now() },
    );
    return changed > 0;
  }
}

const keyOf = (d: ClaimedDelivery, owner: string) => ({ subscriptionId: d.subscriptionId, eventId: d.eventId, owner });
const pairKey = (d: ClaimedDelivery) => `${d.subscriptionId} ${d.eventId}`;
/** Successes recorded per statement (four parameters each). */
const SUCCEEDED_CHUNK = 100;
